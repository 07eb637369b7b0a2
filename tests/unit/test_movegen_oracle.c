/*
 * test_movegen_oracle.c - the move generator against a brute-force oracle.
 *
 * The oracle knows nothing of the GADDAG, cross-sets or anchors: it reads
 * only the tiles of the board (board_at) and the layout's premiums, and
 * checks words in its own hash map of every word and word prefix. For every
 * square and direction it extends a span to the right one square at a time,
 * filling empty squares with every rack tile (a blank as every letter), and
 * records the span when it is bounded, holds a fresh tile, is connected (a
 * fresh tile beside a board tile, or on the start square of the empty
 * board), its main word is a word and every cross-word of a fresh tile is a
 * word. Scores come straight from the premiums. Single-tile plays found both
 * ways are merged (counting convention 3). Two prunings keep it fast and
 * never change the result: a span stops growing once no word starts with
 * it, and a span is not started when none of the squares its tiles could
 * reach is beside a tile.
 *
 * The lexicon is generated here with a fixed seed: a few thousand random
 * words drawn with the English tile frequencies plus real short words, so
 * that random boards have many legal plays. Positions come from random
 * games whose moves are picked from the oracle's own lists; each move is
 * placed both incrementally (board_place_move) and by board_put +
 * board_refresh, and the two boards (and a refreshed copy of the
 * incremental one) must agree exactly.
 *
 * For each position the full list from movegen_all (placements, exchanges,
 * one pass) must equal the oracle's under four equity settings (no leaves /
 * pseudo-random leaves, bag not empty / empty, and random positional values
 * per (square, tile bucket) with the bag not empty: the SPV adjustment,
 * computed here from the move's fresh tiles), and movegen_best must return
 * the first move of that list in movegen_compare order, both on the graph
 * path and from the lexicon's word map (wordmap.h, built here from the
 * graph; that path must not fall back to the graph).
 *
 * ROOKERY_TEST_QUICK=1 runs a tenth of the positions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/board.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/movegen.h"
#include "core/wordmap.h"
#include "testutil.h"

/* ------------------------------------------------------------ random */

typedef struct Prng {
    uint64_t s;
} Prng;

static uint64_t pr_next(Prng *p) { /* splitmix64 */
    uint64_t z = (p->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int pr_below(Prng *p, int n) { return (int)(pr_next(p) % (uint64_t)n); }

/* ------------------------------------------------------------ key maps */

/* Words of at most MAXWL letters packed 5 bits per letter (letters are
 * 1..26, so the packing is unique and never 0). */
#define MAXWL 12

typedef struct KeyMap {
    uint64_t *key;
    uint32_t *val;
    size_t mask, n;
} KeyMap;

static uint64_t mix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDULL;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ULL;
    k ^= k >> 33;
    return k;
}

static void km_init(KeyMap *m, size_t cap) {
    m->mask = cap - 1;
    m->n = 0;
    m->key = calloc(cap, sizeof *m->key);
    m->val = calloc(cap, sizeof *m->val);
}

static void km_free(KeyMap *m) {
    free(m->key);
    free(m->val);
}

/* The value of k, or 0 if absent. */
static uint32_t km_get(const KeyMap *m, uint64_t k) {
    for (size_t i = mix64(k) & m->mask;; i = (i + 1) & m->mask) {
        if (m->key[i] == k) return m->val[i];
        if (m->key[i] == 0) return 0;
    }
}

static uint32_t *km_slot(KeyMap *m, uint64_t k);

static void km_grow(KeyMap *m) {
    KeyMap t;
    km_init(&t, (m->mask + 1) * 2);
    for (size_t i = 0; i <= m->mask; i++)
        if (m->key[i]) *km_slot(&t, m->key[i]) = m->val[i];
    km_free(m);
    *m = t;
}

/* The value slot of k, created (0) if absent. Load stays under 1/4. */
static uint32_t *km_slot(KeyMap *m, uint64_t k) {
    if ((m->n + 1) * 4 > m->mask + 1) km_grow(m);
    for (size_t i = mix64(k) & m->mask;; i = (i + 1) & m->mask) {
        if (m->key[i] == k) return &m->val[i];
        if (m->key[i] == 0) {
            m->key[i] = k;
            m->n++;
            return &m->val[i];
        }
    }
}

static uint64_t pack_word(const uint8_t *w, int len) {
    if (len < 1 || len > MAXWL) return 0;
    uint64_t k = 0;
    for (int i = 0; i < len; i++) k = (k << 5) | RK_LETTER(w[i]);
    return k;
}

/* ------------------------------------------------------------ lexicon */

/* Every prefix of every word (the words included) maps to its info: bit 0
 * set if it is a word, bit L set if letter L can follow it. */
#define INFO_WORD 1u
#define INFO_NEXT(info) ((info) & ~INFO_WORD)

typedef struct Lex {
    KeyMap pre;
    uint32_t root_next; /* letters that start a word */
    uint8_t (*w)[MAXWL];
    int *len;
    size_t n, cap;
} Lex;

static void lex_add(Lex *lx, const uint8_t *w, int len) {
    uint64_t k = pack_word(w, len);
    if (k == 0 || (km_get(&lx->pre, k) & INFO_WORD)) return;
    *km_slot(&lx->pre, k) |= INFO_WORD;
    if (lx->n == lx->cap) {
        lx->cap = lx->cap ? lx->cap * 2 : 1024;
        lx->w = realloc(lx->w, lx->cap * sizeof *lx->w);
        lx->len = realloc(lx->len, lx->cap * sizeof *lx->len);
    }
    memcpy(lx->w[lx->n], w, (size_t)len);
    lx->len[lx->n++] = len;
    lx->root_next |= 1u << w[0];
    for (int i = 1; i < len; i++) *km_slot(&lx->pre, pack_word(w, i)) |= 1u << w[i];
}

static bool lex_word(const Lex *lx, const uint8_t *w, int len) {
    uint64_t k = pack_word(w, len);
    return k != 0 && (km_get(&lx->pre, k) & INFO_WORD);
}

static const char *const CURATED[] = {
    "AA", "AB", "AD", "AE", "AG", "AH", "AI", "AL", "AM", "AN", "AR", "AS", "AT", "AW", "AX",
    "AY", "BA", "BE", "BI", "BO", "BY", "DA", "DE", "DO", "ED", "EF", "EH", "EL", "EM", "EN",
    "ER", "ES", "EX", "FA", "FE", "GO", "HA", "HE", "HI", "HM", "HO", "ID", "IF", "IN", "IS",
    "IT", "JO", "KA", "KI", "LA", "LI", "LO", "MA", "ME", "MI", "MO", "MU", "MY", "NA", "NE",
    "NO", "NU", "OD", "OE", "OF", "OH", "OI", "OM", "ON", "OP", "OR", "OS", "OW", "OX", "OY",
    "PA", "PE", "PI", "QI", "RE", "SH", "SI", "SO", "TA", "TI", "TO", "UH", "UM", "UN", "UP",
    "US", "UT", "WE", "WO", "XI", "XU", "YA", "YE", "YO", "ZA", "CAT", "DOG", "EAT", "TEA",
    "ATE", "ETA", "SAT", "SET", "SIT", "TIN", "TON", "NOT", "NET", "TEN", "RAT", "TAR", "ART",
    "ORE", "ROE", "TOE", "NOTE", "TONE", "STONE", "ONSET", "SETON", "NOTES", "RATE", "TEAR",
    "TARE", "RATES", "STARE", "TEARS", "ASTER", "QUA", "QAT", "ZAX", "JAB", "JAW", "FIZ",
    "ZEE", "ZOA", "OXO", "AXE", "WAX", "VEX", "KEX", "QUARTZ", "RETAINS", "STAINER", "NASTIER",
    "RETINAS", "SENATOR", "TREASON", "ATONERS", "ORATES", "OATERS", "TOEAS", "AEON", "AEONS",
    "EONS", "NOSE", "ONES", "SONE", "SNORE", "TENOR", "TONER", "TRONES", "STONER", "TENSOR",
    "ORIENTS", "STONIER", "OESTRIN", "NORITES", "TRIENS", "INERT", "INTER", "NITRE", "NITER",
    "TRINE", "RESIT", "RITES", "TIRES", "TIERS", "TRIES", "DIET", "EDIT", "TIDE", "TIED",
};

/* A deterministic word list: real short words plus random words drawn with
 * the distribution's letter frequencies. */
static void lex_generate(Lex *lx, const LetterDist *ld, uint64_t seed) {
    memset(lx, 0, sizeof *lx);
    km_init(&lx->pre, 1u << 12);
    uint8_t w[MAXWL];
    for (size_t i = 0; i < sizeof CURATED / sizeof CURATED[0]; i++) {
        int n = (int)strlen(CURATED[i]);
        for (int j = 0; j < n; j++) w[j] = (uint8_t)(CURATED[i][j] - 'A' + 1);
        lex_add(lx, w, n);
    }
    int total = 0;
    for (int ml = 1; ml < ld->size; ml++) total += ld->count[ml];
    static const int per_len[9] = {0, 0, 200, 450, 450, 350, 300, 250, 200};
    Prng rng = {seed};
    for (int len = 2; len <= 8; len++) {
        for (int i = 0; i < per_len[len]; i++) {
            for (int j = 0; j < len; j++) {
                int r = pr_below(&rng, total), ml = 1;
                while (r >= ld->count[ml]) r -= ld->count[ml++];
                w[j] = (uint8_t)ml;
            }
            lex_add(lx, w, len);
        }
    }
}

static void lex_free(Lex *lx) {
    km_free(&lx->pre);
    free(lx->w);
    free(lx->len);
}

static int lex_build_kwg(const Lex *lx, Kwg *kwg) {
    const uint8_t **ptrs = malloc(lx->n * sizeof *ptrs);
    for (size_t i = 0; i < lx->n; i++) ptrs[i] = lx->w[i];
    KwgWords kw = {ptrs, lx->len, lx->n};
    RkError err;
    int rc = kwg_build(kwg, &kw, true, &err);
    if (rc != 0) printf("\nkwg_build failed: %s\n", err.msg);
    free(ptrs);
    return rc;
}

/* ------------------------------------------------------------ move lists */

typedef struct OList {
    Move *m;
    size_t n, cap;
} OList;

static Move *ol_push(OList *l) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        if (l->m == NULL) abort();
    }
    Move *m = &l->m[l->n++];
    memset(m, 0, sizeof *m);
    return m;
}

