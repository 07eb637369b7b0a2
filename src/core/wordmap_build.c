/*
 * wordmap_build.c - builds a word map from a lexicon graph's words and
 * writes its image (declared in wordmap.h; byte layout in docs/wordmap.md).
 *
 * The words are collected from the DAWG by length; each length is sorted
 * into classes (multisets) and gets its three tables (words, blank1,
 * blank2), lengths in parallel on a few threads; then the image is laid
 * out and checked by the reader's own parser (wordmap.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "wordmap.h"
#include "wordmap_internal.h"

/* A class's first word is the high 24 bits of that payload: at most this
 * many words of one length. */
#define WM_MAX_WORDS_PER_LEN ((size_t)1 << 24)
/* Tables keep their load at or below 7/10. */
#define WM_LOAD_NUM 7u
#define WM_LOAD_DEN 10u
/* A builder gives up on a table after this many seeds (never seen). */
#define WM_MAX_SEEDS 64u

/* A map from full keys to a 32-bit value, for the builder only. */
typedef struct KeyMap {
    WordKey *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t mask, n;
} KeyMap;

static int km_init(KeyMap *m, size_t expect) {
    size_t cap = 64;
    while (cap < expect * 2) cap <<= 1;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = calloc(cap, sizeof *m->vals);
    m->used = calloc(cap, 1);
    m->mask = cap - 1;
    m->n = 0;
    return m->keys && m->vals && m->used ? 0 : -1;
}

static void km_free(KeyMap *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static int km_grow(KeyMap *m);

/* ORs bits into key's value (inserting it). */
static int km_or(KeyMap *m, WordKey k, uint32_t bits) {
    if ((m->n + 1) * 2 > m->mask + 1 && km_grow(m) != 0) return -1;
    size_t i = key_hash(k, 0) & m->mask;
    while (m->used[i] && !wordkey_equal(m->keys[i], k)) i = (i + 1) & m->mask;
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = k;
        m->vals[i] = 0;
        m->n++;
    }
    m->vals[i] |= bits;
    return 0;
}

static int km_grow(KeyMap *m) {
    KeyMap g;
    if (km_init(&g, (m->mask + 1)) != 0) {
        km_free(&g);
        return -1;
    }
    for (size_t i = 0; i <= m->mask; i++)
        if (m->used[i] && km_or(&g, m->keys[i], m->vals[i]) != 0) {
            km_free(&g);
            return -1;
        }
    km_free(m);
    *m = g;
    return 0;
}

/* A table being built: keys with payloads, then slots. */
typedef struct TabBuild {
    uint32_t *slots;
    uint32_t bits, seed, used;
} TabBuild;

static uint32_t table_bits(size_t keys) {
    uint32_t bits = 1;
    while (((size_t)1 << bits) * WM_LOAD_NUM < (keys + 1) * WM_LOAD_DEN) bits++;
    return bits;
}

/* Places keys[i] -> vals[i] into a fresh slot array and checks that every
 * key is found at its own slot; tries new seeds until it is. */
static int tab_build(TabBuild *t, const WordKey *keys, const uint32_t *vals, size_t n) {
    t->bits = table_bits(n);
    t->used = (uint32_t)n;
    size_t slots = (size_t)1 << t->bits;
    uint32_t mask = (uint32_t)(slots - 1);
    t->slots = malloc(slots * 2 * sizeof(uint32_t));
    uint32_t *where = malloc((n ? n : 1) * sizeof(uint32_t));
    if (t->slots == NULL || where == NULL) {
        free(where);
        return -1;
    }
    for (t->seed = 1; t->seed <= WM_MAX_SEEDS; t->seed++) {
        memset(t->slots, 0, slots * 2 * sizeof(uint32_t));
        for (size_t k = 0; k < n; k++) {
            uint64_t h = key_hash(keys[k], t->seed);
            uint32_t i = (uint32_t)h & mask;
            while (t->slots[2 * (size_t)i] != 0) i = (i + 1) & mask;
            t->slots[2 * (size_t)i] = (uint32_t)(h >> 32) | 1u;
            t->slots[2 * (size_t)i + 1] = vals[k];
            where[k] = i;
        }
        bool exact = true;
        for (size_t k = 0; k < n && exact; k++) {
            uint64_t h = key_hash(keys[k], t->seed);
            uint32_t fp = (uint32_t)(h >> 32) | 1u;
            for (uint32_t i = (uint32_t)h & mask; i != where[k]; i = (i + 1) & mask)
                if (t->slots[2 * (size_t)i] == fp) {
                    exact = false;
                    break;
                }
        }
        if (exact) {
            free(where);
            return 0;
        }
    }
    free(where);
    return -1;
}

