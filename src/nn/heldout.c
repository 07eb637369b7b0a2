/*
 * heldout.c - held-out metrics of a network and their baselines (see
 * heldout.h).
 */
#include "heldout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"
#include "nn/leave_tilt.h"

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

/* A growable array of doubles. */
typedef struct DoubleBuf {
    double *v;
    size_t cap;
} DoubleBuf;
static double *dbuf_reserve(DoubleBuf *d, size_t n) {
    if (n > d->cap) {
        free(d->v);
        d->cap = n * 2;
        d->v = malloc(d->cap * sizeof *d->v);
        if (!d->v) abort();
    }
    return d->v;
}

/* Slot i's legal moves valued by static equity (points, in b->legal[i]
 * order), from the move list nn_batch_set_equity left in b->scratch. */
static void legal_equities(const NnModel *m, const NnBatch *b, int i, DoubleBuf *out) {
    const NnLegal *lg = &b->legal[i];
    double *eq = dbuf_reserve(out, (size_t)lg->n + 1);
    for (int j = 0; j < lg->n; j++) eq[j] = NAN;
    for (size_t k = 0; k < b->scratch.count; k++) {
        const Move *mv = &b->scratch.moves[k];
        PackedMove pm;
        packed_from_move(&pm, mv, &b->board[i]);
        int j = nn_legal_find(lg, &m->ps, &pm);
        if (j >= 0) eq[j] = mv->equity / 1000.0;
    }
    /* movegen ranks a pass below every move (an equity of about -1e6 points);
     * for a distribution that gives the search's passes a finite chance it
     * is worth the worst other move less NN_EVAL_STATIC_T points. Every
     * legal move is in the list; the score if one were not. */
    double worst = INFINITY;
    for (int j = 0; j < lg->n; j++) {
        if (isnan(eq[j])) eq[j] = lg->m[j].score;
        if (eq[j] > -100000.0 && eq[j] < worst) worst = eq[j];
    }
    for (int j = 0; j < lg->n; j++)
        if (eq[j] <= -100000.0) eq[j] = isfinite(worst) ? worst - NN_EVAL_STATIC_T : 0.0;
}

static double log_sum_exp(const double *x, int n) {
    double mx = -INFINITY, s = 0.0;
    for (int j = 0; j < n; j++)
        if (x[j] > mx) mx = x[j];
    if (!isfinite(mx)) return mx;
    for (int j = 0; j < n; j++) s += exp(x[j] - mx);
    return mx + log(s);
}

/* Whether legal move j is one of the NN_EVAL_CANDIDATES legal moves of
 * highest equity (the earlier on a tie). */
static bool equity_top(const double *eq, int n, int j) {
    int above = 0;
    for (int k = 0; k < n && above < NN_EVAL_CANDIDATES; k++) above += eq[k] > eq[j] || (eq[k] == eq[j] && k < j);
    return above < NN_EVAL_CANDIDATES;
}

/* P's and the static baselines' scores on one sample with a P target:
 * lp = log P of every legal move, eq = their static equities (NULL: no
 * static baselines). Static equity is scored over every legal move; P x
 * static over the search's candidates, as the search's prior is. */
