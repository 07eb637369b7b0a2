/*
 * spv_derive.c - SPV accumulators and the table derived from them (see
 * spv_derive.h).
 *
 * Method. Every quantity is a function of integer sums only: per cell the
 * count n, the residual sum s1 and the square sum q = word2 * 2^32 + word3
 * (a 128-bit integer, exact), pooled over the openness strata by integer
 * addition. So nothing depends on the order in which the accumulators were
 * filled or reduced. From those sums the doubles are computed in one fixed
 * order (squares ascending, then buckets ascending; strata ascending for
 * the multipliers), and each output value is rounded to float once.
 *
 * The variance of a cell is (n*q - s1^2) / n^2, with the numerator formed
 * exactly in 128-bit integers (it is >= 0 for real data, so the variance is
 * never negative through cancellation); only if that product would overflow
 * 128 bits (far beyond any real run) is it q/n - (s1/n)^2 in double,
 * clamped at 0. The mean table's baseline sum_sq s1 / sum_sq n is formed
 * from exact integer totals as well.
 *
 * Guards the header formula leaves open: a bucket whose baseline variance is
 * 0 (every observed cell has variance 0) gets var' = 0 rather than 0/0, and
 * every table value is clamped to +-SPV_MAX_ABS_VALUE so that the table
 * written from it always loads (spv_load rejects larger values).
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

size_t spv_accum_words(uint32_t num_openness, uint32_t num_squares, uint32_t num_buckets) {
    return (size_t)num_openness * (size_t)num_squares * (size_t)num_buckets * SPV_ACCUM_WORDS;
}

static int check_dims(uint32_t num_openness, uint32_t num_squares, uint32_t num_buckets, RkError *err) {
    if (num_openness < 1 || num_openness > SPV_MAX_OPENNESS)
        return rk_error(err, "SPV accumulators: %u openness buckets, expected 1..%d", num_openness,
                        SPV_MAX_OPENNESS);
    if (num_squares < 1 || num_squares > RK_MAX_SQUARES)
        return rk_error(err, "SPV accumulators: %u squares, expected 1..%d", num_squares, RK_MAX_SQUARES);
    if (num_buckets < 1 || num_buckets > SPV_MAX_BUCKETS)
        return rk_error(err, "SPV accumulators: %u tile buckets, expected 1..%d", num_buckets,
                        SPV_MAX_BUCKETS);
    return 0;
}

int spv_accum_init(SpvAccum *a, uint32_t num_openness, uint32_t num_squares, uint32_t num_buckets,
                   int64_t *storage, RkError *err) {
    memset(a, 0, sizeof *a);
    if (check_dims(num_openness, num_squares, num_buckets, err) != 0) return -1;
    size_t n = spv_accum_words(num_openness, num_squares, num_buckets);
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

/* Integer sums of one cell: n observations, s1 = sum r, q = sum r^2
 * (millipoints). */
typedef struct Sums {
    int64_t n, s1;
    Wide q;
} Sums;

static void add_words(Sums *s, const int64_t *w) {
    s->n += w[0];
    s->s1 += w[1];
    s->q += (Wide)w[2] * (Wide)4294967296.0 + (Wide)w[3];
}

static const int64_t *cell_words(const SpvAccum *a, uint32_t o, uint32_t sq, uint32_t b) {
    return a->data + (((size_t)o * a->num_squares + sq) * a->num_buckets + b) * SPV_ACCUM_WORDS;
}

/* The sums of (sq, b) pooled over the strata. */
static Sums pooled(const SpvAccum *a, uint32_t sq, uint32_t b) {
    Sums s = {0, 0, 0};
    for (uint32_t o = 0; o < a->num_openness; o++)
        add_words(&s, cell_words(a, o, sq, b));
    return s;
}

static Sums stratum(const SpvAccum *a, uint32_t o, uint32_t sq, uint32_t b) {
    Sums s = {0, 0, 0};
    add_words(&s, cell_words(a, o, sq, b));
    return s;
}

