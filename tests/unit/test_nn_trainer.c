/* The trainer: the same steps give the same bytes; a few steps lower the loss; a
 * divergence (non-finite loss or weights) stops with a message naming the step and keeps
 * the last good weights; bad options are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "nn/sgd.h"
#include "testutil.h"
#include "worker/samples.h"
#include "worker/selfplay.h"

typedef struct World {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    NnFeatureContext fc;
    ShardSet set;
    size_t *idx;
} World;

static bool world_open(World *w) {
    ld_english(&w->ld);
    layout_standard15(&w->lay);
    if (!tu_load_sowpods(&w->kwg, &w->ld)) return false;
    nn_feature_context(&w->fc, &w->ld, &w->lay, &w->kwg);
    shardset_init(&w->set);
    tu_selfplay_samples(&w->set, &w->ld, &w->lay, &w->kwg, 21, 3, 1.0, 8, false);
    w->idx = malloc(w->set.n * sizeof *w->idx);
    for (size_t i = 0; i < w->set.n; i++) w->idx[i] = i;
    return true;
}

static void world_close(World *w) {
    free(w->idx);
    shardset_free(&w->set);
    kwg_free(&w->kwg);
}

static const NnArch ARCH = {.channels = 4, .blocks = 1, .embed = 8, .head_hidden = 8, .h_tiles = 1};

static NnTrainOptions options(int64_t steps) {
    NnTrainOptions o = {.batch = 12, .chunks = 4, .steps = steps, .adam = nn_adam_default(), .seed = 3, .generation = 1, .loss = nn_loss_options_default()};
    o.adam.lr = 3e-3f;
    return o;
}

static void test_deterministic_and_learns(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel a, b;
    CU_ASSERT_FATAL(nn_model_init(&a, &ARCH, &w.ld, 15, 1, &err) == 0);
    CU_ASSERT_FATAL(nn_model_init(&b, &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainOptions o = options(40);
    NnTrainReport ra, rb;
    CU_ASSERT_EQUAL_FATAL(nn_train(&a, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &ra, &err), 0);
    CU_ASSERT_EQUAL_FATAL(nn_train(&b, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &rb, &err), 0);
    CU_ASSERT_EQUAL(a.train_step, 40);
    CU_ASSERT_EQUAL(memcmp(a.params.w, b.params.w, a.params.total * sizeof(float)), 0);
    CU_ASSERT_EQUAL(memcmp(a.params.m, b.params.m, a.params.total * sizeof(float)), 0);
    CU_ASSERT_EQUAL(ra.first.samples, 12);
    /* the mean loss of the last 20 steps below the first 20's: train 20 more, compare */
    NnTrainReport r2;
    NnTrainOptions o2 = options(20);
    CU_ASSERT_EQUAL_FATAL(nn_train(&a, &w.fc, &w.set, w.idx, w.set.n, &o2, &comm, &r2, &err), 0);
    CU_ASSERT_EQUAL(a.train_step, 60);
    printf("(mean loss, steps 1-40: %.3f, 41-60: %.3f) ", nn_loss_total(&ra.mean), nn_loss_total(&r2.mean));
    CU_ASSERT_TRUE(nn_loss_total(&r2.mean) < 0.9 * nn_loss_total(&ra.mean));
    /* another chunking of the same batch: the same loss, other float sums */
    NnModel c;
    CU_ASSERT_FATAL(nn_model_init(&c, &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainOptions o3 = options(1);
    o3.chunks = 3;
    NnTrainReport rc;
    CU_ASSERT_EQUAL_FATAL(nn_train(&c, &w.fc, &w.set, w.idx, w.set.n, &o3, &comm, &rc, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(nn_loss_total(&rc.first), nn_loss_total(&ra.first), 1e-4);
    nn_model_free(&a);
    nn_model_free(&b);
    nn_model_free(&c);
    world_close(&w);
}

/* The mean predicted spread (points) of the model over the samples. */
static double mean_spread(NnModel *m, World *w) {
    RkError err;
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, m, &w->fc, 1, &err) == 0);
    double sum = 0;
    for (size_t i = 0; i < w->set.n; i++) {
        nn_batch_set(&b, m, 0, &w->set.s[i].pos);
        nn_forward_trunk(m, &b, 1);
        nn_forward_value(m, &b, 1);
        sum += 100.0 * b.vout[3];
    }
    nn_batch_free(&b);
    return sum / (double)w->set.n;
}

/* Samples without a P target (a fast search's decisions under playout cap
 * randomization): no policy loss at all, and the same value and H losses as
 * with their targets. */
static void test_samples_without_policy(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSet none;
    shardset_init(&none);
    for (size_t i = 0; i < w.set.n; i++) shardset_add(&none, &w.set.s[i], NULL, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(none.np, 0);
    RkError err;
    NnModel a, b;
    CU_ASSERT_FATAL(nn_model_init(&a, &ARCH, &w.ld, 15, 1, &err) == 0);
    CU_ASSERT_FATAL(nn_model_init(&b, &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainOptions o = options(1);
    NnTrainReport ra, rb;
    CU_ASSERT_EQUAL_FATAL(nn_train(&a, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &ra, &err), 0);
    CU_ASSERT_EQUAL_FATAL(nn_train(&b, &w.fc, &none, w.idx, none.n, &o, &comm, &rb, &err), 0);
    CU_ASSERT_TRUE(ra.first.sub > 0.0 && ra.first.steps > 0.0);
    CU_ASSERT_EQUAL(ra.first.policy_samples, ra.first.samples);
    CU_ASSERT_EQUAL(rb.first.policy_samples, 0.0);
    CU_ASSERT_EQUAL(nn_loss_policy(&rb.first), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(nn_loss_policy(&ra.first), (ra.first.sub + ra.first.steps) / ra.first.samples, 1e-12);
    CU_ASSERT_EQUAL(rb.first.sub, 0.0);
    CU_ASSERT_EQUAL(rb.first.steps, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(rb.first.wdl, ra.first.wdl, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rb.first.spread, ra.first.spread, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rb.first.hidden, ra.first.hidden, 1e-9);
    CU_ASSERT_TRUE(rb.first.hidden > 0.0);
    nn_model_free(&a);
    nn_model_free(&b);
    shardset_free(&none);
    world_close(&w);
}

/* nn.value_search_weight: the spread target blends the final spread with the
 * search's estimate where a sample has one. Without estimates the weight
 * changes nothing (the same bytes); with estimates 60 points below the final
 * spread, training with weight 1 lowers the predicted spread against weight 0. */
static void test_search_weight(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSample probe = w.set.s[0];
    probe.final_spread = 40;
    probe.search_spread = NAN;
    CU_ASSERT_DOUBLE_EQUAL(nn_spread_target(&probe, 0.5f), 0.40, 1e-6);
    probe.search_spread = 10.0f;
    CU_ASSERT_DOUBLE_EQUAL(nn_spread_target(&probe, 0.0f), 0.40, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(nn_spread_target(&probe, 0.5f), 0.25, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(nn_spread_target(&probe, 1.0f), 0.10, 1e-6);
    RkError err;
    NnModel m[4];
    for (int k = 0; k < 4; k++) CU_ASSERT_FATAL(nn_model_init(&m[k], &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainReport r;
    NnTrainOptions o = options(5);
    for (size_t i = 0; i < w.set.n; i++) CU_ASSERT(isnan(w.set.s[i].search_spread)); /* static self-play */
    CU_ASSERT_EQUAL_FATAL(nn_train(&m[0], &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), 0);
    o.loss.search_weight = 1.0f;
    CU_ASSERT_EQUAL_FATAL(nn_train(&m[1], &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), 0);
    CU_ASSERT_EQUAL(memcmp(m[0].params.w, m[1].params.w, m[0].params.total * sizeof(float)), 0);
    for (size_t i = 0; i < w.set.n; i++) w.set.s[i].search_spread = (float)w.set.s[i].final_spread - 60.0f;
    o = options(60);
    CU_ASSERT_EQUAL_FATAL(nn_train(&m[2], &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), 0);
    o.loss.search_weight = 1.0f;
    CU_ASSERT_EQUAL_FATAL(nn_train(&m[3], &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), 0);
    double final_only = mean_spread(&m[2], &w), search_only = mean_spread(&m[3], &w);
    printf("(mean predicted spread: target final %.1f, target search %.1f) ", final_only, search_only);
    CU_ASSERT_TRUE(search_only < final_only - 10.0);
    for (int k = 0; k < 4; k++) nn_model_free(&m[k]);
    world_close(&w);
}

static void test_divergence_stops(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainOptions o = options(30);
    o.adam.lr = 1e30f; /* the first step throws every weight to ~1e30, the next forward overflows */
    NnTrainReport r;
    CU_ASSERT_EQUAL(nn_train(&m, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), -1);
    printf("(%s) ", err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "non-finite"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "keeping the weights of step"));
    CU_ASSERT_TRUE(m.train_step < 30);
    bool finite = true;
    for (size_t i = 0; i < m.params.total; i++) finite &= isfinite(m.params.w[i]) != 0;
    CU_ASSERT_TRUE(finite);
    nn_model_free(&m);
    world_close(&w);
}

/* Another rank failing to set up (the fake comm's agree answers "failed"):
 * no step is taken, the error says so. */
static int other_rank_failed(void *ctx, int status) {
    int *calls = ctx;
    (*calls)++;
    return status > 1 ? status : 1;
}

static void test_other_rank_failure_stops(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &ARCH, &w.ld, 15, 1, &err) == 0);
    float *before = malloc(m.params.total * sizeof(float));
    CU_ASSERT_FATAL(before != NULL);
    memcpy(before, m.params.w, m.params.total * sizeof(float));
    int calls = 0;
    NnTrainComm comm = nn_train_comm_local();
    comm.ctx = &calls;
    comm.agree = other_rank_failed;
    NnTrainOptions o = options(3);
    NnTrainReport r;
    CU_ASSERT_EQUAL(nn_train(&m, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), -1);
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another rank"));
    CU_ASSERT_EQUAL(m.train_step, 0);
    CU_ASSERT_EQUAL(memcmp(before, m.params.w, m.params.total * sizeof(float)), 0);
    free(before);
    nn_model_free(&m);
    world_close(&w);
}

static void test_bad_options(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &ARCH, &w.ld, 15, 1, &err) == 0);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainOptions o = options(2);
    o.batch = 2; /* fewer samples than chunks */
    NnTrainReport r;
    CU_ASSERT_EQUAL(nn_train(&m, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "grad_chunks"));
    const float weights[3] = {-0.5f, 1.5f, NAN};
    for (int k = 0; k < 3; k++) {
        o = options(2);
        o.loss.search_weight = weights[k];
        CU_ASSERT_EQUAL(nn_train(&m, &w.fc, &w.set, w.idx, w.set.n, &o, &comm, &r, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "value_search_weight"));
    }
    o = options(2);
    CU_ASSERT_EQUAL(nn_train(&m, &w.fc, &w.set, w.idx, 0, &o, &comm, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no training samples"));
    NnArch bad = ARCH;
    bad.h_tiles = 3;
    NnModel x;
    CU_ASSERT_EQUAL(nn_model_init(&x, &bad, &w.ld, 15, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "h_tiles"));
    nn_model_free(&m);
    world_close(&w);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the same steps give the same bytes, and the loss falls", test_deterministic_and_learns},
        {"the search's estimates blend into the spread target", test_search_weight},
        {"samples without a P target: no policy loss, the same V and H losses", test_samples_without_policy},
        {"a divergence stops with the step named, weights kept finite", test_divergence_stops},
        {"another rank's failed set-up stops training before a step", test_other_rank_failure_stops},
        {"bad options refused", test_bad_options},
        CU_TEST_INFO_NULL,
    };
    return tu_run("nn_trainer", tests);
}
