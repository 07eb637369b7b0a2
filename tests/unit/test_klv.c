/* Leave values (.klv2): loading MAGPIE's CSW21 leaves, the all-zero set,
 * writing and reloading, lookups, and refusing corrupt files. */
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/klv.h"
#include "testutil.h"

#define ENGLISH_LEAVES 914624u
#define ENGLISH_ZERO_BYTES 3667340L

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    long n = file_size(path);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf == NULL || (long)got != n) {
        free(buf);
        return NULL;
    }
    *size = got;
    return buf;
}

static int write_all(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    int rc = fwrite(data, 1, size, f) == size ? 0 : -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int32_t value_of(const Klv *k, const LetterDist *ld, const char *leave) {
    Rack r;
    RkError err;
    if (rack_parse(&r, ld, leave, &err) != 0) {
        CU_FAIL(err.msg);
        return INT32_MIN;
    }
    return klv_leave_value(k, &r);
}

static int64_t index_of(const Klv *k, const LetterDist *ld, const char *leave) {
    Rack r;
    RkError err;
    if (rack_parse(&r, ld, leave, &err) != 0) {
        CU_FAIL(err.msg);
        return -2;
    }
    return klv_index(k, &r);
}

static const char *csw21_path(char *buf, size_t cap) {
    return tu_shared_path("reference/CSW21.klv2", buf, cap);
}

/* Loads path as English leaves into k (ld: the English distribution);
 * prints the loader's message on failure. */
static bool load_english(Klv *k, const char *path, LetterDist *ld) {
    ld_english(ld);
    RkError err;
    int rc = klv_load(k, path, ld, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    return rc == 0;
}

static void test_csw21_spot_values(void) {
    char path[4096];
    if (csw21_path(path, sizeof path) == NULL) return;
    LetterDist ld;
    Klv k;
    CU_ASSERT_FATAL(load_english(&k, path, &ld));
    CU_ASSERT_EQUAL(k.kwg.n, 2209u);
    CU_ASSERT_EQUAL(k.count, ENGLISH_LEAVES);
    CU_ASSERT_EQUAL(kwg_gaddag_root(&k.kwg), 0u);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "?"), 28291);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "S"), 9106);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "Q"), -7653);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "QU"), 2254);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "AEINST"), 33241);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "TSENIA"), 33241); /* order does not matter */
    /* floats as stored */
    CU_ASSERT(fabs(k.values[index_of(&k, &ld, "?")] - 28.291) < 1e-4);
    CU_ASSERT(fabs(k.values[index_of(&k, &ld, "Q")] + 7.653) < 1e-4);
    /* the empty leave, a full rack and impossible leaves are worth 0 */
    Rack empty;
    rack_clear(&empty);
    CU_ASSERT_EQUAL(klv_leave_value(&k, &empty), 0);
    CU_ASSERT_EQUAL(klv_index(&k, &empty), -1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "AEINRST"), -1);
    CU_ASSERT_EQUAL(value_of(&k, &ld, "AEINRST"), 0);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "QQ"), -1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "???"), -1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "ZZ"), -1);
    /* milli is each float rounded once */
    for (uint32_t i = 0; i < k.count; i++) {
        if (k.milli[i] != (int32_t)lround((double)k.values[i] * 1000.0)) {
            CU_FAIL("milli is not lround(value * 1000)");
            break;
        }
    }
    klv_free(&k);
}

static void test_csw21_load_with_wrong_distribution(void) {
    char path[4096];
    if (csw21_path(path, sizeof path) == NULL) return;
    LetterDist ld;
    RkError err;
    CU_ASSERT_FATAL(ld_parse(&ld, "?,?,2,0,0\nA,a,9,1,1\nB,b,2,3,0\n", "tiny.csv", &err) == 0);
    Klv k;
    CU_ASSERT(klv_load(&k, path, &ld, &err) != 0);
    CU_ASSERT(strstr(err.msg, "CSW21.klv2") != NULL);
    CU_ASSERT(strstr(err.msg, "tile") != NULL);
    klv_free(&k); /* harmless after a failed load */
}

/* Indices of the zero set, by the word order: '?' sorts first (ML 0), and
 * nothing follows the single Z. */
