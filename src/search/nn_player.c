/*
 * nn_player.c - greedy-policy and value players over the network (see
 * nn_player.h).
 */
#include "nn_player.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/position.h"
#include "nn/model_io.h"
#include "search/player_kind.h"
#include "search/spec_option.h"

void nn_player_defaults(NnPlayer *np, NnPlayerMode mode) {
    memset(np, 0, sizeof *np);
    np->mode = mode;
    np->candidates = 8;
    np->samples = 4;
}

int nn_player_load(NnPlayer *np, const char *path, const LetterDist *ld, RkError *err) {
    NnModelInfo info;
    if (nn_model_peek(path, &info, err) != 0) return -1;
    if (nn_model_load(&np->model, path, ld, info.dim, err) != 0) return -1;
    np->loaded = true;
    return 0;
}

void nn_player_close(NnPlayer *np) {
    if (np->ready) nn_batch_free(&np->batch);
    if (np->loaded) nn_model_free(&np->model);
    free(np->logp);
    np->ready = np->loaded = false;
    np->logp = NULL;
}

static int prepare(NnPlayer *np, const Game *g) {
    if (np->ready) return 0;
    RkError err;
    nn_feature_context(&np->fc, g->ld, g->layout, g->kwg);
    nn_feature_context_leaves(&np->fc, np->leave_value, np->leave_ctx);
    int cap = np->mode == NN_PLAYER_VALUE ? np->candidates * np->samples : 1;
    if (nn_batch_init(&np->batch, &np->model, &np->fc, cap, &err) != 0) {
        if (!np->warned) /* the model needs leaves the player was not given: said once, static moves played */
            fprintf(stderr, "rookery: warning: nn player: %s; playing the static move instead\n", err.msg);
        np->warned = true;
        return -1;
    }
    np->ready = true;
    return 0;
}

/* log P of every legal move of the position on turn in slot 0. */
static int policy(NnPlayer *np, const Game *g) {
    Position pos;
    position_from_game(&pos, g);
    nn_batch_set(&np->batch, &np->model, 0, &pos);
    nn_forward_trunk(&np->model, &np->batch, 1);
    nn_forward_submoves(&np->model, &np->batch, 1);
    int n = np->batch.legal[0].n;
    if (n > np->logp_cap) {
        free(np->logp);
        np->logp = malloc((size_t)n * sizeof *np->logp);
        if (!np->logp) return -1;
        np->logp_cap = n;
    }
    return nn_policy_all(&np->model, &np->batch, 0, np->logp);
}

static void to_move(const PackedMove *pm, const Game *g, Move *out) {
    if (packed_to_move(pm, &g->board, out) != 0) { /* cannot happen for a legal move: pass */
        memset(out, 0, sizeof *out);
        out->kind = MOVE_PASS;
    }
}

int nn_player_choose(NnPlayer *np, const Game *g, LeaveValueFn leave_value, const void *leave_ctx, Move *out) {
    np->leave_value = leave_value, np->leave_ctx = leave_ctx;
    if (prepare(np, g) != 0) return -1;
    nn_feature_context_leaves(&np->fc, leave_value, leave_ctx);
    int n = policy(np, g);
    if (n < 0) return -1;
    const NnLegal *lg = &np->batch.legal[0];
    int best = 0;
    for (int j = 1; j < n; j++)
        if (np->logp[j] > np->logp[best]) best = j;
    if (np->mode == NN_PLAYER_GREEDY || n == 1) {
        to_move(&lg->m[best].pm, g, out);
        return 0;
    }
    /* the K most probable moves */
    int K = n < np->candidates ? n : np->candidates, cand[NN_PLAYER_MAX_CANDIDATES];
    PackedMove pms[NN_PLAYER_MAX_CANDIDATES];
    for (int k = 0; k < K; k++) {
        int arg = -1;
        for (int j = 0; j < n; j++) {
            bool taken = false;
            for (int q = 0; q < k; q++) taken |= cand[q] == j;
            if (!taken && (arg < 0 || np->logp[j] > np->logp[arg])) arg = j;
        }
        cand[k] = arg;
        pms[k] = lg->m[arg].pm; /* the batch's legal list is rebuilt below */
    }
    Rng r = g->rng;
    Rng rng;
    rng_seed_stream(&rng, np->seed ^ rng_next(&r), (uint64_t)g->turn, 0x6e6e76616c7565);
    double value[NN_PLAYER_MAX_CANDIDATES] = {0};
    int slot[NN_PLAYER_MAX_CANDIDATES * NN_PLAYER_MAX_SAMPLES], used = 0;
    Game *w = malloc(sizeof *w);
    if (!w) return -1;
    for (int k = 0; k < K; k++) {
        Move mv;
        to_move(&pms[k], g, &mv);
        for (int s = 0; s < np->samples; s++) {
            game_deal_unseen(g, w, &rng);
            rng_seed(&w->rng, rng_next(&rng));
            game_play(w, &mv);
            int idx = k * np->samples + s;
            if (game_over(w)) {
                int me = g->on_turn, d = w->scores[me] - w->scores[1 - me];
                value[k] += d > 0 ? 1.0 : d == 0 ? 0.5 : 0.0;
                slot[idx] = -1;
                continue;
            }
            Position pos;
            position_from_game(&pos, w);
            nn_batch_set(&np->batch, &np->model, used, &pos);
            slot[idx] = used++;
        }
    }
    free(w);
    if (used > 0) {
        nn_forward_trunk(&np->model, &np->batch, used);
        nn_forward_value(&np->model, &np->batch, used);
    }
    int pick = 0;
    for (int k = 0; k < K; k++) {
        for (int s = 0; s < np->samples; s++) {
            int sl = slot[k * np->samples + s];
            if (sl >= 0) value[k] += 1.0 - nn_value_win(&np->batch, sl);
        }
        if (value[k] > value[pick]) pick = k; /* ties: the more probable move */
    }
    to_move(&pms[pick], g, out);
    return 0;
}