static void ol_free(OList *l) {
    free(l->m);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------ oracle */

typedef struct Oracle {
    const Layout *lay;
    const LetterDist *ld;
    const Lex *lx;
    int dim;
    uint8_t grid[RK_MAX_DIM][RK_MAX_DIM];
    bool empty;
    int rack[RK_MAX_LETTERS], rack_total;
    int d, line; /* current direction and row (across) or column (down) */
    uint8_t word[RK_MAX_DIM], fresh[RK_MAX_DIM];
    int nfresh;
    /* letters (bit L) whose cross-word would be a word, per direction and
     * empty square (all letters where a tile makes no cross-word), and the
     * empty squares with a tile beside them */
    uint32_t xok[2][RK_MAX_DIM][RK_MAX_DIM];
    bool beside[RK_MAX_DIM][RK_MAX_DIM];
    OList *out;
} Oracle;

static void o_sq(const Oracle *o, int p, int *r, int *c) {
    *r = o->d == DIR_ACROSS ? o->line : p;
    *c = o->d == DIR_ACROSS ? p : o->line;
}

static uint8_t o_at(const Oracle *o, int p) {
    int r, c;
    o_sq(o, p, &r, &c);
    return o->grid[r][c];
}

static bool o_on(const Oracle *o, int r, int c) { return r >= 0 && c >= 0 && r < o->dim && c < o->dim; }

/* The word perpendicular to the current direction through (r, c) if tile t
 * lay there: its length (1 = no cross-word) and, in *others, the face value
 * of its other tiles. */
static int o_perp(const Oracle *o, int r, int c, uint8_t t, uint8_t *w, int *others) {
    int dr = o->d == DIR_ACROSS ? 1 : 0, dc = 1 - dr;
    int r0 = r, c0 = c;
    while (o_on(o, r0 - dr, c0 - dc) && o->grid[r0 - dr][c0 - dc]) {
        r0 -= dr;
        c0 -= dc;
    }
    int n = 0;
    *others = 0;
    for (int rr = r0, cc = c0; o_on(o, rr, cc); rr += dr, cc += dc) {
        uint8_t x;
        if (rr == r && cc == c) {
            x = t;
        } else {
            x = o->grid[rr][cc];
            if (x == 0) break;
            *others += ld_tile_score(o->ld, x);
        }
        if (n < RK_MAX_DIM) w[n] = x;
        n++;
    }
    return n;
}

static bool o_touches(const Oracle *o, int r, int c) {
    return (o_on(o, r - 1, c) && o->grid[r - 1][c]) || (o_on(o, r + 1, c) && o->grid[r + 1][c]) ||
           (o_on(o, r, c - 1) && o->grid[r][c - 1]) || (o_on(o, r, c + 1) && o->grid[r][c + 1]);
}

static void o_record(Oracle *o, int start, int wl) {
    const Layout *lay = o->lay;
    bool connected = false;
    int main_sum = 0, wmul = 1, cross = 0;
    for (int i = 0; i < wl; i++) {
        int r, c;
        o_sq(o, start + i, &r, &c);
        if (o->fresh[i] == 0) {
            main_sum += ld_tile_score(o->ld, o->word[i]);
            continue;
        }
        if (o->empty) connected = connected || (r == lay->start_row && c == lay->start_col);
        else connected = connected || o_touches(o, r, c);
        int v = ld_tile_score(o->ld, o->fresh[i]) * lay->letter_mult[r * o->dim + c];
        int wm = lay->word_mult[r * o->dim + c];
        main_sum += v;
        wmul *= wm;
        uint8_t pw[RK_MAX_DIM];
        int others, pl = o_perp(o, r, c, o->fresh[i], pw, &others);
        if (pl >= 2) cross += (others + v) * wm;
    }
    if (!connected) return;
    Move *m = ol_push(o->out);
    m->kind = MOVE_PLACE;
    m->dir = (uint8_t)o->d;
    int r, c;
    o_sq(o, start, &r, &c);
    m->row = (uint8_t)r;
    m->col = (uint8_t)c;
    m->len = (uint8_t)wl;
    m->ntiles = (uint8_t)o->nfresh;
    for (int i = 0; i < wl; i++) m->tiles[i] = o->fresh[i];
    m->score = main_sum * wmul + cross + (o->nfresh == 7 ? 50 : 0);
}

static void o_ext(Oracle *o, int start, int p, int wl, uint64_t key, uint32_t next);

/* Square p has just been added as word[wl-1]; key and info describe
 * word[0..wl). */
static void o_after(Oracle *o, int start, int p, int wl, uint64_t key, uint32_t info) {
    bool bounded = p + 1 == o->dim || o_at(o, p + 1) == 0;
    if (bounded && o->nfresh > 0 && wl >= 2 && (info & INFO_WORD)) o_record(o, start, wl);
    if (p + 1 < o->dim && INFO_NEXT(info) != 0) o_ext(o, start, p + 1, wl, key, INFO_NEXT(info));
}

/* Extends word[0..wl) (packed as key; `next` = the letters that may follow
 * it in some word) with square p. */
static void o_ext(Oracle *o, int start, int p, int wl, uint64_t key, uint32_t next) {
    uint8_t t = o_at(o, p);
    if (t != 0) {
        uint32_t letter = RK_LETTER(t);
        if (((next >> letter) & 1u) == 0) return;
        o->word[wl] = t;
        o->fresh[wl] = 0;
        uint64_t k2 = (key << 5) | letter;
        o_after(o, start, p, wl + 1, k2, km_get(&o->lx->pre, k2));
        return;
    }
    if (o->rack_total == 0) return;
    int r, c;
    o_sq(o, p, &r, &c);
    uint32_t allowed = next & o->xok[o->d][r][c];
    if (allowed == 0) return;
    for (int ml = 0; ml < o->ld->size; ml++) {
        if (o->rack[ml] == 0) continue;
        int lo = ml == 0 ? 1 : ml, hi = ml == 0 ? o->ld->size - 1 : ml;
        for (int letter = lo; letter <= hi; letter++) {
            if (((allowed >> letter) & 1u) == 0) continue;
            uint8_t tile = (uint8_t)(ml == 0 ? ((unsigned)letter | RK_BLANK_BIT) : (unsigned)letter);
            uint64_t k2 = (key << 5) | (uint64_t)letter;
            o->word[wl] = tile;
            o->fresh[wl] = tile;
            o->rack[ml]--;
            o->rack_total--;
            o->nfresh++;
            o_after(o, start, p, wl + 1, k2, km_get(&o->lx->pre, k2));
            o->nfresh--;
            o->rack_total++;
            o->rack[ml]++;
            o->fresh[wl] = 0;
        }
    }
}

/* Can a play whose span starts at s (current direction and line) be
 * connected? Its fresh tiles fill the first empty squares from s on, so one
 * of the first rack_total of them must touch a tile (or be the start square
 * on the empty board). A necessary condition only: it just skips spans that
 * could never be recorded. */
static bool o_may_connect(const Oracle *o, int s) {
    int seen = 0;
    for (int p = s; p < o->dim && seen < o->rack_total; p++) {
        int r, c;
        o_sq(o, p, &r, &c);
        if (o->grid[r][c]) continue;
        seen++;
        if (o->empty ? (r == o->lay->start_row && c == o->lay->start_col) : o->beside[r][c]) return true;
    }
    return false;
}

/* Fills xok and beside by trying every letter in every cross-word. */
static void o_prepare(Oracle *o) {
    uint32_t all = 0;
    for (int l = 1; l < o->ld->size; l++) all |= 1u << l;
    for (int r = 0; r < o->dim; r++)
        for (int c = 0; c < o->dim; c++) {
            o->beside[r][c] = o->grid[r][c] == 0 && o_touches(o, r, c);
            for (o->d = 0; o->d < 2; o->d++) {
                o->xok[o->d][r][c] = 0;
                if (o->grid[r][c]) continue;
                uint8_t pw[RK_MAX_DIM];
                int others;
                if (o_perp(o, r, c, 1, pw, &others) < 2) {
                    o->xok[o->d][r][c] = all;
                    continue;
                }
                for (int l = 1; l < o->ld->size; l++) {
                    int n = o_perp(o, r, c, (uint8_t)l, pw, &others);
                    if (lex_word(o->lx, pw, n)) o->xok[o->d][r][c] |= 1u << l;
                }
            }
        }
}

typedef struct SingleKey {
    int key;
    size_t idx;
} SingleKey;

static int single_cmp(const void *a, const void *b) {
    const SingleKey *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/* Every placement of the rack on the board (tiles read with board_at only).
 * Returns -1 if the oracle contradicts itself (a merged single-tile play
 * scored differently in the two directions). */
static int oracle_placements(const Board *b, const Layout *lay, const LetterDist *ld, const Lex *lx,
                             const int rack[RK_MAX_LETTERS], OList *out) {
    Oracle *o = calloc(1, sizeof *o);
    o->lay = lay;
    o->ld = ld;
    o->lx = lx;
    o->dim = lay->dim;
    o->out = out;
    out->n = 0;
    o->empty = true;
    for (int r = 0; r < o->dim; r++)
        for (int c = 0; c < o->dim; c++) {
            o->grid[r][c] = board_at(b, r, c);
            if (o->grid[r][c]) o->empty = false;
        }
    for (int ml = 0; ml < ld->size; ml++) {
        o->rack[ml] = rack[ml];
        o->rack_total += rack[ml];
    }
    o_prepare(o);
    int ndirs = o->empty ? 1 : 2;
    for (o->d = 0; o->d < ndirs; o->d++)
        for (o->line = 0; o->line < o->dim; o->line++)
            for (int s = 0; s < o->dim; s++)
                if ((s == 0 || o_at(o, s - 1) == 0) && o_may_connect(o, s))
                    o_ext(o, s, s, 0, 0, lx->root_next);
    /* convention 3: one tile forming words both ways is one move, across */
    int rc = 0;
    SingleKey *keys = malloc((out->n + 1) * sizeof *keys);
    size_t nk = 0;
    for (size_t i = 0; i < out->n; i++) {
        const Move *m = &out->m[i];
        if (m->ntiles != 1) continue;
        int at = 0;
        while (m->tiles[at] == 0) at++;
        int r = m->row + (m->dir == DIR_DOWN ? at : 0), c = m->col + (m->dir == DIR_ACROSS ? at : 0);
        keys[nk].key = (r * o->dim + c) * 256 + m->tiles[at];
        keys[nk++].idx = i;
    }
    qsort(keys, nk, sizeof *keys, single_cmp);
    bool *drop = calloc(out->n + 1, sizeof *drop);
    for (size_t i = 0; i + 1 < nk; i++) {
        if (keys[i].key != keys[i + 1].key) continue;
        Move *a = &out->m[keys[i].idx], *d = &out->m[keys[i + 1].idx];
        if (a->dir != DIR_ACROSS || d->dir != DIR_DOWN || a->score != d->score) rc = -1;
        drop[keys[i + 1].idx] = true;
    }
    size_t w = 0;
    for (size_t i = 0; i < out->n; i++)
        if (!drop[i]) out->m[w++] = out->m[i];
    out->n = w;
    free(drop);
    free(keys);
    free(o);
    return rc;
}

static void oracle_exch_rec(const int rack[], int size, int ml, uint8_t *thrown, int n, OList *out) {
    if (ml == size) {
        if (n == 0) return;
        Move *m = ol_push(out);
        m->kind = MOVE_EXCHANGE;
        m->len = m->ntiles = (uint8_t)n;
        memcpy(m->tiles, thrown, (size_t)n);
        return;
    }
    for (int k = 0; k <= rack[ml]; k++) {
        for (int i = 0; i < k; i++) thrown[n + i] = (uint8_t)ml;
        oracle_exch_rec(rack, size, ml + 1, thrown, n + k, out);
    }
}

/* Every distinct non-empty sub-multiset of the rack, tiles in ML order. */
static void oracle_exchanges(const int rack[], int size, OList *out) {
    uint8_t thrown[RK_MAX_DIM];
    out->n = 0;
    oracle_exch_rec(rack, size, 0, thrown, 0, out);
}

/* ------------------------------------------------------------ equity */

typedef struct LeaveCtx {
    uint64_t salt;
    int size;
} LeaveCtx;

/* A pseudo-random leave value in -20000..30000 millipoints; 0 when empty. */
static int32_t hash_leave(const void *ctx, const Rack *leave) {
    const LeaveCtx *lc = ctx;
    if (leave->total == 0) return 0;
    uint64_t h = 0xCBF29CE484222325ULL ^ lc->salt;
    for (int ml = 0; ml < lc->size; ml++) {
        h ^= leave->count[ml];
        h *= 0x100000001B3ULL;
    }
    h = mix64(h);
    return (int32_t)(h % 50001) - 20000;
}

typedef struct Cfg {
    const char *name;
    int bag_count, opp_score;
    bool exch;
    LeaveValueFn leave;
    const LeaveCtx *lctx;
    const PositionalValues *pv; /* NULL: none */
} Cfg;

/* The positional values of a placement's fresh tiles (bag not empty): the
 * square is row*dim+col across and col*dim+row down (the transposed square),
 * the bucket the face value clamped to buckets-1, 0 for a blank. */
static int32_t oracle_positional(const Move *m, const PositionalValues *pv, const LetterDist *ld, int dim) {
    int32_t sum = 0;
    for (int i = 0; i < m->len; i++) {
        uint8_t t = m->tiles[i];
        if (t == 0) continue;
        int r = m->dir == DIR_ACROSS ? m->row : m->row + i;
        int c = m->dir == DIR_ACROSS ? m->col + i : m->col;
        int sq = m->dir == DIR_ACROSS ? r * dim + c : c * dim + r;
        int v = RK_IS_BLANKED(t) ? 0 : ld->score[t];
        if (v > pv->buckets - 1) v = pv->buckets - 1;
        sum += pv->v[sq * pv->buckets + v];
    }
    return sum;
}

static void random_positional(PositionalValues *pv, Prng *rng, int dim) {
    pv->buckets = 1 + pr_below(rng, POS_MAX_BUCKETS);
    for (int i = 0; i < dim * dim * pv->buckets; i++) pv->v[i] = pr_below(rng, 16001) - 8000;
}

static int32_t cfg_leave(const Cfg *cfg, const int kept[], int size) {
    Rack r;
    rack_clear(&r);
    for (int ml = 0; ml < size; ml++) {
        r.count[ml] = (uint8_t)kept[ml];
        r.total += kept[ml];
    }
    if (r.total == 0 || cfg->leave == NULL) return 0;
    return cfg->leave(cfg->lctx, &r);
}

static int32_t oracle_equity(const Move *m, const int rack[], const Cfg *cfg, const LetterDist *ld,
                             const Layout *lay, bool empty_board) {
    int kept[RK_MAX_LETTERS];
    memcpy(kept, rack, sizeof kept);
    if (m->kind == MOVE_EXCHANGE) {
        for (int i = 0; i < m->len; i++) kept[m->tiles[i]]--;
        return cfg_leave(cfg, kept, ld->size);
    }
    for (int i = 0; i < m->len; i++)
        if (m->tiles[i]) kept[RK_IS_BLANKED(m->tiles[i]) ? 0 : m->tiles[i]]--;
    int kept_total = 0, kept_face = 0;
    for (int ml = 0; ml < ld->size; ml++) {
        kept_total += kept[ml];
        kept_face += kept[ml] * (ml == 0 ? 0 : ld->score[ml]);
    }
    int32_t eq = m->score * 1000;
    if (cfg->bag_count > 0) {
        eq += cfg_leave(cfg, kept, ld->size);
        if (cfg->pv != NULL) eq += oracle_positional(m, cfg->pv, ld, lay->dim);
        if (empty_board) {
            int dim = lay->dim, sr = lay->start_row;
            for (int i = 0; i < m->len; i++) {
                uint8_t t = m->tiles[i];
                if (t == 0 || !ld->vowel[RK_LETTER(t)]) continue;
                int c = m->col + i; /* openings are across */
                for (int rr = sr - 1; rr <= sr + 1; rr += 2) {
                    if (rr < 0 || rr >= dim) continue;
                    eq -= 350 * (lay->word_mult[rr * dim + c] - 1);
                    eq -= 350 * (lay->letter_mult[rr * dim + c] - 1);
                }
            }
        }
    } else if (kept_total == 0) {
        eq += 2000 * cfg->opp_score;
    } else {
        eq -= 1000 * (10 + 2 * kept_face);
    }
    return eq;
}

/* ------------------------------------------------------------ printing */

static void fmt_tile(const LetterDist *ld, uint8_t t, char *buf, size_t cap) {
    const char *s = RK_IS_BLANKED(t) ? ld->lower[RK_LETTER(t)] : ld->upper[RK_LETTER(t)];
    snprintf(buf, cap, "%s", s);
}

static void fmt_move(const Move *m, const Board *b, const LetterDist *ld, char *buf, size_t cap) {
    size_t pos = 0;
    buf[0] = '\0';
#define APPEND(...)                                                                  \
    do {                                                                             \
        if (pos < cap) pos += (size_t)snprintf(buf + pos, cap - pos, __VA_ARGS__);   \
    } while (0)
    char lab[RK_LABEL_MAX + 1];
    if (m->kind == MOVE_PASS) {
        APPEND("pass");
    } else if (m->kind == MOVE_EXCHANGE) {
        APPEND("(exch ");
        for (int i = 0; i < m->len; i++) APPEND("%s", ld->upper[m->tiles[i]]);
        APPEND(")");
    } else {
        if (m->dir == DIR_ACROSS) APPEND("%d%c ", m->row + 1, 'A' + m->col);
        else APPEND("%c%d ", 'A' + m->col, m->row + 1);
        bool open = false;
        for (int i = 0; i < m->len; i++) {
            int r = m->row + (m->dir == DIR_DOWN ? i : 0), c = m->col + (m->dir == DIR_ACROSS ? i : 0);
            uint8_t t = m->tiles[i];
            bool through = t == MOVE_PLAYED_THROUGH;
            if (through && !open) APPEND("(");
            if (!through && open) APPEND(")");
            open = through;
            fmt_tile(ld, through ? board_at(b, r, c) : t, lab, sizeof lab);
            APPEND("%s", lab);
        }
        if (open) APPEND(")");
    }
    APPEND(" score %d equity %d ntiles %d", m->score, m->equity, m->ntiles);
#undef APPEND
}

static void print_board(const Board *b, const LetterDist *ld) {
    printf("  board: ");
    for (int r = 0; r < b->dim; r++) {
        int run = 0;
        for (int c = 0; c < b->dim; c++) {
            uint8_t t = board_at(b, r, c);
            if (t == 0) {
                run++;
                continue;
            }
            if (run) printf("%d", run);
            run = 0;
            char lab[RK_LABEL_MAX + 1];
            fmt_tile(ld, t, lab, sizeof lab);
            printf("%s", lab);
        }
        if (run) printf("%d", run);
        printf(r + 1 < b->dim ? "/" : "\n");
    }
    for (int r = 0; r < b->dim; r++) {
        printf("    ");
        for (int c = 0; c < b->dim; c++) {
            uint8_t t = board_at(b, r, c);
            char lab[RK_LABEL_MAX + 1] = ".";
            if (t) fmt_tile(ld, t, lab, sizeof lab);
            printf("%s", lab);
        }
        printf("\n");
    }
}

static void print_rack(const int rack[], const LetterDist *ld) {
    printf("  rack: ");
    for (int ml = 0; ml < ld->size; ml++)
        for (int i = 0; i < rack[ml]; i++) printf("%s", ld->upper[ml]);
    printf("\n");
}

/* ------------------------------------------------------------ comparing */

static int key_cmp(const Move *a, const Move *b) {
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->kind == MOVE_PASS) return 0;
    if (a->kind == MOVE_PLACE) {
        if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
        if (a->row != b->row) return a->row < b->row ? -1 : 1;
        if (a->col != b->col) return a->col < b->col ? -1 : 1;
    }
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return memcmp(a->tiles, b->tiles, a->len);
}

static int key_cmp_q(const void *a, const void *b) { return key_cmp(a, b); }
static int gen_cmp_q(const void *a, const void *b) { return movegen_compare(a, b); }

typedef struct Ctx {
    const LetterDist *ld;
    const Layout *lay;
    const Lex *lx;
    Kwg *kwg;              /* the board's lexicon: its word map is attached and detached here */
    const WordMap *wordmap;
    MoveList got;
    OList place, exch, want, have, sorted;
    long positions, configs, placements, exchanges_checked, best_checks, with_blanks[3];
    long wordmap_best_checks, top_checks, beats_checks;
    long nonempty_best, best_exchanges, oracle_placements, bingos, empty_boards, blank_plays;
    int failures;
    PositionalValues pv;
} Ctx;

#define MAX_REPORTED_FAILURES 8

static void report_header(Ctx *cx, const Board *b, const int rack[], const char *what, const Cfg *cfg) {
    printf("\nORACLE MISMATCH (%s) on a %dx%d board", what, b->dim, b->dim);
    if (cfg)
        printf(", config %s (bag %d, opp %d, exchanges %s, leaves %s)", cfg->name, cfg->bag_count,
               cfg->opp_score, cfg->exch ? "yes" : "no", cfg->leave ? "hashed" : "none");
    if (cfg && cfg->pv) printf(" with positional values (%d buckets)", cfg->pv->buckets);
    printf("\n");
    print_board(b, cx->ld);
    print_rack(rack, cx->ld);
}

/* Compares movegen_all and movegen_best with the oracle for one config.
 * Returns true when everything matched. */
static bool check_config(Ctx *cx, const Board *b, const int rack[], const Cfg *cfg) {
    const LetterDist *ld = cx->ld;
    bool empty_board = board_is_empty(b);
    Rack rk;
    rack_clear(&rk);
    for (int ml = 0; ml < ld->size; ml++) {
        rk.count[ml] = (uint8_t)rack[ml];
        rk.total += rack[ml];
    }
    MoveGenRequest req = {.board = b, .rack = &rk, .bag_count = cfg->bag_count, .exchanges_allowed = cfg->exch,
                          .opp_rack_score = cfg->opp_score, .leave_value = cfg->leave, .leave_ctx = cfg->lctx,
                          .positional = cfg->pv};
    size_t nplace = movegen_all(&req, &cx->got);

    /* expected: oracle placements (+ exchanges) with equities */
    cx->want.n = 0;
    for (size_t i = 0; i < cx->place.n; i++) {
        Move *m = ol_push(&cx->want);
        *m = cx->place.m[i];
        m->equity = oracle_equity(m, rack, cfg, ld, cx->lay, empty_board);
    }
    if (cfg->exch && rk.total > 0) {
        for (size_t i = 0; i < cx->exch.n; i++) {
            Move *m = ol_push(&cx->want);
            *m = cx->exch.m[i];
            m->equity = oracle_equity(m, rack, cfg, ld, cx->lay, empty_board);
        }
    }
    cx->have.n = 0;
    int passes = 0;
    for (size_t i = 0; i < cx->got.count; i++) {
        if (cx->got.moves[i].kind == MOVE_PASS) {
            passes++;
            continue;
        }
        *ol_push(&cx->have) = cx->got.moves[i];
    }
    qsort(cx->want.m, cx->want.n, sizeof(Move), key_cmp_q);
    qsort(cx->have.m, cx->have.n, sizeof(Move), key_cmp_q);

    int shown = 0;
    bool ok = passes == 1 && nplace == cx->place.n;
    bool header = false;
#define FAIL_LINE(...)                                                        \
    do {                                                                      \
        ok = false;                                                           \
        if (cx->failures < MAX_REPORTED_FAILURES && shown < 25) {             \
            if (!header) report_header(cx, b, rack, "movegen_all", cfg);      \
            header = true;                                                    \
            printf("  ");                                                     \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
        shown++;                                                              \
    } while (0)
    char s1[256], s2[256];
    if (passes != 1) FAIL_LINE("%d passes in the list (want 1)", passes);
    if (nplace != cx->place.n)
        FAIL_LINE("movegen_all returned %zu placements, the oracle finds %zu", nplace, cx->place.n);
    size_t i = 0, j = 0;
    while (i < cx->want.n || j < cx->have.n) {
        int c = i == cx->want.n ? 1 : j == cx->have.n ? -1 : key_cmp(&cx->want.m[i], &cx->have.m[j]);
        if (c < 0) {
            fmt_move(&cx->want.m[i], b, ld, s1, sizeof s1);
            FAIL_LINE("missing: %s", s1);
            i++;
        } else if (c > 0) {
            fmt_move(&cx->have.m[j], b, ld, s2, sizeof s2);
            bool dup = j > 0 && key_cmp(&cx->have.m[j - 1], &cx->have.m[j]) == 0;
            FAIL_LINE("%s: %s", dup ? "duplicate" : "extra", s2);
            j++;
        } else {
            const Move *w = &cx->want.m[i], *h = &cx->have.m[j];
            if (w->score != h->score || w->equity != h->equity || w->ntiles != h->ntiles) {
                fmt_move(w, b, ld, s1, sizeof s1);
                fmt_move(h, b, ld, s2, sizeof s2);
                FAIL_LINE("differs: oracle %s / movegen %s", s1, s2);
            }
            i++;
            j++;
        }
    }

    /* best move: the first of the list in movegen_compare order, from the
     * graph and from the word map */
    cx->sorted.n = 0;
    for (size_t k = 0; k < cx->got.count; k++) *ol_push(&cx->sorted) = cx->got.moves[k];
    qsort(cx->sorted.m, cx->sorted.n, sizeof(Move), gen_cmp_q);
    for (int path = 0; path < 2; path++) {
        static const char *const PATH[2] = {"graph", "word map"};
        Move best;
        memset(&best, 0, sizeof best);
        MoveGenStats stats = {0};
        cx->kwg->wordmap = path == 1 ? cx->wordmap : NULL;
        movegen_best(&req, &best, &stats);
        cx->kwg->wordmap = NULL;
        cx->best_checks++;
        if (path == 1) {
            cx->wordmap_best_checks++;
            if (stats.anchors_searched + stats.anchors_pruned != 0)
                FAIL_LINE("the word-map path fell back to the graph (%llu anchors)",
                          (unsigned long long)(stats.anchors_searched + stats.anchors_pruned));
        }
        if (cx->sorted.n == 0) continue;
        const Move *first = &cx->sorted.m[0];
        int32_t max_eq = INT32_MIN;
        bool any_non_pass = false;
        for (size_t k = 0; k < cx->sorted.n; k++) {
            if (cx->sorted.m[k].kind == MOVE_PASS) continue;
            any_non_pass = true;
            if (cx->sorted.m[k].equity > max_eq) max_eq = cx->sorted.m[k].equity;
        }
        if (path == 0 && any_non_pass) cx->nonempty_best++;
        if (path == 0 && first->kind == MOVE_EXCHANGE) cx->best_exchanges++;
        if (any_non_pass && (first->kind == MOVE_PASS || first->equity != max_eq)) {
            fmt_move(first, b, ld, s1, sizeof s1);
            FAIL_LINE("sorted list starts with %s but the top equity is %d", s1, max_eq);
        }
        if (!any_non_pass && best.kind != MOVE_PASS) {
            fmt_move(&best, b, ld, s1, sizeof s1);
            FAIL_LINE("only a pass is legal but movegen_best (%s) gave %s", PATH[path], s1);
        }
        if (any_non_pass && (movegen_compare(&best, first) != 0 || key_cmp(&best, first) != 0 ||
                             best.equity != max_eq || best.score != first->score)) {
            fmt_move(&best, b, ld, s1, sizeof s1);
            fmt_move(first, b, ld, s2, sizeof s2);
            FAIL_LINE("movegen_best (%s) gave %s (score %d, equity %d), the sorted list starts with %s "
                      "(score %d, top equity %d)",
                      PATH[path], s1, best.score, best.equity, s2, first->score, max_eq);
        }
    }
    /* movegen_beats, both paths, at floors around the top equity of a
     * placement or exchange (below, at, just under and above it): whether
     * the full list has such a move above the floor */
    {
        int32_t top_eq = INT32_MIN;
        for (size_t q = 0; q < cx->got.count; q++)
            if (cx->got.moves[q].kind != MOVE_PASS && cx->got.moves[q].equity > top_eq) top_eq = cx->got.moves[q].equity;
        int32_t base = top_eq == INT32_MIN ? 0 : top_eq;
        const int32_t floors[] = {base - 20000, base - 1, base, base + 1, base + 7000, INT32_MIN + 1};
        for (int path = 0; path < 2; path++)
            for (size_t f = 0; f < sizeof floors / sizeof floors[0]; f++) {
                cx->kwg->wordmap = path == 1 ? cx->wordmap : NULL;
                bool got = movegen_beats(&req, floors[f]);
                cx->kwg->wordmap = NULL;
                bool want = top_eq != INT32_MIN && top_eq > floors[f];
                cx->beats_checks++;
                if (got != want)
                    FAIL_LINE("movegen_beats(%d, %s) says %d, the list's top equity is %d", floors[f],
                              path ? "word map" : "graph", got, top_eq);
            }
    }
    /* the k best, both orders, both paths: the first k of the sorted list */
    static const int KS[] = {1, 2, 5, 16, 40, 100};
    int k = KS[(cx->configs + cx->positions) % 6];
    MoveList top, by_eq;
    movelist_init(&top);
    movelist_init(&by_eq);
    for (size_t q = 0; q < cx->got.count; q++) *movelist_push(&by_eq) = cx->got.moves[q];
    movelist_sort_by_equity(&by_eq);
    for (int path = 0; path < 2; path++)
        for (int order = 0; order < 2; order++) {
            const Move *want = order == 0 ? cx->sorted.m : by_eq.moves;
            size_t total = order == 0 ? cx->sorted.n : by_eq.count;
            cx->kwg->wordmap = path == 1 ? cx->wordmap : NULL;
            size_t got = movegen_top(&req, k, order == 0 ? movegen_compare : move_compare_equity, &top);
            cx->kwg->wordmap = NULL;
            cx->top_checks++;
            size_t expect = total < (size_t)k ? total : (size_t)k;
            if (got != expect || top.count != expect) {
                FAIL_LINE("movegen_top(%d, %s order, %s) gave %zu moves, want %zu", k, order ? "equity" : "generator",
                          path ? "word map" : "graph", got, expect);
                continue;
            }
            for (size_t q = 0; q < expect; q++) {
                const Move *a = &top.moves[q], *w = &want[q];
                if (key_cmp(a, w) != 0 || a->equity != w->equity || a->score != w->score) {
                    fmt_move(a, b, ld, s1, sizeof s1);
                    fmt_move(w, b, ld, s2, sizeof s2);
                    FAIL_LINE("movegen_top(%d, %s order, %s) move %zu is %s, the sorted list has %s", k,
                              order ? "equity" : "generator", path ? "word map" : "graph", q, s1, s2);
                    break;
                }
            }
        }
    movelist_free(&top);
    movelist_free(&by_eq);
#undef FAIL_LINE
    if (shown > 25 && cx->failures < MAX_REPORTED_FAILURES) printf("  ... %d more\n", shown - 25);
    cx->configs++;
    cx->placements += (long)cx->place.n;
    if (cfg->exch && rk.total > 0) cx->exchanges_checked += (long)cx->exch.n;
    return ok;
}

static int uses_blank(const Move *m) {
    for (int i = 0; i < m->len; i++)
        if (RK_IS_BLANKED(m->tiles[i])) return 1;
    return 0;
}

/* Checks every placement's score with board_score_move as well. */
static bool check_position(Ctx *cx, const Board *b, const int rack[], Prng *rng, int real_bag) {
    const LetterDist *ld = cx->ld;
    bool ok = true;
    int blanks = rack[0] > 2 ? 2 : rack[0];
    cx->with_blanks[blanks]++;
    cx->positions++;
    cx->empty_boards += board_is_empty(b);
    cx->oracle_placements += (long)cx->place.n;
    for (size_t i = 0; i < cx->place.n; i++) {
        cx->bingos += cx->place.m[i].ntiles == RK_RACK_SIZE;
        cx->blank_plays += uses_blank(&cx->place.m[i]);
    }
    oracle_exchanges(rack, ld->size, &cx->exch);
    for (size_t i = 0; i < cx->place.n; i++) {
        int s = board_score_move(b, &cx->place.m[i]);
        if (s != cx->place.m[i].score) {
            if (cx->failures < MAX_REPORTED_FAILURES) {
                char buf[256];
                report_header(cx, b, rack, "board_score_move", NULL);
                fmt_move(&cx->place.m[i], b, ld, buf, sizeof buf);
                printf("  board_score_move gives %d for %s\n", s, buf);
            }
            ok = false;
            break;
        }
    }
    LeaveCtx lctx = {pr_next(rng), ld->size};
    int bag = real_bag > 0 ? real_bag : 1 + pr_below(rng, 20);
    int opp = pr_below(rng, 40);
    random_positional(&cx->pv, rng, b->dim);
    Cfg cfgs[6] = {
        {"A", bag, 0, bag >= RK_RACK_SIZE, NULL, NULL, NULL},
        {"B", bag, 0, true, hash_leave, &lctx, NULL},
        {"C", 0, opp, false, hash_leave, &lctx, NULL},
        {"D", 0, opp, pr_below(rng, 2) == 0, NULL, NULL, NULL},
        {"E", bag, 0, true, hash_leave, &lctx, &cx->pv},
        {"F", 0, opp, false, hash_leave, &lctx, &cx->pv}, /* empty bag: no adjustment */
    };
    for (int k = 0; k < 6; k++) ok = check_config(cx, b, rack, &cfgs[k]) && ok;
    if (!ok) cx->failures++;
    return ok;
}

/* ------------------------------------------------------------ boards */

/* Returns NULL if a and b agree on every tile and all the move-generation
 * data, else a description of the first difference. */
static const char *board_diff(const Board *a, const Board *b, char *buf, size_t cap) {
    if (a->tiles_on_board != b->tiles_on_board) {
        snprintf(buf, cap, "tiles_on_board %d vs %d", a->tiles_on_board, b->tiles_on_board);
        return buf;
    }
    if (a->tiles_on_board > 0 &&
        (a->bb_min_row != b->bb_min_row || a->bb_max_row != b->bb_max_row || a->bb_min_col != b->bb_min_col ||
         a->bb_max_col != b->bb_max_col || board_extent(a) != board_extent(b))) {
        snprintf(buf, cap, "bounding box rows %d..%d cols %d..%d vs rows %d..%d cols %d..%d", a->bb_min_row,
                 a->bb_max_row, a->bb_min_col, a->bb_max_col, b->bb_min_row, b->bb_max_row, b->bb_min_col,
                 b->bb_max_col);
        return buf;
    }
    int dim = a->dim;
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < dim * dim; i++) {
            int line = i / dim, pos = i % dim;
            int r = d == 0 ? line : pos, c = d == 0 ? pos : line;
            const char *what = NULL;
            if (a->sq[d][i] != b->sq[d][i]) what = "tile";
            else if (a->cross[d][i] != b->cross[d][i]) what = "cross-set";
            else if (a->cross_score[d][i] != b->cross_score[d][i]) what = "cross-score";
            else if (a->has_cross[d][i] != b->has_cross[d][i]) what = "has_cross";
            else if (a->anchor[d][i] != b->anchor[d][i]) what = "anchor";
            if (what) {
                snprintf(buf, cap, "%s differs in orientation %d at row %d col %d", what, d, r + 1,
                         c + 1);
                return buf;
            }
        }
    }
    return NULL;
}

