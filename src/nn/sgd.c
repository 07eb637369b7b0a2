/*
 * sgd.c - data-parallel training with gradients summed in chunk order
 * (see sgd.h).
 */
#include "sgd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int local_gather(void *ctx, const float *mine, size_t n, float *all, const size_t *counts, RkError *err) {
    (void)ctx, (void)counts, (void)err;
    memcpy(all, mine, n * sizeof(float));
    return 0;
}

static int local_bcast(void *ctx, float *data, size_t n, RkError *err) {
    (void)ctx, (void)data, (void)n, (void)err;
    return 0;
}

static int local_agree(void *ctx, int status) {
    (void)ctx;
    return status;
}

NnTrainComm nn_train_comm_local(void) {
    return (NnTrainComm){
        .rank = 0, .size = 1, .ctx = NULL, .gather = local_gather, .bcast = local_bcast, .agree = local_agree};
}

int nn_chunks_of(int r, int P, int K) { return r < K ? (K - 1 - r) / P + 1 : 0; }

static void add_losses(NnLossSums *a, const NnLossSums *b) {
    double x[NN_LOSS_FIELDS], y[NN_LOSS_FIELDS];
    nn_loss_to_array(a, x);
    nn_loss_to_array(b, y);
    for (int i = 0; i < NN_LOSS_FIELDS; i++) x[i] += y[i];
    nn_loss_from_array(a, x);
}

static bool weights_finite(const NnParams *ps) {
    for (size_t i = 0; i < ps->total; i++)
        if (!isfinite(ps->w[i])) return false;
    return true;
}

/* This rank's chunks of the drawn batch draw[0..B): each chunk's gradient and loss sums,
 * one record of total + NN_LOSS_FIELDS floats a chunk, into my. */
static void chunk_gradients(NnModel *m, NnBatch *batch, NnGradScratch *scratch, const ShardSet *data,
                            const size_t *draw, const NnTrainOptions *opt, int rank, int P, int mine, float *my) {
    const int K = opt->chunks, B = opt->batch;
    const size_t total = m->params.total, rec = total + NN_LOSS_FIELDS;
    for (int j = 0; j < mine; j++) {
        int c = rank + j * P;
        int lo = (int)((int64_t)c * B / K), hi = (int)((int64_t)(c + 1) * B / K);
        NnLossSums ls = {0};
        nnp_zero_grad(&m->params);
        nn_chunk_losses(m, batch, scratch, data, draw + lo, hi - lo, 1.0f / (float)B, &opt->loss, true, &ls);
        float *out = my + (size_t)j * rec;
        memcpy(out, m->params.g, total * sizeof(float));
        double a[NN_LOSS_FIELDS];
        nn_loss_to_array(&ls, a);
        for (int q = 0; q < NN_LOSS_FIELDS; q++) out[total + (size_t)q] = (float)a[q];
    }
}

void nn_sum_in_chunk_order(float *sum, const float *all, const size_t *counts, int K, int P, size_t rec) {
    /* chunk c is at rank c % P, position c / P of that rank's part */
    memset(sum, 0, rec * sizeof(float));
    for (int c = 0; c < K; c++) {
        size_t at = 0;
        for (int r = 0; r < c % P; r++) at += counts[r];
        const float *g = all + at + (size_t)(c / P) * rec;
        for (size_t k = 0; k < rec; k++) sum[k] += g[k];
    }
}

/* Takes Adam step `step` with the summed gradient in sum (its losses into *ls), unless a
 * loss, gradient or new weight is not finite: then the weights stay as they were (keep holds
 * them meanwhile) and it fails. */
static int take_step(NnModel *m, const float *sum, const NnAdam *adam, int64_t step, float *keep, NnLossSums *ls,
                     RkError *err) {
    const size_t total = m->params.total;
    memcpy(m->params.g, sum, total * sizeof(float));
    double a[NN_LOSS_FIELDS];
    for (int q = 0; q < NN_LOSS_FIELDS; q++) a[q] = sum[total + (size_t)q];
    nn_loss_from_array(ls, a);
    if (!nnp_grads_finite(&m->params) || !isfinite(nn_loss_total(ls)))
        return rk_error(err,
                        "nn: a non-finite loss or gradient at step %lld; stopped, keeping the weights of step %lld",
                        (long long)step, (long long)m->train_step);
    memcpy(keep, m->params.w, total * sizeof(float));
    nn_adam_step(&m->params, adam, step);
    if (!weights_finite(&m->params)) {
        memcpy(m->params.w, keep, total * sizeof(float));
        return rk_error(err, "nn: non-finite weights after step %lld; stopped, keeping the weights of step %lld",
                        (long long)step, (long long)m->train_step);
    }
    m->train_step = step;
    return 0;
}

