/*
 * letters.h - the letter distribution: which tiles exist, how many, their
 * scores, and how they are written.
 *
 * Machine letters (ML) are numbered in file order: 0 is the blank, then
 * 1..size-1 (English: A=1 .. Z=26). A blank placed on the board as letter L
 * is L | RK_BLANK_BIT and is written in lowercase.
 *
 * File format (english.csv): one line per tile,
 *   letter,lowercase,count,score,is_vowel
 * the first line being the blank "?,?,2,0,0". Labels may be multi-byte
 * (UTF-8); text is parsed by longest label match.
 */
#ifndef ROOKERY_LETTERS_H
#define ROOKERY_LETTERS_H

#include "common.h"

#define RK_LABEL_MAX 8

typedef struct LetterDist {
    int size;                               /* letters incl. the blank */
    char upper[RK_MAX_LETTERS][RK_LABEL_MAX]; /* "?" for the blank */
    char lower[RK_MAX_LETTERS][RK_LABEL_MAX];
    int count[RK_MAX_LETTERS];
    int score[RK_MAX_LETTERS];
    bool vowel[RK_MAX_LETTERS];
    int total_tiles;
    char name[64];                          /* e.g. "english" */
} LetterDist;

/* Parses distribution text; `source` names it in error messages. */
int ld_parse(LetterDist *ld, const char *text, const char *source, RkError *err);
int ld_load(LetterDist *ld, const char *path, RkError *err);
/* The built-in English distribution (the same as data/english.csv). */
void ld_english(LetterDist *ld);
/* Loads `name_or_path`: "english" gives the built-in one, anything else is a
 * file path. */
int ld_open(LetterDist *ld, const char *name_or_path, RkError *err);

/* Parses one tile label at *s (uppercase = letter, lowercase = blanked
 * letter, "?" = blank) and advances *s. Returns the ML (with RK_BLANK_BIT for
 * lowercase) or -1 if no label matches. */
int ld_parse_tile(const LetterDist *ld, const char **s);
/* Parses a whole string of tiles into out (at most cap). Returns the number of
 * tiles, or -1 on an unknown label or overflow. If allow_blanked is false a
 * lowercase letter is an error. */
int ld_parse_tiles(const LetterDist *ld, const char *s, uint8_t *out, int cap,
                   bool allow_blanked);
/* Appends the label of tile t (ML with optional blank bit) to buf; returns
 * the number of bytes written (buf is NUL-terminated if cap > 0). */
int ld_tile_label(const LetterDist *ld, uint8_t t, char *buf, size_t cap);
/* Face value of a placed tile: 0 for a blanked letter. */
static inline int ld_tile_score(const LetterDist *ld, uint8_t t) {
    return RK_IS_BLANKED(t) ? 0 : ld->score[t];
}

#endif
