/* Rack table (every full rack, numbered), rack-equity accumulators, leave
 * derivation (fast path against a brute-force evaluation of the formula,
 * with and without shrinkage) and the .req file. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/sha256.h"
#include "core/rng.h"
#include "eval/derive.h"
#include "eval/klv.h"
#include "eval/racktable.h"
#include "eval/req.h"
#include "testutil.h"

/* A small English-like distribution: 5 letters and 2 blanks, 17 tiles. */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int rack_string(const Rack *r, uint8_t *out) {
    int n = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int c = 0; c < r->count[ml]; c++)
            out[n++] = (uint8_t)ml;
    return n;
}

static void rack_of_string(const uint8_t *s, int len, Rack *r) {
    rack_clear(r);
    for (int i = 0; i < len; i++)
        rack_add(r, s[i]);
}

/* A multiset of any size from tile labels (rack_parse stops at 7). */
static void bag_of(const LetterDist *ld, const char *text, Rack *out) {
    uint8_t t[128];
    int n = ld_parse_tiles(ld, text, t, 128, false);
    CU_ASSERT_FATAL(n >= 0);
    rack_of_string(t, n, out);
}

static bool one_line_naming(const RkError *err, const char *name) {
    return strstr(err->msg, name) != NULL && strchr(err->msg, '\n') == NULL;
}

/* Random accumulators: about a quarter of the racks unobserved. */
static void random_accum(RackAccum *a, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    for (uint64_t i = 0; i < a->n; i++) {
        int64_t c = (int64_t)rng_below(&rng, 4);
        a->count[i] = c;
        a->sum_mp[i] = 0;
        for (int64_t k = 0; k < c; k++)
            a->sum_mp[i] += (int64_t)rng_below(&rng, 90000) - 15000;
    }
}

/* ------------------------------------------------------------ brute force */

static double binom_ref(int n, int k) {
    if (k < 0 || n < 0 || k > n) return 0.0;
    double r = 1.0;
    for (int i = 0; i < k; i++)
        r = r * (double)(n - i) / (double)(i + 1);
    return round(r);
}

/* The formula of derive.h, term by term: for every leave (by word index in
 * the leave graph) over every rack. */
static void brute_derive(const RackTable *rt, const Klv *klv, const RackAccum *acc, const Rack *bag,
                         double *out, double *baseline_out) {
    uint64_t n = rt->num_racks;
    Rack *racks = malloc(n * sizeof *racks);
    for (uint64_t i = 0; i < n; i++)
        racktable_rack_at(rt, i, &racks[i]);
    double num = 0, den = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (acc->count[i] == 0) continue;
        double m = (double)acc->sum_mp[i] / (double)acc->count[i] / 1000.0;
        double w = 1;
        for (int ml = 0; ml < rt->num_letters; ml++)
            w *= binom_ref(bag->count[ml], racks[i].count[ml]);
        num += w * m;
        den += w;
    }
    double baseline = den > 0 ? num / den : 0;
    *baseline_out = baseline;
    for (uint32_t j = 0; j < klv->count; j++) {
        uint8_t s[RK_RACK_SIZE];
        int len = kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE);
        CU_ASSERT_FATAL(len >= 1 && len < RK_RACK_SIZE);
        Rack L;
        rack_of_string(s, len, &L);
        num = den = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (acc->count[i] == 0) continue;
            bool sup = true;
            for (int ml = 0; ml < rt->num_letters; ml++)
                if (racks[i].count[ml] < L.count[ml]) sup = false;
            if (!sup) continue;
            double w = 1;
            for (int ml = 0; ml < rt->num_letters; ml++)
                w *= binom_ref(bag->count[ml] - L.count[ml], racks[i].count[ml] - L.count[ml]);
            double m = (double)acc->sum_mp[i] / (double)acc->count[i] / 1000.0;
            num += w * m;
            den += w;
        }
        out[j] = den > 0 ? num / den - baseline : 0.0;
    }
    free(racks);
}

/* ------------------------------------------------------------ rack table */

/* Counts the multisets of `rem` tiles from letters ml.. by brute force. */
static uint64_t count_racks(const LetterDist *ld, int ml, int rem) {
    if (ml == ld->size) return rem == 0 ? 1 : 0;
    uint64_t n = 0;
    for (int c = 0; c <= ld->count[ml] && c <= rem; c++)
        n += count_racks(ld, ml + 1, rem - c);
    return n;
}

static void check_table_order(const RackTable *rt, uint64_t step) {
    /* Every index (or every step-th) against the graph's word index. */
    for (uint64_t i = 0; i < rt->num_racks; i += step) {
        Rack r;
        CU_ASSERT_FATAL(racktable_rack_at(rt, i, &r) == 0);
        CU_ASSERT_FATAL(r.total == rt->rack_size);
        CU_ASSERT_FATAL(racktable_index(rt, &r) == (int64_t)i);
        uint8_t s[RK_RACK_SIZE + 1], w[RK_RACK_SIZE + 1];
        int len = rack_string(&r, s);
        CU_ASSERT_FATAL(kwg_index_of(&rt->kwg, &rt->ix, s, len) == (int64_t)i);
        int wl = kwg_index_word_at(&rt->kwg, &rt->ix, i, w, RK_RACK_SIZE + 1);
        CU_ASSERT_FATAL(wl == len && memcmp(w, s, (size_t)len) == 0);
    }
}

static void test_racktable_tiny(void) {
    LetterDist ld;
    tu_tiny_ld(&ld);
    RackTable rt;
    RkError err;
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_EQUAL(rt.num_racks, count_racks(&ld, 0, RK_RACK_SIZE));
    CU_ASSERT_EQUAL(kwg_index_word_count(&rt.ix), rt.num_racks);
    CU_ASSERT_EQUAL(kwg_gaddag_root(&rt.kwg), 0u);
    check_table_order(&rt, 1);
    Rack r;
    CU_ASSERT(racktable_rack_at(&rt, rt.num_racks, &r) == -1);
    /* Invalid racks. */
    CU_ASSERT_FATAL(rack_parse(&r, &ld, "??AAAA", &err) == 0);
    CU_ASSERT_EQUAL(racktable_index(&rt, &r), -1); /* 6 tiles */
    CU_ASSERT_FATAL(rack_parse(&r, &ld, "AAAAADE", &err) == 0);
    CU_ASSERT_EQUAL(racktable_index(&rt, &r), -1); /* 5 A, the bag has 4 */
    CU_ASSERT_FATAL(rack_parse(&r, &ld, "ABCDDEE", &err) == 0);
    CU_ASSERT_EQUAL(racktable_index(&rt, &r), -1); /* 2 D */
    CU_ASSERT_FATAL(rack_parse(&r, &ld, "ABCDEEE", &err) == 0);
    CU_ASSERT(racktable_index(&rt, &r) >= 0);
    r.count[40] = 1; /* a letter the distribution does not have */
    r.count[5]--;
    CU_ASSERT_EQUAL(racktable_index(&rt, &r), -1);
    /* Other rack sizes. */
    for (int size = 1; size <= RK_RACK_SIZE; size++) {
        RackTable small;
        CU_ASSERT_FATAL(racktable_build(&small, &ld, size, &err) == 0);
        CU_ASSERT_EQUAL(small.num_racks, count_racks(&ld, 0, size));
        check_table_order(&small, 1);
        racktable_free(&small);
    }
    racktable_free(&rt);
    CU_ASSERT(racktable_build(&rt, &ld, 0, &err) != 0);
    CU_ASSERT(racktable_build(&rt, &ld, RK_RACK_SIZE + 1, &err) != 0);
    /* Too few tiles for a rack. */
    LetterDist few;
    CU_ASSERT_FATAL(ld_parse(&few, "?,?,1,0,0\nA,a,3,1,1\n", "few", &err) == 0);
    CU_ASSERT(racktable_build(&rt, &few, RK_RACK_SIZE, &err) != 0);
    CU_ASSERT(one_line_naming(&err, "few"));
}

static void test_racktable_english(void) {
    LetterDist ld;
    ld_english(&ld);
    RackTable rt;
    RkError err;
    double t0 = now_s();
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    double t1 = now_s();
    printf("\n  rack table: %llu racks, %u graph nodes, built in %.3f s\n",
           (unsigned long long)rt.num_racks, rt.kwg.n, t1 - t0);
    CU_ASSERT_EQUAL(rt.num_racks, 3199724u);
    CU_ASSERT_EQUAL(kwg_index_word_count(&rt.ix), 3199724u);
    /* Every index round-trips; every 997th also against the graph. */
    for (uint64_t i = 0; i < rt.num_racks; i++) {
        Rack r;
        racktable_rack_at(&rt, i, &r);
        if (racktable_index(&rt, &r) != (int64_t)i) {
            CU_FAIL("index(rack_at(i)) != i");
            break;
        }
    }
    check_table_order(&rt, 997);
    /* Random racks drawn from the bag. */
    Rng rng;
    rng_seed(&rng, 42);
    for (int k = 0; k < 20000; k++) {
        uint8_t bag[100];
        int n = 0;
        for (int ml = 0; ml < ld.size; ml++)
            for (int c = 0; c < ld.count[ml]; c++)
                bag[n++] = (uint8_t)ml;
        Rack r;
        rack_clear(&r);
        for (int t = 0; t < RK_RACK_SIZE; t++) {
            uint64_t j = rng_below(&rng, (uint64_t)n);
            rack_add(&r, bag[j]);
            bag[j] = bag[--n];
        }
        int64_t idx = racktable_index(&rt, &r);
        uint8_t s[RK_RACK_SIZE];
        int len = rack_string(&r, s);
        CU_ASSERT_FATAL(idx >= 0);
        CU_ASSERT_FATAL(idx == kwg_index_of(&rt.kwg, &rt.ix, s, len));
        Rack back;
        CU_ASSERT_FATAL(racktable_rack_at(&rt, (uint64_t)idx, &back) == 0);
        CU_ASSERT_FATAL(rack_equal(&r, &back));
    }
    /* The ends of the order. */
    Rack r;
    racktable_rack_at(&rt, 0, &r);
    char buf[32];
    rack_to_string(&r, &ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "??AAAAA");
    racktable_rack_at(&rt, rt.num_racks - 1, &r);
    rack_to_string(&r, &ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "VWWXYYZ");
    racktable_free(&rt);
}

