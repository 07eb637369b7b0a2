#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

static const char STANDARD15[] =
    "7, 7\n"
    "=  '   =   '  =\n"
    " -   \"   \"   - \n"
    "  -   ' '   -  \n"
    "'  -   '   -  '\n"
    "    -     -    \n"
    " \"   \"   \"   \" \n"
    "  '   ' '   '  \n"
    "=  '   -   '  =\n"
    "  '   ' '   '  \n"
    " \"   \"   \"   \" \n"
    "    -     -    \n"
    "'  -   '   -  '\n"
    "  -   ' '   -  \n"
    " -   \"   \"   - \n"
    "=  '   =   '  =\n";

int layout_parse(Layout *lay, const char *text, const char *source, RkError *err) {
    memset(lay, 0, sizeof *lay);
    snprintf(lay->name, sizeof lay->name, "%s", source);
    lay->bingo_bonus = 50;
    const char *p = text;
    const char *eol = strchr(p, '\n');
    if (eol == NULL) return rk_error(err, "%s: missing the start-square line", source);
    int r, c, used = 0;
    char first[64];
    size_t fl = (size_t)(eol - p);
    if (fl >= sizeof first) return rk_error(err, "%s:1: start-square line too long", source);
    memcpy(first, p, fl);
    first[fl] = '\0';
    if (sscanf(first, " %d , %d %n", &r, &c, &used) != 2 || (first[used] != '\0' && first[used] != '\r'))
        return rk_error(err, "%s:1: expected 'row, col' of the start square", source);
    p = eol + 1;
    /* Board lines: read until EOF; trailing CR is ignored, short lines are
     * padded with plain squares. */
    char rows[RK_MAX_DIM][RK_MAX_DIM];
    int nrows = 0, width = 0;
    while (*p != '\0') {
        eol = strchr(p, '\n');
        if (eol == NULL) eol = p + strlen(p);
        size_t n = (size_t)(eol - p);
        if (n > 0 && p[n - 1] == '\r') n--;
        if (nrows >= RK_MAX_DIM) {
            /* allow trailing blank lines only */
            for (size_t i = 0; i < n; i++)
                if (p[i] != ' ') return rk_error(err, "%s: more than %d rows", source, RK_MAX_DIM);
        } else {
            if (n > RK_MAX_DIM)
                return rk_error(err, "%s:%d: row longer than %d squares", source, nrows + 2, RK_MAX_DIM);
            memset(rows[nrows], ' ', RK_MAX_DIM);
            memcpy(rows[nrows], p, n);
            if ((int)n > width) width = (int)n;
            nrows++;
        }
        p = *eol ? eol + 1 : eol;
    }
    /* Trailing empty lines (e.g. a final newline pair) do not make rows. */
    while (nrows > 0) {
        bool blank = true;
        for (int i = 0; i < RK_MAX_DIM; i++) blank = blank && rows[nrows - 1][i] == ' ';
        if (!blank || nrows <= width) break;
        nrows--;
    }
    if (nrows < 2) return rk_error(err, "%s: no board rows", source);
    if (width > nrows) return rk_error(err, "%s: rows are %d squares long but there are %d rows (the board must be square)", source, width, nrows);
    int dim = nrows;
    lay->dim = dim;
    if (r < 0 || r >= dim || c < 0 || c >= dim)
        return rk_error(err, "%s:1: start square %d, %d is off the %dx%d board", source, r, c, dim, dim);
    lay->start_row = r;
    lay->start_col = c;
    for (int i = 0; i < dim; i++) {
        for (int j = 0; j < dim; j++) {
            int lm = 1, wm = 1;
            switch (rows[i][j]) {
            case ' ': break;
            case '\'': lm = 2; break;
            case '"': lm = 3; break;
            case '-': wm = 2; break;
            case '=': wm = 3; break;
            default:
                return rk_error(err, "%s:%d: unknown square '%c' in column %d", source, i + 2, rows[i][j], j + 1);
            }
            lay->letter_mult[i * dim + j] = (uint8_t)lm;
            lay->word_mult[i * dim + j] = (uint8_t)wm;
        }
    }
    return 0;
}

int layout_load(Layout *lay, const char *path, RkError *err) {
    char *text = rk_read_file(path, 1 << 16, NULL, err);
    if (text == NULL) return -1;
    int rc = layout_parse(lay, text, path, err);
    free(text);
    return rc;
}

void layout_standard15(Layout *lay) {
    RkError err;
    if (layout_parse(lay, STANDARD15, "standard15", &err) != 0) abort(); /* constant table */
}

int layout_open(Layout *lay, const char *name_or_path, RkError *err) {
    if (name_or_path == NULL || strcmp(name_or_path, "standard15") == 0) {
        layout_standard15(lay);
        return 0;
    }
    return layout_load(lay, name_or_path, err);
}
