/* test_afterstate_net.c - the afterstate network (nn/afterstate_net.h): its file, its gradient
 * against finite differences, batch invariance, deterministic training that learns; the value
 * player (search/value_player.c) and the static player's explore option. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/position.h"
#include "eval/klv.h"
#include "nn/afterstate_train.h"
#include "nn/model_io.h"
#include "search/player.h"
#include "testutil.h"

typedef struct Fixture {
    TuEnv e;
    Klv klv;
    AftContext c;
    ShardSet set;
    char dir[128];
} Fixture;

static bool fixture_open(Fixture *f, int games) {
    memset(f, 0, sizeof *f);
    if (!tu_env_open(&f->e)) return false;
    RkError err;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/leaves/SOWPODS.klv2", ROOKERY_SOURCE_DIR);
    CU_ASSERT_FATAL(klv_load(&f->klv, path, &f->e.ld, &err) == 0);
    aft_context(&f->c, &f->e.ld, &f->e.lay, &f->e.kwg, klv_leave_value, &f->klv);
    shardset_init(&f->set);
    if (games > 0) tu_selfplay_samples(&f->set, &f->e.ld, &f->e.lay, &f->e.kwg, 41, games, 0, 1, false);
    tu_tmpdir(f->dir, sizeof f->dir);
    return true;
}

static void fixture_close(Fixture *f) {
    shardset_free(&f->set);
    klv_free(&f->klv);
    tu_env_close(&f->e);
}

/* Samples [0, k) of the set into the batch. */
static void fill(Fixture *f, AftBatch *b, size_t first, int k) {
    for (int i = 0; i < k; i++) {
        Afterstate as;
        Board after;
        const ShardSample *s = &f->set.s[first + (size_t)i];
        CU_ASSERT_FATAL(aft_from_position(&f->c, &s->pos, &s->played, &as, &after) == 0);
        aft_batch_set(b, &f->c, i, &as, &after);
    }
}

static void test_file(void) {
    Fixture f;
    if (!fixture_open(&f, 2)) return;
    RkError err;
    AftNet n, m;
    AftArch arch = {.hidden1 = 16, .hidden2 = 8};
    CU_ASSERT_FATAL(aft_net_init(&n, &arch, &f.e.ld, 15, 3, &err) == 0);
    n.train_step = 17;
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/a.h5", f.dir);
    snprintf(b, sizeof b, "%s/b.h5", f.dir);
    CU_ASSERT_FATAL(aft_net_save(&n, a, &f.e.ld, &err) == 0);
    CU_ASSERT_FATAL(aft_net_load(&m, a, &f.e.ld, 15, &err) == 0);
    CU_ASSERT_EQUAL(m.train_step, 17);
    CU_ASSERT_EQUAL(m.arch.hidden1, 16);
    CU_ASSERT(memcmp(n.params.w, m.params.w, n.params.total * sizeof(float)) == 0);
    CU_ASSERT_FATAL(aft_net_save(&m, b, &f.e.ld, &err) == 0);
    unsigned char *x, *y;
    long nx = tu_read_bytes(a, &x), ny = tu_read_bytes(b, &y);
    CU_ASSERT(nx > 0 && nx == ny && memcmp(x, y, (size_t)nx) == 0); /* no timestamps */
    free(x), free(y);
    aft_net_free(&m);
    /* bad files: one line naming the file */
    char path[300];
    snprintf(path, sizeof path, "%s/none.h5", f.dir);
    CU_ASSERT(aft_net_load(&m, path, &f.e.ld, 15, &err) == -1 && strstr(err.msg, "none.h5") != NULL);
    snprintf(path, sizeof path, "%s/text.h5", f.dir);
    CU_ASSERT_FATAL(tu_write_file(path, "not a network\n") == 0);
    CU_ASSERT(aft_net_load(&m, path, &f.e.ld, 15, &err) == -1 && strstr(err.msg, "not an HDF5 file") != NULL);
    NnModel pvh;
    NnArch pa = {.channels = 2, .blocks = 0, .embed = 4, .head_hidden = 4, .h_tiles = 1};
    CU_ASSERT_FATAL(nn_model_init(&pvh, &pa, &f.e.ld, 15, 1, &err) == 0);
    snprintf(path, sizeof path, "%s/pvh.h5", f.dir);
    CU_ASSERT_FATAL(nn_model_save(&pvh, path, &f.e.ld, &err) == 0);
    nn_model_free(&pvh);
    CU_ASSERT(aft_net_load(&m, path, &f.e.ld, 15, &err) == -1 &&
              strstr(err.msg, "not a rookery afterstate network") != NULL);
    CU_ASSERT(aft_net_load(&m, a, &f.e.ld, 11, &err) == -1 && strstr(err.msg, "board side 15, expected 11") != NULL);
    LetterDist tiny;
    tu_tiny_ld(&tiny);
    CU_ASSERT(aft_net_load(&m, a, &tiny, 15, &err) == -1 && strstr(err.msg, "letters") != NULL);
    /* a damaged tensor is a read error, never another network */
    long nb = tu_read_bytes(a, &x);
    CU_ASSERT_FATAL(nb > 4000);
    for (long i = nb / 2; i < nb / 2 + 64; i++) x[i] ^= 0x5a;
    snprintf(path, sizeof path, "%s/damaged.h5", f.dir);
    tu_write_bytes(path, x, nb);
    free(x);
    CU_ASSERT(aft_net_load(&m, path, &f.e.ld, 15, &err) == -1);
    aft_net_free(&n);
    fixture_close(&f);
}