/* ------------------------------------------------------------ accumulators */

static void test_accum(void) {
    RackAccum a, b;
    RkError err;
    CU_ASSERT_FATAL(rack_accum_init(&a, 10, &err) == 0);
    CU_ASSERT_FATAL(rack_accum_init(&b, 10, &err) == 0);
    rack_accum_add(&a, 3, 25500);
    rack_accum_add(&a, 3, 10500);
    rack_accum_add(&b, 3, -3000);
    rack_accum_add(&b, 9, 7000);
    CU_ASSERT_DOUBLE_EQUAL(rack_accum_mean(&a, 3), 18.0, 1e-12);
    CU_ASSERT_EQUAL(rack_accum_mean(&a, 4), 0.0);
    CU_ASSERT_FATAL(rack_accum_merge(&a, &b, &err) == 0);
    CU_ASSERT_EQUAL(a.count[3], 3);
    CU_ASSERT_EQUAL(a.sum_mp[3], 33000);
    CU_ASSERT_DOUBLE_EQUAL(rack_accum_mean(&a, 9), 7.0, 1e-12);
    RackAccum c;
    CU_ASSERT_FATAL(rack_accum_init(&c, 11, &err) == 0);
    CU_ASSERT(rack_accum_merge(&a, &c, &err) != 0);
    rack_accum_free(&a);
    rack_accum_free(&b);
    rack_accum_free(&c);
    CU_ASSERT(rack_accum_init(&a, 0, &err) != 0);
}

/* --------------------------------------------------------- tiny derivation */

typedef struct Tiny {
    LetterDist ld;
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
} Tiny;

/* The tables of distribution ld (tiny_setup: the tiny one). */
static void tables_setup(Tiny *t, const LetterDist *ld) {
    RkError err;
    t->ld = *ld;
    CU_ASSERT_FATAL(racktable_build(&t->rt, &t->ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_FATAL(klv_init_zero(&t->klv, &t->ld, &err) == 0);
    CU_ASSERT_FATAL(leave_deriver_init(&t->d, &t->rt, &t->klv.kwg, &err) == 0);
    CU_ASSERT_FATAL(t->d.num_leaves == t->klv.count);
}

static void tiny_setup(Tiny *t) {
    LetterDist ld;
    tu_tiny_ld(&ld);
    tables_setup(t, &ld);
}

static void tiny_free(Tiny *t) {
    leave_deriver_free(&t->d);
    klv_free(&t->klv);
    racktable_free(&t->rt);
}

static void compare_with_brute(Tiny *t, const RackAccum *acc, const Rack *bag_or_null) {
    RkError err;
    uint64_t L = t->d.num_leaves;
    double *fast = malloc(L * sizeof *fast), *ref = malloc(L * sizeof *ref);
    float *f32 = malloc(L * sizeof *f32);
    Rack bag;
    if (bag_or_null) {
        bag = *bag_or_null;
    } else {
        racktable_full_bag(&t->rt, &bag);
    }
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves_f64(&t->d, acc, bag_or_null, fast, L, &info, &err) == 0);
    CU_ASSERT_FATAL(derive_leaves(&t->d, acc, bag_or_null, f32, L, NULL, &err) == 0);
    double baseline;
    brute_derive(&t->rt, &t->klv, acc, &bag, ref, &baseline);
    CU_ASSERT(fabs(info.baseline - baseline) <= 1e-9 * fmax(1.0, fabs(baseline)));
    int bad = 0;
    for (uint64_t j = 0; j < L; j++) {
        if (!(fabs(fast[j] - ref[j]) <= 1e-9 * fmax(1.0, fabs(ref[j])))) {
            if (bad++ < 5)
                printf("\n  leave %llu: fast %.12f brute %.12f", (unsigned long long)j, fast[j],
                       ref[j]);
        }
        if (f32[j] != (float)fast[j]) bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(fast);
    free(ref);
    free(f32);
}

static void test_derive_tiny_brute(void) {
    Tiny t;
    tiny_setup(&t);
    RackAccum acc;
    RkError err;
    CU_ASSERT_FATAL(rack_accum_init(&acc, t.rt.num_racks, &err) == 0);
    Rng rng;
    rng_seed(&rng, 7);
    for (int trial = 0; trial < 20; trial++) {
        random_accum(&acc, 1000 + (uint64_t)trial);
        /* Full bag, then random bags: depleted, and some holding more. */
        compare_with_brute(&t, &acc, NULL);
        Rack bag;
        racktable_full_bag(&t.rt, &bag);
        for (int ml = 0; ml < t.ld.size; ml++) {
            int c = (int)rng_below(&rng, (uint64_t)t.ld.count[ml] + (trial % 4 == 3 ? 3 : 1));
            bag.total += c - bag.count[ml];
            bag.count[ml] = (uint8_t)c;
        }
        compare_with_brute(&t, &acc, &bag);
    }
    rack_accum_free(&acc);
    tiny_free(&t);
}

static void test_derive_unobserved(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    uint64_t n = t.rt.num_racks, L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, n, &err) == 0);
    random_accum(&acc, 99);
    float *a = malloc(L * sizeof *a), *b = malloc(L * sizeof *b);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, a, L, NULL, &err) == 0);
    /* Garbage sums on unobserved racks change nothing. */
    for (uint64_t i = 0; i < n; i++)
        if (acc.count[i] == 0) acc.sum_mp[i] = 123456789 * (int64_t)(i % 7) - 5;
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, b, L, NULL, &err) == 0);
    CU_ASSERT(memcmp(a, b, L * sizeof *a) == 0);
    /* Nor do the means of racks whose count is 0 (the .req path). */
    float *mean = malloc(n * sizeof *mean);
    uint64_t *counts = malloc(n * sizeof *counts);
    for (uint64_t i = 0; i < n; i++) {
        counts[i] = (uint64_t)acc.count[i];
        mean[i] = acc.count[i] ? (float)rack_accum_mean(&acc, i) : 0.0f;
    }
    CU_ASSERT_FATAL(derive_leaves_from_means(&t.d, mean, counts, n, NULL, a, L, NULL, &err) == 0);
    for (uint64_t i = 0; i < n; i++)
        if (counts[i] == 0) mean[i] = -500.0f;
    CU_ASSERT_FATAL(derive_leaves_from_means(&t.d, mean, counts, n, NULL, b, L, NULL, &err) == 0);
    CU_ASSERT(memcmp(a, b, L * sizeof *a) == 0);
    /* ... and agree with the accumulator path up to float rounding. */
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, b, L, NULL, &err) == 0);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(fabsf(a[j] - b[j]) < 1e-4f);
    /* Without counts every rack counts: the unobserved -500s now pull. */
    CU_ASSERT_FATAL(derive_leaves_from_means(&t.d, mean, NULL, n, NULL, a, L, NULL, &err) == 0);
    CU_ASSERT(memcmp(a, b, L * sizeof *a) != 0);

    /* Only racks without D observed: every leave holding D is 0. */
    const int D = 4;
    for (uint64_t i = 0; i < n; i++) {
        Rack r;
        racktable_rack_at(&t.rt, i, &r);
        acc.count[i] = r.count[D] ? 0 : 1;
        acc.sum_mp[i] = (int64_t)(i * 7919 % 50000);
    }
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, a, L, &info, &err) == 0);
    int zeros_with_d = 0, nonzero_without = 0, with_d = 0;
    for (uint32_t j = 0; j < L; j++) {
        uint8_t s[RK_RACK_SIZE];
        int len = kwg_index_word_at(&t.klv.kwg, &t.klv.ix, j, s, RK_RACK_SIZE);
        bool has_d = memchr(s, D, (size_t)len) != NULL;
        if (has_d) {
            with_d++;
            if (a[j] == 0.0f) zeros_with_d++;
        } else if (a[j] != 0.0f) {
            nonzero_without++;
        }
    }
    CU_ASSERT(with_d > 0);
    CU_ASSERT_EQUAL(zeros_with_d, with_d);
    CU_ASSERT(nonzero_without > 0);
    CU_ASSERT_EQUAL(info.leaves_valued, L - (uint64_t)with_d);

    /* Nothing observed: all 0. */
    memset(acc.count, 0, n * sizeof *acc.count);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, a, L, &info, &err) == 0);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(a[j] == 0.0f);
    CU_ASSERT_EQUAL(info.racks_used, 0u);
    CU_ASSERT_EQUAL(info.baseline, 0.0);
    free(a);
    free(b);
    free(mean);
    free(counts);
    rack_accum_free(&acc);
    tiny_free(&t);
}

