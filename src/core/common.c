#include "common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int rk_error(RkError *err, const char *fmt, ...) {
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void rk_quote_text(char *dst, size_t cap, const char *s, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 8 >= cap && (c & 0xC0) != 0x80) {
            memcpy(dst + o, "...", 4);
            return;
        }
        if (o + 5 >= cap) break;
        if (c < 0x20 || c == 0x7F) o += (size_t)snprintf(dst + o, cap - o, "\\x%02X", c);
        else dst[o++] = (char)c;
    }
    dst[o] = '\0';
}

int rk_check_magic(const uint8_t *data, size_t size, size_t header_bytes, const char magic[4], const char *what,
                   const char *source, RkError *err) {
    if (size < header_bytes)
        return rk_error(err, "%s: %zu bytes is too short for the header of %s (%zu bytes)", source, size, what,
                        header_bytes);
    if (memcmp(data, magic, 4) != 0) {
        char q[32];
        rk_quote_text(q, sizeof q, (const char *)data, 4);
        return rk_error(err, "%s: bad magic '%s' (expected '%.4s'): not %s", source, q, magic, what);
    }
    return 0;
}

size_t rk_char_len(const char *s) {
    unsigned char c = (unsigned char)*s;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (s[i] == '\0') return i;
    return n;
}

double rk_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int rk_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    if (elem == 0) return -1; /* realloc(p, 0) would free p */
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2) return -1;
        c *= 2;
    }
    if (c > SIZE_MAX / elem) return -1;
    void *q = realloc(*p, c * elem);
    if (q == NULL) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Bytes of the well-formed UTF-8 character at s (lead byte 0xC2-0xF4, every
 * continuation byte 10xxxxxx), or 0 if the bytes there are not one. */
static size_t utf8_char_len(const unsigned char *s) {
    size_t n = s[0] < 0x80 ? 1 : s[0] < 0xC2 ? 0 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : s[0] <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

char *rk_json_escape(const char *s, char *out, size_t cap) {
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char esc[8];
        size_t in = 1, n = utf8_char_len(p);
        const char *from = esc;
        if (*p == '"' || *p == '\\') n = (size_t)snprintf(esc, sizeof esc, "\\%c", *p);
        else if (*p < 0x20 || n == 0) n = (size_t)snprintf(esc, sizeof esc, "\\u%04x", *p); /* a stray byte as U+00XX */
        else from = (const char *)p, in = n;
        if (o + n >= cap) break;
        memcpy(out + o, from, n);
        o += n;
        p += in;
    }
    out[o] = '\0';
    return out;
}

void rk_text_put(RkText *t, const char *s) {
    if (t->cap == 0) return;
    size_t n = strlen(s);
    if (t->pos + n + 1 > t->cap) n = t->cap - 1 - t->pos;
    memcpy(t->buf + t->pos, s, n);
    t->pos += n;
    t->buf[t->pos] = '\0';
}