static int tab_from_map(TabBuild *t, const KeyMap *m) {
    WordKey *keys = malloc((m->n ? m->n : 1) * sizeof *keys);
    uint32_t *vals = malloc((m->n ? m->n : 1) * sizeof *vals);
    int rc = -1;
    if (keys != NULL && vals != NULL) {
        size_t n = 0;
        for (size_t i = 0; i <= m->mask; i++)
            if (m->used[i]) {
                keys[n] = m->keys[i];
                vals[n++] = m->vals[i];
            }
        rc = tab_build(t, keys, vals, n);
    }
    free(keys);
    free(vals);
    return rc;
}

/* The words of one length, collected from the graph. */
typedef struct LenBuild {
    int len;
    uint8_t *letters; /* count * len */
    size_t count, cap;
    /* results */
    TabBuild words, blank1, blank2;
    int failed; /* 0, or 1: out of memory, 2: a table found no seed, 3: a class too large,
                 * 4: more than WM_MAX_WORDS_PER_LEN words */
} LenBuild;

typedef struct Collect {
    LenBuild *lens;
    int alphabet;
    int bad_letter, bad_count; /* first problem seen */
    int bad_len;
    bool oom;
} Collect;

static int collect_word(const uint8_t *ml, int len, void *vctx) {
    Collect *c = vctx;
    if (len < 2) return 0;
    if (len > WM_MAX_LEN) return 0; /* cannot be played on any board */
    uint8_t counts[WM_MAX_LETTER + 1] = {0};
    for (int i = 0; i < len; i++) {
        if (ml[i] < 1 || ml[i] > WM_MAX_LETTER || ml[i] >= c->alphabet) {
            c->bad_letter = ml[i] == 0 ? 256 : ml[i];
            c->bad_len = len;
            return 1;
        }
        if (++counts[ml[i]] > 15) {
            c->bad_count = ml[i];
            c->bad_len = len;
            return 1;
        }
    }
    LenBuild *lb = &c->lens[len];
    if (rk_grow((void **)&lb->letters, &lb->cap, (lb->count + 1) * (size_t)len, 1) != 0) {
        c->oom = true;
        return 1;
    }
    memcpy(lb->letters + lb->count * (size_t)len, ml, (size_t)len);
    lb->count++;
    return 0;
}

typedef struct SortRec {
    WordKey key;
    uint32_t index;
} SortRec;

static int cmp_rec(const void *a, const void *b) {
    const SortRec *x = a, *y = b;
    if (x->key.hi != y->key.hi) return x->key.hi < y->key.hi ? -1 : 1;
    if (x->key.lo != y->key.lo) return x->key.lo < y->key.lo ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Letters of a key in ascending order with their counts. */
static int key_letters(WordKey k, int *letters, int *counts) {
    int n = 0;
    for (int ml = 1; ml <= WM_MAX_LETTER; ml++) {
        int s = 4 * (ml - 1);
        int c = (int)((s < 64 ? k.lo >> s : k.hi >> (s - 64)) & 15u);
        if (c) {
            letters[n] = ml;
            counts[n++] = c;
        }
    }
    return n;
}

static WordKey key_minus(WordKey k, int ml) {
    int s = 4 * (ml - 1);
    if (s < 64) k.lo -= (uint64_t)1 << s;
    else k.hi -= (uint64_t)1 << (s - 64);
    return k;
}

/* Sorts one length's words into classes and builds its three tables. The
 * words are in DAWG (lexicographic) order, so the sort by (key, index)
 * keeps each class in that order. */
static void build_length(LenBuild *lb) {
    int len = lb->len;
    size_t n = lb->count;
    if (n > WM_MAX_WORDS_PER_LEN) {
        lb->failed = 4;
        return;
    }
    SortRec *recs = malloc((n ? n : 1) * sizeof *recs);
    uint8_t *sorted = malloc((n ? n : 1) * (size_t)len);
    WordKey *ckeys = malloc((n ? n : 1) * sizeof *ckeys);
    uint32_t *cvals = malloc((n ? n : 1) * sizeof *cvals);
    KeyMap b1 = {0}, b2 = {0};
    if (recs == NULL || sorted == NULL || ckeys == NULL || cvals == NULL || km_init(&b1, n * 4) != 0 ||
        km_init(&b2, n * 8) != 0) {
        lb->failed = 1;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        recs[i].key = key_of(lb->letters + i * (size_t)len, len);
        recs[i].index = (uint32_t)i;
    }
    qsort(recs, n, sizeof *recs, cmp_rec);
    size_t nclass = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && wordkey_equal(recs[j].key, recs[i].key)) j++;
        if (j - i > WM_MAX_CLASS) {
            lb->failed = 3;
            goto done;
        }
        for (size_t k = i; k < j; k++)
            memcpy(sorted + k * (size_t)len, lb->letters + (size_t)recs[k].index * (size_t)len, (size_t)len);
        ckeys[nclass] = recs[i].key;
        cvals[nclass++] = (uint32_t)(i << 8) | (uint32_t)(j - i);
        int letters[WM_MAX_LETTER], counts[WM_MAX_LETTER];
        int nl = key_letters(recs[i].key, letters, counts);
        for (int a = 0; a < nl; a++) {
            uint32_t bx = 1u << letters[a];
            WordKey k1 = key_minus(recs[i].key, letters[a]);
            if (km_or(&b1, k1, bx) != 0) {
                lb->failed = 1;
                goto done;
            }
            for (int b = a; b < nl; b++) {
                if (b == a && counts[a] < 2) continue;
                if (km_or(&b2, key_minus(k1, letters[b]), bx | (1u << letters[b])) != 0) {
                    lb->failed = 1;
                    goto done;
                }
            }
        }
        i = j;
    }
    if (tab_build(&lb->words, ckeys, cvals, nclass) != 0 || tab_from_map(&lb->blank1, &b1) != 0 ||
        tab_from_map(&lb->blank2, &b2) != 0) {
        lb->failed = lb->words.slots && lb->blank1.slots && lb->blank2.slots ? 2 : 1;
        goto done;
    }
    free(lb->letters);
    lb->letters = sorted;
    sorted = NULL;
