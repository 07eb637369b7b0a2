/* sim_alloc.c - the allocation and stopping rules of the simulation (see sim_alloc.h and sim.h). */
#include "sim_alloc.h"

#include <math.h>

#include "core/rng.h"


int sim_leader(const SimResult *r) {
    int best = -1;
    for (int i = 0; i < r->count; i++)
        if (r->cand[i].live && (best < 0 || sim_mean(&r->cand[i]) > sim_mean(&r->cand[best]))) best = i;
    return best;
}

int sim_plan_uniform(const SimResult *r, uint64_t worlds_done, uint64_t worlds_left, SimTask *jobs, int cap) {
    int live = 0;
    for (int i = 0; i < r->count; i++) live += r->cand[i].live;
    uint64_t worlds = live > 0 && live < SIM_ROUND_ROLLOUTS ? (uint64_t)(SIM_ROUND_ROLLOUTS / live) : 1;
    if (worlds > worlds_left) worlds = worlds_left;
    int n = 0;
    for (uint64_t w = 0; w < worlds; w++)
        for (int i = 0; i < r->count && n < cap; i++)
            if (r->cand[i].live) jobs[n++] = (SimTask){.cand = i, .world = worlds_done + w};
    return n;
}

/* Variances of the candidates' values, each shrunk toward the pooled one
 * by SHRINK pseudo-rollouts: a candidate's own estimate from a handful of
 * rollouts is too noisy to decide where the next ones go. */
#define SHRINK 4.0
/* A floor on a variance, so that equal deterministic values (an endgame
 * played out exactly) compare as settled rather than as 0/0. */
#define VAR_FLOOR 1e-9

static void variances(const SimResult *r, double *var) {
    double m2 = 0.0, dof = 0.0;
    for (int i = 0; i < r->count; i++) {
        if (r->cand[i].n < 2) continue;
        m2 += r->cand[i].m2;
        dof += (double)r->cand[i].n - 1.0;
    }
    double pooled = dof > 0.0 ? m2 / dof : 0.0;
    for (int i = 0; i < r->count; i++) {
        const SimCandidate *c = &r->cand[i];
        double own = c->n >= 2 ? c->m2 : 0.0, k = c->n >= 2 ? (double)c->n - 1.0 : 0.0;
        var[i] = (own + SHRINK * pooled) / (k + SHRINK);
        if (var[i] < VAR_FLOOR) var[i] = VAR_FLOOR;
    }
}

/* The challenger of leader L with counts n: min over j != L of the
 * transportation cost plus ln n_j. */
static int challenger(const SimResult *r, int lead, const double *var, const uint64_t *n) {
    int best = -1;
    double best_cost = 0.0;
    double ml = sim_mean(&r->cand[lead]), sl = var[lead] / (double)n[lead];
    for (int j = 0; j < r->count; j++) {
        if (j == lead) continue;
        double d = ml - sim_mean(&r->cand[j]);
        if (d < 0.0) d = 0.0; /* the leader is the best mean; guards rounding */
        double cost = d * d / (2.0 * (sl + var[j] / (double)n[j])) + log((double)n[j]);
        if (best < 0 || cost < best_cost) {
            best = j;
            best_cost = cost;
        }
    }
    return best;
}

int sim_plan_toptwo(const SimResult *r, uint64_t budget, uint64_t seed, uint64_t round, SimTask *jobs, int cap) {
    int want = cap < SIM_ROUND_ROLLOUTS ? cap : SIM_ROUND_ROLLOUTS;
    if ((uint64_t)want > budget) want = (int)budget;
    uint64_t n[SIM_MAX_CANDIDATES];
    int jobs_n = 0;
    for (int i = 0; i < r->count; i++) n[i] = r->cand[i].n;
    /* warmup: every candidate to SIM_WARMUP rollouts (fewer if the whole
     * budget is smaller, at least 1), world by world; a round of warmup does
     * only warmup, so the rule below always sees every mean */
    uint64_t total = r->rollouts + budget, count = (uint64_t)r->count;
    uint64_t warmup = total / count < SIM_WARMUP ? total / count : SIM_WARMUP;
    if (warmup < 1) warmup = 1;
    bool warm = true;
    for (int i = 0; i < r->count; i++) warm &= n[i] >= warmup;
    if (!warm) {
        for (uint64_t w = 0; w < warmup && jobs_n < cap; w++)
            for (int i = 0; i < r->count && jobs_n < cap; i++)
                if (n[i] == w) jobs[jobs_n++] = (SimTask){.cand = i, .world = n[i]++};
        return jobs_n;
    }
    double var[SIM_MAX_CANDIDATES];
    variances(r, var);
    int lead = sim_leader(r);
    Rng coin;
    rng_seed_stream(&coin, seed, round, 2);
    while (jobs_n < want) {
        int pick = (rng_next(&coin) >> 63) != 0 ? lead : challenger(r, lead, var, n);
        jobs[jobs_n++] = (SimTask){.cand = pick, .world = n[pick]++};
    }
    return jobs_n;
}

/* Whether candidate j is z standard errors of the difference behind the
 * leader. */
static bool clear_behind(const SimResult *r, int lead, int j, const double *var, double z) {
    const SimCandidate *l = &r->cand[lead], *c = &r->cand[j];
    return sim_mean(l) - sim_mean(c) > z * sqrt(var[lead] / (double)l->n + var[j] / (double)c->n);
}

bool sim_settled(const SimResult *r, double z, uint64_t min_n) {
    int lead = sim_leader(r);
    if (lead < 0 || r->cand[lead].n < min_n) return false;
    double var[SIM_MAX_CANDIDATES];
    variances(r, var);
    for (int j = 0; j < r->count; j++) {
        if (j == lead) continue;
        if (r->cand[j].n == 0 || !clear_behind(r, lead, j, var, z)) return false;
    }
    return true;
}

int sim_drop_behind(SimResult *r, double z) {
    int lead = sim_leader(r), live = 0;
    double low = sim_mean(&r->cand[lead]) - z * sim_stderr(&r->cand[lead]);
    for (int i = 0; i < r->count; i++) {
        SimCandidate *c = &r->cand[i];
        if (!c->live) continue;
        if (i != lead && sim_mean(c) + z * sim_stderr(c) < low) c->live = false;
        live += c->live;
    }
    return live;
}
