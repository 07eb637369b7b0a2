/*
 * policy.h - the policy's decomposition of a move into choices, and the
 * legal-move masks for each choice (docs/features.md, "Policy").
 *
 * A move is chosen in steps:
 *   1. the sub-move: for a placement (first fresh square, direction, n fresh
 *      tiles) - squares*2*7 choices - or "exchange n tiles" (7 choices) or
 *      "pass" (1);
 *   2. then its tiles, one step each: for a placement the tile put on the
 *      k-th fresh square (token l-1 for letter l, L+l-1 for a blank played
 *      as l); for an exchange the k-th tile thrown in ML order (token l-1
 *      for letter l, 2L for the blank).
 * The count of tiles is part of the sub-move, so no end marker is needed.
 * Every step is masked to the choices that lead to at least one legal move;
 * the legal set comes from move generation.
 */
#ifndef ROOKERY_NN_POLICY_H
#define ROOKERY_NN_POLICY_H
#include "core/movegen.h"
#include "core/position.h"

typedef struct NnPolicyShape {
    int dim, squares, letters;
    int placements;   /* squares * 2 * RK_RACK_SIZE */
    int submoves;     /* placements + RK_RACK_SIZE exchanges + 1 pass */
    int tokens;       /* 2L + 1 */
} NnPolicyShape;
NnPolicyShape nn_policy_shape(const LetterDist *ld, int dim);

int nn_submove_index(const NnPolicyShape *s, const PackedMove *pm);
/* Token of step k (0 <= k < pm->n). */
int nn_step_token(const NnPolicyShape *s, const PackedMove *pm, int k);
/* The square (row*dim+col) of step k of a placement on board b, -1 for an
 * exchange. */
int nn_step_square(const PackedMove *pm, int k, const Board *b);

/* A position's legal moves as choice sequences, sorted by (sub-move,
 * tokens). */
typedef struct NnLegalMove {
    int32_t submove;
    int32_t score;               /* points */
    float prior;                 /* what the score prior values it by: its score, or its static
                                  * equity in points (nn_legal_build's equity_prior) */
    uint8_t tokens[RK_RACK_SIZE];
    PackedMove pm;
} NnLegalMove;
typedef struct NnLegal {
    NnLegalMove *m;
    int n, cap;
    /* nn_legal_build's scratch: the unsorted list and one counter a sub-move */
    NnLegalMove *unsorted;
    int *start;
    int start_cap;
} NnLegal;
void nn_legal_init(NnLegal *lg);
void nn_legal_free(NnLegal *lg);
/* From every legal move of the position (movegen_all's list on board b).
 * equity_prior: each move's prior value is its equity (the list's, in
 * points; a pass 0), else its score. */
void nn_legal_build(NnLegal *lg, const NnPolicyShape *s, const MoveList *all, const Board *b, bool equity_prior);
/* mask[submoves]: 1 where some legal move has that sub-move. */
void nn_legal_submove_mask(const NnLegal *lg, const NnPolicyShape *s, uint8_t *mask);
/* mask[tokens]: 1 for each token t such that a legal move has sub-move
 * `submove` and tokens prefix[0..k) then t. If best is not NULL, best[t]
 * is the highest prior value (score or equity) of those moves (0 where t
 * is not allowed). Returns how many tokens are allowed. */
int nn_legal_step_mask(const NnLegal *lg, const NnPolicyShape *s, int submove, const uint8_t *prefix, int k,
                       uint8_t *mask, float *best);
/* best[submoves]: the highest prior value (score or equity) of the legal
 * moves of each sub-move (0 where there is none). */
void nn_legal_submove_best(const NnLegal *lg, const NnPolicyShape *s, float *best);
/* Index of pm in lg, or -1 if it is not legal. */
int nn_legal_find(const NnLegal *lg, const NnPolicyShape *s, const PackedMove *pm);

#endif
