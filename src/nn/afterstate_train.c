/*
 * afterstate_train.c - data-parallel training and held-out figures of the
 * afterstate network (see afterstate_train.h).
 */
#include "afterstate_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

AftTrainOptions aft_train_defaults(void) {
    AftTrainOptions o = {.batch = 512, .chunks = 4, .steps = 2000, .adam = nn_adam_default(), .seed = 1,
                         .spread_weight = 0.25f, .horizon = 2, .progress_seconds = 10};
    o.adam.weight_decay = 0.0f; /* the accumulator's rows of rare features would only shrink */
    return o;
}

float aft_spread_target(const AftContext *c, const ShardSet *data, size_t i, int horizon) {
    const ShardSample *s = &data->s[i];
    size_t j = i + (size_t)horizon;
    if (horizon <= 0 || j >= data->n) return (float)s->final_spread;
    const ShardSample *t = &data->s[j];
    if (t->game != s->game || t->generation != s->generation || t->turn != s->turn + (uint32_t)horizon)
        return (float)s->final_spread;
    Afterstate as;
    Board after;
    if (aft_from_position(c, &t->pos, &t->played, &as, &after) != 0 || as.terminal) return (float)s->final_spread;
    float prior[2];
    aft_prior(c, &as, prior);
    return 100.0f * prior[1];
}

/* Sample s's afterstate features into slot i of the batch. */
static int set_sample(AftBatch *b, const AftContext *c, int i, const ShardSample *s, size_t which, RkError *err) {
    Afterstate as;
    Board after;
    if (aft_from_position(c, &s->pos, &s->played, &as, &after) != 0)
        return rk_error(err, "afterstate: sample %zu (game %llu, turn %u): its move does not fit its board", which,
                        (unsigned long long)s->game, s->turn);
    aft_batch_set(b, c, i, &as, &after);
    return 0;
}

/* What a step's chunks need. */
typedef struct AftChunks {
    AftNet *n;
    AftBatch *b;
    const AftContext *c;
    const ShardSet *data;
    const size_t *draw;
    const AftTrainOptions *opt;
    float *target; /* [data->n]: each sample's spread target once computed, NaN before (NULL: none kept) */
} AftChunks;

/* Sample i's spread target, built once: it costs an afterstate of its own
 * (the one `horizon` plies on), and a sample is drawn many times. */
static float spread_target(const AftChunks *x, size_t i) {
    if (!x->target) return aft_spread_target(x->c, x->data, i, x->opt->horizon);
    if (isnan(x->target[i])) x->target[i] = aft_spread_target(x->c, x->data, i, x->opt->horizon);
    return x->target[i];
}

/* Chunk ch of the drawn batch: its gradient into the network's g, its two loss sums into extra. */
static int aft_chunk(void *vctx, int ch, float *extra, RkError *err) {
    const AftChunks *x = vctx;
    const int K = x->opt->chunks, B = x->opt->batch;
    int lo = nn_chunk_lo(ch, B, K), hi = nn_chunk_lo(ch + 1, B, K);
    float win[x->b->cap], spread[x->b->cap];
    for (int i = lo; i < hi; i++) {
        const ShardSample *s = &x->data->s[x->draw[i]];
        if (set_sample(x->b, x->c, i - lo, s, x->draw[i], err) != 0) return -1;
        win[i - lo] = aft_win_target(s);
        spread[i - lo] = spread_target(x, x->draw[i]);
    }
    aft_net_forward(x->n, x->b, hi - lo);
    double loss[2];
    aft_net_backward(x->n, x->b, hi - lo, win, spread, x->opt->spread_weight, 1.0f / (float)B, loss);
    extra[0] = (float)loss[0];
    extra[1] = (float)loss[1];
    return 0;
}

