/* siu_move.c - SIU move notation and legality (see siu_move.h). */
#include "siu_move.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/movegen.h"

/* ---------------------------------------------------------------- writing */

/* A tile's label, bracketed when it is more than one character. */
static void out_tile(RkText *o, const LetterDist *ld, uint8_t t) {
    char label[RK_LABEL_MAX + 1];
    ld_tile_label(ld, t, label, sizeof label);
    bool multi = rk_char_len(label) < strlen(label);
    if (multi) rk_text_put(o, "[");
    rk_text_put(o, label);
    if (multi) rk_text_put(o, "]");
}

/* Excel-style column letters: A..Z, then AA, AB, ... */
static void col_letters(int col, char *buf) {
    char tmp[8];
    int n = 0;
    col += 1;
    while (col > 0 && n < 7) {
        int r = (col - 1) % 26;
        tmp[n++] = (char)('A' + r);
        col = (col - 1) / 26;
    }
    for (int i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
}

void siu_move_write(const Move *m, const Board *b, const LetterDist *ld, char *buf, size_t cap) {
    RkText o = {buf, cap, 0};
    if (cap > 0) buf[0] = '\0';
    if (m->kind == MOVE_PASS) {
        rk_text_put(&o, "pass");
        return;
    }
    if (m->kind == MOVE_EXCHANGE) {
        Move sorted = *m;
        move_exchange_sort(&sorted);
        rk_text_put(&o, "ex.");
        for (int i = 0; i < sorted.len && i < RK_MAX_DIM; i++) out_tile(&o, ld, sorted.tiles[i]);
        return;
    }
    char coord[24], letters[8];
    col_letters(m->col, letters);
    if (m->dir == DIR_ACROSS) snprintf(coord, sizeof coord, "%d%s.", m->row + 1, letters);
    else snprintf(coord, sizeof coord, "%s%d.", letters, m->row + 1);
    rk_text_put(&o, coord);
    int dr = m->dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr;
    int n = m->len <= RK_MAX_DIM ? m->len : RK_MAX_DIM;
    for (int i = 0; i < n; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) t = board_at(b, m->row + dr * i, m->col + dc * i);
        out_tile(&o, ld, t);
    }
}

/* ---------------------------------------------------------------- parsing */

/* One tile label at *p: a label of the distribution, or [LABEL]. Returns the
 * ML (with RK_BLANK_BIT for lowercase) or -1. */
static int parse_tile(const LetterDist *ld, const char **p, const char *end) {
    if (**p == '[') {
        const char *close = memchr(*p, ']', (size_t)(end - *p));
        if (close == NULL || close - *p - 1 > RK_LABEL_MAX || close == *p + 1) return -1;
        char label[RK_LABEL_MAX + 1];
        memcpy(label, *p + 1, (size_t)(close - *p - 1));
        label[close - *p - 1] = '\0';
        const char *q = label;
        int t = ld_parse_tile(ld, &q);
        if (t < 0 || *q != '\0') return -1;
        *p = close + 1;
        return t;
    }
    const char *q = *p;
    int t = ld_parse_tile(ld, &q);
    if (t < 0 || q > end) return -1;
    *p = q;
    return t;
}

/* The tiles of [s, end) into out; returns the count or -1 (err set). */
static int parse_tiles(const LetterDist *ld, const char *s, const char *end, uint8_t *out, int cap,
                       const char *tok, RkError *err) {
    int n = 0;
    const char *p = s;
    while (p < end) {
        const char *at = p;
        int t = parse_tile(ld, &p, end);
        if (t < 0) {
            char q[32];
            rk_quote_text(q, sizeof q, at, (size_t)(end - at) < 8 ? (size_t)(end - at) : 8);
            return rk_error(err, "move '%s': unknown tile at '%s'", tok, q);
        }
        if (n >= cap) return rk_error(err, "move '%s': too many tiles", tok);
        out[n++] = (uint8_t)t;
    }
    return n;
}