static void test_derive_constant_and_determinism(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    uint64_t n = t.rt.num_racks, L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, n, &err) == 0);
    for (uint64_t i = 0; i < n; i++) {
        acc.count[i] = 1 + (int64_t)(i % 3);
        acc.sum_mp[i] = 31250 * acc.count[i];
    }
    float *a = malloc(L * sizeof *a), *b = malloc(L * sizeof *b);
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, a, L, &info, &err) == 0);
    CU_ASSERT_DOUBLE_EQUAL(info.baseline, 31.25, 1e-12);
    CU_ASSERT_EQUAL(info.racks_used, n);
    CU_ASSERT_EQUAL(info.racks_observed, n);
    CU_ASSERT_EQUAL(info.leaves_valued, L);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(fabsf(a[j]) < 1e-9f);
    /* A depleted bag too (leaves the bag cannot hold: 0 anyway). */
    Rack bag;
    bag_of(&t.ld, "?AAABCCDEE", &bag);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, &bag, a, L, &info, &err) == 0);
    CU_ASSERT(info.racks_used > 0 && info.racks_used < n);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(fabsf(a[j]) < 1e-9f);
    /* A bag of fewer than 7 tiles: no rack can be drawn. */
    bag_of(&t.ld, "?AABCE", &bag);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, &bag, a, L, &info, &err) == 0);
    CU_ASSERT_EQUAL(info.racks_used, 0u);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(a[j] == 0.0f);

    /* Determinism: same inputs, same bytes, also with a fresh deriver. */
    random_accum(&acc, 5);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, a, L, NULL, &err) == 0);
    LeaveDeriver d2;
    CU_ASSERT_FATAL(leave_deriver_init(&d2, &t.rt, &t.klv.kwg, &err) == 0);
    CU_ASSERT_FATAL(derive_leaves(&d2, &acc, NULL, b, L, NULL, &err) == 0);
    CU_ASSERT(memcmp(a, b, L * sizeof *a) == 0);
    leave_deriver_free(&d2);

    /* Argument errors. */
    CU_ASSERT(derive_leaves(&t.d, &acc, NULL, a, L - 1, NULL, &err) != 0);
    RackAccum small;
    CU_ASSERT_FATAL(rack_accum_init(&small, n - 1, &err) == 0);
    CU_ASSERT(derive_leaves(&t.d, &small, NULL, a, L, NULL, &err) != 0);
    rack_accum_free(&small);
    float *mean = calloc(n, sizeof *mean);
    mean[3] = NAN;
    CU_ASSERT(derive_leaves_from_means(&t.d, mean, NULL, n, NULL, a, L, NULL, &err) != 0);
    CU_ASSERT(one_line_naming(&err, "rack 3"));
    free(mean);
    free(a);
    free(b);
    rack_accum_free(&acc);
    tiny_free(&t);
}

static void test_deriver_rejects_other_graphs(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    LetterDist en;
    ld_english(&en);
    Klv ek;
    CU_ASSERT_FATAL(klv_init_zero(&ek, &en, &err) == 0);
    LeaveDeriver d;
    CU_ASSERT(leave_deriver_init(&d, &t.rt, &ek.kwg, &err) != 0);
    CU_ASSERT(strstr(err.msg, "leave graph") != NULL);
    klv_free(&ek);
    /* Same word count, one word not a leave: swap "A" for "DD". */
    uint64_t L = t.d.num_leaves;
    uint8_t(*w)[RK_RACK_SIZE] = malloc(L * sizeof *w);
    const uint8_t **ptrs = malloc(L * sizeof *ptrs);
    int *lens = malloc(L * sizeof *lens);
    for (uint64_t j = 0; j < L; j++) {
        lens[j] = kwg_index_word_at(&t.klv.kwg, &t.klv.ix, j, w[j], RK_RACK_SIZE);
        ptrs[j] = w[j];
        if (lens[j] == 1 && w[j][0] == 1) {
            lens[j] = 2;
            w[j][0] = w[j][1] = 4;
        }
    }
    KwgWords words = {ptrs, lens, L};
    Kwg bad;
    CU_ASSERT_FATAL(kwg_build(&bad, &words, false, &err) == 0);
    CU_ASSERT(leave_deriver_init(&d, &t.rt, &bad, &err) != 0);
    CU_ASSERT(strstr(err.msg, "not a leave") != NULL);
    kwg_free(&bad);
    free(w);
    free(ptrs);
    free(lens);
    tiny_free(&t);
}

/* ------------------------------------------------------ English derivation */

/* With an additive rack equity E(R) = sum a[ml] R[ml], the leave value has
 * a closed form (the mean of a multivariate hypergeometric draw):
 *   v(L) = sum a[ml] (L[ml] + (7-k)(B[ml]-L[ml])/(n-k)) - 7 sum a[ml] B[ml]/n
 * with k = |L|, n = |B|. */
static void check_additive(const LeaveDeriver *d, const Klv *klv, const RackTable *rt,
                           const Rack *bag) {
    RkError err;
    uint64_t N = rt->num_racks, L = d->num_leaves;
    int64_t a_mp[RK_MAX_LETTERS];
    for (int ml = 0; ml < rt->num_letters; ml++)
        a_mp[ml] = (ml * 37 % 23) * 1000 - 6000 + ml * 125;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, N, &err) == 0);
    for (uint64_t i = 0; i < N; i++) {
        Rack r;
        racktable_rack_at(rt, i, &r);
        int64_t e = 0;
        for (int ml = 0; ml < rt->num_letters; ml++)
            e += a_mp[ml] * r.count[ml];
        acc.count[i] = 2;
        acc.sum_mp[i] = 2 * e;
    }
    float *v = malloc(L * sizeof *v);
    CU_ASSERT_FATAL(derive_leaves(d, &acc, bag, v, L, NULL, &err) == 0);
    int n = bag->total;
    double base = 0;
    for (int ml = 0; ml < rt->num_letters; ml++)
        base += 7.0 * (double)a_mp[ml] / 1000.0 * bag->count[ml] / n;
    int bad = 0;
    for (uint32_t j = 0; j < L; j++) {
        uint8_t s[RK_RACK_SIZE];
        int k = kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE);
        Rack lv;
        rack_of_string(s, k, &lv);
        bool holds = true;
        for (int ml = 0; ml < rt->num_letters; ml++)
            if (lv.count[ml] > bag->count[ml]) holds = false;
        double expect = 0;
        if (holds) {
            for (int ml = 0; ml < rt->num_letters; ml++)
                expect += (double)a_mp[ml] / 1000.0 *
                          (lv.count[ml] + (7.0 - k) * (bag->count[ml] - lv.count[ml]) / (n - k));
            expect -= base;
        }
        if (!(fabs(v[j] - expect) < 1e-3)) {
            if (bad++ < 5) printf("\n  leave %u: got %f expected %f", j, (double)v[j], expect);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(v);
    rack_accum_free(&acc);
}

static void test_derive_english(void) {
#if defined(__SANITIZE_ADDRESS__)
    const bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    const bool sanitized = true;
#else
    const bool sanitized = false;
#endif
#else
    const bool sanitized = false;
#endif
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
    double t0 = now_s();
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_FATAL(klv_init_zero(&klv, &ld, &err) == 0);
    double t1 = now_s();
    CU_ASSERT_FATAL(leave_deriver_init(&d, &rt, &klv.kwg, &err) == 0);
    double t2 = now_s();
    CU_ASSERT_EQUAL(d.num_leaves, 914624u);
    printf("\n  English: rack table + zero KLV %.3f s, leave deriver %.3f s", t1 - t0, t2 - t1);

    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, rt.num_racks, &err) == 0);
    random_accum(&acc, 2024);
    float *v = malloc(d.num_leaves * sizeof *v);
    float *v2 = malloc(d.num_leaves * sizeof *v2);
    DeriveInfo info;
    double t3 = now_s();
    CU_ASSERT_FATAL(derive_leaves(&d, &acc, NULL, v, d.num_leaves, &info, &err) == 0);
    double t4 = now_s();
    printf("\n  English derivation, full bag, %llu of %llu racks observed: %.3f s%s"
           " (baseline %.3f, %llu leaves valued)",
           (unsigned long long)info.racks_used, (unsigned long long)rt.num_racks, t4 - t3,
           sanitized ? " [sanitizers: not a timing]" : "", info.baseline,
           (unsigned long long)info.leaves_valued);
    for (uint64_t i = 0; i < acc.n; i++)
        acc.count[i] = acc.count[i] ? acc.count[i] : 1;
    t3 = now_s();
    CU_ASSERT_FATAL(derive_leaves(&d, &acc, NULL, v2, d.num_leaves, &info, &err) == 0);
    t4 = now_s();
    printf("\n  English derivation, full bag, every rack observed: %.3f s", t4 - t3);
    CU_ASSERT(memcmp(v, v2, d.num_leaves * sizeof *v) != 0);
    /* Output order: spot-check the word index through klv_index. */
    Rack lv;
    CU_ASSERT_FATAL(rack_parse(&lv, &ld, "AEINST", &err) == 0);
    CU_ASSERT(klv_index(&klv, &lv) >= 0);

    /* A depleted bag: the 40 tiles a fixed shuffle leaves. */
    Rack bag;
    racktable_full_bag(&rt, &bag);
    Rng rng;
    rng_seed(&rng, 3);
    while (bag.total > 40) {
        int ml = (int)rng_below(&rng, (uint64_t)ld.size);
        if (bag.count[ml] > 0) rack_remove(&bag, (uint8_t)ml);
    }
    t3 = now_s();
    CU_ASSERT_FATAL(derive_leaves(&d, &acc, &bag, v2, d.num_leaves, &info, &err) == 0);
    t4 = now_s();
    printf("\n  English derivation, 40-tile bag (%llu racks drawable): %.3f s\n",
           (unsigned long long)info.racks_used, t4 - t3);

    /* Closed-form check on every English leave, full and depleted bags. */
    Rack full;
    racktable_full_bag(&rt, &full);
    check_additive(&d, &klv, &rt, &full);
    check_additive(&d, &klv, &rt, &bag);
    free(v);
    free(v2);
    rack_accum_free(&acc);
    leave_deriver_free(&d);
    klv_free(&klv);
    racktable_free(&rt);
}

