/*
 * sgd.h - data-parallel training of the P/V/H network.
 *
 * Each step draws `batch` samples (with replacement) from the training
 * set, with a random stream seeded from (seed, generation, step), so every
 * rank draws the same ones. The batch is cut into `chunks` fixed slices;
 * chunk c is computed by rank c mod nranks. Rank 0 gathers every chunk's
 * gradient and loss sums, adds them up in chunk order and broadcasts the
 * sum; every rank then takes the same Adam step. The float additions thus
 * happen in the same order whatever the number of ranks, so the weights
 * are the same bytes at any rank count (on machines whose BLAS computes a
 * given product the same way; ranks >= chunks idle).
 *
 * The MPI side is behind NnTrainComm (reducer/nn_comm.h implements it;
 * nn_train_comm_local() is the one-process version).
 */
#ifndef ROOKERY_NN_SGD_H
#define ROOKERY_NN_SGD_H
#include "train_step.h"

typedef struct NnTrainComm {
    int rank, size;
    void *ctx;
    /* Rank 0 receives every rank's `n` floats... in rank order: rank r sent
     * counts[r] floats (all ranks know the counts). */
    int (*gather)(void *ctx, const float *mine, size_t n, float *all, const size_t *counts, RkError *err);
    /* Broadcasts n floats from rank 0. */
    int (*bcast)(void *ctx, float *data, size_t n, RkError *err);
    /* The largest of every rank's status (so that a failure on one rank,
     * e.g. out of memory, stops them all instead of leaving them waiting). */
    int (*agree)(void *ctx, int status);
} NnTrainComm;
NnTrainComm nn_train_comm_local(void);

/* One data-parallel step, what every trainer here shares (this P/V/H trainer
 * and the afterstate network's, afterstate_train.h): each chunk c this rank
 * owns (c = rank, rank+P, ... < chunks) is computed by a callback into the
 * parameters' zeroed gradient, with `extra` floats of its own (loss sums);
 * rank 0 gathers every chunk's record (gradient, then extras), adds them
 * up in chunk order whatever the rank count, and broadcasts the sum; every
 * rank then takes the same Adam step, unless a summed gradient or extra or
 * a new weight is not finite (the weights then stay those of the step
 * before, and it fails naming the step). */
typedef int (*NnChunkFn)(void *ctx, int chunk, float *extra, RkError *err);
typedef struct NnDataParallel {
    const NnTrainComm *comm;
    int chunks, mine;           /* chunks in a batch; this rank's */
    size_t total, extra, rec;   /* parameters, extras, floats a chunk's record */
    float *my, *all, *sum, *keep;
    size_t *counts;
    const char *who;            /* the error messages' prefix ("nn", "afterstate net") */
} NnDataParallel;
/* Every rank learns whether all of them could allocate (0, or -1 on every rank). */
int nn_dp_init(NnDataParallel *dp, const NnParams *ps, size_t extra, int chunks, const NnTrainComm *comm,
               const char *who, RkError *err);
void nn_dp_free(NnDataParallel *dp);
/* Adam step `step`; on success *extra_sum (extra floats) holds the chunks' extras summed.
 * A failing callback on any rank fails the step on every rank. */
int nn_dp_step(NnDataParallel *dp, NnParams *ps, const NnAdam *adam, int64_t step, NnChunkFn fn, void *ctx,
               float *extra_sum, RkError *err);
/* The first and last sample of chunk c of a batch of B cut into K. */
static inline int nn_chunk_lo(int c, int B, int K) { return (int)((int64_t)c * B / K); }

typedef struct NnTrainOptions {
    int batch, chunks;
    int64_t steps;
    NnAdam adam;
    uint64_t seed;
    uint32_t generation;
    double progress_seconds;  /* rank 0 prints a progress line this often (0: never) */
    NnLossOptions loss;       /* the spread target's blend, the policy loss (train_step.h) */
} NnTrainOptions;

typedef struct NnTrainReport {
    NnLossSums first, last;   /* losses of the first and the last step's batch */
    NnLossSums mean;          /* over all steps */
    double seconds, samples_per_second;
} NnTrainReport;

/* Trains m for opt->steps steps on the samples idx[0..n) of data (a
 * selection, e.g. without held-out games). On a non-finite gradient or
 * weight it stops with an error naming the step, and m keeps the weights of
 * the last good step. */
int nn_train(NnModel *m, const NnFeatureContext *fc, const ShardSet *data, const size_t *idx, size_t n,
             const NnTrainOptions *opt, const NnTrainComm *comm, NnTrainReport *rep, RkError *err);

#endif
