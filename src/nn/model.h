/*
 * model.h - the P/V/H network: one convolutional trunk over the board, a
 * value head, a decomposed policy head and a hidden-leave head
 * (docs/features.md describes inputs and outputs; docs/nn.md the design).
 *
 *   planes [sq, P] --conv3x3--> + scalars --dense--> (added per channel) -> relu
 *        -> `blocks` residual blocks -> T [sq, C]            (the trunk)
 *   E = relu(dense([avgpool(T), scalars]))  [embed]           (the embedding)
 *   V:  relu(dense(E)) -> 4: win/draw/loss logits and the final spread / 100
 *   P1: sub-move logits: per square dense(T[sq]) -> 14 (2 directions x 1..7
 *       tiles), and dense(E) -> 8 (exchange 1..7 tiles, pass)
 *   P2: the tile of each step: relu(dense([E, T[square of the step], step
 *       context])) -> tokens (policy.h); the trunk runs once per position
 *       and this cheap head once per step (the plan's requerying
 *       optimisation)
 *   Score prior: the sub-move logits add w0 * (best score of its legal
 *       moves) / NN_SCORE_SCALE and each step's logits w1 * (best score of
 *       the legal moves through that token) / NN_SCORE_SCALE; w0, w1 are
 *       learned (start 5: half a logit a point). With arch.prior_equity the
 *       "score" is the move's static equity in points (score + leave value,
 *       movegen's empty-bag terms; a pass 0), so P starts from the static
 *       ranking and learns corrections to it
 *   H:  the opponent's leave, t = h_tiles tiles a step, in ML order:
 *       relu(dense([E, tiles drawn so far, leave size, tiles left])) ->
 *       (L+1)^t logits, masked by the unseen pool. With arch.h_pool_prior
 *       each logit adds the log of the number of ways a uniform draw from
 *       the unseen pool makes that chunk the next one (nn_hidden_mask), so
 *       a net that outputs zeros samples exactly the uniform draw, and the
 *       net learns only how the opponent's leave departs from it
 *
 * The model owns its parameters (params.h). NnWork holds the activations of
 * one forward pass over a batch, and is reused across calls; a model is
 * read-only during inference, so threads may share it, each with its own
 * NnWork.
 */
#ifndef ROOKERY_NN_MODEL_H
#define ROOKERY_NN_MODEL_H
#include "features.h"
#include "layers.h"
#include "policy.h"

typedef struct NnArch {
    int channels;     /* C */
    int blocks;
    int embed;        /* E */
    int head_hidden;  /* hidden units of the V, P2 and H heads */
    int h_tiles;      /* t: 1 or 2 */
    int prior_equity; /* 1: the score prior values a move by its static equity (score + leave), not
                       * its score; the model then needs leaves wherever it runs (NnFeatureContext) */
    int h_pool_prior; /* 1: H's logits add the log of the uniform draw's ways (above); models
                       * written before it have none (0) */
    int feature_version; /* what the model reads (nn/features.h); 0: the default version */
} NnArch;
/* Checks ranges (channels 1..512, blocks 0..40, embed and head_hidden
 * 1..4096, h_tiles 1..2, prior_equity and h_pool_prior 0..1, feature_version
 * 0 or NN_FEATURE_VERSION_MIN..NN_FEATURE_VERSION). */
int nn_arch_check(const NnArch *a, RkError *err);

#define NN_STEP_CONTEXT(L) (2 * RK_RACK_SIZE + 3 + (L) + 1)
#define NN_H_CONTEXT(L) ((L) + 1 + 2 * (RK_RACK_SIZE + 1))

typedef struct NnModel {
    NnArch arch;
    NnFeatureShape fs;
    NnPolicyShape ps;
    int h_outputs;              /* (L+1)^t */
    NnParams params;
    NnConv3 stem;
    NnDense scalar_in;
    NnResBlock *block;
    NnDense embed;
    NnDense v_hidden, v_out;
    NnDense sub_sq, sub_glob;
    NnDense step_hidden, step_out;
    NnDense h_hidden, h_out;
    int score_prior;            /* [2]: weights of the score prior of the sub-move and step logits */
    int64_t train_step;         /* Adam steps taken */
    uint32_t generation;        /* the generation that trained it */
} NnModel;

/* Declares and allocates the parameters, initialised from seed. */
int nn_model_init(NnModel *m, const NnArch *arch, const LetterDist *ld, int dim, uint64_t seed, RkError *err);
void nn_model_free(NnModel *m);

#endif
