/*
 * game.c - playing moves in a two-player game: scoring, drawing, turn
 * order and the end-of-game rules (see game.h).
 */
#include "game.h"

#include <stdio.h>
#include <stdlib.h>

/* game_play() is only given legal moves; a violation is a caller bug that
 * would corrupt the tile counts, so it stops the program even in release
 * builds. */
static void require(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "game_play: %s\n", what);
        abort();
    }
}

void game_new(Game *g, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed,
              uint64_t generation, uint64_t game_index) {
    g->ld = ld;
    g->layout = lay;
    g->kwg = kwg;
    board_init(&g->board, lay, ld, kwg);
    bag_fill(&g->bag, ld);
    rng_seed_stream(&g->rng, seed, generation, game_index);
    for (int p = 0; p < 2; p++) {
        rack_clear(&g->racks[p]);
        g->scores[p] = 0;
    }
    bag_refill_rack(&g->bag, &g->racks[0], &g->rng);
    bag_refill_rack(&g->bag, &g->racks[1], &g->rng);
    g->on_turn = 0;
    g->zeros = 0;
    g->turn = 0;
    g->end = GAME_PLAYING;
    g->kept[0] = g->kept[1] = -1;
    g->has_last = false;
}

/* Returns the move's score. */
static int play_placement(Game *g, const Move *m, Rack *rack) {
    int score = board_score_move(&g->board, m);
    int fresh = 0;
    for (int i = 0; i < m->len; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) continue;
        uint8_t ml = RK_IS_BLANKED(t) ? 0 : t;
        require(ml < RK_MAX_LETTERS && rack->count[ml] > 0, "a placed tile is not on the rack");
        rack_remove(rack, ml);
        fresh++;
    }
    require(fresh > 0, "a placement without fresh tiles");
    board_place_move(&g->board, m);
    g->scores[g->on_turn] += score;
    g->kept[g->on_turn] = rack->total;
    bag_refill_rack(&g->bag, rack, &g->rng);
    g->zeros = score == 0 ? g->zeros + 1 : 0;
    return score;
}

static void play_exchange(Game *g, const Move *m, Rack *rack) {
    require(g->bag.count >= RK_RACK_SIZE, "an exchange with fewer than 7 tiles in the bag");
    require(m->len > 0 && m->len <= RK_RACK_SIZE, "an exchange of 0 or more than 7 tiles");
    for (int i = 0; i < m->len; i++) {
        uint8_t ml = m->tiles[i];
        require(ml < RK_MAX_LETTERS && rack->count[ml] > 0, "an exchanged tile is not on the rack");
        rack_remove(rack, ml);
    }
    g->kept[g->on_turn] = rack->total;
    /* The standard rule: draw the replacements, then return the tiles. */
    bag_refill_rack(&g->bag, rack, &g->rng);
    for (int i = 0; i < m->len; i++) bag_add(&g->bag, m->tiles[i]);
    g->zeros++;
}

void game_play(Game *g, const Move *m) {
    require(g->end == GAME_PLAYING, "the game is over");
    int me = g->on_turn, opp = 1 - me;
    Rack *rack = &g->racks[me];
    g->last = *m;
    g->last.score = 0;
    switch (m->kind) {
    case MOVE_PLACE:
        g->last.score = play_placement(g, m, rack);
        break;
    case MOVE_EXCHANGE:
        play_exchange(g, m, rack);
        break;
    case MOVE_PASS:
        g->kept[me] = rack->total;
        g->zeros++;
        break;
    default:
        require(false, "unknown move kind");
    }
    if (m->kind == MOVE_PLACE && rack->total == 0 && g->bag.count == 0) {
        g->end = GAME_WENT_OUT;
        g->scores[me] += 2 * rack_score(&g->racks[opp], g->ld);
    } else if (g->zeros >= GAME_MAX_SCORELESS) {
        g->end = GAME_SIX_ZEROS;
        for (int p = 0; p < 2; p++) g->scores[p] -= rack_score(&g->racks[p], g->ld);
    }
    g->on_turn = opp;
    g->turn++;
    g->has_last = true;
}

bool game_before_last(const Game *g, Game *before) {
    if (!g->has_last || game_over(g)) return false;
    *before = *g;
    const Move *m = &g->last;
    int mover = 1 - g->on_turn;
    before->on_turn = mover;
    before->turn = g->turn - 1;
    before->has_last = false;
    before->scores[mover] -= m->score;
    bool scoreless = m->kind != MOVE_PLACE || m->score == 0;
    before->zeros = scoreless && g->zeros > 0 ? g->zeros - 1 : 0;
    /* the mover's rack and the tiles the move put down are unseen again */
    bag_take_back_rack(&before->bag, &before->racks[mover]);
    if (m->kind == MOVE_PLACE) {
        int dr = m->dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr;
        for (int i = 0; i < m->len; i++) {
            uint8_t t = m->tiles[i];
            if (t == MOVE_PLAYED_THROUGH) continue;
            board_put(&before->board, m->row + dr * i, m->col + dc * i, 0);
            bag_add(&before->bag, RK_IS_BLANKED(t) ? 0 : t);
        }
        board_refresh(&before->board);
    }
    return true;
}

void game_deal_hidden_out(Game *w, const Rack *leave, const Rack *out, Rng *r) {
    Rack unseen;
    game_unseen(w, &unseen);
    uint8_t t[RK_MAX_BAG + RK_RACK_SIZE];
    int n = 0;
    for (int ml = 0; ml < w->ld->size; ml++) {
        int held_out = out != NULL ? out->count[ml] : 0;
        for (int c = leave->count[ml]; c + held_out < unseen.count[ml]; c++) t[n++] = (uint8_t)ml;
    }
    for (int k = n - 1; k > 0; k--) {
        int j = (int)rng_below(r, (uint64_t)k + 1);
        uint8_t x = t[k];
        t[k] = t[j];
        t[j] = x;
    }
    if (out != NULL) /* after the shuffled rest: drawn last, only if the rest runs out */
        for (int ml = 0; ml < w->ld->size; ml++)
            for (int c = 0; c < out->count[ml] && leave->count[ml] + c < unseen.count[ml]; c++)
                t[n++] = (uint8_t)ml;
    int hidden = 1 - w->on_turn, held = w->racks[hidden].total, at = 0;
    w->racks[hidden] = *leave;
    while (w->racks[hidden].total < held && at < n) rack_add(&w->racks[hidden], t[at++]);
    w->bag.count = 0;
    for (; at < n; at++) bag_add(&w->bag, t[at]);
}

void game_deal_hidden(Game *w, const Rack *leave, Rng *r) { game_deal_hidden_out(w, leave, NULL, r); }

void game_deal_unseen(const Game *g, Game *w, Rng *r) {
    *w = *g;
    Rack none;
    rack_clear(&none);
    game_deal_hidden(w, &none, r);
}

void game_unseen(const Game *g, Rack *unseen) {
    bag_plus_rack(&g->bag, &g->racks[1 - g->on_turn], unseen);
}
