/* static_player.c - the static player (player.h): the best static equity,
 * with the player's leaves and, if given, an SPV table's positional
 * adjustment; with explore=T, a move drawn from the STATIC_EXPLORE_TOP best
 * by softmax(equity / T points) instead (self-play data that shows the
 * afterstate network the moves a static player passes over). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/player_kind.h"
#include "search/sim.h"
#include "search/spec_option.h"

typedef struct StaticState {
    Spv *spv;  /* NULL = no positional adjustment */
    bool spv_lent;
    double spv_k;
    double explore; /* points; 0: the best move */
    int target_worlds; /* > 0: every decision also simulates the top list in this many worlds */
    int target_count;  /* the last decision's target: candidates and probabilities */
    PackedMove target_moves[SIM_MAX_CANDIDATES];
    float target_probs[SIM_MAX_CANDIDATES];
    MoveList top;
} StaticState;

#define STATIC_EXPLORE_TOP 16

static int static_init(Player *p, RkError *err) {
    StaticState *s = calloc(1, sizeof *s);
    if (s == NULL) return rk_error(err, "out of memory");
    s->spv_k = PLAYER_DEFAULT_SPV_K;
    movelist_init(&s->top);
    p->state = s;
    return 0;
}

static int static_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                         RkError *err) {
    (void)ld;
    StaticState *s = p->state;
    if (val == NULL) return -2;
    if (strcmp(key, "spv") == 0) {
        if (s->spv != NULL) return rk_error(err, "player '%s': spv given twice", spec);
        s->spv = malloc(sizeof *s->spv);
        if (s->spv == NULL) return rk_error(err, "out of memory");
        if (spv_load(s->spv, val, err) != 0) {
            free(s->spv);
            s->spv = NULL;
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "spv_k") == 0) {
        char *end;
        errno = 0;
        double k = strtod(val, &end);
        if (errno != 0 || *end != '\0' || end == val || !isfinite(k) || k <= 0 || k > 1e6)
            return rk_error(err, "player '%s': spv_k '%s' is not a number in (0, 1e6]", spec, val);
        s->spv_k = k;
        return 0;
    }
    if (strcmp(key, "explore") == 0) return spec_number(spec, key, val, 0, 1000, false, &s->explore, err);
    if (strcmp(key, "target_worlds") == 0) {
        double w;
        if (spec_number(spec, key, val, 1, 4096, false, &w, err) != 0) return -1;
        if (w != (int)w) return rk_error(err, "player '%s': target_worlds '%s' is not a whole number", spec, val);
        s->target_worlds = (int)w;
        return 0;
    }
    return -2;
}

static int static_check_board(const Player *p, int dim, RkError *err) {
    const StaticState *s = p->state;
    if (s->spv == NULL) return 0;
    char what[600];
    snprintf(what, sizeof what, "player '%s'", p->spec);
    return spv_check_board(s->spv, dim, what, err);
}

/* The STATIC_EXPLORE_TOP best moves of g into s->top; their count. */
static size_t top_moves(StaticState *s, const Player *p, const Game *g) {
    MoveGenRequest req;
    PositionalValues pv;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, player_leave_fn(p), p->leaves);
    req.positional = spv_prepare_for_game(s->spv, s->spv_k, g, &pv);
    return movegen_top(&req, STATIC_EXPLORE_TOP, move_compare_equity, &s->top);
}

/* target_worlds=W: the top list simulated in W common worlds (2 plies, every candidate in
 * every world), kept as softmax(mean / PLAYER_TARGET_TEMPERATURE) over the candidates: the
 * decision's training target (player_last_target), whose log-probabilities give back the
 * candidates' simulated values up to a constant. Seeded by the game's stream. */
