/*
 * spv_derive.c - SPV accumulators and the table derived from them (see
 * spv_derive.h for the formulas).
 *
 * Method. Every quantity is a function of integer sums only: per cell and
 * stratum the count n, the residual sum s1 and the square sum
 * q = word2 * 2^32 + word3 (a 128-bit integer, exact). So nothing depends
 * on the order in which the accumulators were filled or reduced. From those
 * sums the doubles are computed in one fixed order (strata ascending, then
 * squares, then buckets), and each output value is rounded to float once.
 *
 * The squared deviation of a cell's residuals about its stratum's baseline
 * is split as M2 = W + (s1 - n*base)^2 / n, where W = (n*q - s1^2) / n is the
 * within-cell part, formed exactly in 128-bit integers (so a huge common
 * offset cannot cancel it away); only if that product would overflow 128
 * bits (far beyond any real run) is it q - s1^2/n in double, clamped at 0.
 *
 * Guards the header formula leaves open: a bucket whose squared deviation is
 * 0 everywhere gets var' = 0 rather than 0/0, and every table value is
 * clamped to +-SPV_MAX_ABS_VALUE so that the table written from it always
 * loads (spv_load rejects larger values).
 */
#include "spv_derive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 Wide;
#define SPV_WIDE_EXACT 1
#else
typedef long double Wide;
#define SPV_WIDE_EXACT 0
#endif

/* ------------------------------------------------------------ accumulators */

size_t spv_accum_words(uint32_t num_openness, uint32_t num_phases, uint32_t num_squares, uint32_t num_buckets) {
    return (size_t)num_openness * (size_t)num_phases * (size_t)num_squares * (size_t)num_buckets * SPV_ACCUM_WORDS;
}

static int check_dims(uint32_t num_openness, uint32_t num_phases, uint32_t num_squares, uint32_t num_buckets,
                      RkError *err) {
    if (num_openness < 1 || num_openness > SPV_MAX_OPENNESS)
        return rk_error(err, "SPV accumulators: %u openness buckets, expected 1..%d", num_openness,
                        SPV_MAX_OPENNESS);
    if (num_phases < 1 || num_phases > SPV_MAX_PHASES)
        return rk_error(err, "SPV accumulators: %u phase buckets, expected 1..%d", num_phases, SPV_MAX_PHASES);
    if (num_squares < 1 || num_squares > SPV_ACCUM_MAX_SQUARES)
        return rk_error(err, "SPV accumulators: %u squares, expected 1..%d", num_squares, SPV_ACCUM_MAX_SQUARES);
    if (num_buckets < 1 || num_buckets > SPV_MAX_BUCKETS)
        return rk_error(err, "SPV accumulators: %u tile buckets, expected 1..%d", num_buckets,
                        SPV_MAX_BUCKETS);
    return 0;
}

int spv_accum_init(SpvAccum *a, uint32_t num_openness, uint32_t num_phases, uint32_t num_squares,
                   uint32_t num_buckets, int64_t *storage, RkError *err) {
    memset(a, 0, sizeof *a);
    if (check_dims(num_openness, num_phases, num_squares, num_buckets, err) != 0) return -1;
    size_t n = spv_accum_words(num_openness, num_phases, num_squares, num_buckets);
    if (storage == NULL) {
        a->data = calloc(n, sizeof *a->data);
        if (a->data == NULL)
            return rk_error(err, "SPV accumulators: out of memory for %zu words", n);
        a->owned = true;
    } else {
        memset(storage, 0, n * sizeof *storage);
        a->data = storage;
        a->owned = false;
    }
    a->num_openness = num_openness;
    a->num_phases = num_phases;
    a->num_squares = num_squares;
    a->num_buckets = num_buckets;
    a->n = n;
    return 0;
}

void spv_accum_free(SpvAccum *a) {
    if (a == NULL) return;
    if (a->owned) free(a->data);
    memset(a, 0, sizeof *a);
}

void spv_accum_clear(SpvAccum *a) {
    if (a == NULL || a->data == NULL) return;
    memset(a->data, 0, a->n * sizeof *a->data);
}

/* ------------------------------------------------------------- deriving */

/* Integer sums of one cell in one stratum: n observations, s1 = sum r,
 * q = sum r^2 (millipoints). */
typedef struct Sums {
    int64_t n, s1;
    Wide q;
} Sums;

