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
                         .spread_weight = 0.25f, .horizon = 2, .progress_seconds = 10, .distill_weight = 0,
                         .distill_temperature = 10};
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
    AftBatch *b, *cand; /* the drawn samples; one sample's candidates */
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

/* Sample s's candidates (its P target's moves, 2..AFT_MAX_CANDIDATES) into x->cand; their
 * count, or -1 with err set. */
static int set_candidates(const AftChunks *x, const ShardSample *s, size_t which, RkError *err) {
    int k = (int)s->policy_count;
    if (k > x->cand->cap) k = x->cand->cap;
    Board before, after; /* the position's board built once: its cross-sets are most of the cost */
    position_board(&s->pos, x->c->layout, x->c->ld, x->c->kwg, &before);
    for (int j = 0; j < k; j++) {
        Afterstate as;
        Move m;
        if (packed_to_move(&x->data->pmove[s->policy_start + (size_t)j], &before, &m) != 0)
            return rk_error(err, "afterstate: sample %zu (game %llu, turn %u): candidate %d does not fit its board",
                            which, (unsigned long long)s->game, s->turn, j);
        aft_build(x->c->ld, &before, &s->pos, &m, &as, &after);
        aft_batch_set(x->cand, x->c, j, &as, &after);
    }
    return k;
}

/* The simulated values of a sample's k candidates, centred: temperature x log p, minus their mean. */
static void centred_values(const ShardSet *data, const ShardSample *s, int k, double temperature, double *t) {
    double mean = 0;
    for (int j = 0; j < k; j++) {
        float p = data->pprob[s->policy_start + (size_t)j];
        t[j] = temperature * log(p > 1e-30f ? (double)p : 1e-30);
        mean += t[j] / k;
    }
    for (int j = 0; j < k; j++) t[j] -= mean;
}

/* The distillation loss of sample s: its candidates' spread outputs, centred, against their
 * centred simulated values; gradients into the network's, the loss sum returned. The win
 * output gets no gradient (its target is set to its own output). */
static double distill_sample(const AftChunks *x, const ShardSample *s, size_t which, RkError *err, int *fail) {
    int k = set_candidates(x, s, which, err);
    if (k < 0) {
        *fail = 1;
        return 0;
    }
    aft_net_forward(x->n, x->cand, k);
    double t[AFT_MAX_CANDIDATES], vmean = 0;
    centred_values(x->data, s, k, x->opt->distill_temperature, t);
    for (int j = 0; j < k; j++) vmean += aft_spread(x->cand, j) / k;
    float win[AFT_MAX_CANDIDATES], spread[AFT_MAX_CANDIDATES];
    for (int j = 0; j < k; j++) {
        win[j] = (float)aft_win(x->cand, j);
        spread[j] = (float)(vmean + t[j]);
    }
    double loss[2];
    aft_net_backward(x->n, x->cand, k, win, spread, x->opt->distill_weight, 1.0f / (float)x->opt->batch, loss);
    return loss[1];
}

