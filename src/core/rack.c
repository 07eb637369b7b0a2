/*
 * rack.c - parsing and printing racks, their face value and equality.
 */
#include "rack.h"

#include <stdio.h>
#include <string.h>

int rack_parse(Rack *r, const LetterDist *ld, const char *text, RkError *err) {
    rack_clear(r);
    char s[96]; /* the text as quoted in messages */
    rk_quote_text(s, sizeof s, text, strlen(text));
    const char *p = text;
    int n = 0;
    while (*p != '\0') {
        const char *at = p;
        int t = ld_parse_tile(ld, &p);
        if (t < 0) {
            char qc[32];
            rk_quote_text(qc, sizeof qc, at, rk_char_len(at));
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
