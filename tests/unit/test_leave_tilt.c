/* The tilted uniform draw of the opponent's leave (nn/leave_tilt.h), H's
 * 27-number baseline:
 * - theta = 0 is the uniform draw (nn_uniform_leave_logprob) exactly;
 * - with any theta the probabilities of every leave of k tiles sum to 1
 *   (an enumeration of the multisets of a pool);
 * - the fit recovers the weights of leaves drawn from a known tilted draw
 *   and scores fresh ones better than the uniform draw does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "nn/heldout.h"
#include "nn/leave_tilt.h"
#include "testutil.h"

#define LETTERS 26

/* A pool: each letter's English count minus up to 2 copies, at random. */
static void random_pool(const LetterDist *ld, Rng *r, Rack *pool) {
    rack_clear(pool);
    for (int l = 0; l < ld->size; l++) {
        int drop = (int)rng_below(r, 3), c = ld->count[l] - drop;
        for (int j = 0; j < (c > 0 ? c : 0); j++) rack_add(pool, (uint8_t)l);
    }
}

/* A leave of k tiles drawn uniformly from the pool. */
static void random_leave(const Rack *pool, int k, Rng *r, Rack *leave) {
    Rack left = *pool;
    rack_clear(leave);
    for (int i = 0; i < k; i++) {
        int at = (int)rng_below(r, (uint64_t)left.total), l = 0;
        while (at >= left.count[l]) at -= left.count[l++];
        rack_remove(&left, (uint8_t)l);
        rack_add(leave, (uint8_t)l);
    }
}