static void score_policy(const NnModel *m, const ShardSet *set, const ShardSample *s, const NnLegal *lg,
                         const double *lp, const double *eq, DoubleBuf *scratch, NnEvalReport *rep) {
    int played = nn_legal_find(lg, &m->ps, &s->played), best = 0;
    for (int j = 1; j < lg->n; j++)
        if (lp[j] > lp[best]) best = j;
    if (lg->n > 0 && best == played) rep->p_top1 += 1.0;
    /* the target, renormalised over its legal moves */
    double tsum = 0.0;
    for (uint32_t t = 0; t < s->policy_count; t++)
        if (nn_legal_find(lg, &m->ps, &set->pmove[s->policy_start + t]) >= 0) tsum += set->pprob[s->policy_start + t];
    if (tsum <= 0.0) return;
    double lse_s = 0.0, lse_c = 0.0, lse_ps = 0.0;
    double *x = NULL;
    int n = lg->n;
    if (eq) {
        /* x: [0, n) static equity / T over every legal move; [n, 2n) the same over the search's
         * candidates (-inf elsewhere), [2n, 3n) P x static over them. The candidates: equity's top
         * moves, and the target's (valued with the leaves of its own generation, which may rank
         * one just outside) */
        x = dbuf_reserve(scratch, (size_t)n * 3 + 1);
        for (int j = 0; j < n; j++) {
            x[j] = eq[j] / NN_EVAL_STATIC_T;
            x[n + j] = equity_top(eq, n, j) ? x[j] : -INFINITY;
        }
        for (uint32_t t = 0; t < s->policy_count; t++) {
            int j = nn_legal_find(lg, &m->ps, &set->pmove[s->policy_start + t]);
            if (j >= 0 && set->pprob[s->policy_start + t] > 0) x[n + j] = x[j];
        }
        int sbest = 0, pbest = 0;
        for (int j = 0; j < n; j++) {
            x[2 * n + j] = lp[j] + x[n + j];
            if (eq[j] > eq[sbest]) sbest = j;
            if (x[2 * n + j] > x[2 * n + pbest]) pbest = j;
        }
        if (played >= 0 && eq[played] >= eq[sbest]) rep->static_top1 += 1.0; /* one of the best, if tied */
        if (n > 0 && pbest == played) rep->p_static_top1 += 1.0;
        lse_s = log_sum_exp(x, n);
        lse_c = log_sum_exp(x + n, n);
        lse_ps = log_sum_exp(x + 2 * n, n);
    }
    for (uint32_t t = 0; t < s->policy_count; t++) {
        int j = nn_legal_find(lg, &m->ps, &set->pmove[s->policy_start + t]);
        if (j < 0) continue;
        double w = set->pprob[s->policy_start + t] / tsum;
        rep->p_ce -= w * lp[j];
        if (eq) {
            rep->static_ce -= w * (x[j] - lse_s);
            if (w > 0) {
                rep->static_cand_ce -= w * (x[n + j] - lse_c);
                rep->p_static_ce -= w * (x[2 * n + j] - lse_ps);
            }
        }
    }
}

/* ---------------------------------------------------------------- per-game bootstrap */

/* One game's sums of what the report's figures are ratios of. */
typedef struct GameSums {
    uint64_t game;
    double np, top1, ce;                  /* P: positions with a target, hits, cross-entropy */
    double n, brier, brier_base, sq, sq_base; /* V */
    double tiles, h, hu, ht;              /* H: leave tiles, -log P_H, -log P_uniform, -log P_tilted */
} GameSums;

static int by_game(const void *a, const void *b) {
    uint64_t x = ((const GameSums *)a)->game, y = ((const GameSums *)b)->game;
    return x < y ? -1 : x > y;
}

static void sums_add(GameSums *t, const GameSums *s) {
    t->np += s->np, t->top1 += s->top1, t->ce += s->ce;
    t->n += s->n, t->brier += s->brier, t->brier_base += s->brier_base, t->sq += s->sq, t->sq_base += s->sq_base;
    t->tiles += s->tiles, t->h += s->h, t->hu += s->hu, t->ht += s->ht;
}

enum { F_TOP1, F_CE, F_BRIER, F_BRIER_DIFF, F_RMSE, F_RMSE_DIFF, F_H, F_H_DIFF, F_H_TILT_DIFF, F_COUNT };

