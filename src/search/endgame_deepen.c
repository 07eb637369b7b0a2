/*
 * endgame_deepen.c - the iterative-deepening endgame search (endgame_search,
 * endgame_value in endgame.h) over the solver's negamax (endgame.c).
 */
#include <stdlib.h>
#include <string.h>

#include "endgame.h"
#include "endgame_internal.h"
#include "workpool.h"

/* ------------------------------------------------ iterative deepening */

int endgame_value(const Game *g, const EndgameConfig *cfg, int32_t *value, bool *exact, uint64_t *nodes,
                  RkError *err) {
    *value = 0;
    *exact = false;
    if (nodes != NULL) *nodes = 0;
    if (cfg->max_depth < 0 || cfg->max_depth > ENDGAME_MAX_DEPTH)
        return rk_error(err, "endgame: depth %d out of range 0..%d", cfg->max_depth, ENDGAME_MAX_DEPTH);
    if (eg_check_position(g, cfg, err) != 0) return -1;
    Solver s;
    if (eg_solver_open(&s, cfg, err) != 0) return -1;
    if (!eg_ensure_ply(&s, 1)) {
        eg_solver_close(&s);
        return rk_error(err, "endgame: out of memory");
    }
    s.plies[0]->game = *g;
    int max_depth = cfg->max_depth > 0 ? cfg->max_depth : ENDGAME_MAX_DEPTH;
    int rc = 0;
    for (int depth = 1; depth <= max_depth; depth++) {
        s.horizon = false;
        int32_t v = eg_search(&s, 0, -EG_INF, EG_INF, depth);
        if (eg_stopped(&s)) {
            rc = eg_solver_error(&s, err);
            break;
        }
        *value = v;
        *exact = !s.horizon;
        if (*exact) break;
    }
    if (nodes != NULL) *nodes = s.nodes;
    eg_solver_close(&s);
    return rc;
}

/* The root moves of a deepening search: their order for the next depth
 * (the last depth's values, best first) and those values. */
typedef struct RootMoves {
    Move *moves;
    int32_t *value; /* the last completed depth's value or bound, per move */
    int *order;     /* indices into moves, the order of the next depth */
    int n;
} RootMoves;

static void roots_free(RootMoves *r) {
    free(r->moves);
    free(r->value);
    free(r->order);
}

static int roots_open(RootMoves *r, const MoveList *list) {
    r->n = (int)list->count;
    r->moves = malloc((size_t)r->n * sizeof *r->moves);
    r->value = malloc((size_t)r->n * sizeof *r->value);
    r->order = malloc((size_t)r->n * sizeof *r->order);
    if (r->moves == NULL || r->value == NULL || r->order == NULL) {
        roots_free(r);
        return -1;
    }
    memcpy(r->moves, list->moves, (size_t)r->n * sizeof *r->moves);
    for (int i = 0; i < r->n; i++) r->order[i] = i;
    return 0;
}

/* The order for the next depth: `best` first, then by the values just
 * found, higher first, ties in the previous order (an insertion sort: stable,
 * and the order is already nearly sorted after the first depths). */
static void roots_reorder(RootMoves *r, int best) {
    int k = 0;
    while (r->order[k] != best) k++;
    memmove(r->order + 1, r->order, (size_t)k * sizeof *r->order);
    r->order[0] = best;
    for (int i = 2; i < r->n; i++) {
        int x = r->order[i], j = i;
        while (j > 1 && r->value[r->order[j - 1]] < r->value[x]) {
            r->order[j] = r->order[j - 1];
            j--;
        }
        r->order[j] = x;
    }
}

/* Root move m searched after the first of a depth: a null window at alpha,
 * and again with a full window above alpha when it fails high (its exact
 * value then). */
static int32_t scout_move(Solver *s, const Move *m, int32_t alpha, int depth) {
    int32_t v = eg_move_value(s, 0, m, alpha, alpha + 1, depth);
    if (!eg_stopped(s) && v > alpha) v = eg_move_value(s, 0, m, alpha, EG_INF, depth);
    return v;
}

/* One depth over every root move, principal variation search: the first
 * move (the last depth's best) with the full window, the others with a
 * null window at the best value so far, searched again with a full window
 * when they fail high; at depth 2 the moves whose depth-1 value cannot
 * raise alpha are not searched. Returns the index of the best move (its value in
 * *value) or -1 when stopped before the first move was searched; *done
 * says whether every root move was searched. */
