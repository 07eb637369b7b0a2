/* The simulation (search/sim.h): with no plies every value is the
 * candidate's score + leave, exactly and without variance; the same seed
 * gives the same result and another seed another; a candidate's mean is
 * that of its rollouts in worlds 0..n-1 (the oracle of the allocation and
 * the threads); 1, 2 and 3 threads give the same bytes; uniform stops the
 * candidates behind, toptwo stops once settled and spends its rollouts on
 * the moves that can still be best; a stop at any moment leaves a played
 * answer; with an empty bag every rollout is equal; a rollout that empties
 * the bag plays on to the end (finish); bad configurations are
 * refused. Real positions from SOWPODS self-play with random leave values. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "search/sim.h"
#include "testutil.h"

/* Leave values: a fixed pseudo-random function of the multiset. */
static int32_t hash_leave(const void *ctx, const Rack *leave) {
    (void)ctx;
    uint64_t h = 1469598103934665603ULL;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) h = (h ^ leave->count[ml]) * 1099511628211ULL;
    return (int32_t)(h % 20001) - 10000;
}

static SimConfig config(int plies, int candidates, uint64_t iterations) {
    SimConfig c;
    sim_config_defaults(&c);
    c.plies = plies;
    c.candidates = candidates;
    c.iterations = iterations;
    c.leave_value = hash_leave;
    return c;
}

static void test_zero_plies_is_score_plus_leave_minus_tempo(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    int bad = 0, checked = 0;
    for (uint64_t gi = 0; gi < 6; gi++) {
        tu_env_position(&e, 17, gi, 40, hash_leave);
        if (game_over(e.g)) continue;
        SimConfig c = config(0, 10, 5);
        c.stop_z = 0.0;
        c.alloc = gi % 2 == 0 ? SIM_ALLOC_UNIFORM : SIM_ALLOC_TOPTWO;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        uint64_t total = 0;
        for (int i = 0; i < r->count; i++) total += r->cand[i].n;
        CU_ASSERT_EQUAL(total, r->rollouts);
        if (c.alloc == SIM_ALLOC_TOPTWO) CU_ASSERT_EQUAL(r->rollouts, 5u * (uint64_t)r->count);
        for (int i = 0; i < r->count; i++) {
            const SimCandidate *k = &r->cand[i];
            if (k->move.kind == MOVE_PASS) continue;
            Rack kept;
            move_kept_tiles(&e.g->racks[e.g->on_turn], &k->move, &kept);
            /* and the opponent's tempo: they move next (sim.h) */
            int left = e.g->bag.count + e.g->racks[0].total + e.g->racks[1].total -
                       (k->move.kind == MOVE_PLACE ? k->move.ntiles : 0);
            double want = k->move.score + (kept.total ? hash_leave(NULL, &kept) : 0) / 1000.0 -
                          winprob_mean(&c.win.model, left);
            bool n_ok = c.alloc == SIM_ALLOC_UNIFORM ? k->n == 5 : k->n >= SIM_WARMUP;
            if (fabs(sim_mean(k) - want) > 1e-9 || sim_stderr(k) != 0.0 || !n_ok) {
                if (bad < 5) printf("\n  cand %d: mean %.6f want %.6f se %g n %llu kind %d", i, sim_mean(k), want, sim_stderr(k), (unsigned long long)k->n, k->move.kind);
                bad++;
            }
            checked++;
        }
    }
    CU_ASSERT(checked > 20);
    CU_ASSERT_EQUAL(bad, 0);
    free(r);
    tu_env_close(&e);
}

