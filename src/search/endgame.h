/*
 * endgame.h - the exact endgame solver: every root move's value when the bag
 * is empty.
 *
 * With an empty bag the tiles a player cannot see are exactly the
 * opponent's rack, so Scrabble is a game of perfect information and a
 * position has an exact value under optimal play by both sides:
 *
 *   value = (final spread - current spread), from the view of the player on
 *           turn, in points.
 *
 * The rules are game.h's, applied by game_play() on copies of the position:
 * going out gains twice the opponent's rack; six consecutive scoreless turns
 * end the game and each side loses its own rack's face value; no exchanges
 * (the bag is empty), so the moves are the placements of movegen_all() and
 * one pass. Leave values play no part (movegen_request_for_game without a
 * leave callback). The value depends only on the board, both racks, who is
 * on turn and the count of scoreless turns, not on the scores.
 *
 * SEARCH. Every root move is searched with a full window, so each root
 * move's value is exact (not only the best one's). Below the root: negamax
 * with alpha-beta, moves tried in movegen_compare order (the static endgame
 * equity puts going out first), the table's best move first. A move that
 * goes out is valued without playing it (score + twice the opponent's
 * rack: what game_play would give). The optional transposition table
 * (cfg->table_bits > 0) stores, per position, its value as exact or as a
 * lower/upper bound and the index of its best move; it is allocated for one
 * call and freed at its end. Positions are told apart by a 64-bit hash of
 * the board, racks, side on turn and scoreless count (a collision, odds
 * about n^2/2^65 for n stored positions, is the one way a value could be
 * wrong).
 *
 * BUDGET. A search that visits more than cfg->max_nodes positions stops
 * with an error; it never returns a value it has not proved.
 *
 * No global state: the solver's stack, move lists and table live in a
 * context of each call, and the game is only read.
 */
#ifndef ROOKERY_ENDGAME_H
#define ROOKERY_ENDGAME_H

#include <stdatomic.h>

#include "core/game.h"
#include "core/move.h"

#define ENDGAME_DEFAULT_MAX_NODES UINT64_C(100000000)
#define ENDGAME_DEFAULT_TABLE_BITS 20
#define ENDGAME_MAX_TABLE_BITS 30
/* The return code of a search stopped by its node budget (err is set too). */
#define ENDGAME_OVER_BUDGET (-2)
/* The return code of a search ended by cfg->stop (err is set too). */
#define ENDGAME_STOPPED (-3)
/* The deepest search endgame_search makes (plies). An endgame with both
 * racks full lasts at most 14 placements and the passes between them. */
#define ENDGAME_MAX_DEPTH 64
/* The most threads endgame_search runs. */
#define ENDGAME_MAX_THREADS 64
/* The longest principal variation kept (plies). */
#define ENDGAME_PV_MAX 32

typedef struct EndgameConfig {
    uint64_t max_nodes; /* positions searched at most (>= 1); more is an error */
    int table_bits;     /* transposition table of 2^table_bits entries (16 bytes
                         * each); 0 = none; at most ENDGAME_MAX_TABLE_BITS */
    const atomic_bool *stop; /* NULL, or set by another thread to end the search
                              * (ENDGAME_STOPPED: the root moves solved so far
                              * keep their exact values, EndgameResult.solved) */
    double deadline;         /* rk_seconds() at which to stop the same way; 0 = none */
    int max_depth;           /* endgame_search only: plies at most; 0 = until exact */
    int threads;             /* endgame_search only: 1..ENDGAME_MAX_THREADS threads, each with
                              * its own table of 2^table_bits entries and its own node budget
                              * (see endgame_deepen.c); the same answer for the same count */
} EndgameConfig;

/* ENDGAME_DEFAULT_MAX_NODES, ENDGAME_DEFAULT_TABLE_BITS (16 MiB), no stop,
 * no deadline, no depth limit, one thread. */
void endgame_config_defaults(EndgameConfig *c);

typedef struct EndgameResult {
    int count;         /* legal root moves (placements and the pass) */
    Move *moves;       /* [count], in movegen_compare order (static endgame equity) */
    int32_t *values;   /* [count], the exact value of playing moves[i] */
    int best;          /* index of the best value (the first in move order if tied) */
    int32_t best_value;
    uint64_t nodes;    /* positions searched (moves generated or found in the table) */
    uint64_t table_hits; /* of those, answered by the table (a value or a cutoff) */
    double seconds;    /* wall-clock time of the solve */
    int cap;           /* allocated entries of moves and values */
    int solved;        /* root moves with exact values: all of them, or the first
                        * `solved` in move order when the search was stopped or ran
                        * out of budget (best/best_value are then over those) */
    Move pv[ENDGAME_PV_MAX]; /* the best move, then the replies the table holds as best
                              * (each a move of the position before it); pv_len plies */
    int pv_len;
} EndgameResult;

