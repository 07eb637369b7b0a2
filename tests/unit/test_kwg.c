/* The lexicon graph: building (DAWG + GADDAG, minimized), loading and
 * validating, walking, and the word index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kwg.h"
#include "core/kwg_index.h"
#include "testutil.h"

/* ---- helpers ---- */

/* Uppercase A..Z to ML 1..26. */
static int to_ml(const char *s, uint8_t *out) {
    int n = 0;
    for (; *s; s++) out[n++] = (uint8_t)(*s - 'A' + 1);
    return n;
}

static void to_text(const uint8_t *ml, int len, char *out) {
    for (int i = 0; i < len; i++) out[i] = (char)('A' + ml[i] - 1);
    out[len] = '\0';
}

static int cmp_cstr(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Builds from text words (A..Z). */
static int build_words(Kwg *k, const char *const *words, size_t n, bool gaddag, RkError *err) {
    uint8_t **ml = malloc((n ? n : 1) * sizeof *ml);
    int *lens = malloc((n ? n : 1) * sizeof *lens);
    for (size_t i = 0; i < n; i++) {
        ml[i] = malloc(strlen(words[i]) + 1);
        lens[i] = to_ml(words[i], ml[i]);
    }
    KwgWords w = {(const uint8_t *const *)ml, lens, n};
    int rc = kwg_build(k, &w, gaddag, err);
    for (size_t i = 0; i < n; i++) free(ml[i]);
    free(ml);
    free(lens);
    return rc;
}

static bool has(const Kwg *k, const char *word) {
    uint8_t ml[64];
    int n = to_ml(word, ml);
    return kwg_has_word(k, ml, n);
}

/* Follows a path from the GADDAG root; true if it exists and accepts. */
static bool gaddag_accepts(const Kwg *k, const uint8_t *path, int len) {
    uint32_t list = kwg_gaddag_root(k), node = 0;
    for (int i = 0; i < len; i++) {
        node = kwg_find(k, list, path[i]);
        if (node == 0) return false;
        list = kwg_arc(k, node);
    }
    return len > 0 && kwg_accepts(k, node);
}

/* The GADDAG path of ml[0..n) split after i letters (1..n). */
static int gaddag_path(const uint8_t *ml, int n, int i, uint8_t *out) {
    int l = 0;
    for (int j = i; j >= 1; j--) out[l++] = ml[j - 1];
    if (i < n) {
        out[l++] = KWG_SEPARATOR;
        for (int j = i; j < n; j++) out[l++] = ml[j];
    }
    return l;
}

/* Counts every accepted path below list (depth-capped). */
static uint64_t count_paths(const Kwg *k, uint32_t list, int depth) {
    if (list == 0 || depth > 40) return 0;
    uint64_t c = 0;
    for (uint32_t i = list;; i++) {
        if (kwg_accepts(k, i)) c++;
        c += count_paths(k, kwg_arc(k, i), depth + 1);
        if (kwg_is_end(k, i)) break;
    }
    return c;
}

typedef struct Collect {
    char **words;
    size_t n, cap;
} Collect;

static int collect_word(const uint8_t *ml, int len, void *ctx) {
    Collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->words = realloc(c->words, c->cap * sizeof *c->words);
    }
    char *w = malloc((size_t)len + 1);
    to_text(ml, len, w);
    c->words[c->n++] = w;
    return 0;
}

static void collect_free(Collect *c) {
    for (size_t i = 0; i < c->n; i++) free(c->words[i]);
    free(c->words);
    memset(c, 0, sizeof *c);
}

static int count_word(const uint8_t *ml, int len, void *ctx) {
    (void)ml;
    (void)len;
    (*(uint64_t *)ctx)++;
    return 0;
}

static bool contains(const char *const *list, size_t n, const char *w) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], w) == 0) return true;
    return false;
}

