/* The P/V/H model end to end: policy log-probabilities sum to 1 over the
 * legal moves and samples are legal; H's leave probabilities sum to 1 over
 * every leave of the unseen pool (t = 1 and 2); the whole model's gradients
 * (every tensor) match finite differences of its losses; and a small model
 * overfits a few samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "eval/klv.h"
#include "nn/heldout.h"
#include "nn/train_step.h"
#include "testutil.h"
#include "worker/samples.h"
#include "worker/selfplay.h"

typedef struct World {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    NnFeatureContext fc;
    ShardSet set;
} World;

static bool world_open(World *w) {
    ld_english(&w->ld);
    layout_standard15(&w->lay);
    if (!tu_load_sowpods(&w->kwg, &w->ld)) return false;
    nn_feature_context(&w->fc, &w->ld, &w->lay, &w->kwg);
    shardset_init(&w->set);
    tu_selfplay_samples(&w->set, &w->ld, &w->lay, &w->kwg, 5, 2, 1.0, 6, false);
    return true;
}

static void world_close(World *w) {
    shardset_free(&w->set);
    kwg_free(&w->kwg);
}

static NnArch small_arch(int t) { return (NnArch){.channels = 4, .blocks = 1, .embed = 8, .head_hidden = 8, .h_tiles = t}; }

/* Random weights, larger than the init, so every unit is exercised. */
static void shake(NnModel *m, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < m->params.count; i++) nnp_fill_normal(&m->params, i, 0.3f, &rng);
}

/* Leaves of random values in [-25, 15] points. */
static void random_leaves(const World *w, Klv *klv) {
    RkError err;
    CU_ASSERT_FATAL(klv_init_zero(klv, &w->ld, &err) == 0);
    float *v = malloc(klv->count * sizeof *v);
    Rng rng;
    rng_seed(&rng, 77);
    for (uint32_t i = 0; i < klv->count; i++) v[i] = (float)(rng_next(&rng) % 4001) / 100.0f - 25.0f;
    klv_set_values(klv, v);
    free(v);
}

/* Random leaves into *klv (the caller frees them), and the world's feature
 * context, with them if `leaves` (an equity-prior model needs them). */
static NnFeatureContext context_with_leaves(const World *w, Klv *klv, bool leaves) {
    random_leaves(w, klv);
    NnFeatureContext fc = w->fc;
    if (leaves) nn_feature_context_leaves(&fc, klv_leave_value, klv);
    return fc;
}

/* A small model with random weights (shake), its policy built on the score
 * or (equity) on static equity; the leaves into *klv (the caller frees
 * them) and the feature context with them. */
static NnFeatureContext shaken_model(const World *w, NnModel *m, Klv *klv, bool equity, uint64_t init_seed,
                                     uint64_t shake_seed) {
    RkError err;
    NnArch arch = small_arch(1);
    arch.prior_equity = equity;
    NnFeatureContext fc = context_with_leaves(w, klv, equity);
    CU_ASSERT_FATAL(nn_model_init(m, &arch, &w->ld, 15, init_seed, &err) == 0);
    shake(m, shake_seed);
    return fc;
}

/* For the score prior and the equity prior (whose values can be negative):
 * log P sums to 1 over the legal moves; one move's log P alone
 * (nn_policy_logprob, the trainer's path: nn_step_row_add) equals its
 * entry in nn_policy_all's list (the search's path, one row per distinct
 * prefix); samples follow P. */
static void policy_normalised(bool equity) {
    World w;
    if (!world_open(&w)) return;
    NnModel m;
    RkError err;
    Klv klv;
    NnFeatureContext fc = shaken_model(&w, &m, &klv, equity, 1, 2);
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 4, &err) == 0);
    size_t picks[4] = {0, 5, 17, w.set.n - 2};
    for (int i = 0; i < 4; i++) nn_batch_set(&b, &m, i, &w.set.s[picks[i]].pos);
    nn_forward_trunk(&m, &b, 4);
    nn_forward_submoves(&m, &b, 4);
    Rng rng;
    rng_seed(&rng, 3);
    for (int i = 0; i < 4; i++) {
        int n = b.legal[i].n;
        CU_ASSERT_TRUE_FATAL(n > 0);
        double *lp = malloc((size_t)n * sizeof *lp), sum = 0;
        CU_ASSERT_EQUAL(nn_policy_all(&m, &b, i, lp), n);
        for (int j = 0; j < n; j++) {
            CU_ASSERT_TRUE(isfinite(lp[j]) && lp[j] <= 1e-9);
            sum += exp(lp[j]);
        }
        CU_ASSERT_DOUBLE_EQUAL(sum, 1.0, 1e-4);
        /* one move's log-probability alone = its entry in the full list */
        for (int j = 0; j < n; j += n / 37 + 1)
            CU_ASSERT_DOUBLE_EQUAL(nn_policy_logprob(&m, &b, i, &b.legal[i].m[j].pm), lp[j], 1e-4);
        /* samples are legal, and the most probable move is drawn about as often as it should be */
        int best = 0;
        for (int j = 1; j < n; j++)
            if (lp[j] > lp[best]) best = j;
        int hits = 0, draws = 400;
        for (int d = 0; d < draws; d++) {
            PackedMove pm;
            CU_ASSERT_EQUAL_FATAL(nn_policy_sample(&m, &b, i, &rng, &pm), 0);
            int j = nn_legal_find(&b.legal[i], &m.ps, &pm);
            CU_ASSERT_TRUE(j >= 0);
            hits += j == best;
        }
        double p = exp(lp[best]), sd = sqrt(p * (1 - p) / draws);
        CU_ASSERT_TRUE(fabs((double)hits / draws - p) < 5 * sd + 0.01);
        free(lp);
    }
    nn_batch_free(&b);
    nn_model_free(&m);
    klv_free(&klv);
    world_close(&w);
}

static void test_policy_normalised(void) { policy_normalised(false); }
static void test_policy_normalised_equity(void) { policy_normalised(true); }

static int cmp_key(const void *pa, const void *pb) {
    const NnLegalMove *a = pa, *b = pb;
    if (a->submove != b->submove) return a->submove < b->submove ? -1 : 1;
    return memcmp(a->tokens, b->tokens, RK_RACK_SIZE);
}

/* nn_legal_build's list, on every sample position: one entry per legal move
 * of movegen_all, strictly increasing in (sub-move, tokens) (so also no two
 * moves with the same key), the same list as a plain qsort of the entries,
 * and nn_legal_find finds every move at its own index. */