static void test_deterministic(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    tu_env_position(&e, 17, 3, 60, hash_leave);
    SimConfig c = config(2, 6, 30);
    CU_ASSERT_FATAL(sim_run(e.g, &c, a, &err) == 0);
    CU_ASSERT_FATAL(sim_run(e.g, &c, b, &err) == 0);
    CU_ASSERT_EQUAL(a->count, 6);
    CU_ASSERT_EQUAL(a->iterations, b->iterations);
    CU_ASSERT_EQUAL(a->best, b->best);
    int same = 0;
    for (int i = 0; i < a->count; i++)
        same += memcmp(&a->cand[i].mean, &b->cand[i].mean, sizeof(double)) == 0 && a->cand[i].n == b->cand[i].n;
    CU_ASSERT_EQUAL(same, a->count);
    c.seed = 2;
    CU_ASSERT_FATAL(sim_run(e.g, &c, b, &err) == 0);
    int differ = 0;
    for (int i = 0; i < a->count; i++) differ += a->cand[i].mean != b->cand[i].mean;
    CU_ASSERT(differ > 0);
    /* the values vary from world to world (2 plies, tiles in the bag) */
    CU_ASSERT(sim_stderr(&a->cand[0]) > 0.0);
    free(a);
    free(b);
    tu_env_close(&e);
}

static void test_stopping(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    tu_env_position(&e, 17, 5, 50, hash_leave);
    SimConfig c = config(1, 20, 400);
    c.alloc = SIM_ALLOC_UNIFORM;
    c.min_iterations = 10;
    c.stop_z = 1.0;
    CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
    int stopped = 0, live = 0, bad = 0;
    for (int i = 0; i < r->count; i++) {
        const SimCandidate *k = &r->cand[i];
        if (k->live) {
            live++;
            bad += k->n != r->iterations;
        } else {
            stopped++;
            bad += k->n < c.min_iterations || k->n > r->iterations;
        }
    }
    CU_ASSERT(stopped > 0);
    CU_ASSERT(live >= 1);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(r->cand[r->best].live);
    for (int i = 0; i < r->count; i++)
        if (r->cand[i].live) CU_ASSERT(sim_mean(&r->cand[i]) <= sim_mean(&r->cand[r->best]));
    /* z = 0: nobody stops */
    c.stop_z = 0.0;
    c.iterations = 30;
    CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
    for (int i = 0; i < r->count; i++) CU_ASSERT(r->cand[i].live && r->cand[i].n == 30);
    free(r);
    tu_env_close(&e);
}

/* An empty bag: the opponent's rack is the unseen tiles, every world is the
 * same, and with plies to spare every rollout plays the game out the same
 * way: no variance. */
static void test_empty_bag_is_exact(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    int positions = 0, bad = 0;
    for (uint64_t gi = 0; gi < 10 && positions < 3; gi++) {
        tu_env_position(&e, 17, gi, 0, hash_leave);
        if (game_over(e.g) || e.g->bag.count != 0) continue;
        positions++;
        SimConfig c = config(30, 5, 8);
        c.alloc = SIM_ALLOC_UNIFORM;
        c.stop_z = 0.0;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) bad += sim_stderr(&r->cand[i]) != 0.0 || r->cand[i].n != 8;
        /* toptwo: no variance, so settled as soon as the leader has its minimum */
        c.alloc = SIM_ALLOC_TOPTWO;
        c.stop_z = 2.0;
        c.min_iterations = 6;
        c.iterations = 1000;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) bad += sim_stderr(&r->cand[i]) != 0.0;
        bool tie = false; /* equal values never settle: the budget runs out */
        for (int i = 0; i < r->count; i++) tie |= i != r->best && sim_mean(&r->cand[i]) == sim_mean(&r->cand[r->best]);
        if (!tie) CU_ASSERT(r->rollouts < 100u);
    }
    CU_ASSERT(positions > 0);
    CU_ASSERT_EQUAL(bad, 0);
    free(r);
    tu_env_close(&e);
}


/* Toptwo with a stop z: it ends before its budget once the leader has its
 * minimum and every other mean is z standard errors of the difference
 * below the leader's; without a stop z it spends the whole budget. */