/* Words with shared prefixes and suffixes, unsorted, with duplicates. */
static const char *const SMALL[] = {
    "CARE", "CARED", "CARES", "CAR",  "CARS", "BARE", "BARED", "BARES", "DARE", "DARED",
    "DARES", "A",   "AA",    "AAH",   "ZA",   "QI",   "CAT",   "CATS",  "BAT",  "BATS",
    "DOG",  "DOGS", "CARE",  "ZA",    "QUARTZ", "OX",  "XI",    "ABACUS", "BACK", "BACKS",
};
#define N_SMALL (sizeof SMALL / sizeof SMALL[0])

/* The sorted unique SMALL list; returns its size. */
static size_t small_sorted(const char **out) {
    const char *tmp[N_SMALL];
    memcpy(tmp, SMALL, sizeof tmp);
    qsort(tmp, N_SMALL, sizeof tmp[0], cmp_cstr);
    size_t n = 0;
    for (size_t i = 0; i < N_SMALL; i++)
        if (n == 0 || strcmp(out[n - 1], tmp[i]) != 0) out[n++] = tmp[i];
    return n;
}

/* ---- tests ---- */

static void test_words_found(void) {
    Kwg k;
    RkError err = {{0}};
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    for (size_t i = 0; i < N_SMALL; i++) CU_ASSERT(has(&k, SMALL[i]));
    static const char *const NON[] = {"CA", "CARER", "ZZ", "B", "AB", "BARS", "DA", "ABACU",
                                      "QUART", "AAHS", "XIS", "Z", "QIS", "DOGSA"};
    for (size_t i = 0; i < sizeof NON / sizeof NON[0]; i++) {
        CU_ASSERT(!has(&k, NON[i]));
        CU_ASSERT(!contains(SMALL, N_SMALL, NON[i]));
    }
    /* Every proper prefix is a word exactly when it is listed. */
    for (size_t i = 0; i < N_SMALL; i++) {
        char pre[64];
        size_t len = strlen(SMALL[i]);
        for (size_t l = 1; l < len; l++) {
            memcpy(pre, SMALL[i], l);
            pre[l] = '\0';
            CU_ASSERT(has(&k, pre) == contains(SMALL, N_SMALL, pre));
        }
    }
    uint8_t empty[1];
    CU_ASSERT(!kwg_has_word(&k, empty, 0));
    CU_ASSERT(kwg_validate(k.nodes, k.n, 27, "small", &err) == 0);
    kwg_free(&k);
}

static void test_round_trip(void) {
    const char *sorted[N_SMALL];
    size_t n = small_sorted(sorted);
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    Collect c = {0};
    CU_ASSERT(kwg_foreach_word(&k, 15, collect_word, &c) == 0);
    CU_ASSERT_EQUAL(c.n, n);
    for (size_t i = 0; i < n && i < c.n; i++) CU_ASSERT_STRING_EQUAL(c.words[i], sorted[i]);
    collect_free(&c);
    /* The depth cap drops longer words. */
    CU_ASSERT(kwg_foreach_word(&k, 2, collect_word, &c) == 0);
    for (size_t i = 0; i < c.n; i++) CU_ASSERT(strlen(c.words[i]) <= 2);
    CU_ASSERT_EQUAL(c.n, 6); /* A AA OX QI XI ZA */
    collect_free(&c);
    kwg_free(&k);
}