static void test_zero_english(void) {
    LetterDist ld;
    ld_english(&ld);
    Klv k;
    RkError err;
    CU_ASSERT_FATAL(klv_init_zero(&k, &ld, &err) == 0);
    CU_ASSERT_EQUAL(k.count, ENGLISH_LEAVES);
    CU_ASSERT_EQUAL(kwg_gaddag_root(&k.kwg), 0u);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "?"), 0);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "??"), 1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "??A"), 2);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "??AA"), 3);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "Z"), (int64_t)ENGLISH_LEAVES - 1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "YZ"), (int64_t)ENGLISH_LEAVES - 2);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "YYZ"), (int64_t)ENGLISH_LEAVES - 3);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "YY"), (int64_t)ENGLISH_LEAVES - 4);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "QQ"), -1);
    CU_ASSERT_EQUAL(index_of(&k, &ld, "EEEEEEE"), -1);
    for (uint32_t i = 0; i < k.count; i++) {
        if (k.values[i] != 0.0f || k.milli[i] != 0) {
            CU_FAIL("zero leaves hold a non-zero value");
            break;
        }
    }
    /* every index names a leave that maps back to it, of 1..6 tiles */
    for (uint32_t i = 0; i < k.count; i += 997) {
        uint8_t w[16];
        int len = kwg_index_word_at(&k.kwg, &k.ix, i, w, (int)sizeof w);
        CU_ASSERT(len >= 1 && len <= RK_RACK_SIZE - 1);
        Rack r;
        rack_clear(&r);
        for (int j = 0; j < len; j++) rack_add(&r, w[j]);
        CU_ASSERT_EQUAL(klv_index(&k, &r), (int64_t)i);
    }

    char dir[4096], out[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(out, sizeof out, "%s/zero.klv2", dir);
    CU_ASSERT_FATAL(klv_write(&k, out, &err) == 0);
    CU_ASSERT_EQUAL(file_size(out), ENGLISH_ZERO_BYTES);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    CU_ASSERT(access(tmp, F_OK) != 0); /* renamed into place */
    Klv back;
    CU_ASSERT_FATAL(klv_load(&back, out, &ld, &err) == 0);
    CU_ASSERT_EQUAL(back.count, ENGLISH_LEAVES);
    CU_ASSERT_EQUAL(back.kwg.n, k.kwg.n);
    CU_ASSERT_EQUAL(index_of(&back, &ld, "AEINST"), index_of(&k, &ld, "AEINST"));
    klv_free(&back);
    klv_free(&k);
    remove(out);
    rmdir(dir);
}

typedef struct SameWords {
    const Klv *other;
    uint64_t next;
    uint64_t mismatches;
} SameWords;

static int check_word(const uint8_t *ml, int len, void *vctx) {
    SameWords *s = vctx;
    if (kwg_index_of(&s->other->kwg, &s->other->ix, ml, len) != (int64_t)s->next) s->mismatches++;
    s->next++;
    return 0;
}

/* Our zero set and MAGPIE's CSW21 file hold the same leaves at the same
 * indices (the graphs may be laid out differently). */
static void test_zero_matches_csw21(void) {
    char path[4096];
    if (csw21_path(path, sizeof path) == NULL) return;
    LetterDist ld;
    ld_english(&ld);
    Klv zero, csw;
    RkError err;
    CU_ASSERT_FATAL(klv_init_zero(&zero, &ld, &err) == 0);
    CU_ASSERT_FATAL(klv_load(&csw, path, &ld, &err) == 0);
    CU_ASSERT_EQUAL(zero.count, csw.count);
    SameWords s = {.other = &csw};
    kwg_foreach_word(&zero.kwg, 16, check_word, &s);
    CU_ASSERT_EQUAL(s.next, (uint64_t)zero.count);
    CU_ASSERT_EQUAL(s.mismatches, 0u);
    /* and the other way round */
    SameWords t = {.other = &zero};
    kwg_foreach_word(&csw.kwg, 16, check_word, &t);
    CU_ASSERT_EQUAL(t.next, (uint64_t)csw.count);
    CU_ASSERT_EQUAL(t.mismatches, 0u);
    klv_free(&zero);
    klv_free(&csw);
}

