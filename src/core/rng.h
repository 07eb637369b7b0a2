/*
 * rng.h - a small, fast, reproducible random generator (xoshiro256**),
 * seeded through splitmix64. Every game gets its own stream derived from
 * (seed, generation, game index) with rng_seed_stream(), never from the MPI
 * rank or the clock.
 */
#ifndef ROOKERY_RNG_H
#define ROOKERY_RNG_H

#include "common.h"

typedef struct Rng {
    uint64_t s[4];
} Rng;

void rng_seed(Rng *r, uint64_t seed);
/* A stream for (seed, a, b), e.g. (seed, generation, game index): distinct
 * inputs give independent-looking streams. */
void rng_seed_stream(Rng *r, uint64_t seed, uint64_t a, uint64_t b);
uint64_t rng_next(Rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(Rng *r, uint64_t n);

#endif
