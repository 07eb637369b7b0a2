/*
 * kwg_prune.h - the lexicon cut down to the words one position can still
 * make, for the searches of the last moves.
 *
 * With the bag empty every tile still to be played is on one of the two
 * racks, so any word a later move forms (its main word or a cross word)
 * lies in one line of the board, runs over that line's tiles as they are
 * now, and fills its empty squares with tiles of the two racks together
 * (a blank standing for any letter). kwg_prune collects every such word of
 * the lexicon and builds a graph (DAWG + GADDAG) of those alone. A search
 * that generates moves from it finds exactly the moves and cross-sets it
 * would find from the whole lexicon, for the racks' letters, in this
 * position and every position the two racks can reach from it; the graph
 * is a few thousand words instead of a few hundred thousand, so move
 * generation walks far fewer arcs. The word map is not carried over (the
 * pruned graph has none: the best-move search walks the graph).
 *
 * Which words: for every line (rows, then columns) and every start square
 * whose left (upper) neighbour is empty or the edge, every lexicon word
 * that matches the line's tiles where it crosses them, takes its other
 * letters from the pooled racks, uses at least one of them, and ends
 * before an empty square or the edge. It is a superset of the words that
 * can be formed (it ignores connection and the order of play); it never
 * misses one.
 */
#ifndef ROOKERY_KWG_PRUNE_H
#define ROOKERY_KWG_PRUNE_H

#include "board.h"
#include "kwg.h"
#include "rack.h"

/* Builds into *out the graph of full's words that can be formed on board b
 * with the tiles of `tiles` (the two racks pooled; RK blank = index 0).
 * words_out (may be NULL) receives how many words it holds. Errors (one
 * line, -1): out of memory, the graph too large. A position where no word
 * can be formed gives a graph with no words (its roots have no arcs). */
int kwg_prune(const Kwg *full, const Board *b, const Rack *tiles, Kwg *out, size_t *words_out, RkError *err);

#endif