static void test_gaddag_paths(void) {
    const char *sorted[N_SMALL];
    size_t n = small_sorted(sorted);
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    CU_ASSERT(kwg_gaddag_root(&k) != 0);
    uint64_t expect = 0;
    for (size_t w = 0; w < n; w++) {
        uint8_t ml[64], path[128];
        int len = to_ml(sorted[w], ml);
        expect += (uint64_t)len;
        for (int i = 1; i <= len; i++) {
            int pl = gaddag_path(ml, len, i, path);
            CU_ASSERT(gaddag_accepts(&k, path, pl));
        }
    }
    /* No other accepted paths. */
    CU_ASSERT_EQUAL(count_paths(&k, kwg_gaddag_root(&k), 0), expect);
    /* CARE: ERAC, RAC.E, AC.RE, C.ARE (formats.md). */
    static const uint8_t care[4][5] = {{5, 18, 1, 3}, {18, 1, 3, 0, 5}, {1, 3, 0, 18, 5},
                                       {3, 0, 1, 18, 5}};
    static const int care_len[4] = {4, 5, 5, 5};
    for (int i = 0; i < 4; i++) CU_ASSERT(gaddag_accepts(&k, care[i], care_len[i]));
    /* Random non-words have none of their paths. */
    uint64_t x = 12345;
    int tried = 0;
    while (tried < 300) {
        char w[8];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int len = 2 + (int)((x >> 33) % 5);
        for (int i = 0; i < len; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            w[i] = (char)('A' + (x >> 33) % 26);
        }
        w[len] = '\0';
        if (contains(SMALL, N_SMALL, w)) continue;
        tried++;
        uint8_t ml[8], path[16];
        to_ml(w, ml);
        for (int i = 1; i <= len; i++) {
            int pl = gaddag_path(ml, len, i, path);
            CU_ASSERT(!gaddag_accepts(&k, path, pl));
        }
        CU_ASSERT(!has(&k, w));
    }
    kwg_free(&k);
    /* Without a GADDAG node 1 has no arc. */
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, false, &err) == 0);
    CU_ASSERT_EQUAL(kwg_gaddag_root(&k), 0);
    CU_ASSERT(has(&k, "QUARTZ"));
    kwg_free(&k);
}

static void test_minimized(void) {
    /* CARED BARED DARED: root list B C D sharing one A-R-E-D chain. */
    static const char *const W[] = {"CARED", "BARED", "DARED"};
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(build_words(&k, W, 3, false, &err) == 0);
    CU_ASSERT_EQUAL(k.n, 2 + 3 + 4);
    uint32_t r = kwg_dawg_root(&k);
    CU_ASSERT(kwg_arc(&k, r) == kwg_arc(&k, r + 1) && kwg_arc(&k, r + 1) == kwg_arc(&k, r + 2));
    kwg_free(&k);

    /* The small list: fewer nodes than the naive trie (one node per distinct
     * prefix), for the DAWG alone and for DAWG + GADDAG. */
    const char *sorted[N_SMALL];
    size_t n = small_sorted(sorted);
    uint32_t trie = 0;
    for (size_t i = 0; i < n; i++) {
        size_t common = 0;
        if (i > 0)
            while (sorted[i - 1][common] && sorted[i - 1][common] == sorted[i][common]) common++;
        trie += (uint32_t)(strlen(sorted[i]) - common);
    }
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, false, &err) == 0);
    CU_ASSERT(k.n - 2 < trie);
    uint32_t dawg_only = k.n;
    kwg_free(&k);
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    CU_ASSERT(k.n > dawg_only);
    kwg_free(&k);
}

static void test_empty_graph(void) {
    Kwg k;
    RkError err;
    KwgWords none = {NULL, NULL, 0};
    CU_ASSERT_FATAL(kwg_build(&k, &none, true, &err) == 0);
    CU_ASSERT_EQUAL(k.n, 2);
    CU_ASSERT_EQUAL(k.nodes[0], 0x00400000u);
    CU_ASSERT_EQUAL(k.nodes[1], 0x00400000u);
    char dir[256], path[300];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/empty.kwg", dir);
    CU_ASSERT_FATAL(kwg_write(&k, path, &err) == 0);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_FATAL(f != NULL);
    unsigned char buf[16];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    static const unsigned char expect[8] = {0, 0, 0x40, 0, 0, 0, 0x40, 0};
    CU_ASSERT_EQUAL(got, 8);
    CU_ASSERT(memcmp(buf, expect, 8) == 0);
    uint64_t words = 0;
    CU_ASSERT(kwg_foreach_word(&k, 15, count_word, &words) == 0);
    CU_ASSERT_EQUAL(words, 0);
    KwgIndex ix;
    CU_ASSERT(kwg_index_init(&ix, &k, &err) == 0);
    CU_ASSERT_EQUAL(kwg_index_word_count(&ix), 0);
    kwg_index_free(&ix);
    remove(path);
    rmdir(dir);
    kwg_free(&k);
}