/* Each afterstate's outputs are the same alone as in a batch. */
static void test_batch_invariance(void) {
    Fixture f;
    if (!fixture_open(&f, 3)) return;
    RkError err;
    AftNet n;
    AftArch arch = {.hidden1 = 32, .hidden2 = 16};
    CU_ASSERT_FATAL(aft_net_init(&n, &arch, &f.e.ld, 15, 9, &err) == 0);
    AftBatch b, one;
    CU_ASSERT_FATAL(aft_batch_init(&b, &n, 16, &err) == 0 && aft_batch_init(&one, &n, 1, &err) == 0);
    fill(&f, &b, 10, 16);
    aft_net_forward(&n, &b, 16);
    for (int i = 0; i < 16; i++) {
        fill(&f, &one, 10 + (size_t)i, 1);
        aft_net_forward(&n, &one, 1);
        CU_ASSERT(one.out[0] == b.out[2 * i] && one.out[1] == b.out[2 * i + 1]);
        CU_ASSERT(aft_win(&b, i) > 0 && aft_win(&b, i) < 1);
    }
    aft_batch_free(&b), aft_batch_free(&one), aft_net_free(&n);
    fixture_close(&f);
}

/* A new network is the static prior: P(win) is the win model's of the spread plus the leave
 * with the opponent on turn, its spread that lead. */
static void test_new_is_prior(void) {
    Fixture f;
    if (!fixture_open(&f, 2)) return;
    RkError err;
    AftNet n;
    AftArch arch = {.hidden1 = 16, .hidden2 = 8};
    CU_ASSERT_FATAL(aft_net_init(&n, &arch, &f.e.ld, 15, 2, &err) == 0);
    AftBatch b;
    CU_ASSERT_FATAL(aft_batch_init(&b, &n, 16, &err) == 0);
    const WinModel wm = WINPROB_DEFAULT;
    int close = 0, tried = 0;
    for (size_t at = 0; at + 16 <= f.set.n && at < 64; at += 16) {
        fill(&f, &b, at, 16);
        aft_net_forward(&n, &b, 16);
        for (int i = 0; i < 16; i++) {
            Afterstate as;
            Board after;
            const ShardSample *s = &f.set.s[at + (size_t)i];
            CU_ASSERT_FATAL(aft_from_position(&f.c, &s->pos, &s->played, &as, &after) == 0);
            const Position *q = &as.pos;
            double lead = q->score_self - q->score_opp + (q->bag > 0 ? klv_leave_value(&f.klv, &q->rack) / 1000.0 : 0);
            Rack unseen;
            CU_ASSERT_FATAL(position_unseen(q, &f.e.ld, &unseen) == 0);
            double p = 1.0 - winprob(&wm, -lead, unseen.total + q->rack.total);
            p = fmin(fmax(p, 1e-4), 1 - 1e-4);
            close += fabs(aft_win(&b, i) - p) < 1e-5 && fabs(aft_spread(&b, i) - lead) < 1e-3;
            tried++;
        }
    }
    CU_ASSERT(tried >= 32);
    CU_ASSERT_EQUAL(close, tried);
    aft_batch_free(&b), aft_net_free(&n);
    fixture_close(&f);
}