static int search_depth(Solver *s, RootMoves *r, int depth, int32_t *value, bool *done) {
    int32_t alpha = -EG_INF;
    /* At depth 2 with fewer than four scoreless turns behind, every reply is
     * valued 0 or more at the horizon, so a root move is worth at most its
     * depth-1 value, and the moves come in the order of those values. */
    const bool two_bound = depth == 2 && s->plies[0]->game.zeros < 4;
    int best = -1;
    *done = false;
    for (int k = 0; k < r->n; k++) {
        int i = r->order[k];
        const Move *m = &r->moves[i];
        if (two_bound && best >= 0 && r->value[i] <= alpha) {
            /* worth at most its depth-1 value (see search_depth's comment):
             * neither it nor any later move can raise alpha */
            s->horizon = true;
            continue;
        }
        int32_t v = best < 0 ? eg_move_value(s, 0, m, -EG_INF, EG_INF, depth) : scout_move(s, m, alpha, depth);
        if (eg_stopped(s)) return best;
        r->value[i] = v;
        if (best < 0 || v > alpha) {
            alpha = v;
            best = i;
        }
    }
    *value = alpha;
    *done = true;
    return best;
}

/* ------------------------------------------------ threads
 *
 * With cfg->threads = T > 1 each thread has its own solver (levels and
 * table), and a depth is searched in two steps: the first root move (the
 * last depth's best) with a full window on solver 0, then the others split
 * by their place in the order, job j taking places 1 + j, 1 + j + T, ...
 * on solver j, each with a null window at the job's own alpha (the first
 * move's value, raised only by the job's own moves) and again with a full
 * window when it fails high. A move whose value raised its job's alpha has
 * its exact value at this depth; every other is at most its job's alpha,
 * itself the exact value of an earlier move, so the best value is the
 * largest raised one, and the best move the first in the order with it, as
 * one thread finds them. Nothing a job does depends on another's timing:
 * the same position, configuration and thread count give the same answer
 * (a deadline or a stop aside). Depths 1 and 2 are cheap and run on
 * solver 0 alone. */

typedef struct Deepen {
    Solver *s; /* [threads] */
    int threads;
    RootMoves *r;
    int depth;
    int32_t alpha0;
    int *owner;    /* [n]: the solver that searched move i at this depth */
    bool *raised;  /* [n]: move i's value raised its job's alpha (exact) */
    WorkPool *pool;
} Deepen;

static void deepen_job(void *ctx, int thread, int job) {
    (void)thread; /* the job's solver is its index's: the same work whichever thread runs it */
    Deepen *d = ctx;
    Solver *s = &d->s[job];
    RootMoves *r = d->r;
    int32_t alpha = d->alpha0;
    for (int k = 1 + job; k < r->n; k += d->threads) {
        int i = r->order[k];
        const Move *m = &r->moves[i];
        int32_t v = scout_move(s, m, alpha, d->depth);
        if (eg_stopped(s)) return;
        r->value[i] = v;
        d->owner[i] = job;
        d->raised[i] = v > alpha;
        if (v > alpha) alpha = v;
    }
}

static bool any_stopped(const Deepen *d) {
    for (int t = 0; t < d->threads; t++)
        if (eg_stopped(&d->s[t])) return true;
    return false;
}

/* search_depth over the threads (see above); the same contract. */
static int search_depth_threads(Deepen *d, int depth, int32_t *value, bool *done) {
    RootMoves *r = d->r;
    *done = false;
    if (depth <= 2) {
        int best = search_depth(&d->s[0], r, depth, value, done);
        for (int i = 0; i < r->n; i++) d->owner[i] = 0;
        return best;
    }
    int first = r->order[0];
    int32_t v0 = eg_move_value(&d->s[0], 0, &r->moves[first], -EG_INF, EG_INF, depth);
    if (eg_stopped(&d->s[0])) return -1;
    r->value[first] = v0;
    d->owner[first] = 0;
    memset(d->raised, 0, (size_t)r->n * sizeof *d->raised);
    d->depth = depth;
    d->alpha0 = v0;
    workpool_run(d->pool, d->threads, deepen_job, d);
    int best = first;
    int32_t best_v = v0;
    for (int k = 1; k < r->n; k++) {
        int i = r->order[k];
        if (d->raised[i] && r->value[i] > best_v) {
            best = i;
            best_v = r->value[i];
        }
    }
    *value = best_v;
    *done = !any_stopped(d);
    return best;
}

static void deepen_close(Deepen *d) {
    for (int t = 0; t < d->threads && d->s != NULL; t++) eg_solver_close(&d->s[t]);
    free(d->s);
    free(d->owner);
    free(d->raised);
    workpool_close(d->pool);
}

