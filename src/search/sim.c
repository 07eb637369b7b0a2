/* sim.c - Monte Carlo simulation of candidate moves (see sim.h). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/klv.h"
#include "search/rack_inference.h"
#include "search/sim_alloc.h"
#include "search/workpool.h"

void sim_config_defaults(SimConfig *c) {
    memset(c, 0, sizeof *c);
    c->plies = 2;
    c->candidates = 15;
    c->iterations = 100;
    c->min_iterations = 16;
    c->stop_z = 2.0;
    c->seed = 1;
    c->alloc = SIM_ALLOC_TOPTWO;
    c->threads = 1;
    c->finish = true;
    win_value_defaults(&c->win);
}

double sim_mean(const SimCandidate *c) { return c->mean; }

double sim_stderr(const SimCandidate *c) {
    if (c->n < 2) return 0.0;
    double n = (double)c->n, var = c->m2 / (n - 1.0);
    return var > 0.0 ? sqrt(var / n) : 0.0;
}

double sim_win_mean(const SimCandidate *c) { return c->win_mean; }

double sim_win_stderr(const SimCandidate *c) {
    if (c->n < 2) return 0.0;
    double n = (double)c->n, var = c->win_m2 / (n - 1.0);
    return var > 0.0 ? sqrt(var / n) : 0.0;
}

static bool listed_before(const SimCandidate *x, const SimCandidate *y) {
    if (x->live != y->live) return x->live;
    if (sim_mean(x) != sim_mean(y)) return sim_mean(x) > sim_mean(y);
    return move_compare_equity(&x->move, &y->move) < 0;
}

void sim_table_order(const SimResult *r, const SimCandidate **order) {
    for (int i = 0; i < r->count; i++) { /* an insertion sort: at most SIM_MAX_CANDIDATES */
        int at = i;
        while (at > 0 && listed_before(&r->cand[i], order[at - 1])) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = &r->cand[i];
    }
}

/* Welford's update of both running means (n counts both). */
static void add_value(SimCandidate *c, double v, double win) {
    c->n++;
    double d = v - c->mean;
    c->mean += d / (double)c->n;
    c->m2 += d * (v - c->mean);
    double dw = win - c->win_mean;
    c->win_mean += dw / (double)c->n;
    c->win_m2 += dw * (win - c->win_mean);
}

void sim_deal_world(const Game *root, const InferResult *infer, uint64_t seed, uint64_t i, Game *world) {
    Rng r;
    rng_seed_stream(&r, seed, i, 0);
    if (infer == NULL) {
        game_deal_unseen(root, world, &r);
    } else {
        *world = *root;
        infer_deal_world(infer, world, &r);
    }
    rng_seed_stream(&world->rng, seed, i, 1);
}

/* P(the player `me` wins) where a rollout stopped: 1, 1/2 or 0 once the
 * game is over; else the model's for the lead with the leaves last kept. */
static double horizon_win(const Game *g, int me, double leaves, const WinModel *model) {
    int spread = g->scores[me] - g->scores[1 - me];
    if (game_over(g)) return spread > 0 ? 1.0 : spread == 0 ? 0.5 : 0.0;
    int tiles_left = g->bag.count + g->racks[0].total + g->racks[1].total;
    double lead = spread + leaves;
    double p = winprob(model, g->on_turn == me ? lead : -lead, tiles_left);
    return g->on_turn == me ? p : 1.0 - p;
}

/* sim_static_rollout, and the root player's P(win) at its horizon into
 * *p_win if not NULL (under win's model, or the default one). */
static double rollout_value(Game *g, int moves, bool finish, const Move *first, LeaveValueFn leave_value,
                            const void *leave_ctx, const WinValue *win, double *p_win);

double sim_static_rollout(Game *g, int moves, const Move *first, LeaveValueFn leave_value, const void *leave_ctx,
                          const WinValue *win) {
    return rollout_value(g, moves, false, first, leave_value, leave_ctx, win, NULL);
}

/* Moves a finishing rollout may add once the bag is empty: every tile of
 * both racks one at a time, and the scoreless turns that end a game. */
#define FINISH_MAX_MOVES (2 * RK_RACK_SIZE + 2 * GAME_MAX_SCORELESS)

