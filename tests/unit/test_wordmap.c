/* The word map (.wmp, core/wordmap.h): built from random lexicons and
 * checked against brute force (every multiset's words, the blank1 and
 * blank2 letter masks, wordmap_has_word); the same image from 1 and 2 build
 * threads; the file read back through the byte layout of docs/wordmap.md
 * (header, entries, hashes and probing reimplemented here from the doc);
 * and every way a file can be refused (another lexicon, another alphabet,
 * truncated, padded, a flipped byte anywhere in the header or the body, bad
 * tables with a valid checksum, a wrong magic, empty, a directory, a FIFO),
 * each with one line naming the file. With the built SOWPODS.kwg and its
 * SOWPODS.wmp, the real map against brute force too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kwg.h"
#include "core/letters.h"
#include "core/wordmap.h"
#include "core/rng.h"
#include "testutil.h"

/* ------------------------------------------------------------ random */

/* n > 0: a number in [0, n) from the engine's generator */
static int pr_below(Rng *r, int n) { return (int)rng_below(r, (uint64_t)n); }

static Rng rng_from(uint64_t seed) {
    Rng r;
    rng_seed(&r, seed);
    return r;
}

/* ------------------------------------------------------------ brute force */

#define LMAX 16 /* longest word of the test lexicons (SOWPODS: 15) */
#define ALPHA 27 /* english: the blank and A..Z */

/* A word with its letters sorted (its multiset). */
typedef struct BfWord {
    uint8_t len;
    uint8_t sorted[LMAX];
    uint8_t word[LMAX];
} BfWord;

typedef struct Bf {
    BfWord *w;
    size_t n, cap;
} Bf;

static int cmp_u8(const void *a, const void *b) { return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b; }

static int cmp_bf(const void *a, const void *b) {
    const BfWord *x = a, *y = b;
    if (x->len != y->len) return (int)x->len - (int)y->len;
    int c = memcmp(x->sorted, y->sorted, x->len);
    return c ? c : memcmp(x->word, y->word, x->len);
}

static void bf_add(Bf *bf, const uint8_t *w, int len) {
    if (bf->n == bf->cap) {
        bf->cap = bf->cap ? 2 * bf->cap : 4096;
        bf->w = realloc(bf->w, bf->cap * sizeof *bf->w);
        CU_ASSERT_FATAL(bf->w != NULL);
    }
    BfWord *e = &bf->w[bf->n++];
    memset(e, 0, sizeof *e);
    e->len = (uint8_t)len;
    memcpy(e->word, w, (size_t)len);
    memcpy(e->sorted, w, (size_t)len);
    qsort(e->sorted, (size_t)len, 1, cmp_u8);
}

static int bf_collect(const uint8_t *ml, int len, void *ctx) {
    if (len >= 2 && len <= LMAX) bf_add(ctx, ml, len);
    return 0;
}

/* The brute-force table of every word of kwg (length 2..LMAX), sorted by
 * length, multiset, word. */
static void bf_from_kwg(Bf *bf, const Kwg *kwg) {
    memset(bf, 0, sizeof *bf);
    CU_ASSERT_FATAL(kwg_foreach_word(kwg, LMAX, bf_collect, bf) == 0);
    qsort(bf->w, bf->n, sizeof *bf->w, cmp_bf);
}

static void bf_free(Bf *bf) { free(bf->w); }

/* The words of length len with multiset `sorted` (ascending letters):
 * [*lo, *lo + count). */
static size_t bf_range(const Bf *bf, int len, const uint8_t *sorted, size_t *lo) {
    *lo = 0;
    if (len < 1 || len > LMAX) return 0;
    BfWord probe;
    memset(&probe, 0, sizeof probe);
    probe.len = (uint8_t)len;
    memcpy(probe.sorted, sorted, (size_t)len);
    /* first entry >= (len, sorted, all-zero word) */
    size_t a = 0, b = bf->n;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (cmp_bf(&bf->w[m], &probe) < 0) a = m + 1;
        else b = m;
    }
    size_t e = a;
    while (e < bf->n && bf->w[e].len == len && memcmp(bf->w[e].sorted, sorted, (size_t)len) == 0) e++;
    *lo = a;
    return e - a;
}

/* Inserts letter x into a sorted multiset of n letters (out: n + 1). */
static void sorted_plus(const uint8_t *s, int n, uint8_t x, uint8_t *out) {
    int i = 0, j = 0;
    while (i < n && s[i] <= x) out[j++] = s[i++];
    out[j++] = x;
    while (i < n) out[j++] = s[i++];
}

static WordKey key_of_letters(const uint8_t *s, int n) {
    WordKey k = {0, 0};
    for (int i = 0; i < n; i++) wordkey_add(&k, s[i]);
    return k;
}

/* Brute-force blank masks of a multiset of n letters. */
static uint32_t bf_blank1(const Bf *bf, const uint8_t *s, int n, int alphabet) {
    uint32_t mask = 0;
    uint8_t t[LMAX + 2];
    size_t lo;
    for (int x = 1; x < alphabet; x++) {
        sorted_plus(s, n, (uint8_t)x, t);
        if (bf_range(bf, n + 1, t, &lo) > 0) mask |= 1u << x;
    }
    return mask;
}

static uint32_t bf_blank2(const Bf *bf, const uint8_t *s, int n, int alphabet) {
    uint32_t mask = 0;
    uint8_t t[LMAX + 2], u[LMAX + 2];
    size_t lo;
    for (int x = 1; x < alphabet; x++) {
        sorted_plus(s, n, (uint8_t)x, t);
        for (int y = 1; y < alphabet && !(mask >> x & 1u); y++) {
            sorted_plus(t, n + 1, (uint8_t)y, u);
            if (bf_range(bf, n + 2, u, &lo) > 0) mask |= 1u << x;
        }
    }
    return mask;
}

/* Sorts n words of len letters (n <= 255: insertion sort). */
static void sort_words(uint8_t *w, uint32_t n, int len) {
    uint8_t t[64];
    for (uint32_t i = 1; i < n; i++) {
        memcpy(t, w + (size_t)i * len, (size_t)len);
        uint32_t j = i;
        for (; j > 0 && memcmp(w + (size_t)(j - 1) * len, t, (size_t)len) > 0; j--)
            memcpy(w + (size_t)j * len, w + (size_t)(j - 1) * len, (size_t)len);
        memcpy(w + (size_t)j * len, t, (size_t)len);
    }
}

typedef struct Tally {
    long queries, word_hits, b1_hits, b2_hits, bad;
} Tally;

/* Checks every question about multiset s (n letters, sorted) against brute
 * force: its words (length n), blank1 (length n + 1), blank2 (length n + 2),
 * and wordmap_has_word with 0, 1 and 2 blanks. */
