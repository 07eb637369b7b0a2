/* The layer library (src/nn/params.h, layers.h): parameter blocks, every
 * layer's backward pass against central finite differences of its forward
 * pass, forward passes against direct computations, gradient accumulation,
 * the masked softmax family and losses, AdamW against hand-computed steps,
 * and a tiny network that must learn its training set. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/layers.h"
#include "nn/params.h"
#include "testutil.h"

/* A gradient entry is wrong if it differs from the numerical one by more
 * than this, relative to the larger of the two (entries far below the
 * tensor's largest are compared at 1/20 of that size, where float noise in
 * the finite difference would otherwise dominate). */
#define GRAD_TOL 1e-2

/* ---- helpers ---- */

static double uniform01(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static void fill_uniform(float *a, size_t n, Rng *r, float lo, float hi) {
    for (size_t i = 0; i < n; i++) a[i] = lo + (hi - lo) * (float)uniform01(r);
}

static float *falloc(size_t n) {
    float *p = calloc(n ? n : 1, sizeof(float));
    CU_ASSERT_FATAL(p != NULL);
    return p;
}

static double *dalloc(size_t n) {
    double *p = calloc(n ? n : 1, sizeof(double));
    CU_ASSERT_FATAL(p != NULL);
    return p;
}

static double dot(const float *a, const float *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)b[i];
    return s;
}

static double max_rel_err(const float *analytic, const double *numeric, const bool *skip, size_t n) {
    double scale = 0.0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fmax(fabs((double)analytic[i]), fabs(numeric[i])));
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (skip != NULL && skip[i]) continue;
        double a = analytic[i], b = numeric[i];
        double den = fmax(fmax(fabs(a), fabs(b)), 0.05 * scale + 1e-12);
        worst = fmax(worst, fabs(a - b) / den);
    }
    return worst;
}

/* A scalar loss of the layer under test, recomputed from scratch; *pattern
 * receives a signature of the ReLU pattern of the forward pass (0 for a
 * smooth function), so that a difference quotient that straddles a kink is
 * recognised and left out. */
typedef double (*LossFn)(void *ctx, uint64_t *pattern);

static uint64_t sign_hash(uint64_t h, const float *a, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= a[i] > 0.0f ? 1u : 0u;
        h *= 0x100000001B3ull;
    }
    return h;
}

/* Central differences of f over the n floats at v; returns how many were
 * left out because the ReLU pattern changed within +-eps. */
static size_t numeric_grad(LossFn f, void *ctx, float *v, size_t n, float eps, double *out, bool *skip) {
    uint64_t base, pp, pm;
    f(ctx, &base);
    size_t skipped = 0;
    for (size_t i = 0; i < n; i++) {
        float orig = v[i];
        v[i] = orig + eps;
        double vp = v[i];
        double lp = f(ctx, &pp);
        v[i] = orig - eps;
        double vm = v[i];
        double lm = f(ctx, &pm);
        v[i] = orig;
        out[i] = (lp - lm) / (vp - vm);
        skip[i] = pp != base || pm != base;
        skipped += skip[i];
    }
    return skipped;
}

/* Checks the analytic gradient of n floats at v against f; at most a
 * quarter of the entries may be left out at kinks. */
static double check_grad(LossFn f, void *ctx, float *v, const float *analytic, size_t n, float eps, const char *what) {
    double *num = dalloc(n);
    bool *skip = calloc(n, sizeof *skip);
    CU_ASSERT_FATAL(skip != NULL);
    size_t skipped = numeric_grad(f, ctx, v, n, eps, num, skip);
    double err = max_rel_err(analytic, num, skip, n);
    if (err >= GRAD_TOL || 4 * skipped > n || getenv("NN_TEST_VERBOSE") != NULL)
        printf("\n  %s: max relative error %.3g (%zu of %zu left out at kinks)\n", what, err, skipped, n);
    CU_ASSERT(err < GRAD_TOL);
    CU_ASSERT(4 * skipped <= n);
    free(num);
    free(skip);
    return err;
}

/* ---- params ---- */

static void test_params_declare_find(void) {
    NnParams ps;
    nnp_init(&ps);
    int s1[2] = {3, 5}, s2[1] = {7}, s3[4] = {2, 3, 2, 1};
    int a = nnp_declare(&ps, "trunk.block0.conv1.w", 2, s1, true);
    int b = nnp_declare(&ps, "trunk.block0.conv1.b", 1, s2, false);
    int c = nnp_declare(&ps, "head.w", 4, s3, true);
    CU_ASSERT_EQUAL(a, 0);
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_EQUAL(c, 2);
    CU_ASSERT_EQUAL(ps.count, 3);
    CU_ASSERT_EQUAL(nnp_find(&ps, "trunk.block0.conv1.b"), 1);
    CU_ASSERT_EQUAL(nnp_find(&ps, "head.w"), 2);
    CU_ASSERT_EQUAL(nnp_find(&ps, "head"), -1);
    CU_ASSERT_EQUAL(nnp_find(&ps, "head.w.x"), -1);
    CU_ASSERT_EQUAL(ps.p[0].n, 15u);
    CU_ASSERT_EQUAL(ps.p[2].n, 12u);
    CU_ASSERT(ps.p[0].decay && !ps.p[1].decay);
    CU_ASSERT_EQUAL(ps.p[2].ndim, 4);
    CU_ASSERT_EQUAL(ps.p[2].shape[2], 2);
    CU_ASSERT_PTR_NULL(ps.w);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    /* tensors do not overlap, fit in the blocks and are 64-byte aligned */
    for (int i = 0; i < ps.count; i++) {
        if (i > 0) CU_ASSERT(ps.p[i - 1].offset + ps.p[i - 1].n <= ps.p[i].offset);
        CU_ASSERT(ps.p[i].offset + ps.p[i].n <= ps.total);
        CU_ASSERT((uintptr_t)nnp_w(&ps, i) % 64 == 0);
        CU_ASSERT((uintptr_t)nnp_g(&ps, i) % 64 == 0);
        CU_ASSERT((uintptr_t)(ps.m + ps.p[i].offset) % 64 == 0);
        CU_ASSERT((uintptr_t)(ps.v + ps.p[i].offset) % 64 == 0);
    }
    bool zero = true;
    for (size_t k = 0; k < ps.total; k++)
        zero = zero && ps.w[k] == 0.0f && ps.g[k] == 0.0f && ps.m[k] == 0.0f && ps.v[k] == 0.0f;
    CU_ASSERT(zero);
    for (size_t k = 0; k < ps.total; k++) ps.g[k] = 1.0f;
    nnp_zero_grad(&ps);
    zero = true;
    for (size_t k = 0; k < ps.total; k++) zero = zero && ps.g[k] == 0.0f;
    CU_ASSERT(zero);
    nnp_free(&ps);
    CU_ASSERT_PTR_NULL(ps.w);
    CU_ASSERT_EQUAL(ps.count, 0);
}

