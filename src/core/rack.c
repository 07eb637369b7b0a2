/*
 * rack.c - parsing and printing racks, their face value and equality.
 */
#include "rack.h"

#include <stdio.h>
#include <string.h>

/* Copies n bytes of user text into dst for quoting in a one-line message:
 * control characters are escaped as \xNN and long text is cut with "...". */
static void quote_text(char *dst, size_t cap, const char *s, size_t n) {
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

/* Bytes of the (possibly multi-byte UTF-8) character at s, at least 1. */
static int char_len(const char *s) {
    unsigned char c = (unsigned char)s[0];
    int n = 1;
    if (c >= 0xF0) n = 4;
    else if (c >= 0xE0) n = 3;
    else if (c >= 0xC0) n = 2;
    for (int i = 1; i < n; i++)
        if (s[i] == '\0') return i;
    return n;
}

int rack_parse(Rack *r, const LetterDist *ld, const char *text, RkError *err) {
    rack_clear(r);
    char s[96]; /* the text as quoted in messages */
    quote_text(s, sizeof s, text, strlen(text));
    const char *p = text;
    int n = 0;
    while (*p != '\0') {
        const char *at = p;
        int t = ld_parse_tile(ld, &p);
        if (t < 0) {
            char qc[32];
            quote_text(qc, sizeof qc, at, (size_t)char_len(at));
            return rk_error(err, "rack '%s': unknown tile '%s'", s, qc);
        }
        if (t & (int)RK_BLANK_BIT)
            return rk_error(err, "rack '%s': lowercase '%.*s' is not a tile (a blank is '?')", s,
                            (int)(p - at), at);
        if (++n > RK_RACK_SIZE)
            return rk_error(err, "rack '%s': more than %d tiles", s, RK_RACK_SIZE);
        rack_add(r, (uint8_t)t);
    }
    return 0;
}

void rack_to_string(const Rack *r, const LetterDist *ld, char *buf, size_t cap) {
    if (cap == 0) return;
    buf[0] = '\0';
    size_t pos = 0;
    char label[RK_LABEL_MAX + 1];
    for (int ml = 0; ml < ld->size && ml < RK_MAX_LETTERS; ml++) {
        for (int i = 0; i < r->count[ml]; i++) {
            int n = ld_tile_label(ld, (uint8_t)ml, label, sizeof label);
            if (n < 0 || pos + (size_t)n + 1 > cap) return; /* truncated at a whole label */
            memcpy(buf + pos, label, (size_t)n + 1);
            pos += (size_t)n;
        }
    }
}

int rack_score(const Rack *r, const LetterDist *ld) {
    int s = 0;
    for (int ml = 1; ml < ld->size && ml < RK_MAX_LETTERS; ml++) s += r->count[ml] * ld->score[ml];
    return s;
}

bool rack_equal(const Rack *a, const Rack *b) {
    return a->total == b->total && memcmp(a->count, b->count, sizeof a->count) == 0;
}
