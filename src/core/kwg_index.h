/*
 * kwg_index.h - the word index of a DAWG (../shared/formats.md, "Word
 * index"): words are numbered 0..count-1 in lexicographic ML order, a prefix
 * before its extensions. KLV2 and REQ store their values in this order.
 *
 * For each node j reachable from the DAWG root,
 *   count(j) = accepts(j) + count(arc(j)) + (is_end(j) ? 0 : count(j+1))
 * (the words at or after j in its sibling list); under(j) = count(j) minus
 * the next sibling's count (the words through node j itself).
 */
#ifndef ROOKERY_KWG_INDEX_H
#define ROOKERY_KWG_INDEX_H

#include "kwg.h"

typedef struct KwgIndex {
    uint64_t *count; /* per node, k->n entries; 0 for nodes not reachable */
    uint32_t n;      /* nodes in the graph it was built for */
    uint64_t words;  /* words in the DAWG */
} KwgIndex;

/* Computes the counts (iteratively). Fails with an error on a cyclic DAWG
 * or one whose word count does not fit in 62 bits. */
int kwg_index_init(KwgIndex *ix, const Kwg *k, RkError *err);
void kwg_index_free(KwgIndex *ix);

/* The index of the word ml[0..len), or -1 if it is not in the DAWG. */
int64_t kwg_index_of(const Kwg *k, const KwgIndex *ix, const uint8_t *ml, int len);
/* The number of words in the DAWG. */
uint64_t kwg_index_word_count(const KwgIndex *ix);
/* Writes the word with this index to out (at most cap tiles); returns its
 * length, or -1 if index >= word count or the word is longer than cap. */
int kwg_index_word_at(const Kwg *k, const KwgIndex *ix, uint64_t index, uint8_t *out, int cap);

#endif