static void test_params_fill_normal(void) {
    NnParams ps;
    nnp_init(&ps);
    int n = 20001; /* odd: the last value of an unpaired Box-Muller draw */
    int a = nnp_declare(&ps, "a", 1, &n, true);
    int b = nnp_declare(&ps, "b", 1, &n, true);
    int c = nnp_declare(&ps, "c", 1, &n, true);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    Rng r1, r2, r3;
    rng_seed(&r1, 42);
    rng_seed(&r2, 42);
    rng_seed(&r3, 43);
    nnp_fill_normal(&ps, a, 0.5f, &r1);
    nnp_fill_normal(&ps, b, 0.5f, &r2);
    nnp_fill_normal(&ps, c, 0.5f, &r3);
    CU_ASSERT(memcmp(nnp_w(&ps, a), nnp_w(&ps, b), (size_t)n * sizeof(float)) == 0);
    CU_ASSERT(memcmp(nnp_w(&ps, a), nnp_w(&ps, c), (size_t)n * sizeof(float)) != 0);
    /* the streams advanced alike */
    CU_ASSERT_EQUAL(rng_next(&r1), rng_next(&r2));
    const float *w = nnp_w(&ps, a);
    double s = 0.0, s2 = 0.0, s4 = 0.0;
    int beyond2 = 0;
    for (int i = 0; i < n; i++) {
        double x = w[i];
        CU_ASSERT_FATAL(isfinite(x));
        s += x;
        s2 += x * x;
        s4 += x * x * x * x;
        beyond2 += fabs(x) > 1.0;
    }
    double pair = 0.0; /* the two values of a Box-Muller pair are independent */
    for (int i = 0; i + 1 < n; i += 2) pair += (double)w[i] * w[i + 1];
    double mean = s / n, var = s2 / n - mean * mean;
    CU_ASSERT(fabs(pair / (n / 2) / var) < 0.05); /* sd of the correlation: 0.01 */
    CU_ASSERT(fabs(mean) < 0.02);                   /* sd of the mean: 0.0035 */
    CU_ASSERT(fabs(sqrt(var) - 0.5) < 0.015);       /* sd of the sd: 0.0025 */
    CU_ASSERT(fabs(s4 / n / (var * var) - 3.0) < 0.2); /* normal kurtosis */
    CU_ASSERT(fabs((double)beyond2 / n - 0.0455) < 0.006); /* P(|z| > 2) */
    /* the last (odd) value was written too */
    CU_ASSERT(nnp_w(&ps, a)[n - 1] != 0.0f);
    nnp_free(&ps);
}

/* ---- dense ---- */

typedef struct DenseCtx {
    NnDense l;
    NnParams ps;
    int batch;
    float *x, *y, *r;
} DenseCtx;

static double dense_loss(void *vc, uint64_t *pattern) {
    DenseCtx *c = vc;
    nn_dense_forward(&c->l, &c->ps, c->x, c->batch, c->y);
    *pattern = 0;
    return dot(c->y, c->r, (size_t)c->batch * (size_t)c->l.out);
}

static void dense_setup(DenseCtx *c, int in, int out, int batch, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    nnp_init(&c->ps);
    nn_dense_declare(&c->l, &c->ps, "d", in, out);
    CU_ASSERT_FATAL(nnp_alloc(&c->ps) == 0);
    nn_dense_init(&c->l, &c->ps, 1.0f, &rng);
    nnp_fill_normal(&c->ps, c->l.b, 0.5f, &rng);
    c->batch = batch;
    c->x = falloc((size_t)batch * (size_t)in);
    c->y = falloc((size_t)batch * (size_t)out);
    c->r = falloc((size_t)batch * (size_t)out);
    fill_uniform(c->x, (size_t)batch * (size_t)in, &rng, -1.0f, 1.0f);
    fill_uniform(c->r, (size_t)batch * (size_t)out, &rng, -1.0f, 1.0f);
}

static void dense_teardown(DenseCtx *c) {
    nnp_free(&c->ps);
    free(c->x);
    free(c->y);
    free(c->r);
}

static void dense_check(int batch) {
    const int in = 6, out = 5;
    DenseCtx c;
    dense_setup(&c, in, out, batch, 100u + (uint64_t)batch);
    /* forward against the definition */
    nn_dense_forward(&c.l, &c.ps, c.x, batch, c.y);
    const float *w = nnp_w(&c.ps, c.l.w), *b = nnp_w(&c.ps, c.l.b);
    double worst = 0.0;
    for (int s = 0; s < batch; s++)
        for (int o = 0; o < out; o++) {
            double v = b[o];
            for (int i = 0; i < in; i++) v += (double)c.x[s * in + i] * w[i * out + o];
            worst = fmax(worst, fabs(v - c.y[s * out + o]));
        }
    CU_ASSERT(worst < 1e-5);
    /* backward against finite differences */
    float *dx = falloc((size_t)batch * (size_t)in);
    nnp_zero_grad(&c.ps);
    nn_dense_backward(&c.l, &c.ps, c.x, c.r, batch, dx);
    check_grad(dense_loss, &c, nnp_w(&c.ps, c.l.w), nnp_g(&c.ps, c.l.w), (size_t)(in * out), 1e-2f, "dense W");
    check_grad(dense_loss, &c, nnp_w(&c.ps, c.l.b), nnp_g(&c.ps, c.l.b), (size_t)out, 1e-2f, "dense b");
    check_grad(dense_loss, &c, c.x, dx, (size_t)(batch * in), 1e-2f, "dense x");
    /* dx = NULL: parameters only, same gradients */
    float *g1 = falloc(c.ps.total);
    memcpy(g1, c.ps.g, c.ps.total * sizeof(float));
    nnp_zero_grad(&c.ps);
    nn_dense_backward(&c.l, &c.ps, c.x, c.r, batch, NULL);
    CU_ASSERT(memcmp(g1, c.ps.g, c.ps.total * sizeof(float)) == 0);
    free(g1);
    free(dx);
    dense_teardown(&c);
}