static void test_bad_build_input(void) {
    Kwg k;
    RkError err = {{0}};
    uint8_t w0[] = {1, 0, 2};
    const uint8_t *ws[] = {w0};
    int lens[] = {3};
    KwgWords words = {ws, lens, 1};
    CU_ASSERT(kwg_build(&k, &words, true, &err) != 0); /* tile 0 clashes with the separator */
    CU_ASSERT(strlen(err.msg) > 0);
    CU_ASSERT(kwg_build(&k, &words, false, &err) == 0); /* fine in a DAWG (leaves) */
    CU_ASSERT(kwg_has_word(&k, w0, 3));
    kwg_free(&k);
    lens[0] = 0;
    err.msg[0] = '\0';
    CU_ASSERT(kwg_build(&k, &words, true, &err) != 0);
    CU_ASSERT(strlen(err.msg) > 0);
}

static void test_word_index(void) {
    const char *sorted[N_SMALL];
    size_t n = small_sorted(sorted);
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    KwgIndex ix;
    CU_ASSERT_FATAL(kwg_index_init(&ix, &k, &err) == 0);
    CU_ASSERT_EQUAL(kwg_index_word_count(&ix), n);
    for (size_t i = 0; i < n; i++) {
        uint8_t ml[64], back[64];
        int len = to_ml(sorted[i], ml);
        CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, ml, len), (int64_t)i);
        int bl = kwg_index_word_at(&k, &ix, i, back, 64);
        CU_ASSERT_EQUAL(bl, len);
        CU_ASSERT(bl == len && memcmp(back, ml, (size_t)len) == 0);
        CU_ASSERT_EQUAL(kwg_index_word_at(&k, &ix, i, back, len - 1), -1); /* too small */
    }
    uint8_t ml[64];
    CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, ml, to_ml("CARER", ml)), -1);
    CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, ml, to_ml("CA", ml)), -1);
    CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, ml, to_ml("ZZ", ml)), -1);
    CU_ASSERT_EQUAL(kwg_index_word_at(&k, &ix, n, ml, 64), -1);
    kwg_index_free(&ix);
    kwg_free(&k);

    /* Leave-style strings with the blank (0) first, DAWG only. */
    static const uint8_t l0[] = {0}, l1[] = {0, 0}, l2[] = {0, 1}, l3[] = {1}, l4[] = {1, 5},
                         l5[] = {2, 2, 2};
    const uint8_t *ls[] = {l4, l1, l5, l0, l3, l2};
    int lens[] = {2, 2, 3, 1, 1, 2};
    const uint8_t *order[] = {l0, l1, l2, l3, l4, l5};
    int olens[] = {1, 2, 2, 1, 2, 3};
    KwgWords words = {ls, lens, 6};
    CU_ASSERT_FATAL(kwg_build(&k, &words, false, &err) == 0);
    CU_ASSERT_FATAL(kwg_index_init(&ix, &k, &err) == 0);
    CU_ASSERT_EQUAL(kwg_index_word_count(&ix), 6);
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, order[i], olens[i]), i);
        uint8_t back[8];
        CU_ASSERT_EQUAL(kwg_index_word_at(&k, &ix, (uint64_t)i, back, 8), olens[i]);
        CU_ASSERT(memcmp(back, order[i], (size_t)olens[i]) == 0);
    }
    kwg_index_free(&ix);
    kwg_free(&k);
}

static void test_cycle(void) {
    /* Node 2 (tile A, accepts) points back to its own list: AAAA... */
    uint32_t *nodes = malloc(3 * sizeof *nodes);
    nodes[0] = KWG_IS_END_BIT | 2;
    nodes[1] = KWG_IS_END_BIT;
    nodes[2] = (1u << 24) | KWG_ACCEPTS_BIT | KWG_IS_END_BIT | 2;
    Kwg k;
    RkError err = {{0}};
    CU_ASSERT_FATAL(kwg_from_nodes(&k, nodes, 3, 27, "cyclic", &err) == 0);
    uint64_t words = 0;
    CU_ASSERT(kwg_foreach_word(&k, 10, count_word, &words) == 0);
    CU_ASSERT_EQUAL(words, 10);
    KwgIndex ix;
    CU_ASSERT(kwg_index_init(&ix, &k, &err) != 0);
    CU_ASSERT(strstr(err.msg, "cycle") != NULL);
    kwg_free(&k);
}

