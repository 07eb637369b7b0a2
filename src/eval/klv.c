/*
 * klv.c - loading, building and writing .klv2 leave values (see klv.h and
 * ../shared/formats.md, "KLV2").
 */
#include "klv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

/* Refuse files larger than this: 2^22 addressable nodes plus a few million
 * values are far below it. */
#define KLV_MAX_FILE_BYTES ((uint64_t)1 << 30)
/* Longest leave stored. */
#define KLV_MAX_LEAVE (RK_RACK_SIZE - 1)

static uint32_t read_le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void write_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int32_t to_milli(float v) {
    if (!isfinite(v)) return 0;
    double d = (double)v;
    if (d > KLV_MAX_ABS_VALUE) d = KLV_MAX_ABS_VALUE;
    if (d < -KLV_MAX_ABS_VALUE) d = -KLV_MAX_ABS_VALUE;
    return (int32_t)lround(d * 1000.0);
}

static void klv_zero(Klv *k) { memset(k, 0, sizeof *k); }

void klv_free(Klv *k) {
    if (k == NULL) return;
    kwg_free(&k->kwg);
    kwg_index_free(&k->ix);
    free(k->values);
    free(k->milli);
    klv_zero(k);
}

/* Allocates values and milli for k->count entries (zeroed). */
static int alloc_values(Klv *k, const char *source, RkError *err) {
    size_t n = k->count ? k->count : 1;
    k->values = calloc(n, sizeof *k->values);
    k->milli = calloc(n, sizeof *k->milli);
    if (k->values == NULL || k->milli == NULL)
        return rk_error(err, "%s: out of memory for %u leave values", source, k->count);
    return 0;
}

/* Writes the labels of leave number i (e.g. "?EQ") to buf, or "#i". */
static void leave_name(const Klv *k, const LetterDist *ld, uint32_t i, char *buf, size_t cap) {
    uint8_t w[32];
    int len = kwg_index_word_at(&k->kwg, &k->ix, i, w, (int)sizeof w);
    if (len <= 0) {
        snprintf(buf, cap, "#%u", i);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < len && used + 1 < cap; j++) {
        if (w[j] >= ld->size) break;
        used += (size_t)ld_tile_label(ld, w[j], buf + used, cap - used);
        if (used >= cap) used = cap - 1;
    }
}

int klv_load_bytes(Klv *k, const uint8_t *data, size_t size, const LetterDist *ld, const char *source,
                   RkError *err) {
    klv_zero(k);
    if (source == NULL) source = "klv2";
    if (size < 4)
        return rk_error(err, "%s: truncated: %zu bytes, too short for the node count", source, size);
    uint32_t n = read_le32(data);
    if (n < 2)
        return rk_error(err, "%s: node count N = %u; the leave graph needs at least 2 nodes", source, n);
    if ((uint64_t)n > (uint64_t)KWG_ARC_MASK + 1)
        return rk_error(err, "%s: node count N = %u is more than a KWG can address (%u)", source, n,
                        KWG_ARC_MASK + 1);
    uint64_t header = 4 + 4 * (uint64_t)n + 4; /* through L */
    if ((uint64_t)size < header)
        return rk_error(err, "%s: truncated: %zu bytes, expected at least %llu for %u nodes and the value "
                             "count",
                        source, size, (unsigned long long)header, n);
    uint32_t nvals = read_le32(data + 4 + 4 * (size_t)n);
    uint64_t expected = header + 4 * (uint64_t)nvals;
    if ((uint64_t)size < expected)
        return rk_error(err, "%s: truncated: %zu bytes, expected %llu (%u nodes, %u values)", source, size,
                        (unsigned long long)expected, n, nvals);
    if ((uint64_t)size > expected)
        return rk_error(err, "%s: %zu bytes, expected %llu (%u nodes, %u values): trailing data", source,
                        size, (unsigned long long)expected, n, nvals);

    uint32_t *nodes = malloc((size_t)n * sizeof *nodes);
    if (nodes == NULL) return rk_error(err, "%s: out of memory for %u nodes", source, n);
    for (uint32_t i = 0; i < n; i++) nodes[i] = read_le32(data + 4 + 4 * (size_t)i);
    if (kwg_from_nodes(&k->kwg, nodes, n, (uint32_t)ld->size, source, err) != 0) {
        free(nodes);
        return -1;
    }
    if (kwg_gaddag_root(&k->kwg) != 0) {
        int rc = rk_error(err, "%s: node 1 has arc %u; a .klv2 graph is a DAWG only (node 1 arc 0)", source,
                          kwg_gaddag_root(&k->kwg));
        klv_free(k);
        return rc;
    }
    RkError ie;
    if (kwg_index_init(&k->ix, &k->kwg, &ie) != 0) {
        int rc = rk_error(err, "%s: %s", source, ie.msg);
        klv_free(k);
        return rc;
    }
    uint64_t words = kwg_index_word_count(&k->ix);
    if (words != nvals) {
        int rc = rk_error(err, "%s: L = %u values, but the graph holds %llu leaves", source, nvals,
                          (unsigned long long)words);
        klv_free(k);
        return rc;
    }
    k->count = nvals;
    if (alloc_values(k, source, err) != 0) {
        klv_free(k);
        return -1;
    }
    const uint8_t *p = data + header;
    for (uint32_t i = 0; i < nvals; i++) {
        uint32_t bits = read_le32(p + 4 * (size_t)i);
        float v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v) || fabs((double)v) > KLV_MAX_ABS_VALUE) {
            char name[64];
            leave_name(k, ld, i, name, sizeof name);
            int rc = rk_error(err, "%s: value %u (leave %s) is %s", source, i, name,
                              isnan(v) ? "NaN" : isinf(v) ? "infinite" : "out of range");
            klv_free(k);
            return rc;
        }
        k->values[i] = v;
        k->milli[i] = to_milli(v);
    }
    return 0;
}

