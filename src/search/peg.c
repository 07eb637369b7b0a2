/*
 * peg.c - the pre-endgame solver (see peg.h): deals of the unseen tiles,
 * each candidate's lines valued by endgame searches of growing depth, and
 * the candidates pruned between stages.
 */
#include "peg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/movegen.h"
#include "endgame.h"

void peg_config_defaults(PegConfig *c) {
    c->table_bits = 16;
    c->max_depth = 0;
    c->prune = true;
    c->stop = NULL;
    c->deadline = 0.0;
    c->leave_value = NULL;
    c->leave_ctx = NULL;
    c->max_candidates = 0;
    c->only = NULL;
    c->only_count = 0;
}

void peg_result_init(PegResult *r) { memset(r, 0, sizeof *r); }

void peg_result_free(PegResult *r) {
    for (int i = 0; i < r->count; i++) {
        free(r->cand[i].value);
        free(r->cand[i].line_exact);
    }
    free(r->cand);
    free(r->deal);
    memset(r, 0, sizeof *r);
}

double peg_win_share(const PegResult *r, const PegCandidate *c) {
    return r->ways > 0 ? (c->win + 0.5 * c->draw) / r->ways : 0.0;
}

/* ------------------------------------------------------------ the deals */

/* Every multiset of `b` (1 or 2) tiles of `unseen`, with its ways. */
static int enumerate_deals(const Rack *unseen, int b, const LetterDist *ld, PegDeal *out) {
    int n = 0;
    for (int x = 0; x < ld->size && n < PEG_MAX_DEALS; x++) {
        if (unseen->count[x] == 0) continue;
        if (b == 1) {
            rack_clear(&out[n].bag);
            rack_add(&out[n].bag, (uint8_t)x);
            out[n++].ways = unseen->count[x];
            continue;
        }
        for (int y = x; y < ld->size && n < PEG_MAX_DEALS; y++) {
            int cx = unseen->count[x], cy = unseen->count[y];
            if (cy == 0 || (x == y && cx < 2)) continue;
            rack_clear(&out[n].bag);
            rack_add(&out[n].bag, (uint8_t)x);
            rack_add(&out[n].bag, (uint8_t)y);
            out[n++].ways = x == y ? cx * (cx - 1) / 2.0 : (double)cx * cy;
        }
    }
    return n;
}

/* ------------------------------------------------------------ one line */

typedef struct Peg {
    const PegConfig *cfg;
    Game root;     /* the position, the player on turn to move */
    Rack unseen;   /* the opponent's rack and the bag, as the mover sees them */
    int bag;       /* tiles in the bag */
    PegResult *r;
    MoveList replies;
    bool stop_seen;
} Peg;

static bool peg_stopped(Peg *p) {
    if (!p->stop_seen && ((p->cfg->stop != NULL && atomic_load_explicit(p->cfg->stop, memory_order_relaxed)) ||
                          (p->cfg->deadline > 0.0 && rk_seconds() >= p->cfg->deadline)))
        p->stop_seen = true;
    return p->stop_seen;
}

static int spread_of(const Game *g, int player) { return g->scores[player] - g->scores[1 - player]; }

/* The root position with deal d: the bag holds d's tiles, the opponent the
 * rest of the unseen tiles. When the mover draws one of two (draws_one),
 * the bag holds only the one it draws, d's tile `pick` (0: the first in
 * letter order, 1: the other), and *rest receives the other; else -1. */
static void deal_position(const Peg *p, const PegDeal *d, bool draws_one, int pick, Game *w, int *rest) {
    *w = p->root;
    int opp = 1 - w->on_turn;
    Rack hidden = p->unseen;
    rack_sub(&hidden, &d->bag);
    w->racks[opp] = hidden;
    w->bag.count = 0;
    *rest = -1;
    int seen = 0;
    for (int ml = 0; ml < w->ld->size; ml++)
        for (int k = 0; k < d->bag.count[ml]; k++, seen++) {
            if (draws_one && seen != pick) *rest = ml;
            else bag_add(&w->bag, (uint8_t)ml);
        }
}

