/* SPV accumulators and derivation (eval/spv_derive.h): the words of one
 * observation, init/clear/free with and without caller storage, the derived
 * tables against hand-computed values, exactness and independence of how the
 * accumulators were split and summed (with square sums beyond 2^63), the
 * openness multipliers, and dimension checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/spv.h"
#include "eval/spv_derive.h"
#include "testutil.h"

static bool one_line(const RkError *err) { return err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL; }

/* |got - want| <= 1e-5 * max(1, |want|): the tables are floats. */
static bool near(double got, double want) { return fabs(got - want) <= 1e-5 * fmax(1.0, fabs(want)); }

static const int64_t *words_at(const SpvAccum *a, int o, int p, int sq, int b) {
    size_t t = (size_t)o * a->num_phases + (size_t)p;
    return a->data + ((t * a->num_squares + (size_t)sq) * a->num_buckets + (size_t)b) * SPV_ACCUM_WORDS;
}

static void make_table(Spv *s, uint32_t squares, uint32_t buckets, uint32_t openness) {
    RkError err;
    int rc = spv_init_zero(s, squares, buckets, openness, true, &err);
    if (rc != 0) printf("spv_init_zero: %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
}

/* ------------------------------------------------------- accumulators */

static void test_accum_words_and_clamp(void) {
    RkError err;
    SpvAccum a;
    CU_ASSERT_EQUAL(spv_accum_words(5, 4, 225, 11), (size_t)5 * 4 * 225 * 11 * 4);
    CU_ASSERT_FATAL(spv_accum_init(&a, 1, 1, 2, 2, NULL, &err) == 0);
    CU_ASSERT_TRUE(a.owned);
    CU_ASSERT_EQUAL(a.n, 16u);
    /* 1.5e9^2 = 2250000000000000000 = 523868948 * 2^32 + 950075392 */
    spv_accum_add(&a, 0, 0, 1, 0, 1500000000);
    const int64_t *w = words_at(&a, 0, 0, 1, 0);
    CU_ASSERT_EQUAL(w[0], 1);
    CU_ASSERT_EQUAL(w[1], 1500000000);
    CU_ASSERT_EQUAL(w[2], 523868948);
    CU_ASSERT_EQUAL(w[3], 950075392);
    /* -3e9 is clamped to -2e9: 4e18 = 931322574 * 2^32 + 2643460096 */
    spv_accum_add(&a, 0, 0, 1, 1, -3000000000LL);
    w = words_at(&a, 0, 0, 1, 1);
    CU_ASSERT_EQUAL(w[0], 1);
    CU_ASSERT_EQUAL(w[1], -2000000000);
    CU_ASSERT_EQUAL(w[2], 931322574);
    CU_ASSERT_EQUAL(w[3], 2643460096LL);
    /* +3e9 likewise to +2e9; the other cells are untouched */
    spv_accum_add(&a, 0, 0, 1, 1, 3000000000LL);
    CU_ASSERT_EQUAL(w[0], 2);
    CU_ASSERT_EQUAL(w[1], 0);
    CU_ASSERT_EQUAL(w[2], 2 * 931322574LL);
    CU_ASSERT_EQUAL(w[3], 2 * 2643460096LL);
    int nonzero = 0;
    for (size_t i = 0; i < a.n; i++) nonzero += a.data[i] != 0;
    CU_ASSERT_EQUAL(nonzero, 7); /* 4 words of (0,1,0), 3 of (0,1,1): its sum is 0 */
    spv_accum_clear(&a);
    nonzero = 0;
    for (size_t i = 0; i < a.n; i++) nonzero += a.data[i] != 0;
    CU_ASSERT_EQUAL(nonzero, 0);
    CU_ASSERT_EQUAL(a.n, 16u);
    spv_accum_free(&a);
    CU_ASSERT_PTR_NULL(a.data);
    spv_accum_free(&a); /* harmless twice */
}

static void test_accum_init_storage_and_errors(void) {
    RkError err;
    SpvAccum a;
    /* caller storage: zeroed, not owned, not freed by spv_accum_free (ASan
     * would report freeing a stack array) */
    int64_t buf[2 * 3 * 2 * SPV_ACCUM_WORDS + 1];
    memset(buf, 0xAB, sizeof buf);
    CU_ASSERT_FATAL(spv_accum_init(&a, 2, 1, 3, 2, buf, &err) == 0);
    CU_ASSERT_FALSE(a.owned);
    CU_ASSERT_PTR_EQUAL(a.data, buf);
    CU_ASSERT_EQUAL(a.n, 48u);
    int nonzero = 0;
    for (size_t i = 0; i < 48; i++) nonzero += buf[i] != 0;
    CU_ASSERT_EQUAL(nonzero, 0);
    int64_t guard;
    memset(&guard, 0xAB, sizeof guard);
    CU_ASSERT_EQUAL(buf[48], guard); /* nothing beyond the words is touched */
    spv_accum_add(&a, 1, 0, 2, 1, 7);
    CU_ASSERT_EQUAL(buf[47 - 3], 1); /* the last cell's count word */
    spv_accum_free(&a);
    CU_ASSERT_EQUAL(buf[47 - 3], 1);

    struct {
        uint32_t o, p, s, b;
    } bad[] = {{0, 1, 225, 11}, {1, 1, 0, 11}, {1, 1, 225, 0}, {SPV_MAX_OPENNESS + 1, 1, 225, 11},
               {1, 1, SPV_ACCUM_MAX_SQUARES + 1, 11}, {1, 1, 225, SPV_MAX_BUCKETS + 1}, {1, 0, 225, 11},
               {1, SPV_MAX_PHASES + 1, 225, 11}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        memset(buf, 0xAB, sizeof buf);
        CU_ASSERT_EQUAL(spv_accum_init(&a, bad[i].o, bad[i].p, bad[i].s, bad[i].b, buf, &err), -1);
        CU_ASSERT_TRUE(one_line(&err));
        CU_ASSERT_PTR_NULL(a.data);
        CU_ASSERT_EQUAL(buf[0], guard); /* storage untouched on failure */
    }
    /* the limits themselves are accepted */
    CU_ASSERT_EQUAL(spv_accum_init(&a, SPV_MAX_OPENNESS, SPV_MAX_PHASES, RK_MAX_SQUARES, SPV_MAX_BUCKETS, NULL, &err), 0);
    spv_accum_free(&a);
    CU_ASSERT_EQUAL(spv_accum_init(&a, 1, 1, SPV_ACCUM_MAX_SQUARES, SPV_MAX_BUCKETS, NULL, &err), 0);
    spv_accum_free(&a);
}

/* ----------------------------------------------------- hand-computed table */

/* 1 stratum, 4 squares, 2 buckets (residuals in points):
 *   b0: sq0 {1, 3}      n=2 mean 2  var (1+9)/2 - 4 = 1
 *       sq1 {4, 8, 6}   n=3 mean 6  var (16+64+36)/3 - 36 = 8/3
 *       sq2 {}          n=0
 *       sq3 {-2}        n=1 mean -2 var 0
 *   b1: sq0 {4}         n=1 mean 4  var 0
 *       sq2 {10, 10}    n=2 mean 10 var 0
 * base[0] = (4 + 18 - 2)/6 = 10/3;  base[1] = 24/3 = 8.
 * Squared deviations about the baseline, M2 = sum (r - base)^2:
 *   b0: sq0 (49 + 1)/9 = 50/9, sq1 (4 + 196 + 64)/9 = 264/9, sq3 256/9;
 *       m2[0] = (570/9)/6 = 95/9 (the variance of all six), sd[0] = sqrt(95)/3
 *   b1: sq0 16, sq2 4 + 4 = 8; m2[1] = 24/3 = 8, sd[1] = 2 sqrt(2)
 * ex = (M2 - n m2)/n: b0: sq0 (50 - 190)/18 = -70/9, sq1 (264 - 285)/27 = -7/9,
 *   sq3 161/9 (count-weighted sum 0); b1: sq0 8, sq2 (8 - 16)/2 = -4.
 * var' = ex / (2 sd): b0 * 3/(2 sqrt 95): -35/(3 sqrt 95), -7/(6 sqrt 95),
 *   161/(6 sqrt 95); b1 / (4 sqrt 2): sqrt 2, -1/sqrt 2. */
static void fill_small(SpvAccum *a) {
    RkError err;
    CU_ASSERT_FATAL(spv_accum_init(a, 1, 1, 4, 2, NULL, &err) == 0);
    spv_accum_add(a, 0, 0, 0, 0, 1000);
    spv_accum_add(a, 0, 0, 0, 0, 3000);
    spv_accum_add(a, 0, 0, 1, 0, 4000);
    spv_accum_add(a, 0, 0, 1, 0, 8000);
    spv_accum_add(a, 0, 0, 1, 0, 6000);
    spv_accum_add(a, 0, 0, 3, 0, -2000);
    spv_accum_add(a, 0, 0, 0, 1, 4000);
    spv_accum_add(a, 0, 0, 2, 1, 10000);
    spv_accum_add(a, 0, 0, 2, 1, 10000);
}

static void test_derive_small_no_prior(void) {
    RkError err;
    SpvAccum a;
    fill_small(&a);
    Spv s;
    make_table(&s, 4, 2, 1);
    /* dirty the output so that "n = 0 gives 0" is really written */
    for (int i = 0; i < 8; i++) s.mean[i] = s.var[i] = 99.0f;
    SpvDeriveOptions opt = {0.0, 0.0};
    SpvDeriveInfo info;
    CU_ASSERT_FATAL(spv_derive(&a, &opt, &s, &info, &err) == 0);
    /* mean' = mean - base: b0: 2-10/3 = -4/3, 6-10/3 = 8/3, -2-10/3 = -16/3;
     * b1: 4-8 = -4, 10-8 = 2 */
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -4.0 / 3));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 8.0 / 3));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 3, 0), -16.0 / 3));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 1), -4.0));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 2, 1), 2.0));
    /* var' (see above) */
    const double r95 = sqrt(95.0);
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 0), -35.0 / (3 * r95)));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 1, 0), -7.0 / (6 * r95)));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 3, 0), 161.0 / (6 * r95)));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 1), sqrt(2.0)));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 2, 1), -1.0 / sqrt(2.0)));
    /* unobserved cells: 0 in both tables */
    CU_ASSERT_EQUAL(spv_mean_at(&s, 2, 0), 0.0f);
    CU_ASSERT_EQUAL(spv_var_at(&s, 2, 0), 0.0f);
    CU_ASSERT_EQUAL(spv_mean_at(&s, 1, 1), 0.0f);
    CU_ASSERT_EQUAL(spv_mean_at(&s, 3, 1), 0.0f);
    CU_ASSERT_EQUAL(spv_var_at(&s, 1, 1), 0.0f);
    CU_ASSERT_EQUAL(spv_var_at(&s, 3, 1), 0.0f);
    /* zero-sum: sum_sq n * mean' = 0 per bucket (2*-4/3 + 3*8/3 + 1*-16/3 = 0;
     * 1*-4 + 2*2 = 0) */
    const int n[4][2] = {{2, 1}, {3, 0}, {0, 2}, {1, 0}};
    for (int b = 0; b < 2; b++) {
        double z = 0;
        for (int sq = 0; sq < 4; sq++) z += n[sq][b] * (double)spv_mean_at(&s, sq, b);
        CU_ASSERT_TRUE(fabs(z) < 1e-5);
    }
    /* the single stratum against mean' = mean - base fits exactly: m = 1 */
    CU_ASSERT_TRUE(near(s.openness[0], 1.0));
    CU_ASSERT_EQUAL(info.observations, 9u);
    CU_ASSERT_EQUAL(info.cells_observed, 5u);
    CU_ASSERT_TRUE(near(info.base_mean[0], 10.0 / 3));
    CU_ASSERT_TRUE(near(info.base_mean[1], 8.0));
    CU_ASSERT_TRUE(near(info.base_sd[0], sqrt(95.0) / 3));
    CU_ASSERT_TRUE(near(info.base_sd[1], 2 * sqrt(2.0)));
    /* mean |mean'| = (2*4/3 + 3*8/3 + 16/3 + 4 + 2*2) / 9 = 24/9 */
    CU_ASSERT_TRUE(near(info.mean_abs, 24.0 / 9));
    spv_free(&s);
    spv_accum_free(&a);
}

