/*
 * bag.c - the bag: an unordered array of tiles, drawn uniformly at random.
 */
#include "bag.h"

#include <stdio.h>
#include <stdlib.h>

void bag_fill(Bag *bag, const LetterDist *ld) {
    bag->count = 0;
    if (ld->total_tiles > RK_MAX_BAG) {
        fprintf(stderr, "bag_fill: distribution '%s' has %d tiles, at most %d are supported\n",
                ld->name, ld->total_tiles, RK_MAX_BAG);
        abort();
    }
    for (int ml = 0; ml < ld->size; ml++)
        for (int i = 0; i < ld->count[ml]; i++) bag->tiles[bag->count++] = (uint8_t)ml;
}

void bag_add(Bag *bag, uint8_t ml) {
    if (bag->count >= RK_MAX_BAG) {
        fprintf(stderr, "bag_add: the bag is full (%d tiles)\n", RK_MAX_BAG);
        abort();
    }
    bag->tiles[bag->count++] = ml;
}

int bag_take(Bag *bag, uint8_t ml) {
    for (int i = bag->count - 1; i >= 0; i--) {
        if (bag->tiles[i] == ml) {
            bag->tiles[i] = bag->tiles[bag->count - 1];
            bag->count--;
            return 0;
        }
    }
    return -1;
}

uint8_t bag_draw(Bag *bag, Rng *rng) {
    if (bag->count <= 0) {
        fprintf(stderr, "bag_draw: the bag is empty\n");
        abort();
    }
    int i = (int)rng_below(rng, (uint64_t)bag->count);
    uint8_t t = bag->tiles[i];
    bag->tiles[i] = bag->tiles[bag->count - 1];
    bag->count--;
    return t;
}

void bag_refill_rack(Bag *bag, Rack *rack, Rng *rng) {
    while (rack->total < RK_RACK_SIZE && bag->count > 0) rack_add(rack, bag_draw(bag, rng));
}

void bag_to_rack(const Bag *bag, Rack *out) {
    rack_clear(out);
    for (int i = 0; i < bag->count; i++) rack_add(out, bag->tiles[i]);
}

void bag_plus_rack(const Bag *bag, const Rack *rack, Rack *out) {
    *out = *rack;
    for (int i = 0; i < bag->count; i++) rack_add(out, bag->tiles[i]);
}

void bag_take_back_rack(Bag *bag, Rack *rack) {
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (; rack->count[ml] > 0; rack->count[ml]--) bag_add(bag, (uint8_t)ml);
    rack->total = 0;
}
