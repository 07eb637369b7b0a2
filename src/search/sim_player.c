/* sim_player.c - the simulation player (player.h): Monte Carlo simulation
 * of the best static moves (search/sim.h), with the player's static leaves
 * or with bag-aware leaves derived at every root from a rack-equity table
 * (req=, eval/dynleaves.h). */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/dynleaves.h"
#include "search/player_kind.h"
#include "search/rack_inference.h"
#include "search/sim.h"
#include "search/spec_option.h"

typedef struct SimState {
    SimConfig sim;   /* its leave callback is set per decision */
    bool infer;      /* infer=yes: the opponent's kept tiles from their last move */
    double infer_tau;
    InferResult inference; /* of the last decision (one thread) */
    DynLeaves *dyn;  /* with req=: bag-aware leaves (one thread) */
    double dyn_shrink;
    bool shrink_named;
} SimState;

static int sim_init(Player *p, RkError *err) {
    SimState *s = calloc(1, sizeof *s);
    if (s == NULL) return rk_error(err, "out of memory");
    sim_config_defaults(&s->sim);
    s->dyn_shrink = 30.0;
    s->infer_tau = 5.0;
    infer_result_init(&s->inference);
    p->state = s;
    return 0;
}

static int sim_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                      RkError *err) {
    SimState *s = p->state;
    double x;
    if (val == NULL) return -2;
    if (strcmp(key, "plies") == 0) {
        if (spec_number(spec, key, val, 0, 100, true, &x, err) != 0) return -1;
        s->sim.plies = (int)x;
    } else if (strcmp(key, "candidates") == 0) {
        if (spec_number(spec, key, val, 1, SIM_MAX_CANDIDATES, true, &x, err) != 0) return -1;
        s->sim.candidates = (int)x;
    } else if (strcmp(key, "iterations") == 0) {
        if (spec_number(spec, key, val, 1, 1e9, true, &x, err) != 0) return -1;
        s->sim.iterations = (uint64_t)x;
    } else if (strcmp(key, "stop_z") == 0) {
        if (spec_number(spec, key, val, 0, 100, false, &s->sim.stop_z, err) != 0) return -1;
    } else if (strcmp(key, "threads") == 0) {
        if (spec_number(spec, key, val, 1, SIM_MAX_THREADS, true, &x, err) != 0) return -1;
        s->sim.threads = (int)x;
    } else if (strcmp(key, "seed") == 0) {
        if (spec_number(spec, key, val, 0, 9e15, true, &x, err) != 0) return -1;
        s->sim.seed = (uint64_t)x;
    } else if (strcmp(key, "win_bonus") == 0) {
        if (spec_number(spec, key, val, 0, 1e6, false, &s->sim.win.bonus, err) != 0) return -1;
    } else if (strcmp(key, "win_model") == 0) {
        if (win_value_parse_model(&s->sim.win, val, err) != 0) return -1;
    } else if (strcmp(key, "finish") == 0) {
        if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
            return rk_error(err, "player '%s': finish=%s, expected yes or no", spec, val);
        s->sim.finish = strcmp(val, "yes") == 0;
    } else if (strcmp(key, "infer") == 0) {
        if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
            return rk_error(err, "player '%s': infer=%s, expected yes or no", spec, val);
        s->infer = strcmp(val, "yes") == 0;
    } else if (strcmp(key, "infer_tau") == 0) {
        if (spec_number(spec, key, val, 0.001, 1000, false, &s->infer_tau, err) != 0) return -1;
    } else if (strcmp(key, "shrink") == 0) {
        if (spec_number(spec, key, val, 0, 1e12, false, &s->dyn_shrink, err) != 0) return -1;
        s->shrink_named = true;
    } else if (strcmp(key, "req") == 0) {
        if (s->dyn != NULL || p->leaves_named) return rk_error(err, "player '%s': give leaves= or req=, once", spec);
        s->dyn = malloc(sizeof *s->dyn);
        if (s->dyn == NULL) return rk_error(err, "out of memory");
        if (dynleaves_open(s->dyn, ld, val, err) != 0) {
            free(s->dyn);
            s->dyn = NULL;
            return -1;
        }
    } else if (strcmp(key, "leaves") == 0 && s->dyn != NULL) {
        return rk_error(err, "player '%s': give leaves= or req=, once", spec);
    } else {
        return -2;
    }
    return 0;
}

static int sim_finish(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    (void)ld;
    const SimState *s = p->state;
    if (s->shrink_named && s->dyn == NULL) return rk_error(err, "player '%s': shrink= goes with req=", spec);
    return 0;
}

static bool sim_own_leaves(const Player *p) { return ((const SimState *)p->state)->dyn != NULL; }

/* infer=yes: the posterior of the opponent's kept tiles from their last
 * move, modelled with this player's own leaves, for the worlds of this
 * decision (none when there is nothing to infer: the uniform draw then). */
static void infer_for_decision(const Player *p, const Game *g, SimConfig *cfg) {
    SimState *s = p->state;
    InferConfig ic;
    infer_decision_config(&ic, s->infer_tau, cfg->seed, cfg->leave_value, cfg->leave_ctx);
    if (infer_last_move(g, &ic, &s->inference)) cfg->infer = &s->inference;
}

int sim_player_prepare(const Player *p, const Game *g, SimConfig *cfg, RkError *err) {
    if (sim_player_config(p) == NULL) return rk_error(err, "player '%s' is not a sim: player", p->spec);
    const SimState *s = p->state;
    *cfg = s->sim;
    if (s->dyn != NULL) {
        if (dynleaves_for_game(s->dyn, g, s->dyn_shrink, NULL, err) != 0) return -1;
        cfg->leave_value = klv_leave_value;
        cfg->leave_ctx = &s->dyn->klv;
    } else {
        cfg->leave_value = player_leave_fn(p);
        cfg->leave_ctx = p->leaves;
    }
    Rng r = g->rng; /* the game's own stream: the same game gives the same decisions */
    cfg->seed = s->sim.seed ^ rng_next(&r) ^ ((uint64_t)g->turn << 48);
    if (s->infer) infer_for_decision(p, g, cfg);
    return 0;
}

/* The decision; -1 if the simulation failed. */
static int sim_choose(const Player *p, const Game *g, Move *out) {
    SimConfig cfg;
    RkError err;
    if (sim_player_prepare(p, g, &cfg, &err) != 0) return -1;
    SimResult *res = malloc(sizeof *res);
    if (res == NULL || sim_run(g, &cfg, res, &err) != 0) {
        free(res);
        return -1;
    }
    *out = res->cand[res->best].move;
    free(res);
    return 0;
}

static void sim_close(Player *p) {
    SimState *s = p->state;
    if (s == NULL) return;
    if (s->dyn != NULL) {
        dynleaves_close(s->dyn);
        free(s->dyn);
    }
    infer_result_free(&s->inference);
    free(s);
}

const PlayerKind PLAYER_KIND_SIM = {
    .name = "sim",
    .usage = "sim[:plies=P][,candidates=K][,iterations=N][,stop_z=Z][,threads=T][,seed=S][,win_bonus=W][,win_model=M][,infer=yes[,infer_tau=T]][,finish=no]"
             "[,leaves=FILE.klv2|zero|,req=FILE.req[,shrink=K]]",
    .init = sim_init,
    .option = sim_option,
    .finish = sim_finish,
    .own_leaves = sim_own_leaves,
    .choose = sim_choose,
    .close = sim_close,
};

const SimConfig *sim_player_config(const Player *p) {
    return p->kind == &PLAYER_KIND_SIM ? &((const SimState *)p->state)->sim : NULL;
}
