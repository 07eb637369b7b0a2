/*
 * kwg_prune.c - the words a position can still make (see kwg_prune.h): a
 * walk of the lexicon's DAWG along every line of the board, then a graph
 * of the words found.
 *
 * Words found in several lines are kept once (an open-addressing set of
 * byte strings), so the GADDAG is built from each word once.
 */
#include "kwg_prune.h"

#include <stdlib.h>
#include <string.h>

typedef struct WordSet {
    uint8_t *bytes; /* the words, each as len then its letters */
    size_t used, cap;
    uint32_t *slots; /* 1 + offset into bytes, 0 = empty */
    size_t nslots, count;
} WordSet;

typedef struct Pruner {
    const Kwg *k;
    int dim;
    const uint8_t *line; /* one line of the board: dim squares */
    uint8_t avail[RK_MAX_LETTERS]; /* the pooled racks; [0] blanks */
    uint8_t word[RK_MAX_DIM];
    WordSet set;
    bool out_of_memory;
} Pruner;

static uint64_t hash_word(const uint8_t *w, int len) {
    uint64_t h = UINT64_C(1469598103934665603) ^ (uint64_t)len;
    for (int i = 0; i < len; i++) h = (h ^ w[i]) * UINT64_C(1099511628211);
    return h;
}

static bool set_grow(WordSet *s) {
    size_t n = s->nslots ? 2 * s->nslots : 4096;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL) return false;
    for (size_t i = 0; i < s->nslots; i++) {
        uint32_t v = s->slots[i];
        if (v == 0) continue;
        const uint8_t *w = s->bytes + v - 1;
        size_t j = hash_word(w + 1, w[0]) & (n - 1);
        while (slots[j] != 0) j = (j + 1) & (n - 1);
        slots[j] = v;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return true;
}

/* Adds w[0..len) once; false when out of memory. */
static bool set_add(WordSet *s, const uint8_t *w, int len) {
    if (2 * (s->count + 1) > s->nslots && !set_grow(s)) return false;
    size_t mask = s->nslots - 1, j = hash_word(w, len) & mask;
    for (; s->slots[j] != 0; j = (j + 1) & mask) {
        const uint8_t *x = s->bytes + s->slots[j] - 1;
        if (x[0] == len && memcmp(x + 1, w, (size_t)len) == 0) return true;
    }
    if (s->used + (size_t)len + 1 > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 65536;
        while (cap < s->used + (size_t)len + 1) cap *= 2;
        if (cap > UINT32_MAX - 1) return false;
        uint8_t *b = realloc(s->bytes, cap);
        if (b == NULL) return false;
        s->bytes = b;
        s->cap = cap;
    }
    s->slots[j] = (uint32_t)(s->used + 1);
    s->bytes[s->used] = (uint8_t)len;
    memcpy(s->bytes + s->used + 1, w, (size_t)len);
    s->used += (size_t)len + 1;
    s->count++;
    return true;
}

static void walk(Pruner *p, uint32_t list, int pos, int len, int fresh);

/* The word so far ends with node i's letter at square pos. */
static void step(Pruner *p, uint32_t i, int pos, int len, int fresh) {
    p->word[len++] = kwg_tile(p->k, i);
    if (kwg_accepts(p->k, i) && fresh > 0 && len >= 2 && (pos + 1 == p->dim || p->line[pos + 1] == 0) &&
        !set_add(&p->set, p->word, len))
        p->out_of_memory = true;
    walk(p, kwg_arc(p->k, i), pos + 1, len, fresh);
}

/* Extends the word at square pos from the DAWG's sibling list `list`: the
 * line's tile there, or each letter the pooled racks still hold (a real
 * tile before a blank: the blank can stand in for any later letter). */
static void walk(Pruner *p, uint32_t list, int pos, int len, int fresh) {
    if (pos >= p->dim || list == 0 || p->out_of_memory) return;
    uint8_t t = p->line[pos];
    if (t != 0) {
        uint32_t i = kwg_find(p->k, list, RK_LETTER(t));
        if (i != 0) step(p, i, pos, len, fresh);
        return;
    }
    for (uint32_t i = list;; i++) {
        uint8_t ml = kwg_tile(p->k, i);
        uint8_t *use = p->avail[ml] > 0 ? &p->avail[ml] : p->avail[0] > 0 ? &p->avail[0] : NULL;
        if (use != NULL) {
            (*use)--;
            step(p, i, pos, len, fresh + 1);
            (*use)++;
        }
        if (kwg_is_end(p->k, i)) break;
    }
}

/* Every word of one line (see kwg_prune.h). A line with no tiles is walked
 * from its first square only: every start of an empty line finds the same
 * words, and the first allows the longest. */
static void prune_line(Pruner *p, const uint8_t *line) {
    p->line = line;
    bool empty = true;
    for (int c = 0; c < p->dim && empty; c++) empty = line[c] == 0;
    for (int s = 0; s < (empty ? 1 : p->dim); s++)
        if (s == 0 || line[s - 1] == 0) walk(p, kwg_dawg_root(p->k), s, 0, 0);
}

int kwg_prune(const Kwg *full, const Board *b, const Rack *tiles, Kwg *out, size_t *words_out, RkError *err) {
    Pruner p;
    memset(&p, 0, sizeof p);
    p.k = full;
    p.dim = b->dim;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) p.avail[ml] = tiles->count[ml];
    uint8_t empty_line[RK_MAX_DIM] = {0};
    bool empty_done = false;
    for (int dir = 0; dir < 2 && !p.out_of_memory; dir++)
        for (int r = 0; r < b->dim && !p.out_of_memory; r++) {
            const uint8_t *line = &b->sq[dir][r * b->dim];
            bool empty = true;
            for (int c = 0; c < b->dim && empty; c++) empty = line[c] == 0;
            if (empty) {
                if (empty_done) continue;
                empty_done = true;
                line = empty_line;
            }
            prune_line(&p, line);
        }
    int rc = 0;
    if (p.out_of_memory) rc = rk_error(err, "kwg prune: out of memory");
    const uint8_t **ptrs = NULL;
    int *lens = NULL;
    if (rc == 0 && p.set.count > 0) {
        ptrs = malloc(p.set.count * sizeof *ptrs);
        lens = malloc(p.set.count * sizeof *lens);
        if (ptrs == NULL || lens == NULL) rc = rk_error(err, "kwg prune: out of memory");
    }
    if (rc == 0) {
        size_t n = 0;
        for (size_t at = 0; at < p.set.used; at += (size_t)p.set.bytes[at] + 1) {
            ptrs[n] = p.set.bytes + at + 1;
            lens[n++] = p.set.bytes[at];
        }
        KwgWords words = {.words = (const uint8_t *const *)ptrs, .lens = lens, .count = n};
        rc = kwg_build(out, &words, true, err);
        if (words_out != NULL) *words_out = n;
    }
    free(ptrs);
    free(lens);
    free(p.set.bytes);
    free(p.set.slots);
    return rc;
}