done:
    free(recs);
    free(sorted);
    free(ckeys);
    free(cvals);
    km_free(&b1);
    km_free(&b2);
}

typedef struct Pool {
    LenBuild *lens;
    int order[WM_MAX_LEN + 1], norder;
    int next;
    pthread_mutex_t lock;
} Pool;

static void *build_worker(void *vp) {
    Pool *p = vp;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int k = p->next < p->norder ? p->order[p->next++] : -1;
        pthread_mutex_unlock(&p->lock);
        if (k < 0) return NULL;
        build_length(&p->lens[k]);
    }
}

static size_t align_up(size_t x) { return (x + WM_ALIGN - 1) & ~(size_t)(WM_ALIGN - 1); }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static size_t tab_bytes(const TabBuild *t) { return ((size_t)1 << t->bits) * 8u; }

/* Every word of the DAWG into lens[its length]; -1 (err set) if out of memory or a word
 * has a letter or a count that a word map cannot hold. */
static int collect_words(LenBuild *lens, const Kwg *kwg, int alphabet, const char *source, RkError *err) {
    Collect c = {.lens = lens, .alphabet = alphabet};
    int rc = kwg_foreach_word(kwg, WM_MAX_LEN + 1, collect_word, &c);
    if (c.oom || rc < 0) return rk_error(err, "%s: out of memory building the word map", source);
    if (c.bad_letter)
        rk_error(err, "%s: a word of length %d has letter %d, outside what a word map holds (1..%d)", source,
                 c.bad_len, c.bad_letter == 256 ? 0 : c.bad_letter, WM_MAX_LETTER);
    if (c.bad_count)
        rk_error(err, "%s: a word of length %d holds 16 or more of letter %d; a word map counts at most 15",
                 source, c.bad_len, c.bad_count);
    if (c.bad_letter || c.bad_count) return -1;
    return 0;
}

/* build_length of every length 2.. on `threads` threads (1..8), this one included. */
static void build_lengths(LenBuild *lens, int threads) {
    Pool pool = {.lens = lens, .norder = 0, .next = 0};
    /* the largest lengths first, so two threads finish together */
    for (int L = 2; L < WM_ENTRIES; L++) pool.order[pool.norder++] = L;
    for (int i = 1; i < pool.norder; i++)
        for (int j = i; j > 0 && lens[pool.order[j]].count > lens[pool.order[j - 1]].count; j--) {
            int t = pool.order[j];
            pool.order[j] = pool.order[j - 1];
            pool.order[j - 1] = t;
        }
    pthread_mutex_init(&pool.lock, NULL);
    if (threads < 1) threads = 1;
    if (threads > 8) threads = 8;
    pthread_t tid[8];
    int started = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, build_worker, &pool) == 0) started++;
    build_worker(&pool);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&pool.lock);
}

/* The first length whose build failed, as an error; else the longest length with words in
 * *max_len. */
static int check_lengths(const LenBuild *lens, const char *source, int *max_len, RkError *err) {
    *max_len = 0;
    for (int L = 2; L < WM_ENTRIES; L++) {
        if (lens[L].failed == 1) return rk_error(err, "%s: out of memory building the word map", source);
        if (lens[L].failed == 2)
            return rk_error(err, "%s: no hash seed separates the word map's keys of length %d", source, L);
        if (lens[L].failed == 3)
            return rk_error(err, "%s: more than %u words of length %d are anagrams of each other", source,
                            WM_MAX_CLASS, L);
        if (lens[L].failed == 4)
            return rk_error(err,
                            "%s: more than %zu words of length %d; a word map holds at most that many a length",
                            source, WM_MAX_WORDS_PER_LEN, L);
        if (lens[L].count > 0) *max_len = L;
    }
    return 0;
}

