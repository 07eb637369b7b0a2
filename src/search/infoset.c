/* infoset.c - Zobrist keys of information sets (see infoset.h). */
#include "infoset.h"

static inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The Zobrist value of feature i (two independent 64-bit halves). */
static inline void zobrist(McgsKey *k, uint64_t i) {
    k->lo ^= mix64(i * 2 + 0x5157ull);
    k->hi ^= mix64(i * 2 + 1 + 0xA3C1ull * 0x10000ull);
}

#define FEATURE_SQUARE 0ull                    /* + square * 256 + tile */
#define FEATURE_RACK (1ull << 20)              /* + letter * 16 + copy */
#define FEATURE_SCALARS (1ull << 24)

McgsKey infoset_key(const Game *g) {
    McgsKey k = {0, 0};
    const Board *b = &g->board;
    int squares = b->dim * b->dim;
    for (int s = 0; s < squares; s++)
        if (b->sq[0][s] != 0) zobrist(&k, FEATURE_SQUARE + (uint64_t)s * 256 + b->sq[0][s]);
    const Rack *r = &g->racks[g->on_turn];
    for (int ml = 0; ml < g->ld->size; ml++)
        for (int c = 0; c < r->count[ml]; c++) zobrist(&k, FEATURE_RACK + (uint64_t)ml * 16 + (uint64_t)c);
    int me = g->on_turn;
    uint64_t s1 = (uint64_t)(uint32_t)g->scores[me] | (uint64_t)(uint32_t)g->scores[1 - me] << 32;
    uint64_t s2 = (uint64_t)(uint32_t)g->zeros | (uint64_t)(uint32_t)g->bag.count << 16 |
                  (uint64_t)(uint32_t)g->racks[1 - me].total << 40;
    k.lo ^= mix64(FEATURE_SCALARS ^ mix64(s1) ^ mix64(s2 + 7));
    k.hi ^= mix64(FEATURE_SCALARS + 1 + mix64(s1 ^ 0x77) + mix64(s2 * 3 + 11));
    return k;
}

McgsKey infoset_key_with_last(const Game *g) {
    McgsKey k = infoset_key(g);
    if (!g->has_last) return k;
    const Move *m = &g->last;
    uint64_t h = mix64(0x6c617374ull /* "last" */ ^ (uint64_t)m->kind);
    if (m->kind == MOVE_PLACE) {
        h = mix64(h ^ ((uint64_t)m->dir | (uint64_t)m->row << 8 | (uint64_t)m->col << 16 | (uint64_t)m->len << 24 |
                       (uint64_t)(uint32_t)m->score << 32));
        for (int i = 0; i < m->len; i++) h = mix64(h ^ ((uint64_t)m->tiles[i] << 8 | (uint64_t)i));
    } else if (m->kind == MOVE_EXCHANGE) {
        h = mix64(h ^ (uint64_t)m->ntiles); /* how many, never which */
    }
    k.lo ^= h;
    k.hi ^= mix64(h + 0x1234567ull);
    return k;
}