static void test_write_load(void) {
    Kwg k, back;
    RkError err;
    CU_ASSERT_FATAL(build_words(&k, SMALL, N_SMALL, true, &err) == 0);
    char dir[256], path[300], tmp[310];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/small.kwg", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CU_ASSERT_FATAL(kwg_write(&k, path, &err) == 0);
    struct stat st;
    CU_ASSERT(stat(tmp, &st) != 0); /* renamed away */
    CU_ASSERT(stat(path, &st) == 0 && (uint64_t)st.st_size == (uint64_t)k.n * 4);
    /* Little-endian on disk. */
    FILE *f = fopen(path, "rb");
    unsigned char b[4] = {0};
    CU_ASSERT(f != NULL && fread(b, 1, 4, f) == 4);
    if (f) fclose(f);
    CU_ASSERT_EQUAL((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                        (uint32_t)b[3] << 24,
                    k.nodes[0]);
    CU_ASSERT_FATAL(kwg_load(&back, path, 27, &err) == 0);
    CU_ASSERT_EQUAL(back.n, k.n);
    CU_ASSERT(memcmp(back.nodes, k.nodes, (size_t)k.n * 4) == 0);
    CU_ASSERT(has(&back, "QUARTZ"));
    /* A tile limit below the letters used is refused. */
    Kwg bad;
    CU_ASSERT(kwg_load(&bad, path, 20, &err) != 0);
    CU_ASSERT(strstr(err.msg, path) != NULL);
    remove(path);
    rmdir(dir);
    kwg_free(&back);
    kwg_free(&k);
}

/* Writes nodes to dir/name little-endian; returns the path in buf. */
static const char *write_nodes(const char *dir, const char *name, const uint32_t *nodes, int n,
                               char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", dir, name);
    FILE *f = fopen(buf, "wb");
    if (f == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        unsigned char b[4] = {(unsigned char)nodes[i], (unsigned char)(nodes[i] >> 8),
                              (unsigned char)(nodes[i] >> 16), (unsigned char)(nodes[i] >> 24)};
        fwrite(b, 1, 4, f);
    }
    fclose(f);
    return buf;
}

static void expect_load_error(const char *path, const char *needle) {
    Kwg k;
    RkError err = {{0}};
    CU_ASSERT(kwg_load(&k, path, 27, &err) != 0);
    CU_ASSERT(strlen(err.msg) > 0);
    CU_ASSERT(strstr(err.msg, path) != NULL);
    if (needle) CU_ASSERT(strstr(err.msg, needle) != NULL);
    CU_ASSERT(strchr(err.msg, '\n') == NULL);
    CU_ASSERT(k.nodes == NULL && k.n == 0);
}

static void test_validation(void) {
    char dir[256], path[400];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);

    snprintf(path, sizeof path, "%s/seven.kwg", dir);
    CU_ASSERT_FATAL(tu_write_file(path, "1234567") == 0);
    expect_load_error(path, "not a multiple of 4");
    remove(path);

    snprintf(path, sizeof path, "%s/missing.kwg", dir);
    expect_load_error(path, NULL);

    snprintf(path, sizeof path, "%s/empty.kwg", dir);
    CU_ASSERT_FATAL(tu_write_file(path, "") == 0);
    expect_load_error(path, NULL);
    remove(path);

    const uint32_t E = KWG_IS_END_BIT, A = KWG_ACCEPTS_BIT;
    const uint32_t arc_out[] = {E | 2, E, (1u << 24) | A | E | 99};
    CU_ASSERT_FATAL(write_nodes(dir, "arc.kwg", arc_out, 3, path, sizeof path) != NULL);
    expect_load_error(path, "arc");
    remove(path);

    const uint32_t no_end[] = {E | 2, E, (1u << 24) | A, (2u << 24) | A};
    CU_ASSERT_FATAL(write_nodes(dir, "noend.kwg", no_end, 4, path, sizeof path) != NULL);
    expect_load_error(path, "is_end");
    remove(path);

    const uint32_t one_node[] = {E};
    CU_ASSERT_FATAL(write_nodes(dir, "one.kwg", one_node, 1, path, sizeof path) != NULL);
    expect_load_error(path, NULL);
    remove(path);

    const uint32_t descending[] = {E | 2, E, (2u << 24) | A, (1u << 24) | A | E};
    CU_ASSERT_FATAL(write_nodes(dir, "desc.kwg", descending, 4, path, sizeof path) != NULL);
    expect_load_error(path, "ascend");
    remove(path);

    const uint32_t root_no_end[] = {2, E, (1u << 24) | A | E};
    CU_ASSERT_FATAL(write_nodes(dir, "root.kwg", root_no_end, 3, path, sizeof path) != NULL);
    expect_load_error(path, NULL);
    remove(path);

    /* Tile limit: 30 is beyond English (27) but fine when unchecked (256). */
    const uint32_t big_tile[] = {E | 2, E, (30u << 24) | A | E};
    RkError err = {{0}};
    CU_ASSERT(kwg_validate(big_tile, 3, 27, "mem", &err) != 0);
    CU_ASSERT(strstr(err.msg, "mem") != NULL);
    CU_ASSERT(kwg_validate(big_tile, 3, 256, "mem", &err) == 0);
    /* Consecutive lists may restart low: A B | A is valid. */
    const uint32_t two_lists[] = {E | 2, E, (1u << 24) | A, (2u << 24) | A | E | 4,
                                  (1u << 24) | A | E};
    CU_ASSERT(kwg_validate(two_lists, 5, 27, "mem", &err) == 0);
    CU_ASSERT(kwg_validate(NULL, 0, 27, "mem", &err) != 0);
    rmdir(dir);
}

