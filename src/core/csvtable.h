/* csvtable.h - a small comma-separated table read from text: the header's
 * column names and each row's fields, looked up by column name. It serves
 * `rookery report` on a run's metrics.csv.
 *
 * Fields are plain (no quoting: rookery's tables never quote); blank lines
 * are skipped; fields past CSV_TABLE_MAX_COLS are dropped. A row may have
 * fewer fields than the header: a run resumed by a later version keeps its
 * older rows, which lack the newer trailing columns. Such missing fields,
 * and every field of a column the header lacks (index -1), read as "0";
 * csv_table_has tells them apart from a real "0". */
#ifndef ROOKERY_CSVTABLE_H
#define ROOKERY_CSVTABLE_H

#include <stdbool.h>

#include "common.h"

#define CSV_TABLE_MAX_COLS 128

typedef struct CsvTable {
    char *text;                           /* owned; cut into fields in place */
    int ncols;                            /* header fields */
    char *names[CSV_TABLE_MAX_COLS];
    int nrows;
    char **fields;                        /* every row's fields, one after the other */
    size_t *first;                        /* [nrows]: row r's first field in fields */
    int *nfields;                         /* [nrows]: fields each row has */
} CsvTable;

/* Takes `text` (malloc'ed, NUL-terminated; owned by the table from now on,
 * freed by csv_table_free even on failure) and splits it. An empty text or
 * a header without a field is an error naming `source`. */
int csv_table_parse(CsvTable *t, char *text, const char *source, RkError *err);
void csv_table_free(CsvTable *t);

/* The index of column `name`, or -1. */
int csv_table_column(const CsvTable *t, const char *name);
/* Row r's field in column c (c may be -1): "0" where the row has none. */
const char *csv_table_field(const CsvTable *t, int r, int c);
/* Whether row r has a field in column c. */
bool csv_table_has(const CsvTable *t, int r, int c);

#endif
