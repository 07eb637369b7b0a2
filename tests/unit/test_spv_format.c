/* Square placement values (.spv) as a file: write -> load -> write gives
 * the same bytes, the file sizes of ../shared/formats.md "SPV", and corrupt
 * files refused with a message naming the file and the problem. Also the
 * PNG writer (core/png.h) that `rookery info --png` draws with: signature,
 * IHDR, every chunk's CRC and the zlib stream's Adler-32, checked here with
 * code of the test's own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/png.h"
#include "eval/spv.h"
#include "testutil.h"

/* ---- helpers ---- */

static uint8_t *read_all(const char *path, size_t *size) {
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n > 0 ? n : 1);
    size_t got = buf ? fread(buf, 1, n, f) : 0;
    fclose(f);
    if (buf == NULL || got != n) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

static int write_all(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    int rc = fwrite(data, 1, size, f) == size ? 0 : -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

static uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_f32(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_le32(p, u);
}

static uint32_t get_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* A table with a different value in every cell (exactly representable
 * floats, so nothing depends on rounding). */
static void fill(Spv *s) {
    size_t cells = (size_t)s->num_squares * s->num_buckets;
    for (size_t i = 0; i < cells; i++) {
        s->mean[i] = (float)((int)(i % 97) - 48) / 8.0f;
        if (s->var) s->var[i] = (float)(i % 13) / 4.0f;
    }
    for (uint32_t o = 0; o < s->num_openness; o++) s->openness[o] = 1.0f - 0.125f * (float)o;
}

/* ---- round trip and sizes ---- */

static void round_trip(bool with_var) {
    char dir[4096], a[4200], b[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(a, sizeof a, "%s/a.spv", dir);
    snprintf(b, sizeof b, "%s/b.spv", dir);
    Spv s, t;
    RkError err;
    CU_ASSERT_FATAL(spv_init_zero(&s, 225, SPV_DEFAULT_BUCKETS, SPV_DEFAULT_OPENNESS, with_var, &err) == 0);
    fill(&s);
    CU_ASSERT_FATAL(spv_write(&s, a, &err) == 0);
    int rc = spv_load(&t, a, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    CU_ASSERT_EQUAL(t.num_squares, 225u);
    CU_ASSERT_EQUAL(t.num_buckets, 11u);
    CU_ASSERT_EQUAL(t.num_openness, 5u);
    CU_ASSERT_EQUAL(t.flags, with_var ? SPV_FLAG_VARIANCE : 0u);
    CU_ASSERT_EQUAL(t.var != NULL, with_var);
    size_t cells = 225 * 11;
    CU_ASSERT(memcmp(s.mean, t.mean, cells * sizeof(float)) == 0);
    if (with_var && t.var) CU_ASSERT(memcmp(s.var, t.var, cells * sizeof(float)) == 0);
    CU_ASSERT(memcmp(s.openness, t.openness, 5 * sizeof(float)) == 0);
    CU_ASSERT(spv_mean_at(&t, 7 * 15 + 7, 3) == s.mean[(7 * 15 + 7) * 11 + 3]);
    CU_ASSERT_FATAL(spv_write(&t, b, &err) == 0);
    size_t na = 0, nb = 0;
    uint8_t *da = read_all(a, &na), *db = read_all(b, &nb);
    CU_ASSERT_FATAL(da != NULL && db != NULL);
    CU_ASSERT_EQUAL(na, spv_file_size(&s));
    CU_ASSERT_EQUAL(nb, na);
    CU_ASSERT(na == nb && memcmp(da, db, na) == 0);
    /* the layout of formats.md, checked by hand */
    CU_ASSERT(memcmp(da, "SPV1", 4) == 0);
    CU_ASSERT_EQUAL(get_le32(da + 4), 225u);
    CU_ASSERT_EQUAL(get_le32(da + 8), 11u);
    CU_ASSERT_EQUAL(get_le32(da + 12), 5u);
    CU_ASSERT_EQUAL(get_le32(da + 16), with_var ? 1u : 0u);
    float f;
    uint32_t u = get_le32(da + 20 + 4 * 37);
    memcpy(&f, &u, sizeof f);
    CU_ASSERT(f == s.mean[37]);
    u = get_le32(da + na - 4);
    memcpy(&f, &u, sizeof f);
    CU_ASSERT(f == s.openness[4]);
    /* and from memory */
    Spv m;
    CU_ASSERT(spv_load_bytes(&m, da, na, "memory", &err) == 0);
    CU_ASSERT(m.mean != NULL && memcmp(m.mean, s.mean, cells * sizeof(float)) == 0);
    spv_free(&m);
    free(da);
    free(db);
    spv_free(&s);
    spv_free(&t);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

static void test_round_trip_mean_only(void) { round_trip(false); }
static void test_round_trip_with_variance(void) { round_trip(true); }

static void test_file_sizes(void) {
    Spv s;
    RkError err;
    /* 20 + 225*11*4 + 5*4 and 20 + 2*225*11*4 + 5*4. (../shared/spv-design.md
     * prints 9,920 and 19,820 for these same formulas: its sums are 20 short.) */
    CU_ASSERT_FATAL(spv_init_zero(&s, 225, 11, 5, false, &err) == 0);
    CU_ASSERT_EQUAL(spv_file_size(&s), 20u + 225u * 11u * 4u + 5u * 4u);
    CU_ASSERT_EQUAL(spv_file_size(&s), 9940u);
    spv_free(&s);
    CU_ASSERT_FATAL(spv_init_zero(&s, 225, 11, 5, true, &err) == 0);
    CU_ASSERT_EQUAL(spv_file_size(&s), 20u + 2u * 225u * 11u * 4u + 5u * 4u);
    CU_ASSERT_EQUAL(spv_file_size(&s), 19840u);
    CU_ASSERT(s.openness[0] == 1.0f && s.openness[4] == 1.0f);
    spv_free(&s);
    CU_ASSERT_FATAL(spv_init_zero(&s, 225, 11, 0, false, &err) == 0);
    CU_ASSERT_EQUAL(spv_file_size(&s), 9920u);
    spv_free(&s);
    CU_ASSERT_FATAL(spv_init_zero(&s, 1, 1, 0, false, &err) == 0);
    CU_ASSERT_EQUAL(spv_file_size(&s), 24u);
    spv_free(&s);
    /* out-of-range dimensions are refused by spv_init_zero too */
    CU_ASSERT(spv_init_zero(&s, 0, 11, 5, false, &err) != 0);
    CU_ASSERT(strstr(err.msg, "num_squares") != NULL);
    CU_ASSERT(spv_init_zero(&s, 225, 17, 5, false, &err) != 0);
    CU_ASSERT(strstr(err.msg, "num_buckets") != NULL);
    CU_ASSERT(spv_init_zero(&s, 225, 11, 17, false, &err) != 0);
    CU_ASSERT(strstr(err.msg, "num_openness") != NULL);
    spv_free(&s); /* harmless after a failure */
}

/* ---- corrupt files ---- */

/* A valid file: 9 squares x 2 buckets, 3 openness multipliers, with a
 * variance table. */
#define SMALL_SQ 9u
#define SMALL_B 2u
#define SMALL_O 3u
#define SMALL_CELLS (SMALL_SQ * SMALL_B)
#define SMALL_MEAN_AT 20u
#define SMALL_VAR_AT (SMALL_MEAN_AT + 4u * SMALL_CELLS)
#define SMALL_MULT_AT (SMALL_VAR_AT + 4u * SMALL_CELLS)
#define SMALL_BYTES (SMALL_MULT_AT + 4u * SMALL_O)

static void small_file(uint8_t *buf) {
    memcpy(buf, "SPV1", 4);
    put_le32(buf + 4, SMALL_SQ);
    put_le32(buf + 8, SMALL_B);
    put_le32(buf + 12, SMALL_O);
    put_le32(buf + 16, SPV_FLAG_VARIANCE);
    for (uint32_t i = 0; i < SMALL_CELLS; i++) {
        put_f32(buf + SMALL_MEAN_AT + 4 * i, (float)i - 4.5f);
        put_f32(buf + SMALL_VAR_AT + 4 * i, (float)i * 0.25f);
    }
    for (uint32_t o = 0; o < SMALL_O; o++) put_f32(buf + SMALL_MULT_AT + 4 * o, 1.0f);
}

/* Writes size bytes to dir/name and loads them: the load must fail with a
 * message containing the path and every one of the keywords (up to 3). */
static void expect_refused(const char *dir, const char *name, const uint8_t *data, size_t size, const char *k1,
                           const char *k2, const char *k3) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CU_ASSERT_FATAL(write_all(path, data, size) == 0);
    Spv s;
    RkError err;
    memset(&err, 0, sizeof err);
    int rc = spv_load(&s, path, &err);
    if (rc == 0) printf("\n%s: loaded but should have been refused\n", name);
    CU_ASSERT(rc != 0);
    CU_ASSERT(s.mean == NULL && s.var == NULL && s.num_squares == 0);
    spv_free(&s);
    const char *keys[3] = {k1, k2, k3};
    bool ok = strstr(err.msg, path) != NULL && strchr(err.msg, '\n') == NULL;
    for (int i = 0; i < 3; i++)
        if (keys[i] && strstr(err.msg, keys[i]) == NULL) ok = false;
    if (!ok) printf("\n%s: message '%s' lacks the path or '%s' '%s' '%s'\n", name, err.msg, k1, k2 ? k2 : "",
                    k3 ? k3 : "");
    CU_ASSERT(ok);
    /* the same bytes from memory: refused too, naming the source */
    rc = spv_load_bytes(&s, data, size, "mem.spv", &err);
    CU_ASSERT(rc != 0);
    CU_ASSERT(strstr(err.msg, "mem.spv") != NULL);
    spv_free(&s);
    unlink(path);
}

static void test_corrupt_files(void) {
    char dir[4096];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    uint8_t good[SMALL_BYTES + 8], b[SMALL_BYTES + 8];
    small_file(good);

    /* the unmodified file loads */
    {
        char path[4200];
        snprintf(path, sizeof path, "%s/good.spv", dir);
        CU_ASSERT_FATAL(write_all(path, good, SMALL_BYTES) == 0);
        Spv s;
        RkError err;
        int rc = spv_load(&s, path, &err);
        if (rc != 0) printf("\n%s\n", err.msg);
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT(spv_mean_at(&s, 8, 1) == 17.0f - 4.5f);
        CU_ASSERT(spv_var_at(&s, 8, 1) == 17.0f * 0.25f);
        CU_ASSERT(s.openness[2] == 1.0f);
        spv_free(&s);
        unlink(path);
    }

    memcpy(b, good, SMALL_BYTES);
    memcpy(b, "SPV2", 4);
    expect_refused(dir, "magic.spv", b, SMALL_BYTES, "magic", "SPV2", NULL);
    memcpy(b, "KWG\0", 4);
    expect_refused(dir, "magic0.spv", b, SMALL_BYTES, "magic", "not an .spv", NULL);

    expect_refused(dir, "empty.spv", good, 0, "too short", NULL, NULL);
    expect_refused(dir, "header.spv", good, 12, "too short", "header", NULL);
    expect_refused(dir, "short.spv", good, SMALL_BYTES - 1, "bytes", "needs", NULL);
    expect_refused(dir, "nodata.spv", good, 20, "20 bytes", "needs", NULL);

    memcpy(b, good, SMALL_BYTES);
    b[SMALL_BYTES] = 0;
    expect_refused(dir, "extra1.spv", b, SMALL_BYTES + 1, "needs", NULL, NULL);
    memset(b + SMALL_BYTES, 0, 8);
    expect_refused(dir, "extra8.spv", b, SMALL_BYTES + 8, "needs", NULL, NULL);

    /* dimensions that disagree with the size */
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 4, SMALL_SQ + 1);
    expect_refused(dir, "squares.spv", b, SMALL_BYTES, "needs", "10 squares", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 12, SMALL_O - 1);
    expect_refused(dir, "openness.spv", b, SMALL_BYTES, "needs", NULL, NULL);
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 16, 0); /* no variance flag: the file is a table too long */
    expect_refused(dir, "noflag.spv", b, SMALL_BYTES, "needs", NULL, NULL);

    /* dimensions out of range */
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 8, 0);
    expect_refused(dir, "buckets0.spv", b, SMALL_BYTES, "num_buckets", "0", NULL);
    put_le32(b + 8, 17);
    expect_refused(dir, "buckets17.spv", b, SMALL_BYTES, "num_buckets", "17", NULL);
    put_le32(b + 8, 0xFFFFFFFFu);
    expect_refused(dir, "bucketsmax.spv", b, SMALL_BYTES, "num_buckets", NULL, NULL);
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 4, 0);
    expect_refused(dir, "squares0.spv", b, SMALL_BYTES, "num_squares", NULL, NULL);
    put_le32(b + 4, RK_MAX_SQUARES + 1);
    expect_refused(dir, "squaresbig.spv", b, SMALL_BYTES, "num_squares", NULL, NULL);
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 12, SPV_MAX_OPENNESS + 1);
    expect_refused(dir, "openness17.spv", b, SMALL_BYTES, "num_openness", NULL, NULL);

    /* unknown flags */
    memcpy(b, good, SMALL_BYTES);
    put_le32(b + 16, SPV_FLAG_VARIANCE | 2u);
    expect_refused(dir, "flags2.spv", b, SMALL_BYTES, "flag", "0x3", NULL);
    put_le32(b + 16, 0x80000000u);
    expect_refused(dir, "flagshigh.spv", b, SMALL_BYTES, "flag", NULL, NULL);

    /* values that are not finite, or too large */
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MEAN_AT + 4 * 5, NAN);
    expect_refused(dir, "mean_nan.spv", b, SMALL_BYTES, "mean", "not finite", "5");
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MEAN_AT, -INFINITY);
    expect_refused(dir, "mean_inf.spv", b, SMALL_BYTES, "mean", "not finite", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_VAR_AT + 4 * (SMALL_CELLS - 1), INFINITY);
    expect_refused(dir, "var_inf.spv", b, SMALL_BYTES, "variance", "not finite", "17");
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_VAR_AT + 4 * 3, NAN);
    expect_refused(dir, "var_nan.spv", b, SMALL_BYTES, "variance", "not finite", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MULT_AT + 4 * 2, NAN);
    expect_refused(dir, "mult_nan.spv", b, SMALL_BYTES, "openness", "not finite", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MULT_AT, INFINITY);
    expect_refused(dir, "mult_inf.spv", b, SMALL_BYTES, "openness", "not finite", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MEAN_AT + 4 * 2, 1.0e5f);
    expect_refused(dir, "mean_huge.spv", b, SMALL_BYTES, "mean", "exceeds", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_VAR_AT, -3.0e38f);
    expect_refused(dir, "var_huge.spv", b, SMALL_BYTES, "variance", "exceeds", NULL);
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MULT_AT + 4, 2.0e4f);
    expect_refused(dir, "mult_huge.spv", b, SMALL_BYTES, "openness", "exceeds", NULL);
    /* the limit itself is accepted */
    memcpy(b, good, SMALL_BYTES);
    put_f32(b + SMALL_MEAN_AT, (float)SPV_MAX_ABS_VALUE);
    put_f32(b + SMALL_VAR_AT, (float)-SPV_MAX_ABS_VALUE);
    {
        Spv s;
        RkError err;
        CU_ASSERT(spv_load_bytes(&s, b, SMALL_BYTES, "limit", &err) == 0);
        spv_free(&s);
    }

    /* a missing file and a directory */
    {
        char path[4200];
        Spv s;
        RkError err;
        snprintf(path, sizeof path, "%s/none.spv", dir);
        CU_ASSERT(spv_load(&s, path, &err) != 0);
        CU_ASSERT(strstr(err.msg, path) != NULL);
        spv_free(&s);
        CU_ASSERT(spv_load(&s, dir, &err) != 0);
        CU_ASSERT(strstr(err.msg, dir) != NULL);
        spv_free(&s);
    }
    rmdir(dir);
}