static Sums cell_sums(const SpvAccum *a, uint32_t t, uint32_t sq, uint32_t b) {
    const int64_t *w = a->data + (((size_t)t * a->num_squares + sq) * a->num_buckets + b) * SPV_ACCUM_WORDS;
    Sums s = {w[0], w[1], (Wide)w[2] * (Wide)4294967296.0 + (Wide)w[3]};
    return s;
}

/* W = sum (r - mean)^2 of an observed cell, mp^2: (n*q - s1^2) / n. */
static double within(const Sums *s) {
#if SPV_WIDE_EXACT
    Wide nq, s1s1;
    if (!__builtin_mul_overflow((Wide)s->n, s->q, &nq) &&
        !__builtin_mul_overflow((Wide)s->s1, (Wide)s->s1, &s1s1)) {
        Wide num = nq - s1s1;
        return num > 0 ? (double)num / (double)s->n : 0.0;
    }
#endif
    double v = (double)s->q - (double)s->s1 * ((double)s->s1 / (double)s->n);
    return v > 0.0 ? v : 0.0;
}

/* M2 = sum (r - base)^2 of an observed cell, mp^2 (base in mp). */
static double sq_dev(const Sums *s, double base) {
    double d = (double)s->s1 - (double)s->n * base;
    return within(s) + d * d / (double)s->n;
}

static double clamp_abs(double v) {
    if (v > SPV_MAX_ABS_VALUE) return SPV_MAX_ABS_VALUE;
    if (v < -SPV_MAX_ABS_VALUE) return -SPV_MAX_ABS_VALUE;
    return v;
}

static bool prior_ok(double k) { return k == SPV_PRIOR_AUTO || (k >= 0.0 && isfinite(k)); }

/* The shrinkage factor n / (n + k). */
static double shrink(double n, double k) { return n / (n + k); }

/* The priors in force per bucket: the given ones, or with SPV_PRIOR_AUTO the
 * empirical-Bayes estimate noise / signal (spv_derive.h), capped at
 * SPV_PRIOR_MAX. */
static double eb_prior(double sum_sq_over_n, double cells, double total_n, double noise) {
    if (!(total_n > 0.0) || !(noise > 0.0)) return 0.0;
    double tau2 = (sum_sq_over_n - (cells - 1.0) * noise) / total_n;
    if (!(tau2 > 0.0)) return SPV_PRIOR_MAX;
    double k = noise / tau2;
    return k < SPV_PRIOR_MAX ? k : SPV_PRIOR_MAX;
}

/* True if every bucket's mean prior is at SPV_PRIOR_MAX (no signal anywhere). */
static bool k_mean_all_capped(const double *k_mean, uint32_t B) {
    for (uint32_t b = 0; b < B; b++)
        if (k_mean[b] < SPV_PRIOR_MAX) return false;
    return true;
}

static void empirical_priors(uint32_t S, uint32_t B, const int64_t *n, const double *dev, const double *ex,
                             const int64_t *tot_n, const double *tot_m2, double prior_mean, double prior_var,
                             double *k_mean, double *k_var) {
    for (uint32_t b = 0; b < B; b++) {
        double cells = 0.0, sd2 = 0.0, se2 = 0.0;
        for (uint32_t sq = 0; sq < S; sq++) {
            size_t at = (size_t)sq * B + b;
            if (n[at] <= 0) continue;
            cells += 1.0;
            sd2 += dev[at] * dev[at] / (double)n[at];
            se2 += ex[at] * ex[at] / (double)n[at];
        }
        double s2 = tot_n[b] > 0 ? tot_m2[b] / (double)tot_n[b] : 0.0;
        k_mean[b] = prior_mean != SPV_PRIOR_AUTO ? prior_mean : eb_prior(sd2, cells, (double)tot_n[b], s2);
        k_var[b] = prior_var != SPV_PRIOR_AUTO ? prior_var : eb_prior(se2, cells, (double)tot_n[b], 2.0 * s2 * s2);
    }
}

/* Per stratum and bucket: the baseline (mp) and mean squared deviation (mp^2). */
typedef struct Baselines {
    double base[SPV_MAX_BUCKETS], m2[SPV_MAX_BUCKETS];
} Baselines;

static void stratum_baselines(const SpvAccum *a, uint32_t t, Baselines *bl) {
    const uint32_t S = a->num_squares, B = a->num_buckets;
    for (uint32_t b = 0; b < B; b++) {
        int64_t n = 0;
        Wide s1 = 0;
        for (uint32_t sq = 0; sq < S; sq++) {
            Sums s = cell_sums(a, t, sq, b);
            n += s.n;
            s1 += (Wide)s.s1;
        }
        bl->base[b] = n > 0 ? (double)s1 / (double)n : 0.0;
        double m2 = 0.0;
        if (n > 0) {
            for (uint32_t sq = 0; sq < S; sq++) {
                Sums s = cell_sums(a, t, sq, b);
                if (s.n > 0) m2 += sq_dev(&s, bl->base[b]);
            }
            m2 /= (double)n;
        }
        bl->m2[b] = m2;
    }
}