static void test_legal_order(void) {
    World w;
    if (!world_open(&w)) return;
    NnPolicyShape ps = nn_policy_shape(&w.ld, 15);
    NnLegal lg;
    nn_legal_init(&lg);
    MoveList all;
    movelist_init(&all);
    size_t long_runs = 0;
    const NnFeatureShape *fs = &w.fc.shape;
    float *planes = malloc(sizeof(float) * (size_t)fs->squares * (size_t)fs->planes);
    float *scalars = malloc(sizeof(float) * (size_t)fs->scalars);
    Board b;
    for (size_t i = 0; i < w.set.n; i++) {
        /* the features' legal list, and in `all` the move generator's list it was built from */
        nn_features(&w.fc, &w.set.s[i].pos, planes, scalars, &b, &lg, &all);
        CU_ASSERT_EQUAL_FATAL((size_t)lg.n, all.count);
        NnLegalMove *copy = malloc((size_t)lg.n * sizeof *copy);
        memcpy(copy, lg.m, (size_t)lg.n * sizeof *copy);
        qsort(copy, (size_t)lg.n, sizeof *copy, cmp_key);
        for (int j = 0; j < lg.n; j++)
            CU_ASSERT_TRUE(cmp_key(&copy[j], &lg.m[j]) == 0 && copy[j].score == lg.m[j].score);
        for (int j = 1; j < lg.n; j++) CU_ASSERT_TRUE(cmp_key(&lg.m[j - 1], &lg.m[j]) < 0);
        for (int j = 0, run = 1; j < lg.n; j++) {
            CU_ASSERT_EQUAL(nn_legal_find(&lg, &ps, &lg.m[j].pm), j);
            run = j > 0 && lg.m[j].submove == lg.m[j - 1].submove ? run + 1 : 1;
            long_runs += run == 25;
        }
        for (size_t k = 0; k < all.count; k++) {
            PackedMove pm;
            packed_from_move(&pm, &all.moves[k], &b);
            CU_ASSERT_TRUE(nn_legal_find(&lg, &ps, &pm) >= 0);
        }
        free(copy);
    }
    printf("  %zu positions, %zu sub-moves with more than 24 moves\n", w.set.n, long_runs);
    free(planes);
    free(scalars);
    movelist_free(&all);
    nn_legal_free(&lg);
    world_close(&w);
}

/* The score prior's inputs: with nn.prior = equity each sub-move's prior
 * is the best static equity of its legal moves (score + leave, from a move
 * generation with the leaves; a pass 0), each step's the best through its
 * token, negative values included; with the score prior, the best score.
 * A model whose prior needs leaves refuses a context without them. */
static void test_equity_prior(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    Klv klv;
    random_leaves(&w, &klv);
    for (int equity = 0; equity <= 1; equity++) {
        NnArch arch = small_arch(1);
        arch.prior_equity = equity;
        NnModel m;
        CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 3, &err) == 0);
        NnBatch b;
        if (equity) { /* no leaves: refused */
            CU_ASSERT_EQUAL(nn_batch_init(&b, &m, &w.fc, 1, &err), -1);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "leaves"));
        }
        NnFeatureContext fc = w.fc;
        nn_feature_context_leaves(&fc, klv_leave_value, &klv);
        CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 1, &err) == 0);
        int per = m.ps.submoves, negative = 0, exchange_nonzero = 0, checked = 0;
        float *want = malloc((size_t)per * sizeof *want), *best = malloc((size_t)m.ps.tokens * sizeof *best);
        uint8_t *mask = malloc((size_t)m.ps.tokens);
        MoveList all;
        movelist_init(&all);
        for (size_t s = 0; s < w.set.n; s += 3) {
            const Position *p = &w.set.s[s].pos;
            nn_batch_set(&b, &m, 0, p);
            /* the position's moves valued independently: a move generation with the leaves */
            Board board;
            position_board(p, &w.lay, &w.ld, &w.kwg, &board);
            Rack pool;
            CU_ASSERT_FATAL(position_unseen(p, &w.ld, &pool) == 0);
            MoveGenRequest req;
            memset(&req, 0, sizeof req);
            req.board = &board;
            req.rack = &p->rack;
            req.bag_count = p->bag;
            req.exchanges_allowed = exchange_allowed(p->bag, p->opp_tiles);
            req.leave_value = klv_leave_value;
            req.leave_ctx = &klv;
            req.opp_rack_score = p->bag == 0 ? rack_score(&pool, &w.ld) : 0;
            movegen_all(&req, &all);
            for (int k = 0; k < per; k++) want[k] = -INFINITY;
            for (size_t j = 0; j < all.count; j++) {
                const Move *mv = &all.moves[j];
                PackedMove pm;
                packed_from_move(&pm, mv, &board);
                float x = !equity ? (float)mv->score : mv->kind == MOVE_PASS ? 0.0f : (float)mv->equity / 1000.0f;
                int k = nn_submove_index(&m.ps, &pm);
                if (x > want[k]) want[k] = x;
            }
            const float *got = b.sub_prior;
            for (int k = 0; k < per; k++) {
                if (want[k] == -INFINITY) continue;
                CU_ASSERT_DOUBLE_EQUAL(got[k] * NN_SCORE_SCALE, want[k], 1e-3);
                negative += want[k] < 0;
                exchange_nonzero += k >= m.ps.placements && k < m.ps.placements + RK_RACK_SIZE && want[k] != 0;
                checked++;
            }
            /* the first step of the best sub-move: best over the moves through each token */
            const NnLegal *lg = &b.legal[0];
            int sub = lg->m[0].submove;
            const uint8_t no_prefix[RK_RACK_SIZE] = {0};
            nn_legal_step_mask(lg, &m.ps, sub, no_prefix, 0, mask, best);
            for (int t = 0; t < m.ps.tokens; t++) {
                if (!mask[t]) continue;
                float x = -INFINITY;
                for (int j = 0; j < lg->n; j++)
                    if (lg->m[j].submove == sub && lg->m[j].pm.n > 0 && lg->m[j].tokens[0] == t) {
                        Move mv;
                        CU_ASSERT_FATAL(packed_to_move(&lg->m[j].pm, &board, &mv) == 0);
                        float y = (float)lg->m[j].score;
                        if (equity)
                            for (size_t a = 0; a < all.count; a++)
                                if (move_same(&all.moves[a], &mv)) y = (float)all.moves[a].equity / 1000.0f;
                        if (y > x) x = y;
                    }
                CU_ASSERT_DOUBLE_EQUAL(best[t], x, 1e-3);
            }
        }
        printf("  %s prior: %d sub-moves checked, %d negative, %d exchanges not 0\n", equity ? "equity" : "score",
               checked, negative, exchange_nonzero);
        CU_ASSERT_TRUE(checked > 100);
        if (equity) {
            CU_ASSERT_TRUE(negative > 0 && exchange_nonzero > 0); /* the leaves reach the prior */
        } else {
            CU_ASSERT_TRUE(negative == 0 && exchange_nonzero == 0);
        }
        movelist_free(&all);
        free(want), free(best), free(mask);
        nn_batch_free(&b);
        nn_model_free(&m);
    }
    klv_free(&klv);
    world_close(&w);
}

/* ways[] = C(pool[l], leave[l]) over letters / C(pool total, size): a
 * uniform draw of `size` unseen tiles is that leave. */
static double uniform_draw(const Rack *pool, const Rack *leave, int letters) {
    double p = 1.0;
    int n = pool->total, k = leave->total;
    for (int l = 0; l < letters; l++)
        for (int j = 0; j < leave->count[l]; j++)
            p *= (double)(pool->count[l] - j) / (double)(j + 1);
    for (int j = 0; j < k; j++) p *= (double)(j + 1) / (double)(n - j);
    return p;
}