static void test_arc_limit(void) {
    /* 300,000 random 30-letter words share little but their first and last
     * few letters: more than 2^22 nodes, which the 22-bit arc index cannot
     * address. */
    size_t n = 300000;
    const int L = 30;
    uint8_t *buf = malloc(n * (size_t)L);
    const uint8_t **ws = malloc(n * sizeof *ws);
    int *lens = malloc(n * sizeof *lens);
    uint64_t x = 99;
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < L; j++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            buf[i * (size_t)L + (size_t)j] = (uint8_t)(1 + (x >> 33) % 26);
        }
        ws[i] = buf + i * (size_t)L;
        lens[i] = L;
    }
    KwgWords words = {ws, lens, n};
    Kwg k;
    RkError err = {{0}};
    CU_ASSERT(kwg_build(&k, &words, false, &err) != 0);
    CU_ASSERT(strstr(err.msg, "4194304") != NULL);
    /* A tenth of them fits. */
    words.count = n / 10;
    CU_ASSERT(kwg_build(&k, &words, false, &err) == 0);
    CU_ASSERT(k.n <= KWG_ARC_MASK + 1);
    kwg_free(&k);
    free(buf);
    free(ws);
    free(lens);
}

static void check_big_lexicon(const char *path, uint64_t expect_words) {
    Kwg k;
    RkError err;
    if (kwg_load(&k, path, 27, &err) != 0) {
        printf("\n%s\n", err.msg);
        CU_FAIL("load");
        return;
    }
    uint64_t words = 0;
    CU_ASSERT(kwg_foreach_word(&k, 64, count_word, &words) == 0);
    CU_ASSERT_EQUAL(words, expect_words);
    CU_ASSERT(has(&k, "QI"));
    CU_ASSERT(has(&k, "ZA"));
    CU_ASSERT(has(&k, "AARDVARK"));
    CU_ASSERT(has(&k, "QUARTZ"));
    CU_ASSERT(!has(&k, "ZZZZ"));
    CU_ASSERT(!has(&k, "QX"));
    CU_ASSERT(!has(&k, "AARDVARKX"));
    CU_ASSERT(!has(&k, "AARDVAR"));
    /* GADDAG paths of a few words. */
    static const char *const G[] = {"AARDVARK", "QI", "CARE", "QUARTZ", "ZA"};
    for (size_t w = 0; w < sizeof G / sizeof G[0]; w++) {
        uint8_t ml[16], path_ml[32];
        int len = to_ml(G[w], ml);
        for (int i = 1; i <= len; i++) {
            int pl = gaddag_path(ml, len, i, path_ml);
            CU_ASSERT(gaddag_accepts(&k, path_ml, pl));
        }
    }
    /* Word index over the whole DAWG. */
    KwgIndex ix;
    CU_ASSERT_FATAL(kwg_index_init(&ix, &k, &err) == 0);
    CU_ASSERT_EQUAL(kwg_index_word_count(&ix), expect_words);
    for (uint64_t i = 0; i < expect_words; i += 997) {
        uint8_t ml[64];
        int len = kwg_index_word_at(&k, &ix, i, ml, 64);
        CU_ASSERT(len > 0 && kwg_has_word(&k, ml, len));
        CU_ASSERT_EQUAL(kwg_index_of(&k, &ix, ml, len), (int64_t)i);
    }
    kwg_index_free(&ix);

    /* Rebuilding from its own words gives the same word set, no larger. */
    Collect c = {0};
    CU_ASSERT(kwg_foreach_word(&k, 64, collect_word, &c) == 0);
    Kwg rebuilt;
    CU_ASSERT_FATAL(build_words(&rebuilt, (const char *const *)c.words, c.n, true, &err) == 0);
    CU_ASSERT(rebuilt.n <= k.n);
    Collect c2 = {0};
    CU_ASSERT(kwg_foreach_word(&rebuilt, 64, collect_word, &c2) == 0);
    CU_ASSERT_EQUAL(c2.n, c.n);
    bool same = c2.n == c.n;
    for (size_t i = 0; same && i < c.n; i++) same = strcmp(c.words[i], c2.words[i]) == 0;
    CU_ASSERT(same);
    CU_ASSERT_EQUAL(count_paths(&rebuilt, kwg_gaddag_root(&rebuilt), 0),
                    count_paths(&k, kwg_gaddag_root(&k), 0));
    collect_free(&c);
    collect_free(&c2);
    kwg_free(&rebuilt);
    kwg_free(&k);
}

