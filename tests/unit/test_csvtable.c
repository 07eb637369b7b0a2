/*
 * test_csvtable.c - core/csvtable.h: columns by name, short rows read "0"
 * and are told apart from real zeros, empty fields kept, blank lines and
 * CRs skipped, bad tables refused with the source named.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "core/csvtable.h"
#include "testutil.h"

static int parse(CsvTable *t, const char *text, RkError *err) {
    return csv_table_parse(t, strdup(text), "m.csv", err);
}

static void test_columns_and_rows(void) {
    CsvTable t;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(parse(&t, "generation,games,extra\r\n1,10,7\r\n\r\n2,20\n\n3,,0\n", &err), 0);
    CU_ASSERT_EQUAL(t.ncols, 3);
    CU_ASSERT_EQUAL(t.nrows, 3);
    CU_ASSERT_EQUAL(csv_table_column(&t, "games"), 1);
    CU_ASSERT_EQUAL(csv_table_column(&t, "extra"), 2); /* the header's \r is not part of the name */
    CU_ASSERT_EQUAL(csv_table_column(&t, "none"), -1);
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 0, 2), "7");
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 1, 1), "20");
    /* row 2 lacks the trailing column: "0", but not a field it has */
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 1, 2), "0");
    CU_ASSERT_FALSE(csv_table_has(&t, 1, 2));
    /* a real "0" and an empty field are fields */
    CU_ASSERT_TRUE(csv_table_has(&t, 2, 2));
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 2, 1), "");
    /* an absent column, a row out of range */
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 0, -1), "0");
    CU_ASSERT_FALSE(csv_table_has(&t, 3, 0));
    CU_ASSERT_FALSE(csv_table_has(&t, -1, 0));
    csv_table_free(&t);
}

static void test_many_rows_and_wide_rows(void) {
    /* more rows than the first allocation; a row wider than the cap is cut */
    size_t cap = 1 << 16;
    char *text = malloc(cap);
    size_t off = (size_t)snprintf(text, cap, "a,b\n");
    for (int i = 0; i < 1000; i++) off += (size_t)snprintf(text + off, cap - off, "%d,%d\n", i, 2 * i);
    for (int i = 0; i < CSV_TABLE_MAX_COLS + 10; i++) off += (size_t)snprintf(text + off, cap - off, "x,");
    snprintf(text + off, cap - off, "y\n");
    CsvTable t;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(csv_table_parse(&t, text, "m.csv", &err), 0);
    CU_ASSERT_EQUAL(t.nrows, 1001);
    CU_ASSERT_STRING_EQUAL(csv_table_field(&t, 999, 1), "1998");
    CU_ASSERT_EQUAL(t.nfields[1000], CSV_TABLE_MAX_COLS);
    csv_table_free(&t);
}

static void test_bad_tables(void) {
    CsvTable t;
    RkError err;
    CU_ASSERT_EQUAL(parse(&t, "", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "m.csv"));
    CU_ASSERT_PTR_NULL(t.text); /* freed */
    CU_ASSERT_EQUAL(parse(&t, "\n\n", &err), -1);
    CU_ASSERT_EQUAL(parse(&t, "\r\n1,2\n", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no column names"));
    /* a header alone is a table without rows */
    CU_ASSERT_EQUAL_FATAL(parse(&t, "a,b\n", &err), 0);
    CU_ASSERT_EQUAL(t.nrows, 0);
    csv_table_free(&t);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"columns by name; short rows read 0; empty fields, blank lines, CRs", test_columns_and_rows},
        {"a thousand rows; a row wider than the cap is cut", test_many_rows_and_wide_rows},
        {"empty text and a header without names refused, naming the source", test_bad_tables},
        CU_TEST_INFO_NULL,
    };
    return tu_run("csvtable", tests);
}
