/*
 * decision_study.c - middle-game positions from static games, and players'
 * moves in them scored against a long reference simulation (see
 * decision_study.h).
 */
#include "decision_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/movegen.h"
#include "core/rng.h"
#include "eval/klv.h"

/* Streams of (seed, position) of their own, apart from the game's. */
#define STREAM_PICK UINT64_C(0x7069636b) /* "pick": which move of the game */
#define STREAM_REF UINT64_C(0x72656673)  /* "refs": the reference's seed */

void decision_study_config_defaults(DecisionStudyConfig *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->positions = 100;
    c->candidates = DECISION_DEFAULT_CANDIDATES;
    c->plies = DECISION_DEFAULT_PLIES;
    c->iterations = DECISION_DEFAULT_ITERATIONS;
    win_value_defaults(&c->win);
}

int decision_study_check(const DecisionStudyConfig *c, int n_players, RkError *err) {
    if (n_players < 1 || n_players > DECISION_MAX_PLAYERS)
        return rk_error(err, "decision study: %d players, expected 1..%d", n_players, DECISION_MAX_PLAYERS);
    if (c->positions < 1 || c->positions > DECISION_MAX_POSITIONS)
        return rk_error(err, "decision study: %d positions, expected 1..%d", c->positions, DECISION_MAX_POSITIONS);
    if (c->candidates < 1 || c->candidates > SIM_MAX_CANDIDATES - n_players)
        return rk_error(err, "decision study: %d reference candidates, expected 1..%d with %d player(s)", c->candidates,
                        SIM_MAX_CANDIDATES - n_players, n_players);
    if (c->plies < 0 || c->plies > 100) return rk_error(err, "decision study: plies %d, expected 0..100", c->plies);
    if (c->iterations < 2 || c->iterations > DECISION_MAX_ITERATIONS)
        return rk_error(err, "decision study: %d iterations, expected 2..%d (a standard error needs 2)", c->iterations,
                        DECISION_MAX_ITERATIONS);
    if (c->max_bag < 0 || c->max_bag > 100)
        return rk_error(err, "decision study: max bag %d, expected 0..100 (0: any position)", c->max_bag);
    if (!(c->win.bonus >= 0.0 && c->win.bonus <= DECISION_MAX_WIN_BONUS))
        return rk_error(err, "decision study: the win bonus must be in 0..%g", DECISION_MAX_WIN_BONUS);
    return winprob_check(&c->win.model, err);
}

static void play_static(const DecisionStudyConfig *c, Game *g) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, c->game_leave_value, c->game_leave_ctx);
    Move m;
    movegen_best(&req, &m, NULL);
    game_play(g, &m);
}

void decision_study_position(const DecisionStudyConfig *c, uint64_t i, Game *g) {
    game_new(g, c->ld, c->layout, c->kwg, c->seed, 0, i);
    int with_bag = 0; /* moves made with tiles in the bag */
    int first = -1;   /* the first of them with at most c->max_bag in the bag */
    while (!game_over(g) && g->bag.count > 0) {
        if (first < 0 && c->max_bag > 0 && g->bag.count <= c->max_bag) first = with_bag;
        play_static(c, g);
        with_bag++;
    }
    /* no late position (the game ended with more in the bag): its last with tiles in the bag */
    if (c->max_bag > 0 && first < 0) first = with_bag - 1;
    if (first < 0) first = 0;
    Rng r;
    rng_seed_stream(&r, c->seed, i, STREAM_PICK);
    uint64_t k = (uint64_t)first + rng_below(&r, (uint64_t)(with_bag - first));
    game_new(g, c->ld, c->layout, c->kwg, c->seed, 0, i);
    for (uint64_t m = 0; m < k; m++) play_static(c, g);
}

/* ---- totals ---- */

void decision_totals_pack(const DecisionTotals *t, int64_t out[DECISION_TOTALS_FIELDS]) {
    int o = 0;
    out[o++] = t->positions;
    const int64_t *cols[6] = {t->best, t->loss, t->loss_sq, t->diff_sq, t->loss_se, t->player_us};
    for (int c = 0; c < 6; c++)
        for (int k = 0; k < DECISION_MAX_PLAYERS; k++) out[o++] = cols[c][k];
    out[o++] = t->reference_us;
    out[o++] = t->candidates;
    for (int b = 0; b < DECISION_RANK_BINS; b++) out[o++] = t->best_rank[b];
}

