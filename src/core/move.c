/*
 * move.c - move notation (write and parse), move identity, move lists.
 *
 * Notation (../shared/formats.md, move.h):
 *   across  "8D QUARTZ"    row number (1-based), then column letter
 *   down    "D8 QUARTZ"    column letter, then row number
 *   tiles already on the board in parentheses, runs grouped:
 *           "A1 OX(Y)P(HEN)B(UT)AZ(ON)E"
 *   blanks in lowercase; "(exch ?EQ)" for an exchange (thrown tiles, ML
 *   order, blank first); "pass" for a pass.
 */
#include "move.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"

/* ---------------------------------------------------------------- writing */

static void out_tile(RkText *o, const LetterDist *ld, uint8_t t) {
    char label[RK_LABEL_MAX + 1];
    ld_tile_label(ld, t, label, sizeof label);
    rk_text_put(o, label);
}

static int cmp_u8(const void *a, const void *b) {
    return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b;
}

void move_exchange_sort(Move *m) {
    int n = m->len <= RK_MAX_DIM ? m->len : RK_MAX_DIM;
    qsort(m->tiles, (size_t)n, 1, cmp_u8);
}

void move_to_string(const Move *m, const Board *b, const LetterDist *ld, char *buf, size_t cap) {
    RkText o = {buf, cap, 0};
    if (cap > 0) buf[0] = '\0';
    if (m->kind == MOVE_PASS) {
        rk_text_put(&o, "pass");
        return;
    }
    if (m->kind == MOVE_EXCHANGE) {
        Move sorted = *m;
        move_exchange_sort(&sorted);
        rk_text_put(&o, "(exch ");
        for (int i = 0; i < sorted.len && i < RK_MAX_DIM; i++) out_tile(&o, ld, sorted.tiles[i]);
        rk_text_put(&o, ")");
        return;
    }
    char coord[16];
    if (m->dir == DIR_ACROSS) snprintf(coord, sizeof coord, "%d%c ", m->row + 1, 'A' + m->col);
    else snprintf(coord, sizeof coord, "%c%d ", 'A' + m->col, m->row + 1);
    rk_text_put(&o, coord);
    int dr = m->dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr;
    bool in_paren = false;
    int n = m->len <= RK_MAX_DIM ? m->len : RK_MAX_DIM;
    for (int i = 0; i < n; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) {
            if (!in_paren) rk_text_put(&o, "(");
            in_paren = true;
            int r = m->row + dr * i, c = m->col + dc * i;
            if (b != NULL && r < b->dim && c < b->dim && board_at(b, r, c) != 0)
                out_tile(&o, ld, board_at(b, r, c));
            else
                rk_text_put(&o, ".");
        } else {
            if (in_paren) rk_text_put(&o, ")");
            in_paren = false;
            out_tile(&o, ld, t);
        }
    }
    if (in_paren) rk_text_put(&o, ")");
}

/* ---------------------------------------------------------------- parsing */