/* CSW21 loaded and written back: the same layout, the same values. */
static void test_csw21_round_trip(void) {
    char path[4096];
    if (csw21_path(path, sizeof path) == NULL) return;
    LetterDist ld;
    ld_english(&ld);
    Klv k, back;
    RkError err;
    CU_ASSERT_FATAL(klv_load(&k, path, &ld, &err) == 0);
    char dir[4096], out[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(out, sizeof out, "%s/csw21-copy.klv2", dir);
    CU_ASSERT_FATAL(klv_write(&k, out, &err) == 0);
    CU_ASSERT_EQUAL(file_size(out), ENGLISH_ZERO_BYTES);
    CU_ASSERT_FATAL(klv_load(&back, out, &ld, &err) == 0);
    CU_ASSERT_EQUAL(back.count, k.count);
    CU_ASSERT(memcmp(back.values, k.values, k.count * sizeof(float)) == 0);
    CU_ASSERT(memcmp(back.milli, k.milli, k.count * sizeof(int32_t)) == 0);
    CU_ASSERT_EQUAL(value_of(&back, &ld, "AEINST"), 33241);
    /* the same nodes were written, so the file is the original byte for byte */
    size_t na = 0, nb = 0;
    uint8_t *a = read_all(path, &na), *b = read_all(out, &nb);
    CU_ASSERT_FATAL(a != NULL && b != NULL);
    CU_ASSERT(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);

    /* new values through klv_set_values survive a write too */
    float *v = malloc(k.count * sizeof *v);
    CU_ASSERT_FATAL(v != NULL);
    for (uint32_t i = 0; i < k.count; i++) v[i] = (float)(i % 1000) * 0.25f - 100.0f;
    v[0] = 28.291f;
    v[1] = NAN;
    v[2] = -0.0004f;
    v[3] = 0.0006f;
    v[4] = 1e30f;
    klv_set_values(&k, v);
    CU_ASSERT_EQUAL(k.milli[0], 28291);
    CU_ASSERT_EQUAL(k.milli[1], 0);
    CU_ASSERT_EQUAL(k.milli[2], 0);
    CU_ASSERT_EQUAL(k.milli[3], 1);
    CU_ASSERT_EQUAL(k.milli[4], (int32_t)(KLV_MAX_ABS_VALUE * 1000));
    CU_ASSERT_EQUAL(k.milli[7], (int32_t)lround((7 * 0.25 - 100.0) * 1000));
    CU_ASSERT_FATAL(klv_write(&k, out, &err) == 0);
    klv_free(&back);
    CU_ASSERT_FATAL(klv_load(&back, out, &ld, &err) == 0);
    CU_ASSERT(memcmp(back.milli, k.milli, k.count * sizeof(int32_t)) == 0);
    CU_ASSERT_EQUAL(value_of(&back, &ld, "?"), 28291);
    free(v);
    klv_free(&back);
    klv_free(&k);
    remove(out);
    rmdir(dir);
}

/* ------------------------------------------------------------ corrupt files */

/* A tiny distribution: ? x1, A x2, B x1 gives 11 leaves. */
static const char *TINY = "?,?,1,0,0\nA,a,2,1,1\nB,b,1,3,0\n";

typedef struct Tiny {
    LetterDist ld;
    char dir[4096];
    uint8_t *bytes;
    size_t size;
    uint32_t n, l;
} Tiny;

static int tiny_setup(Tiny *t) {
    RkError err;
    if (ld_parse(&t->ld, TINY, "tiny.csv", &err) != 0) return -1;
    Klv k;
    if (klv_init_zero(&k, &t->ld, &err) != 0) return -1;
    if (k.count != 11) {
        klv_free(&k);
        return -1;
    }
    float v[11];
    for (int i = 0; i < 11; i++) v[i] = (float)i - 5.5f;
    klv_set_values(&k, v);
    if (tu_tmpdir(t->dir, sizeof t->dir) == NULL) return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/good.klv2", t->dir);
    int rc = klv_write(&k, path, &err);
    klv_free(&k);
    if (rc != 0) return -1;
    t->bytes = read_all(path, &t->size);
    if (t->bytes == NULL) return -1;
    t->n = get32(t->bytes);
    t->l = get32(t->bytes + 4 + 4 * t->n);
    return 0;
}

/* Writes data as NAME in the tiny dir and loads it; returns klv_load's rc. */
static int tiny_try(Tiny *t, const char *name, const uint8_t *data, size_t size, RkError *err) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", t->dir, name);
    if (write_all(path, data, size) != 0) return 99;
    Klv k;
    int rc = klv_load(&k, path, &t->ld, err);
    if (rc == 0) klv_free(&k);
    else if (strstr(err->msg, name) == NULL) CU_FAIL("the error does not name the file");
    if (rc != 0 && strchr(err->msg, '\n') != NULL) CU_FAIL("the error is not one line");
    remove(path);
    return rc;
}

