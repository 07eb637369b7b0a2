/* One rank's share of a generation (worker/rank_share.h): the sampled racks
 * of leaves.sampled_racks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "worker/rank_share.h"

typedef struct World {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    RackTable rt;
} World;

static bool world_open(World *w) {
    ld_english(&w->ld);
    layout_standard15(&w->lay);
    if (!tu_load_sowpods(&w->kwg, &w->ld)) return false;
    RkError err;
    CU_ASSERT_FATAL(racktable_build(&w->rt, &w->ld, RK_RACK_SIZE, &err) == 0);
    return true;
}

static void world_close(World *w) {
    racktable_free(&w->rt);
    kwg_free(&w->kwg);
}

/* Plays games 0..games-1 of generation 2 (one rank, one thread) with K
 * sampled racks a turn into acc; returns the totals. */
static GenerationTotals play(World *wd, int k, uint64_t games, RackAccum *acc) {
    SelfplayConfig cfg = {.ld = &wd->ld, .layout = &wd->lay, .kwg = &wd->kwg, .seed = 21, .generation = 2};
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    GenerationWorker w = {.play = &cfg, .racks = &wd->rt, .games = games, .sampled_racks = k, .rank = 0,
                          .nranks = 1, .acc = acc, .game = g};
    RkError err;
    for (uint64_t r = 0; r < games; r++) CU_ASSERT_EQUAL_FATAL(generation_play_round(&w, 1, r, &err), 0);
    free(g);
    return w.totals;
}

/* Sampled racks leave the games alone, add exactly K observations a dealt
 * rack, are drawn in proportion to the distribution (blanks included), and
 * come out the same on a second run. */
static void test_sampled_racks(void) {
    World wd;
    if (!world_open(&wd)) return;
    const uint64_t games = (uint64_t)tu_size(24, 8);
    const int k = 4;
    RackAccum plain, sampled, again;
    RkError err;
    CU_ASSERT_FATAL(rack_accum_init(&plain, wd.rt.num_racks, &err) == 0);
    CU_ASSERT_FATAL(rack_accum_init(&sampled, wd.rt.num_racks, &err) == 0);
    CU_ASSERT_FATAL(rack_accum_init(&again, wd.rt.num_racks, &err) == 0);
    GenerationTotals a = play(&wd, 0, games, &plain);
    GenerationTotals b = play(&wd, k, games, &sampled);
    GenerationTotals c = play(&wd, k, games, &again);

    /* the same games and dealt racks */
    CU_ASSERT_EQUAL(a.games, (int64_t)games);
    CU_ASSERT_EQUAL(a.turns, b.turns);
    CU_ASSERT_EQUAL(a.score_sum, b.score_sum);
    CU_ASSERT_EQUAL(a.observations, b.observations);
    CU_ASSERT_EQUAL(a.equity_sum, b.equity_sum);
    CU_ASSERT(a.observations > 10 * (int64_t)games);
    CU_ASSERT_EQUAL(a.sampled_observations, 0);
    CU_ASSERT_EQUAL(b.sampled_observations, k * b.observations);

    /* the differences are the sampled racks: none negative, K a dealt rack */
    int64_t extra = 0, tiles[RK_MAX_LETTERS] = {0}, distinct = 0;
    bool negative = false;
    for (uint64_t i = 0; i < wd.rt.num_racks; i++) {
        int64_t d = sampled.count[i] - plain.count[i];
        if (d < 0) negative = true;
        if (d <= 0) continue;
        extra += d;
        distinct++;
        Rack r;
        CU_ASSERT_FATAL(racktable_rack_at(&wd.rt, i, &r) == 0);
        for (int ml = 0; ml < wd.ld.size; ml++) tiles[ml] += d * r.count[ml];
    }
    CU_ASSERT_FALSE(negative);
    CU_ASSERT_EQUAL(extra, b.sampled_observations);
    CU_ASSERT(distinct > extra / 2); /* draws, not one rack repeated */

    /* each letter's share of the drawn tiles within 5 standard deviations of
     * its share of the distribution (100 tiles) */
    int total_dist = 0;
    for (int ml = 0; ml < wd.ld.size; ml++) total_dist += wd.ld.count[ml];
    double n = (double)extra * RK_RACK_SIZE;
    for (int ml = 0; ml < wd.ld.size; ml++) {
        double p = (double)wd.ld.count[ml] / total_dist;
        double sd = sqrt(n * p * (1.0 - p));
        CU_ASSERT(fabs((double)tiles[ml] - n * p) < 5.0 * sd);
    }
    CU_ASSERT(tiles[0] > 0); /* blanks are drawn */

    /* reproducible: the same accumulators again */
    CU_ASSERT_EQUAL(c.sampled_observations, b.sampled_observations);
    CU_ASSERT(memcmp(sampled.count, again.count, wd.rt.num_racks * sizeof *again.count) == 0);
    CU_ASSERT(memcmp(sampled.sum_mp, again.sum_mp, wd.rt.num_racks * sizeof *again.sum_mp) == 0);

    rack_accum_free(&plain);
    rack_accum_free(&sampled);
    rack_accum_free(&again);
    world_close(&wd);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"sampled racks: the same games, K a dealt rack, drawn from the distribution, reproducible",
         test_sampled_racks},
        CU_TEST_INFO_NULL,
    };
    return tu_run("rank_share", tests);
}
