/*
 * test_policy_target.c - the P targets of a search's root
 * (search/policy_target.h): the visit distribution, and the completed-Q
 * improved policy checked against values computed by hand (Python, from
 * the formula in the header), its limits, its options, and a real search's
 * target recorded as a sample.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/mcgs_player.h"
#include "search/player.h"
#include "search/policy_target.h"
#include "testutil.h"
#include "worker/samples.h"

static McgsResult *result(int count, const double *prior, const uint32_t *visits, const double *value) {
    McgsResult *r = calloc(1, sizeof *r);
    r->count = count;
    for (int a = 0; a < count; a++) {
        r->prior[a] = (float)prior[a];
        r->visits[a] = visits[a];
        r->value[a] = visits[a] > 0 ? value[a] : 0.0;
    }
    return r;
}

static PolicyTarget q_target(double scale, double span) {
    PolicyTarget t;
    policy_target_defaults(&t);
    t.kind = POLICY_TARGET_Q;
    t.scale = scale;
    t.span = span;
    return t;
}

static double sum(const float *p, int n) {
    double s = 0.0;
    for (int a = 0; a < n; a++) s += p[a];
    return s;
}

/* Three cases worked out apart from this code (python3, the header's formula). */
static void test_formula(void) {
    static const struct {
        int n;
        double prior[4];
        uint32_t visits[4];
        double value[4], scale, span, want[4];
    } cases[] = {
        /* v_mix 16.25 for the unvisited move; range 10 = the span */
        {3, {.5, .3, .2}, {10, 5, 0}, {20, 10, 0}, 0.1, 10, {0.9581784419513978, 0.0014250521391730843, 0.040396505909429066}},
        /* a range of 4 points under the span of 10 */
        {4, {.25, .25, .25, .25}, {3, 3, 1, 1}, {4, 2, 1, 0}, 0.1, 10,
         {0.5986543266381559, 0.2074072698430172, 0.12208094977701957, 0.0718574537418074}},
        /* a wide range, another scale and span */
        {3, {.1, .6, .3}, {1, 40, 9}, {100, -50, 0}, 0.2, 5, {0.9999814763261944, 9.137818577721456e-08, 1.8432295619828342e-05}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        McgsResult *r = result(cases[i].n, cases[i].prior, cases[i].visits, cases[i].value);
        PolicyTarget t = q_target(cases[i].scale, cases[i].span);
        float p[MCGS_MAX_CANDIDATES];
        CU_ASSERT_EQUAL(policy_target_compute(&t, r, p), cases[i].n);
        for (int a = 0; a < cases[i].n; a++) CU_ASSERT(fabs(p[a] / cases[i].want[a] - 1.0) < 1e-5);
        CU_ASSERT_DOUBLE_EQUAL(sum(p, cases[i].n), 1.0, 1e-6);
        free(r);
    }
}

/* Visits: N(a)/sum N, zero for the unvisited. Q: equal values give the
 * prior; more visits or a smaller span sharpen it toward the best value; no
 * visits at all give no target (0: the played move). */
static void test_limits(void) {
    const double prior[4] = {.4, .3, .2, .1}, flat[4] = {7, 7, 7, 7}, value[4] = {0, 8, 4, 2};
    const uint32_t visits[4] = {6, 3, 1, 0}, many[4] = {60, 30, 10, 0}, none[4] = {0};
    float p[MCGS_MAX_CANDIDATES], q[MCGS_MAX_CANDIDATES];
    PolicyTarget v;
    policy_target_defaults(&v);
    CU_ASSERT_EQUAL(v.kind, POLICY_TARGET_VISITS);
    McgsResult *r = result(4, prior, visits, value);
    CU_ASSERT_EQUAL(policy_target_compute(&v, r, p), 3);
    CU_ASSERT_DOUBLE_EQUAL(p[0], 0.6, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(p[1], 0.3, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(p[2], 0.1, 1e-7);
    CU_ASSERT_EQUAL(p[3], 0.0f);
    /* Q: every candidate gets mass; the best value (move 1) gains on the prior's favourite */
    PolicyTarget t = q_target(0.1, 10);
    CU_ASSERT_EQUAL(policy_target_compute(&t, r, p), 4);
    CU_ASSERT(p[3] > 0.0f);
    CU_ASSERT(p[1] > p[0]);
    CU_ASSERT_DOUBLE_EQUAL(sum(p, 4), 1.0, 1e-6);
    free(r);
    /* more visits, the same values: sharper */
    r = result(4, prior, many, value);
    CU_ASSERT_EQUAL(policy_target_compute(&t, r, q), 4);
    CU_ASSERT(q[1] > p[1]);
    /* a larger span: flatter, toward the prior */
    PolicyTarget wide = q_target(0.1, 1000);
    CU_ASSERT_EQUAL(policy_target_compute(&wide, r, p), 4);
    CU_ASSERT(p[1] < q[1]);
    CU_ASSERT(fabs(p[0] - 0.4) < fabs(q[0] - 0.4));
    free(r);
    /* equal values: the prior itself */
    r = result(4, prior, visits, flat);
    CU_ASSERT_EQUAL(policy_target_compute(&t, r, p), 4);
    for (int a = 0; a < 4; a++) CU_ASSERT_DOUBLE_EQUAL(p[a], prior[a], 1e-6);
    free(r);
    /* a visited value that is not a number: the visits */
    const double broken[4] = {0, NAN, 4, 2};
    r = result(4, prior, visits, broken);
    CU_ASSERT_EQUAL(policy_target_compute(&t, r, p), 3);
    CU_ASSERT_DOUBLE_EQUAL(p[0], 0.6, 1e-7);
    CU_ASSERT_EQUAL(p[3], 0.0f);
    free(r);
    /* no visits: no target, from either kind */
    r = result(4, prior, none, value);
    CU_ASSERT_EQUAL(policy_target_compute(&t, r, p), 0);
    CU_ASSERT_EQUAL(policy_target_compute(&v, r, p), 0);
    CU_ASSERT_DOUBLE_EQUAL(sum(p, 4), 0.0, 0.0);
    free(r);
}

/* target=, target_scale=, target_span= in a player spec, and their errors. */
static void test_options(void) {
    LetterDist ld;
    RkError err;
    ld_english(&ld);
    Player p;
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=4,target=q,target_scale=0.3,target_span=25", &ld, &err) == 0);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->target.kind, POLICY_TARGET_Q);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->target.scale, 0.3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->target.span, 25, 1e-12);
    player_close(&p);
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=4", &ld, &err) == 0);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->target.kind, POLICY_TARGET_VISITS);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->target.scale, 0.1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->target.span, 10, 1e-12);
    player_close(&p);
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"mcgs:target=gumbel", "target"},
        {"mcgs:target_scale=0", "target_scale"},
        {"mcgs:target_span=-1", "target_span"},
        {"mcgs:target_span=x", "target_span"},
        {"static:target=q", "target"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_NOT_EQUAL(player_open(&p, bad[i].spec, &ld, &err), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].spec));
        CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    }
}