typedef struct Pool {
    int count[RK_MAX_LETTERS];
    int total;
} Pool;

static int pool_take(Pool *p, int ml) {
    if (p->count[ml] == 0) return -1;
    p->count[ml]--;
    p->total--;
    return 0;
}

static int pool_draw_non_blank(Pool *p, Prng *rng) {
    int n = p->total - p->count[0];
    if (n <= 0) return -1;
    int r = pr_below(rng, n), ml = 1;
    while (r >= p->count[ml]) r -= p->count[ml++];
    pool_take(p, ml);
    return ml;
}

/* Draws a test rack from the pool (the tiles leave the pool). Kinds: the
 * letters of a lexicon word of 5+ letters (to reach bingos), a few distinct
 * letters, or random tiles; 0, 1 or 2 blanks. */
static void draw_rack(Pool *p, const Lex *lx, Prng *rng, int rack[]) {
    memset(rack, 0, sizeof(int) * RK_MAX_LETTERS);
    int kind = pr_below(rng, 100), n = 0;
    if (kind < 15) {
        size_t wi = (size_t)pr_below(rng, (int)lx->n);
        for (int tries = 0; tries < 50 && lx->len[wi] < 5; tries++)
            wi = (size_t)pr_below(rng, (int)lx->n);
        int len = lx->len[wi];
        int skip = len > 7 ? pr_below(rng, len) : -1;
        int blank_for = pr_below(rng, 3) == 0 ? pr_below(rng, len) : -1;
        for (int i = 0; i < len && n < RK_RACK_SIZE; i++) {
            if (i == skip) continue;
            int ml = lx->w[wi][i];
            if (i != blank_for && pool_take(p, ml) == 0) rack[ml]++, n++;
            else if (pool_take(p, 0) == 0) rack[0]++, n++;
        }
        return;
    }
    int size = pr_below(rng, 10) < 6 ? RK_RACK_SIZE : 1 + pr_below(rng, 6);
    int blanks = 0, bk = pr_below(rng, 100);
    if (bk >= 65) blanks = 1;
    if (bk >= 88) blanks = 2;
    if (blanks > size) blanks = size;
    for (int i = 0; i < blanks; i++)
        if (pool_take(p, 0) == 0) rack[0]++, n++;
    if (kind < 25) {
        /* few distinct letters */
        int letters[3], nl = 1 + pr_below(rng, 3);
        for (int i = 0; i < nl; i++) {
            int ml = pool_draw_non_blank(p, rng);
            if (ml < 0) return;
            p->count[ml]++;
            p->total++;
            letters[i] = ml;
        }
        for (int tries = 0; n < size && tries < 40; tries++) {
            int ml = letters[pr_below(rng, nl)];
            if (pool_take(p, ml) == 0) rack[ml]++, n++;
        }
        return;
    }
    while (n < size) {
        int ml = pool_draw_non_blank(p, rng);
        if (ml < 0) break;
        rack[ml]++;
        n++;
    }
}

