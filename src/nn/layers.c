/*
 * layers.c - the dense layer, ReLU, the residual block and global average
 * pooling (see layers.h; the convolution is in conv3.c, the softmax family
 * and losses in softmax.c, the optimizer in adam.c).
 *
 * Dense, W [in, out] row-major:
 *   forward   y = x W + b            batch 1: sgemv (W^T x), else sgemm
 *   backward  dW += x^T dy           batch 1: sger (the outer product x dy^T), else sgemm
 *             db += sum over rows of dy
 *             dx  = dy W^T           batch 1: sgemv (W dy), else sgemm
 *
 * Residual block: h = relu(conv1(x)) is kept in the first half of `saved`;
 * y = relu(x + conv2(h)). Backward, with g = dy where y > 0:
 *   conv2: dW2, db2 from (h, g), dh = g W2^T (col2im)
 *   conv1: dW1, db1 from (x, dh masked by h > 0), dx1 = ... W1^T
 *   dx = dx1 + g
 * g is first written into dx, conv2's and then conv1's backward run in place
 * in dx (conv3.c allows dx to alias dy and x), and g is recomputed from dy
 * and y for the skip path, so no scratch beyond `col` is needed and the
 * second half of `saved` is unused (kept for the declared size).
 * The second convolution starts at gain NN_RESBLOCK_GAIN2 so that a fresh
 * block is close to relu(x + small); a zero gain would give conv1 no
 * gradient on the first step.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

#define NN_RESBLOCK_GAIN2 0.1f

/* ---- dense ---- */

void nn_dense_declare(NnDense *l, NnParams *ps, const char *name, int in, int out) {
    char buf[NNP_NAME_MAX + 8];
    l->in = in;
    l->out = out;
    int wshape[2] = {in, out};
    snprintf(buf, sizeof buf, "%s.w", name);
    l->w = nnp_declare(ps, buf, 2, wshape, true);
    snprintf(buf, sizeof buf, "%s.b", name);
    l->b = nnp_declare(ps, buf, 1, &out, false);
}

void nn_dense_init(const NnDense *l, NnParams *ps, float gain, Rng *rng) {
    nnp_fill_normal(ps, l->w, gain * sqrtf(2.0f / (float)l->in), rng);
    memset(nnp_w(ps, l->b), 0, (size_t)l->out * sizeof(float));
}

void nn_dense_forward(const NnDense *l, const NnParams *ps, const float *x, int batch, float *y) {
    const int in = l->in, out = l->out;
    const float *w = nnp_w(ps, l->w), *b = nnp_w(ps, l->b);
    for (int s = 0; s < batch; s++) memcpy(y + (size_t)s * (size_t)out, b, (size_t)out * sizeof(float));
    if (batch == 1)
        cblas_sgemv(CblasRowMajor, CblasTrans, in, out, 1.0f, w, out, x, 1, 1.0f, y, 1);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, out, in, 1.0f, x, in, w, out, 1.0f, y, out);
}

void nn_dense_forward_each(const NnDense *l, const NnParams *ps, const float *x, int groups, int rows, float *y) {
    const size_t in = (size_t)rows * (size_t)l->in, out = (size_t)rows * (size_t)l->out;
    for (int g = 0; g < groups; g++) nn_dense_forward(l, ps, x + (size_t)g * in, rows, y + (size_t)g * out);
}

void nn_dense_backward(const NnDense *l, NnParams *ps, const float *x, const float *dy, int batch, float *dx) {
    const int in = l->in, out = l->out;
    const float *w = nnp_w(ps, l->w);
    float *gw = nnp_g(ps, l->w), *gb = nnp_g(ps, l->b);
    for (int s = 0; s < batch; s++) {
        const float *d = dy + (size_t)s * (size_t)out;
        for (int o = 0; o < out; o++) gb[o] += d[o];
    }
    if (batch == 1) {
        cblas_sger(CblasRowMajor, in, out, 1.0f, x, 1, dy, 1, gw, out);
        if (dx != NULL) cblas_sgemv(CblasRowMajor, CblasNoTrans, in, out, 1.0f, w, out, dy, 1, 0.0f, dx, 1);
    } else {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, out, batch, 1.0f, x, in, dy, out, 1.0f, gw, out);
        if (dx != NULL)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
    }
}