static double rollout_value(Game *g, int moves, bool finish, const Move *first, LeaveValueFn leave_value,
                            const void *leave_ctx, const WinValue *win, double *p_win) {
    int me = g->on_turn, spread0 = g->scores[me] - g->scores[1 - me];
    int32_t last_leave[2] = {0, 0};
    for (int k = 0; !game_over(g) && (k < moves || (finish && g->bag.count == 0 && k < moves + FINISH_MAX_MOVES));
         k++) {
        Move mv;
        if (k == 0 && first != NULL) {
            mv = *first;
        } else {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, leave_value, leave_ctx);
            movegen_best(&req, &mv, NULL);
        }
        int mover = g->on_turn;
        last_leave[mover] = g->bag.count > 0 ? move_leave_value(leave_value, leave_ctx, &g->racks[mover], &mv) : 0;
        game_play(g, &mv);
    }
    int spread = g->scores[me] - g->scores[1 - me];
    double v = (double)(spread - spread0);
    double leaves = game_over(g) ? 0.0 : (last_leave[me] - last_leave[1 - me]) / 1000.0;
    if (p_win != NULL) {
        WinModel model = win != NULL ? win->model : WINPROB_DEFAULT;
        *p_win = horizon_win(g, me, leaves, &model);
    }
    if (game_over(g)) return v + (win != NULL ? win_value_final(win, spread) : 0.0);
    v += leaves;
    if (win != NULL) {
        int tiles_left = g->bag.count + g->racks[0].total + g->racks[1].total;
        /* the move to come is worth the win model's mean(t) to whoever has it */
        v += (g->on_turn == me ? 1.0 : -1.0) * winprob_mean(&win->model, tiles_left);
        v += win_value_open(win, spread + leaves, g->on_turn == me, tiles_left);
    }
    return v;
}

static int check_config(const SimConfig *c, RkError *err) {
    if (c->plies < 0 || c->plies > 100) return rk_error(err, "sim: plies %d, expected 0..100", c->plies);
    if (c->candidates < 1 || c->candidates > SIM_MAX_CANDIDATES)
        return rk_error(err, "sim: candidates %d, expected 1..%d", c->candidates, SIM_MAX_CANDIDATES);
    if (c->iterations < 1) return rk_error(err, "sim: iterations must be at least 1");
    if (!(c->stop_z >= 0.0) || !isfinite(c->stop_z)) return rk_error(err, "sim: stop z must be >= 0");
    if (c->stop_z > 0.0 && c->min_iterations < 2)
        return rk_error(err, "sim: with a stop z, at least 2 iterations before stopping (a standard error needs 2)");
    if (!(c->seconds >= 0.0) || !isfinite(c->seconds)) return rk_error(err, "sim: seconds must be >= 0");
    if (!(c->win.bonus >= 0.0) || !isfinite(c->win.bonus)) return rk_error(err, "sim: win_bonus must be finite and >= 0");
    if (winprob_check(&c->win.model, err) != 0) return -1;
    if (c->threads < 1 || c->threads > SIM_MAX_THREADS)
        return rk_error(err, "sim: threads %d, expected 1..%d", c->threads, SIM_MAX_THREADS);
    if (c->alloc != SIM_ALLOC_TOPTWO && c->alloc != SIM_ALLOC_UNIFORM) return rk_error(err, "sim: unknown allocation");
    if (c->given != NULL && (c->given_count < 1 || c->given_count > SIM_MAX_CANDIDATES))
        return rk_error(err, "sim: %d given candidates, expected 1..%d", c->given_count, SIM_MAX_CANDIDATES);
    return 0;
}


/* A thread's scratch: the world it last dealt and a rollout's game. */
typedef struct SimScratch {
    Game world;
    Game play;
    uint64_t world_index; /* of `world`; UINT64_MAX: none yet */
} SimScratch;

/* ROUND_CAP jobs hold the largest round: a warmup of every candidate. */
#define ROUND_CAP (SIM_MAX_CANDIDATES * SIM_WARMUP)

/* One simulation: what the threads of a round read and write. */
typedef struct Sim {
    const SimConfig *cfg;
    const Game *root;
    SimResult *out;
    SimTask jobs[ROUND_CAP];
    double deadline;      /* cfg->seconds after the start, or 0 */
    SimScratch *scratch;  /* one a thread */
} Sim;

static bool stop_now(const Sim *s) {
    if (s->cfg->stop != NULL && atomic_load_explicit(s->cfg->stop, memory_order_relaxed)) return true;
    return s->deadline > 0.0 && rk_seconds() >= s->deadline;
}

/* Job k of the round, on `thread`: its candidate in its world. */
static void play_job(void *ctx, int thread, int k) {
    Sim *s = ctx;
    SimTask *job = &s->jobs[k];
    if (job->world > 0 && stop_now(s)) return; /* job->done stays false; world 0 always runs: an answer
                                                * needs every candidate rolled out once */
    SimScratch *sc = &s->scratch[thread];
    if (sc->world_index != job->world) {
        sim_deal_world(s->root, s->cfg->infer, s->cfg->seed, job->world, &sc->world);
        sc->world_index = job->world;
    }
    sc->play = sc->world;
    const SimConfig *cfg = s->cfg;
    job->value = rollout_value(&sc->play, cfg->plies + 1, cfg->finish && cfg->plies > 0, &s->out->cand[job->cand].move, cfg->leave_value,
                               cfg->leave_ctx, &cfg->win, &job->win);
    job->done = true;
}

/* Adds the round's played rollouts in the round's order. A candidate's
 * rollouts after one a stop cut are dropped, so that its rollouts stay
 * worlds 0..n-1. Returns the number added. */
