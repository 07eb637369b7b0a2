/* metrics_row.h: the header and the row are built from the same calls, so
 * they have the same columns in the same order, in the formats asked. */
#include <string.h>

#include "testutil.h"
#include "train/metrics_row.h"

static int commas(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == ',';
    return n;
}

static void test_columns_and_formats(void) {
    MetricsRow m;
    metrics_row_init(&m);
    metrics_row_int(&m, "generation", 7);
    metrics_row_int(&m, "delta", -3);
    metrics_row_uint(&m, "samples", UINT64_C(18446744073709551615));
    metrics_row_real(&m, "win_pct", 2, 52.125);
    metrics_row_real(&m, "brier", 5, 0.151083);
    CU_ASSERT_EQUAL(metrics_row_finish(&m), 0);
    CU_ASSERT_STRING_EQUAL(m.header, "generation,delta,samples,win_pct,brier");
    CU_ASSERT_STRING_EQUAL(m.row, "7,-3,18446744073709551615,52.12,0.15108\n");
    CU_ASSERT_EQUAL(m.columns, 5);
    CU_ASSERT_EQUAL(commas(m.header), commas(m.row));
}

static void test_overflow_is_reported(void) {
    MetricsRow m;
    metrics_row_init(&m);
    char name[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "a_long_column_name_%d", i);
        metrics_row_real(&m, name, 3, 1.0);
    }
    CU_ASSERT(m.overflow);
    CU_ASSERT_EQUAL(metrics_row_finish(&m), -1); /* never a cut row */
    CU_ASSERT(strlen(m.header) < sizeof m.header);
}

int main(void) {
    CU_TestInfo tests[] = {{"header and row: same columns, the formats asked", test_columns_and_formats},
                           {"a row that does not fit is refused", test_overflow_is_reported},
                           CU_TEST_INFO_NULL};
    return tu_run("metrics_row", tests);
}