static void test_dense_grad_batch1(void) { dense_check(1); }
static void test_dense_grad_batched(void) { dense_check(3); }

/* The checker itself: a gradient off by 5% in one entry fails it. */
static void test_grad_checker_catches_errors(void) {
    DenseCtx c;
    dense_setup(&c, 4, 3, 2, 7);
    nnp_zero_grad(&c.ps);
    nn_dense_backward(&c.l, &c.ps, c.x, c.r, 2, NULL);
    size_t n = 12;
    double *num = dalloc(n);
    bool *skip = calloc(n, sizeof *skip);
    CU_ASSERT_FATAL(skip != NULL);
    CU_ASSERT_EQUAL(numeric_grad(dense_loss, &c, nnp_w(&c.ps, c.l.w), n, 1e-2f, num, skip), 0u);
    float *g = nnp_g(&c.ps, c.l.w);
    CU_ASSERT(max_rel_err(g, num, skip, n) < GRAD_TOL);
    size_t big = 0;
    for (size_t i = 1; i < n; i++)
        if (fabsf(g[i]) > fabsf(g[big])) big = i;
    g[big] *= 1.05f;
    CU_ASSERT(max_rel_err(g, num, skip, n) > GRAD_TOL);
    g[big] /= 1.05f;
    g[(big + 1) % n] = -g[(big + 1) % n] + 0.1f * g[big];
    CU_ASSERT(max_rel_err(g, num, skip, n) > GRAD_TOL);
    free(num);
    free(skip);
    dense_teardown(&c);
}

/* ---- conv3 ---- */

typedef struct ConvCtx {
    NnConv3 l;
    NnParams ps;
    int batch;
    float *x, *y, *r, *col;
} ConvCtx;

static size_t conv_in_floats(const NnConv3 *l, int batch) { return (size_t)batch * (size_t)(l->dim * l->dim * l->cin); }
static size_t conv_out_floats(const NnConv3 *l, int batch) {
    return (size_t)batch * (size_t)(l->dim * l->dim * l->cout);
}

static double conv_loss(void *vc, uint64_t *pattern) {
    ConvCtx *c = vc;
    nn_conv3_forward(&c->l, &c->ps, c->x, c->batch, c->y, c->col);
    *pattern = 0;
    return dot(c->y, c->r, conv_out_floats(&c->l, c->batch));
}

static void conv_setup(ConvCtx *c, int dim, int cin, int cout, int batch, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    nnp_init(&c->ps);
    nn_conv3_declare(&c->l, &c->ps, "conv", dim, cin, cout);
    CU_ASSERT_FATAL(nnp_alloc(&c->ps) == 0);
    nn_conv3_init(&c->l, &c->ps, 1.0f, &rng);
    nnp_fill_normal(&c->ps, c->l.b, 0.5f, &rng);
    c->batch = batch;
    c->x = falloc(conv_in_floats(&c->l, batch));
    c->y = falloc(conv_out_floats(&c->l, batch));
    c->r = falloc(conv_out_floats(&c->l, batch));
    c->col = falloc(nn_conv3_col_floats(&c->l, batch));
    fill_uniform(c->x, conv_in_floats(&c->l, batch), &rng, -1.0f, 1.0f);
    fill_uniform(c->r, conv_out_floats(&c->l, batch), &rng, -1.0f, 1.0f);
}

static void conv_teardown(ConvCtx *c) {
    nnp_free(&c->ps);
    free(c->x);
    free(c->y);
    free(c->r);
    free(c->col);
}

/* Direct convolution, in double. */
static double conv_direct_max_err(const ConvCtx *c) {
    const NnConv3 *l = &c->l;
    const int dim = l->dim, cin = l->cin, cout = l->cout, sq = dim * dim;
    const float *w = nnp_w(&c->ps, l->w), *b = nnp_w(&c->ps, l->b);
    double worst = 0.0;
    for (int n = 0; n < c->batch; n++)
        for (int r = 0; r < dim; r++)
            for (int col = 0; col < dim; col++)
                for (int o = 0; o < cout; o++) {
                    double v = b[o];
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int rr = r + ky - 1, cc = col + kx - 1;
                            if (rr < 0 || rr >= dim || cc < 0 || cc >= dim) continue;
                            for (int i = 0; i < cin; i++)
                                v += (double)c->x[(n * sq + rr * dim + cc) * cin + i] *
                                     w[((ky * 3 + kx) * cin + i) * cout + o];
                        }
                    worst = fmax(worst, fabs(v - c->y[(n * sq + r * dim + col) * cout + o]));
                }
    return worst;
}

static void test_conv3_forward_direct(void) {
    const int dims[] = {1, 2, 3, 5, 7};
    for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
        ConvCtx c;
        conv_setup(&c, dims[k], 3, 4, 2, 200u + k);
        /* scratch content on entry must not matter */
        for (size_t i = 0; i < nn_conv3_col_floats(&c.l, 2); i++) c.col[i] = NAN;
        nn_conv3_forward(&c.l, &c.ps, c.x, 2, c.y, c.col);
        double err = conv_direct_max_err(&c);
        if (err >= 1e-5) printf("\n  dim %d: conv3 differs from direct convolution by %g\n", dims[k], err);
        CU_ASSERT(err < 1e-5);
        conv_teardown(&c);
    }
}

