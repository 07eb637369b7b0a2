/*
 * wordmap.c - building, writing, mapping and reading word maps (wordmap.h;
 * byte layout in docs/wordmap.md).
 */
#define _GNU_SOURCE /* MAP_POPULATE */
#include "wordmap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "textfile.h"

#define WM_MAGIC "RKWM"
/* 2: the key hash mixes both halves of a key (see key_hash) */
#define WM_VERSION 2u
#define WM_HEADER_BYTES 64u
#define WM_ENTRY_BYTES 96u
#define WM_ENTRIES (WM_MAX_LEN + 1)
#define WM_ALIGN 64u
/* A class (the words of one multiset) is at most this many words: its
 * count is the low byte of the words table's payload. */
#define WM_MAX_CLASS 255u
/* A class's first word is the high 24 bits of that payload: at most this
 * many words of one length. */
#define WM_MAX_WORDS_PER_LEN ((size_t)1 << 24)
/* Tables keep their load at or below 7/10. */
#define WM_LOAD_NUM 7u
#define WM_LOAD_DEN 10u
/* A builder gives up on a table after this many seeds (never seen). */
#define WM_MAX_SEEDS 64u
/* The largest image accepted (a SOWPODS map is about 80 MB). */
#define WM_MAX_FILE_BYTES ((uint64_t)1 << 34)

/* ------------------------------------------------------------ hashing */

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fmix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

/* The hash of a key under a table's seed. Both halves go through a full
 * mix (fmix64 is a bijection, so keys differing only in lo differ after the
 * first, and only in hi after the second): distinct keys collide with
 * probability about 2^-64. (Version 1 added lo * odd constant to the
 * rotated hi before one mix; the top nibble of lo, letter 16, and letter 24
 * in hi then met in the same four bits, and keys differing only in their
 * counts of P and X hashed alike, so an absent key of P's and X's found a
 * present one's slot and got its blank mask.) */
static inline uint64_t key_hash(WordKey k, uint32_t seed) {
    uint64_t s = (uint64_t)seed * 0xD6E8FEB86659FD93ULL + 0x9E3779B97F4A7C15ULL;
    return fmix64(fmix64(k.lo ^ s) ^ k.hi);
}

/* A 64-bit hash of bytes, four independent lanes (about 8 bytes a cycle),
 * for the lexicon's and the body's checksums. Not cryptographic: it tells
 * another lexicon or a damaged file, not a forged one. */
static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t seed) {
    const uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL;
    uint64_t lane[4] = {seed + P1, seed ^ P2, seed - P1, rotl64(seed, 17) ^ P1};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int j = 0; j < 4; j++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)j, 8);
            lane[j] = rotl64(lane[j] + w * P2, 31) * P1;
        }
    }
    uint64_t h = rotl64(lane[0], 1) + rotl64(lane[1], 7) + rotl64(lane[2], 12) + rotl64(lane[3], 18);
    for (; i < n; i++) h = rotl64(h ^ (p[i] * P1), 11) * P2;
    return fmix64(h ^ (uint64_t)n);
}

uint64_t wordmap_checksum(const void *body, size_t n) { return hash_bytes(body, n, 0); }

uint64_t wordmap_kwg_hash(const Kwg *kwg) {
    return hash_bytes((const uint8_t *)kwg->nodes, (size_t)kwg->n * 4u, 0x6B7767ULL) ^ kwg->n;
}

