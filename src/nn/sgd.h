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

/* The chunk bookkeeping every data-parallel trainer shares (this one and
 * the afterstate network's, afterstate_train.h): the chunks rank r of P
 * owns (c = r, r+P, ... < K), and the sum of the K chunks' records of rec
 * floats gathered from the P ranks (counts[r] floats from rank r), added
 * in chunk order whatever the rank count, so the bytes do not depend on it. */
int nn_chunks_of(int r, int P, int K);
void nn_sum_in_chunk_order(float *sum, const float *all, const size_t *counts, int K, int P, size_t rec);

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
