/* mcgs_player.c - the graph search as a player (see mcgs_player.h). */
#include "mcgs_player.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/model_io.h"
#include "search/player_kind.h"
#include "search/spec_option.h"

void mcgs_player_defaults(McgsPlayer *mp) {
    memset(mp, 0, sizeof *mp);
    mcgs_config_defaults(&mp->cfg);
    mp->last_spread = NAN;
    mp->full_share = 1.0;
    mp->last_full = true;
    mp->infer_tau = 5.0;
    infer_result_init(&mp->inference);
    policy_target_defaults(&mp->target);
}

static const char *const PRIORS[] = {"uniform", "equity", NULL};
static const char *const HIDDEN[] = {"uniform", "net", NULL};
static const char *const YES_NO[] = {"no", "yes", NULL};
static const char *const EXPAND[] = {"auto", "first", "second", NULL};
static const char *const CANDIDATES_BY[] = {"auto", "prior", "equity", "mix", NULL};

int mcgs_player_option(McgsPlayer *mp, const char *spec, const char *key, const char *val, const LetterDist *ld,
                       RkError *err) {
    McgsConfig *c = &mp->cfg;
    double x;
    int k;
#define NUMBER(lo, hi, integer)                                                                                     \
    if (spec_number(spec, key, val, lo, hi, integer, &x, err) != 0) return -1
    if (strcmp(key, "visits") == 0) {
        NUMBER(1, 1e8, true);
        c->visits = (uint32_t)x;
    } else if (strcmp(key, "candidates") == 0) {
        NUMBER(1, MCGS_MAX_CANDIDATES, true);
        c->candidates = (int)x;
    } else if (strcmp(key, "candidates_by") == 0) {
        if (spec_choice(spec, key, val, CANDIDATES_BY, &k, err) != 0) return -1;
        c->candidates_by = (McgsCandidateKind)k;
    } else if (strcmp(key, "cpuct") == 0) {
        NUMBER(0, 1e6, false);
        c->cpuct = x;
    } else if (strcmp(key, "floor") == 0) {
        NUMBER(0, 1, false);
        c->puct_floor = x;
    } else if (strcmp(key, "fpu") == 0) {
        NUMBER(-1e6, 1e6, false);
        c->fpu = x;
    } else if (strcmp(key, "rollout") == 0) {
        NUMBER(0, 100, true);
        c->rollout = (int)x;
    } else if (strcmp(key, "value_mix") == 0) {
        NUMBER(0, 1, false);
        c->value_mix = x;
    } else if (strcmp(key, "prior") == 0) {
        if (spec_choice(spec, key, val, PRIORS, &k, err) != 0) return -1;
        c->prior = (McgsPriorKind)k;
    } else if (strcmp(key, "prior_temperature") == 0) {
        NUMBER(1e-3, 1e6, false);
        c->prior_temperature = x;
    } else if (strcmp(key, "hidden") == 0) {
        if (spec_choice(spec, key, val, HIDDEN, &k, err) != 0) return -1;
        c->hidden = (McgsHiddenKind)k;
    } else if (strcmp(key, "infer") == 0) {
        if (spec_choice(spec, key, val, YES_NO, &k, err) != 0) return -1;
        mp->infer = k == 1;
    } else if (strcmp(key, "infer_tau") == 0) {
        NUMBER(0.001, 1000, false);
        mp->infer_tau = x;
    } else if (strcmp(key, "win_bonus") == 0) {
        NUMBER(0, 1e6, false);
        c->win.bonus = x;
    } else if (strcmp(key, "win_model") == 0) {
        if (win_value_parse_model(&c->win, val, err) != 0) return -1;
    } else if (strcmp(key, "worlds") == 0) {
        NUMBER(0, 1e8, true);
        c->worlds = (uint32_t)x;
    } else if (strcmp(key, "crn") == 0) {
        if (spec_choice(spec, key, val, YES_NO, &k, err) != 0) return -1;
        c->crn = k == 1;
        mp->crn_given = true;
    } else if (strcmp(key, "expand") == 0) {
        if (spec_choice(spec, key, val, EXPAND, &k, err) != 0) return -1;
        c->expand = (McgsExpand)k;
    } else if (strcmp(key, "batch") == 0) {
        NUMBER(1, MCGS_MAX_BATCH, true);
        c->batch = (int)x;
        mp->batch_given = true;
    } else if (strcmp(key, "threads") == 0) {
        NUMBER(1, MCGS_MAX_THREADS, true);
        c->threads = (int)x;
    } else if (strcmp(key, "vloss") == 0) {
        NUMBER(0, 1e6, false);
        c->vloss = x;
    } else if (strcmp(key, "temperature") == 0) {
        NUMBER(0, 100, false);
        c->temperature = x;
    } else if (strcmp(key, "temperature_moves") == 0) {
        NUMBER(0, 1000, true);
        c->temperature_moves = (int)x;
    } else if (strcmp(key, "seed") == 0) {
        NUMBER(0, 9e15, true);
        c->seed = (uint64_t)x;
    } else if (strcmp(key, "full_share") == 0) {
        NUMBER(0, 1, false);
        mp->full_share = x;
    } else if (strcmp(key, "fast_visits") == 0) {
        NUMBER(1, 1e8, true);
        mp->fast_visits = (uint32_t)x;
    } else if (strcmp(key, "net") == 0) {
        if (mp->has_net) return rk_error(err, "player '%s': net given twice", spec);
        NnModelInfo info;
        if (nn_model_peek(val, &info, err) != 0) return -1;
        if (nn_model_load(&mp->model, val, ld, info.dim, err) != 0) return -1;
        mp->has_net = true;
        c->net = &mp->model;
    } else {
        return policy_target_option(&mp->target, spec, key, val, err);
    }
#undef NUMBER
    return 0;
}