/* ------------------------------------------------------------ the kind */

static int nn_kind_init(Player *p, RkError *err) {
    NnPlayer *np = malloc(sizeof *np);
    if (np == NULL) return rk_error(err, "out of memory");
    nn_player_defaults(np, NN_PLAYER_GREEDY);
    p->state = np;
    return 0;
}

/* nn:MODE,model=FILE[,options]: the mode word first, then key=value. */
static int nn_kind_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                          RkError *err) {
    (void)ld;
    NnPlayer *np = p->state;
    double x;
    if (val == NULL) {
        if (np->mode_given) return -2;
        if (strcmp(key, "greedy") == 0) np->mode = NN_PLAYER_GREEDY;
        else if (strcmp(key, "value") == 0) np->mode = NN_PLAYER_VALUE;
        else return rk_error(err, "player '%s': the mode is greedy or value (nn:greedy,model=FILE.h5)", spec);
        np->mode_given = true;
        return 0;
    }
    if (!np->mode_given)
        return rk_error(err, "player '%s': the mode is greedy or value (nn:greedy,model=FILE.h5), first", spec);
    if (strcmp(key, "model") == 0) {
        snprintf(np->model_path, sizeof np->model_path, "%s", val);
    } else if (strcmp(key, "candidates") == 0) {
        if (spec_number(spec, key, val, 1, NN_PLAYER_MAX_CANDIDATES, true, &x, err) != 0) return -1;
        np->candidates = (int)x;
        np->sizes_given = true;
    } else if (strcmp(key, "samples") == 0) {
        if (spec_number(spec, key, val, 1, NN_PLAYER_MAX_SAMPLES, true, &x, err) != 0) return -1;
        np->samples = (int)x;
        np->sizes_given = true;
    } else if (strcmp(key, "seed") == 0) {
        if (spec_number(spec, key, val, 0, 9e15, true, &x, err) != 0) return -1;
        np->seed = (uint64_t)x;
    } else {
        return -2;
    }
    return 0;
}

static int nn_kind_finish(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    NnPlayer *np = p->state;
    if (!np->mode_given) return rk_error(err, "player '%s': give nn:greedy or nn:value, and model=FILE.h5", spec);
    if (np->model_path[0] == '\0') return rk_error(err, "player '%s': give model=FILE.h5", spec);
    if (np->mode == NN_PLAYER_GREEDY && np->sizes_given)
        return rk_error(err, "player '%s': candidates= and samples= are options of nn:value", spec);
    return nn_player_load(np, np->model_path, ld, err);
}

static int nn_kind_check_board(const Player *p, int dim, RkError *err) {
    const NnPlayer *np = p->state;
    if (nn_player_dim(np) == dim) return 0;
    return rk_error(err, "player '%s': the model is for a %dx%d board, the game's is %dx%d", p->spec,
                    nn_player_dim(np), nn_player_dim(np), dim, dim);
}

static int nn_kind_choose(const Player *p, const Game *g, Move *out) {
    return nn_player_choose(p->state, g, player_leave_fn(p), p->leaves, out);
}

static void nn_kind_close(Player *p) {
    if (p->state == NULL) return;
    nn_player_close(p->state);
    free(p->state);
}

const PlayerKind PLAYER_KIND_NN = {
    .name = "nn",
    .usage = "nn:greedy|value,model=FILE.h5[,candidates=K][,samples=S][,seed=N][,leaves=FILE.klv2]",
    .init = nn_kind_init,
    .option = nn_kind_option,
    .finish = nn_kind_finish,
    .check_board = nn_kind_check_board,
    .choose = nn_kind_choose,
    .close = nn_kind_close,
};