/* ------------------------------------------------------------ games */

static bool quick_mode(void) { return tu_size(0, 1) == 1; }

static void board_failure(Ctx *cx, const Board *before, const char *move, const char *what,
                          const char *diff) {
    CU_FAIL("board update mismatch");
    if (cx->failures++ < MAX_REPORTED_FAILURES) {
        printf("\nBOARD MISMATCH on a %dx%d board after playing %s: %s: %s\n", before->dim,
               before->dim, move, what, diff);
        print_board(before, cx->ld);
    }
}

static Move pick_play(const OList *l, Prng *rng) {
    size_t plain = 0;
    for (size_t i = 0; i < l->n; i++) plain += !uses_blank(&l->m[i]);
    bool avoid = plain > 0 && pr_below(rng, 10) != 0;
    const Move *best = NULL;
    for (int k = 0; k < 2; k++) {
        const Move *m;
        if (avoid) {
            size_t want = (size_t)pr_below(rng, (int)plain), i = 0;
            while (uses_blank(&l->m[i]) || want-- > 0) i++;
            m = &l->m[i];
        } else {
            m = &l->m[pr_below(rng, (int)l->n)];
        }
        if (best == NULL || m->ntiles > best->ntiles) best = m;
    }
    return *best;
}

/* Plays random games whose moves are picked from the oracle's lists and
 * checks every position on the way. */