/* Mean of an observed cell (s->n > 0), points. */
static double cell_mean(const Sums *s) { return (double)s->s1 / (double)s->n / 1000.0; }

/* Population variance of an observed cell, points^2. */
static double cell_var(const Sums *s) {
#if SPV_WIDE_EXACT
    Wide nq, s1s1;
    if (!__builtin_mul_overflow((Wide)s->n, s->q, &nq) &&
        !__builtin_mul_overflow((Wide)s->s1, (Wide)s->s1, &s1s1)) {
        Wide num = nq - s1s1;
        if (num <= 0) return 0.0;
        return (double)num / ((double)s->n * (double)s->n) / 1.0e6;
    }
#endif
    double m = (double)s->s1 / (double)s->n;
    double v = (double)s->q / (double)s->n - m * m;
    return v > 0.0 ? v / 1.0e6 : 0.0;
}

static double clamp_abs(double v) {
    if (v > SPV_MAX_ABS_VALUE) return SPV_MAX_ABS_VALUE;
    if (v < -SPV_MAX_ABS_VALUE) return -SPV_MAX_ABS_VALUE;
    return v;
}

/* mean' of cell (sq, b), in double (0 when unobserved). */
static double mean_prime(const Sums *s, double base_mean, double prior) {
    if (s->n <= 0) return 0.0;
    double n = (double)s->n;
    return clamp_abs((cell_mean(s) - base_mean) * (n / (n + prior)));
}