/* The loss of samples [first, first+k) for their targets, as aft_net_backward computes it. */
static double batch_loss(AftNet *n, AftBatch *b, int k, const float *win, const float *spread) {
    aft_net_forward(n, b, k);
    double loss[2];
    nnp_zero_grad(&n->params);
    aft_net_backward(n, b, k, win, spread, 0.25f, 1.0f, loss);
    return loss[0] + 0.25 * loss[1];
}

static void test_gradient(void) {
    Fixture f;
    if (!fixture_open(&f, 3)) return;
    RkError err;
    AftNet n;
    AftArch arch = {.hidden1 = 12, .hidden2 = 6};
    CU_ASSERT_FATAL(aft_net_init(&n, &arch, &f.e.ld, 15, 11, &err) == 0);
    Rng rng;
    rng_seed(&rng, 4);
    nnp_fill_normal(&n.params, n.out.w, 0.5f, &rng); /* a new network's last layer is zero: no gradient below it */
    AftBatch b;
    const int k = 6;
    CU_ASSERT_FATAL(aft_batch_init(&b, &n, k, &err) == 0);
    fill(&f, &b, 20, k);
    float win[6], spread[6];
    for (int i = 0; i < k; i++) {
        win[i] = aft_win_target(&f.set.s[20 + i]);
        spread[i] = (float)f.set.s[20 + i].final_spread;
    }
    batch_loss(&n, &b, k, win, spread);
    float *g = malloc(n.params.total * sizeof *g);
    memcpy(g, n.params.g, n.params.total * sizeof *g);
    /* parameters that matter: a row of an active feature, the other layers' weights and biases */
    size_t probe[8];
    int np = 0;
    probe[np++] = n.params.p[n.l1.w].offset + (size_t)b.idx[0] * 12 + 3;
    probe[np++] = n.params.p[n.l1.w].offset + (size_t)b.idx[5] * 12 + 7;
    probe[np++] = n.params.p[n.l1.b].offset + 2;
    probe[np++] = n.params.p[n.l2.w].offset + 5;
    probe[np++] = n.params.p[n.l3.w].offset + 9;
    probe[np++] = n.params.p[n.out.w].offset + 0;
    probe[np++] = n.params.p[n.out.w].offset + 3;
    probe[np++] = n.params.p[n.out.b].offset + 1;
    int close = 0;
    for (int j = 0; j < np; j++) {
        float *w = n.params.w + probe[j], keep = *w;
        const float h = 1e-2f;
        *w = keep + h;
        double up = batch_loss(&n, &b, k, win, spread);
        *w = keep - h;
        double down = batch_loss(&n, &b, k, win, spread);
        *w = keep;
        double num = (up - down) / (2.0 * h), ana = g[probe[j]];
        close += fabs(num - ana) <= 2e-3 + 2e-2 * fabs(num);
    }
    CU_ASSERT_EQUAL(close, np);
    free(g);
    aft_batch_free(&b), aft_net_free(&n);
    fixture_close(&f);
}

/* Training is the same bytes twice, and it learns: the loss on the samples it trains on
 * falls. */
static void test_training(void) {
    Fixture f;
    if (!fixture_open(&f, 8)) return;
    RkError err;
    size_t count = f.set.n < 150 ? f.set.n : 150, *idx = malloc(count * sizeof *idx);
    for (size_t i = 0; i < count; i++) idx[i] = i;
    AftArch arch = {.hidden1 = 16, .hidden2 = 8};
    AftTrainOptions o = aft_train_defaults();
    o.steps = 200, o.batch = 32, o.chunks = 3, o.progress_seconds = 0, o.adam.lr = 1e-2f;
    NnTrainComm comm = nn_train_comm_local();
    AftNet a, b;
    AftTrainReport ra, rb;
    CU_ASSERT_FATAL(aft_net_init(&a, &arch, &f.e.ld, 15, 5, &err) == 0 && aft_net_init(&b, &arch, &f.e.ld, 15, 5, &err) == 0);
    CU_ASSERT_FATAL(aft_train(&a, &f.c, &f.set, idx, count, &o, &comm, &ra, &err) == 0);
    CU_ASSERT_FATAL(aft_train(&b, &f.c, &f.set, idx, count, &o, &comm, &rb, &err) == 0);
    CU_ASSERT(memcmp(a.params.w, b.params.w, a.params.total * sizeof(float)) == 0);
    CU_ASSERT_EQUAL(a.train_step, 200);
    WinModel base = WINPROB_DEFAULT;
    AftEvalReport before, after;
    AftNet fresh;
    CU_ASSERT_FATAL(aft_net_init(&fresh, &arch, &f.e.ld, 15, 5, &err) == 0);
    CU_ASSERT_FATAL(aft_evaluate(&fresh, &f.c, &f.set, idx, count, &base, o.horizon, 10, &before, &err) == 0);
    CU_ASSERT_FATAL(aft_evaluate(&a, &f.c, &f.set, idx, count, &base, o.horizon, 10, &after, &err) == 0);
    CU_ASSERT(after.logloss < before.logloss - 0.05);
    CU_ASSERT(after.spread_mae < before.spread_mae);
    CU_ASSERT(before.base_brier > 0 && before.base_brier < 0.25);
    /* batch smaller than the chunks: refused */
    o.batch = 2;
    CU_ASSERT(aft_train(&a, &f.c, &f.set, idx, count, &o, &comm, &ra, &err) == -1 && strstr(err.msg, "chunks") != NULL);
    aft_net_free(&a), aft_net_free(&b), aft_net_free(&fresh);
    free(idx);
    fixture_close(&f);
}