static void test_derive_small_priors(void) {
    RkError err;
    SpvAccum a;
    fill_small(&a);
    Spv s;
    make_table(&s, 4, 2, 1);
    SpvDeriveOptions opt = {2.0, 1.0};
    CU_ASSERT_FATAL(spv_derive(&a, &opt, &s, NULL, &err) == 0);
    /* mean' * n/(n+2): -4/3 * 2/4 = -2/3; 8/3 * 3/5 = 8/5; -16/3 * 1/3 = -16/9;
     * b1: -4 * 1/3 = -4/3; 2 * 2/4 = 1 */
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -2.0 / 3));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 8.0 / 5));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 3, 0), -16.0 / 9));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 1), -4.0 / 3));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 2, 1), 1.0));
    /* var' * n/(n+1): b0 * 2/3, 3/4, 1/2; b1 * 1/2, 2/3 */
    const double r95 = sqrt(95.0);
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 0), -35.0 / (3 * r95) * 2 / 3));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 1, 0), -7.0 / (6 * r95) * 3 / 4));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 3, 0), 161.0 / (6 * r95) / 2));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 1), sqrt(2.0) / 2));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 2, 1), -1.0 / sqrt(2.0) * 2 / 3));
    CU_ASSERT_EQUAL(spv_mean_at(&s, 2, 0), 0.0f);
    CU_ASSERT_EQUAL(spv_var_at(&s, 2, 0), 0.0f);
    /* One openness bucket: nothing to leave it out against, m = 1 (an
     * in-sample fit would give 1/shrinkage, 4830/2243 here) */
    CU_ASSERT_EQUAL(s.openness[0], 1.0f);
    spv_free(&s);
    spv_accum_free(&a);
}

