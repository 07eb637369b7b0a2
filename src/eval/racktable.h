/*
 * racktable.h - every distinct full rack of a letter distribution, numbered.
 *
 * A full rack is a multiset of rack_size tiles (RK_RACK_SIZE = 7 in games)
 * drawable from the distribution: count[ml] <= ld->count[ml] for every ML,
 * the blank (ML 0) included. English has 3,199,724 of them.
 *
 * Racks are numbered in the word-index order of ../shared/formats.md: each
 * rack is written as its sorted ML string (blank 0 first) and the strings
 * are ordered lexicographically. `kwg` is the DAWG-only KWG of those strings
 * (node 1 has arc 0), the graph stored in a .req file, and `ix` its word
 * index, so kwg_index_of(&rt->kwg, &rt->ix, ...) gives the same numbers as
 * racktable_index.
 *
 * racktable_index and racktable_rack_at do not walk the graph: all strings
 * have the same length, so the number of racks before a rack is a sum of
 * binomial-like counts, one term per letter (see racktable.c). The graph is
 * built from the racks generated directly in sorted order.
 *
 * A RackTable is read-only after racktable_build, so any number of threads
 * may share one.
 */
#ifndef ROOKERY_RACKTABLE_H
#define ROOKERY_RACKTABLE_H

#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/letters.h"
#include "core/rack.h"

typedef struct RackTable {
    int num_letters; /* ld->size: MLs 0..num_letters-1 */
    int rack_size; /* tiles per rack */
    int dist[RK_MAX_LETTERS]; /* the full distribution, ld->count */
    uint8_t limit[RK_MAX_LETTERS]; /* min(dist[ml], rack_size) */
    uint64_t num_racks;
    Kwg kwg; /* DAWG of the racks (sorted ML strings) */
    KwgIndex ix; /* its word index */
    /* fill[ml * (rack_size + 1) + r]: multisets of exactly r tiles made of
     * letters ml..num_letters-1 within the limits (row num_letters: only
     * r = 0, one way). */
    uint64_t *fill;
    /* before[(ml * (rack_size + 1) + r) * (rack_size + 1) + c]: with r tiles
     * still to place from letters ml.., the racks that hold more than c
     * copies of ml (they come first in the order). */
    uint64_t *before;
} RackTable;

/* Builds the table of every rack of rack_size tiles (1..RK_RACK_SIZE; games
 * use RK_RACK_SIZE) drawable from ld. Fails with a message naming the
 * distribution if it allows no rack at all or the graph cannot be built. */
int racktable_build(RackTable *rt, const LetterDist *ld, int rack_size, RkError *err);
void racktable_free(RackTable *rt);

/* The index of a full rack (0..num_racks-1), or -1 if r does not hold
 * exactly rack_size tiles, holds a letter >= num_letters, or more copies of
 * a letter than the distribution has. */
int64_t racktable_index(const RackTable *rt, const Rack *r);
/* The inverse: writes rack number idx to out. Returns -1 (out cleared) if
 * idx >= num_racks. */
int racktable_rack_at(const RackTable *rt, uint64_t idx, Rack *out);
/* The full distribution as a multiset (the bag of the static leaves). */
void racktable_full_bag(const RackTable *rt, Rack *out);

#endif
