#include "match.h"

#include <math.h>

/* Plays one game; first moves first. Returns first's score minus second's. */
static int play_game(const Player *first, const Player *second, const LetterDist *ld, const Layout *lay,
                     const Kwg *kwg, uint64_t seed, uint64_t index, Game *g, int64_t *turns) {
    game_new(g, ld, lay, kwg, seed, MATCH_STREAM, index);
    while (!game_over(g)) {
        Move m;
        player_choose(g->on_turn == 0 ? first : second, g, &m);
        game_play(g, &m);
        (*turns)++;
    }
    return g->scores[0] - g->scores[1];
}

void match_play_pair(const Player *a, const Player *b, const LetterDist *ld, const Layout *lay, const Kwg *kwg,
                     uint64_t seed, uint64_t index, Game *scratch, MatchTotals *t) {
    int spreads[2];
    spreads[0] = play_game(a, b, ld, lay, kwg, seed, index, scratch, &t->turns);
    spreads[1] = -play_game(b, a, ld, lay, kwg, seed, index, scratch, &t->turns);
    int64_t half = 0;
    for (int i = 0; i < 2; i++) {
        t->spread_sum += spreads[i];
        if (spreads[i] > 0) {
            t->a_wins++;
            half += 2;
        } else if (spreads[i] == 0) {
            t->draws++;
            half += 1;
        } else {
            t->a_losses++;
        }
    }
    t->pairs++;
    t->games += 2;
    t->half_points += half;
    t->half_points_sq += half * half;
}

void match_result(const MatchTotals *t, MatchResult *r) {
    double n = (double)t->pairs;
    r->win_pct = r->ci95_pct = r->mean_spread = 0;
    if (n <= 0) return;
    /* per-pair score f = half/4 in [0, 1] */
    double mean = (double)t->half_points / (4.0 * n);
    double mean_sq = (double)t->half_points_sq / (16.0 * n);
    double var = n > 1 ? (mean_sq - mean * mean) * n / (n - 1) : 0.0;
    if (var < 0) var = 0;
    r->win_pct = 100.0 * mean;
    r->ci95_pct = 100.0 * 1.959964 * sqrt(var / n);
    r->mean_spread = (double)t->spread_sum / (double)t->games;
}

void match_totals_pack(const MatchTotals *t, int64_t out[MATCH_TOTALS_FIELDS]) {
    const int64_t v[MATCH_TOTALS_FIELDS] = {t->pairs,      t->games,       t->a_wins,         t->draws,   t->a_losses,
                                            t->spread_sum, t->half_points, t->half_points_sq, t->turns};
    for (int i = 0; i < MATCH_TOTALS_FIELDS; i++) out[i] = v[i];
}

void match_totals_unpack(const int64_t in[MATCH_TOTALS_FIELDS], MatchTotals *t) {
    *t = (MatchTotals){in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8]};
}

uint64_t match_deals_seed(uint64_t run_seed, MatchDeals deals, int gen) {
    if (deals == MATCH_DEALS_RUN) return run_seed;
    Rng r;
    rng_seed_stream(&r, run_seed, (uint64_t)deals, deals == MATCH_DEALS_ANCHOR || deals == MATCH_DEALS_DECISIONS ? 0 : (uint64_t)gen);
    return rng_next(&r);
}