/* Distillation: samples whose P target is softmax(score / 10) over their 8 best moves by score
 * (the self-play recorder's static target without leaves), while the prior ranks by score +
 * leave. A new network chooses as the prior does; trained with the distillation term (the same
 * bytes twice) its candidates' centred values come closer to the targets' than the same
 * training without it brings them. (So few positions do not change its choices measurably.) */
static void test_distill(void) {
    Fixture f;
    if (!fixture_open(&f, 0)) return;
    tu_selfplay_samples(&f.set, &f.e.ld, &f.e.lay, &f.e.kwg, 43, 6, 10.0, 8, false);
    RkError err;
    size_t count = f.set.n, *idx = malloc(count * sizeof *idx);
    for (size_t i = 0; i < count; i++) idx[i] = i;
    AftArch arch = {.hidden1 = 16, .hidden2 = 8};
    AftNet fresh, a, b;
    CU_ASSERT_FATAL(aft_net_init(&fresh, &arch, &f.e.ld, 15, 7, &err) == 0);
    WinModel base = WINPROB_DEFAULT;
    AftEvalReport before, after;
    CU_ASSERT_FATAL(aft_evaluate(&fresh, &f.c, &f.set, idx, count, &base, 2, 10, &before, &err) == 0);
    CU_ASSERT(before.distill_samples > count / 2);
    CU_ASSERT(fabs(before.distill_regret - before.base_distill_regret) < 1e-9);
    CU_ASSERT(before.base_distill_regret > 1.0); /* the leaves move the prior off the top score */
    AftTrainOptions o = aft_train_defaults();
    o.steps = 600, o.batch = 16, o.chunks = 2, o.progress_seconds = 0, o.adam.lr = 1e-3f;
    o.distill_weight = 1.0f, o.distill_temperature = 10;
    NnTrainComm comm = nn_train_comm_local();
    AftTrainReport ra, rb;
    CU_ASSERT_FATAL(aft_net_init(&a, &arch, &f.e.ld, 15, 7, &err) == 0 && aft_net_init(&b, &arch, &f.e.ld, 15, 7, &err) == 0);
    CU_ASSERT_FATAL(aft_train(&a, &f.c, &f.set, idx, count, &o, &comm, &ra, &err) == 0);
    CU_ASSERT_FATAL(aft_train(&b, &f.c, &f.set, idx, count, &o, &comm, &rb, &err) == 0);
    CU_ASSERT(memcmp(a.params.w, b.params.w, a.params.total * sizeof(float)) == 0);
    CU_ASSERT(ra.first[2] > 0 && ra.last[2] > 0);
    CU_ASSERT_FATAL(aft_evaluate(&a, &f.c, &f.set, idx, count, &base, 2, 10, &after, &err) == 0);
    /* the same training without the distillation term: the candidates' errors barely move */
    AftNet c;
    AftEvalReport plain;
    o.distill_weight = 0;
    CU_ASSERT_FATAL(aft_net_init(&c, &arch, &f.e.ld, 15, 7, &err) == 0);
    CU_ASSERT_FATAL(aft_train(&c, &f.c, &f.set, idx, count, &o, &comm, &rb, &err) == 0);
    CU_ASSERT(rb.last[2] == 0);
    CU_ASSERT_FATAL(aft_evaluate(&c, &f.c, &f.set, idx, count, &base, 2, 10, &plain, &err) == 0);
    printf("\n  distill: rms %.3f -> %.3f points (without the term %.3f)\n", before.distill_rms, after.distill_rms,
           plain.distill_rms);
    CU_ASSERT(fabs(before.distill_rms - before.base_distill_rms) < 1e-6);
    CU_ASSERT(after.distill_rms < 0.85 * before.distill_rms);
    CU_ASSERT(after.distill_rms < 0.9 * plain.distill_rms);
    CU_ASSERT(fabs(after.base_distill_regret - before.base_distill_regret) < 1e-9);
    aft_net_free(&c);
    aft_net_free(&fresh), aft_net_free(&a), aft_net_free(&b);
    free(idx);
    fixture_close(&f);
}

