/*
 * afterstate.h - the position right after a move, from the mover's side, and
 * what the afterstate network sees of it (docs/afterstate.md).
 *
 * An afterstate is what the mover knows once the move is on the board and
 * before they draw: the board with the move's tiles, the tiles they kept,
 * both scores (theirs with the move's score), the bag, the opponent's tile
 * count and the scoreless-turn count. The opponent is on turn. Nothing in it
 * needs a move generation, so the network that values it is cheap, and the
 * candidates of a decision are valued from one position each (the afterstate
 * player, search/value_player.c; the simulation's horizon later).
 *
 * One function builds it from the board before the move (with cross-sets)
 * and the move; the player calls it with the game's board, the trainer with
 * a shard's position and the move played in it (aft_from_position), so what
 * the network is trained on is what it is shown in play (test_afterstate
 * checks the two agree).
 *
 * Its features are a sparse list of (index, value) pairs over a fixed index
 * space (AftShape; each group below a range of it), which the network's
 * first layer sums rows of. They describe the board by what it offers, not
 * by which letter lies where: a network with a row per (square, letter)
 * memorised the games it was trained on (held-out log loss 0.506 against
 * the spread's 0.459 on 2.7M afterstates, docs/afterstate.md).
 *   square     every square with a tile (no letter)
 *   open       every empty square next to a tile
 *   occupancy  tiles in each 3x3 block of the board / 9
 *   cross      (premium of the square, direction, bucket of how many letters
 *              may go there): how many empty squares with a perpendicular
 *              word that way have it / 10
 *   anchor     (premium): empty squares next to a tile / 10
 *   hook       (premium, direction, letter): how many such empty squares
 *              allow that letter / 4
 *   kept       (tile, k) for k below the count of that tile the mover kept
 *   unseen     (tile, k) for k below the count of that tile unseen by the
 *              mover (the bag and the opponent's rack)
 *   bag, opp, zeros   one-hot: the bag's size bucket, the opponent's tiles,
 *              the scoreless-turn count
 *   dense      real values: the spread, the move's score, the kept tiles'
 *              leave value, tiles on the board, exchange and pass flags,
 *              tiles the move used, the bag, the unseen tiles
 * Scores enter divided by 100 points.
 */
#ifndef ROOKERY_NN_AFTERSTATE_H
#define ROOKERY_NN_AFTERSTATE_H
#include "core/board.h"
#include "core/movegen.h"
#include "core/position.h"

#define AFT_FEATURE_VERSION 1
#define AFT_CROSS_BUCKETS 6
#define AFT_PREMIUMS 5        /* plain, DL, TL, DW, TW */
#define AFT_BAG_BUCKETS 17
#define AFT_DENSE 9
#define AFT_MAX_ACTIVE 2048   /* an upper bound on the active features of one afterstate */

typedef struct Afterstate {
    Position pos;       /* the mover's view: board after the move, rack = the kept tiles, score_self
                         * with the move's score, bag before the draw, zeros after the move */
    int move_score;
    int kind;           /* MoveKind */
    int used;           /* tiles the move took from the rack */
    bool terminal;      /* the move ends the game (went out with an empty bag, or the sixth zero) */
    int final_spread;   /* if terminal: the mover's final spread (the unseen tiles are the
                         * opponent's rack then, so it is known) */
} Afterstate;

/* The index space of the features for a distribution and board. */
typedef struct AftShape {
    int dim, squares, letters; /* letters = L, the distribution's size without the blank */
    int unseen_max;            /* the largest count of one tile in the distribution */
    int blocks;                /* 3x3 blocks a side: (dim + 2) / 3 */
    int off_square, off_open, off_occupancy, off_cross, off_anchor, off_hook, off_kept, off_unseen, off_bag, off_opp, off_zeros, off_dense;
    int total;
} AftShape;
AftShape aft_shape(const LetterDist *ld, int dim);

/* What features need besides the afterstate: the tables, and the leaves the
 * kept tiles are valued with (NULL leave_value: worth 0). */
typedef struct AftContext {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    AftShape shape;
    LeaveValueFn leave_value;
    const void *leave_ctx;
} AftContext;
void aft_context(AftContext *c, const LetterDist *ld, const Layout *lay, const Kwg *kwg, LeaveValueFn leave_value,
                 const void *leave_ctx);

/* The afterstate of move m (legal on `before`, the board of position p with
 * its cross-sets) and, in *after, the board once m is on it (with its
 * cross-sets, for the features). */
void aft_build(const LetterDist *ld, const Board *before, const Position *p, const Move *m, Afterstate *as,
               Board *after);
/* The afterstate of packed move pm played from position p: p's board is
 * built (position_board) into *after, the move placed on it. Returns -1 if
 * pm does not fit p's board (a corrupt shard). */
int aft_from_position(const AftContext *c, const Position *p, const PackedMove *pm, Afterstate *as, Board *after);

/* The sparse features of afterstate as (whose board with the move on it is
 * `after`): n pairs into idx[] and val[] (room for AFT_MAX_ACTIVE), in
 * increasing index order. Returns n. */
int aft_features(const AftContext *c, const Afterstate *as, const Board *after, int32_t *idx, float *val);

/* The static evaluation the network corrects: the mover's equity lead E =
 * the spread after the move + the kept tiles' leave value (while the bag
 * has tiles), and the win model's P(win) of that lead with the opponent on
 * turn and the tiles not on the board left (eval/winprob.h,
 * WINPROB_DEFAULT). out[0] = logit P(win), out[1] = E / 100: the network's
 * two outputs are added to these, so a network whose last layer is zero
 * ranks moves by equity, and what it learns is a correction of it. */
void aft_prior(const AftContext *c, const Afterstate *as, float out[2]);
/* aft_features and aft_prior at once (what a batch needs), the leave value
 * and the unseen tiles looked up once. */
int aft_encode(const AftContext *c, const Afterstate *as, const Board *after, int32_t *idx, float *val,
               float prior[2]);

#endif
