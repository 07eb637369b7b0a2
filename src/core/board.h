/*
 * board.h - the board: tiles, and what move generation needs to know about
 * each empty square (cross-sets, cross-scores, anchors), kept up to date
 * incrementally as moves are placed.
 *
 * Everything is stored twice, once per orientation: orientation 0 is the
 * board as it is (across moves run along rows), orientation 1 is its
 * transpose (down moves run along its rows). So the generator only ever
 * works along rows: in orientation d, "line" L, position p is square
 * index L*dim + p, which is (row L, col p) for d = 0 and (row p, col L) for
 * d = 1.
 *
 *   cross[d][i]      letters that may be placed on square i by a move in
 *                    direction d (the perpendicular word they would form
 *                    must be a word); bit ml set = allowed. All letters if
 *                    the square has no perpendicular neighbours.
 *   cross_score[d][i] face value of the tiles of that perpendicular word
 *                    (blanks 0), and has_cross[d][i] whether there is one.
 *   anchor[i]        empty square next to a tile (or the start square on an
 *                    empty board); the same in both orientations.
 */
#ifndef ROOKERY_BOARD_H
#define ROOKERY_BOARD_H

#include "kwg.h"
#include "layout.h"
#include "letters.h"
#include "move.h"

typedef struct Board {
    int dim;
    const Layout *layout;
    const LetterDist *ld;
    const Kwg *kwg;
    uint64_t all_letters;                     /* mask of letters 1..size-1 */
    int tiles_on_board;
    /* bounding box of the tiles (rows and columns), valid if tiles_on_board > 0;
     * board_put only grows it (board_refresh recomputes it) */
    int bb_min_row, bb_max_row, bb_min_col, bb_max_col;
    uint8_t sq[2][RK_MAX_SQUARES];            /* 0 empty, ML | blank bit */
    uint8_t lm[2][RK_MAX_SQUARES];            /* letter multiplier */
    uint8_t wm[2][RK_MAX_SQUARES];            /* word multiplier */
    uint64_t cross[2][RK_MAX_SQUARES];
    int16_t cross_score[2][RK_MAX_SQUARES];
    uint8_t has_cross[2][RK_MAX_SQUARES];
    uint8_t anchor[2][RK_MAX_SQUARES];
} Board;

/* An empty board. The layout, distribution and lexicon must outlive it. */
void board_init(Board *b, const Layout *lay, const LetterDist *ld, const Kwg *kwg);
static inline uint8_t board_at(const Board *b, int row, int col) { return b->sq[0][row * b->dim + col]; }
static inline bool board_is_empty(const Board *b) { return b->tiles_on_board == 0; }
/* How far play has spread from the centre square (dim/2, dim/2): the
 * largest of the bounding box's distances from it, 0 on an empty board
 * (the openness "extent" of ../shared/spv-design.md, option A). */
int board_extent(const Board *b);
/* Puts a tile without updating cross-sets (for loading positions); call
 * board_refresh() afterwards. */
void board_put(Board *b, int row, int col, uint8_t tile);
/* Recomputes every cross-set, cross-score and anchor from the tiles. */
void board_refresh(Board *b);
/* Places a placement move's fresh tiles and updates the squares it affects.
 * The move must be legal on this board. */
void board_place_move(Board *b, const Move *m);
/* Score of a placement on this board (before it is placed). */
int board_score_move(const Board *b, const Move *m);
/* Copies the contiguous word through (row, col) in direction dir into out
 * (at most cap tiles); returns its length (0 if the square is empty). */
int board_word_at(const Board *b, int row, int col, int dir, uint8_t *out, int cap, int *start);

#endif