static void run_games(Ctx *cx, int games, int max_turns, uint64_t seed) {
    const LetterDist *ld = cx->ld;
    Board *a = malloc(sizeof *a), *b = malloc(sizeof *b), *copy = malloc(sizeof *copy);
    Board *before = malloc(sizeof *before);
    for (int g = 0; g < games && cx->failures < MAX_REPORTED_FAILURES; g++) {
        Prng rng = {seed * 1000003u + (uint64_t)g * 7919u};
        board_init(a, cx->lay, ld, cx->kwg);
        board_init(b, cx->lay, ld, cx->kwg);
        Pool pool;
        memset(&pool, 0, sizeof pool);
        for (int ml = 0; ml < ld->size; ml++) {
            pool.count[ml] = ld->count[ml];
            pool.total += ld->count[ml];
        }
        int misses = 0;
        for (int turn = 0; turn < max_turns && misses < 4; turn++) {
            int rack[RK_MAX_LETTERS], rt = 0;
            draw_rack(&pool, cx->lx, &rng, rack);
            for (int ml = 0; ml < ld->size; ml++) rt += rack[ml];
            if (rt == 0) break;
            /* the two boards must be identical; test on either */
            const Board *tb = (turn & 1) ? a : b;
            if (oracle_placements(tb, cx->lay, ld, cx->lx, rack, &cx->place) != 0)
                CU_FAIL("the oracle found one single-tile play with two different scores");
            int real_bag = pool.total - RK_RACK_SIZE;
            if (!check_position(cx, tb, rack, &rng, real_bag < 0 ? 0 : real_bag))
                CU_FAIL("movegen differs from the oracle (see the output)");
            if (cx->place.n == 0) {
                misses++;
            } else {
                misses = 0;
                /* mostly plays without blanks, so that blanks stay for later
                 * racks; of two candidates the longer, so boards fill up */
                Move m = pick_play(&cx->place, &rng);
                char name[256];
                fmt_move(&m, a, ld, name, sizeof name);
                *before = *a;
                board_place_move(a, &m);
                for (int i = 0; i < m.len; i++) {
                    if (m.tiles[i] == MOVE_PLAYED_THROUGH) continue;
                    int r = m.row + (m.dir == DIR_DOWN ? i : 0), c = m.col + (m.dir == DIR_ACROSS ? i : 0);
                    board_put(b, r, c, m.tiles[i]);
                    rack[RK_IS_BLANKED(m.tiles[i]) ? 0 : m.tiles[i]]--;
                }
                board_refresh(b);
                *copy = *a;
                board_refresh(copy);
                char diff[256];
                if (board_diff(a, copy, diff, sizeof diff))
                    board_failure(cx, before, name, "board_place_move vs board_refresh of a copy", diff);
                else if (board_diff(a, b, diff, sizeof diff))
                    board_failure(cx, before, name, "board_place_move vs board_put + board_refresh", diff);
            }
            for (int ml = 0; ml < ld->size; ml++) {
                pool.count[ml] += rack[ml];
                pool.total += rack[ml];
            }
        }
    }
    free(a);
    free(b);
    free(copy);
    free(before);
}