/* ---- PNG ---- */

/* CRC-32 bit by bit, independent of png.c's table. */
static uint32_t ref_crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static uint32_t ref_adler32(const uint8_t *p, size_t n) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return b << 16 | a;
}

/* Checks a PNG file of width x height with pixels rgb: signature, IHDR,
 * every chunk's CRC, and the zlib stream (stored blocks) inflated by hand
 * against the filtered rows, with its Adler-32. */
static void check_png(const char *path, int width, int height, const uint8_t *rgb) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t n = 0;
    uint8_t *d = read_all(path, &n);
    CU_ASSERT_FATAL(d != NULL);
    CU_ASSERT_FATAL(n >= 8 + 25 + 12 + 12);
    CU_ASSERT(memcmp(d, sig, 8) == 0);
    /* IHDR first */
    CU_ASSERT_EQUAL(get_be32(d + 8), 13u);
    CU_ASSERT(memcmp(d + 12, "IHDR", 4) == 0);
    CU_ASSERT_EQUAL(get_be32(d + 16), (uint32_t)width);
    CU_ASSERT_EQUAL(get_be32(d + 20), (uint32_t)height);
    CU_ASSERT_EQUAL(d[24], 8); /* bit depth */
    CU_ASSERT_EQUAL(d[25], 2); /* RGB */
    CU_ASSERT(d[26] == 0 && d[27] == 0 && d[28] == 0);
    /* walk the chunks, checking CRCs and gathering IDAT */
    uint8_t *z = malloc(n);
    CU_ASSERT_FATAL(z != NULL);
    size_t zn = 0, p = 8;
    int chunks = 0;
    bool iend = false;
    while (p + 12 <= n && !iend) {
        uint32_t len = get_be32(d + p);
        CU_ASSERT_FATAL(p + 12 + len <= n);
        CU_ASSERT_EQUAL(get_be32(d + p + 8 + len), ref_crc32(d + p + 4, 4 + (size_t)len));
        if (memcmp(d + p + 4, "IDAT", 4) == 0) {
            memcpy(z + zn, d + p + 8, len);
            zn += len;
        }
        iend = memcmp(d + p + 4, "IEND", 4) == 0;
        p += 12 + len;
        chunks++;
    }
    CU_ASSERT(iend);
    CU_ASSERT_EQUAL(p, n); /* nothing after IEND */
    CU_ASSERT(chunks >= 3);
    /* zlib: header, stored blocks, Adler-32 */
    CU_ASSERT_FATAL(zn >= 2 + 5 + 4);
    CU_ASSERT_EQUAL(z[0] & 0x0F, 8); /* deflate */
    CU_ASSERT_EQUAL((z[0] << 8 | z[1]) % 31, 0);
    CU_ASSERT_EQUAL(z[1] & 0x20, 0); /* no preset dictionary */
    size_t row = 1 + 3 * (size_t)width, raw_n = row * (size_t)height;
    uint8_t *raw = malloc(raw_n + 1);
    CU_ASSERT_FATAL(raw != NULL);
    size_t q = 2, got = 0;
    bool final = false;
    while (!final) {
        CU_ASSERT_FATAL(q + 5 <= zn);
        final = (z[q] & 1) != 0;
        CU_ASSERT_EQUAL((z[q] >> 1) & 3, 0); /* stored */
        size_t len = (size_t)z[q + 1] | (size_t)z[q + 2] << 8, nlen = (size_t)z[q + 3] | (size_t)z[q + 4] << 8;
        CU_ASSERT_EQUAL(len ^ 0xFFFFu, nlen);
        q += 5;
        CU_ASSERT_FATAL(q + len <= zn && got + len <= raw_n);
        memcpy(raw + got, z + q, len);
        got += len;
        q += len;
    }
    CU_ASSERT_EQUAL(got, raw_n);
    CU_ASSERT_EQUAL(q + 4, zn);
    CU_ASSERT_EQUAL(get_be32(z + q), ref_adler32(raw, got));
    /* rows: filter byte 0, then the pixels */
    for (int y = 0; y < height; y++) {
        CU_ASSERT_EQUAL(raw[(size_t)y * row], 0);
        CU_ASSERT(memcmp(raw + (size_t)y * row + 1, rgb + (size_t)y * width * 3, (size_t)width * 3) == 0);
    }
    free(raw);
    free(z);
    free(d);
}