/* ------------------------------------------------------------ shrinkage */

static void hash_bytes(const void *p, size_t n, char hex[65]) {
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, p, n);
    sha256_final_hex(&s, hex);
}

/* SHA-256 of the leaves derived from fixed inputs: the tiny distribution
 * (f32 and f64; full bag and a depleted bag) and English (f32, full bag,
 * sparse observations). The expected values were produced by the plain
 * formula as it was before shrinkage existed (commit 97e5a93), so k = 0
 * must keep every byte. (IEEE doubles, no contraction into FMA: -std=c17
 * keeps GCC's -ffp-contract=off.) */
static const char *const PLAIN_HASHES[5] = {
    "3c3bdfd217b119c65e13e910a43ab030e51f80c0a1d7d82ab7f60c1dd1a3699e",
    "2b9796f1141b2a56aca575ed1eeb373b81e09d49f7f34b7f9c37eee1459d98c6",
    "93574055e571f5e353d69072e784c3b16fe0b277790b4f9c7f098a0678b62166",
    "2d520b4b2ae98373a391e1b8d6c4638f533aa019abbc6bed5e1d1810b5122c20",
    "b48d56cdf5bdf3ff83bce3755ed1dba042e4f47a72e40f5842aa76572ef5d926",
};

/* mode 0: derive_leaves / derive_leaves_f64; 1: the _opt forms with opt
 * NULL; 2: with shrink = 0 and n_eff requested. */
static void plain_hashes(int mode, char out[5][65]) {
    RkError err;
    Tiny t;
    tiny_setup(&t);
    uint64_t L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, t.rt.num_racks, &err) == 0);
    random_accum(&acc, 4242);
    float *f = malloc(L * sizeof *f);
    double *g = malloc(L * sizeof *g), *ne = malloc(914624 * sizeof *ne);
    DeriveOptions o0 = {.shrink = 0.0, .n_eff = ne};
    const DeriveOptions *opt = mode == 2 ? &o0 : NULL;
    Rack bag;
    bag_of(&t.ld, "??AAABCCDEE", &bag);
    for (int b = 0; b < 2; b++) {
        const Rack *bp = b ? &bag : NULL;
        int rc = mode == 0 ? derive_leaves(&t.d, &acc, bp, f, L, NULL, &err)
                           : derive_leaves_opt(&t.d, &acc, bp, opt, f, L, NULL, &err);
        CU_ASSERT_FATAL(rc == 0);
        hash_bytes(f, L * sizeof *f, out[2 * b]);
        rc = mode == 0 ? derive_leaves_f64(&t.d, &acc, bp, g, L, NULL, &err)
                       : derive_leaves_f64_opt(&t.d, &acc, bp, opt, g, L, NULL, &err);
        CU_ASSERT_FATAL(rc == 0);
        hash_bytes(g, L * sizeof *g, out[2 * b + 1]);
    }
    free(f);
    free(g);
    rack_accum_free(&acc);
    tiny_free(&t);

    LetterDist ld;
    ld_english(&ld);
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_FATAL(klv_init_zero(&klv, &ld, &err) == 0);
    CU_ASSERT_FATAL(leave_deriver_init(&d, &rt, &klv.kwg, &err) == 0);
    CU_ASSERT_FATAL(rack_accum_init(&acc, rt.num_racks, &err) == 0);
    random_accum(&acc, 2024);
    /* sparse, like a short generation: most racks unobserved */
    for (uint64_t i = 0; i < acc.n; i++)
        if (i % 13 != 0) acc.count[i] = acc.sum_mp[i] = 0;
    f = malloc(d.num_leaves * sizeof *f);
    int rc = mode == 0 ? derive_leaves(&d, &acc, NULL, f, d.num_leaves, NULL, &err)
                       : derive_leaves_opt(&d, &acc, NULL, opt, f, d.num_leaves, NULL, &err);
    CU_ASSERT_FATAL(rc == 0);
    hash_bytes(f, d.num_leaves * sizeof *f, out[4]);
    free(f);
    free(ne);
    rack_accum_free(&acc);
    leave_deriver_free(&d);
    klv_free(&klv);
    racktable_free(&rt);
}

static void test_shrink_zero_is_plain(void) {
    for (int mode = 0; mode < 3; mode++) {
        char h[5][65];
        plain_hashes(mode, h);
        for (int i = 0; i < 5; i++) {
            if (strcmp(h[i], PLAIN_HASHES[i]) != 0) {
                printf("\n  mode %d output %d: sha256 %s, expected %s", mode, i, h[i], PLAIN_HASHES[i]);
                CU_FAIL("k = 0 changed the bytes of the plain formula");
            }
        }
    }
}

/* Brute-force sums per leave (word index): S0 = sum W, S1 = sum W*m,
 * S2 = sum W^2/count over the observed supersets, and the baseline. */
static void brute_sums(const RackTable *rt, const Klv *klv, const RackAccum *acc, const Rack *bag,
                       double *s0, double *s1, double *s2, double *baseline) {
    uint64_t n = rt->num_racks;
    Rack *racks = malloc(n * sizeof *racks);
    for (uint64_t i = 0; i < n; i++)
        racktable_rack_at(rt, i, &racks[i]);
    double num = 0, den = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (acc->count[i] == 0) continue;
        double w = 1;
        for (int ml = 0; ml < rt->num_letters; ml++)
            w *= binom_ref(bag->count[ml], racks[i].count[ml]);
        num += w * ((double)acc->sum_mp[i] / (double)acc->count[i] / 1000.0);
        den += w;
    }
    *baseline = den > 0 ? num / den : 0;
    for (uint32_t j = 0; j < klv->count; j++) {
        uint8_t s[RK_RACK_SIZE];
        int len = kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE);
        Rack L;
        rack_of_string(s, len, &L);
        s0[j] = s1[j] = s2[j] = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (acc->count[i] == 0) continue;
            bool sup = true;
            for (int ml = 0; ml < rt->num_letters; ml++)
                if (racks[i].count[ml] < L.count[ml]) sup = false;
            if (!sup) continue;
            double w = 1;
            for (int ml = 0; ml < rt->num_letters; ml++)
                w *= binom_ref(bag->count[ml] - L.count[ml], racks[i].count[ml] - L.count[ml]);
            double m = (double)acc->sum_mp[i] / (double)acc->count[i] / 1000.0;
            s0[j] += w;
            s1[j] += w * m;
            s2[j] += w * w / (double)acc->count[i];
        }
    }
    free(racks);
}

/* The prior of leave j from values v (word index): the mean over the
 * distinct one-tile-shorter sub-leaves, found through klv_index. */
static double prior_of(const Klv *klv, uint32_t j, const double *v) {
    uint8_t s[RK_RACK_SIZE];
    int len = kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE);
    if (len == 1) return 0.0;
    double sum = 0;
    int n = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && s[i] == s[i - 1]) continue; /* the same sub-leave again */
        Rack sub;
        rack_clear(&sub);
        for (int k = 0; k < len; k++)
            if (k != i) rack_add(&sub, s[k]);
        int64_t idx = klv_index(klv, &sub);
        CU_ASSERT_FATAL(idx >= 0);
        sum += v[idx];
        n++;
    }
    return sum / n;
}

/* The shrinkage formula, leaves by length (so every prior is known). */
static void brute_shrink(const Klv *klv, const double *s0, const double *s1, const double *s2,
                         double baseline, double k, double *v, double *neff) {
    for (int len = 1; len < RK_RACK_SIZE; len++) {
        for (uint32_t j = 0; j < klv->count; j++) {
            uint8_t s[RK_RACK_SIZE];
            if (kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE) != len) continue;
            double prior = prior_of(klv, j, v);
            neff[j] = 0;
            v[j] = prior;
            if (s0[j] > 0) {
                neff[j] = s0[j] * s0[j] / s2[j];
                double raw = s1[j] / s0[j] - baseline;
                v[j] = (neff[j] * raw + k * prior) / (neff[j] + k);
            }
        }
    }
}

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