/* Over every multiset of `size` tiles of the pool (*count of them): the sum
 * of P_H(leave), or with gap the sum of |P_H(leave) - the uniform draw's|. */
static double leave_sum(const NnModel *m, NnBatch *b, int i, const Rack *pool, Rack *leave, int from, int size,
                        bool gap, int *count) {
    if (leave->total == size) {
        (*count)++;
        double p = exp(nn_hidden_logprob(m, b, i, leave));
        return gap ? fabs(p - uniform_draw(pool, leave, m->fs.letters + 1)) : p;
    }
    double sum = 0;
    for (int l = from; l < m->fs.letters + 1; l++) {
        if (leave->count[l] >= pool->count[l]) continue;
        rack_add(leave, (uint8_t)l);
        sum += leave_sum(m, b, i, pool, leave, l, size, gap, count);
        rack_remove(leave, (uint8_t)l);
    }
    return sum;
}

static void test_hidden_normalised(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    for (int t = 1; t <= 2; t++) {
        NnModel m;
        NnArch arch = small_arch(t);
        CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 4, &err) == 0);
        CU_ASSERT_EQUAL(m.h_outputs, t == 1 ? 27 : 729);
        shake(&m, 5);
        NnBatch b;
        CU_ASSERT_FATAL(nn_batch_init(&b, &m, &w.fc, 1, &err) == 0);
        /* a late position: a smaller pool */
        nn_batch_set(&b, &m, 0, &w.set.s[w.set.n - 3].pos);
        nn_forward_trunk(&m, &b, 1);
        Rack pool, leave;
        CU_ASSERT_FATAL(position_unseen(&b.pos[0], &w.ld, &pool) == 0);
        for (int size = 1; size <= 3; size++) {
            rack_clear(&leave);
            int n = 0;
            double mass = leave_sum(&m, &b, 0, &pool, &leave, 0, size, false, &n);
            CU_ASSERT_DOUBLE_EQUAL(mass, 1.0, 1e-3);
        }
        Rng rng;
        rng_seed(&rng, 9);
        for (int d = 0; d < 50; d++) {
            int size = 1 + d % 5;
            if (size > pool.total) continue;
            CU_ASSERT_EQUAL_FATAL(nn_hidden_sample(&m, &b, 0, size, &rng, &leave), 0);
            CU_ASSERT_EQUAL(leave.total, size);
            for (int l = 0; l < 27; l++) CU_ASSERT_TRUE(leave.count[l] <= pool.count[l]);
            CU_ASSERT_TRUE(isfinite(nn_hidden_logprob(&m, &b, 0, &leave)));
        }
        nn_batch_free(&b);
        nn_model_free(&m);
    }
    world_close(&w);
}

/* H's pool prior (arch.h_pool_prior): with every weight zero, H is exactly
 * the uniform draw from the unseen pool, for every leave of 1-3 tiles of two
 * middle-game pools and random leaves of 1-7 tiles of a third of the
 * positions, with 1 and 2 tiles a step; without the prior a zero net is not
 * (it draws each next letter alike). */
static void test_hidden_pool_prior(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    for (int t = 1; t <= 2; t++) {
        for (int with = 0; with <= 1; with++) {
            NnModel m;
            NnArch arch = small_arch(t);
            arch.h_pool_prior = with;
            CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 4, &err) == 0);
            memset(m.params.w, 0, m.params.total * sizeof *m.params.w);
            NnBatch b;
            CU_ASSERT_FATAL(nn_batch_init(&b, &m, &w.fc, 1, &err) == 0);
            Rack pool, leave;
            /* the first two positions whose pools have 12-60 tiles, some of them
             * repeated: where the weight of another copy of the last letter drawn
             * matters */
            int used = 0;
            for (size_t at = 0; at < w.set.n && used < 2; at++) {
                nn_batch_set(&b, &m, 0, &w.set.s[at].pos);
                nn_forward_trunk(&m, &b, 1);
                CU_ASSERT_FATAL(position_unseen(&b.pos[0], &w.ld, &pool) == 0);
                int repeated = 0;
                for (int l = 0; l < 27; l++) repeated += pool.count[l] >= 2;
                if (pool.total < 12 || pool.total > 60 || repeated == 0) continue;
                used++;
                for (int size = 1; size <= 3; size++) {
                    int n = 0;
                    rack_clear(&leave);
                    double gap = leave_sum(&m, &b, 0, &pool, &leave, 0, size, true, &n);
                    CU_ASSERT_TRUE(n > 0);
                    if (with) CU_ASSERT_DOUBLE_EQUAL(gap, 0.0, 1e-5);
                    if (!with && size >= 2) CU_ASSERT_TRUE(gap > 1e-3);
                }
            }
            CU_ASSERT_EQUAL(used, 2);
            Rng rng;
            rng_seed(&rng, 17);
            int worst_ok = 1;
            for (size_t s = 0; s < w.set.n; s += 3) {
                nn_batch_set(&b, &m, 0, &w.set.s[s].pos);
                nn_forward_trunk(&m, &b, 1);
                CU_ASSERT_FATAL(position_unseen(&b.pos[0], &w.ld, &pool) == 0);
                int size = 1 + (int)rng_below(&rng, RK_RACK_SIZE);
                if (size > pool.total) continue;
                CU_ASSERT_EQUAL_FATAL(nn_hidden_sample(&m, &b, 0, size, &rng, &leave), 0);
                double want = uniform_draw(&pool, &leave, m.fs.letters + 1);
                double got = exp(nn_hidden_logprob(&m, &b, 0, &leave));
                if (with && fabs(got - want) > 1e-4 * want) worst_ok = 0;
            }
            CU_ASSERT_TRUE(worst_ok);
            nn_batch_free(&b);
            nn_model_free(&m);
        }
    }
    world_close(&w);
}

/* Batch invariance (nn/forward.h): a position's value, sub-move logits and move
 * log-probabilities are bit for bit the same alone, at another slot of a
 * smaller batch, and in a full batch. A net large enough for the BLAS
 * kernels' blocking to matter (32 channels, 2 blocks). */
typedef struct Outputs {
    float vout[4];
    float *sub;
    double *logp;
    int n;
} Outputs;

static void outputs_take(const NnModel *m, NnBatch *b, int i, Outputs *o) {
    size_t per = (size_t)m->ps.submoves;
    memcpy(o->vout, b->vout + (size_t)i * 4, sizeof o->vout);
    o->sub = malloc(per * sizeof(float));
    memcpy(o->sub, b->sub + (size_t)i * per, per * sizeof(float));
    o->n = b->legal[i].n;
    o->logp = malloc((size_t)o->n * sizeof(double));
    CU_ASSERT_EQUAL(nn_policy_all(m, b, i, o->logp), o->n);
}

static bool outputs_same(const NnModel *m, const Outputs *a, const Outputs *b) {
    return memcmp(a->vout, b->vout, sizeof a->vout) == 0 &&
           memcmp(a->sub, b->sub, (size_t)m->ps.submoves * sizeof(float)) == 0 && a->n == b->n &&
           memcmp(a->logp, b->logp, (size_t)a->n * sizeof(double)) == 0;
}

