/*
 * cgp.c - reading and writing positions in CGP (../shared/formats.md):
 *   ROWS RACKS SCORES ZEROS [op arg; ...]
 */
#include "cgp.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A piece of the input line (not NUL-terminated). */
typedef struct Span {
    const char *s;
    size_t n;
} Span;

/* Longest text quoted back in a message. */
#define QUOTE_MAX 40

/* Splits the line into the four fields; *ops is what follows them. Returns
 * the number of fields found (at most 4). */
static int split_fields(const char *line, Span f[4], const char **ops) {
    const char *p = line;
    int n = 0;
    while (n < 4) {
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0') break;
        const char *b = p;
        while (*p != '\0' && !isspace((unsigned char)*p)) p++;
        f[n].s = b;
        f[n].n = (size_t)(p - b);
        n++;
    }
    *ops = p;
    return n;
}

/* Copies an op argument (trimmed) into out. */
static int set_op(char *out, size_t cap, const char *name, const char *b, const char *e, RkError *err) {
    while (b < e && isspace((unsigned char)*b)) b++;
    while (e > b && isspace((unsigned char)e[-1])) e--;
    size_t n = (size_t)(e - b);
    if (n == 0) return rk_error(err, "CGP: op '%s' needs an argument", name);
    if (n >= cap) {
        char q[QUOTE_MAX * 2];
        rk_quote_text(q, sizeof q, b, n);
        return rk_error(err, "CGP: %s name '%s' too long", name, q);
    }
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)b[i] < 0x20 || b[i] == 0x7F) {
            char q[QUOTE_MAX * 2];
            rk_quote_text(q, sizeof q, b, n);
            return rk_error(err, "CGP: %s name '%s' holds a control character", name, q);
        }
    }
    memcpy(out, b, n);
    out[n] = '\0';
    return 0;
}

/* Parses "op arg; op arg; ..." (unknown ops are ignored). */
static int parse_ops(const char *p, CgpOps *ops, RkError *err) {
    memset(ops, 0, sizeof *ops);
    while (*p != '\0') {
        const char *e = strchr(p, ';');
        if (e == NULL) e = p + strlen(p);
        const char *b = p;
        while (b < e && isspace((unsigned char)*b)) b++;
        const char *w = b;
        while (w < e && !isspace((unsigned char)*w)) w++;
        size_t wn = (size_t)(w - b);
        int rc = 0;
        if (wn == 3 && strncmp(b, "lex", 3) == 0) rc = set_op(ops->lex, sizeof ops->lex, "lex", w, e, err);
        else if (wn == 2 && strncmp(b, "ld", 2) == 0) rc = set_op(ops->ld, sizeof ops->ld, "ld", w, e, err);
        else if (wn == 3 && strncmp(b, "bdn", 3) == 0) rc = set_op(ops->bdn, sizeof ops->bdn, "bdn", w, e, err);
        if (rc != 0) return rc;
        p = *e ? e + 1 : e;
    }
    return 0;
}

static int need_fields(int n, RkError *err) {
    if (n < 4)
        return rk_error(err, "CGP: expected 'ROWS RACKS SCORES ZEROS', found %d field%s", n, n == 1 ? "" : "s");
    return 0;
}

int cgp_read_ops(const char *cgp, CgpOps *ops, RkError *err) {
    Span f[4];
    const char *rest;
    memset(ops, 0, sizeof *ops);
    if (need_fields(split_fields(cgp, f, &rest), err) != 0) return -1;
    return parse_ops(rest, ops, err);
}

/* Parses one tile label from [p, end) without reading past end. Returns the
 * tile (ML, blank bit for lowercase) or -1; *used is the bytes consumed. */
static int tile_in_span(const LetterDist *ld, const char *p, const char *end, int *used) {
    char tmp[RK_LABEL_MAX + 1];
    size_t n = (size_t)(end - p);
    if (n > RK_LABEL_MAX) n = RK_LABEL_MAX;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    const char *q = tmp;
    int t = ld_parse_tile(ld, &q);
    *used = (int)(q - tmp);
    return t;
}

/* Bytes of the UTF-8 character at p (for quoting it), within [p, end). */
static int char_len(const char *p, const char *end) {
    unsigned char c = (unsigned char)*p;
    int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (n > end - p) n = (int)(end - p);
    return n;
}

