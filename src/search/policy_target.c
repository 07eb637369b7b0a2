/* policy_target.c - a search's P target (see policy_target.h). */
#include "policy_target.h"

#include <math.h>
#include <string.h>

#include "search/spec_option.h"

void policy_target_defaults(PolicyTarget *t) {
    t->kind = POLICY_TARGET_VISITS;
    t->scale = 0.1;
    t->span = 10.0;
}

static const char *const KINDS[] = {"visits", "q", NULL};

int policy_target_option(PolicyTarget *t, const char *spec, const char *key, const char *val, RkError *err) {
    double x;
    int k;
    if (strcmp(key, "target") == 0) {
        if (spec_choice(spec, key, val, KINDS, &k, err) != 0) return -1;
        t->kind = (PolicyTargetKind)k;
    } else if (strcmp(key, "target_scale") == 0) {
        if (spec_number(spec, key, val, 1e-6, 1e3, false, &x, err) != 0) return -1;
        t->scale = x;
    } else if (strcmp(key, "target_span") == 0) {
        if (spec_number(spec, key, val, 1e-6, 1e6, false, &x, err) != 0) return -1;
        t->span = x;
    } else {
        return 1;
    }
    return 0;
}

static int from_visits(const McgsResult *res, float *probs, uint64_t total) {
    int n = 0;
    for (int a = 0; a < res->count; a++) {
        probs[a] = (float)((double)res->visits[a] / (double)total);
        n += res->visits[a] > 0;
    }
    return n;
}

/* Edge a's prior, floored before its logarithm: a candidate of prior 0
 * (none has one today: priors are softmaxes) keeps a finite logit. */
static double floored_prior(const McgsResult *res, int a) {
    return res->prior[a] > 1e-12 ? res->prior[a] : 1e-12;
}

static int from_q(const PolicyTarget *t, const McgsResult *res, float *probs) {
    double mixed = 0.0, mass = 0.0;
    uint32_t most = 0;
    for (int a = 0; a < res->count; a++) {
        if (res->visits[a] == 0) continue;
        double p = floored_prior(res, a);
        mixed += p * res->value[a];
        mass += p;
        if (res->visits[a] > most) most = res->visits[a];
    }
    mixed /= mass;
    double q[MCGS_MAX_CANDIDATES], lo = INFINITY, hi = -INFINITY;
    for (int a = 0; a < res->count; a++) {
        q[a] = res->visits[a] > 0 ? res->value[a] : mixed;
        if (q[a] < lo) lo = q[a];
        if (q[a] > hi) hi = q[a];
    }
    double range = hi - lo > t->span ? hi - lo : t->span;
    double gain = (POLICY_TARGET_C_VISIT + most) * t->scale / range;
    double logit[MCGS_MAX_CANDIDATES], top = -INFINITY, z = 0.0;
    for (int a = 0; a < res->count; a++) {
        logit[a] = log(floored_prior(res, a)) + gain * (q[a] - lo);
        if (logit[a] > top) top = logit[a];
    }
    for (int a = 0; a < res->count; a++) z += exp(logit[a] - top);
    int n = 0;
    for (int a = 0; a < res->count; a++) {
        probs[a] = (float)(exp(logit[a] - top) / z);
        n += probs[a] > 0.0f;
    }
    return n;
}

int policy_target_compute(const PolicyTarget *t, const McgsResult *res, float *probs) {
    uint64_t total = 0;
    bool finite = true;
    for (int a = 0; a < res->count; a++) {
        total += res->visits[a];
        if (res->visits[a] > 0 && !isfinite(res->value[a])) finite = false;
    }
    if (total == 0) {
        for (int a = 0; a < res->count; a++) probs[a] = 0.0f;
        return 0;
    }
    /* a value that is not a number would make every probability one: the
     * visits are the target then (no search gives such values today) */
    return t->kind == POLICY_TARGET_Q && finite ? from_q(t, res, probs) : from_visits(res, probs, total);
}