void endgame_result_init(EndgameResult *r);
void endgame_result_free(EndgameResult *r);
/* Index of the root move that is the same as m (move_same), or -1. */
int endgame_result_find(const EndgameResult *r, const Move *m);

/* Solves g for the player on turn. Errors (one line in err): the bag is not
 * empty, the game is over, a rack is empty, the configuration is out of
 * range, out of memory (-1 returned); the node budget is exceeded
 * (ENDGAME_OVER_BUDGET returned) or cfg->stop was set (ENDGAME_STOPPED):
 * then out->nodes says how far it got and out->solved how many root moves
 * have exact values (best/best_value among them when solved > 0). */
int endgame_solve(const Game *g, const EndgameConfig *cfg, EndgameResult *out, RkError *err);

/* The exact value of playing m in g, then optimal play; m must be one of
 * g's legal moves (else an error naming it). nodes may be NULL. Same errors
 * as endgame_solve. */
int endgame_move_value(const Game *g, const Move *m, const EndgameConfig *cfg, int32_t *value,
                       uint64_t *nodes, RkError *err);

/* ------------------------------------------------ iterative deepening
 *
 * endgame_search answers at any moment: it searches every root move to
 * depth 1, 2, 3... plies (negamax, alpha-beta, the table, principal
 * variation search at the root with the last depth's best move first and
 * the others in the order of their last values). A line cut by the depth
 * limit is valued by the spread it has made (the tiles still on the racks
 * count for neither side); going out and six scoreless turns are valued
 * exactly. A depth in which no line was cut is exact: the search ends there,
 * its best move and value proved (the value endgame_solve gives the best
 * root move). Stopped (cfg->stop, cfg->deadline, cfg->max_nodes or
 * cfg->max_depth), it answers with the deepest completed depth's best move,
 * or with a move that beat that one in the depth under way (then `depth` is
 * that depth and `value` the move's value there). Depth 1 cannot be stopped
 * (it scores each root move without searching below it), and the stop is
 * seen within 64 positions. */

typedef struct EndgameSearchResult {
    Move best;           /* the answer */
    int32_t value;       /* its value at `depth` (exact when `exact`) */
    int depth;           /* the depth of `value` (plies; see above) */
    bool exact;          /* the search completed without a horizon: value is proved */
    Move pv[ENDGAME_PV_MAX]; /* best, then the replies the table holds as best */
    int pv_len;
    int root_moves;
    uint64_t nodes, table_hits;
    double seconds;
} EndgameSearchResult;

/* Called after every completed depth with the result so far. */
typedef void (*EndgameDepthFn)(void *ctx, const EndgameSearchResult *r);

/* Searches g for the player on turn until exact or stopped (see above);
 * on_depth may be NULL. Errors (one line in err, -1): as endgame_solve's
 * position errors, a depth out of range, out of memory. A stop or an
 * exhausted node budget is not an error: the answer is the deepest one. */
int endgame_search(const Game *g, const EndgameConfig *cfg, EndgameSearchResult *out, EndgameDepthFn on_depth,
                   void *ctx, RkError *err);

/* The value of g for its player on turn, searched as endgame_search
 * values it (depth 1, 2... plies until exact, or cfg->max_depth), without
 * a list of root moves: for callers that need values, not moves (the
 * pre-endgame's lines). *exact when the value is proved; *nodes (may be
 * NULL) the positions searched. Errors as endgame_solve's (the position,
 * the configuration, out of memory: -1); a stop (cfg->stop, deadline, node
 * budget) returns ENDGAME_STOPPED or ENDGAME_OVER_BUDGET with err set and
 * *value the deepest completed depth's (0 if none). */
int endgame_value(const Game *g, const EndgameConfig *cfg, int32_t *value, bool *exact, uint64_t *nodes,
                  RkError *err);

/* The value of g for its player on turn one ply from the horizon, what
 * endgame_search finds at depth 1: the best placement's score (with twice
 * the opponent's rack if it goes out), or 0 (the pass) if that is more,
 * from one best-move search. g's bag must be empty and fewer than five
 * scoreless turns behind (so only going out ends the game in one ply). */
int32_t endgame_horizon_value(const Game *g);

/* An estimate of g's value two plies deep (g's bag empty, fewer than four
 * scoreless turns behind): the best, over the `width` moves of highest
 * value at the horizon (score, plus twice the opponent's rack when going
 * out), of the move's spread less the opponent's endgame_horizon_value
 * after it. What endgame_search finds at depth 2 when the best move is
 * among those (the others are not searched). */
int32_t endgame_selective_two(const Game *g, int width);

/* The table's key of a position: a hash of what its value depends on (the
 * board, both racks, the side on turn and the scoreless count), not of the
 * scores. Exposed for tests. */
uint64_t endgame_position_key(const Game *g);

#endif
