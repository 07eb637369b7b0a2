/*
 * forward.h - running the network on a batch of positions: the trunk once per
 * position, then the heads (value, sub-moves, per-step tiles, hidden leave)
 * as a caller needs them.
 *
 * An NnBatch owns the activations of up to `cap` positions, and is reused
 * across calls (no allocation per call). Each position also keeps its board
 * (with cross-sets) and its legal moves, from which the policy's masks come.
 * A model is read-only here: threads may share one model, each with its own
 * NnBatch.
 *
 * BATCH INVARIANCE: every BLAS call of a forward pass covers one position
 * (the convolutions go a board at a time, the dense layers through
 * nn_dense_forward_each), so position i's outputs are bit for bit the same
 * whatever else is in the batch and however large it is. Searches that
 * batch leaves (search/mcgs.c) rely on it.
 *
 * Usage:
 *   nn_batch_set(b, i, pos) for i < n  (features, board, legal moves)
 *   nn_forward_trunk(m, b, n)
 *   nn_forward_value(m, b, n)          -> nn_value_win(b, i), nn_value_spread(b, i)
 *   nn_forward_submoves(m, b, n)       -> b->sub (masked log-probabilities)
 *   nn_policy_all(m, b, i, logp)       -> log P of each legal move of position i
 *   nn_hidden_sample(m, b, i, ...)     -> the opponent's leave, t tiles a step
 */
#ifndef ROOKERY_NN_FORWARD_H
#define ROOKERY_NN_FORWARD_H
#include "core/rng.h"
#include "model.h"

/* Rows of the per-step heads (policy tiles or hidden-leave chunks). */
typedef struct NnRows {
    int cap, n, in_dim, out_dim;
    float *in, *hid, *out;   /* [n, in_dim], [n, head_hidden], [n, out_dim] */
    uint8_t *mask;           /* [n, out_dim] */
    float *prior;            /* policy rows: [n, out_dim] best score through each token / scale */
    int *pos;                /* the position (batch index) of each row */
    int *square;             /* policy rows: the square of the step (-1: none) */
    int *target;             /* training: the target output */
    float *weight;           /* training: the row's weight in the loss */
} NnRows;

typedef struct NnBatch {
    int cap;
    const NnFeatureContext *fc;
    float *planes, *scalars;         /* [cap, sq, P], [cap, S] */
    float *act;                      /* trunk outputs: (blocks+1) x [cap, sq, C]; layer 0 = stem */
    float *saved, *col;              /* residual blocks' saved values, im2col scratch */
    float *sbias;                    /* [cap, C] the scalars' per-channel bias of the stem */
    float *pooled;                   /* [cap, C] */
    float *pooled_in, *emb;          /* [cap, C + S] ([avgpool(T), scalars]), [cap, E] */
    float *vh, *vout;                /* [cap, Hh], [cap, 4] */
    float *sub_sq, *sub, *sub_glob;  /* [cap*sq, 14], [cap, submoves], [cap, 8] */
    uint8_t *sub_mask;               /* [cap, submoves] legal sub-moves */
    float *sub_prior;                /* [cap, submoves] best score of each legal sub-move / scale */
    Position *pos;
    Board *board;
    NnLegal *legal;
    MoveList scratch;
    NnRows steps, hidden;
} NnBatch;

/* Fails if the model's prior needs leaves (arch.prior_equity) and fc has
 * none. */
int nn_batch_init(NnBatch *b, const NnModel *m, const NnFeatureContext *fc, int cap, RkError *err);
void nn_batch_free(NnBatch *b);
/* Position i of the batch: its features, board, legal moves, sub-move mask
 * and score prior. */
void nn_batch_set(NnBatch *b, const NnModel *m, int i, const Position *p);
/* nn_batch_set, and b->scratch keeps position i's moves valued by static
 * equity with eq (nn_features_equity) until the next set. */
void nn_batch_set_equity(NnBatch *b, const NnModel *m, int i, const Position *p, const NnMoveEquity *eq);
/* The trunk and the embedding of positions [0, n). */
void nn_forward_trunk(const NnModel *m, NnBatch *b, int n);
/* Value head: b->vout[i*4 + 0..2] win/draw/loss logits, [3] spread / 100. */
void nn_forward_value(const NnModel *m, NnBatch *b, int n);
/* The win probability (win + draw/2) and expected final spread (points) of
 * position i, for the player on turn (after nn_forward_value). */
double nn_value_win(const NnBatch *b, int i);
double nn_value_spread(const NnBatch *b, int i);
/* Sub-move logits b->sub (raw; the mask is b->sub_mask). */
void nn_forward_submoves(const NnModel *m, NnBatch *b, int n);

/* Step-head inputs of a row: position i, the step's square (-1 for an
 * exchange), k, the sub-move, and the tokens so far. */
