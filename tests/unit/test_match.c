/*
 * test_match.c - the match harness's deals (worker/match.h): the training
 * loop's matches are dealt from seeds of their own, so that the gate's
 * choice of a model is never measured again on the deals it was made on.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>

#include "testutil.h"
#include "worker/match.h"

static void test_deal_seeds(void) {
    const uint64_t run = 43;
    /* the leaves' and SPV matches: the run seed itself, every generation */
    CU_ASSERT_EQUAL(match_deals_seed(run, MATCH_DEALS_RUN, 1), run);
    CU_ASSERT_EQUAL(match_deals_seed(run, MATCH_DEALS_RUN, 9), run);
    /* the anchor: one set for the run */
    uint64_t anchor = match_deals_seed(run, MATCH_DEALS_ANCHOR, 1);
    CU_ASSERT_EQUAL(match_deals_seed(run, MATCH_DEALS_ANCHOR, 7), anchor);
    CU_ASSERT_NOT_EQUAL(anchor, run);
    CU_ASSERT_NOT_EQUAL(match_deals_seed(44, MATCH_DEALS_ANCHOR, 1), anchor);
    /* the gate and the value check: new deals each generation, never the anchor's or each other's */
    for (int g = 1; g <= 20; g++) {
        uint64_t gate = match_deals_seed(run, MATCH_DEALS_GATE, g);
        uint64_t value = match_deals_seed(run, MATCH_DEALS_VALUE, g);
        CU_ASSERT_EQUAL(gate, match_deals_seed(run, MATCH_DEALS_GATE, g)); /* reproducible */
        CU_ASSERT_NOT_EQUAL(gate, anchor);
        CU_ASSERT_NOT_EQUAL(value, anchor);
        CU_ASSERT_NOT_EQUAL(gate, value);
        CU_ASSERT_NOT_EQUAL(gate, run);
        for (int h = 1; h < g; h++) {
            CU_ASSERT_NOT_EQUAL(gate, match_deals_seed(run, MATCH_DEALS_GATE, h));
            CU_ASSERT_NOT_EQUAL(value, match_deals_seed(run, MATCH_DEALS_VALUE, h));
        }
    }
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the loop's matches: deals of their own", test_deal_seeds},
        CU_TEST_INFO_NULL,
    };
    return tu_run("match", tests);
}