static int parse_exchange(Move *m, bool *unknown, const char *body, const char *end, const LetterDist *ld,
                          const char *tok, RkError *err) {
    if (body == end) return rk_error(err, "move '%s': an exchange needs tiles or a count", tok);
    m->kind = MOVE_EXCHANGE;
    if (isdigit((unsigned char)*body)) {
        int n = 0;
        for (const char *p = body; p < end; p++) {
            if (!isdigit((unsigned char)*p) || n > 100) return rk_error(err, "move '%s': bad exchange count", tok);
            n = n * 10 + (*p - '0');
        }
        if (n < 1 || n > RK_RACK_SIZE)
            return rk_error(err, "move '%s': an exchange throws 1 to %d tiles", tok, RK_RACK_SIZE);
        m->len = m->ntiles = (uint8_t)n;
        *unknown = true;
        return 0;
    }
    int n = parse_tiles(ld, body, end, m->tiles, RK_RACK_SIZE, tok, err);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++)
        if (RK_IS_BLANKED(m->tiles[i]))
            return rk_error(err, "move '%s': exchanged tiles are uppercase (a blank is '?')", tok);
    m->len = m->ntiles = (uint8_t)n;
    move_exchange_sort(m);
    return 0;
}

/* Reads a coordinate: digits then letters (across) or letters then digits
 * (down). Returns 0 with row, col (0-based) and dir, or -1. */
static int parse_coord(const char *s, const char *end, int *row, int *col, int *dir) {
    const char *p = s;
    int r = 0, c = 0, nd = 0, nl = 0;
    bool digits_first = p < end && isdigit((unsigned char)*p);
    for (int part = 0; part < 2; part++) {
        bool want_digits = (part == 0) == digits_first;
        if (want_digits) {
            while (p < end && isdigit((unsigned char)*p)) {
                if (++nd > 3) return -1;
                r = r * 10 + (*p++ - '0');
            }
        } else {
            while (p < end && isalpha((unsigned char)*p)) {
                if (++nl > 3) return -1;
                c = c * 26 + (toupper((unsigned char)*p++) - 'A' + 1);
            }
        }
    }
    if (p != end || nd == 0 || nl == 0 || r < 1) return -1;
    *row = r - 1;
    *col = c - 1;
    *dir = digits_first ? DIR_ACROSS : DIR_DOWN;
    return 0;
}