/* Parses one row into tiles[0..dim); used[] counts the tiles (blanks at 0). */
static int parse_row(const LetterDist *ld, int dim, int row_no, const char *p, const char *end,
                     uint8_t *tiles, int *used, RkError *err) {
    long squares = 0;
    while (p < end) {
        if (isdigit((unsigned char)*p)) {
            const char *b = p;
            long run = 0;
            while (p < end && isdigit((unsigned char)*p)) {
                if (run < 100000) run = run * 10 + (*p - '0');
                p++;
            }
            if (*b == '0') {
                char q[QUOTE_MAX * 2];
                rk_quote_text(q, sizeof q, b, (size_t)(p - b));
                return rk_error(err, "CGP row %d: bad empty-square run '%s'", row_no, q);
            }
            for (long i = 0; i < run && squares + i < dim; i++) tiles[squares + i] = 0;
            squares += run;
            if (squares > 1000000) squares = 1000000;
            continue;
        }
        int nb;
        int t = tile_in_span(ld, p, end, &nb);
        if (t < 0) {
            char q[32];
            rk_quote_text(q, sizeof q, p, (size_t)char_len(p, end));
            return rk_error(err, "CGP row %d: unknown letter '%s'", row_no, q);
        }
        if (t == 0)
            return rk_error(err, "CGP row %d: '?' on the board (a blank is the lowercase letter it stands for)",
                            row_no);
        if (squares < dim) tiles[squares] = (uint8_t)t;
        used[RK_IS_BLANKED(t) ? 0 : RK_LETTER(t)]++;
        squares++;
        p += nb;
    }
    if (squares != dim) return rk_error(err, "CGP row %d: %ld squares, expected %d", row_no, squares, dim);
    return 0;
}

static int parse_rack(Rack *r, const LetterDist *ld, const char *b, const char *e, RkError *err) {
    char buf[RK_RACK_SIZE * RK_LABEL_MAX + 1];
    size_t n = (size_t)(e - b);
    if (n >= sizeof buf) {
        char q[QUOTE_MAX * 2];
        rk_quote_text(q, sizeof q, b, n);
        return rk_error(err, "CGP: rack '%s' has more than %d tiles", q, RK_RACK_SIZE);
    }
    memcpy(buf, b, n);
    buf[n] = '\0';
    RkError e2;
    if (rack_parse(r, ld, buf, &e2) != 0) return rk_error(err, "CGP: %s", e2.msg);
    for (int ml = 0; ml < ld->size; ml++) {
        if (r->count[ml] > ld->count[ml])
            return rk_error(err, "CGP: rack '%s' not drawable: %d %s but the distribution has %d", buf,
                            r->count[ml], ld->upper[ml], ld->count[ml]);
    }
    return 0;
}

