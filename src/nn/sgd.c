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

/* Chunks owned by rank r of P: c = r, r+P, ... < K. */
static int chunks_of(int r, int P, int K) { return r < K ? (K - 1 - r) / P + 1 : 0; }

int nn_dp_init(NnDataParallel *dp, const NnParams *ps, size_t extra, int chunks, const NnTrainComm *comm,
               const char *who, RkError *err) {
    memset(dp, 0, sizeof *dp);
    const int P = comm->size;
    dp->comm = comm, dp->chunks = chunks, dp->who = who;
    dp->mine = chunks_of(comm->rank, P, chunks);
    dp->total = ps->total, dp->extra = extra, dp->rec = ps->total + extra;
    dp->my = malloc(((size_t)dp->mine * dp->rec + 1) * sizeof(float));
    dp->all = comm->rank == 0 ? malloc((size_t)chunks * dp->rec * sizeof(float)) : NULL;
    dp->sum = malloc(dp->rec * sizeof(float));
    dp->keep = malloc((ps->total + 1) * sizeof(float)); /* the weights before a step, to undo it */
    dp->counts = malloc((size_t)P * sizeof(size_t));
    int failed = !dp->my || (comm->rank == 0 && !dp->all) || !dp->sum || !dp->keep || !dp->counts;
    if (failed) rk_error(err, "%s: out of memory for the gradients of %d chunks", who, chunks);
    if (comm->agree(comm->ctx, failed) != 0) {
        if (!failed) rk_error(err, "%s: another rank could not set up its training (its own error is in the log)", who);
        nn_dp_free(dp);
        return -1;
    }
    for (int r = 0; r < P; r++) dp->counts[r] = (size_t)chunks_of(r, P, chunks) * dp->rec;
    return 0;
}

void nn_dp_free(NnDataParallel *dp) {
    free(dp->my), free(dp->all), free(dp->sum), free(dp->keep), free(dp->counts);
    dp->my = dp->all = dp->sum = dp->keep = NULL;
    dp->counts = NULL;
}

/* Sums the K chunks' records gathered from the P ranks into sum, in chunk order. */
static void sum_in_chunk_order(NnDataParallel *dp) {
    const int K = dp->chunks, P = dp->comm->size;
    /* chunk c is at rank c % P, position c / P of that rank's part */
    memset(dp->sum, 0, dp->rec * sizeof(float));
    for (int c = 0; c < K; c++) {
        size_t at = 0;
        for (int r = 0; r < c % P; r++) at += dp->counts[r];
        const float *g = dp->all + at + (size_t)(c / P) * dp->rec;
        for (size_t k = 0; k < dp->rec; k++) dp->sum[k] += g[k];
    }
}

static bool weights_finite(const NnParams *ps) {
    for (size_t i = 0; i < ps->total; i++)
        if (!isfinite(ps->w[i])) return false;
    return true;
}

int nn_dp_step(NnDataParallel *dp, NnParams *ps, const NnAdam *adam, int64_t step, NnChunkFn fn, void *ctx,
               float *extra_sum, RkError *err) {
    const NnTrainComm *comm = dp->comm;
    int bad = 0;
    for (int j = 0; j < dp->mine && !bad; j++) {
        float *out = dp->my + (size_t)j * dp->rec;
        nnp_zero_grad(ps);
        bad = fn(ctx, comm->rank + j * comm->size, out + dp->total, err) != 0;
        memcpy(out, ps->g, dp->total * sizeof(float));
    }
    if (comm->agree(comm->ctx, bad) != 0) {
        if (!bad) rk_error(err, "%s: another rank failed at step %lld", dp->who, (long long)step);
        return -1;
    }
    if (comm->gather(comm->ctx, dp->my, (size_t)dp->mine * dp->rec, dp->all, dp->counts, err) != 0) return -1;
    if (comm->rank == 0) sum_in_chunk_order(dp);
    if (comm->bcast(comm->ctx, dp->sum, dp->rec, err) != 0) return -1;
    memcpy(ps->g, dp->sum, dp->total * sizeof(float));
    bool finite = nnp_grads_finite(ps);
    for (size_t q = 0; q < dp->extra; q++) finite = finite && isfinite(dp->sum[dp->total + q]);
    if (!finite)
        return rk_error(err, "%s: a non-finite loss or gradient at step %lld; stopped, keeping the weights of step %lld",
                        dp->who, (long long)step, (long long)(step - 1));
    memcpy(dp->keep, ps->w, dp->total * sizeof(float));
    nn_adam_step(ps, adam, step);
    if (!weights_finite(ps)) {
        memcpy(ps->w, dp->keep, dp->total * sizeof(float));
        return rk_error(err, "%s: non-finite weights after step %lld; stopped, keeping the weights of step %lld",
                        dp->who, (long long)step, (long long)(step - 1));
    }
    memcpy(extra_sum, dp->sum + dp->total, dp->extra * sizeof(float));
    return 0;
}

