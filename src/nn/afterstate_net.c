/*
 * afterstate_net.c - the afterstate network: parameters, forward and
 * backward passes, its file (see afterstate_net.h).
 */
#include "afterstate_net.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5util.h"
#include "params_io.h"

static int arch_check(const AftArch *a, RkError *err) {
    if (a->hidden1 < 1 || a->hidden1 > 1024) return rk_error(err, "afterstate net: hidden1 %d out of 1..1024", a->hidden1);
    if (a->hidden2 < 1 || a->hidden2 > 1024) return rk_error(err, "afterstate net: hidden2 %d out of 1..1024", a->hidden2);
    return 0;
}

int aft_net_init(AftNet *n, const AftArch *arch, const LetterDist *ld, int dim, uint64_t seed, RkError *err) {
    memset(n, 0, sizeof *n);
    if (arch_check(arch, err) != 0) return -1;
    if (dim < 1 || dim > RK_MAX_DIM) return rk_error(err, "afterstate net: board side %d", dim);
    n->arch = *arch;
    n->shape = aft_shape(ld, dim);
    NnParams *ps = &n->params;
    nnp_init(ps);
    nn_dense_declare(&n->l1, ps, "accumulator", n->shape.total, arch->hidden1);
    nn_dense_declare(&n->l2, ps, "hidden1", arch->hidden1, arch->hidden2);
    nn_dense_declare(&n->l3, ps, "hidden2", arch->hidden2, arch->hidden2);
    nn_dense_declare(&n->out, ps, "out", arch->hidden2, 2);
    if (nnp_alloc(ps) != 0) {
        nnp_free(ps);
        return rk_error(err, "afterstate net: out of memory for %zu parameters", ps->total);
    }
    Rng rng;
    rng_seed_stream(&rng, seed, 0x61667465u, 0);
    /* a few hundred features are active at once, not all of them: the
     * accumulator's rows start at He-normal for ~256 inputs */
    nn_dense_init(&n->l1, ps, sqrtf((float)n->shape.total / 256.0f), &rng);
    nn_dense_init(&n->l2, ps, 1.0f, &rng);
    nn_dense_init(&n->l3, ps, 1.0f, &rng);
    nn_dense_init(&n->out, ps, 0.0f, &rng); /* zero: the prior alone (aft_prior) */
    return 0;
}

void aft_net_free(AftNet *n) { nnp_free(&n->params); }

/* ---- the file ---- */

enum { A_VERSION, A_FEATURE_VERSION, A_HIDDEN1, A_HIDDEN2, A_DIM, A_LETTERS, A_TRAIN_STEP, A_COUNT };
static const char *const attr_name[A_COUNT] = {"version", "feature_version", "hidden1", "hidden2",
                                               "dim",     "letters",         "train_step"};

int aft_net_save(const AftNet *n, const char *path, const LetterDist *ld, RkError *err) {
    if (ld->size != n->shape.letters + 1)
        return rk_error(err, "%s: the network is for %d letters, the distribution has %d", path, n->shape.letters + 1,
                        ld->size);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return rk_error(err, "%s: path too long", path);
    hid_t file = h5u_create(tmp, H5F_LIBVER_V110, err);
    if (file < 0) return -1;
    const int64_t v[A_COUNT] = {AFT_NET_VERSION, AFT_FEATURE_VERSION, n->arch.hidden1, n->arch.hidden2,
                                n->shape.dim,    ld->size,            n->train_step};
    int bad = 0;
    H5E_BEGIN_TRY {
        bad |= h5u_write_attr_str(file, "format", AFT_NET_FORMAT);
        for (int a = 0; a < A_COUNT; a++) bad |= h5u_write_attr_int(file, attr_name[a], v[a]);
        bad |= h5u_write_attr_str(file, "distribution", ld->name);
        if (!bad) bad |= nn_params_write(file, &n->params);
        if (H5Fclose(file) < 0) bad = 1;
    }
    H5E_END_TRY;
    if (bad) {
        unlink(tmp);
        return rk_error(err, "%s: writing the afterstate network failed (disk full?)", tmp);
    }
    return h5u_commit(tmp, path, err);
}