/* Chunk ch of the drawn batch: its gradient into the network's g, its loss sums into extra. */
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
    extra[2] = 0;
    if (x->opt->distill_weight > 0) {
        int fail = 0;
        for (int i = lo; i < hi && !fail; i++) {
            const ShardSample *s = &x->data->s[x->draw[i]];
            if (s->policy_count >= 2) extra[2] += (float)distill_sample(x, s, x->draw[i], err, &fail);
        }
        if (fail) return -1;
    }
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
    AftBatch batch, cand;
    memset(&cand, 0, sizeof cand);
    size_t *draw = malloc((size_t)B * sizeof(size_t));
    int failed = !draw || aft_batch_init(&batch, n, (B + K - 1) / K, err) != 0;
    if (!failed && aft_batch_init(&cand, n, AFT_MAX_CANDIDATES, err) != 0) {
        aft_batch_free(&batch);
        memset(&batch, 0, sizeof batch);
        failed = 1;
    }
    if (!draw) rk_error(err, "afterstate net: out of memory for a batch of %d", B);
    if (comm->agree(comm->ctx, failed) != 0) {
        if (!failed) rk_error(err, "afterstate net: another rank could not set up its training");
        if (draw) aft_batch_free(&batch); /* set up, or zeroed by its failed init */
        aft_batch_free(&cand);
        free(draw);
        return -1;
    }
    NnDataParallel dp;
    int rc = nn_dp_init(&dp, &n->params, 3, K, comm, "afterstate net", err);
    /* the targets' cache: without memory for it, each is rebuilt when drawn (the same values) */
    float *target = opt->horizon > 0 ? malloc(data->n * sizeof(float)) : NULL;
    for (size_t i = 0; target && i < data->n; i++) target[i] = NAN;
    AftChunks ctx = {n, &batch, &cand, c, data, draw, opt, target};
    double t0 = rk_seconds(), last_print = t0;
    for (int64_t s = 0; s < opt->steps && rc == 0; s++) {
        int64_t step = n->train_step + 1;
        Rng rng;
        rng_seed_stream(&rng, opt->seed ^ UINT64_C(0x6166747261696e21), 0, (uint64_t)step);
        for (int i = 0; i < B; i++) draw[i] = idx[rng_below(&rng, count)];
        float sums[3];
        if ((rc = nn_dp_step(&dp, &n->params, &opt->adam, step, aft_chunk, &ctx, sums, err)) != 0) break;
        n->train_step = step;
        double l[3] = {sums[0] / B, sums[1] / B, sums[2] / B};
        if (s == 0) memcpy(rep->first, l, sizeof l);
        memcpy(rep->last, l, sizeof l);
        double now = rk_seconds();
        if (comm->rank == 0 && opt->progress_seconds > 0 && now - last_print >= opt->progress_seconds) {
            printf("  afterstate step %lld/%lld: win loss %.4f, spread loss %.4f, distill loss %.4f, %.0f samples/s\n",
                   (long long)(s + 1), (long long)opt->steps, l[0], l[1], l[2], (double)(s + 1) * B / (now - t0));
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
    aft_batch_free(&cand);
    free(draw);
    free(target);
    return rc;
}

/* The distillation figures of aft_evaluate over the samples with 2+ candidates. */
static int evaluate_choices(const AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx,
                            size_t count, double temperature, AftEvalReport *rep, RkError *err) {
    AftBatch b;
    if (aft_batch_init(&b, n, AFT_MAX_CANDIDATES, err) != 0) return -1;
    AftTrainOptions opt = aft_train_defaults();
    opt.distill_temperature = temperature;
    AftChunks x = {(AftNet *)n, NULL, &b, c, data, NULL, &opt, NULL};
    double sum = 0, base = 0, dsum = 0, dsq = 0, sq = 0, base_sq = 0;
    size_t m = 0, cands = 0;
    for (size_t at = 0; at < count; at++) {
        const ShardSample *s = &data->s[idx[at]];
        if (s->policy_count < 2) continue;
        int k = set_candidates(&x, s, idx[at], err);
        if (k < 0) {
            aft_batch_free(&b);
            return -1;
        }
        aft_net_forward(n, &b, k);
        double t[AFT_MAX_CANDIDATES], best = -1e300, vmean = 0, pmean = 0;
        centred_values(data, s, k, temperature, t);
        for (int j = 0; j < k; j++) vmean += aft_spread(&b, j) / k, pmean += 100.0 * b.prior[2 * j + 1] / k;
        for (int j = 0; j < k; j++) {
            double e = aft_spread(&b, j) - vmean - t[j], eb = 100.0 * b.prior[2 * j + 1] - pmean - t[j];
            sq += e * e, base_sq += eb * eb;
        }
        cands += (size_t)k;
        int net = 0, prior = 0;
        for (int j = 0; j < k; j++) {
            best = fmax(best, t[j]);
            if (aft_spread(&b, j) > aft_spread(&b, net)) net = j;
            if (b.prior[2 * j + 1] > b.prior[2 * prior + 1]) prior = j;
        }
        double r = best - t[net], rb = best - t[prior];
        sum += r, base += rb, dsum += r - rb, dsq += (r - rb) * (r - rb);
        m++;
    }
    aft_batch_free(&b);
    rep->distill_samples = m;
    if (m > 0) {
        rep->distill_regret = sum / (double)m;
        rep->base_distill_regret = base / (double)m;
        double mean = dsum / (double)m, var = dsq / (double)m - mean * mean;
        rep->distill_diff_se = m > 1 ? sqrt(fmax(var, 0) / (double)(m - 1)) : 0;
        rep->distill_rms = sqrt(sq / (double)cands);
        rep->base_distill_rms = sqrt(base_sq / (double)cands);
    }
    return 0;
}

int aft_evaluate(const AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx, size_t count,
                 const WinModel *base, int horizon, double distill_temperature, AftEvalReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    if (evaluate_choices(n, c, data, idx, count, distill_temperature, rep, err) != 0) return -1;
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