/* Parses a whole decimal integer (optional sign) in [b, e). */
static int parse_int(const char *b, const char *e, long lo, long hi, long *out) {
    char buf[32];
    size_t n = (size_t)(e - b);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, b, n);
    buf[n] = '\0';
    if (!isdigit((unsigned char)buf[0]) && !((buf[0] == '-' || buf[0] == '+') && isdigit((unsigned char)buf[1])))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cgp_parse(Game *g, const char *cgp, const LetterDist *ld, const Layout *lay, const Kwg *kwg,
              uint64_t seed, RkError *err) {
    Span f[4];
    const char *rest;
    if (need_fields(split_fields(cgp, f, &rest), err) != 0) return -1;
    CgpOps ops;
    if (parse_ops(rest, &ops, err) != 0) return -1;
    if (ld->total_tiles > RK_MAX_BAG)
        return rk_error(err, "CGP: the distribution has %d tiles, at most %d are supported", ld->total_tiles,
                        RK_MAX_BAG);
    int dim = lay->dim;

    /* ROWS */
    int nrows = 1;
    for (size_t i = 0; i < f[0].n; i++) nrows += f[0].s[i] == '/';
    if (nrows != dim) return rk_error(err, "CGP: %d rows, expected %d", nrows, dim);
    uint8_t grid[RK_MAX_SQUARES];
    int used[RK_MAX_LETTERS] = {0};
    const char *p = f[0].s, *end = f[0].s + f[0].n;
    for (int r = 0; r < dim; r++) {
        const char *e = memchr(p, '/', (size_t)(end - p));
        if (e == NULL) e = end;
        if (parse_row(ld, dim, r + 1, p, e, &grid[r * dim], used, err) != 0) return -1;
        p = e + 1;
    }

    /* RACKS */
    const char *rb = f[1].s, *re = f[1].s + f[1].n;
    const char *slash = memchr(rb, '/', f[1].n);
    char q[QUOTE_MAX * 2];
    if (slash == NULL || memchr(slash + 1, '/', (size_t)(re - slash - 1)) != NULL) {
        rk_quote_text(q, sizeof q, rb, f[1].n);
        return rk_error(err, "CGP: bad racks '%s' (expected onturn/other)", q);
    }
    Rack racks[2];
    if (parse_rack(&racks[0], ld, rb, slash, err) != 0) return -1;
    if (parse_rack(&racks[1], ld, slash + 1, re, err) != 0) return -1;

    /* SCORES */
    const char *sb = f[2].s, *se = f[2].s + f[2].n;
    const char *ss = memchr(sb, '/', f[2].n);
    long s0, s1;
    if (ss == NULL || parse_int(sb, ss, -1000000, 1000000, &s0) != 0 ||
        parse_int(ss + 1, se, -1000000, 1000000, &s1) != 0) {
        rk_quote_text(q, sizeof q, sb, f[2].n);
        return rk_error(err, "CGP: bad scores '%s'", q);
    }

    /* ZEROS */
    long zeros;
    if (parse_int(f[3].s, f[3].s + f[3].n, LONG_MIN, LONG_MAX, &zeros) != 0) {
        rk_quote_text(q, sizeof q, f[3].s, f[3].n);
        return rk_error(err, "CGP: bad zeros '%s'", q);
    }
    if (zeros < 0 || zeros >= GAME_MAX_SCORELESS)
        return rk_error(err, "CGP: zeros %ld out of range 0..%d", zeros, GAME_MAX_SCORELESS - 1);

    /* tile counts */
    for (int ml = 0; ml < ld->size; ml++) {
        int total = used[ml] + racks[0].count[ml] + racks[1].count[ml];
        if (total <= ld->count[ml]) continue;
        if (ml == 0)
            return rk_error(err, "CGP: board and racks hold %d blanks, the distribution has %d", total,
                            ld->count[0]);
        return rk_error(err, "CGP: board and racks hold %d %s, the distribution has %d", total, ld->upper[ml],
                        ld->count[ml]);
    }

    /* the game */
    memset(g, 0, sizeof *g);
    g->ld = ld;
    g->layout = lay;
    g->kwg = kwg;
    board_init(&g->board, lay, ld, kwg);
    for (int r = 0; r < dim; r++)
        for (int c = 0; c < dim; c++)
            if (grid[r * dim + c] != 0) board_put(&g->board, r, c, grid[r * dim + c]);
    board_refresh(&g->board);
    bag_fill(&g->bag, ld);
    for (int i = 0; i < dim * dim; i++) {
        uint8_t t = grid[i];
        if (t != 0) bag_take(&g->bag, RK_IS_BLANKED(t) ? 0 : RK_LETTER(t));
    }
    for (int k = 0; k < 2; k++) {
        g->racks[k] = racks[k];
        for (int ml = 0; ml < ld->size; ml++)
            for (int i = 0; i < racks[k].count[ml]; i++) bag_take(&g->bag, (uint8_t)ml);
    }
    g->scores[0] = (int)s0;
    g->scores[1] = (int)s1;
    g->zeros = (int)zeros;
    g->on_turn = 0;
    g->turn = 0;
    g->end = GAME_PLAYING;
    g->kept[0] = g->kept[1] = -1;
    rng_seed(&g->rng, seed);
    return 0;
}

/* ---------------------------------------------------------------- writing */

void cgp_write(const Game *g, const char *lex, char *buf, size_t cap) {
    RkText o = {buf, cap, 0};
    if (cap > 0) buf[0] = '\0';
    const Board *b = &g->board;
    int dim = b->dim;
    char tmp[64];
    for (int r = 0; r < dim; r++) {
        if (r > 0) rk_text_put(&o, "/");
        int run = 0;
        for (int c = 0; c < dim; c++) {
            uint8_t t = board_at(b, r, c);
            if (t == 0) {
                run++;
                continue;
            }
            if (run > 0) {
                snprintf(tmp, sizeof tmp, "%d", run);
                rk_text_put(&o, tmp);
                run = 0;
            }
            ld_tile_label(g->ld, t, tmp, sizeof tmp);
            rk_text_put(&o, tmp);
        }
        if (run > 0) {
            snprintf(tmp, sizeof tmp, "%d", run);
            rk_text_put(&o, tmp);
        }
    }
    int me = g->on_turn, opp = 1 - me;
    char rack[RK_RACK_SIZE * RK_LABEL_MAX * 4 + 1];
    rk_text_put(&o, " ");
    rack_to_string(&g->racks[me], g->ld, rack, sizeof rack);
    rk_text_put(&o, rack);
    rk_text_put(&o, "/");
    rack_to_string(&g->racks[opp], g->ld, rack, sizeof rack);
    rk_text_put(&o, rack);
    snprintf(tmp, sizeof tmp, " %d/%d %d", g->scores[me], g->scores[opp], g->zeros);
    rk_text_put(&o, tmp);
    if (lex != NULL) {
        rk_text_put(&o, " lex ");
        rk_text_put(&o, lex);
        rk_text_put(&o, ";");
    }
}
