/* leave_tilt.c - the tilted uniform draw of the opponent's leave (see
 * leave_tilt.h). */
#include "leave_tilt.h"

#include <math.h>
#include <string.h>

#include "eval/derive.h"

/* f[l][j] = C(m_l, j) exp(theta_l j) for j <= k: letter l's polynomial. */
typedef struct TiltPolys {
    int n, k;
    double f[RK_MAX_LETTERS][RK_RACK_SIZE + 1];
} TiltPolys;

static void polys(const LeaveTilt *t, const Rack *pool, int k, TiltPolys *p) {
    p->n = t->letters + 1;
    p->k = k;
    for (int l = 0; l < p->n; l++)
        for (int j = 0; j <= k; j++) p->f[l][j] = derive_binom(pool->count[l], j) * exp(t->theta[l] * j);
}

/* c = a * b truncated to degree k. */
static void mul(const double *a, const double *b, int k, double *c) {
    for (int d = 0; d <= k; d++) {
        double s = 0.0;
        for (int i = 0; i <= d; i++) s += a[i] * b[d - i];
        c[d] = s;
    }
}

void leave_tilt_uniform(LeaveTilt *t, int letters) {
    memset(t, 0, sizeof *t);
    t->letters = letters;
}

double leave_tilt_logprob(const LeaveTilt *t, const Rack *pool, const Rack *leave) {
    int k = leave->total;
    if (k > RK_RACK_SIZE || k > pool->total) return -INFINITY;
    TiltPolys p;
    polys(t, pool, k, &p);
    double z[RK_RACK_SIZE + 1] = {1.0}, next[RK_RACK_SIZE + 1];
    double lp = 0.0;
    for (int l = 0; l < p.n; l++) {
        if (leave->count[l] > pool->count[l]) return -INFINITY;
        lp += log(derive_binom(pool->count[l], leave->count[l])) + t->theta[l] * leave->count[l];
        mul(z, p.f[l], k, next);
        memcpy(z, next, sizeof z);
    }
    return lp - log(z[k]);
}

/* One sample's share of the fit: its leave's counts minus their
 * expectations (grad) and their variances (var), under t. */
static void sample_moments(const LeaveTilt *t, const Rack *pool, const Rack *leave, double *grad, double *var) {
    int k = leave->total;
    TiltPolys p;
    polys(t, pool, k, &p);
    double pre[RK_MAX_LETTERS + 1][RK_RACK_SIZE + 1], suf[RK_MAX_LETTERS + 1][RK_RACK_SIZE + 1];
    memset(pre[0], 0, sizeof pre[0]);
    memset(suf[p.n], 0, sizeof suf[p.n]);
    pre[0][0] = suf[p.n][0] = 1.0;
    for (int l = 0; l < p.n; l++) mul(pre[l], p.f[l], k, pre[l + 1]);
    for (int l = p.n - 1; l >= 0; l--) mul(suf[l + 1], p.f[l], k, suf[l]);
    double z = pre[p.n][k];
    if (!(z > 0.0)) return;
    for (int l = 0; l < p.n; l++) {
        double rest[RK_RACK_SIZE + 1], e1 = 0.0, e2 = 0.0;
        mul(pre[l], suf[l + 1], k, rest); /* every letter but l */
        for (int j = 1; j <= k; j++) {
            double w = p.f[l][j] * rest[k - j] / z;
            e1 += j * w;
            e2 += (double)j * j * w;
        }
        grad[l] += leave->count[l] - e1;
        var[l] += e2 - e1 * e1;
    }
}

size_t leave_tilt_fit(LeaveTilt *t, int letters, const LetterDist *ld, const ShardSet *set, const size_t *idx,
                      size_t n, int iterations) {
    leave_tilt_uniform(t, letters);
    size_t used = 0;
    for (int it = 0; it < iterations; it++) {
        double grad[RK_MAX_LETTERS] = {0}, var[RK_MAX_LETTERS] = {0};
        used = 0;
        for (size_t i = 0; i < n; i++) {
            const ShardSample *s = &set->s[idx[i]];
            Rack pool;
            if (!s->opp_leave_known || s->opp_leave.total == 0 || s->opp_leave.total > RK_RACK_SIZE ||
                position_unseen(&s->pos, ld, &pool) != 0)
                continue;
            sample_moments(t, &pool, &s->opp_leave, grad, var);
            used++;
        }
        if (used == 0) return 0;
        /* a damped Newton step on the diagonal (the coupling of letters through the fixed leave
         * size makes the full step overshoot), at most one unit of log-weight a step */
        double mean = 0.0;
        for (int l = 0; l <= letters; l++) {
            double step = var[l] > 1e-9 ? 0.5 * grad[l] / var[l] : 0.0;
            t->theta[l] += fmax(-1.0, fmin(1.0, step));
            mean += t->theta[l];
        }
        mean /= letters + 1;
        for (int l = 0; l <= letters; l++) t->theta[l] -= mean;
    }
    return used;
}
