/*
 * kwg.c - loading, validating, writing and walking .kwg lexicon graphs
 * (format in ../shared/formats.md, section KWG). The builder is in
 * kwg_build.c, the word index in kwg_index.c.
 */
#include "kwg.h"

#include "atomicfile.h"
#include "textfile.h"

#include <stdlib.h>
#include <string.h>

/* Files larger than this are refused: 2^22 addressable nodes are 16 MiB, so
 * this leaves room for any layout that can still be addressed. */
#define KWG_MAX_FILE_BYTES ((uint64_t)1 << 30)

int kwg_validate(const uint32_t *nodes, uint32_t n, uint32_t max_tile,
                 const char *source, RkError *err) {
    if (source == NULL) source = "kwg";
    if (nodes == NULL || n < 2)
        return rk_error(err, "%s: %u nodes; a lexicon graph needs at least 2", source, n);
    if (!(nodes[0] & KWG_IS_END_BIT) || !(nodes[1] & KWG_IS_END_BIT))
        return rk_error(err, "%s: root node %d does not have is_end set", source,
                        (nodes[0] & KWG_IS_END_BIT) ? 1 : 0);
    if (!(nodes[n - 1] & KWG_IS_END_BIT))
        return rk_error(err, "%s: the last node (%u) does not have is_end set; its sibling list "
                             "runs off the array", source, n - 1);
    bool list_start = true; /* node i begins a run of siblings */
    uint32_t prev_tile = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = nodes[i];
        uint32_t arc = v & KWG_ARC_MASK;
        uint32_t tile = v >> 24;
        if (arc >= n)
            return rk_error(err, "%s: node %u has arc index %u, beyond the %u nodes", source, i,
                            arc, n);
        if (max_tile != 256 && tile >= max_tile)
            return rk_error(err, "%s: node %u has tile %u, but the distribution has only %u",
                            source, i, tile, max_tile);
        if (!list_start && tile <= prev_tile)
            return rk_error(err, "%s: node %u: tile %u does not ascend after tile %u in its "
                                 "sibling list", source, i, tile, prev_tile);
        prev_tile = tile;
        list_start = (v & KWG_IS_END_BIT) != 0;
    }
    return 0;
}

int kwg_from_nodes(Kwg *k, uint32_t *nodes, uint32_t n, uint32_t max_tile,
                   const char *source, RkError *err) {
    k->nodes = NULL;
    k->n = 0;
    k->wordmap = NULL;
    if (kwg_validate(nodes, n, max_tile, source, err) != 0) return -1;
    k->nodes = nodes;
    k->n = n;
    return 0;
}

static uint32_t read_le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void write_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

int kwg_load(Kwg *k, const char *path, uint32_t max_tile, RkError *err) {
    k->nodes = NULL;
    k->n = 0;
    k->wordmap = NULL;
    size_t size;
    uint32_t *nodes = rk_read_regular_file(path, KWG_MAX_FILE_BYTES, "a lexicon graph", &size, err);
    if (nodes == NULL) return -1;
    if (size == 0 || size % 4 != 0) {
        free(nodes);
        if (size == 0)
            return rk_error(err, "%s: empty file (a .kwg holds at least 2 nodes of 4 bytes)", path);
        return rk_error(err, "%s: size %llu is not a multiple of 4", path, (unsigned long long)size);
    }
    /* From little-endian, in place. */
    uint32_t n = (uint32_t)(size / 4);
    for (uint32_t i = 0; i < n; i++) nodes[i] = read_le32((const unsigned char *)(nodes + i));
    if (kwg_from_nodes(k, nodes, n, max_tile, path, err) != 0) {
        free(nodes);
        return -1;
    }
    return 0;
}

int kwg_write(const Kwg *k, const char *path, RkError *err) {
    RkAtomicFile af;
    if (rk_atomic_open(&af, path, err) != 0) return -1;
    unsigned char chunk[1 << 14];
    uint32_t done = 0;
    while (done < k->n) {
        uint32_t m = k->n - done;
        if (m > sizeof chunk / 4) m = sizeof chunk / 4;
        for (uint32_t i = 0; i < m; i++) write_le32(chunk + 4 * i, k->nodes[done + i]);
        if (rk_atomic_write(&af, chunk, (size_t)m * 4) != 0) break;
        done += m;
    }
    return rk_atomic_commit(&af, err);
}

void kwg_free(Kwg *k) {
    if (k == NULL) return;
    free(k->nodes);
    k->nodes = NULL;
    k->n = 0;
    k->wordmap = NULL;
}

bool kwg_has_word(const Kwg *k, const uint8_t *ml, int len) {
    if (k == NULL || k->n < 2 || len <= 0) return false;
    uint32_t list = kwg_dawg_root(k);
    uint32_t node = 0;
    for (int i = 0; i < len; i++) {
        node = kwg_find(k, list, ml[i]);
        if (node == 0) return false;
        list = kwg_arc(k, node);
        if (i + 1 < len && list == 0) return false;
    }
    return kwg_accepts(k, node);
}

int kwg_foreach_word(const Kwg *k, int max_len, KwgWordFn fn, void *ctx) {
    if (k == NULL || k->n < 2 || max_len <= 0) return 0;
    uint32_t root = kwg_dawg_root(k);
    if (root == 0 || root >= k->n) return 0;
    uint8_t *word = malloc((size_t)max_len);
    uint32_t *stack = malloc((size_t)max_len * sizeof *stack);
    if (word == NULL || stack == NULL) {
        free(word);
        free(stack);
        return -1;
    }
    int rc = 0;
    int depth = 0;
    stack[0] = root;
    while (depth >= 0) {
        uint32_t i = stack[depth];
        word[depth] = kwg_tile(k, i);
        if (kwg_accepts(k, i)) {
            rc = fn(word, depth + 1, ctx);
            if (rc != 0) break;
        }
        uint32_t a = kwg_arc(k, i);
        if (a != 0 && a < k->n && depth + 1 < max_len) {
            stack[++depth] = a;
            continue;
        }
        /* Next sibling, climbing while the current list is exhausted. Every
         * list ends with is_end inside the array (validated), and the guard
         * on j + 1 keeps unvalidated data in bounds. */
        while (depth >= 0) {
            uint32_t j = stack[depth];
            if (!kwg_is_end(k, j) && j + 1 < k->n) {
                stack[depth] = j + 1;
                break;
            }
            depth--;
        }
    }
    free(word);
    free(stack);
    return rc;
}