int siu_move_parse(Move *m, bool *unknown_tiles, const char *token, const Board *b, const LetterDist *ld,
                   RkError *err) {
    memset(m, 0, sizeof *m);
    *unknown_tiles = false;
    char tok[64];
    rk_quote_text(tok, sizeof tok, token, strlen(token));
    size_t len = strlen(token);
    if (len == 0) return rk_error(err, "move '': empty");
    if (strcmp(token, "pass") == 0) {
        m->kind = MOVE_PASS;
        return 0;
    }
    const char *end = token + len;
    const char *dot = memchr(token, '.', len);
    if (dot == NULL) return rk_error(err, "move '%s': expected COORD.TILES, ex.TILES, ex.N or pass", tok);
    const char *field_end = memchr(dot + 1, '.', (size_t)(end - dot - 1));
    if (field_end == NULL) field_end = end; /* later fields (rack, challenge) are ignored */
    if (dot - token == 2 && strncmp(token, "ex", 2) == 0)
        return parse_exchange(m, unknown_tiles, dot + 1, field_end, ld, tok, err);
    if (dot - token == 5 && strncmp(token, "phony", 5) == 0)
        return rk_error(err, "move '%s': a phony is not a move rookery plays (challenges are not supported)", tok);
    int row, col, dir;
    if (parse_coord(token, dot, &row, &col, &dir) != 0)
        return rk_error(err, "move '%s': bad coordinate (8D across, D8 down)", tok);
    if (row >= b->dim || col >= b->dim) return rk_error(err, "move '%s': the square is off the board", tok);
    uint8_t tiles[RK_MAX_DIM];
    int n = parse_tiles(ld, dot + 1, field_end, tiles, RK_MAX_DIM, tok, err);
    if (n < 0) return -1;
    if (n == 0) return rk_error(err, "move '%s': no tiles", tok);
    int dr = dir == DIR_ACROSS ? 0 : 1, dc = 1 - dr;
    if ((dir == DIR_ACROSS ? col : row) + n > b->dim) return rk_error(err, "move '%s': runs off the board", tok);
    m->kind = MOVE_PLACE;
    m->dir = (uint8_t)dir;
    m->row = (uint8_t)row;
    m->col = (uint8_t)col;
    m->len = (uint8_t)n;
    int fresh = 0;
    for (int i = 0; i < n; i++) {
        uint8_t on = board_at(b, row + dr * i, col + dc * i);
        if (on != 0) {
            if (RK_LETTER(on) != RK_LETTER(tiles[i]))
                return rk_error(err, "move '%s': square %d%c holds another letter", tok, row + dr * i + 1,
                                'A' + col + dc * i);
            m->tiles[i] = MOVE_PLAYED_THROUGH;
        } else {
            if (RK_LETTER(tiles[i]) == 0) return rk_error(err, "move '%s': a placed blank needs its letter", tok);
            m->tiles[i] = tiles[i];
            fresh++;
        }
    }
    if (fresh == 0) return rk_error(err, "move '%s': places no tile", tok);
    if (fresh > RK_RACK_SIZE) return rk_error(err, "move '%s': places more than %d tiles", tok, RK_RACK_SIZE);
    m->ntiles = (uint8_t)fresh;
    return 0;
}

/* ---------------------------------------------------------------- legality */

int siu_move_check(const Game *g, bool rack_known, Move *m, bool unknown_tiles, RkError *err) {
    const Rack *mine = &g->racks[g->on_turn];
    Rack pool; /* what the mover may hold */
    if (rack_known)
        pool = *mine;
    else
        bag_plus_rack(&g->bag, mine, &pool);
    int held = rack_known ? mine->total : (pool.total < RK_RACK_SIZE ? pool.total : RK_RACK_SIZE);
    m->score = 0;
    m->equity = 0;
    if (m->kind == MOVE_PASS) return 0;
    if (m->kind == MOVE_EXCHANGE) {
        if (!game_can_exchange(g)) return rk_error(err, "an exchange needs at least %d tiles in the bag", RK_RACK_SIZE);
        if (m->ntiles > held) return rk_error(err, "exchanges %d tiles but the player holds %d", m->ntiles, held);
        if (unknown_tiles) return 0;
        Rack need;
        move_rack_tiles(m, &need);
        for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
            if (need.count[ml] > pool.count[ml])
                return rk_error(err, "exchanges tiles the player %s", rack_known ? "does not hold" : "cannot hold");
        return 0;
    }
    if (unknown_tiles) return rk_error(err, "a placement's tiles must be known");
    Rack need;
    move_rack_tiles(m, &need);
    if (need.total > held) return rk_error(err, "places %d tiles but the player holds %d", need.total, held);
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        if (need.count[ml] > pool.count[ml])
            return rk_error(err, "places tiles the player %s", rack_known ? "does not hold" : "cannot hold");
    /* the legal placements of a rack of exactly these tiles hold m if m is legal */
    Game *probe = malloc(sizeof *probe);
    if (probe == NULL) return rk_error(err, "out of memory");
    *probe = *g;
    probe->racks[probe->on_turn] = need;
    bool legal = movegen_find(probe, m);
    free(probe);
    m->equity = 0;
    if (!legal) return rk_error(err, "not a legal play here (a word not in the lexicon, or the tiles do not connect)");
    return 0;
}