void decision_totals_unpack(const int64_t in[DECISION_TOTALS_FIELDS], DecisionTotals *t) {
    int o = 0;
    t->positions = in[o++];
    int64_t *cols[6] = {t->best, t->loss, t->loss_sq, t->diff_sq, t->loss_se, t->player_us};
    for (int c = 0; c < 6; c++)
        for (int k = 0; k < DECISION_MAX_PLAYERS; k++) cols[c][k] = in[o++];
    t->reference_us = in[o++];
    t->candidates = in[o++];
    for (int b = 0; b < DECISION_RANK_BINS; b++) t->best_rank[b] = in[o++];
}

const char *const DECISION_RANK_BIN_NAMES[DECISION_RANK_BINS] = {"1", "2-5", "6-10", "11-15", "16-30", ">30",
                                                                 "not among the R best"};

int decision_rank_bin(int r) {
    return r <= 0 ? 6 : r == 1 ? 0 : r <= 5 ? 1 : r <= 10 ? 2 : r <= 15 ? 3 : r <= 30 ? 4 : 5;
}

static int64_t fixed(double points) { return (int64_t)llround(points * DECISION_UNIT); }

void decision_totals_add(DecisionTotals *t, const DecisionItem *item) {
    t->positions++;
    t->best_rank[decision_rank_bin(item->best_static_rank)]++;
    int64_t l0 = fixed(item->loss[0]);
    for (int k = 0; k < item->players; k++) {
        int64_t l = fixed(item->loss[k]);
        t->best[k] += item->best_chosen[k];
        t->loss[k] += l;
        t->loss_sq[k] += l * l;
        t->diff_sq[k] += (l - l0) * (l - l0);
        t->loss_se[k] += fixed(item->loss_se[k]);
        t->player_us[k] += (int64_t)llround(item->player_seconds[k] * 1e6);
    }
    t->reference_us += (int64_t)llround(item->reference_seconds * 1e6);
    t->candidates += item->candidates;
}

/* Mean and standard error of a quantity from its sum and sum of squares
 * (in units u and u^2) over n. */
static void mean_se(int64_t sum, int64_t sum_sq, int64_t n, double u, double *mean, double *se) {
    *mean = *se = 0.0;
    if (n < 1) return;
    double m = (double)sum / u / (double)n;
    *mean = m;
    if (n < 2) return;
    double var = ((double)sum_sq / (u * u) - (double)n * m * m) / (double)(n - 1);
    *se = var > 0.0 ? sqrt(var / (double)n) : 0.0;
}

void decision_summary(const DecisionTotals *t, int k, DecisionSummary *s) {
    memset(s, 0, sizeof *s);
    int64_t n = t->positions;
    if (n < 1) return;
    s->best_pct = 100.0 * (double)t->best[k] / (double)n;
    mean_se(t->loss[k], t->loss_sq[k], n, DECISION_UNIT, &s->mean_loss, &s->loss_se);
    if (k > 0) mean_se(t->loss[k] - t->loss[0], t->diff_sq[k], n, DECISION_UNIT, &s->diff, &s->diff_se);
    s->reference_se = (double)t->loss_se[k] / DECISION_UNIT / (double)n;
    s->ms_per_move = (double)t->player_us[k] / 1e3 / (double)n;
}

/* ---- one position ---- */

struct DecisionStudy {
    DecisionStudyConfig cfg;
    int n_players;
    Game game, world, play;
    MoveList legal;
    Move cand[SIM_MAX_CANDIDATES];
    int stride;     /* the most candidates a position can have: R + the players' moves */
    double *values; /* [iterations][stride] */
};

DecisionStudy *decision_study_new(const DecisionStudyConfig *c, int n_players, RkError *err) {
    if (decision_study_check(c, n_players, err) != 0) return NULL;
    DecisionStudy *s = calloc(1, sizeof *s);
    int stride = c->candidates + n_players;
    if (s != NULL) s->values = malloc((size_t)c->iterations * (size_t)stride * sizeof *s->values);
    if (s == NULL || s->values == NULL) {
        free(s);
        rk_error(err, "decision study: out of memory");
        return NULL;
    }
    s->cfg = *c;
    s->n_players = n_players;
    s->stride = stride;
    movelist_init(&s->legal);
    return s;
}

void decision_study_free(DecisionStudy *s) {
    if (s == NULL) return;
    movelist_free(&s->legal);
    free(s->values);
    free(s);
}

static int find_move(const Move *moves, int n, const Move *m) {
    for (int i = 0; i < n; i++)
        if (move_same(&moves[i], m)) return i;
    return -1;
}

/* Mean of candidate a's values minus b's over the worlds, and its standard
 * error. */