/* Reads 1-2 decimal digits as a 1-based row; returns the 0-based row or -1. */
static int parse_row(const char **p) {
    const char *s = *p;
    if (!isdigit((unsigned char)*s)) return -1;
    int v = 0, nd = 0;
    while (isdigit((unsigned char)*s)) {
        if (++nd > 3) return -1;
        v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    return v - 1;
}

static int parse_col(const char **p) {
    char c = **p;
    if (c >= 'A' && c <= 'Z') {
        (*p)++;
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        (*p)++;
        return c - 'a';
    }
    return -1;
}

static int parse_exchange(Move *m, const char *s, const char *body, size_t blen,
                          const LetterDist *ld, RkError *err) {
    char tiles[64];
    if (blen == 0) return rk_error(err, "move '%s': an exchange needs tiles", s);
    if (blen >= sizeof tiles) return rk_error(err, "move '%s': too many tiles to exchange", s);
    memcpy(tiles, body, blen);
    tiles[blen] = '\0';
    const char *p = tiles;
    int n = 0;
    while (*p != '\0') {
        const char *at = p;
        int t = ld_parse_tile(ld, &p);
        if (t < 0) {
            char qc[32];
            rk_quote_text(qc, sizeof qc, at, rk_char_len(at));
            return rk_error(err, "move '%s': unknown tile '%s'", s, qc);
        }
        if (t & (int)RK_BLANK_BIT)
            return rk_error(err, "move '%s': exchanged tiles are written in uppercase (a blank is '?')", s);
        if (n >= RK_RACK_SIZE)
            return rk_error(err, "move '%s': more than %d tiles to exchange", s, RK_RACK_SIZE);
        m->tiles[n++] = (uint8_t)t;
    }
    qsort(m->tiles, (size_t)n, 1, cmp_u8);
    m->kind = MOVE_EXCHANGE;
    m->len = m->ntiles = (uint8_t)n;
    return 0;
}

/* Where a placement starts and which way it runs (from its coordinate), and how many
 * squares and fresh tiles its letters cover (from its tiles). */
typedef struct Placement {
    int row, col, dir, dr, dc;
    int len, fresh;
} Placement;

/* Reads a placement's coordinate ("8D" across, "D8" down) into pl and steps *q past the
 * blanks that must follow it; s is the move as quoted in messages. */
static int parse_coordinate(Placement *pl, const char **q, int dim, const char *s, RkError *err) {
    int row, col, dir;
    if (isdigit((unsigned char)**q)) {
        dir = DIR_ACROSS;
        row = parse_row(q);
        col = parse_col(q);
    } else {
        dir = DIR_DOWN;
        col = parse_col(q);
        row = parse_row(q);
    }
    if (row >= 0 && col >= 0 && **q == '\0')
        return rk_error(err, "move '%s': no tiles after the coordinate", s);
    if (row < 0 || col < 0 || (**q != ' ' && **q != '\t'))
        return rk_error(err, "move '%s': bad coordinate (expected e.g. '8D WORD' across or 'D8 WORD' down)",
                        s);
    if (row >= dim || col >= dim)
        return rk_error(err, "move '%s': coordinate off the %dx%d board", s, dim, dim);
    while (**q == ' ' || **q == '\t') (*q)++;
    pl->row = row, pl->col = col, pl->dir = dir;
    pl->dr = dir == DIR_ACROSS ? 0 : 1, pl->dc = 1 - pl->dr;
    return 0;
}

/* Reads the tiles q..end of a placement into m->tiles, checking each against the square it
 * lands on (a parenthesized run must match the board, a fresh tile needs an empty square);
 * counts them in pl->len and pl->fresh. */
static int parse_tiles(Move *m, Placement *pl, const char *q, const char *end, const Board *b,
                       const LetterDist *ld, const char *s, RkError *err) {
    int dim = b->dim;
    int len = 0, fresh = 0;
    bool in_paren = false, paren_empty = false;
    while (q < end) {
        if (*q == '(') {
            if (in_paren) return rk_error(err, "move '%s': nested '('", s);
            in_paren = true;
            paren_empty = true;
            q++;
            continue;
        }
        if (*q == ')') {
            if (!in_paren) return rk_error(err, "move '%s': ')' without '('", s);
            if (paren_empty) return rk_error(err, "move '%s': empty parentheses", s);
            in_paren = false;
            q++;
            continue;
        }
        int r = pl->row + pl->dr * len, c = pl->col + pl->dc * len;
        if (r >= dim || c >= dim || len >= RK_MAX_DIM)
            return rk_error(err, "move '%s': runs off the board", s);
        const char *at = q;
        int t = ld_parse_tile(ld, &q);
        if (t < 0 || q > end) {
            if (isspace((unsigned char)*at)) return rk_error(err, "move '%s': unexpected space", s);
            char qc[32];
            rk_quote_text(qc, sizeof qc, at, rk_char_len(at));
            return rk_error(err, "move '%s': unknown letter '%s'", s, qc);
        }
        uint8_t on_board = board_at(b, r, c);
        if (in_paren) {
            paren_empty = false;
            if (on_board == 0)
                return rk_error(err, "move '%s': square %d%c is empty, but the move plays through '%.*s' there",
                                s, r + 1, 'A' + c, (int)(q - at), at);
            if (RK_LETTER((uint8_t)t) != RK_LETTER(on_board)) {
                char lab[RK_LABEL_MAX + 1];
                ld_tile_label(ld, on_board, lab, sizeof lab);
                return rk_error(err, "move '%s': square %d%c holds '%s', not '%.*s'", s, r + 1, 'A' + c,
                                lab, (int)(q - at), at);
            }
            m->tiles[len++] = MOVE_PLAYED_THROUGH;
        } else {
            if (t == 0)
                return rk_error(err, "move '%s': a blank is written as the lowercase letter it stands for", s);
            if (on_board != 0) {
                char lab[RK_LABEL_MAX + 1];
                ld_tile_label(ld, on_board, lab, sizeof lab);
                return rk_error(err, "move '%s': square %d%c is occupied by '%s' (write it in parentheses)",
                                s, r + 1, 'A' + c, lab);
            }
            m->tiles[len++] = (uint8_t)t;
            fresh++;
        }
    }
    if (in_paren) return rk_error(err, "move '%s': unclosed '('", s);
    pl->len = len, pl->fresh = fresh;
    return 0;
}

/* Parses the placement p..end ("8D WORD" or "D8 WORD") on board b into m. */
static int parse_placement(Move *m, const char *p, const char *end, const Board *b, const LetterDist *ld,
                           const char *s, RkError *err) {
    int dim = b->dim;
    Placement pl = {0};
    const char *q = p;
    if (parse_coordinate(&pl, &q, dim, s, err) != 0) return -1;
    if (parse_tiles(m, &pl, q, end, b, ld, s, err) != 0) return -1;
    if (pl.fresh == 0) return rk_error(err, "move '%s': places no tiles", s);
    /* The squares just before and after the word must be empty, or the word
     * written would not be the word formed. */
    int br = pl.row - pl.dr, bc = pl.col - pl.dc;
    int ar = pl.row + pl.dr * pl.len, ac = pl.col + pl.dc * pl.len;
    if (br >= 0 && bc >= 0 && board_at(b, br, bc) != 0)
        return rk_error(err, "move '%s': square %d%c before the word holds a tile (include it in parentheses)",
                        s, br + 1, 'A' + bc);
    if (ar < dim && ac < dim && board_at(b, ar, ac) != 0)
        return rk_error(err, "move '%s': square %d%c after the word holds a tile (include it in parentheses)",
                        s, ar + 1, 'A' + ac);
    m->kind = MOVE_PLACE;
    m->dir = (uint8_t)pl.dir;
    m->row = (uint8_t)pl.row;
    m->col = (uint8_t)pl.col;
    m->len = (uint8_t)pl.len;
    m->ntiles = (uint8_t)pl.fresh;
    return 0;
}

int move_parse(Move *m, const char *text, const Board *b, const LetterDist *ld, RkError *err) {
    memset(m, 0, sizeof *m);
    char s[96]; /* the text as quoted in messages */
    rk_quote_text(s, sizeof s, text, strlen(text));
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    size_t n = strlen(p);
    while (n > 0 && isspace((unsigned char)p[n - 1])) n--;
    if (n == 0) return rk_error(err, "move '%s': empty", s);
    if (n == 4 && strncmp(p, "pass", 4) == 0) {
        m->kind = MOVE_PASS;
        return 0;
    }
    if (n >= 6 && strncmp(p, "(exch", 5) == 0 && isspace((unsigned char)p[5])) {
        if (p[n - 1] != ')') return rk_error(err, "move '%s': expected '(exch TILES)'", s);
        const char *body = p + 6;
        while (isspace((unsigned char)*body)) body++;
        const char *end = p + n - 1;
        while (end > body && isspace((unsigned char)end[-1])) end--;
        return parse_exchange(m, s, body, end > body ? (size_t)(end - body) : 0, ld, err);
    }
    if (b == NULL) return rk_error(err, "move '%s': a placement needs a board", s);
    return parse_placement(m, p, p + n, b, ld, s, err);
}

/* ---------------------------------------------------------------- identity */

/* Fresh (square, tile) pairs of a placement, sorted; returns how many. */
static int placement_pairs(const Move *m, int *out) {
    int dr = m->dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr, n = 0;
    for (int i = 0; i < m->len && i < RK_MAX_DIM; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) continue;
        int r = m->row + dr * i, c = m->col + dc * i;
        out[n++] = ((r * RK_MAX_DIM + c) << 8) | m->tiles[i];
    }
    /* insertion sort: at most RK_MAX_DIM entries */
    for (int i = 1; i < n; i++) {
        int v = out[i], j = i - 1;
        while (j >= 0 && out[j] > v) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = v;
    }
    return n;
}

