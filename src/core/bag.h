/*
 * bag.h - the bag of unseen-to-everyone tiles, drawn at random with a
 * caller-supplied Rng so games are reproducible.
 */
#ifndef ROOKERY_BAG_H
#define ROOKERY_BAG_H

#include "rack.h"
#include "rng.h"

#define RK_MAX_BAG 512

typedef struct Bag {
    uint8_t tiles[RK_MAX_BAG];
    int count;
} Bag;

/* A full bag of the distribution. */
void bag_fill(Bag *bag, const LetterDist *ld);
void bag_add(Bag *bag, uint8_t ml);
/* Removes one tile ml from the bag; returns -1 if there is none. */
int bag_take(Bag *bag, uint8_t ml);
/* Draws a uniformly random tile (bag must not be empty). */
uint8_t bag_draw(Bag *bag, Rng *rng);
/* Draws until the rack holds RK_RACK_SIZE tiles or the bag is empty. */
void bag_refill_rack(Bag *bag, Rack *rack, Rng *rng);
/* Tile counts of the bag as a Rack (multiset). */
void bag_to_rack(const Bag *bag, Rack *out);
/* The tiles of the bag and of rack together (what a player who sees neither
 * may hold). */
void bag_plus_rack(const Bag *bag, const Rack *rack, Rack *out);
/* Puts every tile of rack back in the bag and empties the rack. */
void bag_take_back_rack(Bag *bag, Rack *rack);

#endif