static void expect_refused(Tiny *t, const char *name, const uint8_t *data, size_t size, const char *what) {
    RkError err;
    err.msg[0] = '\0';
    int rc = tiny_try(t, name, data, size, &err);
    CU_ASSERT(rc == -1);
    if (strstr(err.msg, what) == NULL) {
        printf("\n%s: expected a message about '%s', got '%s'\n", name, what, err.msg);
        CU_FAIL("wrong error message");
    }
}

static void test_corrupt_files(void) {
    Tiny t;
    memset(&t, 0, sizeof t);
    CU_ASSERT_FATAL(tiny_setup(&t) == 0);
    CU_ASSERT_EQUAL(t.l, 11u);
    CU_ASSERT_EQUAL(t.size, 8 + 4 * (size_t)t.n + 4 * (size_t)t.l);
    RkError err;
    CU_ASSERT(tiny_try(&t, "good.klv2", t.bytes, t.size, &err) == 0);

    uint8_t *c = malloc(t.size + 16);
    CU_ASSERT_FATAL(c != NULL);

    /* truncated: by one byte, inside the nodes, before the node count */
    expect_refused(&t, "trunc1.klv2", t.bytes, t.size - 1, "truncated");
    expect_refused(&t, "trunc2.klv2", t.bytes, 10, "truncated");
    expect_refused(&t, "trunc3.klv2", t.bytes, 3, "truncated");
    expect_refused(&t, "empty.klv2", t.bytes, 0, "truncated");
    /* trailing bytes */
    memcpy(c, t.bytes, t.size);
    memset(c + t.size, 0, 4);
    expect_refused(&t, "long.klv2", c, t.size + 4, "trailing");
    /* wrong N: one more, one fewer, too few */
    memcpy(c, t.bytes, t.size);
    put32(c, t.n + 1);
    expect_refused(&t, "nplus.klv2", c, t.size, "bytes");
    put32(c, t.n - 1);
    expect_refused(&t, "nminus.klv2", c, t.size, "bytes");
    put32(c, 1);
    expect_refused(&t, "none.klv2", c, t.size, "N = 1");
    put32(c, 0xFFFFFFFFu);
    expect_refused(&t, "nhuge.klv2", c, t.size, "N = 4294967295");
    /* L does not match the graph's word count (and the size matches L) */
    memcpy(c, t.bytes, t.size);
    put32(c + 4 + 4 * t.n, t.l - 1);
    expect_refused(&t, "lminus.klv2", c, t.size - 4, "L = 10");
    memcpy(c, t.bytes, t.size);
    put32(c + 4 + 4 * t.n, t.l + 1);
    memset(c + t.size, 0, 4);
    expect_refused(&t, "lplus.klv2", c, t.size + 4, "L = 12");
    /* a node's arc index beyond the array */
    memcpy(c, t.bytes, t.size);
    uint32_t node2 = get32(c + 4 + 8);
    put32(c + 4 + 8, (node2 & ~KWG_ARC_MASK) | (t.n + 5));
    expect_refused(&t, "arc.klv2", c, t.size, "arc index");
    /* a tile beyond the distribution */
    memcpy(c, t.bytes, t.size);
    put32(c + 4 + 8, (node2 & 0x00FFFFFFu) | (9u << 24));
    expect_refused(&t, "tile.klv2", c, t.size, "tile 9");
    /* a GADDAG root (node 1 arc 2) */
    memcpy(c, t.bytes, t.size);
    put32(c + 4 + 4, get32(c + 4 + 4) | 2u);
    expect_refused(&t, "gaddag.klv2", c, t.size, "DAWG only");
    /* root 0 without is_end */
    memcpy(c, t.bytes, t.size);
    put32(c + 4, get32(c + 4) & ~KWG_IS_END_BIT);
    expect_refused(&t, "root.klv2", c, t.size, "is_end");
    /* a cycle: the first child list points back to the root list */
    memcpy(c, t.bytes, t.size);
    {
        uint32_t root = get32(c + 4) & KWG_ARC_MASK;
        uint32_t r = get32(c + 4 + 4 * root);
        put32(c + 4 + 4 * root, (r & ~KWG_ARC_MASK) | root);
        expect_refused(&t, "cycle.klv2", c, t.size, "cycle");
    }
    /* NaN, infinite and absurd values */
    size_t vals = 8 + 4 * (size_t)t.n;
    float bad[3] = {NAN, INFINITY, 3e9f};
    const char *names[3] = {"nan.klv2", "inf.klv2", "big.klv2"};
    const char *whats[3] = {"NaN", "infinite", "out of range"};
    for (int i = 0; i < 3; i++) {
        memcpy(c, t.bytes, t.size);
        uint32_t bits;
        memcpy(&bits, &bad[i], 4);
        put32(c + vals + 4 * 3, bits);
        expect_refused(&t, names[i], c, t.size, whats[i]);
    }
    /* the NaN message names the leave */
    memcpy(c, t.bytes, t.size);
    uint32_t nan_bits;
    float nan_v = NAN;
    memcpy(&nan_bits, &nan_v, 4);
    put32(c + vals, nan_bits);
    expect_refused(&t, "nan0.klv2", c, t.size, "leave ?");

    /* a missing file and a folder */
    char missing[4300];
    snprintf(missing, sizeof missing, "%s/missing.klv2", t.dir);
    Klv k;
    CU_ASSERT(klv_load(&k, missing, &t.ld, &err) == -1);
    CU_ASSERT(strstr(err.msg, "missing.klv2") != NULL);
    CU_ASSERT(klv_load(&k, t.dir, &t.ld, &err) == -1);
    CU_ASSERT(strstr(err.msg, t.dir) != NULL);

    /* writing into a folder that does not exist fails, naming it */
    CU_ASSERT_FATAL(klv_init_zero(&k, &t.ld, &err) == 0);
    CU_ASSERT(klv_write(&k, missing, &err) == 0);
    remove(missing);
    snprintf(missing, sizeof missing, "%s/no/such/dir.klv2", t.dir);
    CU_ASSERT(klv_write(&k, missing, &err) == -1);
    CU_ASSERT(strstr(err.msg, "no/such/dir.klv2") != NULL);
    klv_free(&k);
    /* a failed write (a full disk; here a file size limit, EFBIG) is reported with the path */
    CU_ASSERT_FATAL(klv_init_zero(&k, &t.ld, &err) == 0);
    char target[4300];
    snprintf(target, sizeof target, "%s/full.klv2", t.dir);
    struct rlimit old, small;
    CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small.rlim_cur = 16, small.rlim_max = old.rlim_max; /* any table is larger */
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
    int rc = klv_write(&k, target, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, was);
    CU_ASSERT(rc == -1);
    CU_ASSERT(strstr(err.msg, "full.klv2.tmp") != NULL);
    CU_ASSERT(strstr(err.msg, strerror(EFBIG)) != NULL);
    CU_ASSERT(access(target, F_OK) != 0);
    klv_free(&k);

    free(c);
    free(t.bytes);
    char good[4300];
    snprintf(good, sizeof good, "%s/good.klv2", t.dir);
    remove(good);
    rmdir(t.dir);
}