static void check_multiset(const WordMap *wm, const Bf *bf, const uint8_t *s, int n, int alphabet, Tally *t) {
    WordKey key = key_of_letters(s, n);
    bool bad = false;
    t->queries++;
    if (n >= 2) {
        size_t lo;
        size_t want = bf_range(bf, n, s, &lo);
        const uint8_t *got = NULL;
        uint32_t count = wordmap_words(wm, n, key, &got);
        if (count != want) bad = true;
        if (count != want && t->bad < 5) printf("\nwords: %u, brute force %zu\n", count, want);
        else if (count > 0) {
            t->word_hits++;
            uint8_t *copy = malloc((size_t)count * (size_t)n);
            CU_ASSERT_FATAL(copy != NULL);
            memcpy(copy, got, (size_t)count * (size_t)n);
            sort_words(copy, count, n);
            for (uint32_t i = 0; i < count; i++)
                if (memcmp(copy + (size_t)i * n, bf->w[lo + i].word, (size_t)n) != 0) bad = true;
            free(copy);
        }
        if (wordmap_has_word(wm, n, key, 0) != (want > 0)) bad = true;
    }
    if (n + 1 >= 2) {
        uint32_t want = bf_blank1(bf, s, n, alphabet), got = wordmap_blank1(wm, n + 1, key);
        if (got != want) bad = true;
        if (got != want && t->bad < 5) printf("\nblank1: 0x%x, brute force 0x%x\n", got, want);
        if (want) t->b1_hits++;
        if (wordmap_has_word(wm, n + 1, key, 1) != (want != 0)) bad = true;
    }
    {
        uint32_t want = bf_blank2(bf, s, n, alphabet), got = wordmap_blank2(wm, n + 2, key);
        if (got != want) bad = true;
        if (got != want && t->bad < 5) printf("\nblank2: 0x%x, brute force 0x%x\n", got, want);
        if (want) t->b2_hits++;
        if (wordmap_has_word(wm, n + 2, key, 2) != (want != 0)) bad = true;
    }
    if (bad) {
        if (t->bad < 5) {
            printf("\nmismatch for the multiset ");
            for (int i = 0; i < n; i++) printf("%c", 'A' + s[i] - 1);
            printf(" (%d letters)\n", n);
        }
        t->bad++;
    }
}

/* `queries` multisets of 0..12 letters: classes of the lexicon, words less
 * one or two letters (blank hits), random letters (mostly misses) and runs
 * of repeated letters. */
static void check_queries(const WordMap *wm, const Bf *bf, int alphabet, uint64_t seed, int queries, Tally *t) {
    Rng rng = rng_from(seed);
    uint8_t s[LMAX + 2];
    for (int q = 0; q < queries; q++) {
        int kind = pr_below(&rng, 5), n = 0;
        const BfWord *w = &bf->w[pr_below(&rng, (int)bf->n)];
        switch (kind) {
        case 0: /* a class */
        case 1: /* a word less one letter */
        case 2: /* a word less two letters */
            n = w->len - kind;
            if (n < 0) n = 0;
            {
                /* drop `kind` random letters of the word */
                uint8_t tmp[LMAX];
                int m = w->len;
                memcpy(tmp, w->sorted, (size_t)m);
                for (int d = 0; d < kind && m > 0; d++) {
                    int at = pr_below(&rng, m);
                    memmove(tmp + at, tmp + at + 1, (size_t)(m - at - 1));
                    m--;
                }
                memcpy(s, tmp, (size_t)m);
                n = m;
            }
            break;
        case 3: /* random letters, 0..12 of them */
            n = pr_below(&rng, 13);
            for (int i = 0; i < n; i++) s[i] = (uint8_t)(1 + pr_below(&rng, alphabet - 1));
            qsort(s, (size_t)n, 1, cmp_u8);
            break;
        default: /* repeated letters: one or two letters, 2..12 tiles */
            n = 2 + pr_below(&rng, 11);
            {
                uint8_t a = (uint8_t)(1 + pr_below(&rng, alphabet - 1)), b = (uint8_t)(1 + pr_below(&rng, alphabet - 1));
                int na = 1 + pr_below(&rng, n);
                for (int i = 0; i < n; i++) s[i] = i < na ? a : b;
            }
            qsort(s, (size_t)n, 1, cmp_u8);
            break;
        }
        check_multiset(wm, bf, s, n, alphabet, t);
    }
}

/* ------------------------------------------------------------ lexicons */

/* A random lexicon: `nrandom` words of 2..12 letters drawn with english
 * frequencies, anagram families (several orders of one word's letters),
 * and words of repeated letters. */
static void random_words(uint64_t seed, int nrandom, uint8_t (**words)[LMAX], int **lens, size_t *count) {
    LetterDist ld;
    ld_english(&ld);
    int total = 0;
    for (int ml = 1; ml < ld.size; ml++) total += ld.count[ml];
    size_t cap = (size_t)nrandom + 4096, n = 0;
    uint8_t(*w)[LMAX] = calloc(cap, sizeof *w);
    int *l = calloc(cap, sizeof *l);
    CU_ASSERT_FATAL(w != NULL && l != NULL);
    Rng rng = rng_from(seed);
    for (int i = 0; i < nrandom; i++) {
        int len = 2 + pr_below(&rng, 11);
        for (int j = 0; j < len; j++) {
            int r = pr_below(&rng, total), ml = 1;
            while (r >= ld.count[ml]) r -= ld.count[ml++];
            w[n][j] = (uint8_t)ml;
        }
        l[n++] = len;
    }
    /* anagram families: 300 bases, 2..8 orders each */
    for (int f = 0; f < 300; f++) {
        size_t base = (size_t)pr_below(&rng, nrandom);
        int k = 2 + pr_below(&rng, 7);
        for (int c = 0; c < k; c++) {
            memcpy(w[n], w[base], LMAX);
            for (int j = l[base] - 1; j > 0; j--) { /* Fisher-Yates */
                int r = pr_below(&rng, j + 1);
                uint8_t t = w[n][j];
                w[n][j] = w[n][r];
                w[n][r] = t;
            }
            l[n++] = l[base];
        }
    }
    /* repeated letters: AA, EEE, ..., a letter 2..12 times, and pairs */
    for (int ml = 1; ml <= 26; ml++) {
        int len = 2 + (ml * 7) % 11;
        memset(w[n], ml, (size_t)len);
        l[n++] = len;
        int len2 = 3 + (ml * 5) % 10;
        for (int j = 0; j < len2; j++) w[n][j] = (uint8_t)(j % 3 == 0 ? ml : 1 + (ml % 26));
        l[n++] = len2;
    }
    *words = w;
    *lens = l;
    *count = n;
}