/* The value (to the player on turn in w) of an endgame searched `depth`
 * plies deep; *exact when solved. -1 on an error (said in err). */
static int line_endgame(Peg *p, const Game *w, int depth, int32_t *value, bool *exact, RkError *err) {
    if (game_over(w)) {
        *value = 0;
        *exact = true;
        return 0;
    }
    if (depth <= 1 && w->zeros < 5) {
        *value = endgame_horizon_value(w);
        *exact = false;
        p->r->nodes++;
        return 0;
    }
    if (depth == 2 && w->zeros < 4 && p->cfg->prune) { /* see peg.h, STAGES */
        *value = endgame_selective_two(w, PEG_REPLIES);
        *exact = false;
        p->r->nodes += PEG_REPLIES + 1;
        return 0;
    }
    EndgameConfig ec;
    endgame_config_defaults(&ec);
    ec.max_nodes = UINT64_MAX;
    ec.table_bits = depth <= 2 ? 0 : p->cfg->table_bits;
    ec.max_depth = depth < ENDGAME_MAX_DEPTH ? depth : ENDGAME_MAX_DEPTH;
    ec.stop = p->cfg->stop;
    ec.deadline = p->cfg->deadline;
    uint64_t nodes = 0;
    int rc = endgame_value(w, &ec, value, exact, &nodes, err);
    p->r->nodes += nodes;
    if (rc == ENDGAME_STOPPED) return 0; /* peg_stopped sees it; the line is not used */
    return rc;
}

/* The opponent's answer, to move in w with tiles still in the bag: the best
 * of its PEG_REPLIES best-scoring placements, each followed by the endgame
 * search depth-1 plies deep (see peg.h), or at depth 1 its best score. */
static int estimate_reply(Peg *p, const Game *w, int depth, int32_t *value, RkError *err) {
    MoveGenRequest req;
    movegen_request_for_game(&req, w);
    req.exchanges_allowed = false;
    if (depth <= 1) {
        Move m;
        movegen_best(&req, &m, NULL);
        *value = m.kind == MOVE_PLACE && m.score > 0 ? m.score : 0;
        return 0;
    }
    movegen_top(&req, PEG_REPLIES, movegen_compare, &p->replies);
    int32_t best = 0;
    bool any = false;
    for (size_t i = 0; i < p->replies.count; i++) {
        const Move *m = &p->replies.moves[i];
        if (m->kind != MOVE_PLACE) continue;
        Game c = *w;
        int me = c.on_turn;
        game_play(&c, m);
        int32_t v, delta = spread_of(&c, me) - spread_of(w, me);
        bool exact;
        if (c.bag.count > 0) { /* a one-tile reply to a pass with two in the bag: its score */
            v = 0;
        } else if (line_endgame(p, &c, depth - 1, &v, &exact, err) != 0) {
            return -1;
        }
        v = delta - v;
        if (!any || v > best) best = v;
        any = true;
        if (peg_stopped(p)) break;
    }
    *value = any ? best : 0;
    return 0;
}

/* The tiles the mover draws after m: as many as it placed, up to a full
 * rack (a CGP may give a short one) and up to the bag's. */
static int tiles_drawn(const Peg *p, const Move *m) {
    if (m->kind != MOVE_PLACE) return 0;
    int room = RK_RACK_SIZE - (p->root.racks[p->root.on_turn].total - m->ntiles);
    return room < p->bag ? room : p->bag;
}

/* Line (candidate m, deal d) valued `depth` plies deep, the mover drawing
 * d's tile `pick` when it draws one of two (see deal_position). */
