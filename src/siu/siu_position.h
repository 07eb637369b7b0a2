/*
 * siu_position.h - the position an SIU front end sets:
 *
 *   position cgp <CGP> [moves <m> ... [rack.<tiles>]]
 *
 * The CGP gives the board, the racks ("onturn/other"; an empty field means
 * the engine does not know that rack), the scores and the scoreless turns;
 * `moves` are then played from it, each checked for legality against what
 * the engine knows (siu_move_check), and `rack.` as the last token gives the
 * rack of the player then on turn.
 *
 * A rack the engine does not know is still held in the Game (the search
 * needs one): it is dealt from the tiles the engine cannot see (the bag
 * plus that rack), as many as the rules say the player holds (7, or all of
 * them when fewer are unseen), with a random stream seeded from the
 * caller's seed. A searcher draws its own worlds; once the bag is empty the
 * unseen tiles are exactly the opponent's rack, so the dealing is exact. A
 * player's rack becomes unknown once they play a move from the list (they
 * drew tiles the engine did not see), unless `rack.` names it.
 */
#ifndef ROOKERY_SIU_POSITION_H
#define ROOKERY_SIU_POSITION_H

#include "core/game.h"

typedef struct SiuPosition {
    Game game;
    bool rack_known[2]; /* by player index of game */
    /* the last move of the list and the position before it, as the player on
     * turn now saw it (their rack as they gave it, or unseen if they did not;
     * the mover's rack unseen: before.bag holds every tile they could not
     * see, before's mover rack is empty): what inference needs */
    bool has_last;
    Game before;
    Move last;
    bool last_unknown_tiles; /* the last move was ex.N */
} SiuPosition;

/* What went wrong with a position command (the SIU error code). */
typedef enum { SIU_POS_OK = 0, SIU_POS_BAD_POSITION = 1, SIU_POS_BAD_MOVE = 2 } SiuPosError;

/* Splits the arguments of `position` (the text after the word) into the CGP
 * (copied into cgp) and the move tokens (pointers into the NUL-separated copy
 * in `buf`, at most max_moves). Returns the number of moves, or -1 with err
 * set (no "cgp", an empty CGP, too many moves, a line too long). */
int siu_position_split(const char *args, char *cgp, size_t cgp_cap, char *buf, size_t buf_cap, char **moves,
                       int max_moves, RkError *err);

/* Builds the position from a CGP and move tokens under the given tables.
 * Returns SIU_POS_OK, or SIU_POS_BAD_POSITION (the CGP) or SIU_POS_BAD_MOVE
 * (a move: err names it and says why) with err set; *out is then unusable. */
SiuPosError siu_position_build(SiuPosition *out, const char *cgp, char *const *moves, int nmoves,
                               const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed,
                               RkError *err);

#endif
