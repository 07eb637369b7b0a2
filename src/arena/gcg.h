/*
 * gcg.h - a game as a GCG file (the crossword-game record format read by
 * Quackle, Woogles and the other engines' tools; poslfit.com's GCG page).
 *
 *   #character-encoding UTF-8
 *   #player1 A <name of the player who moved first>
 *   #player2 B <name>
 *   #description <free text>
 *   >A: AEINRST 8D RETAINS +66 66          across: row number, column letter
 *   >B: ?DEJNOT H4 JOT.... +30 30          down: column letter, row number;
 *                                           played-through tiles are '.',
 *                                           blanks lowercase
 *   >A: EEIIUUV -EIIUUV +0 66              exchange (the tiles thrown in)
 *   >B: DENO? - +0 30                      pass
 *   ...
 *   >A: (DEO) +8 412                       went out: twice the opponent's rack
 *   or, after six scoreless turns, each player's own rack:
 *   >A: (ADE) -4 390
 *   >B: (IOQ) -12 344
 *
 * Every move line gives the mover's rack before the move, the move's score
 * and the mover's running total. The record is written by replaying the
 * moves from the game's start (game_play), so the totals are the rules'
 * totals and the last line of each player is that player's final score.
 * A game cut short (a forfeit) has no end-of-game rack lines; say why in the
 * description.
 */
#ifndef ROOKERY_GCG_H
#define ROOKERY_GCG_H

#include <stddef.h>

#include "core/game.h"

typedef struct GcgRecord {
    const Game *start;   /* the game before its first move (game_new) */
    const Move *moves;   /* legal moves, in order */
    int nmoves;
    const char *nick[2]; /* by player index (0 moved first): no spaces, no ':' */
    const char *name[2]; /* full names (the rest of the #player line) */
    const char *description; /* NULL: none */
    const char *lexicon;     /* NULL: no #lexicon line */
} GcgRecord;

/* The file's text, malloc'ed into *out (NUL-terminated, length *len). -1
 * (err set) when out of memory or when a nick is unusable. */
int gcg_format(const GcgRecord *rec, char **out, size_t *len, RkError *err);
/* gcg_format, written atomically (core/atomicfile.h) to path. */
int gcg_write(const char *path, const GcgRecord *rec, RkError *err);

#endif
