/* gcg.c - games as GCG files (see gcg.h). */
#include "gcg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"

typedef struct Text {
    char *s;
    size_t len, cap;
    bool failed;
} Text;

static void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(Text *t, const char *fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap * 2 + (size_t)n + 1;
        char *s = realloc(t->s, cap);
        if (s == NULL) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* A tile's label, bracketed when it is more than one character ([CH]). */
static void add_tile(Text *t, const LetterDist *ld, uint8_t tile) {
    char label[RK_LABEL_MAX + 1];
    ld_tile_label(ld, tile, label, sizeof label);
    if (rk_char_len(label) < strlen(label)) text_add(t, "[%s]", label);
    else text_add(t, "%s", label);
}

/* Excel-style column letters, as CGP and SIU write them. */
static void col_letters(int col, char *buf) {
    char tmp[8];
    int n = 0;
    for (col += 1; col > 0 && n < 7; col = (col - 1) / 26) tmp[n++] = (char)('A' + (col - 1) % 26);
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
}

static void add_move(Text *t, const LetterDist *ld, const Move *m) {
    if (m->kind == MOVE_PASS) {
        text_add(t, "-");
        return;
    }
    if (m->kind == MOVE_EXCHANGE) {
        text_add(t, "-");
        for (int i = 0; i < m->len; i++) add_tile(t, ld, m->tiles[i]);
        return;
    }
    char letters[8];
    col_letters(m->col, letters);
    if (m->dir == DIR_ACROSS) text_add(t, "%d%s ", m->row + 1, letters);
    else text_add(t, "%s%d ", letters, m->row + 1);
    for (int i = 0; i < m->len; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) text_add(t, ".");
        else add_tile(t, ld, m->tiles[i]);
    }
}

static void add_rack(Text *t, const LetterDist *ld, const Rack *r) {
    char buf[RK_MAX_BAG * (RK_LABEL_MAX + 2) + 1];
    rack_to_string(r, ld, buf, sizeof buf);
    text_add(t, "%s", buf);
}

static bool nick_ok(const char *s) {
    if (s == NULL || *s == '\0') return false;
    for (; *s; s++)
        if (*s == ' ' || *s == '\t' || *s == ':' || *s == '\n' || *s == '\r') return false;
    return true;
}

/* The rest of a pragma line: line ends turned into spaces. */
static void add_line_text(Text *t, const char *s) {
    for (; *s; s++) text_add(t, "%c", *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void add_header(Text *t, const GcgRecord *rec) {
    text_add(t, "#character-encoding UTF-8\n");
    for (int p = 0; p < 2; p++) {
        text_add(t, "#player%d %s ", p + 1, rec->nick[p]);
        add_line_text(t, rec->name[p] != NULL ? rec->name[p] : rec->nick[p]);
        text_add(t, "\n");
    }
    if (rec->lexicon != NULL) {
        text_add(t, "#lexicon ");
        add_line_text(t, rec->lexicon);
        text_add(t, "\n");
    }
    if (rec->description != NULL) {
        text_add(t, "#description ");
        add_line_text(t, rec->description);
        text_add(t, "\n");
    }
}

/* One move line, played on g; then the end-of-game lines if it ended the game. */
static void add_turn(Text *t, const GcgRecord *rec, Game *g, const Move *m) {
    const LetterDist *ld = g->ld;
    int me = g->on_turn, opp = 1 - me;
    int before = g->scores[me];
    text_add(t, ">%s: ", rec->nick[me]);
    add_rack(t, ld, &g->racks[me]);
    text_add(t, " ");
    add_move(t, ld, m);
    game_play(g, m);
    /* the move's own points: what the end rules added or took away undone */
    int bonus = 0;
    if (g->end == GAME_WENT_OUT) bonus = 2 * rack_score(&g->racks[opp], ld);
    else if (g->end == GAME_SIX_ZEROS) bonus = -rack_score(&g->racks[me], ld);
    int score = g->scores[me] - before - bonus;
    text_add(t, " %+d %d\n", score, before + score);
    if (g->end == GAME_WENT_OUT) {
        text_add(t, ">%s: (", rec->nick[me]);
        add_rack(t, ld, &g->racks[opp]);
        text_add(t, ") %+d %d\n", bonus, g->scores[me]);
    } else if (g->end == GAME_SIX_ZEROS) {
        for (int k = 0; k < 2; k++) {
            int p = k == 0 ? me : opp;
            text_add(t, ">%s: (", rec->nick[p]);
            add_rack(t, ld, &g->racks[p]);
            text_add(t, ") %+d %d\n", -rack_score(&g->racks[p], ld), g->scores[p]);
        }
    }
}

int gcg_format(const GcgRecord *rec, char **out, size_t *len, RkError *err) {
    *out = NULL;
    *len = 0;
    if (!nick_ok(rec->nick[0]) || !nick_ok(rec->nick[1]) || strcmp(rec->nick[0], rec->nick[1]) == 0)
        return rk_error(err, "GCG nicknames must be distinct, non-empty, without spaces or ':'");
    Game *g = malloc(sizeof *g);
    Text t = {malloc(4096), 0, 4096, false};
    if (g == NULL || t.s == NULL) {
        free(g);
        free(t.s);
        return rk_error(err, "out of memory");
    }
    t.s[0] = '\0';
    *g = *rec->start;
    add_header(&t, rec);
    for (int i = 0; i < rec->nmoves && !game_over(g); i++) add_turn(&t, rec, g, &rec->moves[i]);
    free(g);
    if (t.failed) {
        free(t.s);
        return rk_error(err, "out of memory");
    }
    *out = t.s;
    *len = t.len;
    return 0;
}

int gcg_write(const char *path, const GcgRecord *rec, RkError *err) {
    char *text;
    size_t len;
    if (gcg_format(rec, &text, &len, err) != 0) return -1;
    int rc = rk_write_file_atomic(path, text, len, err);
    free(text);
    return rc;
}