/* -------------------------------------------- exactness and reductions */

#define RO 2
#define RP 3
#define RS 5
#define RB 3

static int64_t random_residual(Rng *r) {
    switch (rng_below(r, 8)) {
    case 0: return rng_below(r, 2) ? 1500000000 : -1500000000;
    case 1: return rng_below(r, 2) ? 3000000000LL : -3000000000LL; /* clamped */
    case 2: return (int64_t)rng_below(r, 2000000001) - 1000000000;
    default: return (int64_t)rng_below(r, 100001) - 50000;
    }
}

static void test_reduction_independent(void) {
    RkError err;
    size_t words = spv_accum_words(RO, RP, RS, RB);
    SpvAccum whole, part[3], sum;
    CU_ASSERT_FATAL(spv_accum_init(&whole, RO, RP, RS, RB, NULL, &err) == 0);
    /* the three parts in one caller buffer, as a reducer would keep them */
    int64_t *buf = malloc(3 * words * sizeof *buf);
    int64_t *sumbuf = malloc(words * sizeof *sumbuf);
    CU_ASSERT_FATAL(buf != NULL && sumbuf != NULL);
    memset(buf, 0x5A, 3 * words * sizeof *buf);
    memset(sumbuf, 0x5A, words * sizeof *sumbuf);
    for (int k = 0; k < 3; k++) CU_ASSERT_FATAL(spv_accum_init(&part[k], RO, RP, RS, RB, buf + k * words, &err) == 0);

    Rng r;
    rng_seed(&r, 20261122);
    for (int i = 0; i < 3000; i++) {
        int o = (int)rng_below(&r, RO), p = (int)rng_below(&r, RP), sq = (int)rng_below(&r, RS);
        int b = (int)rng_below(&r, 2);
        int64_t res = random_residual(&r);
        spv_accum_add(&whole, o, p, sq, b, res);
        spv_accum_add(&part[rng_below(&r, 3)], o, p, sq, b, res);
    }
    /* Bucket 2 holds one cell only: 4 x +1.5e9 and 4 x -1.5e9, split over the
     * parts. Its square sum is 8 * 2.25e18 = 1.8e19 > 2^63 = 9.22e18, so no
     * int64 can hold it; n = 8, mean 0, var = 2.25e18 mp^2 = 2.25e12 points^2,
     * so base_sd[2] = 1.5e6 points exactly. */
    for (int i = 0; i < 8; i++) {
        int64_t res = i % 2 ? 1500000000 : -1500000000;
        spv_accum_add(&whole, 1, 2, 4, 2, res);
        spv_accum_add(&part[i % 3], 1, 2, 4, 2, res);
    }
    CU_ASSERT_FATAL(spv_accum_init(&sum, RO, RP, RS, RB, sumbuf, &err) == 0);
    for (size_t i = 0; i < words; i++) sum.data[i] = buf[i] + buf[words + i] + buf[2 * words + i];
    CU_ASSERT(memcmp(sum.data, whole.data, words * sizeof *sum.data) == 0);

    /* the grand square sum exceeds 2^63 as well */
    long double total_sq = 0;
    for (size_t i = 0; i < words; i += SPV_ACCUM_WORDS)
        total_sq += (long double)whole.data[i + 2] * 4294967296.0L + (long double)whole.data[i + 3];
    CU_ASSERT_TRUE(total_sq > 9223372036854775808.0L);

    /* derive from the whole, from the element-wise sum, and from the parts
     * summed in another order: the same bytes */
    SpvAccum other;
    CU_ASSERT_FATAL(spv_accum_init(&other, RO, RP, RS, RB, NULL, &err) == 0);
    for (int k = 2; k >= 0; k--)
        for (size_t i = 0; i < words; i++) other.data[i] += part[k].data[i];

    SpvDeriveOptions opt = {3.0, 7.0};
    Spv s1, s2, s3;
    make_table(&s1, RS, RB, RO);
    make_table(&s2, RS, RB, RO);
    make_table(&s3, RS, RB, RO);
    SpvDeriveInfo i1, i2;
    CU_ASSERT_FATAL(spv_derive(&whole, &opt, &s1, &i1, &err) == 0);
    CU_ASSERT_FATAL(spv_derive(&sum, &opt, &s2, &i2, &err) == 0);
    CU_ASSERT_FATAL(spv_derive(&other, &opt, &s3, NULL, &err) == 0);
    size_t cells = (size_t)RS * RB;
    CU_ASSERT(memcmp(s1.mean, s2.mean, cells * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s1.var, s2.var, cells * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s1.openness, s2.openness, RO * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s1.mean, s3.mean, cells * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s1.var, s3.var, cells * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s1.openness, s3.openness, RO * sizeof(float)) == 0);
    CU_ASSERT_EQUAL(i1.observations, i2.observations);
    CU_ASSERT_EQUAL(i1.cells_observed, i2.cells_observed);
    CU_ASSERT(memcmp(i1.base_mean, i2.base_mean, RB * sizeof(double)) == 0);
    CU_ASSERT(memcmp(i1.base_sd, i2.base_sd, RB * sizeof(double)) == 0);
    CU_ASSERT(memcmp(&i1.mean_abs, &i2.mean_abs, sizeof(double)) == 0);
    CU_ASSERT_EQUAL(i1.observations, 3008u);
    CU_ASSERT_TRUE(near(i1.base_sd[2], 1.5e6));
    CU_ASSERT_EQUAL(i1.base_mean[2], 0.0);
    /* a single cell in its bucket is its own baseline */
    CU_ASSERT_EQUAL(spv_mean_at(&s1, 4, 2), 0.0f);
    CU_ASSERT_EQUAL(spv_var_at(&s1, 4, 2), 0.0f);
    /* and every value is finite and loadable */
    int bad = 0;
    for (size_t i = 0; i < cells; i++)
        bad += !isfinite(s1.mean[i]) || !isfinite(s1.var[i]) || fabsf(s1.mean[i]) > SPV_MAX_ABS_VALUE ||
               fabsf(s1.var[i]) > SPV_MAX_ABS_VALUE;
    for (int o = 0; o < RO; o++) bad += !(s1.openness[o] >= 0.0f && s1.openness[o] <= SPV_MULT_MAX);
    CU_ASSERT_EQUAL(bad, 0);

    spv_free(&s1);
    spv_free(&s2);
    spv_free(&s3);
    spv_accum_free(&other);
    spv_accum_free(&sum);
    for (int k = 0; k < 3; k++) spv_accum_free(&part[k]);
    spv_accum_free(&whole);
    free(buf);
    free(sumbuf);
}

