#include "png.h"

#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"

/* Most bytes one stored deflate block can hold. */
#define STORED_MAX 65535u

static const uint8_t PNG_SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* CRC-32 (ISO-HDLC, the one PNG uses): reflected polynomial 0xEDB88320.
 * The table lives with the caller (png_write_rgb's stack), never in a
 * global. */
static void crc_table_init(uint32_t table[256]) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
}

static uint32_t crc32_of(const uint32_t table[256], const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* Adler-32 as a running state (a, b), so that it can be fed the rows. */
typedef struct {
    uint32_t a, b;
} Adler;

static void adler_update(Adler *s, const uint8_t *p, size_t n) {
    while (n > 0) {
        /* 5552 bytes is the most that cannot overflow b before the modulo */
        size_t k = n < 5552 ? n : 5552;
        n -= k;
        while (k-- > 0) {
            s->a += *p++;
            s->b += s->a;
        }
        s->a %= 65521u;
        s->b %= 65521u;
    }
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Writes a chunk's length and type at p; returns where its data goes. */
static uint8_t *chunk_begin(uint8_t *p, const char type[4], uint32_t len) {
    put_be32(p, len);
    memcpy(p + 4, type, 4);
    return p + 8;
}

/* Writes the CRC of the chunk that starts at `start` (its length field) and
 * has len data bytes; returns the byte after the chunk. */
static uint8_t *chunk_end(const uint32_t table[256], uint8_t *start, uint32_t len) {
    uint8_t *crc_at = start + 8 + len;
    put_be32(crc_at, crc32_of(table, start + 4, 4 + (size_t)len));
    return crc_at + 4;
}

int png_write_rgb(const char *path, int width, int height, const uint8_t *rgb, RkError *err) {
    if (width < 1 || height < 1 || width > PNG_MAX_SIDE || height > PNG_MAX_SIDE)
        return rk_error(err, "%s: cannot write a %dx%d PNG (each side must be 1..%d pixels)", path, width, height,
                        PNG_MAX_SIDE);
    if (rgb == NULL) return rk_error(err, "%s: no pixels to write", path);
    size_t row = 1 + 3 * (size_t)width; /* filter byte + pixels */
    size_t raw = row * (size_t)height;  /* at most 8192 * 24577: far below 2^31 */
    size_t blocks = (raw + STORED_MAX - 1) / STORED_MAX;
    size_t zlen = 2 + 5 * blocks + raw + 4;
    size_t total = sizeof PNG_SIGNATURE + (12 + 13) + (12 + zlen) + 12;
    uint8_t *buf = malloc(total);
    if (buf == NULL) return rk_error(err, "%s: out of memory for a %zu-byte PNG", path, total);
    uint32_t table[256];
    crc_table_init(table);

    uint8_t *p = buf;
    memcpy(p, PNG_SIGNATURE, sizeof PNG_SIGNATURE);
    p += sizeof PNG_SIGNATURE;

    uint8_t *chunk = p;
    uint8_t *d = chunk_begin(chunk, "IHDR", 13);
    put_be32(d, (uint32_t)width);
    put_be32(d + 4, (uint32_t)height);
    d[8] = 8;  /* bit depth */
    d[9] = 2;  /* colour type: RGB */
    d[10] = 0; /* compression: deflate */
    d[11] = 0; /* filter method 0 */
    d[12] = 0; /* no interlace */
    p = chunk_end(table, chunk, 13);

    chunk = p;
    d = chunk_begin(chunk, "IDAT", (uint32_t)zlen);
    *d++ = 0x78; /* CM 8 (deflate), CINFO 7 (32K window) */
    *d++ = 0x01; /* FCHECK: 0x7801 % 31 == 0, no dictionary, fastest */
    Adler adler = {1, 0};
    size_t left = raw, y = 0, x = 0; /* x: bytes of row y already copied */
    while (left > 0) {
        size_t n = left < STORED_MAX ? left : STORED_MAX;
        left -= n;
        *d++ = left == 0 ? 1 : 0; /* BFINAL, BTYPE 00 (stored) */
        d[0] = (uint8_t)n;
        d[1] = (uint8_t)(n >> 8);
        d[2] = (uint8_t)~n;
        d[3] = (uint8_t)(~n >> 8);
        d += 4;
        /* copy n bytes of the filtered image: rows of [0, pixels] */
        while (n > 0) {
            uint8_t *start = d;
            if (x == 0) {
                *d++ = 0; /* filter: none */
                x = 1;
                n--;
            }
            size_t take = row - x < n ? row - x : n;
            memcpy(d, rgb + y * (row - 1) + (x - 1), take);
            d += take;
            x += take;
            n -= take;
            if (x == row) {
                x = 0;
                y++;
            }
            adler_update(&adler, start, (size_t)(d - start));
        }
    }
    put_be32(d, adler.b << 16 | adler.a);
    p = chunk_end(table, chunk, (uint32_t)zlen);

    chunk = p;
    chunk_begin(chunk, "IEND", 0);
    p = chunk_end(table, chunk, 0);

    int rc = (size_t)(p - buf) == total ? rk_write_file_atomic(path, buf, total, err)
                                          : rk_error(err, "%s: internal error laying out the PNG", path);
    free(buf);
    return rc;
}