static void test_conv3_grad(void) {
    ConvCtx c;
    conv_setup(&c, 5, 3, 4, 2, 300);
    float *dx = falloc(conv_in_floats(&c.l, 2));
    nnp_zero_grad(&c.ps);
    for (size_t i = 0; i < nn_conv3_col_floats(&c.l, 2); i++) c.col[i] = NAN;
    nn_conv3_backward(&c.l, &c.ps, c.x, c.r, 2, dx, c.col);
    check_grad(conv_loss, &c, nnp_w(&c.ps, c.l.w), nnp_g(&c.ps, c.l.w), c.ps.p[c.l.w].n, 1e-2f, "conv3 W");
    check_grad(conv_loss, &c, nnp_w(&c.ps, c.l.b), nnp_g(&c.ps, c.l.b), c.ps.p[c.l.b].n, 1e-2f, "conv3 b");
    check_grad(conv_loss, &c, c.x, dx, conv_in_floats(&c.l, 2), 1e-2f, "conv3 x");
    /* dx may alias dy when cin == cout, and x (see conv3.c); same results */
    ConvCtx s;
    conv_setup(&s, 4, 3, 3, 2, 301);
    size_t n = conv_in_floats(&s.l, 2);
    float *ref = falloc(n), *buf = falloc(n), *xcopy = falloc(n);
    nn_conv3_backward(&s.l, &s.ps, s.x, s.r, 2, ref, s.col);
    memcpy(buf, s.r, n * sizeof(float));
    nn_conv3_backward(&s.l, &s.ps, s.x, buf, 2, buf, s.col);
    CU_ASSERT(memcmp(ref, buf, n * sizeof(float)) == 0);
    memcpy(xcopy, s.x, n * sizeof(float));
    nn_conv3_backward(&s.l, &s.ps, xcopy, s.r, 2, xcopy, s.col);
    CU_ASSERT(memcmp(ref, xcopy, n * sizeof(float)) == 0);
    free(ref);
    free(buf);
    free(xcopy);
    conv_teardown(&s);
    free(dx);
    conv_teardown(&c);
}

/* ---- backward accumulates into g ---- */

static void expect_twice(const float *once, const float *twice, size_t n) {
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(2.0 * once[i] - twice[i]) / (fabs(once[i]) + 1e-6));
    CU_ASSERT(worst < 1e-5);
}

static void test_backward_accumulates(void) {
    for (int batch = 1; batch <= 3; batch += 2) {
        DenseCtx d;
        dense_setup(&d, 5, 4, batch, 400);
        nnp_zero_grad(&d.ps);
        nn_dense_backward(&d.l, &d.ps, d.x, d.r, batch, NULL);
        float *once = falloc(d.ps.total);
        memcpy(once, d.ps.g, d.ps.total * sizeof(float));
        nn_dense_backward(&d.l, &d.ps, d.x, d.r, batch, NULL);
        expect_twice(once, d.ps.g, d.ps.total);
        free(once);
        dense_teardown(&d);
    }
    ConvCtx c;
    conv_setup(&c, 5, 3, 4, 2, 401);
    float *dx = falloc(conv_in_floats(&c.l, 2));
    nnp_zero_grad(&c.ps);
    nn_conv3_backward(&c.l, &c.ps, c.x, c.r, 2, dx, c.col);
    float *once = falloc(c.ps.total), *dx1 = falloc(conv_in_floats(&c.l, 2));
    memcpy(once, c.ps.g, c.ps.total * sizeof(float));
    memcpy(dx1, dx, conv_in_floats(&c.l, 2) * sizeof(float));
    nn_conv3_backward(&c.l, &c.ps, c.x, c.r, 2, dx, c.col);
    expect_twice(once, c.ps.g, c.ps.total);
    /* but dx is written, not accumulated */
    CU_ASSERT(memcmp(dx, dx1, conv_in_floats(&c.l, 2) * sizeof(float)) == 0);
    free(once);
    free(dx1);
    free(dx);
    conv_teardown(&c);
}

/* ---- relu ---- */

typedef struct ReluCtx {
    size_t n;
    float *x, *y, *r;
} ReluCtx;

static double relu_loss(void *vc, uint64_t *pattern) {
    ReluCtx *c = vc;
    nn_relu_forward(c->x, c->n, c->y);
    *pattern = sign_hash(0, c->y, c->n);
    return dot(c->y, c->r, c->n);
}

static void test_relu(void) {
    Rng rng;
    rng_seed(&rng, 500);
    ReluCtx c = {.n = 40};
    c.x = falloc(c.n);
    c.y = falloc(c.n);
    c.r = falloc(c.n);
    fill_uniform(c.x, c.n, &rng, 0.1f, 1.0f);
    for (size_t i = 0; i < c.n; i += 2) c.x[i] = -c.x[i]; /* away from the kink */
    fill_uniform(c.r, c.n, &rng, -1.0f, 1.0f);
    nn_relu_forward(c.x, c.n, c.y);
    for (size_t i = 0; i < c.n; i++) CU_ASSERT_EQUAL(c.y[i], c.x[i] > 0 ? c.x[i] : 0.0f);
    float *dx = falloc(c.n);
    nn_relu_backward(c.y, c.r, c.n, dx);
    double err = check_grad(relu_loss, &c, c.x, dx, c.n, 1e-2f, "relu");
    CU_ASSERT(err < 1e-4);
    /* in place over dy */
    float *d = falloc(c.n);
    memcpy(d, c.r, c.n * sizeof(float));
    nn_relu_backward(c.y, d, c.n, d);
    CU_ASSERT(memcmp(d, dx, c.n * sizeof(float)) == 0);
    free(d);
    free(dx);
    free(c.x);
    free(c.y);
    free(c.r);
}

/* ---- residual block ---- */

typedef struct ResCtx {
    NnResBlock l;
    NnParams ps;
    int batch;
    size_t n;
    float *x, *y, *r, *saved, *col;
} ResCtx;

static double res_loss(void *vc, uint64_t *pattern) {
    ResCtx *c = vc;
    nn_resblock_forward(&c->l, &c->ps, c->x, c->batch, c->y, c->saved, c->col);
    *pattern = sign_hash(sign_hash(0xCBF29CE484222325ull, c->saved, c->n), c->y, c->n);
    return dot(c->y, c->r, c->n);
}

static double tensor_std(const NnParams *ps, int i) {
    const float *w = nnp_w(ps, i);
    double s2 = 0.0;
    for (size_t k = 0; k < ps->p[i].n; k++) s2 += (double)w[k] * w[k];
    return sqrt(s2 / (double)ps->p[i].n);
}