/* Residuals with a huge common offset: the exact square sums keep the small
 * spread where E[r^2] - E[r]^2 in double would lose it (at 2.25e18 mp^2 the
 * spacing of doubles is 256 mp^2).
 * sq0 {1.5e9, 1.5e9 + 2000} mp, sq1 {1.5e9 + 1000, 1.5e9 + 1000}:
 * base = 1500001 points, both cell means equal it: mean' = 0.
 * M2 about the base: sq0 2 * 1 = 2 points^2, sq1 0; m2 = 2/4 = 1/2,
 * sd = sqrt(1/2); ex: sq0 (2 - 1)/2 = 1/2, sq1 (0 - 1)/2 = -1/2;
 * var' = ex / (2 sd) = +-sqrt(2)/4. */
static void test_exact_variance_large_mean(void) {
    RkError err;
    SpvAccum a;
    CU_ASSERT_FATAL(spv_accum_init(&a, 1, 1, 2, 1, NULL, &err) == 0);
    spv_accum_add(&a, 0, 0, 0, 0, 1500000000);
    spv_accum_add(&a, 0, 0, 0, 0, 1500002000);
    spv_accum_add(&a, 0, 0, 1, 0, 1500001000);
    spv_accum_add(&a, 0, 0, 1, 0, 1500001000);
    Spv s;
    make_table(&s, 2, 1, 0);
    SpvDeriveInfo info;
    CU_ASSERT_FATAL(spv_derive(&a, NULL, &s, &info, &err) == 0);
    CU_ASSERT_EQUAL(info.base_mean[0], 1500001.0);
    CU_ASSERT_TRUE(near(info.base_sd[0], sqrt(0.5)));
    CU_ASSERT_EQUAL(spv_mean_at(&s, 0, 0), 0.0f);
    CU_ASSERT_EQUAL(spv_mean_at(&s, 1, 0), 0.0f);
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 0), sqrt(2.0) / 4));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 1, 0), -sqrt(2.0) / 4));
    spv_free(&s);

    /* a mean beyond the table's range is clamped so that the file loads:
     * sq0 {1.5e9} mp, sq1 {0}: base 750000 points, mean' +-750000 */
    spv_accum_clear(&a);
    spv_accum_add(&a, 0, 0, 0, 0, 1500000000);
    spv_accum_add(&a, 0, 0, 1, 0, 0);
    make_table(&s, 2, 1, 0);
    CU_ASSERT_FATAL(spv_derive(&a, NULL, &s, NULL, &err) == 0);
    CU_ASSERT_EQUAL(spv_mean_at(&s, 0, 0), (float)SPV_MAX_ABS_VALUE);
    CU_ASSERT_EQUAL(spv_mean_at(&s, 1, 0), (float)-SPV_MAX_ABS_VALUE);
    spv_free(&s);
    spv_accum_free(&a);
}