static int read_attrs(hid_t file, const char *path, int64_t *v, RkError *err) {
    char format[32];
    if (h5u_read_attr_str(file, "format", format, sizeof format) != 0 || strcmp(format, AFT_NET_FORMAT) != 0)
        return rk_error(err, "%s: not a rookery afterstate network (no format attribute \"%s\")", path, AFT_NET_FORMAT);
    for (int a = 0; a < A_COUNT; a++)
        if (h5u_read_attr_int(file, attr_name[a], &v[a]) != 0)
            return rk_error(err, "%s: attribute '%s' is missing or not an integer", path, attr_name[a]);
    if (v[A_VERSION] != AFT_NET_VERSION)
        return rk_error(err, "%s: afterstate network version %lld, this build reads %d", path, (long long)v[A_VERSION],
                        AFT_NET_VERSION);
    if (v[A_FEATURE_VERSION] != AFT_FEATURE_VERSION)
        return rk_error(err, "%s: feature version %lld, this build computes %d", path, (long long)v[A_FEATURE_VERSION],
                        AFT_FEATURE_VERSION);
    for (int a = A_HIDDEN1; a <= A_LETTERS; a++)
        if (v[a] < INT_MIN || v[a] > INT_MAX)
            return rk_error(err, "%s: attribute '%s' = %lld is out of range", path, attr_name[a], (long long)v[a]);
    if (v[A_TRAIN_STEP] < 0) return rk_error(err, "%s: train_step %lld is negative", path, (long long)v[A_TRAIN_STEP]);
    return 0;
}

int aft_net_load(AftNet *n, const char *path, const LetterDist *ld, int dim, RkError *err) {
    memset(n, 0, sizeof *n);
    hid_t file = h5u_open_read(path, err);
    if (file < 0) return -1;
    int rc = -1;
    H5E_BEGIN_TRY {
        int64_t v[A_COUNT];
        RkError why;
        if (read_attrs(file, path, v, err) != 0) goto out;
        if (v[A_LETTERS] != ld->size) {
            rk_error(err, "%s: %lld letters, the distribution has %d", path, (long long)v[A_LETTERS], ld->size);
            goto out;
        }
        if (v[A_DIM] < 1 || v[A_DIM] > RK_MAX_DIM || (dim > 0 && v[A_DIM] != dim)) {
            rk_error(err, "%s: board side %lld, expected %d", path, (long long)v[A_DIM], dim);
            goto out;
        }
        AftArch arch = {.hidden1 = (int)v[A_HIDDEN1], .hidden2 = (int)v[A_HIDDEN2]};
        if (aft_net_init(n, &arch, ld, (int)v[A_DIM], 0, &why) != 0) {
            rk_error(err, "%s: %s", path, why.msg);
            goto out;
        }
        n->train_step = v[A_TRAIN_STEP];
        if (nn_params_read(file, &n->params, path, err) != 0) goto out;
        rc = 0;
    out:
        H5Fclose(file);
    }
    H5E_END_TRY;
    if (rc != 0) aft_net_free(n);
    return rc;
}

/* ---- batches, forward, backward ---- */

int aft_batch_init(AftBatch *b, const AftNet *n, int cap, RkError *err) {
    memset(b, 0, sizeof *b);
    b->cap = cap;
    size_t c = (size_t)cap, h1 = (size_t)n->arch.hidden1, h2 = (size_t)n->arch.hidden2;
    b->idx = malloc(c * AFT_MAX_ACTIVE * sizeof *b->idx);
    b->val = malloc(c * AFT_MAX_ACTIVE * sizeof *b->val);
    b->count = calloc(c, sizeof *b->count);
    b->prior = calloc(c * 2, sizeof *b->prior);
    b->h1 = malloc(c * h1 * sizeof(float));
    b->h2 = malloc(c * h2 * sizeof(float));
    b->h3 = malloc(c * h2 * sizeof(float));
    b->out = malloc(c * 2 * sizeof(float));
    b->d1 = malloc(c * h1 * sizeof(float));
    b->d2 = malloc(c * h2 * sizeof(float));
    b->d3 = malloc(c * h2 * sizeof(float));
    b->dout = malloc(c * 2 * sizeof(float));
    if (!b->idx || !b->val || !b->count || !b->prior || !b->h1 || !b->h2 || !b->h3 || !b->out || !b->d1 || !b->d2 || !b->d3 ||
        !b->dout) {
        aft_batch_free(b);
        return rk_error(err, "afterstate net: out of memory for a batch of %d", cap);
    }
    return 0;
}

