/* The simulation player (search/sim.h): with no plies every value is the
 * candidate's score + leave, exactly and without variance; the same seed
 * gives the same result and another seed another; candidates behind stop,
 * the others run to the end; with an empty bag the worlds are all the same
 * and every rollout equal; bad configurations are refused. Real positions
 * from SOWPODS self-play with random leave values. */
#include <math.h>
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
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
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
            if (fabs(sim_mean(k) - want) > 1e-9 || sim_stderr(k) != 0.0 || k->n != 5) {
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
        c.stop_z = 0.0;
        CU_ASSERT_FATAL(sim_run(e.g, &c, r, &err) == 0);
        for (int i = 0; i < r->count; i++) bad += sim_stderr(&r->cand[i]) != 0.0 || r->cand[i].n != 8;
    }
    CU_ASSERT(positions > 0);
    CU_ASSERT_EQUAL(bad, 0);
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
    free(r);
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"0 plies: value = score + leave - the opponent's tempo, no variance", test_zero_plies_is_score_plus_leave_minus_tempo},
        {"same seed, same result; another seed, other values", test_deterministic},
        {"candidates behind the leader stop; z = 0 never stops", test_stopping},
        {"empty bag: every rollout the same", test_empty_bag_is_exact},
        {"bad configurations are refused", test_bad_config},
        CU_TEST_INFO_NULL,
    };
    return tu_run("sim", tests);
}
