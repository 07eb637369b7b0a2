/*
 * kwg_index.c - the word index of a DAWG (see kwg_index.h and
 * ../shared/formats.md, "Word index").
 */
#include "kwg_index.h"

#include <stdlib.h>
#include <string.h>

#define KWG_INDEX_MAX_WORDS ((uint64_t)1 << 62)

enum { WHITE = 0, GRAY = 1, BLACK = 2 };

typedef struct Stack {
    uint32_t *v;
    size_t n, cap;
} Stack;

static int push(Stack *s, uint32_t x) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint32_t *nv = realloc(s->v, cap * sizeof *nv);
        if (nv == NULL) return -1;
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

int kwg_index_init(KwgIndex *ix, const Kwg *k, RkError *err) {
    memset(ix, 0, sizeof *ix);
    if (k == NULL || k->nodes == NULL || k->n < 2)
        return rk_error(err, "kwg index: no graph");
    uint32_t n = k->n;
    uint64_t *count = calloc(n, sizeof *count);
    uint8_t *color = calloc(n, 1);
    Stack st = {0};
    int rc = 0;
    if (count == NULL || color == NULL) rc = rk_error(err, "kwg index: out of memory");
    uint32_t root = kwg_dawg_root(k);
    if (rc == 0 && root >= n) rc = rk_error(err, "kwg index: DAWG root %u out of range", root);
    if (rc == 0 && root != 0 && push(&st, root) != 0)
        rc = rk_error(err, "kwg index: out of memory");
    /* Depth-first over the dependencies arc(j) and j+1 (when not is_end);
     * a dependency still GRAY is an ancestor: the graph has a cycle. */
    while (rc == 0 && st.n > 0) {
        uint32_t j = st.v[st.n - 1];
        if (color[j] == BLACK) {
            st.n--;
            continue;
        }
        uint32_t arc = kwg_arc(k, j);
        uint32_t next = kwg_is_end(k, j) ? 0 : j + 1;
        if (next >= n) {
            rc = rk_error(err, "kwg index: sibling list at node %u runs off the array", j);
            break;
        }
        if (color[j] == WHITE) {
            color[j] = GRAY;
            uint32_t deps[2] = {arc, next};
            for (int d = 0; d < 2 && rc == 0; d++) {
                uint32_t x = deps[d];
                if (x == 0) continue;
                if (x >= n) {
                    rc = rk_error(err, "kwg index: node %u points to %u, out of range", j, x);
                } else if (color[x] == GRAY) {
                    rc = rk_error(err, "kwg index: the DAWG has a cycle through node %u", x);
                } else if (color[x] == WHITE && push(&st, x) != 0) {
                    rc = rk_error(err, "kwg index: out of memory");
                }
            }
            continue;
        }
        /* GRAY with every dependency done. */
        uint64_t c = kwg_accepts(k, j) ? 1 : 0;
        if (arc != 0) c += count[arc];
        if (next != 0) c += count[next];
        if (c > KWG_INDEX_MAX_WORDS) {
            rc = rk_error(err, "kwg index: more than 2^62 words");
            break;
        }
        count[j] = c;
        color[j] = BLACK;
        st.n--;
    }
    free(st.v);
    free(color);
    if (rc != 0) {
        free(count);
        return -1;
    }
    ix->count = count;
    ix->n = n;
    ix->words = root != 0 ? count[root] : 0;
    return 0;
}

void kwg_index_free(KwgIndex *ix) {
    if (ix == NULL) return;
    free(ix->count);
    memset(ix, 0, sizeof *ix);
}

uint64_t kwg_index_word_count(const KwgIndex *ix) { return ix ? ix->words : 0; }

/* Words through node j itself: accepts(j) + count(arc(j)). */
static uint64_t under(const Kwg *k, const KwgIndex *ix, uint32_t j) {
    uint32_t arc = kwg_arc(k, j);
    return (kwg_accepts(k, j) ? 1u : 0u) + (arc ? ix->count[arc] : 0);
}

int64_t kwg_index_of(const Kwg *k, const KwgIndex *ix, const uint8_t *ml, int len) {
    if (k == NULL || ix == NULL || ix->count == NULL || ix->n != k->n || len <= 0) return -1;
    uint64_t idx = 0;
    uint32_t list = kwg_dawg_root(k);
    for (int p = 0; p < len; p++) {
        if (list == 0) return -1;
        uint8_t t = ml[p];
        uint32_t j = list;
        for (;;) {
            uint8_t tj = kwg_tile(k, j);
            if (tj == t) break;
            if (tj > t || kwg_is_end(k, j)) return -1;
            j++;
        }
        /* the words through the siblings before j: count(list) - count(j) */
        idx += ix->count[list] - ix->count[j];
        if (p + 1 == len) return kwg_accepts(k, j) ? (int64_t)idx : -1;
        if (kwg_accepts(k, j)) idx++;
        list = kwg_arc(k, j);
    }
    return -1;
}

int kwg_index_word_at(const Kwg *k, const KwgIndex *ix, uint64_t index, uint8_t *out, int cap) {
    if (k == NULL || ix == NULL || ix->count == NULL || ix->n != k->n) return -1;
    if (index >= ix->words) return -1;
    uint32_t list = kwg_dawg_root(k);
    int len = 0;
    while (list != 0) {
        uint32_t j = list;
        for (;;) {
            uint64_t u = under(k, ix, j);
            if (index < u) break;
            index -= u;
            if (kwg_is_end(k, j)) return -1; /* inconsistent counts */
            j++;
        }
        if (len >= cap) return -1;
        out[len++] = kwg_tile(k, j);
        if (kwg_accepts(k, j)) {
            if (index == 0) return len;
            index--;
        }
        list = kwg_arc(k, j);
    }
    return -1;
}