static void test_twl06(void) {
    char buf[1024];
    const char *path = tu_shared_path("reference/TWL06.kwg", buf, sizeof buf);
    if (path == NULL) return;
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(kwg_load(&k, path, 27, &err) == 0);
    CU_ASSERT_EQUAL(k.n, 830481);
    CU_ASSERT(has(&k, "ZZZ")); /* a TWL06 word */
    kwg_free(&k);
    check_big_lexicon(path, 178691);
}

static void test_sowpods(void) {
    const char *path = tu_sowpods_kwg();
    if (path == NULL) return;
    check_big_lexicon(path, 267751);
    Kwg k;
    RkError err;
    CU_ASSERT_FATAL(kwg_load(&k, path, 27, &err) == 0);
    CU_ASSERT(has(&k, "ZZZS"));
    CU_ASSERT(has(&k, "OXYPHENBUTAZONE"));
    kwg_free(&k);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"words found, non-words and prefixes not", test_words_found},
        {"round trip build -> foreach_word", test_round_trip},
        {"GADDAG paths", test_gaddag_paths},
        {"minimization", test_minimized},
        {"empty graph is 8 bytes", test_empty_graph},
        {"bad build input", test_bad_build_input},
        {"word index", test_word_index},
        {"cyclic graph", test_cycle},
        {"write + load round trip", test_write_load},
        {"validation rejects corrupt files", test_validation},
        {"22-bit arc limit", test_arc_limit},
        {"TWL06.kwg (MAGPIE's)", test_twl06},
        {"SOWPODS.kwg", test_sowpods},
        CU_TEST_INFO_NULL,
    };
    return tu_run("kwg", tests);
}