bool move_same(const Move *a, const Move *b) {
    if (a->kind != b->kind) return false;
    if (a->kind == MOVE_PASS) return true;
    if (a->kind == MOVE_EXCHANGE) {
        if (a->len != b->len) return false;
        int ca[256] = {0};
        for (int i = 0; i < a->len && i < RK_MAX_DIM; i++) ca[a->tiles[i]]++;
        for (int i = 0; i < b->len && i < RK_MAX_DIM; i++) ca[b->tiles[i]]--;
        for (int i = 0; i < 256; i++)
            if (ca[i] != 0) return false;
        return true;
    }
    int pa[RK_MAX_DIM], pb[RK_MAX_DIM];
    int na = placement_pairs(a, pa), nb = placement_pairs(b, pb);
    return na == nb && memcmp(pa, pb, (size_t)na * sizeof pa[0]) == 0;
}

/* ---------------------------------------------------------------- lists */

void movelist_init(MoveList *ml) {
    ml->moves = NULL;
    ml->count = ml->cap = 0;
}

void movelist_free(MoveList *ml) {
    free(ml->moves);
    movelist_init(ml);
}

Move *movelist_push(MoveList *ml) {
    if (ml->count == ml->cap) {
        size_t cap = ml->cap ? ml->cap * 2 : 64;
        Move *mv = realloc(ml->moves, cap * sizeof *mv);
        if (mv == NULL) {
            fprintf(stderr, "movelist_push: out of memory growing a move list to %zu moves\n", cap);
            abort();
        }
        ml->moves = mv;
        ml->cap = cap;
    }
    Move *m = &ml->moves[ml->count++];
    memset(m, 0, sizeof *m);
    return m;
}

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