static bool host_little_endian(void) {
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ------------------------------------------------------------ lookups */

static inline const uint32_t *tab_find(const WmTable *t, WordKey k) {
    uint64_t h = key_hash(k, t->seed);
    uint32_t fp = (uint32_t)(h >> 32) | 1u;
    uint32_t i = (uint32_t)h & t->mask;
    for (uint32_t n = 0; n <= t->mask; n++) {
        const uint32_t *s = t->slots + 2 * (size_t)i;
        if (s[0] == fp) return s;
        if (s[0] == 0) return NULL;
        i = (i + 1) & t->mask;
    }
    return NULL;
}

/* The key of a word's letters (1..31), as wordkey_add of each but without
 * a branch a letter (which half of the key a letter lands in is a coin toss
 * in English). */
static WordKey key_of(const uint8_t *w, int len) {
    WordKey k = {0, 0};
    for (int i = 0; i < len; i++) {
        unsigned s = 4u * (unsigned)(w[i] - 1);
        uint64_t bit = (uint64_t)1 << (s & 63u), low = (uint64_t)0 - (uint64_t)(s < 64u);
        k.lo += bit & low;
        k.hi += bit & ~low;
    }
    return k;
}

uint32_t wordmap_words(const WordMap *wm, int len, WordKey key, const uint8_t **words) {
    if (len < 2 || len > wm->max_len) return 0;
    const WmLength *L = &wm->len[len];
    const uint32_t *s = tab_find(&L->words, key);
    if (s == NULL) return 0;
    uint32_t first = s[1] >> 8, count = s[1] & 0xFFu;
    const uint8_t *w = L->letters + (size_t)first * (size_t)len;
    /* a fingerprint can match a key that is not there: the class's own
     * letters decide */
    if (!wordkey_equal(key_of(w, len), key)) return 0;
    *words = w;
    return count;
}

uint32_t wordmap_blank1(const WordMap *wm, int len, WordKey key) {
    if (len < 2 || len > wm->max_len) return 0;
    const uint32_t *s = tab_find(&wm->len[len].blank1, key);
    return s ? s[1] : 0;
}

uint32_t wordmap_blank2(const WordMap *wm, int len, WordKey key) {
    if (len < 2 || len > wm->max_len) return 0;
    const uint32_t *s = tab_find(&wm->len[len].blank2, key);
    return s ? s[1] : 0;
}

bool wordmap_has_word(const WordMap *wm, int len, WordKey key, int blanks) {
    const uint8_t *w;
    switch (blanks) {
    case 0: return wordmap_words(wm, len, key, &w) > 0;
    case 1: return wordmap_blank1(wm, len, key) != 0;
    case 2: return wordmap_blank2(wm, len, key) != 0;
    default: return false;
    }
}

/* ------------------------------------------------------------ building */

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
static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static size_t tab_bytes(const TabBuild *t) { return ((size_t)1 << t->bits) * 8u; }

static int parse_image(WordMap *wm, const char *source, RkError *err);

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
    Collect c = {.lens = lens, .alphabet = alphabet};
    int rc = kwg_foreach_word(kwg, WM_MAX_LEN + 1, collect_word, &c);
    int result = -1;
    if (c.oom || rc < 0) {
        rk_error(err, "%s: out of memory building the word map", source);
        goto out;
    }
    if (c.bad_letter)
        rk_error(err, "%s: a word of length %d has letter %d, outside what a word map holds (1..%d)", source,
                 c.bad_len, c.bad_letter == 256 ? 0 : c.bad_letter, WM_MAX_LETTER);
    if (c.bad_count)
        rk_error(err, "%s: a word of length %d holds 16 or more of letter %d; a word map counts at most 15",
                 source, c.bad_len, c.bad_count);
    if (c.bad_letter || c.bad_count) goto out;
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
    int max_len = 0;
    for (int L = 2; L < WM_ENTRIES; L++) {
        if (lens[L].failed == 1) {
            rk_error(err, "%s: out of memory building the word map", source);
            goto out;
        }
        if (lens[L].failed == 2) {
            rk_error(err, "%s: no hash seed separates the word map's keys of length %d", source, L);
            goto out;
        }
        if (lens[L].failed == 3) {
            rk_error(err, "%s: more than %u words of length %d are anagrams of each other", source,
                     WM_MAX_CLASS, L);
            goto out;
        }
        if (lens[L].failed == 4) {
            rk_error(err, "%s: more than %zu words of length %d; a word map holds at most that many a length",
                     source, WM_MAX_WORDS_PER_LEN, L);
            goto out;
        }
        if (lens[L].count > 0) max_len = L;
    }
    /* the image */
    size_t size = align_up(WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES);
    size_t off[WM_ENTRIES][4];
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
    uint8_t *img = calloc(1, size);
    if (img == NULL) {
        rk_error(err, "%s: out of memory for a word map of %zu bytes", source, size);
        goto out;
    }
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
    put64(img + 40, hash_bytes(img + WM_HEADER_BYTES, size - WM_HEADER_BYTES, 0));
    wm->image = img;
    wm->image_size = size;
    wm->mapped = false;
    if (parse_image(wm, source, err) != 0) {
        wordmap_free(wm);
        goto out;
    }
    result = 0;
out:
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

/* ------------------------------------------------------------ loading */

/* Checks one table's slots: fingerprints odd or 0 (empty), `used` the
 * number of occupied slots with at least one empty slot left (so a probe
 * for an absent key ends at one), and every payload of its kind: a blank
 * table's a non-empty mask of letters 1..alphabet-1, a words table's a
 * class of count >= 1 inside the word list whose words all have the letters
 * of its first word (wordmap_words compares the first word with the key; the
 * rest then are anagrams of it too). */
static int check_table(const WmTable *t, const WmLength *wl, int len, int kind, int alphabet, const char *source,
                       RkError *err) {
    static const char *const names[3] = {"words", "blank1", "blank2"};
    uint32_t letters_mask = (uint32_t)((((uint64_t)1 << alphabet) - 1) & ~(uint64_t)1);
    uint64_t occupied = 0;
    if (kind > 0) {
        /* branch-free over the slots (a SOWPODS map has about 9 million):
         * an occupied slot is bad if its fingerprint is even or its mask
         * empty or outside the alphabet */
        uint32_t bad = 0, n = 0;
        const uint32_t *sl = t->slots;
        for (uint32_t i = 0; i <= t->mask; i++) {
            uint32_t fp = sl[2 * (size_t)i], v = sl[2 * (size_t)i + 1], x = v & ~letters_mask;
            uint32_t used = (fp | (0u - fp)) >> 31;           /* fp != 0 */
            uint32_t empty_mask = ((v | (0u - v)) >> 31) ^ 1u; /* v == 0 */
            uint32_t outside = (x | (0u - x)) >> 31;          /* x != 0 */
            n += used;
            bad |= used & ((~fp & 1u) | empty_mask | outside);
        }
        occupied = n;
        if (bad)
            return rk_error(err, "%s: the %s table of length %d has a bad slot (an even fingerprint, or a letter "
                            "mask empty or outside the alphabet)", source, names[kind], len);
    } else {
        for (uint64_t i = 0; i <= t->mask; i++) {
            uint32_t fp = t->slots[2 * i], v = t->slots[2 * i + 1];
            if (fp == 0) continue;
            occupied++;
            if ((fp & 1u) == 0)
                return rk_error(err, "%s: the words table of length %d has a bad slot (an even fingerprint)", source,
                                len);
            uint32_t first = v >> 8, count = v & 0xFFu;
            if (count == 0 || (uint64_t)first + count > wl->nwords)
                return rk_error(err, "%s: a class of length %d points outside its word list", source, len);
            const uint8_t *w = wl->letters + (size_t)first * (size_t)len;
            WordKey k = key_of(w, len);
            for (uint32_t j = 1; j < count; j++)
                if (!wordkey_equal(key_of(w + (size_t)j * (size_t)len, len), k))
                    return rk_error(err, "%s: a class of length %d holds words of different letters", source, len);
        }
    }
    if (occupied != t->used || occupied > t->mask)
        return rk_error(err, "%s: the %s table of length %d has %llu keys in %llu slots, its entry says %u", source,
                        names[kind], len, (unsigned long long)occupied, (unsigned long long)t->mask + 1, t->used);
    return 0;
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0) return false;
    return true;
}

