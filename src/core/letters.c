#include "letters.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

static const char ENGLISH_CSV[] =
    "?,?,2,0,0\n"
    "A,a,9,1,1\nB,b,2,3,0\nC,c,2,3,0\nD,d,4,2,0\nE,e,12,1,1\nF,f,2,4,0\n"
    "G,g,3,2,0\nH,h,2,4,0\nI,i,9,1,1\nJ,j,1,8,0\nK,k,1,5,0\nL,l,4,1,0\n"
    "M,m,2,3,0\nN,n,6,1,0\nO,o,8,1,1\nP,p,2,3,0\nQ,q,1,10,0\nR,r,6,1,0\n"
    "S,s,4,1,0\nT,t,6,1,0\nU,u,4,1,1\nV,v,2,4,0\nW,w,2,4,0\nX,x,1,8,0\n"
    "Y,y,2,4,0\nZ,z,1,10,0\n";

/* Copies field [b, e) trimmed into out; returns its length or -1 if too
 * long. */
static int copy_field(const char *b, const char *e, char *out, size_t cap) {
    while (b < e && isspace((unsigned char)*b)) b++;
    while (e > b && isspace((unsigned char)e[-1])) e--;
    size_t n = (size_t)(e - b);
    if (n + 1 > cap) return -1;
    memcpy(out, b, n);
    out[n] = '\0';
    return (int)n;
}

static int parse_int_field(const char *s, int lo, int hi, int *out) {
    char *end;
    if (*s == '\0') return -1;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

int ld_parse(LetterDist *ld, const char *text, const char *source, RkError *err) {
    memset(ld, 0, sizeof *ld);
    snprintf(ld->name, sizeof ld->name, "%s", source);
    const char *p = text;
    int line_no = 0;
    while (*p != '\0') {
        const char *eol = strchr(p, '\n');
        if (eol == NULL) eol = p + strlen(p);
        line_no++;
        const char *q = p;
        while (q < eol && isspace((unsigned char)*q)) q++;
        if (q == eol) {
            p = *eol ? eol + 1 : eol;
            continue;
        }
        if (ld->size >= RK_MAX_LETTERS)
            return rk_error(err, "%s:%d: more than %d tiles", source, line_no, RK_MAX_LETTERS);
        char fields[5][32];
        int nf = 0;
        const char *fb = p;
        for (const char *c = p;; c++) {
            if (c == eol || *c == ',') {
                if (nf == 5) return rk_error(err, "%s:%d: more than 5 fields", source, line_no);
                if (copy_field(fb, c, fields[nf], sizeof fields[nf]) < 0)
                    return rk_error(err, "%s:%d: field %d too long", source, line_no, nf + 1);
                nf++;
                fb = c + 1;
                if (c == eol) break;
            }
        }
        if (nf != 5)
            return rk_error(err, "%s:%d: expected letter,lowercase,count,score,is_vowel", source, line_no);
        int i = ld->size;
        size_t ul = strlen(fields[0]), ll = strlen(fields[1]);
        if (ul == 0 || ul >= RK_LABEL_MAX || ll == 0 || ll >= RK_LABEL_MAX)
            return rk_error(err, "%s:%d: bad tile label '%s'", source, line_no, fields[0]);
        int count, score, vowel;
        if (parse_int_field(fields[2], 0, 255, &count) != 0)
            return rk_error(err, "%s:%d: bad count '%s'", source, line_no, fields[2]);
        if (parse_int_field(fields[3], 0, 1000, &score) != 0)
            return rk_error(err, "%s:%d: bad score '%s'", source, line_no, fields[3]);
        if (parse_int_field(fields[4], 0, 1, &vowel) != 0)
            return rk_error(err, "%s:%d: bad is_vowel '%s' (0 or 1)", source, line_no, fields[4]);
        if (i == 0 && strcmp(fields[0], "?") != 0)
            return rk_error(err, "%s:%d: the first tile must be the blank '?'", source, line_no);
        if (i > 0 && (strcmp(fields[0], "?") == 0 || strcmp(fields[1], "?") == 0))
            return rk_error(err, "%s:%d: only the first tile may be the blank", source, line_no);
        for (int j = 1; j < i; j++)
            if (strcmp(ld->upper[j], fields[0]) == 0 || strcmp(ld->lower[j], fields[1]) == 0)
                return rk_error(err, "%s:%d: duplicate tile '%s'", source, line_no, fields[0]);
        memcpy(ld->upper[i], fields[0], ul + 1);
        memcpy(ld->lower[i], fields[1], ll + 1);
        ld->count[i] = count;
        ld->score[i] = i == 0 ? 0 : score;
        ld->vowel[i] = vowel != 0;
        ld->total_tiles += count;
        ld->size++;
        p = *eol ? eol + 1 : eol;
    }
    if (ld->size < 2) return rk_error(err, "%s: no letters", source);
    return 0;
}

int ld_load(LetterDist *ld, const char *path, RkError *err) {
    char *text = rk_read_file(path, 1 << 16, NULL, err);
    if (text == NULL) return -1;
    int rc = ld_parse(ld, text, path, err);
    free(text);
    return rc;
}

void ld_english(LetterDist *ld) {
    RkError err;
    if (ld_parse(ld, ENGLISH_CSV, "english", &err) != 0) abort(); /* the table is a constant */
}

int ld_open(LetterDist *ld, const char *name_or_path, RkError *err) {
    if (name_or_path == NULL || strcmp(name_or_path, "english") == 0) {
        ld_english(ld);
        return 0;
    }
    return ld_load(ld, name_or_path, err);
}

int ld_parse_tile(const LetterDist *ld, const char **s) {
    const char *p = *s;
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < ld->size; i++) {
        size_t n = strlen(ld->upper[i]);
        if (n > best_len && strncmp(p, ld->upper[i], n) == 0) {
            best = i;
            best_len = n;
        }
        if (i > 0) {
            n = strlen(ld->lower[i]);
            if (n > best_len && strncmp(p, ld->lower[i], n) == 0) {
                best = i | (int)RK_BLANK_BIT;
                best_len = n;
            }
        }
    }
    if (best >= 0) *s = p + best_len;
    return best;
}

int ld_parse_tiles(const LetterDist *ld, const char *s, uint8_t *out, int cap, bool allow_blanked) {
    int n = 0;
    while (*s != '\0') {
        int t = ld_parse_tile(ld, &s);
        if (t < 0) return -1;
        if (!allow_blanked && (t & (int)RK_BLANK_BIT)) return -1;
        if (n >= cap) return -1;
        out[n++] = (uint8_t)t;
    }
    return n;
}

int ld_tile_label(const LetterDist *ld, uint8_t t, char *buf, size_t cap) {
    int ml = RK_LETTER(t);
    const char *label = "#";
    if (ml < ld->size) label = RK_IS_BLANKED(t) ? ld->lower[ml] : ld->upper[ml];
    int n = snprintf(buf, cap, "%s", label);
    return n;
}