/* A real search's Q target: a sample holds every candidate, summing to 1,
 * the visited ones where the formula puts them; and the target changes no
 * decision (the same move with target=visits and target=q). */
static void test_real_search(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    Player pv, pq;
    CU_ASSERT_FATAL(player_open(&pv, "mcgs:visits=40,candidates=8,prior=equity", &e.ld, &err) == 0);
    CU_ASSERT_FATAL(player_open(&pq, "mcgs:visits=40,candidates=8,prior=equity,target=q", &e.ld, &err) == 0);
    ShardSet set;
    shardset_init(&set);
    SampleRecorder rec;
    samples_init(&rec, &set, 0.0, 1, NULL, NULL);
    samples_begin_game(&rec, 1, 1);
    int positions = 0;
    for (uint64_t seed = 31; seed < 37; seed++) {
        tu_env_position(&e, seed, 3, 60, NULL);
        Move mv, mq;
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&pv), e.g, NULL, NULL, &mv, &err) == 0);
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&pq), e.g, NULL, NULL, &mq, &err) == 0);
        CU_ASSERT(move_same(&mv, &mq));
        const McgsResult *r = &mcgs_player_of(&pq)->last;
        if (r->count < 2) continue;
        float p[MCGS_MAX_CANDIDATES];
        CU_ASSERT_EQUAL(policy_target_compute(&mcgs_player_of(&pq)->target, r, p), r->count);
        size_t before = set.n;
        samples_record_policy(&rec, e.g, &mq, r->packed, p, r->count, NAN);
        CU_ASSERT_FATAL(set.n == before + 1);
        const ShardSample *s = &set.s[before];
        CU_ASSERT_EQUAL(s->policy_count, (uint32_t)r->count);
        double total = 0.0;
        for (uint32_t k = 0; k < s->policy_count; k++) total += set.pprob[s->policy_start + k];
        CU_ASSERT_DOUBLE_EQUAL(total, 1.0, 1e-5);
        /* two visited moves: log(p_a / p_b) - log(prior_a / prior_b) has the sign of value_a - value_b */
        for (int a = 0; a < r->count; a++)
            for (int b = 0; b < r->count; b++) {
                if (r->visits[a] == 0 || r->visits[b] == 0 || r->value[a] <= r->value[b] + 1e-9) continue;
                CU_ASSERT(log(p[a] / p[b]) - log(r->prior[a] / r->prior[b]) > 0.0);
            }
        positions++;
    }
    CU_ASSERT(positions >= 4);
    samples_free(&rec);
    shardset_free(&set);
    player_close(&pv);
    player_close(&pq);
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the improved policy against values worked by hand", test_formula},
        {"visits; Q's limits: the prior, sharper with visits, flatter with span", test_limits},
        {"target options and their errors", test_options},
        {"a real search's Q target as a sample; no decision changes", test_real_search},
        CU_TEST_INFO_NULL,
    };
    return tu_run("policy_target", tests);
}