/* Checks the image in wm->image and fills the table views. Every offset,
 * size and payload a lookup follows is checked here, so that no lookup
 * reads outside the image whatever the bytes (the checksum only tells a
 * damaged file). */
static int parse_image(WordMap *wm, const char *source, RkError *err) {
    const uint8_t *img = wm->image;
    size_t size = wm->image_size;
    if (rk_check_magic(img, size, WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES, WM_MAGIC, "a word map (.wmp)",
                       source, err) != 0)
        return -1;
    if (get32(img + 4) != WM_VERSION)
        return rk_error(err, "%s: word map version %u, this rookery reads version %u; rebuild it with `rookery "
                        "lexicon wordmap`", source, get32(img + 4), WM_VERSION);
    if (get64(img + 32) != size)
        return rk_error(err, "%s: the header says %llu bytes but the file has %zu (truncated or padded)", source,
                        (unsigned long long)get64(img + 32), size);
    if (get32(img + 28) != WM_ENTRIES)
        return rk_error(err, "%s: %u length entries, expected %d", source, get32(img + 28), WM_ENTRIES);
    if (hash_bytes(img + WM_HEADER_BYTES, size - WM_HEADER_BYTES, 0) != get64(img + 40))
        return rk_error(err, "%s: the word map's checksum does not match its contents (a corrupt file)", source);
    /* the header is outside the checksum: its reserved bytes must be 0 and
     * the longest word must be the one the entries hold */
    if (!all_zero(img + 48, WM_HEADER_BYTES - 48))
        return rk_error(err, "%s: bad header (reserved bytes 48..63 are not zero)", source);
    wm->kwg_hash = get64(img + 8);
    wm->kwg_nodes = get32(img + 16);
    uint32_t alphabet = get32(img + 20), max_len = get32(img + 24);
    if (alphabet < 2 || alphabet > WM_MAX_LETTER + 1 || max_len > WM_MAX_LEN)
        return rk_error(err, "%s: bad header (alphabet %u, longest word %u)", source, alphabet, max_len);
    wm->alphabet = (int)alphabet;
    wm->max_len = (int)max_len;
    /* entries 0 and 1 are unused */
    if (!all_zero(img + WM_HEADER_BYTES, 2 * WM_ENTRY_BYTES))
        return rk_error(err, "%s: the entries of lengths 0 and 1 are not zero", source);
    int longest = 0;
    for (int L = 2; L < WM_ENTRIES; L++) {
        const uint8_t *e = img + WM_HEADER_BYTES + (size_t)L * WM_ENTRY_BYTES;
        WmLength *wl = &wm->len[L];
        uint64_t loff = get64(e);
        wl->nwords = get32(e + 8);
        if (get32(e + 12) != 0 || get32(e + 36) != 0 || get32(e + 60) != 0 || get32(e + 84) != 0 ||
            get64(e + 88) != 0)
            return rk_error(err, "%s: the entry of length %d has reserved fields that are not zero", source, L);
        if (loff % WM_ALIGN != 0 || loff > size || (uint64_t)wl->nwords * (uint64_t)L > size - loff)
            return rk_error(err, "%s: the words of length %d lie outside the file", source, L);
        if (wl->nwords > 0) longest = L;
        wl->letters = img + loff;
        for (uint64_t i = 0; i < (uint64_t)wl->nwords * (uint64_t)L; i++)
            if (wl->letters[i] < 1 || wl->letters[i] >= wm->alphabet)
                return rk_error(err, "%s: a word of length %d has letter %u, outside the alphabet", source, L,
                                wl->letters[i]);
        WmTable *tabs[3] = {&wl->words, &wl->blank1, &wl->blank2};
        for (int t = 0; t < 3; t++) {
            const uint8_t *te = e + 16 + 24 * t;
            uint64_t toff = get64(te);
            uint32_t bits = get32(te + 8);
            if (bits < 1 || bits > 31 || toff % WM_ALIGN != 0 || toff > size ||
                ((uint64_t)8 << bits) > size - toff)
                return rk_error(err, "%s: a table of length %d lies outside the file", source, L);
            tabs[t]->slots = (const uint32_t *)(const void *)(img + toff);
            tabs[t]->mask = (uint32_t)(((uint64_t)1 << bits) - 1);
            tabs[t]->seed = get32(te + 12);
            tabs[t]->used = get32(te + 16);
            if (check_table(tabs[t], wl, L, t, wm->alphabet, source, err) != 0) return -1;
        }
    }
    if (longest != wm->max_len)
        return rk_error(err, "%s: bad header (longest word %d, the entries hold words of up to %d letters)", source,
                        wm->max_len, longest);
    return 0;
}