static void compare_shrink_with_brute(Tiny *t, const RackAccum *acc, const Rack *bag_or_null,
                                      double k) {
    RkError err;
    uint64_t L = t->d.num_leaves;
    double *s0 = malloc(L * sizeof *s0), *s1 = malloc(L * sizeof *s1), *s2 = malloc(L * sizeof *s2);
    double *ref = malloc(L * sizeof *ref), *rneff = malloc(L * sizeof *rneff);
    double *fast = malloc(L * sizeof *fast), *neff = malloc(L * sizeof *neff);
    float *f32 = malloc(L * sizeof *f32);
    Rack bag;
    if (bag_or_null) {
        bag = *bag_or_null;
    } else {
        racktable_full_bag(&t->rt, &bag);
    }
    double baseline;
    brute_sums(&t->rt, &t->klv, acc, &bag, s0, s1, s2, &baseline);
    brute_shrink(&t->klv, s0, s1, s2, baseline, k, ref, rneff);
    DeriveOptions opt = {.shrink = k, .n_eff = neff};
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves_f64_opt(&t->d, acc, bag_or_null, &opt, fast, L, &info, &err) == 0);
    opt.n_eff = NULL;
    CU_ASSERT_FATAL(derive_leaves_opt(&t->d, acc, bag_or_null, &opt, f32, L, NULL, &err) == 0);
    CU_ASSERT(close_to(info.baseline, baseline));
    int bad = 0;
    for (uint64_t j = 0; j < L; j++) {
        if (!close_to(fast[j], ref[j]) || !close_to(neff[j], rneff[j])) {
            if (bad++ < 5)
                printf("\n  k %g leave %llu: fast %.12f (n_eff %.6f) brute %.12f (n_eff %.6f)", k,
                       (unsigned long long)j, fast[j], neff[j], ref[j], rneff[j]);
        }
        if (f32[j] != (float)fast[j]) bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(s0);
    free(s1);
    free(s2);
    free(ref);
    free(rneff);
    free(fast);
    free(neff);
    free(f32);
}

static void test_shrink_tiny_brute(void) {
    Tiny t;
    tiny_setup(&t);
    RackAccum acc;
    RkError err;
    CU_ASSERT_FATAL(rack_accum_init(&acc, t.rt.num_racks, &err) == 0);
    Rng rng;
    rng_seed(&rng, 17);
    const double ks[] = {0.5, 3.0, 30.0, 1000.0};
    for (int trial = 0; trial < 8; trial++) {
        random_accum(&acc, 3000 + (uint64_t)trial);
        if (trial % 2 == 1) { /* sparse: most racks unobserved, some leaves without a superset */
            for (uint64_t i = 0; i < acc.n; i++)
                if (rng_below(&rng, 8) != 0) acc.count[i] = acc.sum_mp[i] = 0;
        }
        double k = ks[trial % 4];
        compare_shrink_with_brute(&t, &acc, NULL, k);
        Rack bag;
        racktable_full_bag(&t.rt, &bag);
        for (int ml = 0; ml < t.ld.size; ml++) {
            int c = (int)rng_below(&rng, (uint64_t)t.ld.count[ml] + (trial % 4 == 3 ? 3 : 1));
            bag.total += c - bag.count[ml];
            bag.count[ml] = (uint8_t)c;
        }
        compare_shrink_with_brute(&t, &acc, &bag, k);
    }
    rack_accum_free(&acc);
    tiny_free(&t);
}

/* Leaves without an observed superset get their prior; with no
 * observations at all every leave is 0. */
static void test_shrink_unobserved_gets_prior(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    uint64_t n = t.rt.num_racks, L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, n, &err) == 0);
    const int D = 4;
    for (uint64_t i = 0; i < n; i++) {
        Rack r;
        racktable_rack_at(&t.rt, i, &r);
        acc.count[i] = r.count[D] ? 0 : 1 + (int64_t)(i % 3);
        acc.sum_mp[i] = acc.count[i] * (int64_t)(i * 7919 % 50000);
    }
    double *v = malloc(L * sizeof *v), *neff = malloc(L * sizeof *neff);
    DeriveOptions opt = {.shrink = 10.0, .n_eff = neff};
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves_f64_opt(&t.d, &acc, NULL, &opt, v, L, &info, &err) == 0);
    int with_d = 0, bad = 0, nonzero = 0;
    for (uint32_t j = 0; j < L; j++) {
        uint8_t s[RK_RACK_SIZE];
        int len = kwg_index_word_at(&t.klv.kwg, &t.klv.ix, j, s, RK_RACK_SIZE);
        if (memchr(s, D, (size_t)len) == NULL) continue;
        with_d++;
        CU_ASSERT(neff[j] == 0.0);
        double p = prior_of(&t.klv, j, v);
        if (v[j] != p) bad++; /* the same sum in the same order */
        if (v[j] != 0.0) nonzero++;
    }
    CU_ASSERT(with_d > 0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(nonzero > 0); /* e.g. AD: the mean of A's value and D's (0) */
    CU_ASSERT_EQUAL(info.leaves_valued, L - (uint64_t)with_d);
    Rack one;
    bag_of(&t.ld, "D", &one);
    CU_ASSERT_EQUAL(v[klv_index(&t.klv, &one)], 0.0); /* 1 tile: the empty leave's 0 */
    /* Nothing observed: all 0. */
    memset(acc.count, 0, n * sizeof *acc.count);
    CU_ASSERT_FATAL(derive_leaves_f64_opt(&t.d, &acc, NULL, &opt, v, L, &info, &err) == 0);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(v[j] == 0.0 && neff[j] == 0.0);
    free(v);
    free(neff);
    rack_accum_free(&acc);
    tiny_free(&t);
}

/* A leave whose only observed superset is one rack seen c times: n_eff = c
 * (W cancels), and the value mixes its raw mean and its prior c : k. */
static void test_shrink_neff_single_rack(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    uint64_t n = t.rt.num_racks, L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, n, &err) == 0);
    random_accum(&acc, 606);
    Rack leave, rack;
    bag_of(&t.ld, "?ABCCE", &leave);
    bag_of(&t.ld, "?ABCCEE", &rack);
    int64_t ri = racktable_index(&t.rt, &rack), lj = klv_index(&t.klv, &leave);
    CU_ASSERT_FATAL(ri >= 0 && lj >= 0);
    for (uint64_t i = 0; i < n; i++) {
        Rack r;
        racktable_rack_at(&t.rt, i, &r);
        bool sup = true;
        for (int ml = 0; ml < t.ld.size; ml++)
            if (r.count[ml] < leave.count[ml]) sup = false;
        if (sup && i != (uint64_t)ri) acc.count[i] = acc.sum_mp[i] = 0;
    }
    acc.count[ri] = 7;
    acc.sum_mp[ri] = 7 * 41500 + 3;
    double *v = malloc(L * sizeof *v), *plain = malloc(L * sizeof *plain),
           *neff = malloc(L * sizeof *neff);
    DeriveInfo info;
    CU_ASSERT_FATAL(derive_leaves_f64(&t.d, &acc, NULL, plain, L, &info, &err) == 0);
    CU_ASSERT_DOUBLE_EQUAL(plain[lj], (7 * 41500 + 3) / 7.0 / 1000.0 - info.baseline, 1e-9);
    const double ks[] = {0.0, 2.0, 7.0, 50.0};
    for (int i = 0; i < 4; i++) {
        DeriveOptions opt = {.shrink = ks[i], .n_eff = neff};
        CU_ASSERT_FATAL(derive_leaves_f64_opt(&t.d, &acc, NULL, &opt, v, L, NULL, &err) == 0);
        CU_ASSERT_DOUBLE_EQUAL(neff[lj], 7.0, 1e-12);
        double prior = prior_of(&t.klv, (uint32_t)lj, v);
        CU_ASSERT_DOUBLE_EQUAL(v[lj], (7.0 * plain[lj] + ks[i] * prior) / (7.0 + ks[i]), 1e-9);
        if (ks[i] == 7.0) CU_ASSERT_DOUBLE_EQUAL(v[lj], 0.5 * (plain[lj] + prior), 1e-9);
    }
    /* Counts without weights: every rack counted once gives Kish's
     * (sum W)^2 / sum W^2, and a .req's counts act like the accumulators'. */
    float *mean = malloc(n * sizeof *mean);
    uint64_t *counts = malloc(n * sizeof *counts);
    for (uint64_t i = 0; i < n; i++) {
        counts[i] = (uint64_t)acc.count[i];
        mean[i] = (float)rack_accum_mean(&acc, i);
    }
    float *fa = malloc(L * sizeof *fa), *fb = malloc(L * sizeof *fb);
    DeriveOptions opt = {.shrink = 5.0};
    CU_ASSERT_FATAL(derive_leaves_from_means_opt(&t.d, mean, counts, n, NULL, &opt, fa, L, NULL, &err) == 0);
    CU_ASSERT_FATAL(derive_leaves_opt(&t.d, &acc, NULL, &opt, fb, L, NULL, &err) == 0);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(fabsf(fa[j] - fb[j]) < 1e-4f);
    /* No counts: every rack is observed once. */
    double *neff1 = malloc(L * sizeof *neff1);
    for (uint64_t i = 0; i < n; i++)
        counts[i] = 1;
    opt.n_eff = neff1;
    CU_ASSERT_FATAL(derive_leaves_from_means_opt(&t.d, mean, counts, n, NULL, &opt, fa, L, NULL, &err) == 0);
    opt.n_eff = neff;
    CU_ASSERT_FATAL(derive_leaves_from_means_opt(&t.d, mean, NULL, n, NULL, &opt, fb, L, NULL, &err) == 0);
    CU_ASSERT(memcmp(neff, neff1, L * sizeof *neff) == 0);
    CU_ASSERT(memcmp(fa, fb, L * sizeof *fa) == 0);
    free(neff1);
    free(mean);
    free(counts);
    free(fa);
    free(fb);
    free(v);
    free(plain);
    free(neff);
    rack_accum_free(&acc);
    tiny_free(&t);
}