void aft_batch_free(AftBatch *b) {
    free(b->idx), free(b->val), free(b->count), free(b->prior), free(b->h1), free(b->h2), free(b->h3), free(b->out);
    free(b->d1), free(b->d2), free(b->d3), free(b->dout);
    memset(b, 0, sizeof *b);
}

void aft_batch_set(AftBatch *b, const AftContext *c, int i, const Afterstate *as, const Board *after) {
    b->count[i] = aft_encode(c, as, after, b->idx + (size_t)i * AFT_MAX_ACTIVE, b->val + (size_t)i * AFT_MAX_ACTIVE,
                             b->prior + 2 * i);
}

void aft_net_forward(const AftNet *n, AftBatch *b, int k) {
    const NnParams *ps = &n->params;
    const int H1 = n->arch.hidden1, H2 = n->arch.hidden2;
    const float *w1 = nnp_w(ps, n->l1.w), *b1 = nnp_w(ps, n->l1.b);
    for (int i = 0; i < k; i++) {
        float *h = b->h1 + (size_t)i * H1;
        memcpy(h, b1, (size_t)H1 * sizeof(float));
        const int32_t *idx = b->idx + (size_t)i * AFT_MAX_ACTIVE;
        const float *val = b->val + (size_t)i * AFT_MAX_ACTIVE;
        for (int f = 0; f < b->count[i]; f++) {
            cblas_saxpy(H1, val[f], w1 + (size_t)idx[f] * H1, 1, h, 1);
        }
    }
    nn_relu_forward(b->h1, (size_t)k * H1, b->h1);
    nn_dense_forward_each(&n->l2, ps, b->h1, k, 1, b->h2);
    nn_relu_forward(b->h2, (size_t)k * H2, b->h2);
    nn_dense_forward_each(&n->l3, ps, b->h2, k, 1, b->h3);
    nn_relu_forward(b->h3, (size_t)k * H2, b->h3);
    nn_dense_forward_each(&n->out, ps, b->h3, k, 1, b->out);
    for (int i = 0; i < 2 * k; i++) b->out[i] += b->prior[i];
    b->n = k;
}

/* log(1 + e^z), stable for large |z|. */
static double softplus(double z) { return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)); }

void aft_net_backward(AftNet *n, AftBatch *b, int k, const float *win, const float *spread, float spread_weight,
                      float scale, double loss[2]) {
    NnParams *ps = &n->params;
    const int H1 = n->arch.hidden1, H2 = n->arch.hidden2;
    loss[0] = loss[1] = 0;
    for (int i = 0; i < k; i++) {
        double z = b->out[2 * i], t = win[i];
        loss[0] += softplus(z) - t * z;
        double e = (double)b->out[2 * i + 1] - (double)spread[i] / 100.0;
        loss[1] += 0.5 * e * e;
        b->dout[2 * i] = (float)(scale * (1.0 / (1.0 + exp(-z)) - t));
        b->dout[2 * i + 1] = (float)(scale * spread_weight * e);
    }
    nn_dense_backward(&n->out, ps, b->h3, b->dout, k, b->d3);
    nn_relu_backward(b->h3, b->d3, (size_t)k * H2, b->d3);
    nn_dense_backward(&n->l3, ps, b->h2, b->d3, k, b->d2);
    nn_relu_backward(b->h2, b->d2, (size_t)k * H2, b->d2);
    nn_dense_backward(&n->l2, ps, b->h1, b->d2, k, b->d1);
    nn_relu_backward(b->h1, b->d1, (size_t)k * H1, b->d1);
    float *g1 = nnp_g(ps, n->l1.w), *gb1 = nnp_g(ps, n->l1.b);
    for (int i = 0; i < k; i++) {
        const float *d = b->d1 + (size_t)i * H1;
        for (int j = 0; j < H1; j++) gb1[j] += d[j];
        const int32_t *idx = b->idx + (size_t)i * AFT_MAX_ACTIVE;
        const float *val = b->val + (size_t)i * AFT_MAX_ACTIVE;
        for (int f = 0; f < b->count[i]; f++) {
            cblas_saxpy(H1, val[f], d, 1, g1 + (size_t)idx[f] * H1, 1);
        }
    }
}