static void test_batch_invariance(void) {
    World w;
    if (!world_open(&w)) return;
    NnModel m;
    RkError err;
    NnArch arch = {.channels = 32, .blocks = 2, .embed = 32, .head_hidden = 32, .h_tiles = 1};
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 5, &err) == 0);
    shake(&m, 9);
    enum { N = 7 };
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &w.fc, N, &err) == 0);
    Outputs full[N], alone, mixed;
    for (int i = 0; i < N; i++) nn_batch_set(&b, &m, i, &w.set.s[(size_t)i * 4 + 1].pos);
    nn_forward_trunk(&m, &b, N);
    nn_forward_value(&m, &b, N);
    nn_forward_submoves(&m, &b, N);
    for (int i = 0; i < N; i++) outputs_take(&m, &b, i, &full[i]);
    int same = 0;
    for (int i = 0; i < N; i++) {
        nn_batch_set(&b, &m, 0, &w.set.s[(size_t)i * 4 + 1].pos);
        nn_forward_trunk(&m, &b, 1);
        nn_forward_value(&m, &b, 1);
        nn_forward_submoves(&m, &b, 1);
        outputs_take(&m, &b, 0, &alone);
        /* slot 2 of 3, with two other positions around it */
        nn_batch_set(&b, &m, 0, &w.set.s[40].pos);
        nn_batch_set(&b, &m, 1, &w.set.s[41].pos);
        nn_batch_set(&b, &m, 2, &w.set.s[(size_t)i * 4 + 1].pos);
        nn_forward_trunk(&m, &b, 3);
        nn_forward_value(&m, &b, 3);
        nn_forward_submoves(&m, &b, 3);
        outputs_take(&m, &b, 2, &mixed);
        same += outputs_same(&m, &full[i], &alone) && outputs_same(&m, &full[i], &mixed);
        free(alone.sub), free(alone.logp), free(mixed.sub), free(mixed.logp);
    }
    CU_ASSERT_EQUAL(same, N);
    for (int i = 0; i < N; i++) free(full[i].sub), free(full[i].logp);
    nn_batch_free(&b);
    nn_model_free(&m);
    world_close(&w);
}

/* Feature version 3 is version 2 plus the opponent's last move: on every
 * sample position, the first planes and scalars are version 2's; the
 * extra plane is 1 exactly on the squares that hold a tile now and did not
 * in the same game's previous position, and the five scalars say what the
 * move was (the score from the two positions' scores), then the count of
 * each tile it placed (read from those new squares). A v3 model's value
 * sees the move: the same position with and without it differs. */
static void test_features_v3(void) {
    World w;
    if (!world_open(&w)) return;
    NnFeatureContext fc2 = w.fc, fc3 = w.fc;
    fc2.shape = nn_feature_shape(&w.ld, 15, 2);
    fc3.shape = nn_feature_shape(&w.ld, 15, 3);
    const NnFeatureShape *s2 = &fc2.shape, *s3 = &fc3.shape;
    CU_ASSERT(s3->planes == s2->planes + 1 && s3->scalars == s2->scalars + 5 + s2->letters + 1);
    size_t sq = (size_t)s2->squares;
    float *p2 = malloc(sizeof(float) * sq * (size_t)s2->planes), *p3 = malloc(sizeof(float) * sq * (size_t)s3->planes);
    float *x2 = malloc(sizeof(float) * (size_t)s2->scalars), *x3 = malloc(sizeof(float) * (size_t)s3->scalars);
    Board b;
    NnLegal lg;
    nn_legal_init(&lg);
    MoveList all;
    movelist_init(&all);
    int checked = 0, placements = 0;
    for (size_t i = 0; i < w.set.n; i++) {
        const ShardSample *smp = &w.set.s[i], *prev = i > 0 ? &w.set.s[i - 1] : NULL;
        bool has_prev = prev != NULL && prev->game == smp->game && prev->turn + 1 == smp->turn;
        CU_ASSERT(smp->pos.last_known == has_prev);
        nn_features(&fc2, &smp->pos, p2, x2, &b, &lg, &all);
        nn_features(&fc3, &smp->pos, p3, x3, &b, &lg, &all);
        bool same = true;
        int marked = 0, fresh = 0, placed[RK_MAX_LETTERS] = {0};
        for (size_t q = 0; q < sq; q++) {
            same &= memcmp(p2 + q * (size_t)s2->planes, p3 + q * (size_t)s3->planes, sizeof(float) * (size_t)s2->planes) == 0;
            float mark = p3[q * (size_t)s3->planes + (size_t)s2->planes];
            bool is_fresh = has_prev && prev->pos.board[q] == 0 && smp->pos.board[q] != 0;
            CU_ASSERT(mark == (is_fresh ? 1.0f : 0.0f));
            marked += mark == 1.0f;
            fresh += is_fresh;
            if (is_fresh) placed[RK_IS_BLANKED(smp->pos.board[q]) ? 0 : RK_LETTER(smp->pos.board[q])]++;
        }
        CU_ASSERT(same);
        CU_ASSERT(memcmp(x2, x3, sizeof(float) * (size_t)s2->scalars) == 0);
        const float *e = x3 + s2->scalars;
        CU_ASSERT(e[0] == (has_prev ? 1.0f : 0.0f));
        if (has_prev && prev->played.kind == MOVE_PLACE) {
            CU_ASSERT(marked == prev->played.n && fresh == prev->played.n);
            CU_ASSERT(fabsf(e[1] - (float)prev->played.n / 7.0f) < 1e-6f);
            CU_ASSERT(fabsf(e[2] - (float)(smp->pos.score_opp - prev->pos.score_self) / 100.0f) < 1e-6f);
            CU_ASSERT(e[3] == 0.0f && e[4] == 0.0f);
            for (int l = 0; l <= s2->letters; l++) CU_ASSERT(e[5 + l] == (float)placed[l]);
            placements++;
        } else if (has_prev) {
            CU_ASSERT(e[1] == 0.0f && e[2] == 0.0f);
            CU_ASSERT(e[3] == (prev->played.kind == MOVE_EXCHANGE ? (float)prev->played.n / 7.0f : 0.0f));
            CU_ASSERT(e[4] == (prev->played.kind == MOVE_PASS ? 1.0f : 0.0f));
        } else {
            for (int k = 1; k < 5; k++) CU_ASSERT(e[k] == 0.0f);
        }
        if (!(has_prev && prev->played.kind == MOVE_PLACE))
            for (int l = 0; l <= s2->letters; l++) CU_ASSERT(e[5 + l] == 0.0f);
        checked++;
    }
    CU_ASSERT(checked > 30 && placements > 20);
    /* a v3 model's value reads the last move */
    NnModel m;
    RkError err;
    NnArch arch = small_arch(1);
    arch.feature_version = 3;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 5, &err) == 0);
    CU_ASSERT(m.fs.version == 3 && m.fs.planes == s3->planes && m.fs.scalars == s3->scalars);
    shake(&m, 11);
    NnBatch nb;
    CU_ASSERT_FATAL(nn_batch_init(&nb, &m, &w.fc, 2, &err) == 0);
    Position with = w.set.s[5].pos, without = with;
    CU_ASSERT(with.last_known);
    without.last_known = false;
    nn_batch_set(&nb, &m, 0, &with);
    nn_batch_set(&nb, &m, 1, &without);
    nn_forward_trunk(&m, &nb, 2);
    nn_forward_value(&m, &nb, 2);
    CU_ASSERT(memcmp(nb.vout, nb.vout + 4, 4 * sizeof(float)) != 0);
    nn_batch_free(&nb);
    nn_model_free(&m);
    arch.feature_version = 4;
    CU_ASSERT(nn_model_init(&m, &arch, &w.ld, 15, 5, &err) == -1 && strstr(err.msg, "feature version 4") != NULL);
    free(p2), free(p3), free(x2), free(x3);
    movelist_free(&all);
    nn_legal_free(&lg);
    world_close(&w);
}

