/*
 * train_step.h - the losses of the P/V/H network on a set of samples and
 * their gradients (one chunk of a minibatch; nn/sgd.h sums chunks).
 *
 * Per sample (docs/nn.md):
 *   V: cross-entropy of the win/draw/loss logits with the result, plus
 *      (pred - spread/100)^2 / 2, spread being the final spread, or with
 *      search_weight w > 0 (1 - w) x the final spread + w x the search's
 *      expected final spread, where the sample has one (nn_spread_target);
 *   P: cross-entropy of the sub-move softmax (masked to legal sub-moves)
 *      with the target's mass per sub-move, plus, for each target move m of
 *      probability p(m) and each of its steps, p(m) times the step's
 *      cross-entropy (masked to continuations of legal moves);
 *      Or, with the product loss (NN_POLICY_LOSS_PRODUCT), the
 *      cross-entropy of the target with what the search's prior makes of P:
 *      q(m) = softmax over the candidates of log P(m) + equity(m) / T, the
 *      candidates being the K legal moves of highest static equity and the
 *      target's moves (docs/nn.md, "The product loss"); P then learns the
 *      correction to static equity the search multiplies it with;
 *   H: the negative log-likelihood of the opponent's true leave, drawn t
 *      tiles a step in ML order, per tile (samples whose leave is unknown
 *      or empty have none).
 * The loss is their sum, times `scale` (1/batch size) in the gradients.
 */
#ifndef ROOKERY_NN_TRAIN_STEP_H
#define ROOKERY_NN_TRAIN_STEP_H
#include "forward.h"
#include "shard.h"

typedef enum NnPolicyLoss { NN_POLICY_LOSS_DIRECT = 0, NN_POLICY_LOSS_PRODUCT = 1 } NnPolicyLoss;

typedef struct NnLossOptions {
    float search_weight;        /* the search's share of the spread target, 0..1 */
    float value_weight;         /* V's losses' weight in the total (> 0; P and H weigh 1) */
    NnPolicyLoss policy_loss;
    int product_candidates;     /* K: the product loss's candidates by static equity, 1..NN_PRODUCT_MAX */
    float product_temperature;  /* T, points: equity's temperature in the product (> 0) */
} NnLossOptions;
#define NN_PRODUCT_MAX 256
/* The defaults: the direct loss, no search share, V weight 1; for the product loss K =
 * 16, T = 10 (the search's prior_temperature). */
NnLossOptions nn_loss_options_default(void);
/* Checks the ranges; the product loss needs a model whose prior values
 * moves by static equity (arch.prior_equity), since the equity it adds is
 * that prior's. */
int nn_loss_options_check(const NnLossOptions *o, const NnModel *m, RkError *err);

typedef struct NnLossSums {
    double wdl, spread, sub, steps, hidden; /* sums over samples (hidden: per-tile means) */
    double samples, hidden_samples;
    double policy_samples;                  /* samples with a P target (sub and steps' count) */
} NnLossSums;
#define NN_LOSS_FIELDS 8
static inline void nn_loss_to_array(const NnLossSums *s, double *a) {
    a[0] = s->wdl, a[1] = s->spread, a[2] = s->sub, a[3] = s->steps, a[4] = s->hidden, a[5] = s->samples,
    a[6] = s->hidden_samples, a[7] = s->policy_samples;
}
static inline void nn_loss_from_array(NnLossSums *s, const double *a) {
    s->wdl = a[0], s->spread = a[1], s->sub = a[2], s->steps = a[3], s->hidden = a[4], s->samples = a[5],
    s->hidden_samples = a[6], s->policy_samples = a[7];
}
/* The total loss per sample (the objective: samples without a P target add
 * no policy term). */
double nn_loss_total(const NnLossSums *s);
/* The policy loss (sub-moves + steps) per sample that has a P target, 0 if
 * none has: what a report shows, the same whatever share of samples has
 * one (playout cap randomization). */
static inline double nn_loss_policy(const NnLossSums *s) {
    return s->policy_samples > 0 ? (s->sub + s->steps) / s->policy_samples : 0.0;
}

typedef struct NnGradScratch {
    int cap;
    float *dE, *tmpE, *dT, *dT2, *dsub_sq, *dglob, *dvout, *dvh, *dpin, *dsb, *onehot;
    float *rdout, *rdhid, *rdin;  /* per-row gradients */
    size_t rcap;                  /* floats in each of them */
    /* the product loss: each sample's candidates (flattened), the log-softmax of its sub-moves */
    struct NnCandidate *cand;
    size_t cand_n, cand_cap;
    float *lsub;
} NnGradScratch;
int nn_grad_scratch_init(NnGradScratch *g, const NnModel *m, int cap, RkError *err);
void nn_grad_scratch_free(NnGradScratch *g);

/* The spread head's target for s, spread / 100 (above). */
float nn_spread_target(const ShardSample *s, float search_weight);

/* Losses (added to sums) of samples idx[0..n) of set (n <= the batch's
 * capacity), and if backward is true their gradients times scale, added to
 * m->params.g. */
void nn_chunk_losses(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                     float scale, const NnLossOptions *lo, bool backward, NnLossSums *sums);

#endif
