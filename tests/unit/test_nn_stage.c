/* The network stage's split of a generation's samples (train/nn_stage.h):
 * training samples, and held-out samples spread over every held-out game. */
#include <stdlib.h>
#include <string.h>

#include "train/nn_stage.h"
#include "testutil.h"

/* games 0..games-1 of generations 2 and 3, `turns` samples each, in
 * (generation, game, turn) order */
static void fill(ShardSet *set, uint64_t games, uint32_t turns) {
    ShardSample s;
    memset(&s, 0, sizeof s);
    for (uint32_t gen = 2; gen <= 3; gen++)
        for (uint64_t g = 0; g < games; g++)
            for (uint32_t t = 0; t < turns; t++) {
                s.generation = gen, s.game = g, s.turn = t;
                shardset_add(set, &s, NULL, NULL, 0);
            }
}

static void test_split_covers_every_heldout_game(void) {
    const uint64_t games = 3000;
    const uint32_t turns = 20;
    const int every = 10;
    ShardSet set;
    shardset_init(&set);
    fill(&set, games, turns);
    RkError err;
    size_t *train = NULL, *test = NULL, tn = 0, en = 0;
    CU_ASSERT_FATAL(nn_stage_split(&set, every, 3, 1000, &train, &tn, &test, &en, &err) == 0);
    /* training: every sample of a game not held out, both generations */
    CU_ASSERT_EQUAL(tn, (size_t)(2 * (games - games / every) * turns));
    bool train_ok = true;
    for (size_t i = 0; i < tn; i++) train_ok &= set.s[train[i]].game % every != (uint64_t)every - 1;
    CU_ASSERT_TRUE(train_ok);
    /* held out: 1,000 samples of generation 3's held-out games, every one of the 300 games in
     * them, in set order, none twice */
    CU_ASSERT_EQUAL(en, 1000u);
    bool test_ok = true;
    char *seen = calloc(games, 1);
    CU_ASSERT_FATAL(seen != NULL);
    for (size_t k = 0; k < en; k++) {
        const ShardSample *s = &set.s[test[k]];
        test_ok &= s->generation == 3 && s->game % every == (uint64_t)every - 1;
        if (k > 0) test_ok &= test[k] > test[k - 1];
        seen[s->game] = 1;
    }
    CU_ASSERT_TRUE(test_ok);
    uint64_t covered = 0;
    for (uint64_t g = 0; g < games; g++) covered += seen[g];
    CU_ASSERT_EQUAL(covered, games / every);
    free(seen);
    free(train), free(test);

    /* a cap above the held-out count: all of them */
    CU_ASSERT_FATAL(nn_stage_split(&set, every, 3, 100000, &train, &tn, &test, &en, &err) == 0);
    CU_ASSERT_EQUAL(en, (size_t)(games / every * turns));
    free(train), free(test);
    shardset_free(&set);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"split: the held-out sample spreads over every held-out game", test_split_covers_every_heldout_game},
        CU_TEST_INFO_NULL,
    };
    return tu_run("nn_stage", tests);
}