/* ------------------------------------------------------------ fixture */

typedef struct Fixture {
    LetterDist ld;
    Layout lay;
    Lex lx;
    Kwg kwg;
    WordMap wordmap;
} Fixture;

static Fixture *fixture_new(const char *layout_text) {
    Fixture *f = calloc(1, sizeof *f);
    ld_english(&f->ld);
    if (layout_text == NULL) {
        layout_standard15(&f->lay);
    } else {
        RkError err;
        if (layout_parse(&f->lay, layout_text, "test layout", &err) != 0) {
            printf("\nlayout_parse: %s\n", err.msg);
            free(f);
            return NULL;
        }
    }
    lex_generate(&f->lx, &f->ld, 20240611u);
    if (lex_build_kwg(&f->lx, &f->kwg) != 0) {
        lex_free(&f->lx);
        free(f);
        return NULL;
    }
    RkError err;
    if (wordmap_build(&f->wordmap, &f->kwg, f->ld.size, 1, "test lexicon", &err) != 0) {
        printf("\nwordmap_build: %s\n", err.msg);
        kwg_free(&f->kwg);
        lex_free(&f->lx);
        free(f);
        return NULL;
    }
    return f;
}

static void fixture_free(Fixture *f) {
    if (f == NULL) return;
    wordmap_free(&f->wordmap);
    kwg_free(&f->kwg);
    lex_free(&f->lx);
    free(f);
}

