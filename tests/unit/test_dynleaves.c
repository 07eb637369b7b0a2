/* Bag-aware leaves (eval/dynleaves.h): the exact DLV(L, U) against a brute
 * force over the whole rack list, the pool of a position and its checks,
 * the recompute against the generation's derivation, and the top-N
 * reranking against its definition on a real position. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "core/rng.h"
#include "eval/dynleaves.h"
#include "testutil.h"

typedef struct Tables {
    LetterDist ld;
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
    Req req;
    char dir[512];
} Tables;

/* Rack table, zero leaves, deriver, and a .req of random means (one rack in
 * five unobserved) written and loaded back. */
static void tables_open(Tables *t, bool english, uint64_t seed) {
    RkError err;
    if (english) {
        ld_english(&t->ld);
    } else {
        tu_tiny_ld(&t->ld);
    }
    CU_ASSERT_FATAL(racktable_build(&t->rt, &t->ld, RK_RACK_SIZE, &err) == 0);
    CU_ASSERT_FATAL(klv_init_zero(&t->klv, &t->ld, &err) == 0);
    CU_ASSERT_FATAL(leave_deriver_init(&t->d, &t->rt, &t->klv.kwg, &err) == 0);
    float *mean = malloc(t->rt.num_racks * sizeof *mean);
    uint64_t *counts = malloc(t->rt.num_racks * sizeof *counts);
    CU_ASSERT_FATAL(mean != NULL && counts != NULL);
    Rng rng;
    rng_seed(&rng, seed);
    for (uint64_t i = 0; i < t->rt.num_racks; i++) {
        counts[i] = rng_below(&rng, 5) == 0 ? 0 : 1 + rng_below(&rng, 9);
        mean[i] = counts[i] ? (float)((double)rng_below(&rng, 80000) / 1000.0 - 10.0) : 0.0f;
    }
    CU_ASSERT_FATAL(tu_tmpdir(t->dir, sizeof t->dir) != NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/t.req", t->dir);
    CU_ASSERT_FATAL(req_write(path, &t->rt, mean, counts, &err) == 0);
    CU_ASSERT_FATAL(req_load(&t->req, path, &t->rt, &err) == 0);
    free(mean);
    free(counts);
}

static void tables_close(Tables *t) {
    req_free(&t->req);
    leave_deriver_free(&t->d);
    klv_free(&t->klv);
    racktable_free(&t->rt);
}

static double binom_ref(int n, int k) {
    if (k < 0 || n < 0 || k > n) return 0.0;
    double r = 1.0;
    for (int i = 0; i < k; i++) r = r * (double)(n - i) / (double)(i + 1);
    return round(r);
}

/* DLV(L, U) term by term over every rack of the table. */
static double brute_dlv(const Tables *t, const Rack *leave, const Rack *unseen, double *baseline) {
    double s = 0, w = 0, bs = 0, bw = 0;
    for (uint64_t i = 0; i < t->rt.num_racks; i++) {
        if (t->req.counts[i] == 0) continue;
        Rack r;
        racktable_rack_at(&t->rt, i, &r);
        double wr = 1.0, wl = 1.0;
        for (int ml = 0; ml < t->ld.size; ml++) {
            wr *= binom_ref(unseen->count[ml], r.count[ml]);
            wl *= binom_ref(unseen->count[ml], r.count[ml] - leave->count[ml]);
        }
        bs += wr * t->req.mean[i];
        bw += wr;
        s += wl * t->req.mean[i];
        w += wl;
    }
    *baseline = bw > 0 ? bs / bw : 0.0;
    return leave->total > 0 && w > 0 && bw > 0 ? s / w - *baseline : 0.0;
}

static void test_exact_against_brute(void) {
    Tables t;
    tables_open(&t, false, 3);
    RkError err;
    Rng rng;
    rng_seed(&rng, 5);
    int bad = 0;
    for (int trial = 0; trial < 30; trial++) {
        Rack unseen, leaves[8];
        rack_clear(&unseen);
        for (int ml = 0; ml < t.ld.size; ml++) {
            unseen.count[ml] = (uint8_t)rng_below(&rng, (uint64_t)t.ld.count[ml] + 1);
            unseen.total += unseen.count[ml];
        }
        for (int i = 0; i < 8; i++) { /* random leaves of 0..6 tiles within the distribution */
            rack_clear(&leaves[i]);
            int len = (int)rng_below(&rng, RK_RACK_SIZE);
            for (int k = 0; k < 40 && leaves[i].total < len; k++) {
                uint8_t ml = (uint8_t)rng_below(&rng, (uint64_t)t.ld.size);
                if (leaves[i].count[ml] < t.ld.count[ml]) rack_add(&leaves[i], ml);
            }
        }
        double got[8], base;
        CU_ASSERT_FATAL(dynleaves_exact(&t.rt, &t.req, &unseen, leaves, 8, got, &base, &err) == 0);
        for (int i = 0; i < 8; i++) {
            double ref_base, ref = brute_dlv(&t, &leaves[i], &unseen, &ref_base);
            if (fabs(got[i] - ref) > 1e-9 * fmax(1.0, fabs(ref)) || fabs(base - ref_base) > 1e-9 * fmax(1.0, ref_base))
                bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* a full rack is not a leave */
    Rack seven, u;
    rack_clear(&seven);
    rack_clear(&u);
    for (int i = 0; i < 7; i++) rack_add(&seven, 5); /* EEEEEEE: 7 tiles */
    double v;
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(dynleaves_exact(&t.rt, &t.req, &u, &seven, 1, &v, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "7 tiles"));
    tables_close(&t);
}

/* With the full distribution as the pool the recompute is the generation's
 * derivation from the same means; holdable_only changes nothing there. */
static void test_recompute_full_pool(void) {
    Tables t;
    tables_open(&t, false, 8);
    RkError err;
    Rack full;
    racktable_full_bag(&t.rt, &full);
    float *ref = malloc(t.d.num_leaves * sizeof *ref);
    CU_ASSERT_FATAL(ref != NULL);
    for (int mode = 0; mode < 2; mode++) {
        DeriveOptions opt = {.shrink = 30.0, .holdable_only = mode == 1};
        CU_ASSERT_FATAL(derive_leaves_from_means_opt(&t.d, t.req.mean, t.req.counts, t.req.num_racks, NULL, &opt,
                                                     ref, t.d.num_leaves, NULL, &err) == 0);
        CU_ASSERT_FATAL(dynleaves_recompute(&t.d, &t.req, &full, &opt, &t.klv, NULL, &err) == 0);
        CU_ASSERT(memcmp(ref, t.klv.values, t.d.num_leaves * sizeof *ref) == 0);
    }
    free(ref);
    tables_close(&t);
}

static void test_pool_checks(void) {
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    Rack unseen, rack, pool;
    CU_ASSERT_FATAL(rack_parse(&rack, &ld, "ZQ", &err) == 0);
    CU_ASSERT_FATAL(rack_parse(&unseen, &ld, "AEIZ", &err) == 0);
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(dynleaves_pool(&ld, &unseen, &rack, &pool, &err), -1); /* two Z, one in the set */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2 Z"));
    CU_ASSERT(strchr(err.msg, '\n') == NULL);
    CU_ASSERT_FATAL(rack_parse(&unseen, &ld, "AEIS", &err) == 0);
    CU_ASSERT_EQUAL(dynleaves_pool(&ld, &unseen, &rack, &pool, &err), 0);
    CU_ASSERT_EQUAL(pool.total, 6);
    CU_ASSERT_EQUAL(dynleaves_pool(&ld, &unseen, NULL, &pool, &err), 0);
    CU_ASSERT_EQUAL(pool.total, 4);

    /* a new game: unseen = bag + opponent's rack; with the rack on turn it
     * is the whole distribution */
    Kwg kwg;
    if (!tu_load_sowpods(&kwg, &ld)) return;
    Layout lay;
    layout_standard15(&lay);
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    game_new(g, &ld, &lay, &kwg, 1, 0, 0);
    game_unseen(g, &unseen);
    CU_ASSERT_EQUAL(unseen.total, 93);
    CU_ASSERT_EQUAL(dynleaves_pool(&ld, &unseen, &g->racks[g->on_turn], &pool, &err), 0);
    int off = 0;
    for (int ml = 0; ml < ld.size; ml++) off += pool.count[ml] != ld.count[ml];
    CU_ASSERT_EQUAL(off, 0);
    free(g);
    kwg_free(&kwg);
}

/* A late position of a real game: the reranked top 10 = static equity minus
 * the static leave plus the exact DLV of what each move keeps, re-sorted. */
static void test_rerank_definition(void) {
    LetterDist english;
    ld_english(&english);
    Kwg kwg;
    if (!tu_load_sowpods(&kwg, &english)) return;
    Tables t;
    tables_open(&t, true, 21);
    RkError err;
    Layout lay;
    layout_standard15(&lay);
    /* static leaves: the recompute for the full distribution */
    Rack full;
    racktable_full_bag(&t.rt, &full);
    DeriveOptions opt = {.shrink = 30.0};
    CU_ASSERT_FATAL(dynleaves_recompute(&t.d, &t.req, &full, &opt, &t.klv, NULL, &err) == 0);
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    game_new(g, &t.ld, &lay, &kwg, 4, 0, 0);
    MoveGenRequest req;
    Move m;
    while (g->end == GAME_PLAYING && g->bag.count > 20) {
        movegen_request_for_game(&req, g);
        movegen_best(&req, &m, NULL);
        game_play(g, &m);
    }
    CU_ASSERT_FATAL(g->end == GAME_PLAYING);
    Rack unseen;
    game_unseen(g, &unseen);
    const Rack *rack = &g->racks[g->on_turn];
    movegen_request_for_game(&req, g);
    req.leave_value = klv_leave_value;
    req.leave_ctx = &t.klv;
    MoveList list;
    movelist_init(&list);
    movegen_all(&req, &list);
    movelist_sort_by_equity(&list);
    CU_ASSERT_FATAL(list.count >= 10);
    Move before[10];
    memcpy(before, list.moves, sizeof before);
    CU_ASSERT_EQUAL(dynleaves_rerank(&t.rt, &t.req, klv_leave_value, &t.klv, rack, &unseen, &list, 10, NULL, &err), 10);
    int found = 0, bad = 0;
    for (int i = 0; i < 10; i++) {
        Rack kept;
        move_kept_tiles(rack, &before[i], &kept);
        double dlv = 0.0;
        CU_ASSERT_FATAL(dynleaves_exact(&t.rt, &t.req, &unseen, &kept, 1, &dlv, NULL, &err) == 0);
        int32_t want = before[i].kind == MOVE_PASS
                           ? before[i].equity
                           : before[i].equity - (kept.total ? klv_leave_value(&t.klv, &kept) : 0) + (int32_t)lround(dlv * 1000.0);
        for (int j = 0; j < 10; j++)
            if (move_same(&list.moves[j], &before[i])) {
                found++;
                bad += list.moves[j].equity != want;
            }
    }
    CU_ASSERT_EQUAL(found, 10);
    CU_ASSERT_EQUAL(bad, 0);
    for (int i = 1; i < 10; i++) CU_ASSERT(movegen_compare(&list.moves[i - 1], &list.moves[i]) <= 0);
    /* every move, the pass included (it keeps its equity) */
    movegen_all(&req, &list);
    movelist_sort_by_equity(&list);
    int32_t pass_equity = 0;
    for (size_t i = 0; i < list.count; i++)
        if (list.moves[i].kind == MOVE_PASS) pass_equity = list.moves[i].equity;
    CU_ASSERT_EQUAL(dynleaves_rerank(&t.rt, &t.req, klv_leave_value, &t.klv, rack, &unseen, &list, (int)list.count,
                                     NULL, &err),
                    (int)list.count);
    int passes = 0;
    for (size_t i = 0; i < list.count; i++)
        if (list.moves[i].kind == MOVE_PASS) {
            passes++;
            CU_ASSERT_EQUAL(list.moves[i].equity, pass_equity);
        }
    CU_ASSERT_EQUAL(passes, 1);
    movelist_free(&list);
    free(g);
    kwg_free(&kwg);
    tables_close(&t);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"exact DLV(L, U) = brute force over the rack list (tiny distribution)", test_exact_against_brute},
        {"recompute for the full distribution = the generation's derivation", test_recompute_full_pool},
        {"pool: letters beyond the distribution refused; a new game's pool", test_pool_checks},
        {"rerank: static leave replaced by the exact DLV, re-sorted", test_rerank_definition},
        CU_TEST_INFO_NULL,
    };
    return tu_run("dynleaves", tests);
}