static void test_zero_theta_is_uniform(void) {
    LetterDist ld;
    ld_english(&ld);
    LeaveTilt t;
    leave_tilt_uniform(&t, LETTERS);
    Rng r;
    rng_seed(&r, 5);
    int bad = 0;
    for (int i = 0; i < 2000; i++) {
        Rack pool, leave;
        random_pool(&ld, &r, &pool);
        random_leave(&pool, 1 + (int)rng_below(&r, RK_RACK_SIZE), &r, &leave);
        double a = leave_tilt_logprob(&t, &pool, &leave), b = nn_uniform_leave_logprob(&pool, &leave, LETTERS);
        bad += !(fabs(a - b) < 1e-9);
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* a leave the pool cannot give */
    Rack pool, leave;
    rack_clear(&pool);
    rack_clear(&leave);
    rack_add(&pool, 1);
    rack_add(&leave, 2);
    CU_ASSERT(isinf(leave_tilt_logprob(&t, &pool, &leave)));
}

/* Sum of exp(logprob) over the multisets of k tiles from pool, letters from l on. */
static double enumerate(const LeaveTilt *t, const Rack *pool, Rack *leave, int l, int left, int k) {
    if (left == 0) return exp(leave_tilt_logprob(t, pool, leave)) * (leave->total == k);
    if (l > LETTERS) return 0.0;
    double s = 0.0;
    for (int j = 0; j <= left && j <= pool->count[l]; j++) {
        leave->count[l] = (uint8_t)j;
        leave->total += j;
        s += enumerate(t, pool, leave, l + 1, left - j, k);
        leave->total -= j;
        leave->count[l] = 0;
    }
    return s;
}

static void test_probabilities_sum_to_one(void) {
    LetterDist ld;
    ld_english(&ld);
    Rng r;
    rng_seed(&r, 9);
    for (int trial = 0; trial < 6; trial++) {
        LeaveTilt t;
        leave_tilt_uniform(&t, LETTERS);
        for (int l = 0; l <= LETTERS; l++) t.theta[l] = ((double)rng_below(&r, 2001) - 1000.0) / 500.0;
        Rack pool;
        random_pool(&ld, &r, &pool);
        int k = 1 + trial % 3;
        Rack leave;
        rack_clear(&leave);
        CU_ASSERT_DOUBLE_EQUAL(enumerate(&t, &pool, &leave, 0, k, k), 1.0, 1e-9);
    }
}

/* Samples of one position (an empty board, the rack below) whose
 * opponent's leave of `k` tiles is drawn from the tilted draw `truth`, by
 * rejection from uniform draws (accepted with exp(theta . x - max)). */
static void tilted_samples(const LetterDist *ld, const LeaveTilt *truth, int k, size_t n, Rng *r, ShardSet *set) {
    ShardSample s;
    memset(&s, 0, sizeof s);
    s.pos.dim = 15;
    rack_add(&s.pos.rack, 5); /* E */
    rack_add(&s.pos.rack, 9); /* I */
    s.opp_leave_known = 1;
    Rack pool;
    CU_ASSERT_FATAL(position_unseen(&s.pos, ld, &pool) == 0);
    double top = 0.0;
    for (int l = 0; l <= LETTERS; l++) top = fmax(top, truth->theta[l]);
    for (size_t i = 0; i < n;) {
        Rack leave;
        random_leave(&pool, k, r, &leave);
        double w = 0.0;
        for (int l = 0; l <= LETTERS; l++) w += truth->theta[l] * leave.count[l];
        if ((double)(rng_next(r) >> 11) * 0x1.0p-53 >= exp(w - k * top)) continue;
        s.opp_leave = leave;
        s.game = i;
        shardset_add(set, &s, NULL, NULL, 0);
        i++;
    }
}

static void test_fit_recovers_weights(void) {
    LetterDist ld;
    ld_english(&ld);
    LeaveTilt truth;
    leave_tilt_uniform(&truth, LETTERS);
    truth.theta[0] = 1.5;   /* the blank kept */
    truth.theta[19] = 1.0;  /* S */
    truth.theta[17] = -1.0; /* Q */
    truth.theta[5] = 0.5;   /* E */
    double mean = 0.0;
    for (int l = 0; l <= LETTERS; l++) mean += truth.theta[l];
    for (int l = 0; l <= LETTERS; l++) truth.theta[l] -= mean / (LETTERS + 1);
    Rng r;
    rng_seed(&r, 21);
    ShardSet train, test;
    shardset_init(&train);
    shardset_init(&test);
    tilted_samples(&ld, &truth, 3, 20000, &r, &train);
    tilted_samples(&ld, &truth, 3, 4000, &r, &test);
    size_t *idx = malloc(train.n * sizeof *idx);
    for (size_t i = 0; i < train.n; i++) idx[i] = i;
    LeaveTilt fit;
    CU_ASSERT_EQUAL(leave_tilt_fit(&fit, LETTERS, &ld, &train, idx, train.n, 30), train.n);
    static const int checked[] = {0, 19, 5, 1, 20};
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++)
        CU_ASSERT(fabs(fit.theta[checked[i]] - truth.theta[checked[i]]) < 0.2);
    CU_ASSERT(fit.theta[17] < truth.theta[0] - 1.5); /* Q well below the blank (Q is rare: loose) */
    /* fresh samples: the fit's log-likelihood beats the uniform draw's, and is near the truth's */
    LeaveTilt uniform;
    leave_tilt_uniform(&uniform, LETTERS);
    double ll_fit = 0.0, ll_uni = 0.0, ll_true = 0.0;
    for (size_t i = 0; i < test.n; i++) {
        Rack pool;
        CU_ASSERT_FATAL(position_unseen(&test.s[i].pos, &ld, &pool) == 0);
        ll_fit += leave_tilt_logprob(&fit, &pool, &test.s[i].opp_leave);
        ll_uni += leave_tilt_logprob(&uniform, &pool, &test.s[i].opp_leave);
        ll_true += leave_tilt_logprob(&truth, &pool, &test.s[i].opp_leave);
    }
    CU_ASSERT(ll_fit > ll_uni + 0.05 * (double)test.n);
    CU_ASSERT(fabs(ll_fit - ll_true) < 0.01 * (double)test.n);
    /* no usable sample: uniform */
    CU_ASSERT_EQUAL(leave_tilt_fit(&fit, LETTERS, &ld, &train, idx, 0, 5), 0u);
    CU_ASSERT_EQUAL(fit.theta[0], 0.0);
    free(idx);
    shardset_free(&train);
    shardset_free(&test);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"theta = 0 is the uniform draw", test_zero_theta_is_uniform},
        {"every leave's probability sums to 1", test_probabilities_sum_to_one},
        {"the fit recovers the weights of a tilted draw", test_fit_recovers_weights},
        CU_TEST_INFO_NULL,
    };
    return tu_run("leave_tilt", tests);
}
