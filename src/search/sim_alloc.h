/*
 * sim_alloc.h - which candidate a simulation's rollouts go to, and when it
 * can stop (the rules are described in sim.h, ALLOCATION and STOPPING).
 * Internal to search/sim.c; separate so that the rules can be read and
 * tested apart from the rollouts and the threads.
 *
 * A plan is a round of jobs (candidate, world); the rules only read the
 * results so far, so a plan depends on the seed and on the results merged
 * before it, never on the threads that will play it.
 */
#ifndef ROOKERY_SIM_ALLOC_H
#define ROOKERY_SIM_ALLOC_H

#include "search/sim.h"

typedef struct SimTask {
    int cand;       /* index into the result's candidates */
    uint64_t world; /* the candidate's rollout number: world `world` */
    double value;   /* the rollout's value and P(win), once played */
    double win;
    bool done;      /* played (not cut by a stop) */
} SimTask;

/* The live candidate ranked highest (ties: the earlier, i.e. the better
 * static equity); -1 if none is live. */
int sim_leader(const SimResult *r);

/* Uniform: whole worlds from `worlds_done`, every live candidate in each,
 * about SIM_ROUND_ROLLOUTS rollouts and at most `worlds_left` worlds (>= 1).
 * Returns the number of jobs (<= cap). */
int sim_plan_uniform(const SimResult *r, uint64_t worlds_done, uint64_t worlds_left, SimTask *jobs, int cap);

/* Toptwo: the warmup of any candidate below SIM_WARMUP rollouts first (or
 * below the whole budget's share, at least 1), then leader-or-challenger
 * picks; at most `budget` jobs (>= 1; the warmup can exceed a budget of
 * fewer than one rollout a candidate) and cap.
 * `seed` and `round` give the coin. Returns the number of jobs. */
int sim_plan_toptwo(const SimResult *r, uint64_t budget, uint64_t seed, uint64_t round, SimTask *jobs, int cap);

/* Toptwo's stop: the leader has at least min_n rollouts and every other
 * candidate's mean is more than z standard errors of the difference below. */
bool sim_settled(const SimResult *r, double z, uint64_t min_n);

/* Uniform's stop: candidates whose mean + z se is below the leader's mean -
 * z se stop being played. Returns how many are live. */
int sim_drop_behind(SimResult *r, double z);

#endif