static void build_kwg(Kwg *kwg, uint8_t (*w)[LMAX], const int *l, size_t n) {
    const uint8_t **ptrs = malloc((n ? n : 1) * sizeof *ptrs);
    CU_ASSERT_FATAL(ptrs != NULL);
    for (size_t i = 0; i < n; i++) ptrs[i] = w[i];
    KwgWords kw = {ptrs, l, n};
    RkError err;
    int rc = kwg_build(kwg, &kw, true, &err);
    if (rc != 0) printf("\nkwg_build: %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    free(ptrs);
}

static void random_lexicon(Kwg *kwg, uint64_t seed, int nrandom) {
    uint8_t(*w)[LMAX];
    int *l;
    size_t n;
    random_words(seed, nrandom, &w, &l, &n);
    build_kwg(kwg, w, l, n);
    free(w);
    free(l);
}

/* ------------------------------------------------------------ the doc's layout */

/* Reimplemented from docs/wordmap.md ("Hashes"), not taken from wordmap.c:
 * the byte hash of the checksums, and the key hash of the tables. */
static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t fmix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}
static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t doc_hash_bytes(const uint8_t *p, size_t n, uint64_t seed) {
    const uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL;
    uint64_t lane[4] = {seed + P1, seed ^ P2, seed - P1, rotl(seed, 17) ^ P1};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int j = 0; j < 4; j++) lane[j] = rotl(lane[j] + le64(p + i + 8 * j) * P2, 31) * P1;
    uint64_t h = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18);
    for (; i < n; i++) h = rotl(h ^ ((uint64_t)p[i] * P1), 11) * P2;
    return fmix(h ^ (uint64_t)n);
}

static uint64_t doc_key_hash(WordKey k, uint32_t seed) {
    uint64_t s = (uint64_t)seed * 0xD6E8FEB86659FD93ULL + 0x9E3779B97F4A7C15ULL;
    return fmix(fmix(k.lo ^ s) ^ k.hi);
}

/* Rewrites the body checksum after an edit (a "valid" damaged file). */
static void reseal(uint8_t *img, size_t size) { put_le64(img + 40, doc_hash_bytes(img + 64, size - 64, 0)); }

/* The payload of key in table t (0 words, 1 blank1, 2 blank2) of length L,
 * found by probing the raw image as the doc describes; false if absent. */
