/* A generation's summary lines in the log (train/gen_log.h) come from its
 * record: each figure as the manifest holds it, absent ones left out. */
#include <stdlib.h>
#include <string.h>

#include "train/gen_log.h"
#include "train/manifest.h"
#include "testutil.h"

static void record_play(GenRecord *r, int64_t sampled) {
    rec_int(r, "generation", "generation", 3);
    rec_int(r, "games", "games", 120);
    rec_int(r, "turns", "turns", 2891);
    rec_real(r, "games_per_s", "games_per_s", 2, 245.304);
    rec_real(r, "timings_s.play", "play_s", 3, 0.4891);
    rec_real(r, "timings_s.reduce", "reduce_s", 3, 0.01);
    rec_real(r, "timings_s.derive", "derive_s", 3, 0.125);
    rec_real(r, "timings_s.write", "write_s", 3, 0.05);
    rec_real(r, "timings_s.evaluate", NULL, 3, 1.5);
    rec_real(r, "mean_best_equity", "mean_best_equity", 4, 33.11249);
    rec_uint(r, "racks_observed", "racks_observed", 10234);
    rec_real(r, "leave_change_rms", "leave_change_rms", 5, 0.0123);
    rec_int(r, "sampled_observations", NULL, sampled);
    rec_real(r, "match_vs_zero_leaves.win_pct", "match_win_pct", 2, 51.0);
    rec_real(r, "match_vs_zero_leaves.ci95_pct", "match_ci95_pct", 2, 1.234);
}

/* The done line of record_play's record (sampled racks as given) into line. */
static void play_line(int64_t sampled, char *line, size_t cap) {
    GenRecord r;
    RkError err;
    CU_ASSERT_FATAL(gen_record_init(&r, &err) == 0);
    record_play(&r, sampled);
    char *text = gen_record_finish(&r, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    gen_log_done(r.root, line, cap);
    free(text);
    gen_record_free(&r);
}

static void test_done_line(void) {
    char line[1024];
    play_line(0, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "gen 3 done: 120 games, 2891 turns, 245.3 games/s; mean best equity 33.1125; "
                                 "racks observed 10234; leave change rms 0.0123; vs zero leaves 51% +/- 1.23; "
                                 "play 0.489 s, reduce 0.01 s, derive 0.125 s, evaluate 1.5 s, write 0.05 s");
    /* sampled racks shown only when there are some */
    play_line(77, line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "; mean best equity 33.1125; sampled racks 77; racks observed 10234;"));
}

static void test_spv_line_and_absent_figures(void) {
    GenRecord r;
    RkError err;
    CU_ASSERT_FATAL(gen_record_init(&r, &err) == 0);
    rec_int(&r, "generation", "generation", 2);
    rec_bool(&r, "spv_trained", "spv_trained", false);
    rec_uint(&r, "spv.cells_observed", "spv_cells_observed", 866);
    rec_string(&r, "spv.openness_multipliers", "1.00 1.12");
    rec_uint(&r, "match_spv_on_vs_off.pairs", "spv_match_pairs", 2);
    char *text = gen_record_finish(&r, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char line[1024];
    gen_log_spv(r.root, line, sizeof line);
    /* "(2 pairs)" belongs to the absent SPV match's win %: left out with it */
    CU_ASSERT_STRING_EQUAL(line, "gen 2 spv: derived no; 866 cells observed; openness multipliers 1.00 1.12");
    free(text);
    gen_record_free(&r);
}

static void test_short_buffer(void) {
    /* a short buffer cuts the line, never overruns it */
    char small[40];
    memset(small, 'x', sizeof small);
    play_line(0, small, sizeof small);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
    CU_ASSERT_NSTRING_EQUAL(small, "gen 3 done: 120 games, 2891 turns, 245.", sizeof small - 1);
}

int main(void) {
    CU_TestInfo tests[] = {{"the done line from the record", test_done_line},
                           {"the spv line; absent figures left out", test_spv_line_and_absent_figures},
                           {"a short buffer", test_short_buffer},
                           CU_TEST_INFO_NULL};
    return tu_run("gen_log", tests);
}