/* static:target_worlds=W: the same moves as static, and after each decision a target over its
 * best moves by static equity: probabilities above 0 that sum to 1, the same for the same game. */
static void test_target_player(void) {
    Fixture f;
    if (!fixture_open(&f, 0)) return;
    RkError err;
    char leaves[256], spec[512];
    CU_ASSERT_FATAL(snprintf(leaves, sizeof leaves, "%s/data/leaves/SOWPODS.klv2", ROOKERY_SOURCE_DIR) <
                    (int)sizeof leaves);
    Player stat, tgt;
    snprintf(spec, sizeof spec, "static:leaves=%s", leaves);
    CU_ASSERT_FATAL(player_open(&stat, spec, &f.e.ld, &err) == 0);
    snprintf(spec, sizeof spec, "static:leaves=%s,target_worlds=3", leaves);
    CU_ASSERT_FATAL(player_open(&tgt, spec, &f.e.ld, &err) == 0);
    PackedMove moves[64], again[64];
    float probs[64], probs2[64];
    int count, count2;
    double spread;
    CU_ASSERT(player_last_target(&stat, moves, probs, 64, &count, &spread) == -1);
    Game *g = f.e.g;
    game_new(g, &f.e.ld, &f.e.lay, &f.e.kwg, 5, 0, 2);
    int checked = 0;
    while (!game_over(g) && g->bag.count > 0) {
        Move a, b;
        player_choose(&stat, g, &a);
        player_choose(&tgt, g, &b);
        CU_ASSERT(move_same(&a, &b));
        if (player_last_target(&tgt, moves, probs, 64, &count, &spread) == 1) {
            CU_ASSERT(count >= 2 && count <= 16 && isnan(spread));
            double sum = 0;
            for (int i = 0; i < count; i++) {
                CU_ASSERT(probs[i] > 0);
                sum += probs[i];
            }
            CU_ASSERT(fabs(sum - 1) < 1e-4);
            /* the candidates are the best static moves: the one played among them */
            PackedMove played;
            packed_from_move(&played, &a, &g->board);
            int found = 0;
            for (int i = 0; i < count; i++) found += memcmp(&moves[i], &played, sizeof played) == 0;
            CU_ASSERT(found == 1);
            player_choose(&tgt, g, &b);
            CU_ASSERT(player_last_target(&tgt, again, probs2, 64, &count2, &spread) == 1);
            CU_ASSERT(count2 == count && memcmp(moves, again, (size_t)count * sizeof *moves) == 0 &&
                      memcmp(probs, probs2, (size_t)count * sizeof *probs) == 0);
            checked++;
        }
        game_play(g, &a);
    }
    CU_ASSERT(checked >= 5);
    player_close(&stat), player_close(&tgt);
    Player bad;
    CU_ASSERT(player_open(&bad, "static:target_worlds=0", &f.e.ld, &err) == -1 && strstr(err.msg, "target_worlds") != NULL);
    CU_ASSERT(player_open(&bad, "static:target_worlds=2.5", &f.e.ld, &err) == -1 && strstr(err.msg, "target_worlds") != NULL);
    fixture_close(&f);
}

/* Plays game seed/index between two players to its end, checking every move is legal;
 * returns the moves into out (up to cap). */
static int play(Fixture *f, const Player *p0, const Player *p1, uint64_t index, Move *out, int cap) {
    Game *g = f->e.g;
    game_new(g, &f->e.ld, &f->e.lay, &f->e.kwg, 88, 0, index);
    int n = 0;
    while (!game_over(g)) {
        Move m;
        player_choose(g->on_turn == 0 ? p0 : p1, g, &m);
        Move check = m;
        CU_ASSERT_FATAL(movegen_find(g, &check));
        if (n < cap) out[n] = m;
        n++;
        game_play(g, &m);
    }
    return n;
}