static double chunk_loss(NnModel *m, NnBatch *b, NnGradScratch *g, const ShardSet *set, const size_t *idx, int n,
                         const NnLossOptions *lo) {
    NnLossSums s = {0};
    nn_chunk_losses(m, b, g, set, idx, n, 1.0f, lo, false, &s);
    return s.wdl + s.spread + s.sub + s.steps + s.hidden;
}

/* With product = true: the product loss (K = 256), on a model whose prior is
 * static equity with random leaves. */
static void gradient_check(int t, bool product) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    NnArch arch = small_arch(t);
    arch.prior_equity = product;
    arch.h_pool_prior = t == 2; /* H's offsets are constants of the loss: t = 2 checks them */
    Klv klv;
    NnFeatureContext fc = context_with_leaves(&w, &klv, product);
    NnLossOptions lo = nn_loss_options_default();
    /* K large enough for exchanges: only candidates' sub-moves get a gradient (the loss does not
     * depend on the others: their share of the softmax's normaliser cancels in q) */
    if (product) lo.policy_loss = NN_POLICY_LOSS_PRODUCT, lo.product_candidates = NN_PRODUCT_MAX;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 7, &err) == 0);
    CU_ASSERT_FATAL(nn_loss_options_check(&lo, &m, &err) == 0);
    Rng rng;
    rng_seed(&rng, 8);
    for (int i = 0; i < m.params.count; i++) nnp_fill_normal(&m.params, i, 0.15f, &rng);
    NnBatch b;
    NnGradScratch g;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 3, &err) == 0);
    CU_ASSERT_FATAL(nn_grad_scratch_init(&g, &m, 3, &err) == 0);
    size_t idx[3] = {3, 12, 24};
    for (int i = 0; i < 3; i++) CU_ASSERT_TRUE(w.set.s[idx[i]].opp_leave_known && w.set.s[idx[i]].opp_leave.total > 0);
    nnp_zero_grad(&m.params);
    NnLossSums s = {0};
    nn_chunk_losses(&m, &b, &g, &w.set, idx, 3, 1.0f, &lo, true, &s);
    CU_ASSERT_TRUE(s.hidden_samples == 3 && s.sub > 0 && s.wdl > 0 && s.policy_samples == 3);
    CU_ASSERT_TRUE(product ? s.steps == 0 : s.steps > 0); /* the product loss is all in sub */
    float *grad = malloc(m.params.total * sizeof(float));
    memcpy(grad, m.params.g, m.params.total * sizeof(float));
    int checked = 0, bad = 0;
    for (int ti = 0; ti < m.params.count; ti++) {
        const NnParam *p = &m.params.p[ti];
        float gmax = 0;
        size_t top = 0;
        for (size_t k = 0; k < p->n; k++)
            if (fabsf(grad[p->offset + k]) > gmax) gmax = fabsf(grad[p->offset + k]), top = k;
        CU_ASSERT_TRUE(gmax > 0); /* every tensor gets a gradient */
        size_t which[3] = {top, (size_t)rng_below(&rng, p->n), (size_t)rng_below(&rng, p->n)};
        for (int q = 0; q < 3; q++) {
            size_t at = p->offset + which[q];
            float keep = m.params.w[at];
            const float eps = 2e-3f;
            m.params.w[at] = keep + eps;
            double up = chunk_loss(&m, &b, &g, &w.set, idx, 3, &lo);
            m.params.w[at] = keep - eps;
            double down = chunk_loss(&m, &b, &g, &w.set, idx, 3, &lo);
            m.params.w[at] = keep;
            double fd = (up - down) / (2.0 * eps), an = grad[at];
            bool ok = fabs(fd - an) <= 0.03 * fabs(an) + 0.02 * gmax + 1e-3;
            if (!ok) {
                printf("\n  %s[%zu]: finite difference %.6g, backward %.6g", p->name, which[q], fd, an);
                bad++;
            }
            checked++;
        }
    }
    /* a ReLU kink between w - eps and w + eps can spoil an odd difference */
    CU_ASSERT_TRUE(bad * 20 <= checked);
    CU_ASSERT_TRUE(checked >= 3 * 20);
    free(grad);
    nn_grad_scratch_free(&g);
    nn_batch_free(&b);
    nn_model_free(&m);
    klv_free(&klv);
    world_close(&w);
}

static void test_gradients_t1(void) { gradient_check(1, false); }
static void test_gradients_t2(void) { gradient_check(2, false); }
static void test_gradients_product(void) { gradient_check(1, true); }

/* nn.value_weight w: V's head gets w times the gradient, the policy and H
 * heads the same as with w = 1 (their losses are not scaled). */
static void test_value_weight_scales_v_gradient(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    NnArch arch = small_arch(1);
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 7, &err) == 0);
    Rng rng;
    rng_seed(&rng, 8);
    for (int i = 0; i < m.params.count; i++) nnp_fill_normal(&m.params, i, 0.15f, &rng);
    NnBatch b;
    NnGradScratch g;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &w.fc, 3, &err) == 0);
    CU_ASSERT_FATAL(nn_grad_scratch_init(&g, &m, 3, &err) == 0);
    size_t idx[3] = {3, 12, 24};
    float *grad[2];
    const float weight[2] = {1.0f, 3.0f};
    for (int k = 0; k < 2; k++) {
        NnLossOptions lo = nn_loss_options_default();
        lo.value_weight = weight[k];
        CU_ASSERT_FATAL(nn_loss_options_check(&lo, &m, &err) == 0);
        nnp_zero_grad(&m.params);
        NnLossSums s = {0};
        nn_chunk_losses(&m, &b, &g, &w.set, idx, 3, 1.0f, &lo, true, &s);
        grad[k] = malloc(m.params.total * sizeof(float));
        memcpy(grad[k], m.params.g, m.params.total * sizeof(float));
    }
    const int v_tensors[2] = {m.v_out.w, m.v_out.b}, other[3] = {m.step_out.w, m.h_out.w, m.sub_sq.w};
    for (int t = 0; t < 2; t++) {
        const NnParam *p = &m.params.p[v_tensors[t]];
        int bad = 0, nonzero = 0;
        for (size_t i = 0; i < p->n; i++) {
            float a = grad[0][p->offset + i], c = grad[1][p->offset + i];
            bad += fabsf(c - 3.0f * a) > 1e-5f * (1.0f + fabsf(c));
            nonzero += a != 0.0f;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(nonzero > 0);
    }
    for (int t = 0; t < 3; t++) {
        const NnParam *p = &m.params.p[other[t]];
        CU_ASSERT(memcmp(grad[0] + p->offset, grad[1] + p->offset, p->n * sizeof(float)) == 0);
    }
    NnLossOptions lo = nn_loss_options_default();
    lo.value_weight = 0.0f;
    CU_ASSERT(nn_loss_options_check(&lo, &m, &err) != 0);
    CU_ASSERT(strstr(err.msg, "value_weight") != NULL);
    free(grad[0]), free(grad[1]);
    nn_grad_scratch_free(&g);
    nn_batch_free(&b);
    nn_model_free(&m);
    world_close(&w);
}

