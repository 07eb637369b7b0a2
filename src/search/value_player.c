/*
 * value_player.c - the afterstate player (player.h): the K best moves by
 * static equity, each valued by the afterstate network (nn/afterstate_net.h)
 * from the position right after it, the one with the highest expected
 * equity lead a few plies on played (the network's spread output: the
 * mover's spread + leave at its training horizon, docs/afterstate.md; ties:
 * the static order). A move that ends the game is valued by its final
 * spread.
 *
 *   value:model=FILE.h5[,candidates=K]        K: 1..64, default 16
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/position.h"
#include "nn/afterstate_net.h"
#include "search/player_kind.h"
#include "search/spec_option.h"

#define VALUE_DEFAULT_CANDIDATES 16

typedef struct ValueState {
    int candidates;
    char model_path[400];
    AftNet net;
    bool loaded, ready;
    AftContext ctx;
    AftBatch batch;
    MoveList top;
} ValueState;

static int value_init(Player *p, RkError *err) {
    ValueState *s = calloc(1, sizeof *s);
    if (s == NULL) return rk_error(err, "out of memory");
    s->candidates = VALUE_DEFAULT_CANDIDATES;
    movelist_init(&s->top);
    p->state = s;
    return 0;
}

static int value_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                        RkError *err) {
    (void)ld;
    ValueState *s = p->state;
    if (val == NULL) return -2;
    if (strcmp(key, "model") == 0) {
        if (snprintf(s->model_path, sizeof s->model_path, "%s", val) >= (int)sizeof s->model_path)
            return rk_error(err, "player '%s': model path too long", spec);
        return 0;
    }
    if (strcmp(key, "candidates") == 0) {
        double k;
        if (spec_number(spec, key, val, 1, MOVEGEN_TOP_MAX, true, &k, err) != 0) return -1;
        s->candidates = (int)k;
        return 0;
    }
    return -2;
}

static int value_finish(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    ValueState *s = p->state;
    if (s->model_path[0] == '\0') return rk_error(err, "player '%s': value needs model=FILE.h5", spec);
    /* any board side here: check_board compares it with the game's */
    if (aft_net_load(&s->net, s->model_path, ld, 0, err) != 0) return -1;
    s->loaded = true;
    return 0;
}

static int value_check_board(const Player *p, int dim, RkError *err) {
    const ValueState *s = p->state;
    if (s->loaded && s->net.shape.dim != dim)
        return rk_error(err, "player '%s': the afterstate network is for a board of side %d, not %d", p->spec,
                        s->net.shape.dim, dim);
    return 0;
}

static int value_choose(const Player *p, const Game *g, Move *out) {
    ValueState *s = p->state;
    if (!s->ready) {
        RkError err;
        if (aft_batch_init(&s->batch, &s->net, s->candidates, &err) != 0) return -1;
        s->ready = true;
    }
    aft_context(&s->ctx, g->ld, g->layout, g->kwg, player_leave_fn(p), p->leaves);
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, player_leave_fn(p), p->leaves);
    size_t k = movegen_top(&req, s->candidates, move_compare_equity, &s->top);
    if (k == 0) return -1;
    Position pos;
    position_from_game(&pos, g);
    Afterstate as[MOVEGEN_TOP_MAX];
    for (size_t i = 0; i < k; i++) {
        Board after;
        aft_build(g->ld, &g->board, &pos, &s->top.moves[i], &as[i], &after);
        aft_batch_set(&s->batch, &s->ctx, (int)i, &as[i], &after);
    }
    aft_net_forward(&s->net, &s->batch, (int)k);
    size_t best = 0;
    double best_value = -INFINITY;
    for (size_t i = 0; i < k; i++) {
        double v = as[i].terminal ? as[i].final_spread : aft_spread(&s->batch, (int)i);
        if (v > best_value) best = i, best_value = v;
    }
    *out = s->top.moves[best];
    return 0;
}

static void value_close(Player *p) {
    ValueState *s = p->state;
    if (s == NULL) return;
    if (s->ready) aft_batch_free(&s->batch);
    if (s->loaded) aft_net_free(&s->net);
    movelist_free(&s->top);
    free(s);
}

const PlayerKind PLAYER_KIND_VALUE = {
    .name = "value",
    .usage = "value:model=FILE.h5[,candidates=K]",
    .init = value_init,
    .option = value_option,
    .finish = value_finish,
    .check_board = value_check_board,
    .choose = value_choose,
    .close = value_close,
};
