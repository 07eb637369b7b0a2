/* The residuals SPV learns (worker/residuals.h), checked against an
 * independent computation from the moves of real self-play games: for the
 * final-spread target and for the exposure target (the opponent's next
 * score), the sums and square sums of ResidualStats, and the accumulator
 * words, which are the same residual once per fresh tile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "testutil.h"
#include "worker/residuals.h"
#include "worker/selfplay.h"

#define MAX_TURNS 512

/* What the test records of each move, apart from residuals.c. */
typedef struct Turn {
    int mover, score, bag, fresh, spread_before;
    bool place;
} Turn;

typedef struct Log {
    GameResiduals *res;
    Turn turns[MAX_TURNS];
    int n;
} Log;

static void observe(const Game *g, const Move *m, void *vctx) {
    Log *l = vctx;
    residuals_record(l->res, g, m, 0, 250 * (l->n % 3)); /* leave 0; an arbitrary adjustment */
    if (l->n >= MAX_TURNS) return;
    Turn *t = &l->turns[l->n++];
    t->mover = g->on_turn;
    t->score = m->score;
    t->bag = g->bag.count;
    t->place = m->kind == MOVE_PLACE;
    t->spread_before = g->scores[g->on_turn] - g->scores[1 - g->on_turn];
    t->fresh = 0;
    if (t->place)
        for (int i = 0; i < m->len; i++) t->fresh += m->tiles[i] != MOVE_PLAYED_THROUGH;
}

static void check_game(const SelfplayConfig *cfg, uint64_t index, ResidualTarget target, Game *g, Log *l) {
    RkError err;
    SpvAccum acc;
    CU_ASSERT_FATAL(spv_accum_init(&acc, 1, 1, 225, 11, NULL, &err) == 0);
    residuals_begin(l->res, target, 1, 1, 11);
    l->n = 0;
    selfplay_game(cfg, index, g, NULL, observe, l);
    CU_ASSERT_FATAL(l->n < MAX_TURNS);
    ResidualStats st;
    memset(&st, 0, sizeof st);
    residuals_finish(l->res, g, &acc, &st);

    /* expected, from the log only */
    int64_t moves = 0, sum = 0, sum_adj = 0, tiles = 0, tile_sum = 0;
    long double sq = 0, sq_adj = 0;
    int recorded = 0;
    for (int i = 0; i < l->n; i++) {
        const Turn *t = &l->turns[i];
        if (!t->place || t->bag == 0) continue;
        int64_t r;
        if (target == RESIDUAL_EXPOSURE) {
            r = i + 1 < l->n ? -1000 * (int64_t)l->turns[i + 1].score : 0; /* turns alternate */
            CU_ASSERT(i + 1 >= l->n || l->turns[i + 1].mover != t->mover);
        } else {
            int final_spread = g->scores[t->mover] - g->scores[1 - t->mover];
            r = 1000 * (int64_t)(final_spread - t->spread_before) - 1000 * (int64_t)t->score;
        }
        int64_t adj = r - 250 * (i % 3);
        moves++;
        sum += r;
        sum_adj += adj;
        sq += (long double)r * r;
        sq_adj += (long double)adj * adj;
        tiles += t->fresh;
        tile_sum += r * t->fresh;
        recorded++;
    }
    CU_ASSERT(recorded > 5);
    CU_ASSERT_EQUAL(st.moves, moves);
    CU_ASSERT_EQUAL(st.sum, sum);
    CU_ASSERT_EQUAL(st.sum_adj, sum_adj);
    CU_ASSERT((long double)st.sq_hi * 4294967296.0L + (long double)st.sq_lo == sq);
    CU_ASSERT((long double)st.sq_adj_hi * 4294967296.0L + (long double)st.sq_adj_lo == sq_adj);
    /* the accumulators: one observation per fresh tile, each the move's residual */
    int64_t n = 0, s1 = 0;
    for (size_t w = 0; w < acc.n; w += SPV_ACCUM_WORDS) {
        n += acc.data[w];
        s1 += acc.data[w + 1];
    }
    CU_ASSERT_EQUAL(n, tiles);
    CU_ASSERT_EQUAL(s1, tile_sum);
    spv_accum_free(&acc);
}

static void test_targets_against_log(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    if (!tu_load_sowpods(&kwg, &ld)) return;
    layout_standard15(&lay);
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .seed = 99};
    Game *g = malloc(sizeof *g);
    Log *l = malloc(sizeof *l);
    GameResiduals *res = malloc(sizeof *res);
    CU_ASSERT_FATAL(g != NULL && l != NULL && res != NULL);
    l->res = res;
    for (uint64_t i = 0; i < 12; i++) {
        check_game(&cfg, i, RESIDUAL_FINAL, g, l);
        check_game(&cfg, i, RESIDUAL_EXPOSURE, g, l);
    }
    free(res);
    free(l);
    free(g);
    kwg_free(&kwg);
}

static void test_target_names(void) {
    CU_ASSERT_STRING_EQUAL(residual_target_name(RESIDUAL_FINAL), "final");
    CU_ASSERT_STRING_EQUAL(residual_target_name(RESIDUAL_EXPOSURE), "exposure");
    CU_ASSERT_EQUAL(residual_target_parse("final"), RESIDUAL_FINAL);
    CU_ASSERT_EQUAL(residual_target_parse("exposure"), RESIDUAL_EXPOSURE);
    CU_ASSERT_EQUAL(residual_target_parse("Exposure"), -1);
    CU_ASSERT_EQUAL(residual_target_parse(""), -1);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"final and exposure residuals = an independent computation from the moves", test_targets_against_log},
        {"target names", test_target_names},
        CU_TEST_INFO_NULL,
    };
    return tu_run("residuals", tests);
}
