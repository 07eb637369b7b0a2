/*
 * siu_move.h - moves in SIU notation (../shared/siu.md, "Positions and
 * moves"), both ways, and their legality in a position whose racks may be
 * unknown.
 *
 * A move token joins fields with '.' and holds no spaces:
 *   8D.DJINN          placement across: row number first, then column letter
 *   H11.MAZEY         placement down: column letter first
 *   J1.sCRIEVE        blanks lowercase; a tile already on the board is written
 *                     as its letter (no parentheses); multi-letter tiles [CH]
 *   8D.DJINN.DIJNNR?  optional trailing fields (rack, challenge points, turn
 *                     loss) are read and ignored
 *   ex.ABC  ex.4      exchange of known tiles, of n unknown tiles
 *   pass
 * rookery writes uppercase column letters and reads either case. Squares are
 * checked against the board (a letter written for an occupied square must be
 * the letter there; a fresh tile must land on an empty square), words are
 * not: siu_move_check does that.
 */
#ifndef ROOKERY_SIU_MOVE_H
#define ROOKERY_SIU_MOVE_H

#include "core/game.h"
#include "core/move.h"

/* The longest token rookery writes: coordinate, '.', RK_MAX_DIM tiles of at
 * most RK_LABEL_MAX bytes plus brackets. */
#define SIU_MOVE_MAX (8 + RK_MAX_DIM * (RK_LABEL_MAX + 2) + 1)

/* Writes m (a move of the position whose board is b, before it is played). */
void siu_move_write(const Move *m, const Board *b, const LetterDist *ld, char *buf, size_t cap);

/* Parses a token against board b. An exchange of unknown tiles (ex.N) gives
 * kind MOVE_EXCHANGE with len = ntiles = N and *unknown_tiles = true (its
 * tiles[] are then meaningless); otherwise *unknown_tiles = false. Score and
 * equity are left 0. Errors: one line naming the token. */
int siu_move_parse(Move *m, bool *unknown_tiles, const char *token, const Board *b, const LetterDist *ld,
                   RkError *err);

/* Whether m is a legal move for the player on turn in g, given what is known
 * of their rack: if rack_known, g's rack; otherwise any rack the unseen
 * tiles allow (the bag plus that player's rack in g, since g holds some
 * dealing of them). A placement must form words of g's lexicon and be
 * connected as the rules say (found among movegen_all's moves for a rack
 * holding its tiles); an exchange needs the tiles and a bag that allows it;
 * a pass is always legal. On success m gets its score (equity 0). */
int siu_move_check(const Game *g, bool rack_known, Move *m, bool unknown_tiles, RkError *err);

#endif