static void test_resblock(void) {
    const int dim = 5, ch = 4, batch = 2;
    Rng rng;
    rng_seed(&rng, 600);
    ResCtx c;
    nnp_init(&c.ps);
    nn_resblock_declare(&c.l, &c.ps, "blk", dim, ch);
    CU_ASSERT_FATAL(nnp_alloc(&c.ps) == 0);
    CU_ASSERT(nnp_find(&c.ps, "blk.conv1.w") >= 0);
    CU_ASSERT(nnp_find(&c.ps, "blk.conv2.b") >= 0);
    /* init: conv1 He, conv2 at a small gain, zero biases */
    nn_resblock_init(&c.l, &c.ps, &rng);
    double he = sqrt(2.0 / (9.0 * ch));
    CU_ASSERT(fabs(tensor_std(&c.ps, c.l.c1.w) / he - 1.0) < 0.25);
    double ratio = tensor_std(&c.ps, c.l.c2.w) / tensor_std(&c.ps, c.l.c1.w);
    CU_ASSERT(ratio > 0.03 && ratio < 0.3);
    CU_ASSERT(tensor_std(&c.ps, c.l.c1.b) == 0.0 && tensor_std(&c.ps, c.l.c2.b) == 0.0);
    /* a well-conditioned case for the gradients: both convolutions at He
     * scale, non-zero biases */
    nn_conv3_init(&c.l.c2, &c.ps, 1.0f, &rng);
    nnp_fill_normal(&c.ps, c.l.c1.b, 0.2f, &rng);
    nnp_fill_normal(&c.ps, c.l.c2.b, 0.2f, &rng);
    c.batch = batch;
    c.n = (size_t)(batch * dim * dim * ch);
    c.x = falloc(c.n);
    c.y = falloc(c.n);
    c.r = falloc(c.n);
    c.saved = falloc(nn_resblock_saved_floats(&c.l, batch));
    c.col = falloc(nn_conv3_col_floats(&c.l.c1, batch));
    fill_uniform(c.r, c.n, &rng, -1.0f, 1.0f);
    /* An input whose ReLU inputs (conv1's output and x + conv2's) all lie at
     * least 5e-3 from zero, so that few finite differences with a step of
     * 3e-3 straddle a kink: one unit near zero would spoil the difference of
     * nearly every weight (numeric_grad still leaves out any that do). */
    float *pre = falloc(c.n), *h = falloc(c.n), *z = falloc(c.n);
    bool clear = false;
    for (int tries = 0; tries < 100 && !clear; tries++) {
        fill_uniform(c.x, c.n, &rng, -1.0f, 1.0f);
        nn_conv3_forward(&c.l.c1, &c.ps, c.x, batch, pre, c.col);
        nn_relu_forward(pre, c.n, h);
        nn_conv3_forward(&c.l.c2, &c.ps, h, batch, z, c.col);
        clear = true;
        for (size_t i = 0; i < c.n; i++) clear = clear && fabsf(pre[i]) > 5e-3f && fabsf(z[i] + c.x[i]) > 5e-3f;
    }
    CU_ASSERT_FATAL(clear);
    /* forward against its definition from the parts */
    nn_resblock_forward(&c.l, &c.ps, c.x, batch, c.y, c.saved, c.col);
    double worst = 0.0;
    size_t live = 0;
    for (size_t i = 0; i < c.n; i++) {
        float v = z[i] + c.x[i];
        worst = fmax(worst, fabs((double)(v > 0 ? v : 0) - c.y[i]));
        live += c.y[i] > 0;
    }
    CU_ASSERT(worst < 1e-6);
    CU_ASSERT(live > c.n / 4 && live < c.n * 3 / 4); /* both ReLU branches exercised */
    for (size_t i = 0; i < c.n; i++) worst = fmax(worst, fabs((double)h[i] - c.saved[i]));
    CU_ASSERT(worst < 1e-6); /* saved starts with relu(conv1(x)) */
    free(pre);
    free(h);
    free(z);
    /* backward against finite differences; a small step, so that few
     * differences straddle a ReLU kink (the loss is piecewise linear in each
     * single parameter, so the others are exact up to rounding) */
    float *dx = falloc(c.n);
    nnp_zero_grad(&c.ps);
    nn_resblock_forward(&c.l, &c.ps, c.x, batch, c.y, c.saved, c.col);
    nn_resblock_backward(&c.l, &c.ps, c.x, c.y, c.saved, c.r, batch, dx, c.col);
    const int tensors[4] = {c.l.c1.w, c.l.c1.b, c.l.c2.w, c.l.c2.b};
    const char *names[4] = {"resblock conv1 W", "resblock conv1 b", "resblock conv2 W", "resblock conv2 b"};
    for (int t = 0; t < 4; t++)
        check_grad(res_loss, &c, nnp_w(&c.ps, tensors[t]), nnp_g(&c.ps, tensors[t]), c.ps.p[tensors[t]].n, 3e-3f,
                   names[t]);
    check_grad(res_loss, &c, c.x, dx, c.n, 3e-3f, "resblock x");
    /* accumulation */
    float *once = falloc(c.ps.total);
    memcpy(once, c.ps.g, c.ps.total * sizeof(float));
    nn_resblock_forward(&c.l, &c.ps, c.x, batch, c.y, c.saved, c.col);
    nn_resblock_backward(&c.l, &c.ps, c.x, c.y, c.saved, c.r, batch, dx, c.col);
    expect_twice(once, c.ps.g, c.ps.total);
    free(once);
    free(dx);
    free(c.x);
    free(c.y);
    free(c.r);
    free(c.saved);
    free(c.col);
    nnp_free(&c.ps);
}

/* ---- average pool ---- */

typedef struct PoolCtx {
    int batch, sq, c;
    float *x, *y, *r;
} PoolCtx;

static double pool_loss(void *vc, uint64_t *pattern) {
    PoolCtx *p = vc;
    nn_avgpool_forward(p->x, p->batch, p->sq, p->c, p->y);
    *pattern = 0;
    return dot(p->y, p->r, (size_t)(p->batch * p->c));
}

