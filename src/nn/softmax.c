/*
 * softmax.c - masked softmax and log-softmax over one row, and the losses
 * (see layers.h).
 *
 * Stability: the maximum over the allowed logits is subtracted before
 * exponentiating, so the largest term is exp(0) = 1 and the sum lies in
 * [1, n]; the sum is accumulated in double. Excluded entries never enter
 * the maximum or the sum, so a huge or non-finite logit there is harmless.
 */
#include <math.h>

#include "layers.h"

static bool allowed(const uint8_t *mask, int i) { return mask == NULL || mask[i] != 0; }

/* Writes logits[i] - max into out for allowed i; returns log(sum exp). */
static double shifted_logsumexp(const float *logits, const uint8_t *mask, int n, float *out) {
    float mx = -INFINITY;
    for (int i = 0; i < n; i++)
        if (allowed(mask, i) && logits[i] > mx) mx = logits[i];
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (!allowed(mask, i)) continue;
        out[i] = logits[i] - mx;
        sum += exp((double)out[i]);
    }
    return log(sum);
}

void nn_log_softmax_masked(const float *logits, const uint8_t *mask, int n, float *logp) {
    double lse = shifted_logsumexp(logits, mask, n, logp);
    for (int i = 0; i < n; i++) logp[i] = allowed(mask, i) ? (float)((double)logp[i] - lse) : -INFINITY;
}

void nn_softmax_masked(const float *logits, const uint8_t *mask, int n, float *p) {
    double lse = shifted_logsumexp(logits, mask, n, p);
    for (int i = 0; i < n; i++) p[i] = allowed(mask, i) ? (float)exp((double)p[i] - lse) : 0.0f;
}

float nn_xent_masked(const float *logits, const uint8_t *mask, const float *target, int n, float scale,
                     float *dlogits) {
    /* dlogits first holds the shifted logits, then the gradient. */
    double lse = shifted_logsumexp(logits, mask, n, dlogits);
    double loss = 0.0;
    for (int i = 0; i < n; i++) {
        if (!allowed(mask, i)) {
            dlogits[i] = 0.0f;
            continue;
        }
        double logp = (double)dlogits[i] - lse;
        if (target[i] != 0.0f) loss -= (double)target[i] * logp;
        dlogits[i] = scale * ((float)exp(logp) - target[i]);
    }
    return (float)loss;
}

float nn_mse(const float *pred, const float *target, int n, float scale, float *dpred) {
    double loss = 0.0;
    for (int i = 0; i < n; i++) {
        float d = pred[i] - target[i];
        loss += 0.5 * (double)d * (double)d;
        dpred[i] = scale * d;
    }
    return (float)loss;
}