/* Where each length's words and tables lie in the image (off[L][0] the words, [1..3] the
 * tables), every section aligned; returns the image's size. */
static size_t image_layout(const LenBuild *lens, size_t off[WM_ENTRIES][4]) {
    size_t size = align_up(WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES);
    for (int L = 0; L < WM_ENTRIES; L++) {
        const LenBuild *lb = &lens[L];
        if (L < 2) continue;
        off[L][0] = size;
        size = align_up(size + lb->count * (size_t)L);
        const TabBuild *tb[3] = {&lb->words, &lb->blank1, &lb->blank2};
        for (int t = 0; t < 3; t++) {
            off[L][t + 1] = size;
            size = align_up(size + tab_bytes(tb[t]));
        }
    }
    return size;
}

/* The image of the built lengths into wm (docs/wordmap.md), checked by the reader's parser. */
static int make_image(WordMap *wm, const LenBuild *lens, const Kwg *kwg, int alphabet, int max_len,
                      const char *source, RkError *err) {
    size_t off[WM_ENTRIES][4];
    size_t size = image_layout(lens, off);
    uint8_t *img = calloc(1, size);
    if (img == NULL) return rk_error(err, "%s: out of memory for a word map of %zu bytes", source, size);
    memcpy(img, WM_MAGIC, 4);
    put32(img + 4, WM_VERSION);
    put64(img + 8, wordmap_kwg_hash(kwg));
    put32(img + 16, kwg->n);
    put32(img + 20, (uint32_t)alphabet);
    put32(img + 24, (uint32_t)max_len);
    put32(img + 28, WM_ENTRIES);
    put64(img + 32, size);
    for (int L = 2; L < WM_ENTRIES; L++) {
        const LenBuild *lb = &lens[L];
        uint8_t *e = img + WM_HEADER_BYTES + (size_t)L * WM_ENTRY_BYTES;
        put64(e, off[L][0]);
        put32(e + 8, (uint32_t)lb->count);
        memcpy(img + off[L][0], lb->letters, lb->count * (size_t)L);
        const TabBuild *tb[3] = {&lb->words, &lb->blank1, &lb->blank2};
        for (int t = 0; t < 3; t++) {
            uint8_t *te = e + 16 + 24 * t;
            put64(te, off[L][t + 1]);
            put32(te + 8, tb[t]->bits);
            put32(te + 12, tb[t]->seed);
            put32(te + 16, tb[t]->used);
            memcpy(img + off[L][t + 1], tb[t]->slots, tab_bytes(tb[t]));
        }
    }
    put64(img + 40, wordmap_checksum(img + WM_HEADER_BYTES, size - WM_HEADER_BYTES));
    wm->image = img;
    wm->image_size = size;
    wm->mapped = false;
    if (wm_parse_image(wm, source, err) != 0) {
        wordmap_free(wm);
        return -1;
    }
    return 0;
}

int wordmap_build(WordMap *wm, const Kwg *kwg, int alphabet, int threads, const char *source,
                  RkError *err) {
    memset(wm, 0, sizeof *wm);
    if (source == NULL) source = "lexicon";
    if (!host_little_endian()) return rk_error(err, "%s: word maps need a little-endian machine", source);
    if (alphabet < 2 || alphabet > WM_MAX_LETTER + 1)
        return rk_error(err, "%s: a word map holds alphabets of at most %d letters, not %d", source,
                        WM_MAX_LETTER, alphabet - 1);
    LenBuild *lens = calloc(WM_ENTRIES, sizeof *lens);
    if (lens == NULL) return rk_error(err, "%s: out of memory building the word map", source);
    for (int L = 0; L < WM_ENTRIES; L++) lens[L].len = L;
    int result = -1, max_len;
    if (collect_words(lens, kwg, alphabet, source, err) == 0) {
        build_lengths(lens, threads);
        if (check_lengths(lens, source, &max_len, err) == 0 &&
            make_image(wm, lens, kwg, alphabet, max_len, source, err) == 0)
            result = 0;
    }
    for (int L = 0; L < WM_ENTRIES; L++) {
        free(lens[L].letters);
        free(lens[L].words.slots);
        free(lens[L].blank1.slots);
        free(lens[L].blank2.slots);
    }
    free(lens);
    return result;
}

int wordmap_write(const WordMap *wm, const char *path, RkError *err) {
    return rk_write_file_atomic(path, wm->image, wm->image_size, err);
}