static void add_losses(NnLossSums *a, const NnLossSums *b) {
    double x[NN_LOSS_FIELDS], y[NN_LOSS_FIELDS];
    nn_loss_to_array(a, x);
    nn_loss_to_array(b, y);
    for (int i = 0; i < NN_LOSS_FIELDS; i++) x[i] += y[i];
    nn_loss_from_array(a, x);
}

/* What a P/V/H step's chunks need. */
typedef struct PvhChunks {
    NnModel *m;
    NnBatch *batch;
    NnGradScratch *scratch;
    const ShardSet *data;
    const size_t *draw;
    const NnTrainOptions *opt;
} PvhChunks;

/* Chunk c of the drawn batch: its gradient into the model's g, its loss sums into extra. */
static int pvh_chunk(void *vctx, int c, float *extra, RkError *err) {
    (void)err;
    const PvhChunks *x = vctx;
    const int K = x->opt->chunks, B = x->opt->batch;
    int lo = nn_chunk_lo(c, B, K), hi = nn_chunk_lo(c + 1, B, K);
    NnLossSums ls = {0};
    nn_chunk_losses(x->m, x->batch, x->scratch, x->data, x->draw + lo, hi - lo, 1.0f / (float)B, &x->opt->loss, true, &ls);
    double a[NN_LOSS_FIELDS];
    nn_loss_to_array(&ls, a);
    for (int q = 0; q < NN_LOSS_FIELDS; q++) extra[q] = (float)a[q];
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
    const int K = opt->chunks, B = opt->batch;
    int cap = (B + K - 1) / K;
    NnBatch batch;
    NnGradScratch scratch;
    bool have_batch = false, have_scratch = false;
    size_t *draw = malloc((size_t)B * sizeof(size_t));
    int rc = -1, failed = 0; /* this rank's set-up; every rank learns whether all of them succeeded */
    if (!draw) {
        rk_error(err, "nn: out of memory for a batch of %d", B);
        failed = 1;
    }
    if (!failed && chunks_of(comm->rank, comm->size, K) > 0) {
        failed = nn_batch_init(&batch, m, fc, cap, err) != 0;
        have_batch = !failed;
        if (!failed) failed = nn_grad_scratch_init(&scratch, m, cap, err) != 0;
        have_scratch = have_batch && !failed;
    }
    if (comm->agree(comm->ctx, failed) != 0) {
        if (!failed) rk_error(err, "nn: another rank could not set up its training (its own error is in the log)");
        goto out;
    }
    NnDataParallel dp;
    if (nn_dp_init(&dp, &m->params, NN_LOSS_FIELDS, K, comm, "nn", err) != 0) goto out;
    PvhChunks ctx = {m, &batch, &scratch, data, draw, opt};
    double t0 = rk_seconds(), last_print = t0;
    for (int64_t s = 0; s < opt->steps; s++) {
        int64_t step = m->train_step + 1;
        Rng rng;
        rng_seed_stream(&rng, opt->seed ^ UINT64_C(0x6e6e747261696e21), opt->generation, (uint64_t)step);
        for (int i = 0; i < B; i++) draw[i] = idx[rng_below(&rng, n)];
        float sums[NN_LOSS_FIELDS];
        if (nn_dp_step(&dp, &m->params, &opt->adam, step, pvh_chunk, &ctx, sums, err) != 0) {
            nn_dp_free(&dp);
            goto out;
        }
        m->train_step = step;
        double a[NN_LOSS_FIELDS];
        for (int q = 0; q < NN_LOSS_FIELDS; q++) a[q] = sums[q];
        NnLossSums ls;
        nn_loss_from_array(&ls, a);
        if (s == 0) rep->first = ls;
        rep->last = ls;
        add_losses(&rep->mean, &ls);
        double now = rk_seconds();
        if (comm->rank == 0 && opt->progress_seconds > 0 && now - last_print >= opt->progress_seconds) {
            print_progress(&ls, s, opt, now - t0);
            last_print = now;
        }
    }
    nn_dp_free(&dp);
    rep->seconds = rk_seconds() - t0;
    rep->samples_per_second = rep->seconds > 0 ? (double)opt->steps * B / rep->seconds : 0;
    rc = 0;
out:
    if (have_scratch) nn_grad_scratch_free(&scratch);
    if (have_batch) nn_batch_free(&batch);
    free(draw);
    return rc;
}