/* Whether legal move j of lg is one of the product loss's candidates: one
 * of the K highest priors (the earlier on a tie) other than the pass, or a
 * move of the target.
 * Counted the slow way, as an oracle of the trainer's selection. */
static bool is_candidate(const NnModel *m, const NnLegal *lg, int j, int K, const ShardSet *set,
                         const ShardSample *s) {
    int above = 0, pass = m->ps.submoves - 1;
    for (int k = 0; k < lg->n; k++)
        above += lg->m[k].submove != pass &&
                 (lg->m[k].prior > lg->m[j].prior || (lg->m[k].prior == lg->m[j].prior && k < j));
    if (above < K && lg->m[j].submove != pass) return true;
    for (uint32_t t = 0; t < s->policy_count; t++)
        if (set->pprob[s->policy_start + t] > 0 && nn_legal_find(lg, &m->ps, &set->pmove[s->policy_start + t]) == j)
            return true;
    return false;
}

/* The product loss of position i of b (after the forward passes) computed
 * from nn_policy_all's log P of every legal move: -sum t log q, q =
 * softmax(log P + prior / T) over the candidates. *best gets the candidate
 * of the highest q. */
static double product_loss_oracle(const NnModel *m, NnBatch *b, int i, const ShardSet *set, const ShardSample *s,
                                  const NnLossOptions *lo, int *best) {
    const NnLegal *lg = &b->legal[i];
    double *x = malloc((size_t)lg->n * sizeof *x), *t = calloc((size_t)lg->n, sizeof *t);
    nn_policy_all(m, b, i, x);
    double mass = 0, mx = -INFINITY, z = 0, loss = 0;
    for (uint32_t k = 0; k < s->policy_count; k++) {
        int j = nn_legal_find(lg, &m->ps, &set->pmove[s->policy_start + k]);
        if (j >= 0 && set->pprob[s->policy_start + k] > 0) t[j] += set->pprob[s->policy_start + k], mass += set->pprob[s->policy_start + k];
    }
    *best = -1;
    for (int j = 0; j < lg->n; j++) {
        if (!is_candidate(m, lg, j, lo->product_candidates, set, s)) {
            x[j] = -INFINITY;
            continue;
        }
        x[j] += lg->m[j].prior / lo->product_temperature;
        if (x[j] > mx) mx = x[j], *best = j;
    }
    for (int j = 0; j < lg->n; j++)
        if (isfinite(x[j])) z += exp(x[j] - mx);
    for (int j = 0; j < lg->n; j++)
        if (t[j] > 0) loss -= t[j] / mass * (x[j] - mx - log(z));
    free(x), free(t);
    return loss;
}

/* The product loss equals the oracle's, for a few and for all candidates;
 * its options are checked, and it refuses a model whose prior is the score. */
static void test_product_loss(void) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    Klv klv;
    NnFeatureContext fc = context_with_leaves(&w, &klv, true);
    NnArch arch = small_arch(1);
    arch.prior_equity = 1;
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 13, &err) == 0);
    shake(&m, 14);
    enum { N = 5 };
    NnBatch b;
    NnGradScratch g;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, N, &err) == 0);
    CU_ASSERT_FATAL(nn_grad_scratch_init(&g, &m, N, &err) == 0);
    size_t idx[N] = {1, 6, 13, 22, 29};
    int Ks[3] = {1, 4, NN_PRODUCT_MAX};
    for (int q = 0; q < 3; q++) {
        NnLossOptions lo = nn_loss_options_default();
        lo.policy_loss = NN_POLICY_LOSS_PRODUCT, lo.product_candidates = Ks[q], lo.product_temperature = 7.0f;
        NnLossSums sums = {0};
        nn_chunk_losses(&m, &b, &g, &w.set, idx, N, 1.0f, &lo, false, &sums);
        double want = 0;
        int best;
        for (int i = 0; i < N; i++) want += product_loss_oracle(&m, &b, i, &w.set, &w.set.s[idx[i]], &lo, &best);
        printf("(K %d: %.5f, oracle %.5f) ", Ks[q], sums.sub, want);
        CU_ASSERT_TRUE(want > 0);
        CU_ASSERT_TRUE(fabs(sums.sub - want) <= 1e-3 * want + 1e-4);
        CU_ASSERT_EQUAL(sums.policy_samples, N);
    }
    /* bad options */
    NnLossOptions lo = nn_loss_options_default();
    lo.policy_loss = NN_POLICY_LOSS_PRODUCT;
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &m, &err), 0);
    lo.product_candidates = 0;
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "product_candidates"));
    lo.product_candidates = 8, lo.product_temperature = 0.0f;
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "product_temperature"));
    lo.product_temperature = 10.0f, lo.search_weight = 1.5f;
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &m, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "value_search_weight"));
    NnModel score;
    NnArch sarch = small_arch(1);
    CU_ASSERT_FATAL(nn_model_init(&score, &sarch, &w.ld, 15, 13, &err) == 0);
    lo.search_weight = 0.0f;
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &score, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nn.prior = equity"));
    lo.policy_loss = NN_POLICY_LOSS_DIRECT; /* the direct loss takes either */
    CU_ASSERT_EQUAL(nn_loss_options_check(&lo, &score, &err), 0);
    nn_model_free(&score);
    nn_grad_scratch_free(&g);
    nn_batch_free(&b);
    nn_model_free(&m);
    klv_free(&klv);
    world_close(&w);
}

/* A small model overfits a few samples: the loss falls, and the move it
 * ranks first is the target's. With product = true the loss is the product
 * loss (equity prior, random leaves) and "ranks first" is among the
 * candidates by log P + equity / T, as the search's prior ranks them. */