int aft_train(AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx, size_t count,
              const AftTrainOptions *opt, const NnTrainComm *comm, AftTrainReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    if (opt->steps == 0) return 0;
    if (count == 0) return rk_error(err, "afterstate net: no training samples");
    if (opt->batch < opt->chunks)
        return rk_error(err, "afterstate net: batch %d is smaller than chunks %d", opt->batch, opt->chunks);
    const int K = opt->chunks, B = opt->batch;
    AftBatch batch;
    size_t *draw = malloc((size_t)B * sizeof(size_t));
    int failed = !draw || aft_batch_init(&batch, n, (B + K - 1) / K, err) != 0;
    if (!draw) rk_error(err, "afterstate net: out of memory for a batch of %d", B);
    if (comm->agree(comm->ctx, failed) != 0) {
        if (!failed) rk_error(err, "afterstate net: another rank could not set up its training");
        if (draw) aft_batch_free(&batch); /* set up, or zeroed by its failed init */
        free(draw);
        return -1;
    }
    NnDataParallel dp;
    int rc = nn_dp_init(&dp, &n->params, 2, K, comm, "afterstate net", err);
    /* the targets' cache: without memory for it, each is rebuilt when drawn (the same values) */
    float *target = opt->horizon > 0 ? malloc(data->n * sizeof(float)) : NULL;
    for (size_t i = 0; target && i < data->n; i++) target[i] = NAN;
    AftChunks ctx = {n, &batch, c, data, draw, opt, target};
    double t0 = rk_seconds(), last_print = t0;
    for (int64_t s = 0; s < opt->steps && rc == 0; s++) {
        int64_t step = n->train_step + 1;
        Rng rng;
        rng_seed_stream(&rng, opt->seed ^ UINT64_C(0x6166747261696e21), 0, (uint64_t)step);
        for (int i = 0; i < B; i++) draw[i] = idx[rng_below(&rng, count)];
        float sums[2];
        if ((rc = nn_dp_step(&dp, &n->params, &opt->adam, step, aft_chunk, &ctx, sums, err)) != 0) break;
        n->train_step = step;
        double l[2] = {sums[0] / B, sums[1] / B};
        if (s == 0) memcpy(rep->first, l, sizeof l);
        memcpy(rep->last, l, sizeof l);
        double now = rk_seconds();
        if (comm->rank == 0 && opt->progress_seconds > 0 && now - last_print >= opt->progress_seconds) {
            printf("  afterstate step %lld/%lld: win loss %.4f, spread loss %.4f, %.0f samples/s\n", (long long)(s + 1),
                   (long long)opt->steps, l[0], l[1], (double)(s + 1) * B / (now - t0));
            fflush(stdout);
            last_print = now;
        }
    }
    nn_dp_free(&dp); /* also after a failed init: it frees what is there */
    if (rc == 0) {
        rep->seconds = rk_seconds() - t0;
        rep->samples_per_second = rep->seconds > 0 ? (double)opt->steps * B / rep->seconds : 0;
    }
    aft_batch_free(&batch);
    free(draw);
    free(target);
    return rc;
}

int aft_evaluate(const AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx, size_t count,
                 const WinModel *base, int horizon, AftEvalReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    enum { CAP = 64 };
    AftBatch b;
    if (aft_batch_init(&b, n, CAP, err) != 0) return -1;
    double diff_sum = 0, diff_sq = 0;
    for (size_t at = 0; at < count; at += CAP) {
        int k = count - at < CAP ? (int)(count - at) : CAP;
        Afterstate as[CAP];
        for (int i = 0; i < k; i++) {
            Board after;
            const ShardSample *s = &data->s[idx[at + (size_t)i]];
            if (aft_from_position(c, &s->pos, &s->played, &as[i], &after) != 0) {
                aft_batch_free(&b);
                return rk_error(err, "afterstate: sample %zu: its move does not fit its board", idx[at + (size_t)i]);
            }
            aft_batch_set(&b, c, i, &as[i], &after);
        }
        aft_net_forward(n, &b, k);
        for (int i = 0; i < k; i++) {
            const ShardSample *s = &data->s[idx[at + (size_t)i]];
            const Position *q = &as[i].pos;
            double t = aft_win_target(s), p = aft_win(&b, i);
            Rack unseen;
            int left = position_unseen(q, c->ld, &unseen) == 0 ? unseen.total + q->rack.total : 0;
            double pb = 1.0 - winprob(base, -(double)(q->score_self - q->score_opp), left < 1 ? 1 : left);
            const double lo = 1e-6;
            double pc = fmin(fmax(p, lo), 1 - lo), pbc = fmin(fmax(pb, lo), 1 - lo);
            rep->logloss -= t * log(pc) + (1 - t) * log(1 - pc);
            rep->base_logloss -= t * log(pbc) + (1 - t) * log(1 - pbc);
            double br = (p - t) * (p - t), bb = (pb - t) * (pb - t);
            rep->brier += br;
            rep->base_brier += bb;
            diff_sum += br - bb;
            diff_sq += (br - bb) * (br - bb);
            double target = aft_spread_target(c, data, idx[at + (size_t)i], horizon);
            rep->spread_mae += fabs(aft_spread(&b, i) - target);
            rep->base_spread_mae += fabs(100.0 * b.prior[2 * i + 1] - target);
        }
    }
    aft_batch_free(&b);
    rep->samples = count;
    if (count > 0) {
        double m = (double)count;
        rep->logloss /= m, rep->base_logloss /= m, rep->brier /= m, rep->base_brier /= m, rep->spread_mae /= m, rep->base_spread_mae /= m;
        double mean = diff_sum / m, var = diff_sq / m - mean * mean;
        rep->brier_diff_se = count > 1 ? sqrt(fmax(var, 0) / (m - 1)) : 0;
    }
    return 0;
}
