/*
 * rack.h - a multiset of tiles (a player's rack, a leave, the unseen pool).
 * count[ml] for ml in 0..RK_MAX_LETTERS-1, 0 being the blank.
 */
#ifndef ROOKERY_RACK_H
#define ROOKERY_RACK_H

#include <string.h>

#include "letters.h"

typedef struct Rack {
    uint8_t count[RK_MAX_LETTERS];
    int total;
} Rack;

static inline void rack_clear(Rack *r) { memset(r, 0, sizeof *r); }
static inline void rack_add(Rack *r, uint8_t ml) { r->count[ml]++; r->total++; }
static inline void rack_remove(Rack *r, uint8_t ml) { r->count[ml]--; r->total--; }
/* r less the tiles of s, which r must hold. */
static inline void rack_sub(Rack *r, const Rack *s) {
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) r->count[ml] = (uint8_t)(r->count[ml] - s->count[ml]);
    r->total -= s->total;
}
/* Parses tile labels ("AEINST?"); "" is an empty rack. Blanked (lowercase)
 * letters are rejected. Returns -1 with a message naming the rack on error. */
int rack_parse(Rack *r, const LetterDist *ld, const char *s, RkError *err);
/* Writes the rack in ML order (blank '?' first) to buf. */
void rack_to_string(const Rack *r, const LetterDist *ld, char *buf, size_t cap);
/* Sum of face values (blanks 0). */
int rack_score(const Rack *r, const LetterDist *ld);
bool rack_equal(const Rack *a, const Rack *b);

#endif