static void overfit(bool product) {
    World w;
    if (!world_open(&w)) return;
    RkError err;
    NnModel m;
    NnArch arch = {.channels = 16, .blocks = 1, .embed = 32, .head_hidden = 32, .h_tiles = 1, .prior_equity = product};
    Klv klv;
    NnFeatureContext fc = context_with_leaves(&w, &klv, product);
    NnLossOptions lo = nn_loss_options_default();
    if (product) lo.policy_loss = NN_POLICY_LOSS_PRODUCT;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &w.ld, 15, 11, &err) == 0);
    enum { N = 6 };
    NnBatch b;
    NnGradScratch g;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, N, &err) == 0);
    CU_ASSERT_FATAL(nn_grad_scratch_init(&g, &m, N, &err) == 0);
    size_t idx[N] = {2, 7, 11, 16, 21, 26};
    NnAdam adam = nn_adam_default();
    adam.lr = 3e-3f;
    adam.weight_decay = 0;
    /* the policy loss is a cross-entropy with soft targets: it falls toward their entropy */
    double entropy = 0;
    for (int i = 0; i < N; i++) {
        const ShardSample *s = &w.set.s[idx[i]];
        double mass = 0;
        for (uint32_t j = 0; j < s->policy_count; j++) mass += w.set.pprob[s->policy_start + j];
        for (uint32_t j = 0; j < s->policy_count; j++) {
            double t = w.set.pprob[s->policy_start + j] / mass;
            if (t > 0) entropy -= t * log(t) / N;
        }
    }
    /* up to 250 steps, stopping once well past what is asserted below (a
     * fifth of the loss, a twentieth of the policy's gap to the entropy):
     * the sanitizer build runs each step about 20 times slower */
    double first = 0, last = 0, pfirst = 0, plast = 0;
    int steps = 0;
    for (int step = 1; step <= 250; step++) {
        nnp_zero_grad(&m.params);
        NnLossSums s = {0};
        nn_chunk_losses(&m, &b, &g, &w.set, idx, N, 1.0f / N, &lo, true, &s);
        CU_ASSERT_TRUE_FATAL(nnp_grads_finite(&m.params));
        nn_adam_step(&m.params, &adam, step);
        if (step == 1) first = nn_loss_total(&s), pfirst = nn_loss_policy(&s);
        last = nn_loss_total(&s), plast = nn_loss_policy(&s);
        steps = step;
        if (step > 1 && last < 0.2 * first && plast - entropy < 0.05 * (pfirst - entropy)) break;
    }
    printf("(%d steps: loss %.3f -> %.3f, policy %.3f -> %.3f, target entropy %.3f) ", steps, first, last, pfirst, plast,
           entropy);
    CU_ASSERT_TRUE(last < 0.25 * first);
    CU_ASSERT_TRUE(plast - entropy < 0.25 * (pfirst - entropy));
    /* the most probable move is the target's most probable one */
    nn_forward_trunk(&m, &b, N);
    nn_forward_submoves(&m, &b, N);
    int agree = 0;
    for (int i = 0; i < N; i++) {
        const ShardSample *s = &w.set.s[idx[i]];
        double *lp = malloc((size_t)b.legal[i].n * sizeof *lp);
        nn_policy_all(&m, &b, i, lp);
        int best = 0;
        for (int j = 1; j < b.legal[i].n; j++)
            if (lp[j] > lp[best]) best = j;
        if (product) product_loss_oracle(&m, &b, i, &w.set, s, &lo, &best);
        int want = nn_legal_find(&b.legal[i], &m.ps, &w.set.pmove[s->policy_start]);
        /* ties in the target: any move of the top probability counts */
        for (uint32_t j = 0; j < s->policy_count; j++)
            if (w.set.pprob[s->policy_start + j] == w.set.pprob[s->policy_start] &&
                nn_legal_find(&b.legal[i], &m.ps, &w.set.pmove[s->policy_start + j]) == best)
                want = best;
        agree += best == want;
        free(lp);
    }
    CU_ASSERT_TRUE(agree >= N - 1);
    nn_grad_scratch_free(&g);
    nn_batch_free(&b);
    nn_model_free(&m);
    klv_free(&klv);
    world_close(&w);
}

static void test_overfit(void) { overfit(false); }
static void test_overfit_product(void) { overfit(true); }

/* ------------------------------------------------------------ nn_evaluate's P figures */

