/* libFuzzer target for the word map loader (wordmap_from_bytes, the checks
 * wordmap_load runs on a mapped file). Each input is tried twice: as it is
 * (almost always refused by the size or checksum check), and with its
 * header's size and body checksum rewritten to fit, so that the mutations
 * reach every structural check behind them. Whatever loads must be safe to
 * look up: no read outside the image (ASan), every word wordmap_words
 * returns has exactly the asked letters, every blank mask holds only
 * letters of the alphabet, and every slot holds what the generator relies
 * on (check_slots). The checksum comes from wordmap_checksum (the unit
 * test checks it against docs/wordmap.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/wordmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static WordKey key_of(const uint8_t *w, int len) {
    WordKey k = {0, 0};
    for (int i = 0; i < len; i++) wordkey_add(&k, w[i]);
    return k;
}

/* Looks key up in every way at length len and checks the answers. */
static void probe(const WordMap *wm, int len, WordKey key) {
    const uint8_t *w = NULL;
    uint32_t n = wordmap_words(wm, len, key, &w);
    if (n > 0) {
        const uint8_t *lo = wm->image, *hi = lo + wm->image_size;
        if (w < lo || w + (size_t)n * (size_t)len > hi) abort();
        for (uint32_t i = 0; i < n; i++)
            if (!wordkey_equal(key_of(w + (size_t)i * len, len), key)) abort();
    }
    if (wordmap_has_word(wm, len, key, 0) != (n > 0)) abort();
    uint32_t letters = (uint32_t)(((uint64_t)1 << wm->alphabet) - 2);
    uint32_t m1 = wordmap_blank1(wm, len, key), m2 = wordmap_blank2(wm, len, key);
    if ((m1 & ~letters) != 0 || (m2 & ~letters) != 0) abort();
    if (wordmap_has_word(wm, len, key, 1) != (m1 != 0) || wordmap_has_word(wm, len, key, 2) != (m2 != 0)) abort();
}

/* What the generator relies on, slot by slot (the keys are not stored, so
 * lookups alone reach few of them): every occupied words slot names a class
 * inside the word list whose words share their letters, every occupied
 * blank slot a non-empty mask of the alphabet's letters. */
static void check_slots(const WordMap *wm) {
    uint32_t letters = (uint32_t)(((uint64_t)1 << wm->alphabet) - 2);
    for (int L = 2; L <= WM_MAX_LEN; L++) {
        const WmLength *l = &wm->len[L];
        const WmTable *t[3] = {&l->words, &l->blank1, &l->blank2};
        for (int k = 0; k < 3; k++) {
            uint64_t used = 0;
            for (uint64_t i = 0; i <= t[k]->mask; i++) {
                uint32_t fp = t[k]->slots[2 * i], v = t[k]->slots[2 * i + 1];
                if (fp == 0) continue;
                used++;
                if (k > 0) {
                    if (v == 0 || (v & ~letters) != 0) abort();
                    continue;
                }
                uint32_t first = v >> 8, count = v & 0xFFu;
                if (count == 0 || (uint64_t)first + count > l->nwords) abort();
                WordKey key = key_of(l->letters + (size_t)first * L, L);
                for (uint32_t j = 1; j < count; j++)
                    if (!wordkey_equal(key_of(l->letters + ((size_t)first + j) * L, L), key)) abort();
            }
            if (used != t[k]->used || used > t[k]->mask) abort();
        }
        /* the presence filter lets every word of the lists through */
        for (uint32_t i = 0; i < l->nwords; i++)
            if (!wordmap_may_have_words(wm, key_of(l->letters + (size_t)i * L, L))) abort();
    }
}

static void exercise(const WordMap *wm, const uint8_t *data, size_t size) {
    check_slots(wm);
    int budget = 3000;
    for (int L = 2; L <= wm->max_len && budget > 0; L++) {
        const WmLength *l = &wm->len[L];
        /* the map's own words: their classes, and the words less each
         * letter and less two letters (keys of the blank tables) */
        for (uint32_t i = 0; i < l->nwords && budget > 0; i += 1 + l->nwords / 64, budget--) {
            const uint8_t *word = l->letters + (size_t)i * L;
            WordKey k = key_of(word, L);
            probe(wm, L, k);
            for (int d = 0; d < L; d++) {
                uint8_t rest[WM_MAX_LEN];
                int n = 0;
                for (int j = 0; j < L; j++)
                    if (j != d) rest[n++] = word[j];
                probe(wm, L, key_of(rest, n));
                if (n >= 1) probe(wm, L, key_of(rest + 1, n - 1));
            }
        }
    }
    /* keys made of the input's bytes, letters 1..31, every length */
    for (size_t at = 0; at + 4 <= size && budget > 0; at += 97, budget--) {
        uint8_t w[WM_MAX_LEN];
        int len = data[at] % (WM_MAX_LEN + 3); /* 0..23: lengths outside 2..21 too */
        int n = len < WM_MAX_LEN ? len : WM_MAX_LEN;
        for (int i = 0; i < n; i++) w[i] = (uint8_t)(1 + data[(at + 1 + (size_t)i) % size] % WM_MAX_LETTER);
        WordKey k = key_of(w, n);
        probe(wm, len, k);
        if (len >= 1) probe(wm, len + 1, k);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    WordMap wm;
    RkError err;
    if (wordmap_from_bytes(&wm, data, size, NULL, 0, "fuzz", &err) == 0) {
        exercise(&wm, data, size);
        wordmap_free(&wm);
    }
    /* the same bytes with the size and checksum made to fit */
    if (size < 64) return 0;
    uint8_t *copy = malloc(size);
    if (copy == NULL) return 0;
    memcpy(copy, data, size);
    put_le64(copy + 32, size);
    put_le64(copy + 40, wordmap_checksum(copy + 64, size - 64));
    if (wordmap_from_bytes(&wm, copy, size, NULL, 0, "fuzz", &err) == 0) {
        exercise(&wm, copy, size);
        wordmap_free(&wm);
    }
    free(copy);
    return 0;
}