static int line_value_pick(Peg *p, const Move *m, const PegDeal *d, int pick, int depth, int32_t *value, bool *exact,
                           RkError *err) {
    Game w;
    int rest;
    int draws = tiles_drawn(p, m);
    deal_position(p, d, draws == 1 && p->bag == 2, pick, &w, &rest);
    int me = w.on_turn;
    game_play(&w, m);
    if (rest >= 0) bag_add(&w.bag, (uint8_t)rest);
    int32_t delta = spread_of(&w, me) - spread_of(&p->root, me);
    int32_t v;
    if (game_over(&w)) {
        *value = delta;
        *exact = true;
        return 0;
    }
    if (w.bag.count == 0) {
        if (line_endgame(p, &w, depth, &v, exact, err) != 0) return -1;
    } else {
        if (estimate_reply(p, &w, depth, &v, err) != 0) return -1;
        *exact = false;
    }
    *value = delta - v;
    return 0;
}

/* Line (candidate m, deal d) valued `depth` plies deep. When the mover draws
 * one of two different tiles, each is drawn half the time: the line is the
 * mean of both (an estimate: the bag keeps a tile, see peg.h). */
static int line_value(Peg *p, const Move *m, const PegDeal *d, int depth, int32_t *value, bool *exact, RkError *err) {
    int kinds = 0;
    for (int ml = 0; ml < p->root.ld->size; ml++) kinds += d->bag.count[ml] > 0;
    if (!(tiles_drawn(p, m) == 1 && p->bag == 2 && kinds == 2)) return line_value_pick(p, m, d, 0, depth, value, exact, err);
    int32_t v0, v1;
    bool e0, e1;
    if (line_value_pick(p, m, d, 0, depth, &v0, &e0, err) != 0 || line_value_pick(p, m, d, 1, depth, &v1, &e1, err) != 0)
        return -1;
    *value = (v0 + v1) / 2;
    *exact = false;
    return 0;
}

/* ------------------------------------------------------------ stages */

/* The candidate's figures from its lines. */
static void tally(Peg *p, PegCandidate *c) {
    const PegResult *r = p->r;
    c->win = c->draw = c->loss = 0.0;
    double sum = 0.0;
    c->exact = true;
    for (int k = 0; k < r->ndeals; k++) {
        double w = r->deal[k].ways;
        int end = r->spread + c->value[k];
        if (end > 0) c->win += w;
        else if (end == 0) c->draw += w;
        else c->loss += w;
        sum += w * c->value[k];
        c->exact = c->exact && c->line_exact[k];
    }
    c->mean = r->ways > 0 ? sum / r->ways : 0.0;
    c->share = peg_win_share(r, c);
}

/* The ranking: the live before the pruned (the later pruned first), then
 * the share of wins, the mean value, and movegen_compare (a total order). */
static int cmp_rank(const void *pa, const void *pb) {
    const PegCandidate *a = pa, *b = pb;
    if (a->pruned != b->pruned) return a->pruned ? 1 : -1;
    if (a->pruned && a->depth != b->depth) return a->depth > b->depth ? -1 : 1;
    if (a->share != b->share) return a->share > b->share ? -1 : 1;
    if (a->mean != b->mean) return a->mean > b->mean ? -1 : 1;
    return movegen_compare(&a->move, &b->move);
}

static void rank(PegCandidate *cand, int n) { qsort(cand, (size_t)n, sizeof *cand, cmp_rank); }

/* Candidate c's lines at `depth` (the ones not already exact); false when
 * stopped before it completed (its figures are then the last stage's). */
static int search_candidate(Peg *p, PegCandidate *c, int depth, bool *complete, RkError *err) {
    int nd = p->r->ndeals;
    int32_t *v = malloc((size_t)nd * sizeof *v);
    bool *ex = malloc((size_t)nd * sizeof *ex);
    if (v == NULL || ex == NULL) {
        free(v);
        free(ex);
        return rk_error(err, "peg: out of memory");
    }
    memcpy(v, c->value, (size_t)nd * sizeof *v);
    memcpy(ex, c->line_exact, (size_t)nd * sizeof *ex);
    *complete = true;
    for (int k = 0; k < nd && *complete; k++) {
        if (ex[k]) continue;
        if (line_value(p, &c->move, &p->r->deal[k], depth, &v[k], &ex[k], err) != 0) {
            free(v);
            free(ex);
            return -1;
        }
        p->r->endgames++;
        if (peg_stopped(p)) *complete = false;
    }
    if (*complete) {
        memcpy(c->value, v, (size_t)nd * sizeof *v);
        memcpy(c->line_exact, ex, (size_t)nd * sizeof *ex);
        c->depth = depth;
        tally(p, c);
    }
    free(v);
    free(ex);
    return 0;
}

