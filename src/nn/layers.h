/*
 * layers.h - the layers of the network, forward and backward, over float32
 * row-major arrays and OpenBLAS.
 *
 * Conventions:
 * - A batch of vectors is [batch, features], row-major.
 * - Board activations are NHWC: [batch, dim*dim squares, channels]; the
 *   square index is row*dim + col.
 * - forward() writes its output; backward() ADDS the parameter gradients to
 *   the model's g block (so several backward passes can accumulate) and
 *   WRITES dx (when dx is not NULL).
 * - Nothing here allocates per call except where a function says so;
 *   scratch space comes from the caller (sizes below).
 * - At batch 1 the dense layer uses cblas_sgemv, above it cblas_sgemm.
 *   Set OPENBLAS_NUM_THREADS=1 per rank (the CLI does).
 */
#ifndef ROOKERY_NN_LAYERS_H
#define ROOKERY_NN_LAYERS_H
#include "params.h"

/* ---- dense: y = x W + b, W [in, out] ---- */
typedef struct NnDense {
    int in, out;
    int w, b;                 /* parameter indices */
} NnDense;
/* Declares "<name>.w" [in, out] and "<name>.b" [out]. */
void nn_dense_declare(NnDense *l, NnParams *ps, const char *name, int in, int out);
/* He-normal weights (std sqrt(2/in)) times gain, zero bias. */
void nn_dense_init(const NnDense *l, NnParams *ps, float gain, Rng *rng);
void nn_dense_forward(const NnDense *l, const NnParams *ps, const float *x, int batch, float *y);
void nn_dense_backward(const NnDense *l, NnParams *ps, const float *x, const float *dy, int batch, float *dx);
/* nn_dense_forward of `groups` groups of `rows` rows, one BLAS call a group:
 * a group's output depends on that group's input only, never on the other
 * groups or their number (the forward passes of forward.h use it with one
 * group a position, so a position's outputs are the same in any batch). */
void nn_dense_forward_each(const NnDense *l, const NnParams *ps, const float *x, int groups, int rows, float *y);

/* ---- 3x3 convolution, zero padding ("same"), NHWC on a dim x dim board ----
 * W [9*cin, cout] (row (ky*3+kx)*cin + ci), b [cout]. Through im2col and
 * cblas_sgemm, NN_CONV3_CHUNK boards at a time: the im2col matrix of one
 * board (721 KB for the stem of the default net) stays in a core's L2,
 * where a whole batch's would stream through memory (docs/performance.md
 * measured the per-position cost rising 1.6x from batch 1 to 64 without
 * chunks). One board a chunk also makes every sgemm's shape and operands
 * depend on one board only, so a board's output does not depend on the
 * batch it is in. Scratch `col` holds nn_conv3_col_floats(batch) floats. */
#define NN_CONV3_CHUNK 1
typedef struct NnConv3 {
    int dim, cin, cout;
    int w, b;
} NnConv3;
void nn_conv3_declare(NnConv3 *l, NnParams *ps, const char *name, int dim, int cin, int cout);
void nn_conv3_init(const NnConv3 *l, NnParams *ps, float gain, Rng *rng);
static inline size_t nn_conv3_col_floats(const NnConv3 *l, int batch) {
    size_t boards = (size_t)(batch < NN_CONV3_CHUNK ? batch : NN_CONV3_CHUNK);
    return boards * (size_t)(l->dim * l->dim) * 9u * (size_t)l->cin;
}
void nn_conv3_forward(const NnConv3 *l, const NnParams *ps, const float *x, int batch, float *y, float *col);
/* col is scratch (its content on entry does not matter). dx may alias x or
 * dy (x is read and dy used up before dx is written). */
void nn_conv3_backward(const NnConv3 *l, NnParams *ps, const float *x, const float *dy, int batch, float *dx,
                       float *col);

/* ---- element-wise ---- */
void nn_relu_forward(const float *x, size_t n, float *y);
/* dx = dy where y > 0, else 0 (y is the forward output; dx may alias dy). */
void nn_relu_backward(const float *y, const float *dy, size_t n, float *dx);

/* ---- residual block: y = relu(x + conv2(relu(conv1(x)))), cin = cout = c ----
 * The second convolution starts at a small gain so a deep stack starts near
 * the identity. The forward pass keeps what backward needs in `saved`
 * (nn_resblock_saved_floats(batch) floats); scratch `col` as for NnConv3. */
typedef struct NnResBlock {
    NnConv3 c1, c2;
} NnResBlock;
void nn_resblock_declare(NnResBlock *l, NnParams *ps, const char *name, int dim, int c);
void nn_resblock_init(const NnResBlock *l, NnParams *ps, Rng *rng);
static inline size_t nn_resblock_saved_floats(const NnResBlock *l, int batch) {
    return 2u * (size_t)batch * (size_t)(l->c1.dim * l->c1.dim) * (size_t)l->c1.cout;
}
/* y must not alias x. */
void nn_resblock_forward(const NnResBlock *l, const NnParams *ps, const float *x, int batch, float *y, float *saved,
                         float *col);
/* x, y and saved as in the forward pass; dx must not alias dy, x, y or
 * saved. saved holds relu(conv1(x)) in its first half (the second half is
 * not used at present; backward runs the convolutions in place in dx). */
void nn_resblock_backward(const NnResBlock *l, NnParams *ps, const float *x, const float *y, const float *saved,
                          const float *dy, int batch, float *dx, float *col);

/* ---- global average pool over squares: [batch, sq, c] -> [batch, c] ---- */
void nn_avgpool_forward(const float *x, int batch, int sq, int c, float *y);
void nn_avgpool_backward(const float *dy, int batch, int sq, int c, float *dx);

/* ---- softmax family over one row of n logits; mask[i] = 0 excludes i
 * (mask NULL = all allowed). Excluded entries get probability 0 and log
 * probability -INFINITY. At least one entry must be allowed. ---- */
void nn_softmax_masked(const float *logits, const uint8_t *mask, int n, float *p);
void nn_log_softmax_masked(const float *logits, const uint8_t *mask, int n, float *logp);

/* ---- losses (each returns the loss of one row and WRITES its gradient
 * with respect to the logits / prediction, times `scale`) ---- */
/* Cross-entropy  -sum_i target[i] log softmax_masked(logits)[i]; the target
 * must put no mass on excluded entries. Gradient: scale*(p - target) on
 * allowed entries, 0 elsewhere (the exact gradient when the target sums to
 * 1, as a distribution does). */
float nn_xent_masked(const float *logits, const uint8_t *mask, const float *target, int n, float scale,
                     float *dlogits);
/* Squared error (pred - target)^2 / 2 summed over n; gradient scale*(pred - target). */
float nn_mse(const float *pred, const float *target, int n, float scale, float *dpred);

/* ---- AdamW (decoupled weight decay on tensors whose decay flag is set) ---- */
typedef struct NnAdam {
    float lr, beta1, beta2, eps, weight_decay;
} NnAdam;
/* Default hyper-parameters: lr 1e-3, betas 0.9 / 0.999, eps 1e-8, decay 1e-4. */
NnAdam nn_adam_default(void);
/* One step (step = 1, 2, ... for bias correction) from the gradients in g. */
void nn_adam_step(NnParams *ps, const NnAdam *a, int64_t step);
/* True if every gradient is finite. */
bool nnp_grads_finite(const NnParams *ps);

#endif
