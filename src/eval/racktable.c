/*
 * racktable.c - the numbered set of full racks (see racktable.h).
 *
 * Order. Two sorted strings of the same length compare at their first
 * difference; in count-vector terms that is the first ML l where the counts
 * differ, and the rack with MORE copies of l is the smaller one (it has l
 * where the other has a later letter). So, walking the letters in ML order
 * with r tiles still to place, the racks that agree so far and hold x > c
 * copies of l all come before a rack holding c copies:
 *
 *   index(c) = sum over l of  sum_{x = c[l]+1}^{min(limit[l], r_l)} fill[l+1][r_l - x]
 *
 * where r_l = rack_size - (tiles of letters < l) and fill[m][r] counts the
 * multisets of r tiles from letters m.. within the limits. The inner sums
 * are tabulated in `before`, so an index is at most num_letters additions,
 * and stops as soon as the whole rack is placed.
 *
 * The graph: the racks are generated in this order (largest count of each
 * letter first) straight into one buffer, which is already sorted, and
 * handed to kwg_build (DAWG only).
 */
#include "racktable.h"

#include <stdlib.h>
#include <string.h>

static size_t fill_at(const RackTable *rt, int ml, int r) {
    return (size_t)ml * (size_t)(rt->rack_size + 1) + (size_t)r;
}

static size_t before_at(const RackTable *rt, int ml, int r, int c) {
    return fill_at(rt, ml, r) * (size_t)(rt->rack_size + 1) + (size_t)c;
}

typedef struct Gen {
    const RackTable *rt;
    uint8_t *buf; /* num_racks * rack_size tiles */
    uint64_t next; /* racks written */
    uint8_t cur[RK_RACK_SIZE];
} Gen;

/* Places the remaining `rem` tiles from letters ml.., `at` tiles placed. */
static void gen_racks(Gen *g, int ml, int rem, int at) {
    const RackTable *rt = g->rt;
    if (rem == 0) {
        memcpy(g->buf + g->next * (uint64_t)rt->rack_size, g->cur, (size_t)rt->rack_size);
        g->next++;
        return;
    }
    if (ml >= rt->num_letters) return;
    int hi = rt->limit[ml] < rem ? rt->limit[ml] : rem;
    for (int x = hi; x >= 0; x--) {
        if (rt->fill[fill_at(rt, ml + 1, rem - x)] == 0) continue;
        for (int i = 0; i < x; i++)
            g->cur[at + i] = (uint8_t)ml;
        gen_racks(g, ml + 1, rem - x, at + x);
    }
}