/* Prints the progress line after step s (0-based) of the training, elapsed seconds in. */
static void print_progress(const NnLossSums *ls, int64_t s, const NnTrainOptions *opt, double elapsed) {
    double np = ls->policy_samples > 0 ? ls->policy_samples : 1.0; /* P: per sample with a target */
    printf("  nn step %lld/%lld: loss %.4f (value %.3f + %.3f, policy %.3f + %.3f, hidden %.3f), %.0f "
           "samples/s\n",
           (long long)(s + 1), (long long)opt->steps, nn_loss_total(ls), ls->wdl / ls->samples,
           ls->spread / ls->samples, ls->sub / np, ls->steps / np, ls->hidden / ls->samples,
           (double)(s + 1) * opt->batch / elapsed);
    fflush(stdout);
}

int nn_train(NnModel *m, const NnFeatureContext *fc, const ShardSet *data, const size_t *idx, size_t n,
             const NnTrainOptions *opt, const NnTrainComm *comm, NnTrainReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    if (opt->steps == 0) return 0;
    if (n == 0) return rk_error(err, "nn: no training samples");
    if (opt->batch < opt->chunks) return rk_error(err, "nn: batch %d is smaller than grad_chunks %d", opt->batch, opt->chunks);
    if (nn_loss_options_check(&opt->loss, m, err) != 0) return -1;
    const int K = opt->chunks, P = comm->size, B = opt->batch;
    const int mine = nn_chunks_of(comm->rank, P, K);
    const size_t total = m->params.total, rec = total + NN_LOSS_FIELDS;
    int cap = (B + K - 1) / K;
    NnBatch batch;
    NnGradScratch scratch;
    bool have_batch = false, have_scratch = false;
    float *my = malloc(((size_t)mine * rec + 1) * sizeof(float));
    float *all = comm->rank == 0 ? malloc((size_t)K * rec * sizeof(float)) : NULL;
    float *sum = malloc(rec * sizeof(float));
    size_t *counts = malloc((size_t)P * sizeof(size_t));
    size_t *draw = malloc((size_t)B * sizeof(size_t));
    float *keep = malloc(total * sizeof(float)); /* the weights before a step, to undo it */
    int rc = -1, failed = 0; /* this rank's set-up; every rank learns whether all of them succeeded */
    if (!my || (comm->rank == 0 && !all) || !sum || !counts || !draw || !keep) {
        rk_error(err, "nn: out of memory for the gradients of %d chunks", K);
        failed = 1;
    }
    if (!failed && mine > 0) {
        failed = nn_batch_init(&batch, m, fc, cap, err) != 0;
        have_batch = !failed;
        if (!failed) failed = nn_grad_scratch_init(&scratch, m, cap, err) != 0;
        have_scratch = have_batch && !failed;
    }
    if (comm->agree(comm->ctx, failed) != 0) {
        if (!failed) rk_error(err, "nn: another rank could not set up its training (its own error is in the log)");
        goto out;
    }
    for (int r = 0; r < P; r++) counts[r] = (size_t)nn_chunks_of(r, P, K) * rec;
    double t0 = rk_seconds(), last_print = t0;
    for (int64_t s = 0; s < opt->steps; s++) {
        int64_t step = m->train_step + 1;
        Rng rng;
        rng_seed_stream(&rng, opt->seed ^ UINT64_C(0x6e6e747261696e21), opt->generation, (uint64_t)step);
        for (int i = 0; i < B; i++) draw[i] = idx[rng_below(&rng, n)];
        chunk_gradients(m, &batch, &scratch, data, draw, opt, comm->rank, P, mine, my);
        if (comm->gather(comm->ctx, my, (size_t)mine * rec, all, counts, err) != 0) goto out;
        if (comm->rank == 0) nn_sum_in_chunk_order(sum, all, counts, K, P, rec);
        if (comm->bcast(comm->ctx, sum, rec, err) != 0) goto out;
        NnLossSums ls;
        if (take_step(m, sum, &opt->adam, step, keep, &ls, err) != 0) goto out;
        if (s == 0) rep->first = ls;
        rep->last = ls;
        add_losses(&rep->mean, &ls);
        double now = rk_seconds();
        if (comm->rank == 0 && opt->progress_seconds > 0 && now - last_print >= opt->progress_seconds) {
            print_progress(&ls, s, opt, now - t0);
            last_print = now;
        }
    }
    rep->seconds = rk_seconds() - t0;
    rep->samples_per_second = rep->seconds > 0 ? (double)opt->steps * B / rep->seconds : 0;
    rc = 0;
out:
    if (have_scratch) nn_grad_scratch_free(&scratch);
    if (have_batch) nn_batch_free(&batch);
    free(my), free(all), free(sum), free(counts), free(draw), free(keep);
    return rc;
}