static void test_toptwo_stopping(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    int settled = 0, positions = 0;
    for (uint64_t gi = 0; gi < 6; gi++) {
        tu_env_position(&e, 19, gi, 50, hash_leave);
        if (game_over(e.g)) continue;
        positions++;
        SimConfig c = config(1, 8, 150);
        c.min_iterations = 10;
        c.stop_z = 1.0;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        const SimCandidate *b = &r->cand[r->best];
        if (r->rollouts < 150u * (uint64_t)r->count) {
            settled++;
            CU_ASSERT(b->n >= 10);
            for (int i = 0; i < r->count; i++) {
                const SimCandidate *k = &r->cand[i];
                if (i == r->best) continue;
                double se = sqrt(sim_stderr(b) * sim_stderr(b) + sim_stderr(k) * sim_stderr(k));
                /* the rule uses shrunk variances: allow a little slack against the raw ones */
                CU_ASSERT(sim_mean(b) - sim_mean(k) > 0.5 * se);
            }
        }
        for (int i = 0; i < r->count; i++) CU_ASSERT(sim_mean(&r->cand[i]) <= sim_mean(b));
        c.stop_z = 0.0;
        c.iterations = 40;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        CU_ASSERT_EQUAL(r->rollouts, 40u * (uint64_t)r->count);
        /* a budget under the warmup's 4 a candidate is kept: 2 each */
        c.iterations = 2;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        CU_ASSERT_EQUAL(r->rollouts, 2u * (uint64_t)r->count);
        for (int i = 0; i < r->count; i++) CU_ASSERT_EQUAL(r->cand[i].n, 2u);
    }
    CU_ASSERT(positions >= 4);
    CU_ASSERT(settled > 0);
    free(r);
    tu_env_close(&e);
}

/* Whether candidate k's mean is the plain mean of its rollouts in worlds
 * 0..n-1 of c's seed, each rolled out alone under `leaves` (world and play:
 * scratch games). */
static bool mean_is_worlds(const Game *g, const SimConfig *c, LeaveValueFn leaves, const SimCandidate *k,
                           Game *world, Game *play) {
    double sum = 0.0;
    for (uint64_t w = 0; w < k->n; w++) {
        sim_deal_world(g, NULL, c->seed, w, world);
        *play = *world;
        sum += sim_static_rollout(play, c->plies + 1, &k->move, leaves, NULL, &c->win);
    }
    double want = k->n > 0 ? sum / (double)k->n : 0.0;
    return fabs(want - sim_mean(k)) <= 1e-9 * (1.0 + fabs(want));
}

/* finish (the default): a rollout whose plies leave the bag empty plays on
 * to the end of the game. Oracle, per world: the plain rollout of plies + 1
 * moves; if it stopped with the bag empty and the game on, the rollout of
 * the same world to the end (1,000 moves: no game lasts that long) is the
 * value, else the plain one. Late positions (1..8 tiles in the bag), 1 and
 * 3 threads; without finish the plain oracle holds. */