static void test_avgpool(void) {
    Rng rng;
    rng_seed(&rng, 700);
    PoolCtx p = {.batch = 2, .sq = 9, .c = 3};
    size_t nx = (size_t)(p.batch * p.sq * p.c), ny = (size_t)(p.batch * p.c);
    p.x = falloc(nx);
    p.y = falloc(ny);
    p.r = falloc(ny);
    fill_uniform(p.x, nx, &rng, -1.0f, 1.0f);
    fill_uniform(p.r, ny, &rng, -1.0f, 1.0f);
    nn_avgpool_forward(p.x, p.batch, p.sq, p.c, p.y);
    for (int b = 0; b < p.batch; b++)
        for (int k = 0; k < p.c; k++) {
            double s = 0.0;
            for (int q = 0; q < p.sq; q++) s += p.x[(b * p.sq + q) * p.c + k];
            CU_ASSERT(fabs(s / p.sq - p.y[b * p.c + k]) < 1e-6);
        }
    float *dx = falloc(nx);
    for (size_t i = 0; i < nx; i++) dx[i] = 123.0f; /* written, not accumulated */
    nn_avgpool_backward(p.r, p.batch, p.sq, p.c, dx);
    check_grad(pool_loss, &p, p.x, dx, nx, 1e-2f, "avgpool x");
    free(dx);
    free(p.x);
    free(p.y);
    free(p.r);
}

/* ---- softmax family and losses ---- */

typedef struct XentCtx {
    int n;
    const uint8_t *mask;
    float *logits, *target, *scratch;
} XentCtx;

static double xent_loss(void *vc, uint64_t *pattern) {
    XentCtx *c = vc;
    *pattern = 0;
    return nn_xent_masked(c->logits, c->mask, c->target, c->n, 1.0f, c->scratch);
}

static void test_softmax_masked(void) {
    const int n = 7;
    const uint8_t mask[7] = {1, 0, 1, 1, 0, 1, 1};
    float logits[7] = {0.3f, 1e30f, -1.2f, 2.0f, NAN, 0.0f, 1.1f};
    float p[7], logp[7];
    nn_softmax_masked(logits, mask, n, p);
    nn_log_softmax_masked(logits, mask, n, logp);
    double z = 0.0;
    for (int i = 0; i < n; i++)
        if (mask[i]) z += exp((double)logits[i]);
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (!mask[i]) {
            CU_ASSERT_EQUAL(p[i], 0.0f);
            CU_ASSERT(isinf(logp[i]) && logp[i] < 0);
            continue;
        }
        double want = exp((double)logits[i]) / z;
        CU_ASSERT(fabs(p[i] - want) < 1e-6);
        CU_ASSERT(fabs(logp[i] - log(want)) < 1e-6);
        sum += p[i];
    }
    CU_ASSERT(fabs(sum - 1.0) < 1e-6);
    /* no mask: every entry */
    float q[3], lq[3];
    const float l3[3] = {1.0f, 2.0f, 3.0f};
    nn_softmax_masked(l3, NULL, 3, q);
    nn_log_softmax_masked(l3, NULL, 3, lq);
    double z3 = exp(1.0) + exp(2.0) + exp(3.0);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT(fabs(q[i] - exp(l3[i]) / z3) < 1e-6);
        CU_ASSERT(fabs(lq[i] - (l3[i] - log(z3))) < 1e-6);
    }
    /* stable for huge logits */
    const float big[4] = {1000.0f, 999.0f, -1000.0f, 1000.0f};
    nn_softmax_masked(big, NULL, 4, p);
    nn_log_softmax_masked(big, NULL, 4, logp);
    double zb = 2.0 + exp(-1.0);
    CU_ASSERT(fabs(p[0] - 1.0 / zb) < 1e-6 && fabs(p[1] - exp(-1.0) / zb) < 1e-6);
    CU_ASSERT(p[2] == 0.0f || p[2] < 1e-30f);
    CU_ASSERT(fabs(logp[0] + log(zb)) < 1e-5 && fabs(logp[2] - (-2000.0 - log(zb))) < 1e-2);
    /* a single allowed entry */
    const uint8_t one[4] = {0, 0, 1, 0};
    nn_softmax_masked(big, one, 4, p);
    CU_ASSERT(p[2] == 1.0f && p[0] == 0.0f && p[3] == 0.0f);
}

static void test_xent_masked(void) {
    Rng rng;
    rng_seed(&rng, 800);
    const int n = 9;
    const uint8_t mask[9] = {1, 1, 0, 1, 1, 0, 1, 0, 1};
    float logits[9], target[9], grad[9], scratch[9], p[9];
    fill_uniform(logits, 9, &rng, -2.0f, 2.0f);
    double tsum = 0.0;
    for (int i = 0; i < n; i++) {
        target[i] = mask[i] ? (float)uniform01(&rng) : 0.0f;
        tsum += target[i];
    }
    for (int i = 0; i < n; i++) target[i] = (float)(target[i] / tsum);
    float loss = nn_xent_masked(logits, mask, target, n, 1.0f, grad);
    nn_softmax_masked(logits, mask, n, p);
    double want = 0.0;
    for (int i = 0; i < n; i++)
        if (mask[i]) want -= target[i] * log((double)p[i]);
    CU_ASSERT(fabs(loss - want) < 1e-5);
    for (int i = 0; i < n; i++) {
        if (!mask[i]) CU_ASSERT_EQUAL(grad[i], 0.0f);
        if (!mask[i]) CU_ASSERT_EQUAL(p[i], 0.0f);
        if (mask[i]) CU_ASSERT(fabs(grad[i] - (p[i] - target[i])) < 1e-6);
    }
    XentCtx c = {n, mask, logits, target, scratch};
    check_grad(xent_loss, &c, logits, grad, (size_t)n, 1e-2f, "xent logits");
    /* the gradient is scaled, the loss is not */
    float half[9];
    float loss2 = nn_xent_masked(logits, mask, target, n, 0.5f, half);
    CU_ASSERT_EQUAL(loss2, loss);
    for (int i = 0; i < n; i++) CU_ASSERT(fabs(half[i] - 0.5f * grad[i]) < 1e-7);
    /* a one-hot target on a likely entry: small loss */
    float hot[9] = {0}, lg[9] = {0};
    hot[3] = 1.0f;
    lg[3] = 20.0f;
    CU_ASSERT(nn_xent_masked(lg, mask, hot, n, 1.0f, grad) < 1e-6f);
}

typedef struct MseCtx {
    int n;
    float *pred, *target, *scratch;
} MseCtx;

