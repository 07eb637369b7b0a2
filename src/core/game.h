/*
 * game.h - a two-player game: board, racks, scores, bag, turn and end rules.
 *
 * Rules (MAGPIE's conventions, see ../shared/reference/README.md):
 * - A player who goes out while the bag is empty ends the game and gains
 *   twice the face value of the opponent's rack.
 * - Six consecutive scoreless turns (passes, exchanges, 0-point plays) end
 *   the game; each player then loses the face value of their own rack.
 * - Exchanges are allowed only when the bag holds at least RK_RACK_SIZE tiles.
 */
#ifndef ROOKERY_GAME_H
#define ROOKERY_GAME_H

#include "bag.h"
#include "board.h"
#include "move.h"
#include "rack.h"
#include "rng.h"

#define GAME_MAX_SCORELESS 6

typedef enum { GAME_PLAYING = 0, GAME_WENT_OUT = 1, GAME_SIX_ZEROS = 2 } GameEnd;

typedef struct Game {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    Board board;
    Rack racks[2];
    int scores[2];
    int on_turn;         /* 0 or 1 */
    int zeros;           /* consecutive scoreless turns */
    int turn;            /* moves played so far */
    GameEnd end;
    int kept[2];         /* tiles each player kept after their last move (the
                          * size of the leave a hidden-rack model samples);
                          * -1 before their first move or when unknown (CGP) */
    Bag bag;
    Rng rng;
    bool has_last;       /* a move was played since the game or CGP began */
    Move last;           /* that move, as played (with its score) */
} Game;

/* A new game: empty board, full bag, both racks drawn (player 0 first). */
void game_new(Game *g, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed,
              uint64_t generation, uint64_t game_index);
/* The tiles the player on turn cannot see: the bag plus the opponent's rack. */
void game_unseen(const Game *g, Rack *unseen);
/* A world consistent with what the player on turn sees: *w = *g, then the
 * unseen tiles, in letter order and shuffled with r (Fisher-Yates), are
 * dealt to the opponent's rack (as many as they hold) and to the bag.
 * w->rng stays g's: callers seed it for the draws of their rollouts. */
void game_deal_unseen(const Game *g, Game *w, Rng *r);
/* The same in place, with part of the hidden rack fixed: the player not on
 * turn holds `leave` (a multiset of the unseen tiles) plus tiles of the rest
 * of the unseen pool, in letter order and shuffled with r, as many as they
 * hold; the rest is the bag. An empty leave is game_deal_unseen. */
void game_deal_hidden(Game *w, const Rack *leave, Rng *r);
/* The same with the tiles of `out` (unseen, beside the leave) kept out of
 * the hidden rack and put in the bag: the tiles an exchange threw back,
 * which the exchanger drew their new tiles before returning. With out NULL
 * or empty it is game_deal_hidden, draw for draw. */
void game_deal_hidden_out(Game *w, const Rack *leave, const Rack *out, Rng *r);
/* Plays a legal move for the player on turn: places or exchanges or passes,
 * scores it, draws, applies the end rules and passes the turn. */
void game_play(Game *g, const Move *m);
/* The position before g's last move as the player on turn in g sees it
 * (for inference, search/rack_inference.h): the move taken off the board and out
 * of the mover's score, the mover on turn with an empty rack and every tile
 * the viewer cannot see in the bag (the viewer's rack is as in g). The count
 * of scoreless turns is g's less one for a scoreless move, else 0 (it is
 * not known). Returns false (before unchanged) if g has no last move or the
 * game is over. */
bool game_before_last(const Game *g, Game *before);
static inline bool game_over(const Game *g) { return g->end != GAME_PLAYING; }
/* Is an exchange allowed now? The bag must hold at least RK_RACK_SIZE tiles
 * once the opponent holds a full rack (in play the opponent's rack is always
 * full while the bag has tiles; a CGP may give a short or empty opponent
 * rack, whose missing tiles are still unseen). */
static inline bool exchange_allowed(int bag_count, int opp_tiles) {
    int opp_missing = RK_RACK_SIZE - opp_tiles;
    if (opp_missing < 0) opp_missing = 0;
    return bag_count - opp_missing >= RK_RACK_SIZE;
}
static inline bool game_can_exchange(const Game *g) {
    return exchange_allowed(g->bag.count, g->racks[1 - g->on_turn].total);
}

#endif