/* ----------------------------------------------------------- phase strata */

/* 1 openness bucket, 2 phases, 2 squares, 1 bucket (points):
 *   p0: sq0 {10}, sq1 {20, 20, 20}          base0 = 70/4 = 17.5
 *   p1: sq0 {-30, -30, -30}, sq1 {-20}      base1 = -110/4 = -27.5
 * Pooled without strata sq0 would be -80/4 = -20 and sq1 40/4 = 10 (mean'
 * -15 and +15: only *when* the tiles were played). With strata:
 *   dev sq0 = ((10 - 17.5) + 3(-30 + 27.5))/4 = -3.75, sq1 = +3.75.
 * M2: p0 sq0 56.25, sq1 3 * 6.25 = 18.75, m2_0 = 75/4; p1 sq0 18.75,
 * sq1 56.25, m2_1 = 75/4: ex = 0 in both cells (var' = 0), sd = sqrt(18.75).
 * The openness bucket pools both phases: D = -15, +15, m = (15*3.75*2) /
 * (4 * 3.75^2 * 2) = 1. The same data in one phase gives the pooled -15, +15. */
static void test_phase_strata(void) {
    RkError err;
    SpvAccum a, flat;
    CU_ASSERT_FATAL(spv_accum_init(&a, 1, 2, 2, 1, NULL, &err) == 0);
    CU_ASSERT_FATAL(spv_accum_init(&flat, 1, 1, 2, 1, NULL, &err) == 0);
    const struct {
        int p, sq, pts;
    } obs[] = {{0, 0, 10}, {0, 1, 20}, {0, 1, 20}, {0, 1, 20}, {1, 0, -30}, {1, 0, -30}, {1, 0, -30}, {1, 1, -20}};
    for (size_t i = 0; i < sizeof obs / sizeof obs[0]; i++) {
        spv_accum_add(&a, 0, obs[i].p, obs[i].sq, 0, obs[i].pts * 1000);
        spv_accum_add(&flat, 0, 0, obs[i].sq, 0, obs[i].pts * 1000);
    }
    CU_ASSERT_EQUAL(words_at(&a, 0, 1, 0, 0)[0], 3); /* p1 sq0 holds three */
    Spv s;
    make_table(&s, 2, 1, 1);
    SpvDeriveInfo info;
    CU_ASSERT_FATAL(spv_derive(&a, NULL, &s, &info, &err) == 0);
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -3.75));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 3.75));
    CU_ASSERT_TRUE(fabs(spv_var_at(&s, 0, 0)) < 1e-6);
    CU_ASSERT_TRUE(fabs(spv_var_at(&s, 1, 0)) < 1e-6);
    CU_ASSERT_TRUE(near(info.base_sd[0], sqrt(18.75)));
    CU_ASSERT_TRUE(near(info.base_mean[0], -5.0)); /* (70 - 110)/8 */
    CU_ASSERT_TRUE(near(s.openness[0], 1.0));
    CU_ASSERT_EQUAL(info.observations, 8u);
    CU_ASSERT_EQUAL(info.cells_observed, 2u);
    CU_ASSERT_FATAL(spv_derive(&flat, NULL, &s, NULL, &err) == 0);
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -15.0));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 15.0));
    spv_free(&s);
    spv_accum_free(&a);
    spv_accum_free(&flat);
}