static int check_lexicon(const WordMap *wm, const Kwg *kwg, int alphabet, const char *source, RkError *err) {
    if (alphabet != 0 && wm->alphabet != alphabet)
        return rk_error(err, "%s: built for an alphabet of %d letters, the distribution has %d", source,
                        wm->alphabet - 1, alphabet - 1);
    if (kwg != NULL && (wm->kwg_nodes != kwg->n || wm->kwg_hash != wordmap_kwg_hash(kwg)))
        return rk_error(err,
                        "%s: built from another lexicon (its lexicon had %u nodes, this one %u, or other words); "
                        "rebuild it with `rookery lexicon wordmap`",
                        source, wm->kwg_nodes, kwg->n);
    return 0;
}

int wordmap_from_bytes(WordMap *wm, const void *data, size_t size, const Kwg *kwg, int alphabet,
                       const char *source, RkError *err) {
    memset(wm, 0, sizeof *wm);
    if (source == NULL) source = "word map";
    if (!host_little_endian()) return rk_error(err, "%s: word maps need a little-endian machine", source);
    /* aligned like a mapping, so the slots can be read as words */
    void *copy = NULL;
    if (posix_memalign(&copy, WM_ALIGN, size ? size : 1) != 0) return rk_error(err, "%s: out of memory", source);
    if (size) memcpy(copy, data, size);
    wm->image = copy;
    wm->image_size = size;
    if (parse_image(wm, source, err) != 0 || check_lexicon(wm, kwg, alphabet, source, err) != 0) {
        wordmap_free(wm);
        return -1;
    }
    return 0;
}