static void paired(const DecisionStudy *s, int a, int b, double *mean, double *se) {
    int n = s->cfg.iterations;
    const double *v = s->values;
    size_t w = (size_t)s->stride;
    double sum = 0.0, sq = 0.0;
    for (int it = 0; it < n; it++) sum += v[(size_t)it * w + a] - v[(size_t)it * w + b];
    double m = sum / n;
    for (int it = 0; it < n; it++) { /* two passes: no cancellation when the differences hardly vary */
        double d = v[(size_t)it * w + a] - v[(size_t)it * w + b] - m;
        sq += d * d;
    }
    double var = sq / (n - 1);
    *mean = m;
    *se = var > 0.0 ? sqrt(var / n) : 0.0;
}

int decision_study_score(DecisionStudy *s, const Player *const *players, uint64_t i, DecisionItem *item,
                         RkError *err) {
    const DecisionStudyConfig *c = &s->cfg;
    memset(item, 0, sizeof *item);
    Game *g = &s->game;
    decision_study_position(c, i, g);
    item->index = i;
    item->game = g;
    item->players = s->n_players;

    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, c->leave_value, c->leave_ctx);
    s->legal.count = 0;
    movegen_all(&req, &s->legal);
    movelist_sort_by_equity(&s->legal);
    int n = s->legal.count < (size_t)c->candidates ? (int)s->legal.count : c->candidates;
    for (int k = 0; k < n; k++) s->cand[k] = s->legal.moves[k];
    int r_best = n; /* the R best by static equity come first */

    int chosen_at[DECISION_MAX_PLAYERS];
    for (int p = 0; p < s->n_players; p++) {
        double t0 = rk_seconds();
        player_choose(players[p], g, &item->chosen[p]);
        item->player_seconds[p] = rk_seconds() - t0;
        if (find_move(s->legal.moves, (int)s->legal.count, &item->chosen[p]) < 0) {
            char text[128];
            move_to_string(&item->chosen[p], &g->board, g->ld, text, sizeof text);
            return rk_error(err, "decision study: player %d (%s) chose '%s' in position %llu, which is not a legal move",
                            p + 1, players[p]->spec, text, (unsigned long long)i);
        }
        int at = find_move(s->cand, n, &item->chosen[p]);
        if (at < 0) {
            at = n++;
            s->cand[at] = item->chosen[p];
        }
        chosen_at[p] = at;
    }
    item->candidates = n;

    double t0 = rk_seconds();
    Rng r;
    rng_seed_stream(&r, c->seed, i, STREAM_REF);
    uint64_t ref_seed = rng_next(&r);
    for (int it = 0; it < c->iterations; it++) {
        sim_deal_world(g, NULL, ref_seed, (uint64_t)it, &s->world);
        for (int k = 0; k < n; k++) {
            s->play = s->world;
            s->values[(size_t)it * (size_t)s->stride + k] =
                sim_static_rollout(&s->play, c->plies + 1, &s->cand[k], c->leave_value, c->leave_ctx, &c->win);
        }
    }
    double mean[SIM_MAX_CANDIDATES];
    int best = 0;
    for (int k = 0; k < n; k++) {
        double sum = 0.0;
        for (int it = 0; it < c->iterations; it++) sum += s->values[(size_t)it * (size_t)s->stride + k];
        mean[k] = sum / c->iterations;
        if (mean[k] > mean[best]) best = k;
    }
    item->best = s->cand[best];
    item->best_value = mean[best];
    item->best_static_rank = best < r_best ? best + 1 : 0;
    for (int p = 0; p < s->n_players; p++) {
        item->best_chosen[p] = chosen_at[p] == best;
        if (chosen_at[p] == best) continue; /* loss 0, no error */
        paired(s, best, chosen_at[p], &item->loss[p], &item->loss_se[p]);
    }
    item->reference_seconds = rk_seconds() - t0;
    return 0;
}

int decision_study_run_share(const DecisionStudyConfig *c, const Player *const *players, int n, int rank, int ranks,
                             DecisionTotals *t, DecisionObserver observe, void *ctx, RkError *err) {
    memset(t, 0, sizeof *t);
    if (rank < 0 || ranks < 1 || rank >= ranks)
        return rk_error(err, "decision study: rank %d of %d", rank, ranks);
    DecisionStudy *s = decision_study_new(c, n, err);
    if (s == NULL) return -1;
    DecisionItem *item = malloc(sizeof *item);
    if (item == NULL) {
        decision_study_free(s);
        return rk_error(err, "decision study: out of memory");
    }
    int rc = 0;
    for (uint64_t i = (uint64_t)rank; i < (uint64_t)c->positions && rc == 0; i += (uint64_t)ranks) {
        rc = decision_study_score(s, players, i, item, err);
        if (rc != 0) break;
        decision_totals_add(t, item);
        if (observe != NULL) observe(item, t, ctx);
    }
    free(item);
    decision_study_free(s);
    return rc;
}
