/*
 * afterstate_net.h - the afterstate network: the mover's chance of winning
 * and expected final spread from the position right after a move
 * (afterstate.h; docs/afterstate.md).
 *
 *   x (sparse features, AftShape.total of them, a few hundred active)
 *     --sum of rows of W1 + b1--> relu          [hidden1]   (the accumulator)
 *     --dense--> relu --dense--> relu            [hidden2]
 *     --dense--> 2, + the static prior (aft_prior): the win logit (P(win) =
 *                   sigmoid; a draw is half a win) and the final spread / 100
 * The last layer starts at zero, so a new network is the static evaluation
 * (equity through the win model) and training learns its corrections.
 *
 * The first layer costs one row addition per active feature, so valuing the
 * ~16 candidates of a decision costs well under a millisecond on one core
 * (rookery bench afterstate). Every layer runs one afterstate at a time, so
 * an afterstate's outputs do not depend on the batch it is in.
 *
 * The file (afterstate.h5): root attributes format "rookery-afterstate",
 * version, feature_version, hidden1, hidden2, dim, letters, train_step,
 * distribution; the tensors as params_io.h stores them. Loading checks
 * every attribute against this build and the caller's distribution and
 * board, and every tensor's shape and values.
 */
#ifndef ROOKERY_NN_AFTERSTATE_NET_H
#define ROOKERY_NN_AFTERSTATE_NET_H
#include <math.h>

#include "afterstate.h"
#include "layers.h"

#define AFT_NET_FORMAT "rookery-afterstate"
#define AFT_NET_VERSION 1

typedef struct AftArch {
    int hidden1, hidden2; /* 1..1024 each */
} AftArch;
#define AFT_ARCH_DEFAULT ((AftArch){.hidden1 = 128, .hidden2 = 32})

typedef struct AftNet {
    AftArch arch;
    AftShape shape;
    NnParams params;
    NnDense l1, l2, l3, out;
    int64_t train_step;
} AftNet;

int aft_net_init(AftNet *n, const AftArch *arch, const LetterDist *ld, int dim, uint64_t seed, RkError *err);
void aft_net_free(AftNet *n);
int aft_net_save(const AftNet *n, const char *path, const LetterDist *ld, RkError *err);
/* Refuses anything that is not an afterstate network of this version for
 * ld's letters and a board of side dim (0: any side; n->shape.dim says
 * which), with one line naming the file. */
int aft_net_load(AftNet *n, const char *path, const LetterDist *ld, int dim, RkError *err);

/* The inputs and activations of up to cap afterstates. */
typedef struct AftBatch {
    int cap, n;
    int32_t *idx;          /* [cap * AFT_MAX_ACTIVE] */
    float *val;
    int *count;            /* active features of each */
    float *prior;          /* [cap * 2]: aft_prior of each, added to the outputs */
    float *h1, *h2, *h3, *out;
    float *d1, *d2, *d3, *dout; /* training: gradients of the activations */
} AftBatch;
int aft_batch_init(AftBatch *b, const AftNet *n, int cap, RkError *err);
void aft_batch_free(AftBatch *b);
/* Afterstate i's features (aft_features) into the batch. */
void aft_batch_set(AftBatch *b, const AftContext *c, int i, const Afterstate *as, const Board *after);

/* The outputs of afterstates [0, k). */
void aft_net_forward(const AftNet *n, AftBatch *b, int k);
static inline double aft_win(const AftBatch *b, int i) { return 1.0 / (1.0 + exp(-(double)b->out[2 * i])); }
static inline double aft_spread(const AftBatch *b, int i) { return 100.0 * (double)b->out[2 * i + 1]; }

/* Training: after aft_net_forward of [0, k), with targets win[i] in {0, 0.5,
 * 1} and spread[i] (points), adds to the model's gradients those of
 *   scale * sum_i [ xent(sigmoid(out0), win) + spread_weight * (out1 - spread/100)^2 / 2 ]
 * and returns the sums of the two losses (unscaled) in loss[0..1]. */
void aft_net_backward(AftNet *n, AftBatch *b, int k, const float *win, const float *spread, float spread_weight,
                      float scale, double loss[2]);

#endif