static int merge_round(Sim *s, int jobs) {
    bool cut[SIM_MAX_CANDIDATES] = {false};
    int added = 0;
    for (int k = 0; k < jobs; k++) {
        const SimTask *job = &s->jobs[k];
        if (!job->done) cut[job->cand] = true;
        if (!job->done || cut[job->cand]) continue;
        add_value(&s->out->cand[job->cand], job->value, job->win);
        added++;
    }
    return added;
}

/* The candidates: the given ones, or the K best by static equity. */
static int candidates(const Game *root, const SimConfig *cfg, SimResult *out, RkError *err) {
    if (cfg->given != NULL) {
        out->count = cfg->given_count;
        for (int i = 0; i < out->count; i++) out->cand[i] = (SimCandidate){.move = cfg->given[i], .live = true};
        return 0;
    }
    MoveGenRequest req;
    movegen_request_for_game(&req, root);
    klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
    MoveList list;
    movelist_init(&list);
    movegen_top(&req, cfg->candidates, move_compare_equity, &list);
    if (list.count == 0) {
        movelist_free(&list);
        return rk_error(err, "sim: the position has no move");
    }
    out->count = list.count < (size_t)cfg->candidates ? (int)list.count : cfg->candidates;
    for (int i = 0; i < out->count; i++) out->cand[i] = (SimCandidate){.move = list.moves[i], .live = true};
    movelist_free(&list);
    return 0;
}

/* Plans the next round; 0 jobs when the budget is spent or the run is
 * settled. */
static int plan_round(Sim *s, int *live) {
    const SimConfig *cfg = s->cfg;
    SimResult *r = s->out;
    if (r->count == 1) return r->rollouts == 0 ? sim_plan_uniform(r, 0, 1, s->jobs, ROUND_CAP) : 0;
    if (cfg->alloc == SIM_ALLOC_UNIFORM) {
        if (*live <= 1 || r->iterations >= cfg->iterations) return 0;
        return sim_plan_uniform(r, r->iterations, cfg->iterations - r->iterations, s->jobs, ROUND_CAP);
    }
    uint64_t count = (uint64_t)r->count; /* the budget saturates: a timed search gives UINT64_MAX iterations */
    uint64_t budget = cfg->iterations > UINT64_MAX / count ? UINT64_MAX : cfg->iterations * count;
    if (r->rollouts >= budget) return 0;
    if (cfg->stop_z > 0.0 && sim_settled(r, cfg->stop_z, cfg->min_iterations)) return 0;
    return sim_plan_toptwo(r, budget - r->rollouts, cfg->seed, r->rounds, s->jobs, ROUND_CAP);
}

int sim_run(const Game *root, const SimConfig *cfg, SimResult *out, RkError *err) {
    memset(out, 0, sizeof *out);
    if (check_config(cfg, err) != 0) return -1;
    if (game_over(root)) return rk_error(err, "sim: the game is over");
    RkError inner;
    if (cfg->infer != NULL && infer_check_fits(root, cfg->infer, &inner) != 0)
        return rk_error(err, "sim: %s", inner.msg);
    if (candidates(root, cfg, out, err) != 0) return -1;
    Sim *s = calloc(1, sizeof *s);
    SimScratch *scratch = calloc((size_t)cfg->threads, sizeof *scratch);
    WorkPool *pool = s != NULL && scratch != NULL ? workpool_open(cfg->threads, &inner) : NULL;
    if (pool == NULL) {
        free(s);
        free(scratch);
        return s == NULL || scratch == NULL ? rk_error(err, "sim: out of memory") : rk_error(err, "sim: %s", inner.msg);
    }
    for (int t = 0; t < cfg->threads; t++) scratch[t].world_index = UINT64_MAX;
    double t0 = rk_seconds();
    *s = (Sim){.cfg = cfg, .root = root, .out = out, .scratch = scratch, .deadline = cfg->seconds > 0.0 ? t0 + cfg->seconds : 0.0};
    int live = out->count;
    for (;;) {
        int jobs = plan_round(s, &live);
        if (jobs == 0) break;
        workpool_run(pool, jobs, play_job, s);
        out->rollouts += (uint64_t)merge_round(s, jobs);
        out->rounds++;
        if (cfg->alloc == SIM_ALLOC_UNIFORM) {
            for (int i = 0; i < out->count; i++)
                if (out->cand[i].live && out->cand[i].n > out->iterations) out->iterations = out->cand[i].n;
            if (cfg->stop_z > 0.0 && out->iterations >= cfg->min_iterations) live = sim_drop_behind(out, cfg->stop_z);
        } else {
            out->iterations = out->rollouts / (uint64_t)out->count;
        }
        if (cfg->progress != NULL) cfg->progress(cfg->progress_ctx, out);
        if (stop_now(s)) break;
    }
    out->seconds = rk_seconds() - t0;
    out->best = sim_leader(out);
    workpool_close(pool);
    free(scratch);
    free(s);
    return 0;
}