int racktable_build(RackTable *rt, const LetterDist *ld, int rack_size, RkError *err) {
    memset(rt, 0, sizeof *rt);
    if (rack_size < 1 || rack_size > RK_RACK_SIZE)
        return rk_error(err, "rack table: rack size %d is not in 1..%d", rack_size, RK_RACK_SIZE);
    if (ld->size < 1 || ld->size > RK_MAX_LETTERS)
        return rk_error(err, "rack table: distribution %s has %d letters", ld->name, ld->size);
    rt->num_letters = ld->size;
    rt->rack_size = rack_size;
    for (int ml = 0; ml < ld->size; ml++) {
        if (ld->count[ml] < 0 || ld->count[ml] > 255)
            return rk_error(err, "rack table: distribution %s has count %d for tile %d", ld->name,
                            ld->count[ml], ml);
        rt->dist[ml] = ld->count[ml];
        rt->limit[ml] = (uint8_t)(ld->count[ml] < rack_size ? ld->count[ml] : rack_size);
    }
    int nl = rt->num_letters, w = rack_size + 1;
    rt->fill = calloc((size_t)(nl + 1) * (size_t)w, sizeof *rt->fill);
    rt->before = calloc((size_t)nl * (size_t)w * (size_t)w, sizeof *rt->before);
    if (rt->fill == NULL || rt->before == NULL) {
        racktable_free(rt);
        return rk_error(err, "rack table: out of memory");
    }
    rt->fill[fill_at(rt, nl, 0)] = 1;
    for (int ml = nl - 1; ml >= 0; ml--) {
        for (int r = 0; r <= rack_size; r++) {
            int hi = rt->limit[ml] < r ? rt->limit[ml] : r;
            uint64_t total = 0;
            for (int c = rack_size; c >= 0; c--) {
                rt->before[before_at(rt, ml, r, c)] = total; /* x > c */
                if (c <= hi) total += rt->fill[fill_at(rt, ml + 1, r - c)];
            }
            rt->fill[fill_at(rt, ml, r)] = total;
        }
    }
    rt->num_racks = rt->fill[fill_at(rt, 0, rack_size)];
    if (rt->num_racks == 0) {
        racktable_free(rt);
        return rk_error(err, "rack table: distribution %s has fewer than %d tiles", ld->name,
                        rack_size);
    }
    /* 2^22 arc indexes bound the graph anyway; this keeps the buffer sane. */
    if (rt->num_racks > ((uint64_t)1 << 32)) {
        uint64_t n = rt->num_racks;
        racktable_free(rt);
        return rk_error(err, "rack table: distribution %s has %llu racks, too many", ld->name,
                        (unsigned long long)n);
    }

    size_t n = (size_t)rt->num_racks;
    Gen g = {.rt = rt, .next = 0};
    g.buf = malloc(n * (size_t)rack_size);
    const uint8_t **ptrs = malloc(n * sizeof *ptrs);
    int *lens = malloc(n * sizeof *lens);
    int rc = 0;
    if (g.buf == NULL || ptrs == NULL || lens == NULL) {
        rc = rk_error(err, "rack table: out of memory for %zu racks", n);
    } else {
        gen_racks(&g, 0, rack_size, 0);
        if (g.next != rt->num_racks) {
            rc = rk_error(err, "rack table: generated %llu racks, expected %llu",
                          (unsigned long long)g.next, (unsigned long long)rt->num_racks);
        }
    }
    if (rc == 0) {
        for (size_t i = 0; i < n; i++) {
            ptrs[i] = g.buf + i * (size_t)rack_size;
            lens[i] = rack_size;
        }
        KwgWords words = {.words = ptrs, .lens = lens, .count = n};
        rc = kwg_build(&rt->kwg, &words, false, err);
    }
    free(g.buf);
    free(ptrs);
    free(lens);
    if (rc == 0) rc = kwg_index_init(&rt->ix, &rt->kwg, err);
    if (rc == 0 && kwg_index_word_count(&rt->ix) != rt->num_racks)
        rc = rk_error(err, "rack table: the rack graph holds %llu words, expected %llu",
                      (unsigned long long)kwg_index_word_count(&rt->ix),
                      (unsigned long long)rt->num_racks);
    if (rc != 0) {
        racktable_free(rt);
        return -1;
    }
    return 0;
}

void racktable_free(RackTable *rt) {
    if (rt == NULL) return;
    kwg_index_free(&rt->ix);
    kwg_free(&rt->kwg);
    free(rt->fill);
    free(rt->before);
    memset(rt, 0, sizeof *rt);
}

int64_t racktable_index(const RackTable *rt, const Rack *r) {
    if (rt == NULL || rt->fill == NULL || r == NULL) return -1;
    int total = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) {
        if (r->count[ml] == 0) continue;
        if (ml >= rt->num_letters || r->count[ml] > rt->limit[ml]) return -1;
        total += r->count[ml];
    }
    if (total != rt->rack_size) return -1;
    uint64_t idx = 0;
    int rem = rt->rack_size;
    for (int ml = 0; ml < rt->num_letters && rem > 0; ml++) {
        int c = r->count[ml];
        idx += rt->before[before_at(rt, ml, rem, c)];
        rem -= c;
    }
    return (int64_t)idx;
}

int racktable_rack_at(const RackTable *rt, uint64_t idx, Rack *out) {
    rack_clear(out);
    if (rt == NULL || rt->fill == NULL || idx >= rt->num_racks) return -1;
    int rem = rt->rack_size;
    for (int ml = 0; ml < rt->num_letters && rem > 0; ml++) {
        int hi = rt->limit[ml] < rem ? rt->limit[ml] : rem;
        for (int x = hi; x >= 0; x--) {
            uint64_t b = rt->fill[fill_at(rt, ml + 1, rem - x)];
            if (idx < b) {
                out->count[ml] = (uint8_t)x;
                out->total += x;
                rem -= x;
                break;
            }
            idx -= b;
        }
    }
    if (rem != 0) { /* cannot happen with consistent tables */
        rack_clear(out);
        return -1;
    }
    return 0;
}

void racktable_full_bag(const RackTable *rt, Rack *out) {
    rack_clear(out);
    for (int ml = 0; ml < rt->num_letters; ml++) {
        out->count[ml] = (uint8_t)rt->dist[ml];
        out->total += rt->dist[ml];
    }
}