static void ctx_init(Ctx *cx, Fixture *f) {
    memset(cx, 0, sizeof *cx);
    cx->ld = &f->ld;
    cx->lay = &f->lay;
    cx->lx = &f->lx;
    cx->kwg = &f->kwg;
    cx->wordmap = &f->wordmap;
    movelist_init(&cx->got);
}

static void ctx_free(Ctx *cx) {
    movelist_free(&cx->got);
    ol_free(&cx->place);
    ol_free(&cx->exch);
    ol_free(&cx->want);
    ol_free(&cx->have);
    ol_free(&cx->sorted);
}

static void ctx_summary(const Ctx *cx, const char *what, double secs) {
    printf("\n  %s: %ld positions (%ld empty boards; racks with 0/1/2 blanks: %ld/%ld/%ld); "
           "%ld oracle placements (%ld using a blank, %ld bingos); %ld request configs compared "
           "in full (%ld placements and %ld exchanges, summed over configs); %ld best-move checks "
           "(%ld of them from the word map; %ld with a legal move other than a pass, %ld won by an "
           "exchange); %ld top-k checks; %ld movegen_beats checks; %.1f s\n",
           what, cx->positions, cx->empty_boards, cx->with_blanks[0], cx->with_blanks[1],
           cx->with_blanks[2], cx->oracle_placements, cx->blank_plays, cx->bingos, cx->configs,
           cx->placements, cx->exchanges_checked, cx->best_checks, cx->wordmap_best_checks, cx->nonempty_best,
           cx->best_exchanges, cx->top_checks, cx->beats_checks, secs);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ tests */

static int count_word(const uint8_t *ml, int len, void *ctx) {
    (void)ml;
    (void)len;
    (*(size_t *)ctx)++;
    return 0;
}

/* The graph must hold exactly the oracle's words (the premise of the rest). */
static void test_lexicon_graph(void) {
    Fixture *f = fixture_new(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(f->lx.n > 2000);
    size_t n = 0;
    kwg_foreach_word(&f->kwg, 64, count_word, &n);
    CU_ASSERT_EQUAL(n, f->lx.n);
    size_t missing = 0;
    for (size_t i = 0; i < f->lx.n; i++) missing += !kwg_has_word(&f->kwg, f->lx.w[i], f->lx.len[i]);
    CU_ASSERT_EQUAL(missing, 0);
    Prng rng = {99};
    size_t disagree = 0;
    for (int i = 0; i < 20000; i++) {
        uint8_t w[8];
        int len = 2 + pr_below(&rng, 6);
        for (int j = 0; j < len; j++) w[j] = (uint8_t)(1 + pr_below(&rng, 8) * 2);
        disagree += kwg_has_word(&f->kwg, w, len) != lex_word(&f->lx, w, len);
    }
    CU_ASSERT_EQUAL(disagree, 0);
    printf("\n  lexicon: %zu words, %zu prefixes, %u graph nodes\n", f->lx.n, f->lx.pre.n,
           f->kwg.n);
    fixture_free(f);
}

static void parse_test_rack(const char *s, int rack[]) {
    memset(rack, 0, sizeof(int) * RK_MAX_LETTERS);
    for (; *s; s++) rack[*s == '?' ? 0 : *s - 'A' + 1]++;
}

/* Convention 6: every distinct non-empty sub-multiset is one exchange. */
static void test_exchange_counts(void) {
    Fixture *f = fixture_new(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static const struct {
        const char *rack;
        size_t want;
    } cases[] = {{"ABCDEFG", 127}, {"AABDELT", 95}, {"??", 2}, {"Q", 1}, {"AAAAAAA", 7},
                 {"??AABBC", 3 * 3 * 3 * 2 - 1}, {"EEIIOO?", 3 * 3 * 3 * 2 - 1}};
    Board *b = malloc(sizeof *b);
    board_init(b, &f->lay, &f->ld, &f->kwg);
    MoveList ml;
    movelist_init(&ml);
    OList ex = {0};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int rack[RK_MAX_LETTERS];
        parse_test_rack(cases[k].rack, rack);
        Rack rk;
        rack_clear(&rk);
        for (int i = 0; i < f->ld.size; i++) {
            rk.count[i] = (uint8_t)rack[i];
            rk.total += rack[i];
        }
        for (int allowed = 0; allowed < 2; allowed++) {
            MoveGenRequest req = {.board = b, .rack = &rk, .bag_count = 80, .exchanges_allowed = allowed != 0};
            movegen_all(&req, &ml);
            size_t exch = 0, passes = 0;
            for (size_t i = 0; i < ml.count; i++) {
                exch += ml.moves[i].kind == MOVE_EXCHANGE;
                passes += ml.moves[i].kind == MOVE_PASS;
            }
            size_t want = allowed ? cases[k].want : 0;
            if (exch != want)
                printf("\n  rack %s, exchanges %s: %zu exchanges, want %zu\n", cases[k].rack,
                       allowed ? "allowed" : "not allowed", exch, want);
            CU_ASSERT_EQUAL(exch, want);
            CU_ASSERT_EQUAL(passes, 1);
        }
        oracle_exchanges(rack, f->ld.size, &ex);
        CU_ASSERT_EQUAL(ex.n, cases[k].want);
    }
    /* an empty rack: only the pass */
    Rack empty;
    rack_clear(&empty);
    MoveGenRequest req = {.board = b, .rack = &empty, .bag_count = 80, .exchanges_allowed = true};
    movegen_all(&req, &ml);
    CU_ASSERT_EQUAL(ml.count, 1);
    if (ml.count == 1) CU_ASSERT_EQUAL(ml.moves[0].kind, MOVE_PASS);
    Move best;
    movegen_best(&req, &best, NULL);
    CU_ASSERT_EQUAL(best.kind, MOVE_PASS);
    ol_free(&ex);
    movelist_free(&ml);
    free(b);
    fixture_free(f);
}

static void test_oracle_standard15(void) {
    Fixture *f = fixture_new(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    Ctx cx;
    ctx_init(&cx, f);
    double t0 = now_seconds();
    int games = quick_mode() ? 25 : 250;
    run_games(&cx, games, 24, 1);
    ctx_summary(&cx, "standard 15x15", now_seconds() - t0);
    CU_ASSERT_EQUAL(cx.failures, 0);
    CU_ASSERT_TRUE(cx.positions >= (quick_mode() ? 200 : 2000));
    CU_ASSERT_TRUE(cx.beats_checks >= 12 * cx.configs);
    ctx_free(&cx);
    fixture_free(f);
}

/* A 7x7 board with every kind of premium, start in the centre. */
static const char LAYOUT7[] =
    "3, 3\n"
    "=  '  =\n"
    " -   - \n"
    "  \" \"  \n"
    "'  -  '\n"
    "  \" \"  \n"
    " -   - \n"
    "=  '  =\n";

/* An 11x11 board, symmetric about its diagonal, start off-centre at (3,3)
 * with premiums above and below the start row that differ by column. */
static const char LAYOUT11[] =
    "3, 3\n"
    "  \" -\"=\"'  \n"
    " = - '     \n"
    "\" =       \"\n"
    " - -   =-  \n"
    "-   --     \n"
    "\"'  -   =  \n"
    "=     -  = \n"
    "\"  =       \n"
    "'  - =  '' \n"
    "      = ' \"\n"
    "  \"      \" \n";

static void run_layout(const char *text, const char *what, int games, int turns, uint64_t seed) {
    Fixture *f = fixture_new(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    Ctx cx;
    ctx_init(&cx, f);
    double t0 = now_seconds();
    run_games(&cx, quick_mode() ? games / 10 : games, turns, seed);
    ctx_summary(&cx, what, now_seconds() - t0);
    CU_ASSERT_EQUAL(cx.failures, 0);
    CU_ASSERT_TRUE(cx.positions >= (quick_mode() ? 50 : 500));
    ctx_free(&cx);
    fixture_free(f);
}

static void test_oracle_7x7(void) { run_layout(LAYOUT7, "7x7", 200, 12, 2); }
static void test_oracle_11x11(void) { run_layout(LAYOUT11, "11x11", 120, 18, 3); }

int main(void) {
    CU_TestInfo tests[] = {
        {"lexicon graph holds the oracle's words", test_lexicon_graph},
        {"exchange counts", test_exchange_counts},
        {"oracle: standard 15x15 games", test_oracle_standard15},
        {"oracle: 7x7 games", test_oracle_7x7},
        {"oracle: 11x11 games (off-centre start)", test_oracle_11x11},
        CU_TEST_INFO_NULL,
    };
    return tu_run("movegen_oracle", tests);
}