static int cmp_moves(const void *a, const void *b) { return movegen_compare(a, b); }

/* The candidates: every placement and the pass (or cfg->only's moves), in
 * movegen_compare order (static equity with cfg's leaves), each with room
 * for its lines. */
static int open_candidates(Peg *p, RkError *err) {
    PegResult *r = p->r;
    MoveGenRequest req;
    movegen_request_for_game(&req, &p->root);
    req.exchanges_allowed = false;
    req.leave_value = p->cfg->leave_value;
    req.leave_ctx = p->cfg->leave_ctx;
    MoveList list;
    movelist_init(&list);
    movegen_all(&req, &list);
    qsort(list.moves, list.count, sizeof *list.moves, cmp_moves);
    r->cand = calloc(list.count, sizeof *r->cand);
    if (r->cand == NULL) {
        movelist_free(&list);
        return rk_error(err, "peg: out of memory");
    }
    for (int k = 0; k < p->cfg->only_count; k++) { /* each given move must be legal */
        bool legal = false;
        for (size_t i = 0; i < list.count && !legal; i++) legal = move_same(&list.moves[i], &p->cfg->only[k]);
        if (!legal) {
            char text[128];
            move_to_string(&p->cfg->only[k], &p->root.board, p->root.ld, text, sizeof text);
            movelist_free(&list);
            return rk_error(err, "peg: '%s' is not a legal move here", text);
        }
    }
    /* the list is in static equity order: the best max_candidates (the pass, last, only if the
     * list is that short) */
    if (p->cfg->only_count == 0 && p->cfg->max_candidates > 0 && list.count > (size_t)p->cfg->max_candidates)
        list.count = (size_t)p->cfg->max_candidates;
    for (size_t i = 0; i < list.count; i++) {
        bool given = p->cfg->only_count == 0;
        for (int k = 0; k < p->cfg->only_count && !given; k++) given = move_same(&list.moves[i], &p->cfg->only[k]);
        if (!given) continue;
        PegCandidate *c = &r->cand[r->count++];
        c->move = list.moves[i];
        c->empties_bag = tiles_drawn(p, &c->move) == p->bag;
        c->value = calloc((size_t)r->ndeals, sizeof *c->value);
        c->line_exact = calloc((size_t)r->ndeals, sizeof *c->line_exact);
        if (c->value == NULL || c->line_exact == NULL) {
            movelist_free(&list);
            return rk_error(err, "peg: out of memory");
        }
    }
    movelist_free(&list);
    r->alive = r->count;
    return 0;
}

static int check(const Game *g, const PegConfig *cfg, RkError *err) {
    if (cfg->table_bits < 0 || cfg->table_bits > ENDGAME_MAX_TABLE_BITS)
        return rk_error(err, "peg: table bits %d out of range 0..%d", cfg->table_bits, ENDGAME_MAX_TABLE_BITS);
    if (cfg->max_depth < 0 || cfg->max_depth > ENDGAME_MAX_DEPTH)
        return rk_error(err, "peg: depth %d out of range 0..%d", cfg->max_depth, ENDGAME_MAX_DEPTH);
    if (cfg->max_candidates < 0) return rk_error(err, "peg: max_candidates %d below 0", cfg->max_candidates);
    if (game_over(g)) return rk_error(err, "peg: the game is over");
    if (g->bag.count < 1 || g->bag.count > PEG_MAX_BAG)
        return rk_error(err, "peg: the bag holds %d tile%s; the pre-endgame solver takes 1 to %d (0: the endgame)",
                        g->bag.count, g->bag.count == 1 ? "" : "s", PEG_MAX_BAG);
    if (g->racks[g->on_turn].total == 0) return rk_error(err, "peg: the player on turn has no tiles");
    if (g->racks[1 - g->on_turn].total == 0)
        return rk_error(err, "peg: the opponent's rack is empty (give it: any of the unseen tiles, the solver deals "
                             "them every way)");
    if (cfg->only_count < 0 || (cfg->only_count > 0 && cfg->only == NULL))
        return rk_error(err, "peg: a list of %d moves without the moves", cfg->only_count);
    return 0;
}