void nn_step_row_input(const NnModel *m, const NnBatch *b, int i, const PackedMove *pm, int k, float *in);
/* Appends the step-head row of step k of move pm (sub-move `sub`, tokens
 * prefix[0..k) so far) of position i to b->steps: its position, square,
 * input, mask of legal continuations and score prior. Returns the row. */
int nn_step_row_add(const NnModel *m, NnBatch *b, int i, const PackedMove *pm, int sub, const uint8_t *prefix,
                    int k);
/* Runs the step (or hidden) head over rows [0, r->n): r->hid and r->out;
 * with prior_weight != 0, r->out += prior_weight * r->prior (policy rows). */
void nn_rows_forward(const NnModel *m, const NnDense *hidden, const NnDense *out, NnRows *r, float prior_weight);
/* The learned weights of the score prior: [0] sub-moves, [1] steps. */
static inline const float *nn_score_prior(const NnModel *m) { return nnp_w(&m->params, m->score_prior); }

/* log P of every legal move of position i (b->legal[i] order) into logp,
 * after nn_forward_submoves. Every distinct step prefix is one row of one
 * batched step-head pass. Returns the number of legal moves. */
int nn_policy_all(const NnModel *m, NnBatch *b, int i, double *logp);
/* The k most probable legal moves of position i (after nn_forward_submoves):
 * their indices in b->legal[i] into top[0..) and their log P, best first
 * (ties: the earlier in the legal list, as nn_policy_all would rank them).
 * Exact, but it only runs the step head for the moves of the most probable
 * sub-moves: a move's log P is at most its sub-move's, so once the k-th
 * best found beats every sub-move left, the rest cannot enter. Returns
 * min(k, legal moves). */
int nn_policy_top(const NnModel *m, NnBatch *b, int i, int k, int *top, double *top_logp);
/* log P of one move of position i (after nn_forward_submoves): its
 * sub-move and its steps only; -INFINITY if it is not legal. */
double nn_policy_logprob(const NnModel *m, NnBatch *b, int i, const PackedMove *pm);
/* Samples a legal move of position i from P (after nn_forward_submoves). */
int nn_policy_sample(const NnModel *m, NnBatch *b, int i, Rng *rng, PackedMove *out);

/* H: samples a leave of `size` tiles for the opponent of position i from
 * the unseen pool, t tiles a step (after nn_forward_trunk). Returns 0, or
 * -1 if the pool holds fewer than size tiles. */
int nn_hidden_sample(const NnModel *m, NnBatch *b, int i, int size, Rng *rng, Rack *leave);
/* log P(leave) under H for the opponent of position i (after
 * nn_forward_trunk); -INFINITY if the leave is not in the unseen pool. */
double nn_hidden_logprob(const NnModel *m, NnBatch *b, int i, const Rack *leave);
/* Appends to b->hidden one row per step of drawing `leave` for the opponent
 * of position i (t tiles a step in ML order): its position, input, mask and
 * target output. Returns the rows added, or -1 (none added) if the leave
 * does not fit the unseen pool. */
int nn_hidden_rows_add(const NnModel *m, NnBatch *b, int i, const Rack *leave);
/* H inputs for position i: tiles drawn so far, the leave size. */
void nn_hidden_row_input(const NnModel *m, const NnBatch *b, int i, const Rack *drawn, int size, float *in);
/* The mask of the next chunk. A leave is drawn in ML order (blank first),
 * so each multiset is one sequence: a chunk's tiles are >= `last` (the
 * last tile drawn, 0 at first) and in order, come from `pool` (the unseen
 * tiles not drawn yet), and leave enough tiles >= their largest for the
 * `left` - t tiles still to draw after them. Returns how many are allowed.
 * last_drawn is how many copies of `last` are drawn already. With prior !=
 * NULL also writes each output's logit offset: with arch.h_pool_prior the
 * log of the weight a uniform draw of the whole leave from the unseen tiles
 * gives to the completions that start with that chunk (so that a net of
 * zeros draws exactly the uniform leave), else 0; 0 where the mask is 0. */
int nn_hidden_mask(const NnModel *m, const Rack *pool, int left, int last, int last_drawn, uint8_t *mask,
                   float *prior);
/* The weight of the offsets in H's forward pass: 1 with arch.h_pool_prior, else 0. */
static inline float nn_hidden_prior_weight(const NnModel *m) { return m->arch.h_pool_prior ? 1.0f : 0.0f; }
/* The chunk index of tiles (a) or (a, b) (for t = 2 with one tile left, a = b). */
static inline int nn_hidden_index(const NnModel *m, int a, int b) {
    return m->arch.h_tiles == 1 ? a : a * (m->fs.letters + 1) + b;
}

/* Rows helpers (growable). */
void nn_rows_init(NnRows *r, int in_dim, int out_dim, int hidden);
void nn_rows_free(NnRows *r);
/* Makes room for `more` rows; returns the index of the first new one. */
int nn_rows_add(NnRows *r, int more, int hidden);

#endif