static void figures(const GameSums *t, double *f) {
    f[F_TOP1] = t->np > 0 ? t->top1 / t->np : 0, f[F_CE] = t->np > 0 ? t->ce / t->np : 0;
    f[F_BRIER] = t->n > 0 ? t->brier / t->n : 0, f[F_BRIER_DIFF] = t->n > 0 ? (t->brier - t->brier_base) / t->n : 0;
    f[F_RMSE] = t->n > 0 ? sqrt(t->sq / t->n) : 0;
    f[F_RMSE_DIFF] = t->n > 0 ? sqrt(t->sq / t->n) - sqrt(t->sq_base / t->n) : 0;
    f[F_H] = t->tiles > 0 ? t->h / t->tiles : 0, f[F_H_DIFF] = t->tiles > 0 ? (t->h - t->hu) / t->tiles : 0;
    f[F_H_TILT_DIFF] = t->tiles > 0 ? (t->h - t->ht) / t->tiles : 0;
}

/* Sorts the per-sample sums by game, merges each game's, and bootstraps the
 * games into rep's standard errors. */
static void bootstrap(GameSums *rec, size_t nrec, NnEvalReport *rep) {
    qsort(rec, nrec, sizeof *rec, by_game);
    size_t g = 0;
    for (size_t i = 0; i < nrec; i++) {
        if (g > 0 && rec[g - 1].game == rec[i].game) sums_add(&rec[g - 1], &rec[i]);
        else rec[g++] = rec[i];
    }
    rep->games = g;
    if (g < 2) return;
    Rng rng;
    rng_seed(&rng, UINT64_C(0x6e6e6576616c)); /* fixed: the same figures every time */
    double sum[F_COUNT] = {0}, sq[F_COUNT] = {0}, f[F_COUNT];
    for (int b = 0; b < NN_EVAL_BOOTSTRAP; b++) {
        GameSums t = {0};
        for (size_t k = 0; k < g; k++) sums_add(&t, &rec[rng_below(&rng, g)]);
        figures(&t, f);
        for (int j = 0; j < F_COUNT; j++) sum[j] += f[j], sq[j] += f[j] * f[j];
    }
    double se[F_COUNT];
    for (int j = 0; j < F_COUNT; j++) {
        double mean = sum[j] / NN_EVAL_BOOTSTRAP, var = sq[j] / NN_EVAL_BOOTSTRAP - mean * mean;
        se[j] = var > 0 ? sqrt(var * NN_EVAL_BOOTSTRAP / (NN_EVAL_BOOTSTRAP - 1)) : 0;
    }
    rep->p_top1_se = se[F_TOP1], rep->p_ce_se = se[F_CE];
    rep->v_brier_se = se[F_BRIER], rep->v_brier_diff_se = se[F_BRIER_DIFF];
    rep->spread_rmse_se = se[F_RMSE], rep->spread_rmse_diff_se = se[F_RMSE_DIFF];
    rep->h_nll_se = se[F_H], rep->h_nll_diff_se = se[F_H_DIFF], rep->h_nll_tilt_diff_se = se[F_H_TILT_DIFF];
}

/* The tilted draw fitted on an even stride of at most NN_EVAL_TILT_SAMPLES
 * of the training samples. */
static int fit_tilt(LeaveTilt *t, int letters, const LetterDist *ld, const ShardSet *train, const size_t *tidx,
                    size_t tn, RkError *err) {
    size_t n = tn < NN_EVAL_TILT_SAMPLES ? tn : NN_EVAL_TILT_SAMPLES;
    size_t *sub = malloc((n ? n : 1) * sizeof *sub);
    if (sub == NULL) return rk_error(err, "nn eval: out of memory");
    for (size_t k = 0; k < n; k++) sub[k] = tidx[(size_t)((double)k * (double)tn / (double)n)];
    leave_tilt_fit(t, letters, ld, train, sub, n, NN_EVAL_TILT_ITERATIONS);
    free(sub);
    return 0;
}

/* What an evaluation works with: the model, the baselines fitted on the training samples,
 * and the batch and buffers reused from one batch of test samples to the next. */