static double mse_loss(void *vc, uint64_t *pattern) {
    MseCtx *c = vc;
    *pattern = 0;
    return nn_mse(c->pred, c->target, c->n, 1.0f, c->scratch);
}

static void test_mse(void) {
    float pred[3] = {1.0f, -2.0f, 0.5f}, target[3] = {0.0f, 1.0f, 0.5f}, grad[3];
    float loss = nn_mse(pred, target, 3, 2.0f, grad);
    CU_ASSERT(fabs(loss - 5.0) < 1e-6); /* (1 + 9 + 0) / 2 */
    CU_ASSERT(grad[0] == 2.0f && grad[1] == -6.0f && grad[2] == 0.0f);
    Rng rng;
    rng_seed(&rng, 900);
    float p[6], t[6], g[6], s[6];
    fill_uniform(p, 6, &rng, -1.0f, 1.0f);
    fill_uniform(t, 6, &rng, -1.0f, 1.0f);
    nn_mse(p, t, 6, 1.0f, g);
    MseCtx c = {6, p, t, s};
    check_grad(mse_loss, &c, p, g, 6, 1e-2f, "mse pred");
}

/* ---- AdamW ---- */

static void test_adam_by_hand(void) {
    NnParams ps;
    nnp_init(&ps);
    int two = 2;
    int w = nnp_declare(&ps, "w", 1, &two, true);
    int b = nnp_declare(&ps, "b", 1, &two, false);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    NnAdam a = nn_adam_default();
    CU_ASSERT(a.lr == 1e-3f && a.beta1 == 0.9f && a.beta2 == 0.999f && a.eps == 1e-8f && a.weight_decay == 1e-4f);
    a.lr = 0.1f;
    a.weight_decay = 0.01f;
    nnp_w(&ps, w)[0] = 1.0f;
    nnp_w(&ps, w)[1] = -2.0f;
    nnp_w(&ps, b)[0] = 1.0f;
    nnp_w(&ps, b)[1] = -2.0f;
    for (int i = 0; i < 2; i++) {
        nnp_g(&ps, w)[i] = i ? -0.25f : 0.5f;
        nnp_g(&ps, b)[i] = i ? -0.25f : 0.5f;
    }
    nn_adam_step(&ps, &a, 1);
    /* step 1: m^ = g, v^ = g^2, so the step is lr * sign(g); decay lr*wd*w
     * on w only */
    CU_ASSERT(fabs(nnp_w(&ps, w)[0] - (1.0 - 0.001 - 0.1)) < 1e-6);
    CU_ASSERT(fabs(nnp_w(&ps, w)[1] - (-2.0 + 0.002 + 0.1)) < 1e-6);
    CU_ASSERT(fabs(nnp_w(&ps, b)[0] - 0.9) < 1e-6);
    CU_ASSERT(fabs(nnp_w(&ps, b)[1] - (-1.9)) < 1e-6);
    /* the gradient is left in place */
    CU_ASSERT(nnp_g(&ps, w)[0] == 0.5f);
    /* step 2 on b[0] with g = -0.25:
     * m = 0.9*0.05 - 0.1*0.25 = 0.02, v = 0.999*0.00025 + 0.001*0.0625 = 0.00031225
     * m^ = 0.02/0.19, v^ = 0.00031225/0.001999, b = 0.9 - 0.1 m^/sqrt(v^) */
    nnp_g(&ps, b)[0] = -0.25f;
    nnp_g(&ps, w)[0] = -0.25f;
    nn_adam_step(&ps, &a, 2);
    double mh = 0.02 / 0.19, vh = 0.00031225 / 0.001999;
    double want_b = 0.9 - 0.1 * mh / sqrt(vh);
    CU_ASSERT(fabs(nnp_w(&ps, b)[0] - want_b) < 1e-5);
    CU_ASSERT(fabs(want_b - 0.873366) < 1e-5);
    double w1 = 1.0 - 0.001 - 0.1;
    CU_ASSERT(fabs(nnp_w(&ps, w)[0] - (w1 - 0.001 * w1 - 0.1 * mh / sqrt(vh))) < 1e-5);
    /* moments as computed */
    CU_ASSERT(fabs(ps.m[ps.p[b].offset] - 0.02) < 1e-7);
    CU_ASSERT(fabs(ps.v[ps.p[b].offset] / 0.00031225 - 1.0) < 1e-4); /* 0.999f is not 0.999 */
    nnp_free(&ps);
}

static void test_adam_no_decay_without_flag(void) {
    NnParams ps;
    nnp_init(&ps);
    int n = 5;
    int w = nnp_declare(&ps, "w", 1, &n, true);
    int b = nnp_declare(&ps, "b", 1, &n, false);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    for (int i = 0; i < n; i++) nnp_w(&ps, w)[i] = nnp_w(&ps, b)[i] = (float)(i + 1);
    NnAdam a = nn_adam_default();
    a.weight_decay = 0.5f;
    a.lr = 0.1f;
    for (int64_t t = 1; t <= 3; t++) nn_adam_step(&ps, &a, t); /* zero gradients */
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(nnp_w(&ps, b)[i], (float)(i + 1));
        CU_ASSERT(fabs(nnp_w(&ps, w)[i] - (i + 1) * pow(0.95, 3)) < 1e-5);
    }
    nnp_free(&ps);
}

static void test_grads_finite(void) {
    NnParams ps;
    nnp_init(&ps);
    int n = 10;
    nnp_declare(&ps, "a", 1, &n, true);
    int b = nnp_declare(&ps, "b", 1, &n, false);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    CU_ASSERT(nnp_grads_finite(&ps));
    nnp_g(&ps, b)[9] = 1e30f;
    CU_ASSERT(nnp_grads_finite(&ps));
    nnp_g(&ps, b)[9] = NAN;
    CU_ASSERT(!nnp_grads_finite(&ps));
    nnp_g(&ps, b)[9] = -INFINITY;
    CU_ASSERT(!nnp_grads_finite(&ps));
    nnp_zero_grad(&ps);
    CU_ASSERT(nnp_grads_finite(&ps));
    nnp_free(&ps);
}

/* ---- a tiny network learns its training set ----
 * conv3 (2 -> 8) -> relu -> resblock -> avgpool -> dense (8 -> 4) -> masked
 * cross-entropy, 8 random 5x5 boards with 4 labels, full batch, AdamW. */

