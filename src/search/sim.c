/* sim.c - Monte Carlo simulation of candidate moves (see sim.h). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/klv.h"
#include "search/infer.h"

void sim_config_defaults(SimConfig *c) {
    memset(c, 0, sizeof *c);
    c->plies = 2;
    c->candidates = 15;
    c->iterations = 100;
    c->min_iterations = 16;
    c->stop_z = 2.0;
    c->seed = 1;
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

/* Scratch of one simulation. */
typedef struct Sim {
    const SimConfig *cfg;
    const Game *root;
    Game world;   /* the sampled world of the iteration */
    Game play;    /* one candidate's rollout */
} Sim;

void sim_sample_world(const Game *root, const InferResult *infer, uint64_t seed, uint64_t i, Game *world) {
    Rng r;
    rng_seed_stream(&r, seed, i, 0);
    if (infer == NULL) {
        game_redeal_unseen(root, world, &r);
    } else {
        *world = *root;
        infer_deal_world(infer, world, &r);
    }
    rng_seed_stream(&world->rng, seed, i, 1);
}

static void sample_world(Sim *s, uint64_t i) { sim_sample_world(s->root, s->cfg->infer, s->cfg->seed, i, &s->world); }

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
static double rollout_value(Game *g, int moves, const Move *first, LeaveValueFn leave_value,
                            const void *leave_ctx, const WinValue *win, double *p_win);

double sim_static_rollout(Game *g, int moves, const Move *first, LeaveValueFn leave_value, const void *leave_ctx,
                          const WinValue *win) {
    return rollout_value(g, moves, first, leave_value, leave_ctx, win, NULL);
}

static double rollout_value(Game *g, int moves, const Move *first, LeaveValueFn leave_value,
                            const void *leave_ctx, const WinValue *win, double *p_win) {
    int me = g->on_turn, spread0 = g->scores[me] - g->scores[1 - me];
    int32_t last_leave[2] = {0, 0};
    for (int k = 0; k < moves && !game_over(g); k++) {
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

/* Plays candidate c in the world and `plies` static plies; adds its value. */
static void rollout(Sim *s, SimCandidate *c) {
    s->play = s->world;
    double win;
    double v = rollout_value(&s->play, s->cfg->plies + 1, &c->move, s->cfg->leave_value, s->cfg->leave_ctx,
                             &s->cfg->win, &win);
    add_value(c, v, win);
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
    if (c->given != NULL && (c->given_count < 1 || c->given_count > SIM_MAX_CANDIDATES))
        return rk_error(err, "sim: %d given candidates, expected 1..%d", c->given_count, SIM_MAX_CANDIDATES);
    return 0;
}

/* The live candidate with the highest mean (ties: the earlier, i.e. better
 * static equity). */
static int leader(const SimResult *r) {
    int best = -1;
    for (int i = 0; i < r->count; i++)
        if (r->cand[i].live && (best < 0 || sim_mean(&r->cand[i]) > sim_mean(&r->cand[best]))) best = i;
    return best;
}

static int stop_behind(SimResult *r, double z) {
    int lead = leader(r), live = 0;
    double low = sim_mean(&r->cand[lead]) - z * sim_stderr(&r->cand[lead]);
    for (int i = 0; i < r->count; i++) {
        SimCandidate *c = &r->cand[i];
        if (!c->live) continue;
        if (i != lead && sim_mean(c) + z * sim_stderr(c) < low) c->live = false;
        live += c->live;
    }
    return live;
}

/* Whether cfg's stop flag is set, once the first iteration is done (a result
 * needs one). */
static bool stop_asked(const SimConfig *cfg, uint64_t it) {
    return cfg->stop != NULL && it > 0 && atomic_load_explicit(cfg->stop, memory_order_relaxed);
}

int sim_run(const Game *root, const SimConfig *cfg, SimResult *out, RkError *err) {
    memset(out, 0, sizeof *out);
    if (check_config(cfg, err) != 0) return -1;
    if (game_over(root)) return rk_error(err, "sim: the game is over");
    RkError inner;
    if (cfg->infer != NULL && infer_check_fits(root, cfg->infer, &inner) != 0)
        return rk_error(err, "sim: %s", inner.msg);
    Sim *s = malloc(sizeof *s);
    if (s == NULL) return rk_error(err, "sim: out of memory");
    s->cfg = cfg;
    s->root = root;
    if (cfg->given != NULL) {
        out->count = cfg->given_count;
        for (int i = 0; i < out->count; i++) out->cand[i] = (SimCandidate){.move = cfg->given[i], .live = true};
    } else { /* the K best by static equity */
        MoveGenRequest req;
        movegen_request_for_game(&req, root);
        klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
        MoveList list;
        movelist_init(&list);
        movegen_top(&req, cfg->candidates, move_compare_equity, &list);
        if (list.count == 0) {
            movelist_free(&list);
            free(s);
            return rk_error(err, "sim: the position has no move");
        }
        out->count = list.count < (size_t)cfg->candidates ? (int)list.count : cfg->candidates;
        for (int i = 0; i < out->count; i++) out->cand[i] = (SimCandidate){.move = list.moves[i], .live = true};
        movelist_free(&list);
    }

    double t0 = rk_seconds();
    int live = out->count;
    for (uint64_t it = 0; it < cfg->iterations && live > 1; it++) {
        if (stop_asked(cfg, it)) break;
        sample_world(s, it);
        bool cut = false;
        for (int i = 0; i < out->count && !cut; i++) {
            /* a stop is seen between candidates too (an iteration can be long), the
             * iteration then left part-played: only some candidates have its world */
            cut = i > 0 && stop_asked(cfg, it);
            if (!cut && out->cand[i].live) rollout(s, &out->cand[i]);
        }
        if (cut) break;
        out->iterations = it + 1;
        if (cfg->stop_z > 0.0 && out->iterations >= cfg->min_iterations) live = stop_behind(out, cfg->stop_z);
        if (cfg->progress != NULL) cfg->progress(cfg->progress_ctx, out);
        if (cfg->seconds > 0.0 && rk_seconds() - t0 >= cfg->seconds) break;
    }
    if (out->count == 1 && out->iterations == 0) { /* a single candidate needs no simulation, but give it a value */
        sample_world(s, 0);
        rollout(s, &out->cand[0]);
        out->iterations = 1;
    }
    out->seconds = rk_seconds() - t0;
    out->best = leader(out);
    free(s);
    return 0;
}
