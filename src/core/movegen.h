/*
 * movegen.h - move generation: every legal move, or only the best one.
 *
 * Placements are found with the GADDAG (Gordon's algorithm) along the rows
 * of each board orientation (see board.h). Each placement is generated once,
 * from the leftmost anchor it covers; a one-tile play that forms words both
 * ways is listed once, across if it forms an across word of 2+ letters. On an
 * empty board only across moves are generated (the board is symmetric about
 * its diagonal). These are the reference engine's counting conventions
 * (../shared/reference/README.md).
 *
 * Equity, in millipoints (the reference engine's static equity):
 *   bag not empty: 1000*score + leave(kept tiles) + opening penalty
 *   bag empty:     1000*score + 2000*opp_rack_score if the move goes out,
 *                  else 1000*score - 1000*(10 + 2*face value kept)
 *   exchange:      leave(kept tiles);  pass: below every other move.
 * plus, for a placement while the bag is not empty and a PositionalValues
 * table is given, the sum of its values over the move's fresh tiles (the
 * SPV adjustment, eval/spv.h). The shadow bounds add, per fresh square, the
 * largest value of any of the rack's tiles there, so they stay admissible.
 * Leave values come from a callback (NULL = every leave is worth 0); it is
 * asked once per sub-rack at the start of a call, never in the inner loop.
 *
 * The best-move path, when the lexicon has a word map (kwg.h, wordmap.h),
 * takes words from it span by span, best bound first (movegen_span.c).
 * Without one it bounds each anchor's best equity first ("shadow" bounds),
 * searches anchors from the highest bound without bingos down and stops
 * when no remaining such bound can beat the best move found; the anchors
 * left whose bound with a bingo still could are only searched for bingos,
 * span by span. Both return the same move: the first of the full list in
 * movegen_compare order. Neither stores moves.
 */
#ifndef ROOKERY_MOVEGEN_H
#define ROOKERY_MOVEGEN_H

#include "board.h"
#include "move.h"
#include "rack.h"

/* Leave value (millipoints) of the multiset `leave`; the empty leave must be
 * worth 0. */
typedef int32_t (*LeaveValueFn)(const void *ctx, const Rack *leave);
/* Optional companion of a LeaveValueFn: the values of every sub-multiset of
 * `rack` at once, out[i] for the sub-rack that keeps k_j of the j-th
 * distinct tile of rack in ML order (blank first), i = sum of k_j times the
 * product of (count + 1) of the tiles before it; out[0], the empty leave, is
 * 0. It must give exactly what the LeaveValueFn gives for each. */
typedef void (*LeaveTableFn)(const void *ctx, const Rack *rack, int32_t *out);
/* The value (millipoints) of what move m keeps of rack under leave_value
 * (NULL: 0); 0 when it keeps nothing. */
int32_t move_leave_value(LeaveValueFn leave_value, const void *ctx, const Rack *rack, const Move *m);

/* Positional values for one position (prepared by eval/spv.h), in
 * millipoints per fresh tile: v[(line * dim + pos) * buckets + bucket] is the
 * value of a tile put at position pos of line `line` of the move's
 * orientation (board.h) - for an across move that is square row*dim+col,
 * for a down move the transposed square col*dim+row (the .spv indexing of
 * ../shared/formats.md). bucket = min(face value, buckets - 1); a blank is 0.
 * Only the buckets of the rack's tiles are read. */
#define POS_MAX_BUCKETS 16
typedef struct PositionalValues {
    int buckets;
    int32_t v[RK_MAX_SQUARES * POS_MAX_BUCKETS];
} PositionalValues;

typedef struct MoveGenRequest {
    const Board *board;
    const Rack *rack;          /* the mover's tiles */
    int bag_count;             /* tiles in the bag */
    bool exchanges_allowed;    /* see game_can_exchange() */
    int opp_rack_score;        /* face value of the opponent's rack (empty-bag rules) */
    LeaveValueFn leave_value;  /* NULL: leaves are worth 0 */
    const void *leave_ctx;
    LeaveTableFn leave_table;  /* NULL, or leave_value's companion (faster) */
    const PositionalValues *positional; /* NULL: no positional adjustment */
} MoveGenRequest;

typedef struct MoveGenStats {
    /* the graph path: anchors searched, and cut by their bound */
    uint64_t anchors_searched, anchors_pruned;
    /* the word-map path: spans whose bound reached the best move so far,
     * spans taken from the heap (a span is taken once per candidate whose
     * words were looked up), and word-map questions (those the presence
     * filter answers included) */
    uint64_t spans_pushed, spans_searched, wordmap_lookups;
} MoveGenStats;

/* Every legal move: placements, exchanges (if allowed) and one pass, with
 * score and equity, appended to out (which is cleared first). Returns the
 * number of placements. */
size_t movegen_all(const MoveGenRequest *req, MoveList *out);
/* The best move by equity (ties: the first in movegen_compare order). Writes
 * a pass if nothing else is legal. stats may be NULL. */
void movegen_best(const MoveGenRequest *req, Move *best, MoveGenStats *stats);
/* Whether some legal placement or exchange has equity above floor (the
 * best move's equity > floor, decided without finding the best move: the
 * best-move search starts from the floor, so everything below it is
 * pruned, and stops at the first move above it). */
bool movegen_beats(const MoveGenRequest *req, int32_t floor);
/* An order of moves, best first (negative: a before b). */
typedef int (*MoveCompareFn)(const Move *a, const Move *b);
/* The k best moves in order cmp (movegen_compare, or move_compare_equity:
 * movelist_sort_by_equity's order), best first, into out (cleared first):
 * exactly the first k of the full list (pass included) sorted by cmp,
 * found with the best-move path's pruning at the k-th instead of
 * generating every move. Returns how many (fewer than k only when there
 * are fewer moves). Up to MOVEGEN_TOP_MAX the heap is on the stack. */
#define MOVEGEN_TOP_MAX 64
size_t movegen_top(const MoveGenRequest *req, int k, MoveCompareFn cmp, MoveList *out);
/* The order used to rank moves: higher equity first, then higher score, then
 * placements before exchanges before passes, then a canonical tie-break. A
 * full list sorted with it has movegen_best()'s move first. */
int movegen_compare(const Move *a, const Move *b);
/* The equity movegen gives move m (legal for req's rack on req's board),
 * computed for this one move: what movegen_all writes in its equity field
 * (without the positional adjustment: req->positional is not read). */
int32_t movegen_move_equity(const MoveGenRequest *req, const Move *m);
/* Whether m is one of the legal moves of the player on turn in g (movegen_all
 * without leaves); if so *m becomes that move, with its score. */
struct Game;
bool movegen_find(const struct Game *g, Move *m);
/* Request for the player on turn in a game. */
struct Game;
void movegen_request_for_game(MoveGenRequest *req, const struct Game *g);

#endif