int klv_load(Klv *k, const char *path, const LetterDist *ld, RkError *err) {
    klv_zero(k);
    size_t size;
    uint8_t *data = rk_read_regular_file(path, KLV_MAX_FILE_BYTES, "a .klv2 file", &size, err);
    if (data == NULL) return -1;
    int rc = klv_load_bytes(k, data, size, ld, path, err);
    free(data);
    return rc;
}

/* ---------------------------------------------------------------- zero */

typedef struct LeaveSet {
    const LetterDist *ld;
    uint8_t *tiles; /* KLV_MAX_LEAVE bytes per leave */
    int *lens;
    size_t n, cap;
    uint8_t cur[KLV_MAX_LEAVE];
    int used[RK_MAX_LETTERS];
} LeaveSet;

static int leaves_push(LeaveSet *s, int len) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        uint8_t *t = realloc(s->tiles, cap * KLV_MAX_LEAVE);
        if (t == NULL) return -1;
        s->tiles = t;
        int *l = realloc(s->lens, cap * sizeof *l);
        if (l == NULL) return -1;
        s->lens = l;
        s->cap = cap;
    }
    memcpy(s->tiles + s->n * KLV_MAX_LEAVE, s->cur, (size_t)len);
    s->lens[s->n++] = len;
    return 0;
}

/* Extends the leave cur[0..len) with tiles >= from (sorted, so each multiset
 * once), pushing every leave of 1..KLV_MAX_LEAVE tiles. */
static int leaves_extend(LeaveSet *s, int from, int len) {
    if (len == KLV_MAX_LEAVE) return 0;
    for (int ml = from; ml < s->ld->size; ml++) {
        if (s->used[ml] >= s->ld->count[ml]) continue;
        s->cur[len] = (uint8_t)ml;
        s->used[ml]++;
        int rc = leaves_push(s, len + 1);
        if (rc == 0) rc = leaves_extend(s, ml, len + 1);
        s->used[ml]--;
        if (rc != 0) return rc;
    }
    return 0;
}

