/*
 * conv3.c - the 3x3 "same" convolution over NHWC boards (see layers.h),
 * through im2col and cblas_sgemm.
 *
 * im2col. Row s = b*sq + r*dim + c of `col` holds the 3x3 neighbourhood of
 * square (r, c) of board b: 9 runs of cin floats, run (ky*3 + kx) taken from
 * square (r+ky-1, c+kx-1), zeros where that is off the board. In NHWC the
 * three squares (r', c-1..c+1) of one kernel row are adjacent in memory and
 * so are their three runs in `col`, so away from the left and right edges a
 * kernel row is one memcpy of 3*cin floats.
 *
 * Then forward is y = col W + b, one sgemm per chunk of NN_CONV3_CHUNK
 * boards (layers.h says why not the whole batch at once), and backward
 * is dW += col^T dy, db += column sums of dy, dcol = dy W^T (written over
 * `col`, which is no longer needed), and dx = col2im(dcol): every run of
 * dcol added back onto the square it came from.
 *
 * Backward reads x only to build `col` and dy only until dcol is computed,
 * before it writes dx, so dx may alias x or dy (the residual block relies
 * on this).
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

void nn_conv3_declare(NnConv3 *l, NnParams *ps, const char *name, int dim, int cin, int cout) {
    char buf[NNP_NAME_MAX + 8];
    l->dim = dim;
    l->cin = cin;
    l->cout = cout;
    int wshape[2] = {9 * cin, cout};
    snprintf(buf, sizeof buf, "%s.w", name);
    l->w = nnp_declare(ps, buf, 2, wshape, true);
    snprintf(buf, sizeof buf, "%s.b", name);
    l->b = nnp_declare(ps, buf, 1, &cout, false);
}

void nn_conv3_init(const NnConv3 *l, NnParams *ps, float gain, Rng *rng) {
    nnp_fill_normal(ps, l->w, gain * sqrtf(2.0f / (float)(9 * l->cin)), rng);
    memset(nnp_w(ps, l->b), 0, (size_t)l->cout * sizeof(float));
}

static void im2col(const NnConv3 *l, const float *x, int batch, float *col) {
    const int dim = l->dim, cin = l->cin, sq = dim * dim;
    const size_t run = (size_t)cin, row = 9u * run;
    for (int b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * (size_t)sq * run;
        for (int r = 0; r < dim; r++) {
            for (int c = 0; c < dim; c++) {
                float *dst = col + ((size_t)b * (size_t)sq + (size_t)(r * dim + c)) * row;
                for (int ky = 0; ky < 3; ky++) {
                    float *d = dst + (size_t)(ky * 3) * run;
                    int rr = r + ky - 1;
                    if (rr < 0 || rr >= dim) {
                        memset(d, 0, 3 * run * sizeof(float));
                        continue;
                    }
                    const float *src = xb + (size_t)(rr * dim) * run;
                    if (c >= 1 && c + 1 < dim) {
                        memcpy(d, src + (size_t)(c - 1) * run, 3 * run * sizeof(float));
                        continue;
                    }
                    for (int kx = 0; kx < 3; kx++) {
                        int cc = c + kx - 1;
                        if (cc < 0 || cc >= dim)
                            memset(d + (size_t)kx * run, 0, run * sizeof(float));
                        else
                            memcpy(d + (size_t)kx * run, src + (size_t)cc * run, run * sizeof(float));
                    }
                }
            }
        }
    }
}

/* dx = col2im(dcol): dx is overwritten. */
static void col2im(const NnConv3 *l, const float *dcol, int batch, float *dx) {
    const int dim = l->dim, cin = l->cin, sq = dim * dim;
    const size_t run = (size_t)cin, row = 9u * run;
    memset(dx, 0, (size_t)batch * (size_t)sq * run * sizeof(float));
    for (int b = 0; b < batch; b++) {
        float *xb = dx + (size_t)b * (size_t)sq * run;
        for (int r = 0; r < dim; r++) {
            for (int c = 0; c < dim; c++) {
                const float *s = dcol + ((size_t)b * (size_t)sq + (size_t)(r * dim + c)) * row;
                for (int ky = 0; ky < 3; ky++) {
                    int rr = r + ky - 1;
                    if (rr < 0 || rr >= dim) continue;
                    int kx0 = c == 0 ? 1 : 0, kx1 = c + 1 < dim ? 3 : 2;
                    /* the kernel row's squares and runs are both contiguous */
                    float *d = xb + ((size_t)(rr * dim + c - 1 + kx0)) * run;
                    const float *sr = s + (size_t)(ky * 3 + kx0) * run;
                    size_t len = (size_t)(kx1 - kx0) * run;
                    for (size_t k = 0; k < len; k++) d[k] += sr[k];
                }
            }
        }
    }
}

/* y = conv(x) for boards [b0, b0 + nb) of x and y. */
static void forward_chunk(const NnConv3 *l, const NnParams *ps, const float *x, int nb, float *y, float *col) {
    const int rows = nb * l->dim * l->dim, k = 9 * l->cin, cout = l->cout;
    const float *bias = nnp_w(ps, l->b);
    im2col(l, x, nb, col);
    for (int s = 0; s < rows; s++) memcpy(y + (size_t)s * (size_t)cout, bias, (size_t)cout * sizeof(float));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, cout, k, 1.0f, col, k, nnp_w(ps, l->w), cout, 1.0f,
                y, cout);
}

void nn_conv3_forward(const NnConv3 *l, const NnParams *ps, const float *x, int batch, float *y, float *col) {
    const size_t in = (size_t)(l->dim * l->dim) * (size_t)l->cin, out = (size_t)(l->dim * l->dim) * (size_t)l->cout;
    for (int b0 = 0; b0 < batch; b0 += NN_CONV3_CHUNK) {
        int nb = batch - b0 < NN_CONV3_CHUNK ? batch - b0 : NN_CONV3_CHUNK;
        forward_chunk(l, ps, x + (size_t)b0 * in, nb, y + (size_t)b0 * out, col);
    }
}

/* The gradients of boards [b0, b0 + nb): x, dy and dx point at the chunk. */
static void backward_chunk(const NnConv3 *l, NnParams *ps, const float *x, const float *dy, int nb, float *dx,
                           float *col) {
    const int rows = nb * l->dim * l->dim, k = 9 * l->cin, cout = l->cout;
    float *db = nnp_g(ps, l->b);
    im2col(l, x, nb, col);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, cout, rows, 1.0f, col, k, dy, cout, 1.0f,
                nnp_g(ps, l->w), cout);
    for (int s = 0; s < rows; s++) {
        const float *d = dy + (size_t)s * (size_t)cout;
        for (int o = 0; o < cout; o++) db[o] += d[o];
    }
    if (dx == NULL) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, k, cout, 1.0f, dy, cout, nnp_w(ps, l->w), cout, 0.0f,
                col, k);
    col2im(l, col, nb, dx);
}

void nn_conv3_backward(const NnConv3 *l, NnParams *ps, const float *x, const float *dy, int batch, float *dx,
                       float *col) {
    const size_t in = (size_t)(l->dim * l->dim) * (size_t)l->cin, out = (size_t)(l->dim * l->dim) * (size_t)l->cout;
    for (int b0 = 0; b0 < batch; b0 += NN_CONV3_CHUNK) {
        int nb = batch - b0 < NN_CONV3_CHUNK ? batch - b0 : NN_CONV3_CHUNK;
        backward_chunk(l, ps, x + (size_t)b0 * in, dy + (size_t)b0 * out, nb, dx == NULL ? NULL : dx + (size_t)b0 * in,
                       col);
    }
}
