/* libFuzzer target for the CSV table reader (`rookery report` on a
 * metrics.csv): arbitrary text (up to its first NUL). A failure leaves a
 * one-line message. A table that parses has at least one column, rows
 * within the caps, and every field of every row and column - those it has,
 * those it lacks, and column -1 - reads as a string without a comma or a
 * newline; a name's lookup finds the first column of that name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "core/csvtable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 16)) return 0;
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    CsvTable t;
    RkError err;
    if (csv_table_parse(&t, text, "fuzz.csv", &err) != 0) {
        if (strchr(err.msg, '\n') != NULL || strstr(err.msg, "fuzz.csv") == NULL) abort();
        if (t.text != NULL || t.fields != NULL) abort();
        return 0;
    }
    if (t.ncols < 1 || t.ncols > CSV_TABLE_MAX_COLS || t.nrows < 0) abort();
    for (int c = 0; c < t.ncols; c++) {
        int found = csv_table_column(&t, t.names[c]);
        if (found < 0 || found > c || strcmp(t.names[found], t.names[c]) != 0) abort();
    }
    for (int r = 0; r < t.nrows; r++) {
        if (t.nfields[r] < 1 || t.nfields[r] > CSV_TABLE_MAX_COLS) abort();
        for (int c = -1; c <= CSV_TABLE_MAX_COLS; c++) {
            const char *f = csv_table_field(&t, r, c);
            if (strpbrk(f, ",\n") != NULL) abort();
            if (!csv_table_has(&t, r, c) && strcmp(f, "0") != 0) abort();
        }
    }
    csv_table_free(&t);
    return 0;
}