int mcgs_player_finish(McgsPlayer *mp, const char *spec, RkError *err) {
    RkError inner;
    if (mp->cfg.worlds > 0 && !mp->crn_given) mp->cfg.crn = false; /* a pool of worlds replaces the default crn */
    if (mp->cfg.threads > 1 && !mp->batch_given) /* rollouts for every thread in a round */
        mp->cfg.batch = 4 * mp->cfg.threads < MCGS_MAX_BATCH ? 4 * mp->cfg.threads : MCGS_MAX_BATCH;
    if (mp->full_share <= 0.0)
        return rk_error(err, "player '%s': full_share=0 would leave no decision a P target (it must be in (0, 1])",
                        spec);
    if (mp->full_share < 1.0) {
        if (mp->fast_visits == 0)
            return rk_error(err, "player '%s': full_share=%g needs fast_visits=N (the other decisions' budget)", spec,
                            mp->full_share);
        if (mp->fast_visits >= mp->cfg.visits)
            return rk_error(err, "player '%s': fast_visits=%u must be below visits=%u", spec, mp->fast_visits,
                            mp->cfg.visits);
    }
    if (mp->infer && mp->cfg.hidden == MCGS_HIDDEN_NET)
        return rk_error(err, "player '%s': infer=yes and hidden=net both choose the opponent's rack: give one", spec);
    if (mcgs_search_init(&mp->search, &mp->cfg, &inner) != 0)
        return rk_error(err, "player '%s': %s", spec, inner.msg);
    mp->ready = true;
    return 0;
}

int mcgs_player_dim(const McgsPlayer *mp) { return mp->has_net ? mp->model.fs.dim : 0; }

int mcgs_player_choose(McgsPlayer *mp, const Game *g, LeaveValueFn leave_value, const void *leave_ctx, Move *out,
                       RkError *err) {
    McgsSearch *s = &mp->search;
    s->cfg.leave_value = leave_value;
    s->cfg.leave_ctx = leave_ctx;
    Rng r = g->rng; /* the game's own stream: the same game gives the same decisions */
    s->cfg.seed = mp->cfg.seed ^ rng_next(&r) ^ ((uint64_t)g->turn << 48);
    /* full or fast: a draw of its own from the decision's seed */
    mp->last_full = true;
    if (mp->full_share < 1.0) {
        Rng d;
        rng_seed_stream(&d, s->cfg.seed, UINT64_C(0x66756c6c), 0); /* "full" */
        mp->last_full = (double)(rng_next(&d) >> 11) * 0x1.0p-53 < mp->full_share;
    }
    s->cfg.visits = mp->last_full ? mp->cfg.visits : mp->fast_visits;
    s->cfg.infer = NULL;
    if (mp->infer) {
        InferConfig ic;
        infer_decision_config(&ic, mp->infer_tau, s->cfg.seed, leave_value, leave_ctx);
        if (infer_last_move(g, &ic, &mp->inference)) s->cfg.infer = &mp->inference;
    }
    if (mcgs_search_run(s, g, &mp->last, err) != 0) {
        /* nothing of this decision may stand in for a search result: no P
         * target, no expected spread (the last ones were another decision's) */
        mp->last_full = false;
        mp->last_spread = NAN;
        mp->last.count = 0;
        mp->failures++;
        return -1;
    }
    const McgsResult *res = &mp->last;
    *out = res->moves[res->best];
    /* the move as the game scores it (equity is not used by the game) */
    out->equity = 0;
    /* the search's expected final spread (a V target; its values are
     * points of spread only without a win bonus) */
    int me = g->on_turn;
    mp->last_spread = mp->cfg.win.bonus == 0.0 ? (double)(g->scores[me] - g->scores[1 - me]) + res->root_q : NAN;
    mp->decisions++;
    mp->full_decisions += mp->last_full;
    mp->playouts += res->playouts;
    mp->net_positions += res->net_positions;
    mp->batches += res->batches;
    mp->evaluations += res->evaluations;
    mp->collisions += res->collisions;
    mp->opponent_choices += res->opponent_choices;
    mp->opponent_informed += res->opponent_informed;
    mp->seconds += res->seconds;
    if (res->bytes > mp->max_bytes) mp->max_bytes = res->bytes;
    if (res->nodes > mp->max_nodes) mp->max_nodes = res->nodes;
    return 0;
}