/* ------------------------------------------------- openness multipliers */

/* 6 openness buckets, 3 squares, 2 buckets, one observation per listed
 * cell (points). b0 follows the pattern p = (-2, 0, 2) with amplitude a_o:
 *   o0: 1, 3, 5        base 3,  a = 1
 *   o1: 6, 10, 14      base 10, a = 2
 *   o2: 2, 0, -2       base 0,  a = -1
 *   o3: -6, 0, 6       base 0,  a = 3
 *   o4: nothing
 *   o5: nothing in b0
 *   b1: o5 only, sq1: 50
 * Pooled b0: dev = (1 + 2 - 1 + 3) p / 4 = 5p/4: mean' -2.5, 0, 2.5 (no prior).
 * Pooled b1: one cell, its own baseline: mean' = 0.
 * Leave one out: mean_rest = (5 - a_o) p / 3, so m_o = a_o * 3 / (5 - a_o):
 *   o0: 3/4;  o1: 6/3 = 2;  o2: -3/6 < 0 -> 0;  o3: 9/2 > 4 -> SPV_MULT_MAX
 *   o4: no observations, den 0 -> 1
 *   o5: its only cell has no other observations, den 0 -> 1 */
static void test_openness_multipliers(void) {
    RkError err;
    SpvAccum a;
    CU_ASSERT_FATAL(spv_accum_init(&a, 6, 1, 3, 2, NULL, &err) == 0);
    const int64_t pts[4][3] = {{1, 3, 5}, {6, 10, 14}, {2, 0, -2}, {-6, 0, 6}};
    for (int o = 0; o < 4; o++)
        for (int sq = 0; sq < 3; sq++) spv_accum_add(&a, o, 0, sq, 0, pts[o][sq] * 1000);
    spv_accum_add(&a, 5, 0, 1, 1, 50000);
    Spv s;
    make_table(&s, 3, 2, 6);
    for (int o = 0; o < 6; o++) s.openness[o] = -7.0f;
    CU_ASSERT_FATAL(spv_derive(&a, NULL, &s, NULL, &err) == 0);
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -2.5));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 0.0));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 2, 0), 2.5));
    CU_ASSERT_EQUAL(spv_mean_at(&s, 1, 1), 0.0f);
    CU_ASSERT_TRUE(near(s.openness[0], 0.75));
    CU_ASSERT_TRUE(near(s.openness[1], 2.0));
    CU_ASSERT_EQUAL(s.openness[2], 0.0f);
    CU_ASSERT_EQUAL(s.openness[3], (float)SPV_MULT_MAX);
    CU_ASSERT_EQUAL(s.openness[4], 1.0f);
    CU_ASSERT_EQUAL(s.openness[5], 1.0f);
    spv_free(&s);
    spv_accum_free(&a);
}