typedef struct EvalState {
    const NnModel *m;
    const LetterDist *ld;
    LeaveValueFn leave_value; /* NULL: no static baselines */
    const void *leave_ctx;
    /* the baseline: mean outcome and spread per bin, smoothed towards the overall mean */
    double win[SPREAD_BINS * UNSEEN_BINS], spr[SPREAD_BINS * UNSEEN_BINS];
    LeaveTilt tilt;
    NnBatch batch;
    DoubleBuf lp, scratch, eq[EVAL_BATCH];
} EvalState;

/* Fits st's per-bin baseline (mean outcome and spread) on the training samples. */
static void fit_baseline(EvalState *st, const ShardSet *train, const size_t *tidx, size_t tn) {
    double *win = st->win, *spr = st->spr;
    double cnt[SPREAD_BINS * UNSEEN_BINS] = {0}, all_win = 0, all_spr = 0;
    for (size_t k = 0; k < tn; k++) {
        const ShardSample *s = &train->s[tidx[k]];
        int b = bin_of(&s->pos, st->ld);
        win[b] += outcome(s), spr[b] += s->final_spread, cnt[b] += 1;
        all_win += outcome(s), all_spr += s->final_spread;
    }
    if (tn) all_win /= (double)tn, all_spr /= (double)tn;
    for (int b = 0; b < SPREAD_BINS * UNSEEN_BINS; b++) {
        win[b] = (win[b] + all_win) / (cnt[b] + 1.0);
        spr[b] = (spr[b] + all_spr) / (cnt[b] + 1.0);
    }
}

/* Sets the batch's slots 0..n-1 to test samples eidx[at..], each with a P target also
 * valued by static equity when there are static baselines. */
static void fill_batch(EvalState *st, const ShardSet *test, const size_t *eidx, size_t at, int n) {
    for (int i = 0; i < n; i++) {
        const ShardSample *s = &test->s[eidx[at + (size_t)i]];
        if (!st->leave_value || s->policy_count == 0) {
            nn_batch_set(&st->batch, st->m, i, &s->pos);
            continue;
        }
        Rack pool; /* the opponent's rack counts only with an empty bag, where it is the unseen pool */
        int opp = position_unseen(&s->pos, st->ld, &pool) == 0 ? rack_score(&pool, st->ld) : 0;
        NnMoveEquity me = {st->leave_value, st->leave_ctx, opp, 0};
        nn_batch_set_equity(&st->batch, st->m, i, &s->pos, &me);
        legal_equities(st->m, &st->batch, i, &st->eq[i]);
    }
}

/* Adds test sample s (the batch's slot i, forwarded) to rep's sums; returns what it added,
 * for the bootstrap. */
static GameSums score_sample(EvalState *st, const ShardSet *test, const ShardSample *s, int i, NnEvalReport *rep) {
    const NnModel *m = st->m;
    const LetterDist *ld = st->ld;
    const NnEvalReport before = *rep; /* this sample's share is what it adds */
    double y = outcome(s), pw = nn_value_win(&st->batch, i), base = st->win[bin_of(&s->pos, ld)];
    rep->v_brier += (pw - y) * (pw - y);
    rep->v_brier_base += (base - y) * (base - y);
    double ds = nn_value_spread(&st->batch, i) - s->final_spread, dbs = st->spr[bin_of(&s->pos, ld)] - s->final_spread;
    rep->spread_rmse += ds * ds;
    rep->spread_rmse_base += dbs * dbs;
    if (s->policy_count > 0) { /* P's agreement, on the samples with a P target */
        const NnLegal *lg = &st->batch.legal[i];
        double *l = dbuf_reserve(&st->lp, (size_t)lg->n + 1);
        nn_policy_all(m, &st->batch, i, l);
        rep->p_positions++;
        score_policy(m, test, s, lg, l, st->leave_value ? st->eq[i].v : NULL, &st->scratch, rep);
    }
    rep->positions++;
    Rack pool;
    if (s->opp_leave_known && s->opp_leave.total > 0 && position_unseen(&s->pos, ld, &pool) == 0) {
        rep->h_nll -= nn_hidden_logprob(m, &st->batch, i, &s->opp_leave);
        rep->h_nll_uniform -= nn_uniform_leave_logprob(&pool, &s->opp_leave, m->fs.letters);
        rep->h_nll_tilt -= leave_tilt_logprob(&st->tilt, &pool, &s->opp_leave);
        rep->leaves++;
        rep->leave_tiles += (uint64_t)s->opp_leave.total;
    }
    return (GameSums){
        .game = s->game,
        .np = (double)(rep->p_positions - before.p_positions),
        .top1 = rep->p_top1 - before.p_top1,
        .ce = rep->p_ce - before.p_ce,
        .n = 1.0,
        .brier = rep->v_brier - before.v_brier,
        .brier_base = rep->v_brier_base - before.v_brier_base,
        .sq = rep->spread_rmse - before.spread_rmse,
        .sq_base = rep->spread_rmse_base - before.spread_rmse_base,
        .tiles = (double)(rep->leave_tiles - before.leave_tiles),
        .h = rep->h_nll - before.h_nll,
        .hu = rep->h_nll_uniform - before.h_nll_uniform,
        .ht = rep->h_nll_tilt - before.h_nll_tilt,
    };
}

