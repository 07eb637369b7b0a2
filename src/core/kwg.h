/*
 * kwg.h - the lexicon graph (.kwg), the combined DAWG + GADDAG format that
 * wolges and MAGPIE use (see ../shared/formats.md).
 *
 * A KWG is a flat array of u32 nodes, little-endian, no header:
 *   bits 0-21 arc index (0 = no children), bit 22 is_end (last sibling),
 *   bit 23 accepts (path ending here is a word), bits 24-31 tile (ML; 0 is
 *   the GADDAG separator).
 * Node 0 points to the DAWG root list, node 1 to the GADDAG root list.
 * Siblings are contiguous in ascending tile order.
 *
 * The same container also holds the DAWG-only graphs of .klv2 and .req
 * (node 1 has arc 0: no GADDAG). Their word index is in kwg_index.h.
 */
#ifndef ROOKERY_KWG_H
#define ROOKERY_KWG_H

#include "common.h"

#define KWG_ARC_MASK 0x3FFFFFu
#define KWG_IS_END_BIT (1u << 22)
#define KWG_ACCEPTS_BIT (1u << 23)
#define KWG_SEPARATOR 0

struct WordMap;

typedef struct Kwg {
    uint32_t *nodes;
    uint32_t n;
    /* The lexicon's word map (wordmap.h), if one is attached: the best-move
     * generator then takes words from it instead of walking the graph, with
     * the same results. NULL: graph only. Not owned; kwg_free leaves it. */
    const struct WordMap *wordmap;
} Kwg;

static inline uint32_t kwg_arc(const Kwg *k, uint32_t i) { return k->nodes[i] & KWG_ARC_MASK; }
static inline bool kwg_is_end(const Kwg *k, uint32_t i) { return (k->nodes[i] & KWG_IS_END_BIT) != 0; }
static inline bool kwg_accepts(const Kwg *k, uint32_t i) { return (k->nodes[i] & KWG_ACCEPTS_BIT) != 0; }
static inline uint8_t kwg_tile(const Kwg *k, uint32_t i) { return (uint8_t)(k->nodes[i] >> 24); }
static inline uint32_t kwg_dawg_root(const Kwg *k) { return kwg_arc(k, 0); }
static inline uint32_t kwg_gaddag_root(const Kwg *k) { return kwg_arc(k, 1); }

/* Index of the child of sibling list `list` with tile t, or 0 if none
 * (list == 0 means no children). */
static inline uint32_t kwg_find(const Kwg *k, uint32_t list, uint8_t t) {
    if (list == 0) return 0;
    for (uint32_t i = list;; i++) {
        uint8_t ti = kwg_tile(k, i);
        if (ti == t) return i;
        if (ti > t || kwg_is_end(k, i)) return 0;
    }
}

/* Validates a node array: n >= 2, every arc < n, nodes 0 and 1 are roots
 * with is_end set, every sibling list ends with is_end inside the array,
 * tiles ascend within a sibling list and are < max_tile (pass 256 to skip
 * that check). `source` names the data in messages. */
int kwg_validate(const uint32_t *nodes, uint32_t n, uint32_t max_tile,
                 const char *source, RkError *err);
/* Loads and validates a .kwg file. */
int kwg_load(Kwg *k, const char *path, uint32_t max_tile, RkError *err);
/* Takes ownership of nodes (malloc'ed) after validation. */
int kwg_from_nodes(Kwg *k, uint32_t *nodes, uint32_t n, uint32_t max_tile,
                   const char *source, RkError *err);
/* Writes the node array little-endian to path (atomically: temp, fsync,
 * rename, fsync of the directory; see atomicfile.h). */
int kwg_write(const Kwg *k, const char *path, RkError *err);
void kwg_free(Kwg *k);

/* Is ml[0..len) a word in the DAWG? */
bool kwg_has_word(const Kwg *k, const uint8_t *ml, int len);

/* Calls fn for every word of the DAWG in lexicographic ML order. Stops and
 * returns fn's value if fn returns non-zero. Depth is capped at max_len
 * (words longer than that are not reported; protects against cyclic data). */
typedef int (*KwgWordFn)(const uint8_t *ml, int len, void *ctx);
int kwg_foreach_word(const Kwg *k, int max_len, KwgWordFn fn, void *ctx);

/* Builds a KWG from words (ML strings, tiles 1..255, each of length >= 1).
 * Duplicates are allowed and ignored; order does not matter.
 * Without a GADDAG tile 0 is allowed too (the blank in .klv2 / .req leaves).
 * Fails if the graph needs more than 2^22 nodes (the arc index width).
 * If with_gaddag is false, node 1 has arc 0 (the .klv2 / .req form).
 * Equivalent suffixes are shared (the graph is minimized). */
typedef struct KwgWords {
    const uint8_t *const *words;
    const int *lens;
    size_t count;
} KwgWords;
int kwg_build(Kwg *out, const KwgWords *words, bool with_gaddag, RkError *err);

#endif