/* ------------------------------------------------- empirical-Bayes priors */

/* One stratum, one bucket, two squares (points).
 * Signal: sq0 {0, 2}, sq1 {4, 6}: base 3, dev sums -4, +4 (n = 2 each);
 *   M2 10 and 10, s2 = 20/4 = 5; sum n dev^2 = 16/2 + 16/2 = 16;
 *   tau2 = (16 - (2 - 1) * 5) / 4 = 11/4, k = 5 / (11/4) = 20/11;
 *   mean' = -2 * 2/(2 + 20/11) = -22/21 and +22/21.
 *   ex = 10 - 2*5 = 0 in both: the variance prior is SPV_PRIOR_MAX.
 * Noise: sq0 {0, 4}, sq1 {2, 6}: base 3, dev -2, +2, sum n dev^2 = 4,
 *   s2 = 5, tau2 = (4 - 5)/4 < 0: k = SPV_PRIOR_MAX, mean' = 0.
 * Variance: sq0 {-6, 6, -6, 6}, sq1 {-1, 1, -1, 1}: base 0, dev 0 (mean' 0);
 *   M2 144 and 4, s2 = 148/8 = 18.5, ex = 144 - 74 = 70 and -70;
 *   noise of a squared deviation 2 * 18.5^2 = 684.5;
 *   tau2 = (2 * 4900/4 - 684.5) / 8 = 220.6875, k = 684.5 / 220.6875;
 *   var' = +-(70/4) / (2 sqrt(18.5)) * 4 / (4 + k). */
static void test_empirical_bayes_priors(void) {
    RkError err;
    SpvAccum a;
    Spv s;
    SpvDeriveInfo info;
    const SpvDeriveOptions autop = {SPV_PRIOR_AUTO, SPV_PRIOR_AUTO};
    CU_ASSERT_FATAL(spv_accum_init(&a, 1, 1, 2, 1, NULL, &err) == 0);
    make_table(&s, 2, 1, 0);

    const int sig[2][2] = {{0, 2}, {4, 6}};
    for (int sq = 0; sq < 2; sq++)
        for (int i = 0; i < 2; i++) spv_accum_add(&a, 0, 0, sq, 0, sig[sq][i] * 1000);
    CU_ASSERT_FATAL(spv_derive(&a, &autop, &s, &info, &err) == 0);
    CU_ASSERT_TRUE(near(info.prior_mean[0], 20.0 / 11));
    CU_ASSERT_EQUAL(info.prior_var[0], SPV_PRIOR_MAX);
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -22.0 / 21));
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 1, 0), 22.0 / 21));
    CU_ASSERT_TRUE(fabs(spv_var_at(&s, 0, 0)) < 1e-9);
    /* a fixed prior is used as given, the other one estimated */
    const SpvDeriveOptions fixed = {2.0, SPV_PRIOR_AUTO};
    CU_ASSERT_FATAL(spv_derive(&a, &fixed, &s, &info, &err) == 0);
    CU_ASSERT_EQUAL(info.prior_mean[0], 2.0);
    CU_ASSERT_TRUE(near(spv_mean_at(&s, 0, 0), -1.0)); /* -2 * 2/4 */

    spv_accum_clear(&a);
    const int noise[2][2] = {{0, 4}, {2, 6}};
    for (int sq = 0; sq < 2; sq++)
        for (int i = 0; i < 2; i++) spv_accum_add(&a, 0, 0, sq, 0, noise[sq][i] * 1000);
    CU_ASSERT_FATAL(spv_derive(&a, &autop, &s, &info, &err) == 0);
    CU_ASSERT_EQUAL(info.prior_mean[0], SPV_PRIOR_MAX);
    CU_ASSERT_TRUE(fabs(spv_mean_at(&s, 0, 0)) < 1e-9);
    CU_ASSERT_TRUE(fabs(spv_mean_at(&s, 1, 0)) < 1e-9);

    spv_accum_clear(&a);
    for (int i = 0; i < 4; i++) {
        spv_accum_add(&a, 0, 0, 0, 0, i % 2 ? 6000 : -6000);
        spv_accum_add(&a, 0, 0, 1, 0, i % 2 ? 1000 : -1000);
    }
    CU_ASSERT_FATAL(spv_derive(&a, &autop, &s, &info, &err) == 0);
    double k = 684.5 / 220.6875, want = 17.5 / (2 * sqrt(18.5)) * 4 / (4 + k);
    CU_ASSERT_TRUE(near(info.prior_var[0], k));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 0, 0), want));
    CU_ASSERT_TRUE(near(spv_var_at(&s, 1, 0), -want));
    CU_ASSERT_EQUAL(spv_mean_at(&s, 0, 0), 0.0f);

    /* a negative prior other than SPV_PRIOR_AUTO is refused */
    const SpvDeriveOptions bad = {-2.0, 0.0};
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(spv_derive(&a, &bad, &s, NULL, &err), -1);
    CU_ASSERT_TRUE(one_line(&err));
    spv_free(&s);
    spv_accum_free(&a);
}