static double lse(const double *x, int n) {
    double mx = -INFINITY, sum = 0.0;
    for (int j = 0; j < n; j++) mx = x[j] > mx ? x[j] : mx;
    for (int j = 0; j < n; j++) sum += exp(x[j] - mx);
    return mx + log(sum);
}

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* nn_evaluate's P figures (nn/heldout.h) against an oracle that takes other
 * paths: the legal moves and their equities from movegen_all with the
 * leaves (not the features' list), each move's log P alone
 * (nn_policy_logprob, the trainer's path, not nn_policy_all), and the
 * formulas written out: top-1 of P, of static equity and of P x static over
 * the candidates (equity's top NN_EVAL_CANDIDATES and the target's moves);
 * the cross-entropies with the target of P, of softmax(equity / T) over
 * every legal move and over the candidates, and of P x static. Samples with
 * a tie at the candidates' boundary are left out (both sides break it, in
 * different move orders). */
static void test_eval_policy_oracle(void) {
    World w;
    if (!world_open(&w)) return;
    NnModel m;
    RkError err;
    Klv klv;
    NnFeatureContext fc = shaken_model(&w, &m, &klv, true, 5, 9);
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 1, &err) == 0);
    MoveList ml;
    movelist_init(&ml);
    size_t *tidx = malloc(w.set.n * sizeof *tidx), *eidx = malloc(w.set.n * sizeof *eidx), en = 0;
    enum { P_TOP1, P_CE, S_TOP1, S_CE, SC_CE, PS_TOP1, PS_CE, FIGURES };
    double want[FIGURES] = {0};
    int multi = 0, off_best = 0;
    const double T = NN_EVAL_STATIC_T;
    /* per game: P top-1 hits and positions, for the bootstrap's standard error */
    uint64_t *gid = calloc(w.set.n, sizeof *gid);
    double *ghit = calloc(w.set.n, sizeof *ghit), *gn = calloc(w.set.n, sizeof *gn);
    size_t ngames = 0;
    CU_ASSERT_FATAL(gid != NULL && ghit != NULL && gn != NULL);
    for (size_t i = 0; i < w.set.n; i++) {
        tidx[i] = i;
        const ShardSample *s = &w.set.s[i];
        if (s->policy_count == 0) continue;
        Board board;
        position_board(&s->pos, &w.lay, &w.ld, &w.kwg, &board);
        Rack pool;
        CU_ASSERT_FATAL(position_unseen(&s->pos, &w.ld, &pool) == 0);
        MoveGenRequest req = {.board = &board, .rack = &s->pos.rack, .bag_count = s->pos.bag,
                              .exchanges_allowed = exchange_allowed(s->pos.bag, s->pos.opp_tiles),
                              .opp_rack_score = s->pos.bag == 0 ? rack_score(&pool, &w.ld) : 0,
                              .leave_value = klv_leave_value, .leave_ctx = &klv};
        movegen_all(&req, &ml);
        int n = (int)ml.count;
        double *eq = malloc((size_t)n * 5 * sizeof *eq), *lp = eq + n, *x = eq + 2 * n, *xc = eq + 3 * n,
               *sorted = eq + 4 * n;
        double worst = INFINITY;
        for (int k = 0; k < n; k++) {
            eq[k] = ml.moves[k].equity / 1000.0;
            if (eq[k] > -100000.0 && eq[k] < worst) worst = eq[k];
        }
        for (int k = 0; k < n; k++) /* a pass: the worst other move less T */
            if (eq[k] <= -100000.0) eq[k] = isfinite(worst) ? worst - T : 0.0;
        memcpy(sorted, eq, (size_t)n * sizeof *eq);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_desc);
        if (n > NN_EVAL_CANDIDATES && sorted[NN_EVAL_CANDIDATES - 1] == sorted[NN_EVAL_CANDIDATES]) {
            free(eq);
            continue;
        }
        eidx[en++] = i;
        nn_batch_set(&b, &m, 0, &s->pos);
        nn_forward_trunk(&m, &b, 1);
        nn_forward_submoves(&m, &b, 1);
        PackedMove *pm = malloc((size_t)n * sizeof *pm);
        int played = -1;
        for (int k = 0; k < n; k++) {
            packed_from_move(&pm[k], &ml.moves[k], &board);
            lp[k] = nn_policy_logprob(&m, &b, 0, &pm[k]);
            if (packed_equal(&pm[k], &s->played)) played = k;
        }
        CU_ASSERT_FATAL(played >= 0);
        /* the target over the legal moves, and the candidates */
        double *tw = calloc((size_t)n, sizeof *tw), tsum = 0.0;
        for (uint32_t t = 0; t < s->policy_count; t++)
            for (int k = 0; k < n; k++)
                if (packed_equal(&pm[k], &w.set.pmove[s->policy_start + t])) tw[k] += w.set.pprob[s->policy_start + t];
        for (int k = 0; k < n; k++) tsum += tw[k];
        CU_ASSERT_FATAL(tsum > 0.0);
        multi += s->policy_count > 1;
        int pbest = 0, psbest = -1;
        for (int k = 0; k < n; k++) {
            bool cand = (n <= NN_EVAL_CANDIDATES || eq[k] >= sorted[NN_EVAL_CANDIDATES - 1]) || tw[k] > 0.0;
            x[k] = eq[k] / T;
            xc[k] = cand ? x[k] : -INFINITY;
            if (lp[k] > lp[pbest]) pbest = k;
            if (cand && (psbest < 0 || lp[k] + x[k] > lp[psbest] + x[psbest])) psbest = k;
        }
        want[P_TOP1] += pbest == played;
        size_t gi = 0;
        while (gi < ngames && gid[gi] != s->game) gi++;
        if (gi == ngames) gid[ngames++] = s->game;
        ghit[gi] += pbest == played, gn[gi] += 1.0;
        want[S_TOP1] += eq[played] >= sorted[0];
        want[PS_TOP1] += psbest == played;
        off_best += eq[played] < sorted[0];
        double ls = lse(x, n), lc = lse(xc, n);
        for (int k = 0; k < n; k++) xc[k] = isfinite(xc[k]) ? xc[k] + lp[k] : -INFINITY;
        double lps = lse(xc, n);
        for (int k = 0; k < n; k++) {
            if (tw[k] <= 0.0) continue;
            double q = tw[k] / tsum;
            want[P_CE] -= q * lp[k];
            want[S_CE] -= q * (x[k] - ls);
            want[SC_CE] -= q * (x[k] - lc);
            want[PS_CE] -= q * (xc[k] - lps);
        }
        free(tw);
        free(pm);
        free(eq);
    }
    CU_ASSERT_FATAL(en >= 20);
    CU_ASSERT(multi >= 10 && off_best >= 1); /* targets of several moves; a played move that is not static's best */
    for (int f = 0; f < FIGURES; f++) want[f] /= (double)en;
    NnEvalReport rep;
    CU_ASSERT_FATAL(nn_evaluate(&m, &fc, &w.set, tidx, w.set.n, &w.set, eidx, en, klv_leave_value, &klv, &rep, &err) == 0);
    CU_ASSERT_EQUAL(rep.p_positions, en);
    CU_ASSERT(rep.has_static);
    CU_ASSERT_DOUBLE_EQUAL(rep.p_top1, want[P_TOP1], 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rep.static_top1, want[S_TOP1], 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rep.p_static_top1, want[PS_TOP1], 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rep.p_ce, want[P_CE], 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(rep.static_ce, want[S_CE], 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(rep.static_cand_ce, want[SC_CE], 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(rep.p_static_ce, want[PS_CE], 1e-4);
    /* the standard error over games: the bootstrap's against the delta method's
     * sqrt(sum_g (hits_g - r n_g)^2) / N for the ratio r = hits / N; 400 resamples
     * put the bootstrap within about 10% of it */
    CU_ASSERT_EQUAL(rep.games, ngames);
    CU_ASSERT_FATAL(ngames >= 2);
    double dev = 0.0;
    for (size_t g = 0; g < ngames; g++) dev += (ghit[g] - rep.p_top1 * gn[g]) * (ghit[g] - rep.p_top1 * gn[g]);
    double delta_se = sqrt(dev) / (double)en;
    printf("\n    P top-1 standard error over %zu games: bootstrap %.4f, delta method %.4f", ngames, rep.p_top1_se,
           delta_se);
    CU_ASSERT(rep.p_top1_se > 0.0 && fabs(rep.p_top1_se - delta_se) < 0.3 * delta_se);
    CU_ASSERT(rep.v_brier_se > 0.0 && isfinite(rep.v_brier_diff_se) && rep.h_nll_diff_se >= 0.0);
    free(gid), free(ghit), free(gn);
    printf("\n    %zu positions: P top-1 %.3f, static %.3f, P x static %.3f; cross-entropy P %.3f, static %.3f, "
           "over the candidates %.3f, P x static %.3f\n", en, rep.p_top1, rep.static_top1, rep.p_static_top1, rep.p_ce,
           rep.static_ce, rep.static_cand_ce, rep.p_static_ce);
    free(tidx);
    free(eidx);
    movelist_free(&ml);
    nn_batch_free(&b);
    nn_model_free(&m);
    klv_free(&klv);
    world_close(&w);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"H with the pool prior and zero weights is the uniform draw", test_hidden_pool_prior},
        {"policy: log P over the legal moves sums to 1; samples are legal and follow P", test_policy_normalised},
        {"policy with the equity prior: the search's log P = the trainer's; sums to 1", test_policy_normalised_equity},
        {"legal list: every legal move once, in (sub-move, tokens) order, found at its index", test_legal_order},
        {"the score prior: best score, or with nn.prior = equity best static equity (leaves needed)", test_equity_prior},
        {"H: P(leave) sums to 1 over the pool's leaves (t = 1, 2); samples fit the pool", test_hidden_normalised},
        {"a position's outputs are bit for bit the same in any batch", test_batch_invariance},
        {"feature version 3: version 2 and the opponent's last move; a v3 model reads it", test_features_v3},
        {"gradients of the whole model = finite differences (t = 1)", test_gradients_t1},
        {"value_weight scales V's gradient alone", test_value_weight_scales_v_gradient},
        {"gradients of the whole model = finite differences (t = 2)", test_gradients_t2},
        {"a small model overfits a few samples", test_overfit},
        {"gradients of the product loss = finite differences", test_gradients_product},
        {"the product loss = -sum t log softmax(log P + equity / T) over its candidates (oracle); its options",
         test_product_loss},
        {"a small model overfits a few samples with the product loss", test_overfit_product},
        {"nn_evaluate's P figures against an oracle (movegen's equities, log P move by move)", test_eval_policy_oracle},
        CU_TEST_INFO_NULL,
    };
    return tu_run("nn_model", tests);
}