/* ---- ReLU ---- */

void nn_relu_forward(const float *x, size_t n, float *y) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void nn_relu_backward(const float *y, const float *dy, size_t n, float *dx) {
    for (size_t i = 0; i < n; i++) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

/* ---- residual block ---- */

void nn_resblock_declare(NnResBlock *l, NnParams *ps, const char *name, int dim, int c) {
    char buf[NNP_NAME_MAX + 8];
    snprintf(buf, sizeof buf, "%s.conv1", name);
    nn_conv3_declare(&l->c1, ps, buf, dim, c, c);
    snprintf(buf, sizeof buf, "%s.conv2", name);
    nn_conv3_declare(&l->c2, ps, buf, dim, c, c);
}

void nn_resblock_init(const NnResBlock *l, NnParams *ps, Rng *rng) {
    nn_conv3_init(&l->c1, ps, 1.0f, rng);
    nn_conv3_init(&l->c2, ps, NN_RESBLOCK_GAIN2, rng);
}

void nn_resblock_forward(const NnResBlock *l, const NnParams *ps, const float *x, int batch, float *y, float *saved,
                         float *col) {
    const size_t n = (size_t)batch * (size_t)(l->c1.dim * l->c1.dim) * (size_t)l->c1.cout;
    float *h = saved;
    nn_conv3_forward(&l->c1, ps, x, batch, h, col);
    nn_relu_forward(h, n, h);
    nn_conv3_forward(&l->c2, ps, h, batch, y, col);
    for (size_t i = 0; i < n; i++) {
        float v = y[i] + x[i];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

void nn_resblock_backward(const NnResBlock *l, NnParams *ps, const float *x, const float *y, const float *saved,
                          const float *dy, int batch, float *dx, float *col) {
    const size_t n = (size_t)batch * (size_t)(l->c1.dim * l->c1.dim) * (size_t)l->c1.cout;
    const float *h = saved;
    nn_relu_backward(y, dy, n, dx);
    nn_conv3_backward(&l->c2, ps, h, dx, batch, dx, col);
    nn_relu_backward(h, dx, n, dx);
    nn_conv3_backward(&l->c1, ps, x, dx, batch, dx, col);
    for (size_t i = 0; i < n; i++)
        if (y[i] > 0.0f) dx[i] += dy[i];
}

/* ---- global average pool ---- */

void nn_avgpool_forward(const float *x, int batch, int sq, int c, float *y) {
    const float inv = 1.0f / (float)sq;
    for (int b = 0; b < batch; b++) {
        float *yb = y + (size_t)b * (size_t)c;
        const float *xb = x + (size_t)b * (size_t)sq * (size_t)c;
        memset(yb, 0, (size_t)c * sizeof(float));
        for (int s = 0; s < sq; s++)
            for (int k = 0; k < c; k++) yb[k] += xb[(size_t)s * (size_t)c + (size_t)k];
        for (int k = 0; k < c; k++) yb[k] *= inv;
    }
}

void nn_avgpool_backward(const float *dy, int batch, int sq, int c, float *dx) {
    const float inv = 1.0f / (float)sq;
    for (int b = 0; b < batch; b++) {
        const float *db = dy + (size_t)b * (size_t)c;
        float *xb = dx + (size_t)b * (size_t)sq * (size_t)c;
        for (int s = 0; s < sq; s++)
            for (int k = 0; k < c; k++) xb[(size_t)s * (size_t)c + (size_t)k] = db[k] * inv;
    }
}
