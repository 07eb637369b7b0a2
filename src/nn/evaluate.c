/*
 * evaluate.c - held-out metrics of a network and their baselines (see
 * evaluate.h).
 */
#include "evaluate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPREAD_BINS 21   /* spread clamped to [-200, 200], 20 points a bin */
#define UNSEEN_BINS 10   /* unseen tiles, 10 a bin */
#define EVAL_BATCH 16

static int bin_of(const Position *p, const LetterDist *ld) {
    Rack unseen;
    int u = position_unseen(p, ld, &unseen) == 0 ? unseen.total : 0;
    int s = p->score_self - p->score_opp;
    if (s < -200) s = -200;
    if (s > 200) s = 200;
    int sb = (s + 210) / 20, ub = u / 10;
    if (sb >= SPREAD_BINS) sb = SPREAD_BINS - 1;
    if (ub >= UNSEEN_BINS) ub = UNSEEN_BINS - 1;
    return sb * UNSEEN_BINS + ub;
}

static double lgamma_choose(int n, int k) { return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0); }

double nn_uniform_leave_logprob(const Rack *pool, const Rack *leave, int letters) {
    double lp = -lgamma_choose(pool->total, leave->total);
    for (int l = 0; l <= letters; l++) {
        if (leave->count[l] > pool->count[l]) return -INFINITY;
        lp += lgamma_choose(pool->count[l], leave->count[l]);
    }
    return lp;
}

static double outcome(const ShardSample *s) { return s->result > 0 ? 1.0 : s->result == 0 ? 0.5 : 0.0; }

int nn_evaluate(const NnModel *m, const NnFeatureContext *fc, const ShardSet *train, const size_t *tidx, size_t tn,
                const ShardSet *test, const size_t *eidx, size_t en, NnEvalReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    const LetterDist *ld = fc->ld;
    /* the baseline: mean outcome and spread per bin, smoothed towards the overall mean */
    double win[SPREAD_BINS * UNSEEN_BINS] = {0}, spr[SPREAD_BINS * UNSEEN_BINS] = {0};
    double cnt[SPREAD_BINS * UNSEEN_BINS] = {0}, all_win = 0, all_spr = 0;
    for (size_t k = 0; k < tn; k++) {
        const ShardSample *s = &train->s[tidx[k]];
        int b = bin_of(&s->pos, ld);
        win[b] += outcome(s), spr[b] += s->final_spread, cnt[b] += 1;
        all_win += outcome(s), all_spr += s->final_spread;
    }
    if (tn) all_win /= (double)tn, all_spr /= (double)tn;
    for (int b = 0; b < SPREAD_BINS * UNSEEN_BINS; b++) {
        win[b] = (win[b] + all_win) / (cnt[b] + 1.0);
        spr[b] = (spr[b] + all_spr) / (cnt[b] + 1.0);
    }
    NnBatch batch;
    if (nn_batch_init(&batch, m, fc, EVAL_BATCH, err) != 0) return -1;
    double *lp = NULL;
    size_t lpcap = 0;
    uint64_t top1 = 0;
    for (size_t at = 0; at < en; at += EVAL_BATCH) {
        int n = (int)(en - at < EVAL_BATCH ? en - at : EVAL_BATCH);
        for (int i = 0; i < n; i++) nn_batch_set(&batch, m, i, &test->s[eidx[at + (size_t)i]].pos);
        nn_forward_trunk(m, &batch, n);
        nn_forward_value(m, &batch, n);
        nn_forward_submoves(m, &batch, n);
        for (int i = 0; i < n; i++) {
            const ShardSample *s = &test->s[eidx[at + (size_t)i]];
            double y = outcome(s), pw = nn_value_win(&batch, i), base = win[bin_of(&s->pos, ld)];
            rep->v_brier += (pw - y) * (pw - y);
            rep->v_brier_base += (base - y) * (base - y);
            double ds = nn_value_spread(&batch, i) - s->final_spread, dbs = spr[bin_of(&s->pos, ld)] - s->final_spread;
            rep->spread_rmse += ds * ds;
            rep->spread_rmse_base += dbs * dbs;
            if (s->policy_count > 0) { /* P's agreement, on the samples with a P target */
                const NnLegal *lg = &batch.legal[i];
                if ((size_t)lg->n > lpcap) {
                    lpcap = (size_t)lg->n * 2;
                    free(lp);
                    lp = malloc(lpcap * sizeof *lp);
                    if (!lp) abort();
                }
                nn_policy_all(m, &batch, i, lp);
                int best = 0;
                for (int j = 1; j < lg->n; j++)
                    if (lp[j] > lp[best]) best = j;
                rep->p_positions++;
                if (lg->n > 0 && best == nn_legal_find(lg, &m->ps, &s->played)) top1++;
            }
            rep->positions++;
            if (s->opp_leave_known && s->opp_leave.total > 0) {
                Rack pool;
                if (position_unseen(&s->pos, ld, &pool) != 0) continue;
                rep->h_nll -= nn_hidden_logprob(m, &batch, i, &s->opp_leave);
                rep->h_nll_uniform -= nn_uniform_leave_logprob(&pool, &s->opp_leave, m->fs.letters);
                rep->leaves++;
                rep->leave_tiles += (uint64_t)s->opp_leave.total;
            }
        }
    }
    free(lp);
    nn_batch_free(&batch);
    if (rep->positions) {
        double n = (double)rep->positions;
        rep->p_top1 = rep->p_positions ? (double)top1 / (double)rep->p_positions : 0.0;
        rep->v_brier /= n, rep->v_brier_base /= n;
        rep->spread_rmse = sqrt(rep->spread_rmse / n), rep->spread_rmse_base = sqrt(rep->spread_rmse_base / n);
    }
    if (rep->leave_tiles) rep->h_nll /= (double)rep->leave_tiles, rep->h_nll_uniform /= (double)rep->leave_tiles;
    return 0;
}