/* spv_derive's inputs checked: the accumulators' dimensions and size, the output table's
 * shape, the priors. 0, or -1 with err set. */
static int check_derive_inputs(const SpvAccum *a, const Spv *out, double prior_mean, double prior_var,
                               RkError *err) {
    if (a == NULL || a->data == NULL) return rk_error(err, "SPV derive: no accumulators");
    if (check_dims(a->num_openness, a->num_phases, a->num_squares, a->num_buckets, err) != 0) return -1;
    size_t need = spv_accum_words(a->num_openness, a->num_phases, a->num_squares, a->num_buckets);
    if (a->n != need)
        return rk_error(err, "SPV derive: accumulators hold %zu words, their dimensions need %zu", a->n, need);
    if (out == NULL || out->mean == NULL) return rk_error(err, "SPV derive: no output table");
    if (out->num_squares != a->num_squares || out->num_buckets != a->num_buckets)
        return rk_error(err,
                        "SPV derive: table of %u squares x %u buckets, accumulators of %u x %u",
                        out->num_squares, out->num_buckets, a->num_squares, a->num_buckets);
    if (out->var == NULL) return rk_error(err, "SPV derive: the output table has no variance table");
    if (out->num_openness != a->num_openness && !(out->num_openness == 0 && a->num_openness == 1))
        return rk_error(err, "SPV derive: table of %u openness buckets, accumulators of %u",
                        out->num_openness, a->num_openness);
    if (!prior_ok(prior_mean) || !prior_ok(prior_var))
        return rk_error(err, "SPV derive: priors must be finite and >= 0, or SPV_PRIOR_AUTO (mean %g, var %g)",
                        prior_mean, prior_var);
    return 0;
}

/* The cells' sums pooled over strata, each stratum's residuals taken about its own baseline. */
typedef struct Pooled {
    size_t cells; /* squares x buckets */
    /* per cell, pooled over strata: n, sum of excess residual (mp), sum of
     * excess squared deviation (mp^2) */
    int64_t *n;
    double *dev, *ex;
    /* per openness bucket and cell: count and excess residual (for the multipliers) */
    int64_t *on;
    double *od;
    /* per bucket, pooled totals for sd[b] and info */
    double tot_m2[SPV_MAX_BUCKETS];
    Wide tot_s1[SPV_MAX_BUCKETS];
    int64_t tot_n[SPV_MAX_BUCKETS];
} Pooled;

static void pooled_free(Pooled *p) { free(p->n), free(p->dev), free(p->ex), free(p->on), free(p->od); }

/* Baselines per stratum and bucket, and every observed cell's sums pooled into p (whose
 * arrays are zeroed). */
static void pool_strata(const SpvAccum *a, Pooled *p) {
    const uint32_t S = a->num_squares, B = a->num_buckets, T = a->num_openness * a->num_phases;
    const size_t cells = p->cells;
    for (uint32_t t = 0; t < T; t++) {
        Baselines bl;
        stratum_baselines(a, t, &bl);
        uint32_t o = t / a->num_phases;
        for (uint32_t sq = 0; sq < S; sq++)
            for (uint32_t b = 0; b < B; b++) {
                Sums s = cell_sums(a, t, sq, b);
                if (s.n <= 0) continue;
                size_t at = (size_t)sq * B + b;
                double d = (double)s.s1 - (double)s.n * bl.base[b];
                double m2 = sq_dev(&s, bl.base[b]);
                p->n[at] += s.n;
                p->dev[at] += d;
                p->ex[at] += m2 - (double)s.n * bl.m2[b];
                p->on[o * cells + at] += s.n;
                p->od[o * cells + at] += d;
                p->tot_n[b] += s.n;
                p->tot_s1[b] += (Wide)s.s1;
                p->tot_m2[b] += m2;
            }
    }
}

/* The mean and variance tables (points), shrunk towards 0; the observations, observed cells
 * and the sum of n |mean| into *info's counterparts. */