static void test_finish_plays_to_the_end(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    Game *world = malloc(sizeof *world), *play = malloc(sizeof *play), *full = malloc(sizeof *full);
    int bad = 0, checked = 0, finished = 0, plain = 0;
    for (uint64_t gi = 0; gi < 12 && checked < tu_size(40, 16); gi++) {
        tu_env_position(&e, 41, gi, 1 + (int)(gi % 8), hash_leave);
        if (game_over(e.g) || e.g->bag.count == 0) continue;
        SimConfig c = config(2, 6, 6);
        CU_ASSERT_FATAL(c.finish); /* the default */
        c.stop_z = 0.0;
        c.threads = gi % 2 == 0 ? 1 : 3;
        c.seed = 300 + gi;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) {
            const SimCandidate *k = &r->cand[i];
            double sum = 0.0;
            for (uint64_t w = 0; w < k->n; w++) {
                sim_deal_world(e.g, NULL, c.seed, w, world);
                *play = *world;
                double v = sim_static_rollout(play, c.plies + 1, &k->move, hash_leave, NULL, &c.win);
                if (!game_over(play) && play->bag.count == 0) {
                    *full = *world;
                    v = sim_static_rollout(full, 1000, &k->move, hash_leave, NULL, &c.win);
                    CU_ASSERT(game_over(full));
                    finished++;
                } else {
                    plain++;
                }
                sum += v;
            }
            double want = k->n > 0 ? sum / (double)k->n : 0.0;
            bad += fabs(want - sim_mean(k)) > 1e-9 * (1.0 + fabs(want));
            checked++;
        }
        c.finish = false;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) bad += !mean_is_worlds(e.g, &c, hash_leave, &r->cand[i], world, play);
    }
    CU_ASSERT(checked >= tu_size(40, 16));
    CU_ASSERT(finished > 0 && plain > 0); /* both kinds of rollout were checked */
    CU_ASSERT_EQUAL(bad, 0);
    free(world);
    free(play);
    free(full);
    free(r);
    tu_env_close(&e);
}

/* The oracle of the allocation and the threads: candidate i's mean is the
 * plain mean of its rollouts in worlds 0..n-1, each rolled out alone. */
static void test_rollouts_are_worlds_0_to_n(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    Game *world = malloc(sizeof *world), *play = malloc(sizeof *play);
    int bad = 0, checked = 0;
    for (uint64_t gi = 0; gi < 4; gi++) {
        tu_env_position(&e, 23, gi, 40 + 10 * (int)gi, hash_leave);
        if (game_over(e.g)) continue;
        SimConfig c = config(2, 10, 12);
        c.stop_z = 0.0;
        c.threads = 1 + (int)(gi % 3);
        c.alloc = gi % 2 == 0 ? SIM_ALLOC_TOPTWO : SIM_ALLOC_UNIFORM;
        c.seed = 100 + gi;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) {
            bad += !mean_is_worlds(e.g, &c, hash_leave, &r->cand[i], world, play);
            checked++;
        }
    }
    CU_ASSERT(checked >= 30);
    CU_ASSERT_EQUAL(bad, 0);
    free(world);
    free(play);
    free(r);
    tu_env_close(&e);
}

/* The same seed and budget give the same bytes on 1, 2 and 3 threads, for
 * both allocations. */
static void test_threads_same_answer(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    int differ = 0, runs = 0;
    for (uint64_t gi = 0; gi < 3; gi++) {
        tu_env_position(&e, 29, gi, 55, hash_leave);
        if (game_over(e.g)) continue;
        for (int alloc = 0; alloc < 2; alloc++) {
            SimConfig c = config(2, 12, 25);
            c.alloc = alloc == 0 ? SIM_ALLOC_TOPTWO : SIM_ALLOC_UNIFORM;
            c.min_iterations = 8;
            c.stop_z = 1.5;
            CU_ASSERT_FATAL(sim_run(e.g, &c, a, &err) == 0);
            for (int t = 2; t <= 3; t++) {
                c.threads = t;
                CU_ASSERT_FATAL(sim_run(e.g, &c, b, &err) == 0);
                runs++;
                bool same = a->count == b->count && a->best == b->best && a->rollouts == b->rollouts &&
                            a->rounds == b->rounds;
                for (int i = 0; same && i < a->count; i++)
                    same = a->cand[i].n == b->cand[i].n && a->cand[i].live == b->cand[i].live &&
                           memcmp(&a->cand[i].mean, &b->cand[i].mean, sizeof(double)) == 0 &&
                           memcmp(&a->cand[i].m2, &b->cand[i].m2, sizeof(double)) == 0 &&
                           memcmp(&a->cand[i].win_mean, &b->cand[i].win_mean, sizeof(double)) == 0;
                differ += !same;
            }
        }
    }
    CU_ASSERT(runs >= 8);
    CU_ASSERT_EQUAL(differ, 0);
    free(a);
    free(b);
    tu_env_close(&e);
}