static void test_players(void) {
    Fixture f;
    if (!fixture_open(&f, 0)) return;
    RkError err;
    AftNet n;
    AftArch arch = {.hidden1 = 16, .hidden2 = 8};
    CU_ASSERT_FATAL(aft_net_init(&n, &arch, &f.e.ld, 15, 21, &err) == 0);
    char model[160], spec[512];
    snprintf(model, sizeof model, "%s/v.h5", f.dir);
    CU_ASSERT_FATAL(aft_net_save(&n, model, &f.e.ld, &err) == 0);
    aft_net_free(&n);
    char leaves[256];
    CU_ASSERT_FATAL(snprintf(leaves, sizeof leaves, "%s/data/leaves/SOWPODS.klv2", ROOKERY_SOURCE_DIR) <
                    (int)sizeof leaves);
    Player value, stat, explore, explore0;
    snprintf(spec, sizeof spec, "value:model=%s,candidates=8,leaves=%s", model, leaves);
    CU_ASSERT_FATAL(player_open(&value, spec, &f.e.ld, &err) == 0);
    CU_ASSERT(player_check_board(&value, 15, &err) == 0);
    CU_ASSERT(player_check_board(&value, 11, &err) == -1);
    snprintf(spec, sizeof spec, "static:leaves=%s", leaves);
    CU_ASSERT_FATAL(player_open(&stat, spec, &f.e.ld, &err) == 0);
    snprintf(spec, sizeof spec, "static:leaves=%s,explore=3", leaves);
    CU_ASSERT_FATAL(player_open(&explore, spec, &f.e.ld, &err) == 0);
    snprintf(spec, sizeof spec, "static:leaves=%s,explore=0", leaves);
    CU_ASSERT_FATAL(player_open(&explore0, spec, &f.e.ld, &err) == 0);
    Move a[128], b[128];
    int na = play(&f, &value, &stat, 1, a, 128);
    CU_ASSERT(na > 10);
    /* explore=0 is the static player; explore=3 is the same moves for the same game, and
     * not always the best one */
    int differ = 0;
    for (uint64_t gi = 0; gi < 4; gi++) {
        na = play(&f, &stat, &stat, gi, a, 128);
        int nb = play(&f, &explore0, &explore0, gi, b, 128);
        CU_ASSERT(na == nb && memcmp(a, b, sizeof(Move) * (size_t)(na < 128 ? na : 128)) == 0);
        na = play(&f, &explore, &explore, gi, a, 128);
        nb = play(&f, &explore, &explore, gi, b, 128);
        CU_ASSERT(na == nb && memcmp(a, b, sizeof(Move) * (size_t)(na < 128 ? na : 128)) == 0);
        nb = play(&f, &stat, &stat, gi, b, 128);
        differ += na != nb || memcmp(a, b, sizeof(Move) * (size_t)(na < 128 ? na : 128)) != 0;
    }
    CU_ASSERT(differ >= 3);
    player_close(&value), player_close(&stat), player_close(&explore), player_close(&explore0);
    /* bad specs: one line naming what is wrong */
    Player bad;
    CU_ASSERT(player_open(&bad, "value", &f.e.ld, &err) == -1 && strstr(err.msg, "model=") != NULL);
    snprintf(spec, sizeof spec, "value:model=%s,candidates=0", model);
    CU_ASSERT(player_open(&bad, spec, &f.e.ld, &err) == -1 && strstr(err.msg, "candidates") != NULL);
    CU_ASSERT(player_open(&bad, "value:model=/nonexistent/v.h5", &f.e.ld, &err) == -1 &&
              strstr(err.msg, "/nonexistent/v.h5") != NULL);
    CU_ASSERT(player_open(&bad, "static:explore=-1", &f.e.ld, &err) == -1 && strstr(err.msg, "explore") != NULL);
    fixture_close(&f);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the file: round trip, same bytes, bad and damaged files refused", test_file},
        {"an afterstate's outputs do not depend on its batch", test_batch_invariance},
        {"a new network is the static prior (equity through the win model)", test_new_is_prior},
        {"the gradient against finite differences", test_gradient},
        {"training: the same bytes twice, and the loss falls", test_training},
        {"the value player and static:explore", test_players},
        {"distillation: trained on a target over the candidates, their values follow it", test_distill},
        {"static:target_worlds: the same moves, and a target a decision", test_target_player},
        CU_TEST_INFO_NULL,
    };
    return tu_run("afterstate_net", tests);
}