/* Turns rep's sums into the means (and root mean squares) it reports. */
static void report_means(NnEvalReport *rep) {
    if (rep->p_positions) {
        double np = (double)rep->p_positions;
        rep->p_top1 /= np, rep->p_ce /= np;
        rep->static_top1 /= np, rep->static_ce /= np, rep->static_cand_ce /= np, rep->p_static_ce /= np;
        rep->p_static_top1 /= np;
    }
    if (rep->positions) {
        double n = (double)rep->positions;
        rep->v_brier /= n, rep->v_brier_base /= n;
        rep->spread_rmse = sqrt(rep->spread_rmse / n), rep->spread_rmse_base = sqrt(rep->spread_rmse_base / n);
    }
    if (rep->leave_tiles) {
        double t = (double)rep->leave_tiles;
        rep->h_nll /= t, rep->h_nll_uniform /= t, rep->h_nll_tilt /= t;
    }
}

int nn_evaluate(const NnModel *m, const NnFeatureContext *fc, const ShardSet *train, const size_t *tidx, size_t tn,
                const ShardSet *test, const size_t *eidx, size_t en, LeaveValueFn leave_value,
                const void *leave_ctx, NnEvalReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    rep->has_static = leave_value != NULL;
    EvalState st = {.m = m, .ld = fc->ld, .leave_value = leave_value, .leave_ctx = leave_ctx};
    fit_baseline(&st, train, tidx, tn);
    if (fit_tilt(&st.tilt, m->fs.letters, st.ld, train, tidx, tn, err) != 0) return -1;
    GameSums *rec = calloc(en ? en : 1, sizeof *rec); /* one a test sample */
    if (rec == NULL) return rk_error(err, "nn eval: out of memory for %zu positions", en);
    if (nn_batch_init(&st.batch, m, fc, EVAL_BATCH, err) != 0) {
        free(rec);
        return -1;
    }
    for (size_t at = 0; at < en; at += EVAL_BATCH) {
        int n = (int)(en - at < EVAL_BATCH ? en - at : EVAL_BATCH);
        fill_batch(&st, test, eidx, at, n);
        nn_forward_trunk(m, &st.batch, n);
        nn_forward_value(m, &st.batch, n);
        nn_forward_submoves(m, &st.batch, n);
        for (int i = 0; i < n; i++)
            rec[at + (size_t)i] = score_sample(&st, test, &test->s[eidx[at + (size_t)i]], i, rep);
    }
    free(st.lp.v), free(st.scratch.v);
    for (int i = 0; i < EVAL_BATCH; i++) free(st.eq[i].v);
    nn_batch_free(&st.batch);
    report_means(rep);
    bootstrap(rec, en, rep);
    free(rec);
    return 0;
}
