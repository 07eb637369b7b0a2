/*
 * endgame_internal.h - what the exact solver (endgame.c) and the deepening
 * search (endgame_deepen.c) share: the solver's state, its table and its
 * negamax. Not part of the engine's interface; see endgame.h.
 */
#ifndef ROOKERY_ENDGAME_INTERNAL_H
#define ROOKERY_ENDGAME_INTERNAL_H

#include "endgame.h"

/* Above any spread change a game can have. */
#define EG_INF (INT32_C(1) << 24)

enum { TT_EMPTY = 0, TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct TtEntry {
    uint64_t key;
    int32_t value;
    uint16_t best; /* index of the best move in the position's sorted move list */
    uint8_t flag;
    uint8_t depth; /* plies the value looked ahead; DEPTH_PROVEN: to the game's end */
} TtEntry;

/* A search's remaining plies when it has no horizon (the exact solver), and a
 * table entry's depth when no line under it was cut by a horizon. */
#define DEPTH_PROVEN 255
/* A table entry's best move when the search did not take it from the
 * position's sorted list (one or two plies left). */
#define NO_MOVE UINT16_MAX

/* One level of the search: the position and its moves. Each is allocated on
 * its own, so growing the stack never moves a level in use. */
typedef struct Ply {
    Game game;
    MoveList moves;
} Ply;

typedef struct Solver {
    uint64_t nodes, max_nodes, table_hits;
    bool over_budget, out_of_memory, stop_seen;
    bool horizon; /* a value under the node being searched was cut by the depth limit */
    const atomic_bool *stop;
    double deadline;
    TtEntry *tt;
    uint64_t tt_mask;
    Ply **plies;
    int nplies, cap;
} Solver;

/* The checks of a position and configuration every search makes (one line in err). */
int eg_check_position(const Game *g, const EndgameConfig *cfg, RkError *err);
int eg_solver_open(Solver *s, const EndgameConfig *cfg, RkError *err);
void eg_solver_close(Solver *s);
/* Makes levels 0..d exist; false when out of memory. */
bool eg_ensure_ply(Solver *s, int d);
/* Opens the solver with the root g at level 0 and its sorted moves there. */
int eg_solver_root(Solver *s, const Game *g, const EndgameConfig *cfg, RkError *err);
/* The value of playing m from level d's position, replies searched with (alpha, beta) and
 * `depth` plies left (DEPTH_PROVEN: to the end), fail-soft. */
int32_t eg_move_value(Solver *s, int d, const Move *m, int32_t alpha, int32_t beta, int depth);
/* Negamax value of level d's position for its player on turn (see endgame.c). */
int32_t eg_search(Solver *s, int d, int32_t alpha, int32_t beta, int depth);
bool eg_stopped(const Solver *s);
/* The error of a stopped solver (out of memory -1, stop ENDGAME_STOPPED, budget ENDGAME_OVER_BUDGET). */
int eg_solver_error(const Solver *s, RkError *err);
/* The line the table holds from root after best, at most max_len plies (level 0 is scratch). */
void eg_principal_variation(Solver *s, const Game *root, const Move *best, int max_len, Move *pv, int *pv_len);

#endif