/* From memory: the same checks as from a file. */
static void test_load_bytes(void) {
    Tiny t;
    memset(&t, 0, sizeof t);
    CU_ASSERT_FATAL(tiny_setup(&t) == 0);
    Klv k;
    RkError err;
    CU_ASSERT_FATAL(klv_load_bytes(&k, t.bytes, t.size, &t.ld, "mem", &err) == 0);
    CU_ASSERT_EQUAL(k.count, 11u);
    /* leaves in order: ? ?A ?AA ?AAB ?AB ?B A AA AAB AB B */
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "?"), 0);
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "A?"), 1);
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "?AAB"), 3);
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "A"), 6);
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "B"), 10);
    CU_ASSERT_EQUAL(index_of(&k, &t.ld, "BB"), -1);
    CU_ASSERT_EQUAL(value_of(&k, &t.ld, "?"), -5500);
    CU_ASSERT_EQUAL(value_of(&k, &t.ld, "B"), 4500);
    klv_free(&k);
    CU_ASSERT(klv_load_bytes(&k, t.bytes, t.size - 2, &t.ld, "mem", &err) == -1);
    CU_ASSERT(strncmp(err.msg, "mem: truncated", 14) == 0);
    free(t.bytes);
    char good[4300];
    snprintf(good, sizeof good, "%s/good.klv2", t.dir);
    remove(good);
    rmdir(t.dir);
}


/* klv_leave_table against klv_leave_value for every sub-rack of random racks
 * (1..7 tiles drawn from the English bag, blanks and repeats included). */
