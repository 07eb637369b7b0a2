/*
 * exposure.c - the cross-word exposure features and their file (see
 * exposure.h).
 */
#include "exposure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

static const char *const NAMES[EXPOSURE_FEATURES] = {"dl", "tl", "dw", "tw",
                                                     "dl_value", "tl_value", "dw_value", "tw_value"};

const char *exposure_feature_name(int i) { return i >= 0 && i < EXPOSURE_FEATURES ? NAMES[i] : "?"; }

/* Premium kind of square i: 0 DL, 1 TL, 2 DW, 3 TW, -1 plain. */
static int kind(const Layout *lay, int i) {
    if (lay->word_mult[i] == 3) return 3;
    if (lay->word_mult[i] == 2) return 2;
    if (lay->letter_mult[i] == 3) return 1;
    if (lay->letter_mult[i] == 2) return 0;
    return -1;
}

void exposure_features(const Board *b, const Move *m, double x[EXPOSURE_FEATURES]) {
    memset(x, 0, EXPOSURE_FEATURES * sizeof x[0]);
    if (m->kind != MOVE_PLACE) return;
    int dim = b->dim, dr = m->dir == DIR_DOWN, dc = !dr;
    /* squares the move covers, to skip them as neighbours */
    int r0 = m->row, c0 = m->col, r1 = r0 + dr * (m->len - 1), c1 = c0 + dc * (m->len - 1);
    for (int i = 0; i < m->len; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) continue;
        int r = r0 + dr * i, c = c0 + dc * i;
        int value = RK_IS_BLANKED(t) ? 0 : b->ld->score[t];
        static const int DR[4] = {-1, 1, 0, 0}, DC[4] = {0, 0, -1, 1};
        for (int d = 0; d < 4; d++) {
            int nr = r + DR[d], nc = c + DC[d];
            if (nr < 0 || nc < 0 || nr >= dim || nc >= dim || board_at(b, nr, nc)) continue;
            if (nr >= r0 && nr <= r1 && nc >= c0 && nc <= c1) continue; /* covered by the move */
            int k = kind(b->layout, nr * dim + nc);
            if (k < 0) continue;
            x[k] += 1.0;
            x[4 + k] += value;
        }
    }
}

int32_t exposure_adjust(const Exposure *e, const double x[EXPOSURE_FEATURES]) {
    double s = 0;
    for (int i = 0; i < EXPOSURE_FEATURES; i++) s += e->beta[i] * x[i];
    return (int32_t)lround(1000.0 * s);
}

int exposure_write(const Exposure *e, const char *path, RkError *err) {
    char text[1024];
    size_t off = (size_t)snprintf(text, sizeof text, "# rookery cross-word exposure coefficients, points\n");
    for (int i = 0; i < EXPOSURE_FEATURES; i++)
        off += (size_t)snprintf(text + off, sizeof text - off, "%s %.17g\n", NAMES[i], e->beta[i]);
    return rk_write_file_atomic(path, text, off, err);
}

int exposure_load(Exposure *e, const char *path, RkError *err) {
    char *text = rk_read_file(path, 1 << 16, NULL, err);
    if (text == NULL) return -1;
    memset(e, 0, sizeof *e);
    bool seen[EXPOSURE_FEATURES] = {false};
    int line = 0, rc = 0;
    for (char *save = NULL, *s = strtok_r(text, "\n", &save); s && rc == 0; s = strtok_r(NULL, "\n", &save)) {
        line++;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\0') continue;
        char name[32];
        double v;
        int used = 0;
        if (sscanf(s, "%31s %lf %n", name, &v, &used) != 2 || s[used] != '\0' || !isfinite(v)) {
            rc = rk_error(err, "%s:%d: expected 'name value'", path, line);
            break;
        }
        int k = -1;
        for (int i = 0; i < EXPOSURE_FEATURES; i++)
            if (strcmp(name, NAMES[i]) == 0) k = i;
        if (k < 0 || seen[k]) {
            rc = rk_error(err, "%s:%d: %s '%s'", path, line, k < 0 ? "unknown coefficient" : "repeated coefficient",
                          name);
            break;
        }
        seen[k] = true;
        e->beta[k] = v;
    }
    for (int i = 0; rc == 0 && i < EXPOSURE_FEATURES; i++)
        if (!seen[i]) rc = rk_error(err, "%s: no coefficient '%s'", path, NAMES[i]);
    free(text);
    return rc;
}