#define TN_DIM 5
#define TN_SQ (TN_DIM * TN_DIM)
#define TN_CIN 2
#define TN_C 8
#define TN_CLASSES 4
#define TN_N 8
#define TN_STEPS 300

static void test_tiny_net_overfits(void) {
    Rng rng;
    rng_seed(&rng, 1000);
    NnParams ps;
    nnp_init(&ps);
    NnConv3 stem;
    NnResBlock blk;
    NnDense head;
    nn_conv3_declare(&stem, &ps, "stem", TN_DIM, TN_CIN, TN_C);
    nn_resblock_declare(&blk, &ps, "block0", TN_DIM, TN_C);
    nn_dense_declare(&head, &ps, "head", TN_C, TN_CLASSES);
    CU_ASSERT_FATAL(nnp_alloc(&ps) == 0);
    nn_conv3_init(&stem, &ps, 1.0f, &rng);
    nn_resblock_init(&blk, &ps, &rng);
    nn_dense_init(&head, &ps, 1.0f, &rng);

    const size_t nin = (size_t)TN_N * TN_SQ * TN_CIN, nact = (size_t)TN_N * TN_SQ * TN_C;
    float *x = falloc(nin), *a1 = falloc(nact), *a2 = falloc(nact), *d1 = falloc(nact), *d2 = falloc(nact);
    float *saved = falloc(nn_resblock_saved_floats(&blk, TN_N));
    float *col = falloc(nn_conv3_col_floats(&blk.c1, TN_N)); /* the larger of the two */
    float pooled[TN_N * TN_C], dpooled[TN_N * TN_C], logits[TN_N * TN_CLASSES], dlogits[TN_N * TN_CLASSES];
    float target[TN_N * TN_CLASSES] = {0};
    uint8_t mask[TN_N * TN_CLASSES];
    for (size_t i = 0; i < nin; i++) x[i] = (float)(uniform01(&rng) * 2.0 - 1.0);
    for (int s = 0; s < TN_N; s++) {
        target[s * TN_CLASSES + s % TN_CLASSES] = 1.0f;
        for (int k = 0; k < TN_CLASSES; k++) mask[s * TN_CLASSES + k] = k != (s + 1) % TN_CLASSES;
    }
    NnAdam adam = nn_adam_default();
    adam.lr = 1e-2f;
    double first = -1.0, loss = 0.0;
    int correct = 0;
    for (int step = 1; step <= TN_STEPS; step++) {
        nn_conv3_forward(&stem, &ps, x, TN_N, a1, col);
        nn_relu_forward(a1, nact, a1);
        nn_resblock_forward(&blk, &ps, a1, TN_N, a2, saved, col);
        nn_avgpool_forward(a2, TN_N, TN_SQ, TN_C, pooled);
        nn_dense_forward(&head, &ps, pooled, TN_N, logits);
        loss = 0.0;
        correct = 0;
        for (int s = 0; s < TN_N; s++) {
            const float *l = logits + s * TN_CLASSES;
            loss += nn_xent_masked(l, mask + s * TN_CLASSES, target + s * TN_CLASSES, TN_CLASSES, 1.0f / TN_N,
                                   dlogits + s * TN_CLASSES);
            int best = -1;
            for (int k = 0; k < TN_CLASSES; k++)
                if (mask[s * TN_CLASSES + k] && (best < 0 || l[k] > l[best])) best = k;
            correct += best == s % TN_CLASSES;
        }
        loss /= TN_N;
        if (first < 0) first = loss;
        if (loss < 0.01) break;
        nnp_zero_grad(&ps);
        nn_dense_backward(&head, &ps, pooled, dlogits, TN_N, dpooled);
        nn_avgpool_backward(dpooled, TN_N, TN_SQ, TN_C, d2);
        nn_resblock_backward(&blk, &ps, a1, a2, saved, d2, TN_N, d1, col);
        nn_relu_backward(a1, d1, nact, d1);
        nn_conv3_backward(&stem, &ps, x, d1, TN_N, NULL, col);
        CU_ASSERT_FATAL(nnp_grads_finite(&ps));
        nn_adam_step(&ps, &adam, step);
    }
    printf("\n  tiny net: loss %.4f -> %.4f, %d of %d right ", first, loss, correct, TN_N);
    CU_ASSERT(first > 0.7); /* it starts near chance: ln 3 = 1.10 */
    CU_ASSERT(loss < 0.05);
    CU_ASSERT_EQUAL(correct, TN_N);
    free(x);
    free(a1);
    free(a2);
    free(d1);
    free(d2);
    free(saved);
    free(col);
    nnp_free(&ps);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"params: declare, alloc (aligned, zero), find, zero_grad, free", test_params_declare_find},
        {"params: fill_normal is deterministic and N(0, std^2)", test_params_fill_normal},
        {"the gradient checker fails a wrong gradient", test_grad_checker_catches_errors},
        {"dense at batch 1 (sgemv): forward, gradients of W, b, x", test_dense_grad_batch1},
        {"dense at batch 3 (sgemm): forward, gradients of W, b, x", test_dense_grad_batched},
        {"conv3 forward equals a direct convolution (dims 1..7)", test_conv3_forward_direct},
        {"conv3 gradients of W, b, x; dx may alias dy or x", test_conv3_grad},
        {"backward accumulates into g and writes dx", test_backward_accumulates},
        {"relu forward and backward", test_relu},
        {"resblock: init, forward, gradients of both convs and x", test_resblock},
        {"avgpool forward and backward", test_avgpool},
        {"masked softmax and log-softmax (stable, masked = 0 / -inf)", test_softmax_masked},
        {"masked cross-entropy: value, gradient, masked entries 0", test_xent_masked},
        {"mse: value and gradient", test_mse},
        {"AdamW: two steps against a hand computation", test_adam_by_hand},
        {"AdamW: no weight decay on tensors without the flag", test_adam_no_decay_without_flag},
        {"nnp_grads_finite", test_grads_finite},
        {"a tiny conv/resblock/dense net learns 8 samples", test_tiny_net_overfits},
        CU_TEST_INFO_NULL,
    };
    return tu_run("nn_layers", tests);
}