static void mean_tables(const Pooled *p, uint32_t B, const double *sd, const double *k_mean, const double *k_var,
                        Spv *out, uint64_t *observations, uint32_t *cells_observed, double *abs_sum) {
    for (size_t at = 0; at < p->cells; at++) {
        uint32_t b = (uint32_t)(at % B);
        if (p->n[at] <= 0) {
            out->mean[at] = 0.0f;
            out->var[at] = 0.0f;
            continue;
        }
        double nn = (double)p->n[at];
        double mp = clamp_abs(p->dev[at] / nn / 1000.0 * shrink(nn, k_mean[b]));
        double vp = 0.0;
        if (sd[b] > 0.0) vp = clamp_abs(p->ex[at] / nn / 1.0e6 * shrink(nn, k_var[b]) / (2.0 * sd[b]));
        out->mean[at] = (float)mp;
        out->var[at] = (float)vp;
        *observations += (uint64_t)p->n[at];
        (*cells_observed)++;
        *abs_sum += nn * fabs(mp);
    }
}

/* Openness multipliers: least squares of bucket o's excess residuals on
 * the mean table derived without bucket o (leave one out). */
static void openness_multipliers(const Pooled *p, uint32_t B, const double *k_mean, Spv *out) {
    const size_t cells = p->cells;
    for (uint32_t o = 0; o < out->num_openness; o++) {
        double num = 0.0, den = 0.0;
        for (size_t at = 0; at < cells; at++) {
            int64_t no = p->on[o * cells + at], rest = p->n[at] - no;
            if (no <= 0 || rest <= 0) continue;
            double nr = (double)rest;
            double mr = (p->dev[at] - p->od[o * cells + at]) / nr / 1000.0 * shrink(nr, k_mean[at % B]);
            num += p->od[o * cells + at] / 1000.0 * mr;
            den += (double)no * mr * mr;
        }
        double m = 1.0;
        if (den > 0.0 && k_mean_all_capped(k_mean, B)) den = 0.0; /* no table to scale: report 1 */
        if (den > 0.0) {
            m = num / den;
            if (!(m > 0.0)) m = 0.0;
            if (m > SPV_MULT_MAX) m = SPV_MULT_MAX;
        }
        out->openness[o] = (float)m;
    }
}

int spv_derive(const SpvAccum *a, const SpvDeriveOptions *opt, Spv *out, SpvDeriveInfo *info, RkError *err) {
    double prior_mean = opt != NULL ? opt->prior_mean : 0.0;
    double prior_var = opt != NULL ? opt->prior_var : 0.0;
    if (check_derive_inputs(a, out, prior_mean, prior_var, err) != 0) return -1;

    const uint32_t S = a->num_squares, B = a->num_buckets;
    Pooled p = {.cells = (size_t)S * B};
    p.n = calloc(p.cells, sizeof *p.n);
    p.dev = calloc(p.cells, sizeof *p.dev), p.ex = calloc(p.cells, sizeof *p.ex);
    p.on = calloc(p.cells * a->num_openness, sizeof *p.on);
    p.od = calloc(p.cells * a->num_openness, sizeof *p.od);
    if (p.n == NULL || p.dev == NULL || p.ex == NULL || p.on == NULL || p.od == NULL) {
        pooled_free(&p);
        return rk_error(err, "SPV derive: out of memory");
    }
    pool_strata(a, &p);
    double sd[SPV_MAX_BUCKETS], k_mean[SPV_MAX_BUCKETS], k_var[SPV_MAX_BUCKETS];
    for (uint32_t b = 0; b < B; b++) sd[b] = p.tot_n[b] > 0 ? sqrt(p.tot_m2[b] / (double)p.tot_n[b]) / 1000.0 : 0.0;
    empirical_priors(S, B, p.n, p.dev, p.ex, p.tot_n, p.tot_m2, prior_mean, prior_var, k_mean, k_var);

    uint64_t observations = 0;
    uint32_t cells_observed = 0;
    double abs_sum = 0.0;
    mean_tables(&p, B, sd, k_mean, k_var, out, &observations, &cells_observed, &abs_sum);
    openness_multipliers(&p, B, k_mean, out);

    out->flags |= SPV_FLAG_VARIANCE;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->observations = observations;
        info->cells_observed = cells_observed;
        for (uint32_t b = 0; b < B; b++) {
            info->base_mean[b] = p.tot_n[b] > 0 ? (double)p.tot_s1[b] / (double)p.tot_n[b] / 1000.0 : 0.0;
            info->base_sd[b] = sd[b];
            info->prior_mean[b] = k_mean[b];
            info->prior_var[b] = k_var[b];
        }
        info->mean_abs = observations > 0 ? abs_sum / (double)observations : 0.0;
    }
    pooled_free(&p);
    return 0;
}
