/*
 * wordmap_internal.h - what the word map's reader (wordmap.c) and builder
 * (wordmap_build.c) share: the image's layout constants, the key hash and a
 * word's key, and the check that fills a WordMap's views from its image.
 * Not part of the engine's interface (wordmap.h is).
 */
#ifndef ROOKERY_WORDMAP_INTERNAL_H
#define ROOKERY_WORDMAP_INTERNAL_H

#include <string.h>

#include "wordmap.h"

#define WM_MAGIC "RKWM"
/* 2: the key hash mixes both halves of a key (see key_hash) */
#define WM_VERSION 2u
#define WM_HEADER_BYTES 64u
#define WM_ENTRY_BYTES 96u
#define WM_ENTRIES (WM_MAX_LEN + 1)
#define WM_ALIGN 64u
/* A class (the words of one multiset) is at most this many words: its
 * count is the low byte of the words table's payload. */
#define WM_MAX_CLASS 255u

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fmix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

/* The hash of a key under a table's seed. Both halves go through a full
 * mix (fmix64 is a bijection, so keys differing only in lo differ after the
 * first, and only in hi after the second): distinct keys collide with
 * probability about 2^-64. (Version 1 added lo * odd constant to the
 * rotated hi before one mix; the top nibble of lo, letter 16, and letter 24
 * in hi then met in the same four bits, and keys differing only in their
 * counts of P and X hashed alike, so an absent key of P's and X's found a
 * present one's slot and got its blank mask.) */
static inline uint64_t key_hash(WordKey k, uint32_t seed) {
    uint64_t s = (uint64_t)seed * 0xD6E8FEB86659FD93ULL + 0x9E3779B97F4A7C15ULL;
    return fmix64(fmix64(k.lo ^ s) ^ k.hi);
}

/* The key of a word's letters (1..31), as wordkey_add of each but without
 * a branch a letter (which half of the key a letter lands in is a coin toss
 * in English). */
static inline WordKey key_of(const uint8_t *w, int len) {
    WordKey k = {0, 0};
    for (int i = 0; i < len; i++) {
        unsigned s = 4u * (unsigned)(w[i] - 1);
        uint64_t bit = (uint64_t)1 << (s & 63u), low = (uint64_t)0 - (uint64_t)(s < 64u);
        k.lo += bit & low;
        k.hi += bit & ~low;
    }
    return k;
}

/* The image's numbers are little-endian, read and written in place. */
static inline bool host_little_endian(void) {
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Checks the image in wm->image, fills the table views and allocates the
 * presence filter (wordmap.c); wordmap_free releases it, after a success or
 * a failure. */
int wm_parse_image(WordMap *wm, const char *source, RkError *err);

#endif
