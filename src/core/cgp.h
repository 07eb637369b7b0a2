/*
 * cgp.h - positions in one line (CGP, ../shared/formats.md):
 *   ROWS RACKS SCORES ZEROS [op arg; ...]
 * e.g. "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AQRTUYZ/ 0/0 0 lex SOWPODS;"
 * The bag of a parsed position is the full distribution minus the board and
 * both racks. Unknown ops are ignored; lex/ld/bdn are reported to the caller.
 */
#ifndef ROOKERY_CGP_H
#define ROOKERY_CGP_H

#include "game.h"

typedef struct CgpOps {
    char lex[64];   /* "" if absent */
    char ld[64];
    char bdn[64];
} CgpOps;

/* Reads only the ops of a CGP (to know which lexicon to load first).
 * Returns 0 (missing fields are "") or -1 on a malformed line. */
int cgp_read_ops(const char *cgp, CgpOps *ops, RkError *err);
/* Parses a CGP into g, whose ld, layout and kwg are given. Checks: row count
 * and lengths, known letters, racks drawable, board + racks within the
 * distribution, integer scores, zeros in 0..5 (6 would be a finished game).
 * On error returns -1 with a one-line message (g is then unusable). The
 * game's rng is seeded from `seed`. */
int cgp_parse(Game *g, const char *cgp, const LetterDist *ld, const Layout *lay, const Kwg *kwg,
              uint64_t seed, RkError *err);
/* Writes the position of g as a CGP (no ops unless lex is non-NULL, then
 * " lex NAME;"). */
void cgp_write(const Game *g, const char *lex, char *buf, size_t cap);

#endif