/* Growing k pulls every leave towards its prior: |v - prior| is
 * n_eff/(n_eff+k) of |raw - prior|, 1-tile leaves (prior 0) shrink
 * monotonically, and a huge k leaves nothing but 0s. Bad k is refused. */
static void test_shrink_monotone(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    uint64_t n = t.rt.num_racks, L = t.d.num_leaves;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, n, &err) == 0);
    random_accum(&acc, 808);
    double *raw = malloc(L * sizeof *raw), *v = malloc(L * sizeof *v), *neff = malloc(L * sizeof *neff);
    double *prev = malloc(L * sizeof *prev);
    CU_ASSERT_FATAL(derive_leaves_f64(&t.d, &acc, NULL, raw, L, NULL, &err) == 0);
    const double ks[] = {0.0, 0.25, 1.0, 4.0, 16.0, 64.0, 1e3, 1e6, 1e12};
    int bad = 0, one_tile = 0;
    for (int i = 0; i < 9; i++) {
        DeriveOptions opt = {.shrink = ks[i], .n_eff = neff};
        CU_ASSERT_FATAL(derive_leaves_f64_opt(&t.d, &acc, NULL, &opt, v, L, NULL, &err) == 0);
        for (uint32_t j = 0; j < L; j++) {
            uint8_t s[RK_RACK_SIZE];
            int len = kwg_index_word_at(&t.klv.kwg, &t.klv.ix, j, s, RK_RACK_SIZE);
            double p = prior_of(&t.klv, j, v);
            double expect = neff[j] / (neff[j] + ks[i]) * (raw[j] - p);
            if (neff[j] > 0 && fabs((v[j] - p) - expect) > 1e-9 * fmax(1.0, fabs(raw[j]))) bad++;
            if (len == 1) {
                one_tile++;
                if (i > 0 && !(fabs(v[j]) <= fabs(prev[j]))) bad++;
                if (i > 0 && ks[i] >= 1.0 && !(fabs(v[j]) < fabs(prev[j]))) bad++;
            }
            if (ks[i] == 1e12 && !(fabs(v[j]) < 1e-6)) bad++;
        }
        memcpy(prev, v, L * sizeof *v);
    }
    CU_ASSERT(one_tile == 9 * 6);
    CU_ASSERT_EQUAL(bad, 0);
    /* Refused: negative, NaN, infinite. */
    const double no[] = {-1.0, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        DeriveOptions opt = {.shrink = no[i]};
        err.msg[0] = '\0';
        CU_ASSERT(derive_leaves_f64_opt(&t.d, &acc, NULL, &opt, v, L, NULL, &err) != 0);
        CU_ASSERT(one_line_naming(&err, "shrink"));
    }
    free(raw);
    free(v);
    free(neff);
    free(prev);
    rack_accum_free(&acc);
    tiny_free(&t);
}

/* English: shrinkage keeps the derivation fast and deterministic. */
static void test_shrink_english(void) {
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_FATAL(klv_init_zero(&klv, &ld, &err) == 0);
    CU_ASSERT_FATAL(leave_deriver_init(&d, &rt, &klv.kwg, &err) == 0);
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, rt.num_racks, &err) == 0);
    random_accum(&acc, 31);
    for (uint64_t i = 0; i < acc.n; i++)
        if (i % 50 != 0) acc.count[i] = acc.sum_mp[i] = 0; /* ~1.5% observed */
    float *a = malloc(d.num_leaves * sizeof *a), *b = malloc(d.num_leaves * sizeof *b);
    DeriveOptions opt = {.shrink = 30.0};
    DeriveInfo info;
    double t0 = now_s();
    CU_ASSERT_FATAL(derive_leaves(&d, &acc, NULL, a, d.num_leaves, &info, &err) == 0);
    double t1 = now_s();
    CU_ASSERT_FATAL(derive_leaves_opt(&d, &acc, NULL, &opt, b, d.num_leaves, &info, &err) == 0);
    double t2 = now_s();
    printf("\n  English, %llu racks observed: plain %.3f s, shrink 30 %.3f s (%llu of %llu leaves "
           "valued)",
           (unsigned long long)info.racks_observed, t1 - t0, t2 - t1,
           (unsigned long long)info.leaves_valued, (unsigned long long)d.num_leaves);
    /* spread of the 6-tile leaves, plain and shrunk */
    double ss_a = 0, ss_b = 0;
    uint64_t six = 0;
    for (uint32_t j = 0; j < d.num_leaves; j++) {
        uint8_t s[RK_RACK_SIZE];
        if (kwg_index_word_at(&klv.kwg, &klv.ix, j, s, RK_RACK_SIZE) != 6) continue;
        six++;
        ss_a += (double)a[j] * a[j];
        ss_b += (double)b[j] * b[j];
    }
    printf("; 6-tile rms: plain %.3f, shrunk %.3f\n", sqrt(ss_a / (double)six), sqrt(ss_b / (double)six));
    CU_ASSERT(ss_b < ss_a);
    LeaveDeriver d2;
    CU_ASSERT_FATAL(leave_deriver_init(&d2, &rt, &klv.kwg, &err) == 0);
    CU_ASSERT_FATAL(derive_leaves_opt(&d2, &acc, NULL, &opt, a, d.num_leaves, NULL, &err) == 0);
    CU_ASSERT(memcmp(a, b, d.num_leaves * sizeof *a) == 0);
    leave_deriver_free(&d2);
    free(a);
    free(b);
    rack_accum_free(&acc);
    leave_deriver_free(&d);
    klv_free(&klv);
    racktable_free(&rt);
}

/* holdable_only: the leaves the bag can hold get the same bits as without
 * the option (plain and shrunk, n_eff too), every other leave 0, and the
 * same DeriveInfo. Tiny distribution with random bags, then English with a
 * late-game pool. */
