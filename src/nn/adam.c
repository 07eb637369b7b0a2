/*
 * adam.c - the AdamW optimizer (see layers.h).
 *
 * For every tensor, element by element, at step t (1, 2, ...):
 *   m = b1 m + (1 - b1) g
 *   v = b2 v + (1 - b2) g^2
 *   w -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
 *   w -= lr * weight_decay * w_old          only if the tensor's decay flag is set
 * The decay is decoupled (Loshchilov & Hutter): it is not part of g, so it
 * is not rescaled by the moments. The gradients are left in g.
 */
#include <math.h>

#include "layers.h"

NnAdam nn_adam_default(void) {
    NnAdam a = {.lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 1e-4f};
    return a;
}

void nn_adam_step(NnParams *ps, const NnAdam *a, int64_t step) {
    const float b1 = a->beta1, b2 = a->beta2, eps = a->eps, lr = a->lr;
    const double t = (double)(step < 1 ? 1 : step);
    /* bias corrections, folded into the step size and the epsilon:
     * lr * (m/c1) / (sqrt(v/c2) + eps) = (lr*sqrt(c2)/c1) * m / (sqrt(v) + eps*sqrt(c2)) */
    const double c1 = 1.0 - pow((double)b1, t), c2 = 1.0 - pow((double)b2, t);
    const float step_size = (float)((double)lr * sqrt(c2) / c1);
    const float eps_hat = (float)((double)eps * sqrt(c2));
    const float shrink = 1.0f - lr * a->weight_decay;
    for (int i = 0; i < ps->count; i++) {
        float *w = nnp_w(ps, i), *g = nnp_g(ps, i);
        float *m = ps->m + ps->p[i].offset, *v = ps->v + ps->p[i].offset;
        const size_t n = ps->p[i].n;
        const float keep = ps->p[i].decay ? shrink : 1.0f;
        for (size_t k = 0; k < n; k++) {
            float gk = g[k];
            m[k] = b1 * m[k] + (1.0f - b1) * gk;
            v[k] = b2 * v[k] + (1.0f - b2) * gk * gk;
            w[k] = w[k] * keep - step_size * m[k] / (sqrtf(v[k]) + eps_hat);
        }
    }
}

bool nnp_grads_finite(const NnParams *ps) {
    for (int i = 0; i < ps->count; i++) {
        const float *g = nnp_g(ps, i);
        for (size_t k = 0; k < ps->p[i].n; k++)
            if (!isfinite(g[k])) return false;
    }
    return true;
}
