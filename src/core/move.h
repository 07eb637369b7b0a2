/*
 * move.h - a move (placement, exchange, pass), its notation, and growable
 * move lists.
 *
 * A placement covers `len` consecutive squares from (row, col) in direction
 * dir (0 across, 1 down). tiles[i] is the tile placed on the i-th square, or
 * MOVE_PLAYED_THROUGH if that square already holds a tile. Blanks are
 * ML | RK_BLANK_BIT.  An exchange lists the `len` tiles thrown back in
 * tiles[] (ML, 0 = blank).
 *
 * Notation (../shared/formats.md): across "8D QUARTZ" (row number, column
 * letter), down "D8 QUARTZ"; tiles already on the board in parentheses
 * "K9 T(A)EL"; blanks in lowercase. Exchanges are written "(exch XYZ)" with
 * the thrown tiles in ML order, blank '?' first, and a pass "pass" (the
 * reference engine's spelling).
 */
#ifndef ROOKERY_MOVE_H
#define ROOKERY_MOVE_H

#include "common.h"
#include "letters.h"
#include "rack.h"

#define MOVE_PLAYED_THROUGH 0
#define DIR_ACROSS 0
#define DIR_DOWN 1

typedef enum { MOVE_PLACE = 0, MOVE_EXCHANGE = 1, MOVE_PASS = 2 } MoveKind;

typedef struct Move {
    uint8_t kind;    /* MoveKind */
    uint8_t dir;     /* DIR_ACROSS or DIR_DOWN */
    uint8_t row, col;/* first square, board coordinates */
    uint8_t len;     /* squares covered (placement) or tiles thrown (exchange) */
    uint8_t ntiles;  /* tiles taken from the rack */
    uint8_t tiles[RK_MAX_DIM];
    int32_t score;   /* points */
    int32_t equity;  /* millipoints */
} Move;

struct Board;
/* Writes the move in the notation above. The board is needed to name the
 * tiles played through (it must be the board before the move is played). */
void move_to_string(const Move *m, const struct Board *b, const LetterDist *ld, char *buf, size_t cap);
/* Parses notation against the board (before the move). Checks the squares
 * (tiles in parentheses must match the board, fresh tiles must land on empty
 * squares) but not the words or the rack. Score/equity are left 0. */
int move_parse(Move *m, const char *s, const struct Board *b, const LetterDist *ld, RkError *err);
/* The tiles of `rack` that move m does not use (a blank played as a letter
 * uses the rack's blank). */
void move_kept_tiles(const Rack *rack, const Move *m, Rack *kept);
/* Puts an exchange's tiles in ascending order, the order every notation
 * writes them in. */
void move_exchange_sort(Move *m);
/* The rack tiles move m takes: a placement's fresh tiles (a blank played as
 * a letter is the blank, 0), an exchange's tiles; none for a pass. */
void move_rack_tiles(const Move *m, Rack *taken);
/* Same set of (square, tile) pairs, or same exchange multiset, or both pass. */
bool move_same(const Move *a, const Move *b);

typedef struct MoveList {
    Move *moves;
    size_t count, cap;
} MoveList;

void movelist_init(MoveList *ml);
void movelist_free(MoveList *ml);
static inline void movelist_clear(MoveList *ml) { ml->count = 0; }
/* Returns a slot at the end (grows the list; aborts on out-of-memory). */
Move *movelist_push(MoveList *ml);
/* Sorts by score (then equity) descending, ties in a stable canonical order. */
void movelist_sort_by_score(MoveList *ml);
void movelist_sort_by_equity(MoveList *ml);
/* movelist_sort_by_equity's order: higher equity, then higher score, then
 * the canonical order. */
int move_compare_equity(const Move *a, const Move *b);

#endif
