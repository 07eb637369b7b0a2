/*
 * rng.c - xoshiro256** (Blackman & Vigna), seeded through splitmix64.
 */
#include "rng.h"

static uint64_t splitmix64_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_seed(Rng *r, uint64_t seed) {
    uint64_t st = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64_next(&st);
    /* The all-zero state is a fixed point; splitmix64 cannot give four zero
     * outputs in a row, but be explicit. */
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) r->s[0] = 1;
}

void rng_seed_stream(Rng *r, uint64_t seed, uint64_t a, uint64_t b) {
    /* A chain of splitmix64 steps: each input is absorbed into the state
     * and scrambled, so inputs that differ by one bit give unrelated seeds.
     * Each step is a bijection of the running state, so for fixed earlier
     * inputs distinct later inputs give distinct seeds. */
    uint64_t st = seed;
    uint64_t h = splitmix64_next(&st);
    st = h ^ a;
    h = splitmix64_next(&st);
    st = h ^ b;
    h = splitmix64_next(&st);
    rng_seed(r, h);
}

uint64_t rng_next(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(Rng *r, uint64_t n) {
    /* Rejection: 2^64 mod n values at the bottom are refused so that every
     * residue is equally likely. (-n) % n == 2^64 mod n. */
    if (n <= 1) return 0;
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold) return x % n;
    }
}
