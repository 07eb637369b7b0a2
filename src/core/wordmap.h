/*
 * wordmap.h - the word map (.wmp): for every multiset of letters and every
 * word length, the words of the lexicon that are anagrams of it, also with
 * one or two blanks among the letters, each question answered by one hash
 * lookup. The best-move generator (movegen_span.c) asks it "can these rack
 * tiles, with these letters already on the board, make a word of this
 * length?" and "which words?", instead of walking the GADDAG.
 *
 * A multiset is a WordKey: 4 bits of count per letter, letter ml (1..31) in
 * bits 4(ml-1)..4(ml-1)+3 of the 128-bit value, so adding a letter is one
 * add and two keys add up to the key of the union (while no count passes
 * 15; the builder refuses a lexicon with a word holding 16 of one letter).
 *
 * For each word length L there are three tables:
 *   words   key of L letters -> the words with exactly those letters
 *   blank1  key of L-1 letters -> the letters x such that key + x has words
 *   blank2  key of L-2 letters -> the letters x such that, for some y,
 *           key + x + y has words (x and y both in the mask)
 * so the words of a rack part with two blanks are: for x in blank2(K), for
 * y >= x in blank1(K + x), words(K + x + y).
 *
 * The tables are open addressing with linear probing over 8-byte slots: a
 * 32-bit fingerprint of the key (never 0; 0 marks an empty slot) and a
 * 32-bit payload. Full keys are not stored. The builder checks that no
 * present key has a slot of the same fingerprint before it on its probe
 * path (and changes that table's seed until none has), so a lookup of a key
 * that is in the table is exact. A key that is not there can, with
 * probability about 2^-31 per slot probed, hit another key's slot: a blank
 * mask is then too large (harmless: the generator only uses it to try
 * words, which wordmap_words checks against the words' own letters), and
 * wordmap_words compares the letters of the class it found with the key, so
 * it never returns a wrong word.
 *
 * Most questions the best-move search asks have no word (in simulations
 * four in five: a span through board tiles rarely spells one), and a
 * question is a load from a random slot of tables far larger than a core's
 * caches. So a loaded map also holds a small filter of the words tables'
 * keys (at least WM_PRESENT_BITS bits a class, three bits in one 64-bit word a key):
 * a key the filter lacks has no words, and the table is not touched. The
 * filter is built at load from the word lists; it is not in the file.
 *
 * The file is the in-memory image, little-endian, every section aligned to
 * 64 bytes (byte layout: docs/wordmap.md). Its header holds a 64-bit hash of
 * the .kwg's nodes (a map of another lexicon is refused) and of the body (a
 * corrupt file is refused). Loading memory-maps the file read-only and
 * shared, so every process of a node uses one copy from the page cache.
 */
#ifndef ROOKERY_WORDMAP_H
#define ROOKERY_WORDMAP_H

#include "common.h"
#include "kwg.h"

/* Longest word the map holds (the largest board side). */
#define WM_MAX_LEN RK_MAX_DIM
/* Letters 1..WM_MAX_LETTER can be keys (a blank mask is 32 bits, bit ml for
 * letter ml); larger alphabets cannot have a map. */
#define WM_MAX_LETTER 31

typedef struct WordKey {
    uint64_t lo, hi;
} WordKey;

static inline void wordkey_add(WordKey *k, int ml) {
    int s = 4 * (ml - 1);
    if (s < 64) k->lo += (uint64_t)1 << s;
    else k->hi += (uint64_t)1 << (s - 64);
}
static inline WordKey wordkey_plus(WordKey a, WordKey b) {
    WordKey k = {a.lo + b.lo, a.hi + b.hi};
    return k;
}
static inline bool wordkey_equal(WordKey a, WordKey b) { return a.lo == b.lo && a.hi == b.hi; }

/* One table of one length, as it lies in the file. */
typedef struct WmTable {
    const uint32_t *slots; /* 2 * (mask + 1) words: fingerprint, payload */
    uint32_t mask;         /* slots - 1 (a power of two minus one) */
    uint32_t seed;
    uint32_t used;         /* keys held */
} WmTable;

typedef struct WmLength {
    WmTable words, blank1, blank2;
    const uint8_t *letters; /* nwords words of L letters each, grouped by multiset */
    uint32_t nwords;
} WmLength;

/* Bits of the presence filter a class, at least, of the words tables (the filter is
 * rounded up to a power of two 64-bit words): SOWPODS' 238k classes take
 * 128 KB at 4. */
#define WM_PRESENT_BITS 4

typedef struct WordMap {
    WmLength len[WM_MAX_LEN + 1];
    /* the presence filter of every words table's keys (see the top) */
    uint64_t *present;
    uint64_t present_mask; /* its 64-bit words - 1 */
    int max_len;          /* longest word held */
    int alphabet;         /* letters of the distribution, blank included */
    uint64_t kwg_hash;    /* wordmap_kwg_hash() of the lexicon it was built from */
    uint32_t kwg_nodes;
    /* the bytes: a mapping of the file, or a malloc'ed image */
    void *image;
    size_t image_size;
    bool mapped;
} WordMap;

/* The checksum of a word map's body as its header records it (bytes 64 to
 * the end; docs/wordmap.md, "Hashes"). */
uint64_t wordmap_checksum(const void *body, size_t n);
/* The hash of a lexicon graph that a word map records (64 bits over its
 * node array, in file byte order). */
uint64_t wordmap_kwg_hash(const Kwg *kwg);

/* Builds the map of every word in kwg's DAWG (letters must be < alphabet,
 * alphabet <= WM_MAX_LETTER + 1). threads > 1 builds lengths in parallel.
 * `source` names the lexicon in errors. */
int wordmap_build(WordMap *wm, const Kwg *kwg, int alphabet, int threads, const char *source,
                  RkError *err);
/* Writes the image atomically (temporary name, fsync, rename). */
int wordmap_write(const WordMap *wm, const char *path, RkError *err);
/* Maps and checks a .wmp file: its format, size, body hash, and that it was
 * built from `kwg` with this alphabet (kwg NULL skips that check). Errors
 * name the file. */
int wordmap_load(WordMap *wm, const char *path, const Kwg *kwg, int alphabet, RkError *err);
/* The same checks on bytes in memory (copied; for tests and fuzzing). */
int wordmap_from_bytes(WordMap *wm, const void *data, size_t size, const Kwg *kwg, int alphabet,
                       const char *source, RkError *err);
void wordmap_free(WordMap *wm);

/* The words of length len whose letters are exactly key: their count, and
 * *words pointing at count * len letters (ML). 0 if none. */
uint32_t wordmap_words(const WordMap *wm, int len, WordKey key, const uint8_t **words);
/* Whether the presence filter lets key through (true for every key that
 * has words; for most others false). wordmap_words asks it first. */
bool wordmap_may_have_words(const WordMap *wm, WordKey key);
/* Letters x (bit x) such that key + x has words of length len (key holds
 * len - 1 letters). */
uint32_t wordmap_blank1(const WordMap *wm, int len, WordKey key);
/* Letters x such that key + x + y has words of length len for some y (key
 * holds len - 2 letters); 0 if none. */
uint32_t wordmap_blank2(const WordMap *wm, int len, WordKey key);
/* The word map's conventional name beside a lexicon: NAME.kwg -> NAME.wmp
 * (any other name gets ".wmp" appended). -1 if it does not fit in cap. */
int wordmap_path_beside(const char *kwg_path, char *out, size_t cap);

/* Whether key plus `blanks` (0..2) blanks can make a word of length len. */
bool wordmap_has_word(const WordMap *wm, int len, WordKey key, int blanks);

#endif
