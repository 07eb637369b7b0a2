/*
 * infoset.h - 128-bit keys of information sets: what the player on turn
 * knows of a game, and nothing else.
 *
 * The key covers the board's tiles (with blank flags), the player on turn's
 * rack, both scores (the mover's first), the consecutive scoreless turns, the
 * bag size and the number of tiles the opponent holds. The unseen pool
 * follows from these. It does not cover the opponent's rack, the bag's order
 * or who is player 0, so two worlds that differ only in hidden tiles, and
 * the same state reached by different move orders, get the same key.
 *
 * Zobrist hashing: the key is the XOR of one pseudo-random 128-bit value per
 * (square, tile) on the board and per (letter, copy) on the rack, mixed
 * with the scalars. The values are splitmix64 outputs of their index
 * (computed, not tabled: no global state). Two different information sets
 * collide with probability about 2^-128 per pair.
 */
#ifndef ROOKERY_INFOSET_H
#define ROOKERY_INFOSET_H
#include "core/game.h"
#include "search/mcgs_graph.h"

McgsKey infoset_key(const Game *g);
/* infoset_key and the opponent's last move (Game.last as the player on turn
 * saw it: a placement's squares, tiles and score, an exchange's count, a
 * pass): the key of a search whose net reads that move (feature version 3),
 * so that two move orders reaching the same state are two nodes there. */
McgsKey infoset_key_with_last(const Game *g);

#endif