/* Canonical order for moves that tie on the ranking keys: placements, then
 * exchanges, then passes; then direction, row, column, tiles. */
static int canonical_cmp(const Move *a, const Move *b) {
    int c;
    if ((c = cmp_int(a->kind, b->kind)) != 0) return c;
    if ((c = cmp_int(a->dir, b->dir)) != 0) return c;
    if ((c = cmp_int(a->row, b->row)) != 0) return c;
    if ((c = cmp_int(a->col, b->col)) != 0) return c;
    int n = a->len < b->len ? a->len : b->len;
    if (n > RK_MAX_DIM) n = RK_MAX_DIM;
    for (int i = 0; i < n; i++)
        if ((c = cmp_int(a->tiles[i], b->tiles[i])) != 0) return c;
    if ((c = cmp_int(a->len, b->len)) != 0) return c;
    return cmp_int(a->ntiles, b->ntiles);
}

static int by_score(const void *pa, const void *pb) {
    const Move *a = pa, *b = pb;
    int c;
    if ((c = cmp_int(b->score, a->score)) != 0) return c;
    if ((c = cmp_int(b->equity, a->equity)) != 0) return c;
    return canonical_cmp(a, b);
}

int move_compare_equity(const Move *a, const Move *b) {
    int c;
    if ((c = cmp_int(b->equity, a->equity)) != 0) return c;
    if ((c = cmp_int(b->score, a->score)) != 0) return c;
    return canonical_cmp(a, b);
}

static int by_equity(const void *pa, const void *pb) { return move_compare_equity(pa, pb); }

void movelist_sort_by_score(MoveList *ml) {
    if (ml->count > 1) qsort(ml->moves, ml->count, sizeof *ml->moves, by_score);
}

void movelist_sort_by_equity(MoveList *ml) {
    if (ml->count > 1) qsort(ml->moves, ml->count, sizeof *ml->moves, by_equity);
}

void move_rack_tiles(const Move *m, Rack *taken) {
    rack_clear(taken);
    if (m->kind == MOVE_EXCHANGE) {
        for (int i = 0; i < m->ntiles; i++) rack_add(taken, m->tiles[i]);
    } else if (m->kind == MOVE_PLACE) {
        for (int i = 0; i < m->len; i++)
            if (m->tiles[i] != MOVE_PLAYED_THROUGH) rack_add(taken, RK_IS_BLANKED(m->tiles[i]) ? 0 : m->tiles[i]);
    }
}

void move_kept_tiles(const Rack *rack, const Move *m, Rack *kept) {
    *kept = *rack;
    if (m->kind == MOVE_PASS) return;
    for (int i = 0; i < m->len; i++) {
        uint8_t t = m->tiles[i];
        if (m->kind == MOVE_PLACE) {
            if (t == MOVE_PLAYED_THROUGH) continue;
            t = RK_IS_BLANKED(t) ? 0 : t;
        }
        if (kept->count[t] > 0) rack_remove(kept, t);
    }
}