static int check_tables(const Klv *k, const LetterDist *ld, int racks, uint64_t seed) {
    int bad = 0;
    uint64_t s = seed;
    for (int r = 0; r < racks; r++) {
        Rack rack;
        rack_clear(&rack);
        int bag[RK_MAX_LETTERS];
        for (int ml = 0; ml < ld->size; ml++) bag[ml] = ld->count[ml];
        int want = 1 + (int)((s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % RK_RACK_SIZE;
        while (rack.total < want) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int ml = (int)((s >> 33) % (uint64_t)ld->size);
            if (bag[ml] == 0) continue;
            bag[ml]--;
            rack_add(&rack, (uint8_t)ml);
        }
        int32_t table[256];
        klv_leave_table(k, &rack, table);
        /* decode every mixed-radix index the way movegen does */
        int letters[RK_RACK_SIZE], nl = 0, n = 1, stride[RK_RACK_SIZE];
        for (int ml = 0; ml < ld->size; ml++)
            if (rack.count[ml]) {
                stride[nl] = n;
                letters[nl++] = ml;
                n *= rack.count[ml] + 1;
            }
        for (int idx = 0; idx < n; idx++) {
            Rack kept;
            rack_clear(&kept);
            for (int i = 0; i < nl; i++) {
                int c = (idx / stride[i]) % (rack.count[letters[i]] + 1);
                for (int j = 0; j < c; j++) rack_add(&kept, (uint8_t)letters[i]);
            }
            int32_t one = kept.total > 0 ? klv_leave_value(k, &kept) : 0;
            if (one != table[idx]) bad++;
        }
    }
    return bad;
}

static void test_leave_table(void) {
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    Klv z;
    CU_ASSERT_FATAL(klv_init_zero(&z, &ld, &err) == 0);
    float *v = malloc(z.count * sizeof *v);
    CU_ASSERT_FATAL(v != NULL);
    for (uint32_t i = 0; i < z.count; i++) v[i] = (float)((int)(i * 2654435761u % 20001u) - 10000) / 1000.0f;
    klv_set_values(&z, v);
    free(v);
    CU_ASSERT_EQUAL(check_tables(&z, &ld, 3000, 7), 0);
    CU_ASSERT_PTR_EQUAL(klv_table_for(klv_leave_value), klv_leave_table);
    CU_ASSERT_PTR_NULL(klv_table_for(NULL));
    klv_free(&z);
    char path[4096];
    if (csw21_path(path, sizeof path) == NULL) return;
    Klv k;
    CU_ASSERT_FATAL(klv_load(&k, path, &ld, &err) == 0);
    CU_ASSERT_EQUAL(check_tables(&k, &ld, 3000, 11), 0);
    klv_free(&k);
}

/* The shipped default leaves (data/leaves/SOWPODS.klv2) load, and read as
 * trained leaves: the blank and the S are worth much, the Q and UUU cost, and
 * every value is finite and within +-100 points. */
static void test_shipped_leaves(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/data/leaves/SOWPODS.klv2", ROOKERY_SOURCE_DIR);
    LetterDist ld;
    Klv k;
    CU_ASSERT_FATAL(load_english(&k, path, &ld));
    CU_ASSERT_EQUAL(k.count, ENGLISH_LEAVES);
    CU_ASSERT(value_of(&k, &ld, "?") > 20000);
    CU_ASSERT(value_of(&k, &ld, "S") > 5000);
    CU_ASSERT(value_of(&k, &ld, "?S") > value_of(&k, &ld, "?"));
    CU_ASSERT(value_of(&k, &ld, "Q") < 0);
    CU_ASSERT(value_of(&k, &ld, "QU") > value_of(&k, &ld, "Q"));
    CU_ASSERT(value_of(&k, &ld, "UUU") < -10000);
    CU_ASSERT(value_of(&k, &ld, "AEINST") > 20000);
    bool sane = true;
    for (uint64_t i = 0; i < k.count; i++)
        if (!isfinite(k.values[i]) || fabs(k.values[i]) > 100.0) sane = false;
    CU_ASSERT(sane);
    klv_free(&k);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the shipped data/leaves/SOWPODS.klv2 loads as trained leaves", test_shipped_leaves},
        {"CSW21.klv2 loads with the documented spot values", test_csw21_spot_values},
        {"CSW21.klv2 against a distribution it does not fit", test_csw21_load_with_wrong_distribution},
        {"zero leaves: 914,624 leaves, 3,667,340 bytes, indices", test_zero_english},
        {"zero leaves hold CSW21's leaves at the same indices", test_zero_matches_csw21},
        {"CSW21 written back and reloaded, and new values", test_csw21_round_trip},
        {"corrupt and missing files are refused naming the file", test_corrupt_files},
        {"loading from memory", test_load_bytes},
        {"every sub-rack's value at once equals each alone", test_leave_table},
        CU_TEST_INFO_NULL,
    };
    return tu_run("klv", tests);
}