static bool doc_lookup(const uint8_t *img, int L, int t, WordKey k, uint32_t *payload) {
    const uint8_t *te = img + 64 + 96 * (size_t)L + 16 + 24 * (size_t)t;
    uint64_t off = le64(te);
    uint32_t bits = le32(te + 8), seed = le32(te + 12), mask = (uint32_t)((1ull << bits) - 1);
    uint64_t h = doc_key_hash(k, seed);
    uint32_t fp = (uint32_t)(h >> 32) | 1u, i = (uint32_t)h & mask;
    for (uint32_t n = 0; n <= mask; n++, i = (i + 1) & mask) {
        const uint8_t *s = img + off + 8 * (size_t)i;
        if (le32(s) == 0) return false;
        if (le32(s) == fp) {
            *payload = le32(s + 4);
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------ tests */

static void build_map(WordMap *wm, const Kwg *kwg, int threads) {
    RkError err;
    int rc = wordmap_build(wm, kwg, ALPHA, threads, "test lexicon", &err);
    if (rc != 0) printf("\nwordmap_build: %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
}

static void report(const char *what, const Tally *t) {
    printf("\n%s: %ld multisets, %ld with words, %ld with blank1 letters, %ld with blank2 letters, %ld wrong\n",
           what, t->queries, t->word_hits, t->b1_hits, t->b2_hits, t->bad);
    CU_ASSERT_EQUAL(t->bad, 0);
    /* the query mix must reach all three kinds of answer */
    CU_ASSERT(t->word_hits > t->queries / 10);
    CU_ASSERT(t->b1_hits > t->queries / 10);
    CU_ASSERT(t->b2_hits > t->queries / 10);
}

static void test_against_brute_force(void) {
    Kwg kwg;
    random_lexicon(&kwg, 11, 4000);
    Bf bf;
    bf_from_kwg(&bf, &kwg);
    CU_ASSERT(bf.n > 4000);
    WordMap wm;
    build_map(&wm, &kwg, 1);
    /* every class, each asked once */
    Tally all = {0};
    for (size_t i = 0; i < bf.n; i++)
        if (i == 0 || cmp_bf(&bf.w[i - 1], &bf.w[i]) != 0) {
            if (i > 0 && bf.w[i - 1].len == bf.w[i].len &&
                memcmp(bf.w[i - 1].sorted, bf.w[i].sorted, bf.w[i].len) == 0)
                continue;
            check_multiset(&wm, &bf, bf.w[i].sorted, bf.w[i].len, ALPHA, &all);
        }
    CU_ASSERT_EQUAL(all.word_hits, all.queries);
    CU_ASSERT_EQUAL(all.bad, 0);
    /* the classes the map holds are the brute-force ones, word for word */
    uint64_t words = 0, classes = 0;
    for (int L = 2; L <= wm.max_len; L++) {
        words += wm.len[L].nwords;
        classes += wm.len[L].words.used;
    }
    CU_ASSERT_EQUAL(words, bf.n);
    CU_ASSERT_EQUAL(classes, (uint64_t)all.queries);
    CU_ASSERT_EQUAL(wm.max_len, 12);
    CU_ASSERT_EQUAL(wm.alphabet, ALPHA);
    Tally t = {0};
    check_queries(&wm, &bf, ALPHA, 99, tu_size(6000, 2000), &t);
    report("random lexicon", &t);
    /* lengths outside 2..max_len answer nothing */
    WordKey k = key_of_letters((const uint8_t *)"\x01\x01", 2);
    const uint8_t *w = NULL;
    for (int len = -1; len <= WM_MAX_LEN + 2; len++) {
        if (len >= 2 && len <= wm.max_len) continue;
        CU_ASSERT_EQUAL(wordmap_words(&wm, len, k, &w), 0);
        CU_ASSERT_EQUAL(wordmap_blank1(&wm, len, k), 0);
        CU_ASSERT_EQUAL(wordmap_blank2(&wm, len, k), 0);
        CU_ASSERT_FALSE(wordmap_has_word(&wm, len, k, 0));
    }
    CU_ASSERT_FALSE(wordmap_has_word(&wm, 2, k, 3));
    CU_ASSERT_FALSE(wordmap_has_word(&wm, 2, k, -1));
    wordmap_free(&wm);
    CU_ASSERT(wm.image == NULL);
    wordmap_free(&wm); /* twice is harmless */
    bf_free(&bf);
    kwg_free(&kwg);
}

static void test_threads_identical(void) {
    Kwg kwg;
    random_lexicon(&kwg, 12, 3000);
    WordMap a, b, c;
    build_map(&a, &kwg, 1);
    build_map(&b, &kwg, 2);
    build_map(&c, &kwg, 2);
    CU_ASSERT_EQUAL(a.image_size, b.image_size);
    CU_ASSERT_FATAL(a.image_size == b.image_size && a.image_size == c.image_size);
    CU_ASSERT(memcmp(a.image, b.image, a.image_size) == 0);
    CU_ASSERT(memcmp(b.image, c.image, b.image_size) == 0);
    wordmap_free(&a);
    wordmap_free(&b);
    wordmap_free(&c);
    kwg_free(&kwg);
}

/* The header, entries and tables read as docs/wordmap.md lays them out. */
static void test_doc_layout(void) {
    Kwg kwg;
    random_lexicon(&kwg, 13, 2500);
    Bf bf;
    bf_from_kwg(&bf, &kwg);
    WordMap wm;
    build_map(&wm, &kwg, 2);
    const uint8_t *img = wm.image;
    size_t size = wm.image_size;
    CU_ASSERT(memcmp(img, "RKWM", 4) == 0);
    CU_ASSERT_EQUAL(le32(img + 4), 2);
    CU_ASSERT_EQUAL(le64(img + 8), wordmap_kwg_hash(&kwg));
    /* the lexicon hash: the node array's bytes, seed 0x6B7767, xor the count */
    uint8_t *nb = malloc((size_t)kwg.n * 4);
    CU_ASSERT_FATAL(nb != NULL);
    for (uint32_t i = 0; i < kwg.n; i++) put_le32(nb + 4 * (size_t)i, kwg.nodes[i]);
    CU_ASSERT_EQUAL(le64(img + 8), doc_hash_bytes(nb, (size_t)kwg.n * 4, 0x6B7767ULL) ^ kwg.n);
    free(nb);
    CU_ASSERT_EQUAL(le32(img + 16), kwg.n);
    CU_ASSERT_EQUAL(le32(img + 20), ALPHA);
    CU_ASSERT_EQUAL(le32(img + 24), 12);
    CU_ASSERT_EQUAL(le32(img + 28), 22);
    CU_ASSERT_EQUAL(le64(img + 32), size);
    CU_ASSERT_EQUAL(le64(img + 40), doc_hash_bytes(img + 64, size - 64, 0));
    for (int i = 48; i < 64 + 2 * 96; i++) CU_ASSERT_EQUAL(img[i], 0);
    CU_ASSERT_EQUAL(size % 64, 0);
    for (int L = 2; L < 22; L++) {
        const uint8_t *e = img + 64 + 96 * L;
        CU_ASSERT_EQUAL(le64(e) % 64, 0);
        CU_ASSERT_EQUAL(le32(e + 8), wm.len[L].nwords);
        CU_ASSERT_EQUAL(le32(e + 12), 0);
        CU_ASSERT_EQUAL(le64(e + 88), 0);
        CU_ASSERT(wm.len[L].letters == img + le64(e));
        const WmTable *tabs[3] = {&wm.len[L].words, &wm.len[L].blank1, &wm.len[L].blank2};
        for (int t = 0; t < 3; t++) {
            const uint8_t *te = e + 16 + 24 * t;
            CU_ASSERT_EQUAL(le64(te) % 64, 0);
            CU_ASSERT(tabs[t]->slots == (const uint32_t *)(const void *)(img + le64(te)));
            CU_ASSERT_EQUAL(tabs[t]->mask, (uint32_t)((1ull << le32(te + 8)) - 1));
            CU_ASSERT_EQUAL(tabs[t]->seed, le32(te + 12));
            CU_ASSERT_EQUAL(tabs[t]->used, le32(te + 16));
            CU_ASSERT_EQUAL(le32(te + 20), 0);
            /* load at most 7/10 */
            CU_ASSERT((uint64_t)(tabs[t]->used + 1) * 10 <= ((uint64_t)tabs[t]->mask + 1) * 7);
        }
    }
    /* every class found by probing the raw bytes: payload first << 8 | count,
     * the words at letters + first * L */
    int found = 0, wrong = 0;
    for (size_t i = 0; i < bf.n;) {
        size_t lo;
        int L = bf.w[i].len;
        size_t cnt = bf_range(&bf, L, bf.w[i].sorted, &lo);
        WordKey k = key_of_letters(bf.w[i].sorted, L);
        uint32_t p = 0;
        if (!doc_lookup(img, L, 0, k, &p) || (p & 0xFF) != cnt) {
            wrong++;
        } else {
            const uint8_t *letters = img + le64(img + 64 + 96 * L);
            for (size_t j = 0; j < cnt; j++)
                if (memcmp(letters + ((size_t)(p >> 8) + j) * L, bf.w[lo + j].word, (size_t)L) != 0) wrong++;
            found++;
        }
        /* blank1 and blank2 of the class less its first one or two letters */
        uint32_t m1 = 0, m2 = 0;
        bool h1 = doc_lookup(img, L, 1, key_of_letters(bf.w[i].sorted + 1, L - 1), &m1);
        bool h2 = L >= 3 ? doc_lookup(img, L, 2, key_of_letters(bf.w[i].sorted + 2, L - 2), &m2) : true;
        if (!h1 || m1 != bf_blank1(&bf, bf.w[i].sorted + 1, L - 1, ALPHA)) wrong++;
        if (L >= 3 && (!h2 || m2 != bf_blank2(&bf, bf.w[i].sorted + 2, L - 2, ALPHA))) wrong++;
        i = lo + cnt;
    }
    CU_ASSERT(found > 1000);
    CU_ASSERT_EQUAL(wrong, 0);
    wordmap_free(&wm);
    bf_free(&bf);
    kwg_free(&kwg);
}

/* err names path and is one line. */
static void expect_refused(int rc, const RkError *err, const char *path, const char *what, const char *needle) {
    CU_ASSERT_EQUAL(rc, -1);
    if (rc != -1) {
        printf("\n%s: accepted\n", what);
        return;
    }
    bool names = strstr(err->msg, path) != NULL, one_line = strchr(err->msg, '\n') == NULL;
    bool says = needle == NULL || strstr(err->msg, needle) != NULL;
    if (!names || !one_line || !says) printf("\n%s: '%s'\n", what, err->msg);
    CU_ASSERT(names);
    CU_ASSERT(one_line);
    CU_ASSERT(says);
}

static void write_file(const char *path, const uint8_t *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(n == 0 || fwrite(b, 1, n, f) == n);
    CU_ASSERT(fclose(f) == 0);
}

/* Loads bytes from a file at path with kwg and the english alphabet, expecting
 * a refusal that names the file (and says `needle`, if given); the same bytes
 * through wordmap_from_bytes too. */
static void expect_bad_bytes(const char *path, const uint8_t *b, size_t n, const Kwg *kwg, const char *what,
                             const char *needle) {
    write_file(path, b, n);
    WordMap wm;
    RkError err;
    expect_refused(wordmap_load(&wm, path, kwg, ALPHA, &err), &err, path, what, needle);
    CU_ASSERT(wm.image == NULL);
    expect_refused(wordmap_from_bytes(&wm, b, n, kwg, ALPHA, path, &err), &err, path, what, needle);
    CU_ASSERT(wm.image == NULL);
}

static void test_write_load(void) {
    Kwg kwg, other;
    random_lexicon(&kwg, 21, 3000);
    random_lexicon(&other, 22, 3000);
    Bf bf;
    bf_from_kwg(&bf, &kwg);
    WordMap wm, back;
    build_map(&wm, &kwg, 2);
    char dir[512], path[600];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/lex.wmp", dir);
    RkError err;
    CU_ASSERT_FATAL(wordmap_write(&wm, path, &err) == 0);
    unsigned char *bytes = NULL;
    long n = tu_read_bytes(path, &bytes);
    CU_ASSERT_FATAL(n == (long)wm.image_size);
    CU_ASSERT(memcmp(bytes, wm.image, (size_t)n) == 0);
    int rc = wordmap_load(&back, path, &kwg, ALPHA, &err);
    if (rc != 0) printf("\nload: %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    CU_ASSERT(back.mapped);
    CU_ASSERT_EQUAL(back.max_len, wm.max_len);
    CU_ASSERT_EQUAL(back.kwg_hash, wordmap_kwg_hash(&kwg));
    CU_ASSERT_EQUAL(back.kwg_nodes, kwg.n);
    Tally t = {0};
    check_queries(&back, &bf, ALPHA, 5, tu_size(3000, 1000), &t);
    report("loaded map", &t);
    /* the same for the bytes in memory, and without the lexicon checks */
    WordMap mem;
    CU_ASSERT_FATAL(wordmap_from_bytes(&mem, bytes, (size_t)n, NULL, 0, "mem", &err) == 0);
    CU_ASSERT_FALSE(mem.mapped);
    Tally t2 = {0};
    check_queries(&mem, &bf, ALPHA, 6, tu_size(1000, 300), &t2);
    CU_ASSERT_EQUAL(t2.bad, 0);
    wordmap_free(&mem);
    wordmap_free(&back);

    /* another lexicon, another alphabet */
    WordMap x;
    expect_refused(wordmap_load(&x, path, &other, ALPHA, &err), &err, path, "another lexicon", "another lexicon");
    expect_refused(wordmap_load(&x, path, &kwg, ALPHA + 1, &err), &err, path, "another alphabet", "alphabet");
    expect_refused(wordmap_load(&x, path, &kwg, 5, &err), &err, path, "a small alphabet", "alphabet");
    /* the other lexicon's map beside this lexicon */
    WordMap om;
    build_map(&om, &other, 1);
    snprintf(path, sizeof path, "%s/other.wmp", dir);
    CU_ASSERT_FATAL(wordmap_write(&om, path, &err) == 0);
    expect_refused(wordmap_load(&x, path, &kwg, ALPHA, &err), &err, path, "the other map", "another lexicon");
    CU_ASSERT(wordmap_load(&x, path, &other, ALPHA, &err) == 0);
    wordmap_free(&x);
    wordmap_free(&om);

    /* truncated, padded, empty */
    size_t size = (size_t)n;
    size_t cuts[] = {1, 4, 63, 64, 2175, 2176, 2177, 4096, size / 2, size - 64, size - 1};
    snprintf(path, sizeof path, "%s/cut.wmp", dir);
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "truncated to %zu bytes", cuts[i]);
        expect_bad_bytes(path, bytes, cuts[i], &kwg, what, NULL);
    }
    expect_bad_bytes(path, bytes, 0, &kwg, "empty", NULL);
    uint8_t *pad = malloc(size + 64);
    CU_ASSERT_FATAL(pad != NULL);
    memcpy(pad, bytes, size);
    memset(pad + size, 0, 64);
    expect_bad_bytes(path, pad, size + 1, &kwg, "padded by a byte", "truncated or padded");
    expect_bad_bytes(path, pad, size + 64, &kwg, "padded by 64 bytes", "truncated or padded");
    /* a wrong magic, another version */
    memcpy(pad, bytes, size);
    memcpy(pad, "RKWN", 4);
    expect_bad_bytes(path, pad, size, &kwg, "wrong magic", "magic");
    memcpy(pad, bytes, size);
    pad[4] = 1;
    expect_bad_bytes(path, pad, size, &kwg, "version 1", "rebuild it");
    /* one flipped bit in every header byte (the header is outside the
     * checksum: each field is checked on its own) */
    int accepted = 0;
    for (int i = 0; i < 64; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(pad, bytes, size);
            pad[i] ^= (uint8_t)(1u << bit);
            write_file(path, pad, size);
            if (wordmap_load(&x, path, &kwg, ALPHA, &err) == 0) {
                if (accepted++ < 3) printf("\nheader byte %d bit %d flipped: accepted\n", i, bit);
                wordmap_free(&x);
            } else {
                CU_ASSERT(strstr(err.msg, path) != NULL);
            }
        }
    CU_ASSERT_EQUAL(accepted, 0);
    /* a flipped byte in the body, here and there */
    Rng rng = rng_from(77);
    for (int i = 0; i < 40; i++) {
        memcpy(pad, bytes, size);
        size_t at = 64 + (size_t)pr_below(&rng, (int)(size - 64));
        pad[at] ^= (uint8_t)(1 + pr_below(&rng, 255));
        char what[64];
        snprintf(what, sizeof what, "body byte %zu flipped", at);
        expect_bad_bytes(path, pad, size, &kwg, what, "checksum");
    }
    free(pad);
    free(bytes);

    /* a directory, a FIFO (no writer: the loader must not wait for one), a
     * missing file */
    alarm(60); /* a hang fails the test instead of blocking ctest */
    expect_refused(wordmap_load(&x, dir, &kwg, ALPHA, &err), &err, dir, "a directory", "not a regular file");
    snprintf(path, sizeof path, "%s/fifo.wmp", dir);
    CU_ASSERT_FATAL(mkfifo(path, 0600) == 0);
    expect_refused(wordmap_load(&x, path, &kwg, ALPHA, &err), &err, path, "a FIFO", "not a regular file");
    alarm(0);
    snprintf(path, sizeof path, "%s/none.wmp", dir);
    expect_refused(wordmap_load(&x, path, &kwg, ALPHA, &err), &err, path, "a missing file", NULL);
    wordmap_free(&wm);
    bf_free(&bf);
    kwg_free(&kwg);
    kwg_free(&other);
}

/* Damaged tables with a valid checksum (a crafted file): every offset, size
 * and payload is checked, each refusal one line naming the source. */
static void test_bad_tables(void) {
    Kwg kwg;
    random_lexicon(&kwg, 31, 1500);
    WordMap wm;
    build_map(&wm, &kwg, 1);
    size_t size = wm.image_size;
    const uint8_t *good = wm.image;
    uint8_t *img = malloc(size);
    CU_ASSERT_FATAL(img != NULL);
    const char *src = "crafted.wmp";
    RkError err;
    WordMap x;
    const int L = 5;
    uint8_t *e = img + 64 + 96 * L;
#define CRAFT(what, needle, edit)                                                                                      \
    do {                                                                                                               \
        memcpy(img, good, size);                                                                                       \
        edit;                                                                                                          \
        reseal(img, size);                                                                                             \
        expect_refused(wordmap_from_bytes(&x, img, size, &kwg, ALPHA, src, &err), &err, src, what, needle);            \
    } while (0)
    /* the unchanged image, resealed, loads */
    memcpy(img, good, size);
    reseal(img, size);
    CU_ASSERT_FATAL(wordmap_from_bytes(&x, img, size, &kwg, ALPHA, src, &err) == 0);
    wordmap_free(&x);
    /* a slot of each table of length L, occupied, and a class of 2 or more */
    uint64_t woff = le64(e + 16), b1off = le64(e + 40), b2off = le64(e + 64);
    size_t wslot = 0, b1slot = 0, b2slot = 0, cslot = 0;
    bool have_w = false, have_c = false;
    for (uint32_t i = 0; i <= wm.len[L].words.mask; i++) {
        const uint8_t *s = good + woff + 8 * (size_t)i;
        if (le32(s) == 0) continue;
        if (!have_w) wslot = i, have_w = true;
        if (!have_c && (le32(s + 4) & 0xFF) >= 2) cslot = i, have_c = true;
    }
    CU_ASSERT_FATAL(have_w && have_c);
    for (uint32_t i = 0; i <= wm.len[L].blank1.mask; i++)
        if (le32(good + b1off + 8 * (size_t)i)) {
            b1slot = i;
            break;
        }
    for (uint32_t i = 0; i <= wm.len[L].blank2.mask; i++)
        if (le32(good + b2off + 8 * (size_t)i)) {
            b2slot = i;
            break;
        }
    uint8_t *ws = img + woff + 8 * wslot, *cs = img + woff + 8 * cslot;
    uint8_t *b1s = img + b1off + 8 * b1slot, *b2s = img + b2off + 8 * b2slot;
    uint32_t nw = wm.len[L].nwords;
    CRAFT("class count 0", "outside its word list", put_le32(ws + 4, le32(ws + 4) & ~0xFFu));
    CRAFT("class past the words", "outside its word list", put_le32(ws + 4, (nw << 8) | 1));
    CRAFT("class overlapping the end", "outside its word list", put_le32(ws + 4, ((nw - 1) << 8) | 2));
    CRAFT("class of 255 past the end", "outside its word list", put_le32(ws + 4, 0xFFFFFFFFu));
    CRAFT("even fingerprint", "bad slot", put_le32(ws, le32(ws) & ~1u));
    CRAFT("blank1 mask with the blank", "bad slot", put_le32(b1s + 4, le32(b1s + 4) | 1u));
    CRAFT("blank1 mask empty", "bad slot", put_le32(b1s + 4, 0));
    CRAFT("blank2 mask past Z", "bad slot", put_le32(b2s + 4, le32(b2s + 4) | (1u << 27)));
    CRAFT("blank2 mask bit 31", "bad slot", put_le32(b2s + 4, le32(b2s + 4) | (1u << 31)));
    CRAFT("a slot more than used", "keys in", put_le32(e + 16 + 16, le32(e + 16 + 16) + 1));
    CRAFT("a blank2 slot emptied", "keys in", put_le32(b2s, 0));
    {
        /* a class whose second word has other letters */
        uint32_t p = le32(cs + 4);
        size_t second = ((size_t)(p >> 8) + 1) * L;
        uint64_t loff = le64(e);
        CRAFT("class of mixed letters", "different letters",
              img[loff + second] = (uint8_t)(img[loff + second] % 26 + 1));
    }
    CRAFT("letter 0 in a word", "outside the alphabet", img[le64(e)] = 0);
    CRAFT("letter 27 in a word", "outside the alphabet", img[le64(e) + 1] = 27);
    CRAFT("letters misaligned", "outside the file", put_le64(e, le64(e) + 8));
    CRAFT("letters past the end", "outside the file", put_le64(e, size + 64));
    CRAFT("too many words", "outside the file", put_le32(e + 8, (uint32_t)(size / L + 1)));
    CRAFT("table misaligned", "outside the file", put_le64(e + 16, woff + 8));
    CRAFT("table past the end", "outside the file", put_le64(e + 40, (uint64_t)size));
    CRAFT("table of 2^31 slots", "outside the file", put_le32(e + 64 + 8, 31));
    CRAFT("table of 2^32 slots", "outside the file", put_le32(e + 64 + 8, 32));
    CRAFT("table of 0 bits", "outside the file", put_le32(e + 16 + 8, 0));
    CRAFT("a table grown past the file", "outside the file", put_le32(e + 16 + 8, le32(e + 16 + 8) + 20));
    CRAFT("a full table", "keys in", {
        /* every slot of the blank2 table occupied */
        uint32_t slots = wm.len[L].blank2.mask + 1;
        for (uint32_t i = 0; i < slots; i++) {
            put_le32(img + b2off + 8 * (size_t)i, 2 * i + 1);
            put_le32(img + b2off + 8 * (size_t)i + 4, 2);
        }
        put_le32(e + 64 + 16, slots);
    });
    CRAFT("reserved entry field", "reserved", put_le32(e + 12, 1));
    CRAFT("reserved table field", "reserved", put_le32(e + 40 + 20, 1));
    CRAFT("entry padding", "reserved", e[90] = 1);
    CRAFT("entry of length 1", "lengths 0 and 1", img[64 + 96 + 3] = 1);
    CRAFT("entry count", "length entries", put_le32(img + 28, 21));
    CRAFT("longest word too long", "longest word", put_le32(img + 24, 13));
    CRAFT("longest word too short", "longest word", put_le32(img + 24, 11));
    CRAFT("longest word past 21", "longest word", put_le32(img + 24, 22));
    CRAFT("alphabet 1", "alphabet", put_le32(img + 20, 1));
    CRAFT("alphabet 33", "alphabet", put_le32(img + 20, 33));
    CRAFT("reserved header", "reserved", img[60] = 1);
#undef CRAFT
    /* random damage with a valid checksum: refused cleanly or, if accepted,
     * every lookup stays inside the image (ASan checks that) and returns
     * only words with the asked letters */
    Rng rng = rng_from(4242);
    int accepted = 0;
    for (int round = 0; round < tu_size(400, 150); round++) {
        memcpy(img, good, size);
        int flips = 1 + pr_below(&rng, 4);
        for (int f = 0; f < flips; f++) {
            size_t at = (size_t)pr_below(&rng, 64 + 22 * 96 + 64);
            if (pr_below(&rng, 2)) at = (size_t)pr_below(&rng, (int)size);
            img[at] ^= (uint8_t)(1u << pr_below(&rng, 8));
        }
        reseal(img, size);
        if (wordmap_from_bytes(&x, img, size, NULL, 0, src, &err) != 0) {
            CU_ASSERT(strstr(err.msg, src) != NULL && strchr(err.msg, '\n') == NULL);
            continue;
        }
        accepted++;
        for (int q = 0; q < 200; q++) {
            int len = 2 + pr_below(&rng, 12);
            uint8_t s[16];
            for (int i = 0; i < len; i++) s[i] = (uint8_t)(1 + pr_below(&rng, 26));
            if (q % 2) {
                /* a word of the map's own list */
                uint32_t nwl = x.len[len].nwords;
                if (nwl) memcpy(s, x.len[len].letters + (size_t)pr_below(&rng, (int)nwl) * len, (size_t)len);
            }
            WordKey k = key_of_letters(s, len);
            const uint8_t *w = NULL;
            uint32_t c = wordmap_words(&x, len, k, &w);
            for (uint32_t i = 0; i < c; i++) {
                const uint8_t *wi = w + (size_t)i * len;
                CU_ASSERT(wi >= (const uint8_t *)x.image && wi + len <= (const uint8_t *)x.image + x.image_size);
                CU_ASSERT(wordkey_equal(key_of_letters(wi, len), k));
            }
            uint32_t m1 = wordmap_blank1(&x, len, k), m2 = wordmap_blank2(&x, len, k);
            CU_ASSERT_EQUAL(m1 & 1u, 0);
            CU_ASSERT_EQUAL(m2 & 1u, 0);
            CU_ASSERT_EQUAL((m1 | m2) >> x.alphabet, 0);
        }
        wordmap_free(&x);
    }
    printf("\nrandom damage: %d of %d resealed images accepted (the rest refused)\n", accepted, tu_size(400, 150));
    free(img);
    wordmap_free(&wm);
    kwg_free(&kwg);
}

/* Lexicons a map cannot hold. */
static void test_build_limits(void) {
    /* 256 anagrams of one multiset: a class holds at most 255 */
    uint8_t(*w)[LMAX] = calloc(300, sizeof *w);
    int *l = calloc(300, sizeof *l);
    CU_ASSERT_FATAL(w != NULL && l != NULL);
    uint8_t base[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int n = 0;
    /* distinct orders: the permutations of 8 letters in lexicographic order */
    uint8_t p[8];
    memcpy(p, base, 8);
    while (n < 256) {
        memcpy(w[n], p, 8);
        l[n++] = 8;
        int i = 6;
        while (i >= 0 && p[i] >= p[i + 1]) i--;
        CU_ASSERT_FATAL(i >= 0);
        int j = 7;
        while (p[j] <= p[i]) j--;
        uint8_t t = p[i];
        p[i] = p[j];
        p[j] = t;
        for (int a = i + 1, b = 7; a < b; a++, b--) t = p[a], p[a] = p[b], p[b] = t;
    }
    Kwg kwg;
    WordMap wm;
    RkError err;
    build_kwg(&kwg, w, l, 255);
    CU_ASSERT_FATAL(wordmap_build(&wm, &kwg, ALPHA, 1, "x.kwg", &err) == 0);
    const uint8_t *words;
    CU_ASSERT_EQUAL(wordmap_words(&wm, 8, key_of_letters(base, 8), &words), 255);
    wordmap_free(&wm);
    kwg_free(&kwg);
    build_kwg(&kwg, w, l, 256);
    CU_ASSERT(wordmap_build(&wm, &kwg, ALPHA, 2, "x.kwg", &err) != 0);
    CU_ASSERT(strstr(err.msg, "x.kwg") != NULL && strstr(err.msg, "more than 255") != NULL);
    CU_ASSERT(wm.image == NULL);
    kwg_free(&kwg);
    /* 16 of one letter: a key counts at most 15 */
    memset(w[0], 5, 16);
    l[0] = 16;
    memset(w[1], 5, 15);
    l[1] = 15;
    build_kwg(&kwg, w + 1, l + 1, 1);
    CU_ASSERT_FATAL(wordmap_build(&wm, &kwg, ALPHA, 1, "x.kwg", &err) == 0);
    uint8_t e15[15];
    memset(e15, 5, 15);
    CU_ASSERT_EQUAL(wordmap_words(&wm, 15, key_of_letters(e15, 15), &words), 1);
    CU_ASSERT_EQUAL(wordmap_blank1(&wm, 15, key_of_letters(e15, 14)), 1u << 5);
    CU_ASSERT_EQUAL(wordmap_blank2(&wm, 15, key_of_letters(e15, 13)), 1u << 5);
    wordmap_free(&wm);
    kwg_free(&kwg);
    build_kwg(&kwg, w, l, 2);
    CU_ASSERT(wordmap_build(&wm, &kwg, ALPHA, 1, "x.kwg", &err) != 0);
    CU_ASSERT(strstr(err.msg, "x.kwg") != NULL && strstr(err.msg, "16 or more") != NULL);
    kwg_free(&kwg);
    /* letters the alphabet does not have, alphabets a mask cannot hold */
    memcpy(w[0], "\x1a\x01", 2); /* Z A */
    l[0] = 2;
    build_kwg(&kwg, w, l, 1);
    CU_ASSERT(wordmap_build(&wm, &kwg, 26, 1, "x.kwg", &err) != 0);
    CU_ASSERT(strstr(err.msg, "letter 26") != NULL);
    CU_ASSERT(wordmap_build(&wm, &kwg, 33, 1, "x.kwg", &err) != 0);
    CU_ASSERT(strstr(err.msg, "x.kwg") != NULL);
    CU_ASSERT(wordmap_build(&wm, &kwg, 1, 1, "x.kwg", &err) != 0);
    kwg_free(&kwg);
    /* the empty lexicon: a map with no words, every answer 0 */
    build_kwg(&kwg, w, l, 0);
    CU_ASSERT_FATAL(wordmap_build(&wm, &kwg, ALPHA, 2, "x.kwg", &err) == 0);
    CU_ASSERT_EQUAL(wm.max_len, 0);
    CU_ASSERT_EQUAL(wordmap_words(&wm, 2, key_of_letters(base, 2), &words), 0);
    CU_ASSERT_EQUAL(wordmap_blank2(&wm, 4, key_of_letters(base, 2)), 0);
    WordMap again;
    CU_ASSERT(wordmap_from_bytes(&again, wm.image, wm.image_size, &kwg, ALPHA, "e", &err) == 0);
    wordmap_free(&again);
    wordmap_free(&wm);
    kwg_free(&kwg);
    free(w);
    free(l);
}

static void test_path_beside(void) {
    char out[64];
    static const char *const cases[][2] = {
        {"a/b.kwg", "a/b.wmp"},       {"SOWPODS.kwg", "SOWPODS.wmp"}, {"x", "x.wmp"},
        {"x.KWG", "x.KWG.wmp"},       {"dir.kwg/lex", "dir.kwg/lex.wmp"}, {"lex.kwg.bak", "lex.kwg.bak.wmp"},
        {".kwg", ".wmp"},             {"", ".wmp"},                   {"/abs/path/L.kwg", "/abs/path/L.wmp"},
        {"kwg", "kwg.wmp"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(out, 'Z', sizeof out);
        CU_ASSERT_EQUAL(wordmap_path_beside(cases[i][0], out, sizeof out), 0);
        if (strcmp(out, cases[i][1]) != 0) printf("\n'%s' -> '%s', expected '%s'\n", cases[i][0], out, cases[i][1]);
        CU_ASSERT_STRING_EQUAL(out, cases[i][1]);
    }
    /* exactly the room it needs, and a byte less */
    CU_ASSERT_EQUAL(wordmap_path_beside("ab.kwg", out, 7), 0);
    CU_ASSERT_STRING_EQUAL(out, "ab.wmp");
    CU_ASSERT_EQUAL(wordmap_path_beside("ab.kwg", out, 6), -1);
    CU_ASSERT_EQUAL(wordmap_path_beside("ab", out, 7), 0);
    CU_ASSERT_EQUAL(wordmap_path_beside("ab", out, 6), -1);
    CU_ASSERT_EQUAL(wordmap_path_beside("ab", out, 0), -1);
}

/* The built SOWPODS.kwg's map (written by the build beside it) against
 * brute force. */
static void test_sowpods(void) {
    const char *kwg_path = tu_sowpods_kwg();
    if (kwg_path == NULL) return;
    char wmp[4096];
    CU_ASSERT_FATAL(wordmap_path_beside(kwg_path, wmp, sizeof wmp) == 0);
    struct stat st;
    if (stat(wmp, &st) != 0) {
        tu_missing("SOWPODS.wmp", "not beside SOWPODS.kwg (rebuild the lexicon: `rookery lexicon wordmap`)");
        return;
    }
    LetterDist ld;
    ld_english(&ld);
    Kwg kwg;
    RkError err;
    CU_ASSERT_FATAL(kwg_load(&kwg, kwg_path, (uint32_t)ld.size, &err) == 0);
    WordMap wm;
    int rc = wordmap_load(&wm, wmp, &kwg, ld.size, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    Bf bf;
    bf_from_kwg(&bf, &kwg);
    CU_ASSERT_EQUAL(bf.n, 267751); /* every word has 2..15 letters */
    uint64_t words = 0;
    for (int L = 2; L <= wm.max_len; L++) words += wm.len[L].nwords;
    CU_ASSERT_EQUAL(words, bf.n);
    CU_ASSERT_EQUAL(wm.max_len, 15);
    /* AEINRST: ten words in Collins */
    const char *aeinrst = "AEINRST";
    uint8_t s[7];
    for (int i = 0; i < 7; i++) s[i] = (uint8_t)(aeinrst[i] - 'A' + 1);
    const uint8_t *w;
    size_t lo;
    CU_ASSERT_EQUAL(wordmap_words(&wm, 7, key_of_letters(s, 7), &w), bf_range(&bf, 7, s, &lo));
    CU_ASSERT(bf_range(&bf, 7, s, &lo) >= 9);
    /* the presence filter: every word's key passes it; of keys with no
     * word (random multisets of 8 letters) it stops most (87% of these at
     * WM_PRESENT_BITS 4) */
    CU_ASSERT_PTR_NOT_NULL(wm.present);
    long missed = 0, absent = 0, stopped = 0;
    for (size_t i = 0; i < bf.n; i++)
        missed += !wordmap_may_have_words(&wm, key_of_letters(bf.w[i].word, bf.w[i].len));
    CU_ASSERT_EQUAL(missed, 0);
    Rng fr = rng_from(4801);
    for (int q = 0; q < 20000; q++) {
        uint8_t m[8];
        for (int i = 0; i < 8; i++) m[i] = (uint8_t)(1 + pr_below(&fr, 26));
        qsort(m, 8, 1, cmp_u8);
        if (bf_range(&bf, 8, m, &lo) > 0) continue;
        absent++;
        stopped += !wordmap_may_have_words(&wm, key_of_letters(m, 8));
    }
    printf("\nfilter: stops %ld of %ld keys without words\n", stopped, absent);
    CU_ASSERT(absent > 10000);
    CU_ASSERT(stopped * 10 > absent * 7);
    Tally t = {0};
    check_queries(&wm, &bf, ld.size, 2026, tu_size(4000, 1000), &t);
    report("SOWPODS", &t);
    bf_free(&bf);
    wordmap_free(&wm);
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"random lexicon against brute force", test_against_brute_force},
        {"1 and 2 build threads: the same bytes", test_threads_identical},
        {"the byte layout of docs/wordmap.md", test_doc_layout},
        {"write, load, and refused files", test_write_load},
        {"damaged tables with a valid checksum", test_bad_tables},
        {"lexicons a map cannot hold", test_build_limits},
        {"wordmap_path_beside", test_path_beside},
        {"SOWPODS.wmp against brute force", test_sowpods},
        CU_TEST_INFO_NULL,
    };
    return tu_run("wordmap", tests);
}