/* One stratum into a table without multipliers: the same tables as into one
 * with a single multiplier, and num_openness stays 0. */
static void test_single_stratum_no_multipliers(void) {
    RkError err;
    SpvAccum a;
    fill_small(&a);
    Spv with, without;
    make_table(&with, 4, 2, 1);
    make_table(&without, 4, 2, 0);
    SpvDeriveOptions opt = {2.0, 1.0};
    CU_ASSERT_FATAL(spv_derive(&a, &opt, &with, NULL, &err) == 0);
    CU_ASSERT_FATAL(spv_derive(&a, &opt, &without, NULL, &err) == 0);
    CU_ASSERT_EQUAL(without.num_openness, 0u);
    CU_ASSERT(memcmp(with.mean, without.mean, 8 * sizeof(float)) == 0);
    CU_ASSERT(memcmp(with.var, without.var, 8 * sizeof(float)) == 0);
    CU_ASSERT_TRUE(near(without.mean[1 * 2 + 0], 8.0 / 5));
    CU_ASSERT_EQUAL(spv_file_size(&without), (size_t)SPV_HEADER_BYTES + 2 * 8 * 4);
    spv_free(&with);
    spv_free(&without);
    spv_accum_free(&a);
}

/* ------------------------------------------------------ dimension checks */

static void expect_mismatch(const SpvAccum *a, Spv *s) {
    RkError err;
    err.msg[0] = '\0';
    size_t cells = (size_t)s->num_squares * s->num_buckets;
    for (size_t i = 0; i < cells; i++) s->mean[i] = 5.0f;
    CU_ASSERT_EQUAL(spv_derive(a, NULL, s, NULL, &err), -1);
    CU_ASSERT_TRUE(one_line(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "SPV"));
    int touched = 0;
    for (size_t i = 0; i < cells; i++) touched += s->mean[i] != 5.0f;
    CU_ASSERT_EQUAL(touched, 0);
}

static void test_dimension_mismatch(void) {
    RkError err;
    SpvAccum one, two;
    fill_small(&one); /* 1 x 4 x 2 */
    CU_ASSERT_FATAL(spv_accum_init(&two, 2, 1, 4, 2, NULL, &err) == 0);
    spv_accum_add(&two, 1, 0, 0, 0, 1000);
    Spv s;
    make_table(&s, 5, 2, 1); /* squares */
    expect_mismatch(&one, &s);
    spv_free(&s);
    make_table(&s, 4, 3, 1); /* buckets */
    expect_mismatch(&one, &s);
    spv_free(&s);
    make_table(&s, 4, 2, 2); /* 2 multipliers for 1 stratum */
    expect_mismatch(&one, &s);
    spv_free(&s);
    make_table(&s, 4, 2, 0); /* 2 strata need 2 multipliers, not 0 */
    expect_mismatch(&two, &s);
    spv_free(&s);
    make_table(&s, 4, 2, 3);
    expect_mismatch(&two, &s);
    spv_free(&s);
    /* no variance table */
    CU_ASSERT_FATAL(spv_init_zero(&s, 4, 2, 1, false, &err) == 0);
    expect_mismatch(&one, &s);
    spv_free(&s);
    /* and the matching one works */
    make_table(&s, 4, 2, 2);
    CU_ASSERT_EQUAL(spv_derive(&two, NULL, &s, NULL, &err), 0);
    spv_free(&s);
    spv_accum_free(&one);
    spv_accum_free(&two);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"accum: words of one observation, clamp, clear, free", test_accum_words_and_clamp},
        {"accum: caller storage is zeroed and not owned; bad dimensions", test_accum_init_storage_and_errors},
        {"derive: hand-computed tables, no priors", test_derive_small_no_prior},
        {"derive: hand-computed tables with shrinkage", test_derive_small_priors},
        {"derive: one or three summed accumulators give the same bytes", test_reduction_independent},
        {"derive: exact variance under a huge offset; clamped means", test_exact_variance_large_mean},
        {"derive: phase strata remove when a tile was played", test_phase_strata},
        {"derive: leave-one-out openness multipliers, clamping, empty strata", test_openness_multipliers},
        {"derive: empirical-Bayes priors (signal, noise, variance)", test_empirical_bayes_priors},
        {"derive: one stratum into a table without multipliers", test_single_stratum_no_multipliers},
        {"derive: mismatched dimensions fail with a message", test_dimension_mismatch},
        CU_TEST_INFO_NULL,
    };
    return tu_run("spv_derive", tests);
}
