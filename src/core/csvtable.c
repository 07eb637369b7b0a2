/* csvtable.c - see csvtable.h. */
#include "csvtable.h"

#include <stdlib.h>
#include <string.h>

/* Splits line at commas (and a trailing \r) into at most cap fields. */
static int split(char *line, char **out, int cap) {
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    int n = 0;
    for (char *f = line; n < cap;) {
        out[n++] = f;
        char *comma = strchr(f, ',');
        if (comma == NULL) break;
        *comma = '\0';
        f = comma + 1;
    }
    return n;
}

void csv_table_free(CsvTable *t) {
    free(t->text);
    free(t->fields);
    free(t->first);
    free(t->nfields);
    memset(t, 0, sizeof *t);
}

int csv_table_parse(CsvTable *t, char *text, const char *source, RkError *err) {
    memset(t, 0, sizeof *t);
    t->text = text;
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    if (line == NULL) {
        csv_table_free(t);
        return rk_error(err, "%s: empty (no header line)", source);
    }
    t->ncols = split(line, t->names, CSV_TABLE_MAX_COLS);
    if (t->ncols == 1 && t->names[0][0] == '\0') {
        csv_table_free(t);
        return rk_error(err, "%s: the header line has no column names", source);
    }
    size_t fcap = 0, rcap = 0, ncap = 0, nfields = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '\0' || strcmp(line, "\r") == 0) continue;
        char *f[CSV_TABLE_MAX_COLS];
        int n = split(line, f, CSV_TABLE_MAX_COLS);
        void *fields = t->fields, *first = t->first, *counts = t->nfields;
        size_t rows = (size_t)t->nrows + 1;
        int grown = rk_grow(&fields, &fcap, nfields + (size_t)n, sizeof *t->fields);
        if (grown == 0) grown = rk_grow(&first, &rcap, rows, sizeof *t->first);
        if (grown == 0) grown = rk_grow(&counts, &ncap, rows, sizeof *t->nfields);
        t->fields = fields, t->first = first, t->nfields = counts;
        if (grown != 0) {
            csv_table_free(t);
            return rk_error(err, "%s: out of memory", source);
        }
        memcpy(t->fields + nfields, f, (size_t)n * sizeof *f);
        t->first[t->nrows] = nfields;
        t->nfields[t->nrows] = n;
        nfields += (size_t)n;
        t->nrows++;
    }
    return 0;
}

int csv_table_column(const CsvTable *t, const char *name) {
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->names[i], name) == 0) return i;
    return -1;
}

bool csv_table_has(const CsvTable *t, int r, int c) {
    return r >= 0 && r < t->nrows && c >= 0 && c < t->nfields[r];
}

const char *csv_table_field(const CsvTable *t, int r, int c) {
    return csv_table_has(t, r, c) ? t->fields[t->first[r] + (size_t)c] : "0";
}