void mcgs_player_close(McgsPlayer *mp) {
    if (mp->ready) mcgs_search_free(&mp->search);
    if (mp->has_net) nn_model_free(&mp->model);
    infer_result_free(&mp->inference);
    mp->ready = mp->has_net = false;
}

/* ------------------------------------------------------------ the kind */

static int mcgs_kind_init(Player *p, RkError *err) {
    McgsPlayer *mp = malloc(sizeof *mp);
    if (mp == NULL) return rk_error(err, "out of memory");
    mcgs_player_defaults(mp);
    p->state = mp;
    return 0;
}

static int mcgs_kind_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                            RkError *err) {
    if (val == NULL) return -2;
    int rc = mcgs_player_option(p->state, spec, key, val, ld, err);
    return rc > 0 ? -2 : rc; /* > 0: not a search option (leaves=) */
}

static int mcgs_kind_finish(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    (void)ld;
    return mcgs_player_finish(p->state, spec, err);
}

static int mcgs_kind_check_board(const Player *p, int dim, RkError *err) {
    int d = mcgs_player_dim(p->state);
    if (d == 0 || d == dim) return 0;
    return rk_error(err, "player '%s': the net is for a %dx%d board, the game's is %dx%d", p->spec, d, d, dim, dim);
}

static int mcgs_kind_choose(const Player *p, const Game *g, Move *out) {
    McgsPlayer *mp = p->state;
    RkError err;
    if (mcgs_player_choose(mp, g, player_leave_fn(p), p->leaves, out, &err) == 0) return 0;
    if (mp->failures == 1) /* said once a player; the static move is played instead */
        fprintf(stderr, "rookery: warning: search failed (%s); playing the static move instead\n", err.msg);
    return -1;
}

static int mcgs_kind_last_target(const Player *p, PackedMove *moves, float *probs, int cap, int *count,
                                 double *spread) {
    const McgsPlayer *mp = p->state;
    if (!mp->last_full) return 0; /* a fast search (playout cap randomization): V and H targets only */
    const McgsResult *res = &mp->last;
    float all[MCGS_MAX_CANDIDATES];
    policy_target_compute(&mp->target, res, all);
    int n = res->count < cap ? res->count : cap;
    memcpy(moves, res->packed, (size_t)n * sizeof moves[0]);
    memcpy(probs, all, (size_t)n * sizeof probs[0]);
    *count = n;
    *spread = mp->last_spread;
    return 1;
}

static void mcgs_kind_close(Player *p) {
    if (p->state == NULL) return;
    mcgs_player_close(p->state);
    free(p->state);
}

const PlayerKind PLAYER_KIND_MCGS = {
    .name = "mcgs",
    .usage = "mcgs[:visits=N][,candidates=K][,cpuct=C][,rollout=P][,net=FILE.h5][,hidden=uniform|net][,infer=yes][,...] "
             "(docs/mcgs.md)",
    .init = mcgs_kind_init,
    .option = mcgs_kind_option,
    .finish = mcgs_kind_finish,
    .check_board = mcgs_kind_check_board,
    .choose = mcgs_kind_choose,
    .last_target = mcgs_kind_last_target,
    .close = mcgs_kind_close,
};

McgsPlayer *mcgs_player_of(const Player *p) { return p->kind == &PLAYER_KIND_MCGS ? p->state : NULL; }