static void check_holdable(const LeaveDeriver *d, const Klv *klv, const RackAccum *acc, const Rack *bag,
                           double shrink) {
    RkError err;
    uint64_t L = d->num_leaves;
    double *all = malloc(L * sizeof *all), *hold = malloc(L * sizeof *hold);
    double *ne_all = malloc(L * sizeof *ne_all), *ne_hold = malloc(L * sizeof *ne_hold);
    CU_ASSERT_FATAL(all != NULL && hold != NULL && ne_all != NULL && ne_hold != NULL);
    DeriveOptions o_all = {.shrink = shrink, .n_eff = ne_all};
    DeriveOptions o_hold = {.shrink = shrink, .n_eff = ne_hold, .holdable_only = true};
    DeriveInfo i_all, i_hold;
    for (uint64_t j = 0; j < L; j++) hold[j] = ne_hold[j] = 99.0; /* must be overwritten */
    CU_ASSERT_FATAL(derive_leaves_f64_opt(d, acc, bag, &o_all, all, L, &i_all, &err) == 0);
    CU_ASSERT_FATAL(derive_leaves_f64_opt(d, acc, bag, &o_hold, hold, L, &i_hold, &err) == 0);
    int bad = 0;
    uint64_t holdable = 0;
    for (uint64_t j = 0; j < L; j++) {
        uint8_t s[RK_RACK_SIZE];
        int len = kwg_index_word_at(&klv->kwg, &klv->ix, j, s, RK_RACK_SIZE);
        int need[RK_MAX_LETTERS] = {0};
        bool ok = true;
        for (int i = 0; i < len; i++) ok = ok && ++need[s[i]] <= bag->count[s[i]];
        if (ok) {
            holdable++;
            bad += memcmp(&all[j], &hold[j], sizeof(double)) != 0 || memcmp(&ne_all[j], &ne_hold[j], sizeof(double)) != 0;
        } else {
            bad += hold[j] != 0.0 || ne_hold[j] != 0.0;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(holdable > 0);
    CU_ASSERT(memcmp(&i_all.baseline, &i_hold.baseline, sizeof(double)) == 0);
    CU_ASSERT_EQUAL(i_all.racks_used, i_hold.racks_used);
    CU_ASSERT_EQUAL(i_all.leaves_valued, i_hold.leaves_valued);
    free(all);
    free(hold);
    free(ne_all);
    free(ne_hold);
}

static void test_holdable_only(void) {
    Tiny t;
    tiny_setup(&t);
    RackAccum acc;
    RkError err;
    CU_ASSERT_FATAL(rack_accum_init(&acc, t.rt.num_racks, &err) == 0);
    Rng rng;
    rng_seed(&rng, 11);
    for (int trial = 0; trial < 12; trial++) {
        random_accum(&acc, 500 + (uint64_t)trial);
        Rack bag;
        rack_clear(&bag);
        for (int ml = 0; ml < t.ld.size; ml++) {
            bag.count[ml] = (uint8_t)rng_below(&rng, (uint64_t)t.ld.count[ml] + 1);
            bag.total += bag.count[ml];
        }
        check_holdable(&t.d, &t.klv, &acc, &bag, trial % 2 ? 4.0 : 0.0);
    }
    rack_accum_free(&acc);
    tiny_free(&t);

    /* English: a pool of 33 tiles late in a game */
    LetterDist ld;
    ld_english(&ld);
    tables_setup(&t, &ld);
    CU_ASSERT_FATAL(rack_accum_init(&acc, t.rt.num_racks, &err) == 0);
    random_accum(&acc, 77);
    Rack pool;
    bag_of(&ld, "AAABCDEEEEEEGIIILMNNOORRSSTTUUYQ?", &pool);
    check_holdable(&t.d, &t.klv, &acc, &pool, 30.0);
    rack_accum_free(&acc);
    tiny_free(&t);
}

/* ------------------------------------------------------------------- .req */

static int spill(const char *path, const uint8_t *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static void le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A .req from parts. */
static uint8_t *compose(uint32_t num, uint32_t rack_size, uint32_t flags, const uint32_t *nodes,
                        uint32_t n, const float *mean, uint32_t num_means, bool counts,
                        size_t *len) {
    size_t size = 20 + 4 * (size_t)n + 4 * (size_t)num_means + (counts ? 8 * (size_t)num_means : 0);
    uint8_t *b = calloc(size, 1);
    memcpy(b, "REQ1", 4);
    le32(b + 4, num);
    le32(b + 8, rack_size);
    le32(b + 12, flags);
    le32(b + 16, n);
    for (uint32_t i = 0; i < n; i++)
        le32(b + 20 + 4 * i, nodes[i]);
    uint8_t *p = b + 20 + 4 * (size_t)n;
    for (uint32_t i = 0; i < num_means; i++) {
        uint32_t u;
        memcpy(&u, &mean[i], 4);
        le32(p + 4 * i, u);
    }
    p += 4 * (size_t)num_means;
    for (uint32_t i = 0; counts && i < num_means; i++)
        le32(p + 8 * i, i % 5);
    *len = size;
    return b;
}

/* Writes bytes to path and expects req_load to fail with a one-line
 * message naming path and holding `what`. */
static void expect_bad(const char *path, const uint8_t *b, size_t n, const RackTable *rt,
                       const char *what) {
    CU_ASSERT_FATAL(spill(path, b, n) == 0);
    Req q;
    RkError err;
    err.msg[0] = '\0';
    int rc = req_load(&q, path, rt, &err);
    CU_ASSERT(rc != 0);
    if (rc == 0) printf("\n  loaded a bad file (expected '%s')", what);
    CU_ASSERT(one_line_naming(&err, path));
    if (strstr(err.msg, what) == NULL) {
        printf("\n  expected '%s' in: %s", what, err.msg);
        CU_FAIL("error message");
    }
    CU_ASSERT(q.mean == NULL && q.kwg.nodes == NULL);
    req_free(&q);
}

static void test_req_roundtrip_and_errors(void) {
    Tiny t;
    tiny_setup(&t);
    RkError err;
    char dir[256], path[512], badp[512];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/tiny.req", dir);
    snprintf(badp, sizeof badp, "%s/bad.req", dir);
    uint32_t num = (uint32_t)t.rt.num_racks;
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, num, &err) == 0);
    random_accum(&acc, 11);

    /* With counts, from accumulators. */
    CU_ASSERT_FATAL(req_write_accum(path, &t.rt, &acc, &err) == 0);
    Req q;
    CU_ASSERT_FATAL(req_load(&q, path, &t.rt, &err) == 0);
    CU_ASSERT_EQUAL(q.num_racks, num);
    CU_ASSERT_EQUAL(q.rack_size, 7u);
    CU_ASSERT_EQUAL(q.flags, REQ_FLAG_COUNTS);
    CU_ASSERT_FATAL(q.counts != NULL);
    for (uint32_t i = 0; i < num; i++) {
        CU_ASSERT_FATAL(q.counts[i] == (uint64_t)acc.count[i]);
        CU_ASSERT_FATAL(q.mean[i] == (acc.count[i] ? (float)rack_accum_mean(&acc, i) : 0.0f));
    }
    struct stat st;
    CU_ASSERT_FATAL(stat(path, &st) == 0);
    CU_ASSERT_EQUAL((uint64_t)st.st_size, 20 + 4 * (uint64_t)t.rt.kwg.n + 12 * (uint64_t)num);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CU_ASSERT(access(tmp, F_OK) != 0);
    /* The loaded file derives the same leaves as the accumulators (up to
     * the float means). */
    uint64_t L = t.d.num_leaves;
    float *va = malloc(L * sizeof *va), *vb = malloc(L * sizeof *vb);
    CU_ASSERT_FATAL(derive_leaves_from_means(&t.d, q.mean, q.counts, q.num_racks, NULL, va, L, NULL,
                                             &err) == 0);
    CU_ASSERT_FATAL(derive_leaves(&t.d, &acc, NULL, vb, L, NULL, &err) == 0);
    for (uint64_t j = 0; j < L; j++)
        CU_ASSERT_FATAL(fabsf(va[j] - vb[j]) < 1e-4f);
    free(va);
    free(vb);
    req_free(&q);

    /* Without counts. */
    float *mean = malloc(num * sizeof *mean);
    for (uint32_t i = 0; i < num; i++)
        mean[i] = (float)i * 0.25f - 3.0f;
    CU_ASSERT_FATAL(req_write(path, &t.rt, mean, NULL, &err) == 0);
    CU_ASSERT_FATAL(req_load(&q, path, &t.rt, &err) == 0);
    CU_ASSERT_EQUAL(q.flags, 0u);
    CU_ASSERT(q.counts == NULL);
    CU_ASSERT(memcmp(q.mean, mean, num * sizeof *mean) == 0);
    req_free(&q);
    CU_ASSERT_FATAL(stat(path, &st) == 0);
    CU_ASSERT_EQUAL((uint64_t)st.st_size, 20 + 4 * (uint64_t)t.rt.kwg.n + 4 * (uint64_t)num);

    /* Writing refuses non-finite means and reports unwritable paths. */
    mean[2] = INFINITY;
    CU_ASSERT(req_write(path, &t.rt, mean, NULL, &err) != 0);
    CU_ASSERT(one_line_naming(&err, path));
    mean[2] = 1.0f;
    char nodir[600];
    snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.req", dir);
    CU_ASSERT(req_write(nodir, &t.rt, mean, NULL, &err) != 0);
    CU_ASSERT(one_line_naming(&err, nodir));
    /* A write that fails part-way (the file size limit stands in for a full
     * disk): error naming the path, no temporary left, old file intact. */
    {
        struct rlimit old;
        getrlimit(RLIMIT_FSIZE, &old);
        void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = old;
        lim.rlim_cur = 1000;
        if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
            int rc = req_write(path, &t.rt, mean, NULL, &err);
            setrlimit(RLIMIT_FSIZE, &old);
            CU_ASSERT(rc != 0);
            CU_ASSERT(one_line_naming(&err, path));
            CU_ASSERT(strstr(err.msg, "write failed") != NULL);
            CU_ASSERT(access(tmp, F_OK) != 0);
            CU_ASSERT_FATAL(req_load(&q, path, &t.rt, &err) == 0); /* the previous file */
            req_free(&q);
        } else {
            tu_skip("req write failure", "setrlimit(RLIMIT_FSIZE) refused");
        }
        signal(SIGXFSZ, old_sig);
    }

    /* ---- corrupt files ---- */
    uint32_t n = t.rt.kwg.n;
    uint32_t *nodes = malloc(n * sizeof *nodes);
    memcpy(nodes, t.rt.kwg.nodes, n * sizeof *nodes);
    size_t len;
    uint8_t *good = compose(num, 7, 0, nodes, n, mean, num, false, &len);
    CU_ASSERT_FATAL(spill(badp, good, len) == 0);
    CU_ASSERT_FATAL(req_load(&q, badp, &t.rt, &err) == 0); /* the template is valid */
    req_free(&q);
    uint8_t *good_c = compose(num, 7, 1, nodes, n, mean, num, true, &len);
    CU_ASSERT_FATAL(spill(badp, good_c, len) == 0);
    CU_ASSERT_FATAL(req_load(&q, badp, &t.rt, &err) == 0);
    req_free(&q);
    free(good_c);
    size_t glen = 20 + 4 * (size_t)n + 4 * (size_t)num;

    char missing[600];
    snprintf(missing, sizeof missing, "%s/missing.req", dir);
    CU_ASSERT(req_load(&q, missing, &t.rt, &err) != 0);
    CU_ASSERT(one_line_naming(&err, missing));

    expect_bad(badp, good, 10, &t.rt, "too short");
    expect_bad(badp, good, 0, &t.rt, "too short");
    /* a valid header on an 8 GB sparse file: refused by its header and size alone, before the
     * body is read (it used to be read whole first: 8 GB of memory, or an allocation failure) */
    CU_ASSERT_FATAL(spill(badp, good, glen) == 0);
    if (truncate(badp, (off_t)8 << 30) == 0) {
        Req big;
        err.msg[0] = '\0';
        CU_ASSERT(req_load(&big, badp, &t.rt, &err) != 0);
        CU_ASSERT(strstr(err.msg, "trailing bytes") != NULL);
        CU_ASSERT(big.mean == NULL);
        CU_ASSERT(truncate(badp, 0) == 0);
    } else {
        tu_skip("sparse .req", "the file system cannot hold an 8 GB sparse file");
    }
    uint8_t *b = malloc(glen + 16);
    memcpy(b, good, glen);
    memcpy(b, "REQ2", 4);
    expect_bad(badp, b, glen, &t.rt, "bad magic");
    memcpy(b, good, glen);
    le32(b + 8, 6);
    expect_bad(badp, b, glen, &t.rt, "rack size 6");
    memcpy(b, good, glen);
    le32(b + 4, num + 1);
    expect_bad(badp, b, glen, &t.rt, "but the distribution has");
    memcpy(b, good, glen);
    le32(b + 12, 2);
    expect_bad(badp, b, glen, &t.rt, "unknown flag");
    memcpy(b, good, glen);
    expect_bad(badp, b, glen - 1, &t.rt, "truncated");
    expect_bad(badp, b, glen - 4 * num, &t.rt, "truncated");
    le32(b + 12, 1); /* counts announced, none present */
    expect_bad(badp, b, glen, &t.rt, "truncated");
    memcpy(b, good, glen);
    b[glen] = 0;
    expect_bad(badp, b, glen + 1, &t.rt, "trailing");
    memcpy(b, good, glen);
    le32(b + 16, n + 1000000); /* node count beyond the file */
    expect_bad(badp, b, glen, &t.rt, "truncated");

    /* Graph damage. */
    uint32_t root = t.rt.kwg.nodes[0] & KWG_ARC_MASK;
    uint32_t *nv = malloc(n * sizeof *nv);
    uint8_t *c;
    memcpy(nv, nodes, n * sizeof *nv);
    nv[root] = (nv[root] & ~KWG_ARC_MASK) | (n + 5);
    c = compose(num, 7, 0, nv, n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "arc index");
    free(c);
    memcpy(nv, nodes, n * sizeof *nv);
    nv[n - 1] = (nv[n - 1] & 0x00FFFFFFu) | (50u << 24);
    c = compose(num, 7, 0, nv, n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "tile 50");
    free(c);
    memcpy(nv, nodes, n * sizeof *nv);
    nv[1] = (nv[1] & ~KWG_ARC_MASK) | root;
    c = compose(num, 7, 0, nv, n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "GADDAG");
    free(c);
    memcpy(nv, nodes, n * sizeof *nv);
    for (uint32_t i = 2; i < n; i++) { /* a child list pointing back at the root list */
        if ((nv[i] & KWG_ARC_MASK) != 0 && i != root) {
            nv[i] = (nv[i] & ~KWG_ARC_MASK) | root;
            break;
        }
    }
    c = compose(num, 7, 0, nv, n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "cycle");
    free(c);
    c = compose(num, 7, 0, nodes, 1, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "at least 2");
    free(c);
    /* Graphs of other words: one rack missing; one rack swapped for a
     * non-rack (same count). */
    uint8_t(*w)[RK_RACK_SIZE] = malloc(num * sizeof *w);
    const uint8_t **ptrs = malloc(num * sizeof *ptrs);
    int *lens = malloc(num * sizeof *lens);
    for (uint32_t i = 0; i < num; i++) {
        Rack r;
        racktable_rack_at(&t.rt, i, &r);
        lens[i] = rack_string(&r, w[i]);
        ptrs[i] = w[i];
    }
    Kwg other;
    KwgWords words = {ptrs + 1, lens + 1, num - 1};
    CU_ASSERT_FATAL(kwg_build(&other, &words, false, &err) == 0);
    c = compose(num, 7, 0, other.nodes, other.n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "holds");
    free(c);
    kwg_free(&other);
    memset(w[0], 4, RK_RACK_SIZE); /* DDDDDDD: the bag has one D */
    words.words = ptrs;
    words.lens = lens;
    words.count = num;
    CU_ASSERT_FATAL(kwg_build(&other, &words, false, &err) == 0);
    c = compose(num, 7, 0, other.nodes, other.n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "is not rack");
    free(c);
    kwg_free(&other);
    lens[5] = 6; /* a 6-tile word among the racks */
    CU_ASSERT_FATAL(kwg_build(&other, &words, false, &err) == 0);
    c = compose(num, 7, 0, other.nodes, other.n, mean, num, false, &len);
    expect_bad(badp, c, len, &t.rt, "is not rack");
    free(c);
    kwg_free(&other);
    free(w);
    free(ptrs);
    free(lens);
    free(nv);

    /* Non-finite equities. */
    memcpy(b, good, glen);
    float nanf_ = NAN, inff = -INFINITY;
    uint32_t u;
    memcpy(&u, &nanf_, 4);
    le32(b + 20 + 4 * (size_t)n + 4 * 7, u);
    expect_bad(badp, b, glen, &t.rt, "rack 7 is NaN");
    memcpy(b, good, glen);
    memcpy(&u, &inff, 4);
    le32(b + 20 + 4 * (size_t)n + 4 * (size_t)(num - 1), u);
    expect_bad(badp, b, glen, &t.rt, "infinite");

    /* A file of another distribution's racks. */
    LetterDist en;
    ld_english(&en);
    RackTable ert;
    CU_ASSERT_FATAL(racktable_build(&ert, &en, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT(req_load(&q, path, &ert, &err) != 0);
    CU_ASSERT(one_line_naming(&err, path));
    racktable_free(&ert);

    free(b);
    free(good);
    free(nodes);
    free(mean);
    remove(path);
    remove(badp);
    rmdir(dir);
    rack_accum_free(&acc);
    tiny_free(&t);
}

static void test_req_english(void) {
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    RackTable rt;
    CU_ASSERT_FATAL(racktable_build(&rt, &ld, RK_RACK_SIZE, &err) == 0);
    RackAccum acc;
    CU_ASSERT_FATAL(rack_accum_init(&acc, rt.num_racks, &err) == 0);
    random_accum(&acc, 77);
    char dir[256], path[512];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/english.req", dir);
    double t0 = now_s();
    CU_ASSERT_FATAL(req_write_accum(path, &rt, &acc, &err) == 0);
    double t1 = now_s();
    Req q;
    CU_ASSERT_FATAL(req_load(&q, path, &rt, &err) == 0);
    double t2 = now_s();
    printf("\n  English .req: write %.3f s, load+validate %.3f s\n", t1 - t0, t2 - t1);
    CU_ASSERT_EQUAL(q.num_racks, 3199724u);
    struct stat st;
    CU_ASSERT_FATAL(stat(path, &st) == 0);
    CU_ASSERT_EQUAL((uint64_t)st.st_size, 20 + 4 * (uint64_t)rt.kwg.n + 12 * 3199724ull);
    int bad = 0;
    for (uint64_t i = 0; i < rt.num_racks; i++) {
        if (q.counts[i] != (uint64_t)acc.count[i]) bad++;
        if (q.mean[i] != (acc.count[i] ? (float)rack_accum_mean(&acc, i) : 0.0f)) bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(memcmp(q.kwg.nodes, rt.kwg.nodes, rt.kwg.n * sizeof *rt.kwg.nodes) == 0);
    req_free(&q);
    remove(path);
    rmdir(dir);
    rack_accum_free(&acc);
    racktable_free(&rt);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"rack table, tiny distribution, every size", test_racktable_tiny},
        {"rack table, English: 3,199,724 racks, index/inverse", test_racktable_english},
        {"accumulators: add, mean, merge", test_accum},
        {"derive: fast == brute force (tiny, random bags)", test_derive_tiny_brute},
        {"derive: unobserved racks do not bias", test_derive_unobserved},
        {"derive: constant mean gives 0; deterministic", test_derive_constant_and_determinism},
        {"derive: leave graph must match the distribution", test_deriver_rejects_other_graphs},
        {"derive: English timing and closed form", test_derive_english},
        {"shrink: k = 0 keeps the plain formula's bytes", test_shrink_zero_is_plain},
        {"shrink: fast == brute force (tiny, random bags)", test_shrink_tiny_brute},
        {"shrink: a leave without observed superset gets its prior", test_shrink_unobserved_gets_prior},
        {"shrink: n_eff of one rack seen c times is c", test_shrink_neff_single_rack},
        {"shrink: growing k pulls towards the priors", test_shrink_monotone},
        {"shrink: English timing and determinism", test_shrink_english},
        {"holdable_only: the same bits for holdable leaves, 0 for the rest", test_holdable_only},
        {"req: round trip, write errors, corrupt files", test_req_roundtrip_and_errors},
        {"req: English round trip", test_req_english},
        CU_TEST_INFO_NULL,
    };
    return tu_run("derive", tests);
}