static void simulate_target(StaticState *s, const Player *p, const Game *g) {
    s->target_count = 0;
    size_t k = s->top.count;
    if (k < 2 || game_over(g)) return;
    SimConfig cfg;
    sim_config_defaults(&cfg);
    cfg.candidates = (int)k;
    cfg.given = s->top.moves;
    cfg.given_count = (int)k;
    cfg.iterations = (uint64_t)s->target_worlds;
    cfg.stop_z = 0;
    cfg.alloc = SIM_ALLOC_UNIFORM;
    cfg.leave_value = player_leave_fn(p);
    cfg.leave_ctx = p->leaves;
    Rng r = g->rng;
    cfg.seed = rng_next(&r) ^ 0x7461726765747321u ^ ((uint64_t)g->turn << 48);
    SimResult res;
    RkError err;
    if (sim_run(g, &cfg, &res, &err) != 0) return;
    double top = -1e300, z = 0, w[SIM_MAX_CANDIDATES];
    for (int i = 0; i < res.count; i++) top = fmax(top, res.cand[i].mean);
    for (int i = 0; i < res.count; i++) z += w[i] = exp((res.cand[i].mean - top) / PLAYER_TARGET_TEMPERATURE);
    for (int i = 0; i < res.count; i++) {
        packed_from_move(&s->target_moves[i], &res.cand[i].move, &g->board);
        s->target_probs[i] = (float)(w[i] / z);
    }
    s->target_count = res.count;
}

/* explore=T: a move of the top list drawn by softmax(equity / T), from a stream seeded by the
 * game's own (the same game gives the same moves). */
static void explore_choice(StaticState *s, const Player *p, const Game *g, Move *out) {
    size_t k = s->top.count;
    if (k == 0) {
        MoveGenRequest req;
        PositionalValues pv;
        movegen_request_for_game(&req, g);
        klv_request_leaves(&req, player_leave_fn(p), p->leaves);
        req.positional = spv_prepare_for_game(s->spv, s->spv_k, g, &pv);
        movegen_best(&req, out, NULL);
        return;
    }
    double w[STATIC_EXPLORE_TOP], sum = 0, top = s->top.moves[0].equity;
    for (size_t i = 0; i < k; i++) sum += w[i] = exp((s->top.moves[i].equity - top) / (1000.0 * s->explore));
    Rng r = g->rng;
    Rng pick;
    rng_seed_stream(&pick, rng_next(&r), 0x6578706cu, (uint64_t)g->turn);
    double u = (double)(rng_next(&pick) >> 11) * 0x1.0p-53 * sum;
    size_t i = 0;
    while (i + 1 < k && u >= w[i]) u -= w[i++];
    *out = s->top.moves[i];
}

static int static_choose(const Player *p, const Game *g, Move *out) {
    StaticState *s = p->state;
    bool explore = s->explore > 0;
    if (explore || s->target_worlds > 0) top_moves(s, p, g);
    if (s->target_worlds > 0) simulate_target(s, p, g);
    if (explore)
        explore_choice(s, p, g, out);
    else
        player_static_choice(p, s->spv, s->spv_k, g, out);
    return 0;
}

static int static_last_target(const Player *p, PackedMove *moves, float *probs, int cap, int *count, double *spread) {
    const StaticState *s = p->state;
    if (s->target_worlds == 0) return -1;
    int n = s->target_count < cap ? s->target_count : cap;
    memcpy(moves, s->target_moves, (size_t)n * sizeof *moves);
    memcpy(probs, s->target_probs, (size_t)n * sizeof *probs);
    *count = n;
    *spread = NAN;
    return n > 0 ? 1 : -1;
}

static void static_close(Player *p) {
    StaticState *s = p->state;
    if (s == NULL) return;
    if (s->spv != NULL && !s->spv_lent) {
        spv_free(s->spv);
        free(s->spv);
    }
    movelist_free(&s->top);
    free(s);
}

const PlayerKind PLAYER_KIND_STATIC = {
    .name = "static",
    .usage = "static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K][,explore=T][,target_worlds=W]",
    .init = static_init,
    .option = static_option,
    .check_board = static_check_board,
    .choose = static_choose,
    .last_target = static_last_target,
    .close = static_close,
};

int player_open_static(Player *p, const char *name, Klv *leaves, Spv *spv, double spv_k, RkError *err) {
    memset(p, 0, sizeof *p);
    p->kind = &PLAYER_KIND_STATIC;
    if (static_init(p, err) != 0) {
        p->kind = NULL;
        return -1;
    }
    snprintf(p->spec, sizeof p->spec, "%s", name);
    StaticState *s = p->state;
    s->spv = spv;
    s->spv_lent = true;
    s->spv_k = spv_k;
    p->leaves = leaves;
    p->leaves_lent = true;
    p->leaves_named = true;
    return 0;
}