/* Opens cfg->threads solvers on g and the pool; -1 with err set. */
static int deepen_open(Deepen *d, const Game *g, const EndgameConfig *cfg, RkError *err) {
    memset(d, 0, sizeof *d);
    d->threads = cfg->threads;
    d->s = calloc((size_t)d->threads, sizeof *d->s);
    if (d->s == NULL) return rk_error(err, "endgame: out of memory");
    for (int t = 0; t < d->threads; t++)
        if (eg_solver_root(&d->s[t], g, cfg, err) != 0) {
            d->threads = t; /* the ones opened */
            deepen_close(d);
            return -1;
        }
    int n = (int)d->s[0].plies[0]->moves.count;
    d->owner = calloc((size_t)n, sizeof *d->owner);
    d->raised = calloc((size_t)n, sizeof *d->raised);
    if (d->owner == NULL || d->raised == NULL) {
        deepen_close(d);
        return rk_error(err, "endgame: out of memory");
    }
    d->pool = workpool_open(d->threads, err);
    if (d->pool == NULL) {
        deepen_close(d);
        return -1;
    }
    return 0;
}

static void deepen_counts(const Deepen *d, EndgameSearchResult *out) {
    out->nodes = out->table_hits = 0;
    for (int t = 0; t < d->threads; t++) {
        out->nodes += d->s[t].nodes;
        out->table_hits += d->s[t].table_hits;
    }
}

static int pv_plies(int depth) { return depth < ENDGAME_PV_MAX ? depth : ENDGAME_PV_MAX; }

int endgame_search(const Game *g, const EndgameConfig *cfg, EndgameSearchResult *out, EndgameDepthFn on_depth,
                   void *ctx, RkError *err) {
    double t0 = rk_seconds();
    memset(out, 0, sizeof *out);
    if (cfg->max_depth < 0 || cfg->max_depth > ENDGAME_MAX_DEPTH)
        return rk_error(err, "endgame: depth %d out of range 0..%d", cfg->max_depth, ENDGAME_MAX_DEPTH);
    if (cfg->threads < 1 || cfg->threads > ENDGAME_MAX_THREADS)
        return rk_error(err, "endgame: threads %d out of range 1..%d", cfg->threads, ENDGAME_MAX_THREADS);
    Deepen d;
    if (deepen_open(&d, g, cfg, err) != 0) return -1;
    RootMoves r;
    if (roots_open(&r, &d.s[0].plies[0]->moves) != 0) {
        deepen_close(&d);
        return rk_error(err, "endgame: out of memory");
    }
    d.r = &r;
    out->root_moves = r.n;
    out->best = r.moves[0]; /* the static order's first, until a depth says otherwise */
    int max_depth = cfg->max_depth > 0 ? cfg->max_depth : ENDGAME_MAX_DEPTH;
    for (int depth = 1; depth <= max_depth; depth++) {
        for (int t = 0; t < d.threads; t++) d.s[t].horizon = false;
        int32_t v = 0;
        bool done = false;
        int best = search_depth_threads(&d, depth, &v, &done);
        if (!done) {
            /* stopped inside this depth: a move that beat the last depth's
             * best at this depth is the better answer, with its value at
             * this depth */
            if (best >= 0 && best != r.order[0]) {
                out->depth = depth;
                out->best = r.moves[best];
                out->value = r.value[best];
                eg_principal_variation(&d.s[d.owner[best]], g, &out->best, pv_plies(depth), out->pv, &out->pv_len);
            }
            break;
        }
        bool horizon = false;
        for (int t = 0; t < d.threads; t++) horizon = horizon || d.s[t].horizon;
        out->depth = depth;
        out->best = r.moves[best];
        out->value = v;
        out->exact = !horizon;
        eg_principal_variation(&d.s[d.owner[best]], g, &out->best, out->exact ? ENDGAME_PV_MAX : pv_plies(depth),
                               out->pv, &out->pv_len);
        deepen_counts(&d, out);
        out->seconds = rk_seconds() - t0;
        if (on_depth != NULL) on_depth(ctx, out);
        if (out->exact) break;
        roots_reorder(&r, best);
    }
    int rc = 0;
    for (int t = 0; t < d.threads; t++)
        if (d.s[t].out_of_memory) rc = rk_error(err, "endgame: out of memory");
    deepen_counts(&d, out);
    out->seconds = rk_seconds() - t0;
    roots_free(&r);
    deepen_close(&d);
    return rc;
}