int spv_derive(const SpvAccum *a, const SpvDeriveOptions *opt, Spv *out, SpvDeriveInfo *info, RkError *err) {
    if (a == NULL || a->data == NULL) return rk_error(err, "SPV derive: no accumulators");
    if (check_dims(a->num_openness, a->num_squares, a->num_buckets, err) != 0) return -1;
    if (a->n != spv_accum_words(a->num_openness, a->num_squares, a->num_buckets))
        return rk_error(err, "SPV derive: accumulators hold %zu words, their dimensions need %zu", a->n,
                        spv_accum_words(a->num_openness, a->num_squares, a->num_buckets));
    if (out == NULL || out->mean == NULL) return rk_error(err, "SPV derive: no output table");
    if (out->num_squares != a->num_squares || out->num_buckets != a->num_buckets)
        return rk_error(err,
                        "SPV derive: table of %u squares x %u buckets, accumulators of %u x %u",
                        out->num_squares, out->num_buckets, a->num_squares, a->num_buckets);
    if (out->var == NULL) return rk_error(err, "SPV derive: the output table has no variance table");
    if (out->num_openness != a->num_openness && !(out->num_openness == 0 && a->num_openness == 1))
        return rk_error(err, "SPV derive: table of %u openness buckets, accumulators of %u",
                        out->num_openness, a->num_openness);
    double prior_mean = opt != NULL ? opt->prior_mean : 0.0;
    double prior_var = opt != NULL ? opt->prior_var : 0.0;
    if (!(prior_mean >= 0.0) || !(prior_var >= 0.0) || !isfinite(prior_mean) || !isfinite(prior_var))
        return rk_error(err, "SPV derive: priors must be finite and >= 0 (mean %g, var %g)", prior_mean,
                        prior_var);

    const uint32_t S = a->num_squares, B = a->num_buckets;

    /* Baselines per bucket: exact totals for the mean, then sum n*var. */
    Wide tot_s1[SPV_MAX_BUCKETS];
    int64_t tot_n[SPV_MAX_BUCKETS];
    double tot_nvar[SPV_MAX_BUCKETS];
    double base_mean[SPV_MAX_BUCKETS], base_var[SPV_MAX_BUCKETS], sd[SPV_MAX_BUCKETS];
    for (uint32_t b = 0; b < B; b++) {
        tot_s1[b] = 0;
        tot_n[b] = 0;
        tot_nvar[b] = 0.0;
    }
    uint64_t observations = 0;
    uint32_t cells_observed = 0;
    for (uint32_t sq = 0; sq < S; sq++)
        for (uint32_t b = 0; b < B; b++) {
            Sums s = pooled(a, sq, b);
            if (s.n <= 0) continue;
            tot_n[b] += s.n;
            tot_s1[b] += (Wide)s.s1;
            tot_nvar[b] += (double)s.n * cell_var(&s);
            observations += (uint64_t)s.n;
            cells_observed++;
        }
    for (uint32_t b = 0; b < B; b++) {
        if (tot_n[b] > 0) {
            base_mean[b] = (double)tot_s1[b] / (double)tot_n[b] / 1000.0;
            base_var[b] = tot_nvar[b] / (double)tot_n[b];
        } else {
            base_mean[b] = base_var[b] = 0.0;
        }
        sd[b] = base_var[b] > 0.0 ? sqrt(base_var[b]) : 0.0;
    }

    /* The tables. */
    double abs_sum = 0.0;
    for (uint32_t sq = 0; sq < S; sq++)
        for (uint32_t b = 0; b < B; b++) {
            Sums s = pooled(a, sq, b);
            size_t at = (size_t)sq * B + b;
            if (s.n <= 0) {
                out->mean[at] = 0.0f;
                out->var[at] = 0.0f;
                continue;
            }
            double n = (double)s.n;
            double mp = mean_prime(&s, base_mean[b], prior_mean);
            double vp = 0.0;
            if (sd[b] > 0.0)
                vp = clamp_abs((cell_var(&s) - base_var[b]) * (n / (n + prior_var)) / (2.0 * sd[b]));
            out->mean[at] = (float)mp;
            out->var[at] = (float)vp;
            abs_sum += n * fabs(mp);
        }

    /* Openness multipliers: least squares per stratum against mean'. */
    for (uint32_t o = 0; o < out->num_openness; o++) {
        Wide os1[SPV_MAX_BUCKETS];
        int64_t on[SPV_MAX_BUCKETS];
        double obase[SPV_MAX_BUCKETS];
        for (uint32_t b = 0; b < B; b++) {
            os1[b] = 0;
            on[b] = 0;
        }
        for (uint32_t sq = 0; sq < S; sq++)
            for (uint32_t b = 0; b < B; b++) {
                Sums s = stratum(a, o, sq, b);
                if (s.n <= 0) continue;
                on[b] += s.n;
                os1[b] += (Wide)s.s1;
            }
        for (uint32_t b = 0; b < B; b++)
            obase[b] = on[b] > 0 ? (double)os1[b] / (double)on[b] / 1000.0 : 0.0;
        double num = 0.0, den = 0.0;
        for (uint32_t sq = 0; sq < S; sq++)
            for (uint32_t b = 0; b < B; b++) {
                Sums s = stratum(a, o, sq, b);
                if (s.n <= 0) continue;
                Sums p = pooled(a, sq, b);
                double mp = mean_prime(&p, base_mean[b], prior_mean);
                double n = (double)s.n;
                num += n * (cell_mean(&s) - obase[b]) * mp;
                den += n * mp * mp;
            }
        double m = 1.0;
        if (den > 0.0) {
            m = num / den;
            if (!(m > 0.0)) m = 0.0;
            if (m > SPV_MULT_MAX) m = SPV_MULT_MAX;
        }
        out->openness[o] = (float)m;
    }

    out->flags |= SPV_FLAG_VARIANCE;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->observations = observations;
        info->cells_observed = cells_observed;
        for (uint32_t b = 0; b < B; b++) {
            info->base_mean[b] = base_mean[b];
            info->base_sd[b] = sd[b];
        }
        info->mean_abs = observations > 0 ? abs_sum / (double)observations : 0.0;
    }
    return 0;
}