/* One stage over the live candidates, best first, until stopped: *completed
 * of them (a prefix) have this stage's figures. */
static int run_stage(Peg *p, int depth, int *completed, RkError *err) {
    PegResult *r = p->r;
    *completed = 0;
    for (int i = 0; i < r->alive; i++) {
        PegCandidate *c = &r->cand[i];
        if (c->exact) { /* final at any depth */
            c->depth = depth;
            (*completed)++;
            continue;
        }
        bool done = false;
        if (search_candidate(p, c, depth, &done, err) != 0) return -1;
        if (!done) break;
        (*completed)++;
    }
    return 0;
}

int peg_solve(const Game *g, const PegConfig *cfg, PegResult *out, PegStageFn on_stage, void *ctx, RkError *err) {
    double t0 = rk_seconds();
    peg_result_free(out);
    if (check(g, cfg, err) != 0) return -1;
    Peg p = {.cfg = cfg, .root = *g, .bag = g->bag.count, .r = out};
    game_unseen(g, &p.unseen);
    out->deal = malloc(PEG_MAX_DEALS * sizeof *out->deal);
    if (out->deal == NULL) return rk_error(err, "peg: out of memory");
    out->ndeals = enumerate_deals(&p.unseen, p.bag, g->ld, out->deal);
    for (int k = 0; k < out->ndeals; k++) out->ways += out->deal[k].ways;
    out->spread = spread_of(g, g->on_turn);
    movelist_init(&p.replies);
    int rc = open_candidates(&p, err);
    int max_depth = cfg->max_depth > 0 ? cfg->max_depth : ENDGAME_MAX_DEPTH;
    for (int depth = 1; rc == 0 && depth <= max_depth; depth++) {
        int completed;
        if ((rc = run_stage(&p, depth, &completed, err)) != 0) break;
        if (completed < out->alive) {
            /* stopped: the stage's figures stand if they include the last
             * stage's best (then the ones that completed are ranked on
             * this stage's figures, the rest after them) */
            if (out->stage > 0 && out->cand[0].depth == depth) {
                for (int i = completed; i < out->alive; i++) out->cand[i].pruned = true;
                rank(out->cand, out->alive);
                for (int i = completed; i < out->alive; i++) out->cand[i].pruned = false;
            } else if (out->stage == 0) {
                rank(out->cand, completed); /* stage 1: the moves it valued, best first */
            }
            break;
        }
        rank(out->cand, out->alive);
        out->stage = depth;
        bool all_exact = true;
        for (int i = 0; i < out->alive; i++) all_exact = all_exact && out->cand[i].exact;
        if (cfg->prune) {
            int keep = depth == 1 ? PEG_FIRST_KEEP : (out->alive + 1) / 2;
            if (keep < PEG_MIN_KEEP) keep = PEG_MIN_KEEP;
            if (keep < out->alive) {
                for (int i = keep; i < out->alive; i++) out->cand[i].pruned = true;
                out->alive = keep;
            }
        }
        out->seconds = rk_seconds() - t0;
        if (on_stage != NULL) on_stage(ctx, out);
        if (all_exact) break;
    }
    movelist_free(&p.replies);
    out->best = 0;
    out->seconds = rk_seconds() - t0;
    return rc;
}