/* Toptwo spends its rollouts on the moves that can still be best: the
 * leader is among the three most played, and the best quarter of the list
 * has far more than a quarter of them. */
static void test_toptwo_concentrates(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    int positions = 0, bad = 0;
    for (uint64_t gi = 0; gi < 5; gi++) {
        tu_env_position(&e, 31, gi, 50, hash_leave);
        if (game_over(e.g)) continue;
        SimConfig c = config(1, 20, 60);
        c.stop_z = 0.0;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        if (r->count < 20) continue;
        positions++;
        const SimCandidate *order[SIM_MAX_CANDIDATES];
        for (int i = 0; i < r->count; i++) order[i] = &r->cand[i];
        for (int i = 1; i < r->count; i++) /* insertion sort by mean, best first */
            for (int j = i; j > 0 && sim_mean(order[j]) > sim_mean(order[j - 1]); j--) {
                const SimCandidate *t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        uint64_t top = 0;
        for (int i = 0; i < 5; i++) top += order[i]->n;
        int more = 0; /* candidates played more than the leader: a late change of leader leaves a few */
        for (int i = 0; i < r->count; i++) more += r->cand[i].n > r->cand[r->best].n;
        bad += more > 2;
        bad += top * 10 < r->rollouts * 4; /* the best 5 of 20 have 40% or more (uniform: 25%) */
        CU_ASSERT_EQUAL(r->rollouts, 60u * 20u);
    }
    CU_ASSERT(positions >= 3);
    CU_ASSERT_EQUAL(bad, 0);
    free(r);
    tu_env_close(&e);
}

/* A stop from another thread at any moment ends a threaded run with a
 * candidate that has rollouts. */
typedef struct Stopper {
    atomic_bool *flag;
    long ns;
} Stopper;

static void *stop_after(void *arg) {
    Stopper *st = arg;
    nanosleep(&(struct timespec){st->ns / 1000000000L, st->ns % 1000000000L}, NULL);
    atomic_store(st->flag, true);
    return NULL;
}

static void test_stop_any_moment(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    tu_env_position(&e, 37, 2, 60, hash_leave);
    CU_ASSERT_FATAL(!game_over(e.g));
    int bad = 0;
    for (int k = 0; k < 12; k++) {
        atomic_bool flag;
        atomic_init(&flag, false);
        SimConfig c = config(2, 15, 1000000);
        c.stop_z = 0.0;
        c.threads = 2;
        c.alloc = k % 2 == 0 ? SIM_ALLOC_TOPTWO : SIM_ALLOC_UNIFORM;
        c.stop = &flag;
        Stopper st = {&flag, 100000L * k * k}; /* 0 to 12 ms */
        pthread_t th;
        CU_ASSERT_FATAL(pthread_create(&th, NULL, stop_after, &st) == 0);
        int rc = sim_run(e.g, &c, r, &err);
        pthread_join(th, NULL);
        CU_ASSERT_EQUAL(rc, 0);
        uint64_t total = 0;
        for (int i = 0; i < r->count; i++) total += r->cand[i].n;
        bad += rc != 0 || r->best < 0 || r->cand[r->best].n == 0 || total != r->rollouts || r->rollouts == 0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(r);
    tu_env_close(&e);
}

/* A stop that cuts a round in the middle (set from inside the rollouts,
 * on the pool's threads, after a number of leave lookups): every
 * candidate's mean is still that of its rollouts in worlds 0..n-1, and a
 * uniform run is left with unequal counts (the cut fell inside a round). */
typedef struct CutLeaves {
    atomic_ullong calls;
    unsigned long long after;
    atomic_bool *flag;
} CutLeaves;

static int32_t cut_leave(const void *ctx, const Rack *leave) {
    CutLeaves *c = (CutLeaves *)ctx;
    if (atomic_fetch_add(&c->calls, 1) + 1 == c->after) atomic_store(c->flag, true);
    return hash_leave(NULL, leave);
}

static void test_cut_round_keeps_worlds(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    Game *world = malloc(sizeof *world), *play = malloc(sizeof *play);
    tu_env_position(&e, 47, 1, 50, hash_leave);
    CU_ASSERT_FATAL(!game_over(e.g));
    int bad = 0, uneven = 0, checked = 0;
    for (int k = 0; k < 8; k++) {
        atomic_bool flag;
        atomic_init(&flag, false);
        CutLeaves cut = {.after = 3000ULL + 1777ULL * (unsigned long long)k, .flag = &flag};
        atomic_init(&cut.calls, 0);
        SimConfig c = config(2, 10, 1000);
        c.stop_z = 0.0;
        c.threads = 2 + k % 2;
        c.alloc = k < 4 ? SIM_ALLOC_UNIFORM : SIM_ALLOC_TOPTWO;
        c.leave_value = cut_leave;
        c.leave_ctx = &cut;
        c.stop = &flag;
        c.seed = 7 + (uint64_t)k;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        CU_ASSERT(atomic_load(&flag));
        CU_ASSERT(r->rollouts < 1000u * (uint64_t)r->count);
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int i = 0; i < r->count; i++) {
            const SimCandidate *q = &r->cand[i];
            lo = q->n < lo ? q->n : lo;
            hi = q->n > hi ? q->n : hi;
            bad += q->n == 0 || !mean_is_worlds(e.g, &c, hash_leave, q, world, play);
            checked++;
        }
        if (c.alloc == SIM_ALLOC_UNIFORM) uneven += lo != hi;
    }
    CU_ASSERT(checked >= 40);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(uneven > 0);
    free(world);
    free(play);
    free(r);
    tu_env_close(&e);
}

static void test_bad_config(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    SimResult *r = malloc(sizeof *r);
    tu_env_position(&e, 17, 1, 80, hash_leave);
    SimConfig c = config(2, 0, 10);
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(sim_run(e.g, &c, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "candidates"));
    c = config(2, 5, 0);
    CU_ASSERT_EQUAL(sim_run(e.g, &c, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "iterations"));
    c = config(-1, 5, 10);
    CU_ASSERT_EQUAL(sim_run(e.g, &c, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "plies"));
    c = config(2, 5, 10);
    c.threads = 0;
    CU_ASSERT_EQUAL(sim_run(e.g, &c, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "threads"));
    c.threads = SIM_MAX_THREADS + 1;
    CU_ASSERT_EQUAL(sim_run(e.g, &c, r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "threads"));
    free(r);
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"0 plies: value = score + leave - the opponent's tempo, no variance", test_zero_plies_is_score_plus_leave_minus_tempo},
        {"same seed, same result; another seed, other values", test_deterministic},
        {"candidates behind the leader stop; z = 0 never stops", test_stopping},
        {"empty bag: every rollout the same", test_empty_bag_is_exact},
        {"toptwo with a stop z ends once the leader is z se clear; without, the whole budget", test_toptwo_stopping},
        {"a candidate's mean is that of its rollouts in worlds 0..n-1 (any allocation, threads)", test_rollouts_are_worlds_0_to_n},
        {"1, 2 and 3 threads give the same bytes", test_threads_same_answer},
        {"finish: a rollout that empties the bag plays to the end of the game", test_finish_plays_to_the_end},
        {"toptwo spends its rollouts on the moves that can still be best", test_toptwo_concentrates},
        {"a stop at any moment ends a threaded run with a played candidate", test_stop_any_moment},
        {"a stop that cuts a round keeps every candidate's rollouts in worlds 0..n-1", test_cut_round_keeps_worlds},
        {"bad configurations are refused", test_bad_config},
        CU_TEST_INFO_NULL,
    };
    return tu_run("sim", tests);
}