static void test_png_small(void) {
    char dir[4096], path[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/small.png", dir);
    const uint8_t rgb[2 * 3 * 3] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 128, 64, 32};
    RkError err;
    int rc = png_write_rgb(path, 3, 2, rgb, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    check_png(path, 3, 2, rgb);
    /* one IDAT of one stored block: 8 + 25 + 12 + (2 + 5 + 2*10 + 4) + 12 */
    size_t n = 0;
    uint8_t *d = read_all(path, &n);
    CU_ASSERT(d != NULL && n == 8 + 25 + 12 + 31 + 12);
    free(d);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CU_ASSERT(access(tmp, F_OK) != 0); /* written atomically: no leftover */
    unlink(path);
    rmdir(dir);
}

static void test_png_many_blocks(void) {
    /* 200 x 120: 120 rows of 601 bytes = 72,120 bytes, two stored blocks */
    char dir[4096], path[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/big.png", dir);
    int w = 200, h = 120;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    CU_ASSERT_FATAL(rgb != NULL);
    for (size_t i = 0; i < (size_t)w * h * 3; i++) rgb[i] = (uint8_t)(i * 7 + i / 601);
    RkError err;
    CU_ASSERT_FATAL(png_write_rgb(path, w, h, rgb, &err) == 0);
    check_png(path, w, h, rgb);
    free(rgb);
    unlink(path);
    rmdir(dir);
}

static void test_png_errors(void) {
    char dir[4096], path[4200];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/x.png", dir);
    const uint8_t rgb[3] = {1, 2, 3};
    RkError err;
    CU_ASSERT(png_write_rgb(path, 0, 1, rgb, &err) != 0);
    CU_ASSERT(strstr(err.msg, path) != NULL);
    CU_ASSERT(png_write_rgb(path, 1, PNG_MAX_SIDE + 1, rgb, &err) != 0);
    CU_ASSERT(strstr(err.msg, path) != NULL);
    CU_ASSERT(png_write_rgb(path, 1, 1, NULL, &err) != 0);
    CU_ASSERT(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "%s/no/such/dir/x.png", dir);
    CU_ASSERT(png_write_rgb(path, 1, 1, rgb, &err) != 0);
    CU_ASSERT(strstr(err.msg, path) != NULL);
    rmdir(dir);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"225x11 mean-only table: write, load, write gives the same bytes", test_round_trip_mean_only},
        {"225x11 table with variance: write, load, write gives the same bytes", test_round_trip_with_variance},
        {"file sizes: 9,940 bytes mean-only and 19,840 with variance (225x11, 5 openness)", test_file_sizes},
        {"corrupt and missing files are refused naming the file and the problem", test_corrupt_files},
        {"PNG 3x2: signature, IHDR, chunk CRCs, stored deflate and Adler-32", test_png_small},
        {"PNG 200x120: several stored blocks", test_png_many_blocks},
        {"PNG: bad sizes and unwritable paths are refused naming the file", test_png_errors},
        CU_TEST_INFO_NULL,
    };
    return tu_run("spv_format", tests);
}