int wordmap_load(WordMap *wm, const char *path, const Kwg *kwg, int alphabet, RkError *err) {
    memset(wm, 0, sizeof *wm);
    if (!host_little_endian()) return rk_error(err, "%s: word maps need a little-endian machine", path);
    int fd = rk_open_regular(path, err);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return rk_error(err, "%s: %s", path, strerror(e));
    }
    if ((uint64_t)st.st_size > WM_MAX_FILE_BYTES) {
        close(fd);
        return rk_error(err, "%s: %lld bytes, larger than any word map", path, (long long)st.st_size);
    }
    if (st.st_size < (off_t)(WM_HEADER_BYTES + WM_ENTRIES * WM_ENTRY_BYTES)) {
        close(fd);
        return rk_error(err, "%s: %lld bytes, too short for a word map (.wmp) header", path,
                        (long long)st.st_size);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) return rk_error(err, "%s: cannot map the file: %s", path, strerror(e));
    wm->image = p;
    wm->image_size = (size_t)st.st_size;
    wm->mapped = true;
    if (parse_image(wm, path, err) != 0 || check_lexicon(wm, kwg, alphabet, path, err) != 0) {
        wordmap_free(wm);
        return -1;
    }
    return 0;
}

int wordmap_path_beside(const char *kwg_path, char *out, size_t cap) {
    size_t n = strlen(kwg_path);
    if (n >= 4 && strcmp(kwg_path + n - 4, ".kwg") == 0) n -= 4;
    if (n + 5 > cap) return -1;
    memcpy(out, kwg_path, n);
    memcpy(out + n, ".wmp", 5);
    return 0;
}

void wordmap_free(WordMap *wm) {
    if (wm->image != NULL) {
        if (wm->mapped) munmap(wm->image, wm->image_size);
        else free(wm->image);
    }
    memset(wm, 0, sizeof *wm);
}
