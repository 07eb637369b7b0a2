/* fuzz_lexicon.h - what the fuzz targets that play on a board share: a tiny
 * lexicon (GADDAG) built from a few uppercase words, so that each run of a
 * target starts in milliseconds and needs no word list on disk, and the
 * English board around it. */
#ifndef ROOKERY_FUZZ_LEXICON_H
#define ROOKERY_FUZZ_LEXICON_H

#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "core/kwg.h"

/* Builds *out from n words of 'A'..'Z' (at most 15 letters); aborts on failure. */
static inline void fuzz_tiny_kwg(Kwg *out, const char *const *words, int n) {
    enum { MAX = 64 };
    static uint8_t store[MAX][16];
    const uint8_t *ptrs[MAX];
    int lens[MAX];
    if (n > MAX) abort();
    for (int i = 0; i < n; i++) {
        lens[i] = (int)strlen(words[i]);
        if (lens[i] > 15) abort();
        for (int j = 0; j < lens[i]; j++) store[i][j] = (uint8_t)(words[i][j] - 'A' + 1);
        ptrs[i] = store[i];
    }
    KwgWords kw = {ptrs, lens, (size_t)n};
    RkError err;
    if (kwg_build(out, &kw, true, &err) != 0) abort();
}

/* English tiles, the standard 15x15 board, a tiny lexicon and a game. */
typedef struct FuzzBoard {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game g;
} FuzzBoard;

/* A FuzzBoard (calloc'ed, kept for the process) with the lexicon of the n words. */
static inline FuzzBoard *fuzz_board_new(const char *const *words, int n) {
    FuzzBoard *f = calloc(1, sizeof *f);
    if (f == NULL) abort();
    ld_english(&f->ld);
    layout_standard15(&f->lay);
    fuzz_tiny_kwg(&f->kwg, words, n);
    return f;
}

#endif