int klv_init_zero(Klv *k, const LetterDist *ld, RkError *err) {
    klv_zero(k);
    if (ld->size < 1 || ld->size > RK_MAX_LETTERS)
        return rk_error(err, "klv zero: distribution %s has %d letters", ld->name, ld->size);
    LeaveSet s;
    memset(&s, 0, sizeof s);
    s.ld = ld;
    int rc = leaves_extend(&s, 0, 0);
    const uint8_t **ptrs = NULL;
    if (rc == 0) {
        ptrs = malloc((s.n ? s.n : 1) * sizeof *ptrs);
        if (ptrs == NULL) rc = -1;
    }
    if (rc != 0) {
        free(s.tiles);
        free(s.lens);
        return rk_error(err, "klv zero: out of memory listing the leaves of %s", ld->name);
    }
    for (size_t i = 0; i < s.n; i++) ptrs[i] = s.tiles + i * KLV_MAX_LEAVE;
    KwgWords words = {.words = ptrs, .lens = s.lens, .count = s.n};
    rc = kwg_build(&k->kwg, &words, false, err);
    free(ptrs);
    free(s.tiles);
    free(s.lens);
    if (rc != 0) {
        klv_zero(k);
        return -1;
    }
    if (kwg_index_init(&k->ix, &k->kwg, err) != 0) {
        klv_free(k);
        return -1;
    }
    uint64_t nwords = kwg_index_word_count(&k->ix);
    if (nwords != s.n || nwords > UINT32_MAX) {
        klv_free(k);
        return rk_error(err, "klv zero: built %llu leaves, expected %zu", (unsigned long long)nwords, s.n);
    }
    k->count = (uint32_t)nwords;
    if (alloc_values(k, "klv zero", err) != 0) {
        klv_free(k);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- write */

int klv_write(const Klv *k, const char *path, RkError *err) {
    if (k->kwg.nodes == NULL || k->kwg.n < 2)
        return rk_error(err, "%s: no leave graph to write", path);
    if (kwg_gaddag_root(&k->kwg) != 0)
        return rk_error(err, "%s: the leave graph has a GADDAG (node 1 arc %u); a .klv2 holds a DAWG only",
                        path, kwg_gaddag_root(&k->kwg));
    RkAtomicFile af;
    if (rk_atomic_open(&af, path, err) != 0) return -1;
    enum { CHUNK = 4096 };
    uint8_t buf[4 * CHUNK];
    /* u32 N, the nodes, u32 L, the values: one stream of u32 words. */
    uint64_t total = 2 + (uint64_t)k->kwg.n + k->count, done = 0;
    while (done < total) {
        size_t m = 0;
        for (; m < CHUNK && done < total; m++, done++) {
            uint32_t v;
            if (done == 0) {
                v = k->kwg.n;
            } else if (done <= k->kwg.n) {
                v = k->kwg.nodes[done - 1];
            } else if (done == (uint64_t)k->kwg.n + 1) {
                v = k->count;
            } else {
                memcpy(&v, &k->values[done - k->kwg.n - 2], sizeof v);
            }
            write_le32(buf + 4 * m, v);
        }
        if (rk_atomic_write(&af, buf, 4 * m) != 0) break;
    }
    return rk_atomic_commit(&af, err);
}

/* ---------------------------------------------------------------- lookup */

int64_t klv_index(const Klv *k, const Rack *leave) {
    if (k == NULL || leave == NULL || k->kwg.nodes == NULL || leave->total <= 0 || leave->total > RK_RACK_SIZE)
        return -1;
    uint8_t s[RK_RACK_SIZE];
    int n = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS && n < leave->total; ml++) {
        for (int c = 0; c < leave->count[ml]; c++) {
            if (n == RK_RACK_SIZE) return -1;
            s[n++] = (uint8_t)ml;
        }
    }
    if (n != leave->total) return -1;
    int64_t idx = kwg_index_of(&k->kwg, &k->ix, s, n);
    if (idx < 0 || (uint64_t)idx >= k->count) return -1;
    return idx;
}

int32_t klv_leave_value(const void *klv, const Rack *leave) {
    const Klv *k = klv;
    int64_t idx = klv_index(k, leave);
    return idx < 0 ? 0 : k->milli[idx];
}

/* The sub-racks that keep k_j >= 1 copies of letter li and any of the
 * letters after it, below node list `list` whose index so far is idx (see
 * kwg_index_of): a depth-first walk in the word index's own order. */
typedef struct TableWalk {
    const Klv *k;
    int letters[RK_RACK_SIZE], counts[RK_RACK_SIZE], strides[RK_RACK_SIZE], nl;
    int32_t *out;
} TableWalk;

static void table_walk(const TableWalk *w, int from, uint32_t list, uint64_t idx, int oi) {
    const Kwg *g = &w->k->kwg;
    const uint64_t *count = w->k->ix.count;
    for (int li = from; li < w->nl && list != 0; li++) {
        uint8_t t = (uint8_t)w->letters[li];
        uint32_t l = list;
        uint64_t x = idx;
        for (int c = 1; c <= w->counts[li] && l != 0; c++) {
            uint32_t j = l;
            for (;;) {
                uint8_t tj = kwg_tile(g, j);
                if (tj == t) break;
                if (tj > t || kwg_is_end(g, j)) {
                    j = 0;
                    break;
                }
                j++;
            }
            if (j == 0) break;
            x += count[l] - count[j];
            int o = oi + c * w->strides[li];
            bool acc = kwg_accepts(g, j);
            if (acc && x < w->k->count) w->out[o] = w->k->milli[x];
            uint64_t next = x + (acc ? 1 : 0);
            table_walk(w, li + 1, kwg_arc(g, j), next, o);
            l = kwg_arc(g, j);
            x = next;
        }
    }
}

void klv_leave_table(const void *klv, const Rack *rack, int32_t *out) {
    const Klv *k = klv;
    TableWalk w = {.k = k, .nl = 0, .out = out};
    int n = 1;
    for (int ml = 0; ml < RK_MAX_LETTERS && w.nl < RK_RACK_SIZE; ml++) {
        if (rack->count[ml] == 0) continue;
        w.letters[w.nl] = ml;
        w.counts[w.nl] = rack->count[ml];
        w.strides[w.nl++] = n;
        n *= rack->count[ml] + 1;
    }
    for (int i = 0; i < n; i++) out[i] = 0;
    if (k == NULL || k->kwg.nodes == NULL || k->ix.count == NULL) return;
    table_walk(&w, 0, kwg_dawg_root(&k->kwg), 0, 0);
}

LeaveTableFn klv_table_for(LeaveValueFn fn) { return fn == klv_leave_value ? klv_leave_table : NULL; }

void klv_set_values(Klv *k, const float *v) {
    for (uint32_t i = 0; i < k->count; i++) {
        float x = v[i];
        if (!isfinite(x)) x = 0.0f;
        if (x > (float)KLV_MAX_ABS_VALUE) x = (float)KLV_MAX_ABS_VALUE;
        if (x < (float)-KLV_MAX_ABS_VALUE) x = (float)-KLV_MAX_ABS_VALUE;
        k->values[i] = x;
        k->milli[i] = to_milli(x);
    }
}
