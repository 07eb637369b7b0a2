/*
 * derive.c - rack-equity accumulators and leave derivation (see derive.h).
 *
 * Method. The racks are visited once, in index order, by generating them in
 * sorted order (the same recursion as racktable.c); a subtree of racks that
 * needs more copies of a letter than the bag holds is skipped whole. For
 * each observed drawable rack R with mean m, every distinct sub-multiset L
 * of R (at most 2^7 of them) gets sum += W * m and weight += W in its slot.
 * W is the product of per-letter factors C(B[ml] - c, R[ml] - c) for c
 * kept copies (tabulated per call), and L's internal number is the sum of
 * per-letter terms of LeaveDeriver.term. Both are built up along the rack
 * recursion: each level that places x copies of a letter extends the list
 * of partial sub-leaves (weight, number, tiles) of the letters so far by
 * c = 0..x copies, so the lists are shared by every rack below that level,
 * and the level that completes a rack only multiplies in its last factor
 * and adds into the slots. The empty leave (number 0) receives
 * W(R, {}, B) = prod C(B, R): its slot is the baseline. The whole rack (all
 * tiles kept) is not a leave and is skipped. Each slot receives its terms
 * in rack-index order, so the sums do not depend on anything but the
 * inputs.
 *
 * Shrinkage (k > 0, or n_eff asked for) adds a third slot per leave,
 * sum W^2/count (with k = 0 the slots and the loop are the plain formula's
 * own: the same bytes, the same speed). Then one pass over the leaves in
 * internal-number order values each from its slots and its sub-leaves,
 * which have smaller numbers (see Shrink below), so they are done.
 *
 * Internal leave numbering: leaves as count vectors (c_0, c_1, ...) in
 * lexicographic order, the empty leave first. With upto[m][r] = the number
 * of multisets of at most r tiles from letters m.. (within the limits),
 * the leaves before c are
 *   sum over l of  sum_{x < c_l} upto[l+1][S - s_l - x]
 * (S = max_leave, s_l = tiles of letters < l), one term per letter held.
 * At init every word of the leave graph is given its internal number, which
 * gives the map to word indexes used when writing the output.
 */
#include "derive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kwg_index.h"

/* ------------------------------------------------------------ accumulators */

int rack_accum_init(RackAccum *a, uint64_t n, RkError *err) {
    memset(a, 0, sizeof *a);
    if (n == 0 || n > ((uint64_t)1 << 40))
        return rk_error(err, "rack accumulators: bad size %llu", (unsigned long long)n);
    a->count = calloc((size_t)n, sizeof *a->count);
    a->sum_mp = calloc((size_t)n, sizeof *a->sum_mp);
    if (a->count == NULL || a->sum_mp == NULL) {
        rack_accum_free(a);
        return rk_error(err, "rack accumulators: out of memory for %llu racks",
                        (unsigned long long)n);
    }
    a->n = n;
    return 0;
}

void rack_accum_init_in(RackAccum *a, uint64_t n, int64_t *storage) {
    memset(storage, 0, 2 * (size_t)n * sizeof *storage);
    a->n = n;
    a->count = storage;
    a->sum_mp = storage + n;
    a->borrowed = true;
}

void rack_accum_free(RackAccum *a) {
    if (a == NULL) return;
    if (!a->borrowed) {
        free(a->count);
        free(a->sum_mp);
    }
    memset(a, 0, sizeof *a);
}

int rack_accum_merge(RackAccum *dst, const RackAccum *src, RkError *err) {
    if (dst->n != src->n)
        return rk_error(err, "rack accumulators: cannot merge %llu racks into %llu",
                        (unsigned long long)src->n, (unsigned long long)dst->n);
    for (uint64_t i = 0; i < dst->n; i++) {
        dst->count[i] += src->count[i];
        dst->sum_mp[i] += src->sum_mp[i];
    }
    return 0;
}

double rack_accum_mean(const RackAccum *a, uint64_t idx) {
    if (idx >= a->n || a->count[idx] <= 0) return 0.0;
    return (double)a->sum_mp[idx] / (double)a->count[idx] / 1000.0;
}

/* ----------------------------------------------------------- the deriver */

/* Row width of the term table and of the weight factors: c and s in
 * 0..rack_size. */
static size_t term_at(const LeaveDeriver *d, int ml, int s, int c) {
    size_t w = (size_t)d->rt->rack_size + 1;
    return ((size_t)ml * w + (size_t)s) * w + (size_t)c;
}

typedef struct MapCtx {
    LeaveDeriver *d;
    uint64_t next; /* word index of the next word */
    int bad; /* 1: not a leave, 2: duplicate */
    uint64_t bad_index;
} MapCtx;

static int map_word(const uint8_t *ml, int len, void *vctx) {
    MapCtx *m = vctx;
    LeaveDeriver *d = m->d;
    const RackTable *rt = d->rt;
    uint64_t word = m->next++;
    if (len < 1 || len > d->max_leave) goto not_leave;
    uint32_t num = 0;
    int s = 0;
    for (int i = 0; i < len;) {
        uint8_t l = ml[i];
        if (l >= rt->num_letters || (i > 0 && l <= ml[i - 1])) goto not_leave;
        int c = 0;
        while (i < len && ml[i] == l) {
            c++;
            i++;
        }
        if (c > rt->limit[l]) goto not_leave;
        num += d->term[term_at(d, l, s, c)];
        s += c;
    }
    if (num == 0 || num > d->num_leaves) goto not_leave;
    if (d->to_word[num] != UINT32_MAX) {
        m->bad = 2;
        m->bad_index = word;
        return 1;
    }
    d->to_word[num] = (uint32_t)word;
    return 0;
not_leave:
    m->bad = 1;
    m->bad_index = word;
    return 1;
}

/* The numbering of the leaves of 1..S tiles whose letter ml holds at most
 * limit[ml] copies (see the top of this file): term[] (nl * (S+2)^2
 * entries, zeroed by the caller) and the number of leaves. */
static int build_terms(const int *limit, int nl, int S, uint32_t *term, uint64_t *num_leaves, RkError *err) {
    size_t w = (size_t)S + 2; /* = rack_size + 1 */
    /* upto[m][r], m = 0..nl, r = 0..S: multisets of <= r tiles from m.. */
    uint64_t *exact = calloc((size_t)(nl + 1) * w, sizeof *exact);
    uint64_t *upto = calloc((size_t)(nl + 1) * w, sizeof *upto);
    if (exact == NULL || upto == NULL) {
        free(exact);
        free(upto);
        return rk_error(err, "leave deriver: out of memory");
    }
    exact[(size_t)nl * w + 0] = 1;
    for (int ml = nl; ml >= 0; ml--) {
        int lim = ml < nl ? (limit[ml] < S ? limit[ml] : S) : 0;
        for (int r = 0; r <= S; r++) {
            if (ml < nl) {
                uint64_t e = 0;
                for (int x = 0; x <= lim && x <= r; x++)
                    e += exact[(size_t)(ml + 1) * w + (size_t)(r - x)];
                exact[(size_t)ml * w + (size_t)r] = e;
            }
            upto[(size_t)ml * w + (size_t)r] = exact[(size_t)ml * w + (size_t)r] +
                                               (r > 0 ? upto[(size_t)ml * w + (size_t)(r - 1)] : 0);
        }
    }
    uint64_t total = upto[S]; /* row 0, r = S: with the empty leave */
    if (total - 1 >= UINT32_MAX) {
        free(exact);
        free(upto);
        return rk_error(err, "leave deriver: %llu leaves, too many", (unsigned long long)(total - 1));
    }
    *num_leaves = total - 1;
    for (int ml = 0; ml < nl; ml++) {
        int lim = limit[ml] < S ? limit[ml] : S;
        for (int s = 0; s <= S; s++) {
            uint64_t t = 0;
            for (int c = 0; c <= lim && s + c <= S; c++) {
                term[((size_t)ml * w + (size_t)s) * w + (size_t)c] = (uint32_t)t;
                t += upto[(size_t)(ml + 1) * w + (size_t)(S - s - c)];
            }
        }
    }
    free(exact);
    free(upto);
    return 0;
}

int leave_deriver_init(LeaveDeriver *d, const RackTable *rt, const Kwg *leave_kwg, RkError *err) {
    memset(d, 0, sizeof *d);
    if (rt == NULL || rt->fill == NULL) return rk_error(err, "leave deriver: no rack table");
    if (rt->rack_size < 2)
        return rk_error(err, "leave deriver: racks of %d tile have no leaves", rt->rack_size);
    d->rt = rt;
    d->max_leave = rt->rack_size - 1;
    int nl = rt->num_letters, S = d->max_leave;
    d->term = calloc((size_t)nl * ((size_t)rt->rack_size + 1) * ((size_t)rt->rack_size + 1), sizeof *d->term);
    if (d->term == NULL) {
        leave_deriver_free(d);
        return rk_error(err, "leave deriver: out of memory");
    }
    int limit[RK_MAX_LETTERS];
    for (int ml = 0; ml < nl; ml++) limit[ml] = rt->limit[ml];
    if (build_terms(limit, nl, S, d->term, &d->num_leaves, err) != 0) {
        leave_deriver_free(d);
        return -1;
    }

    /* Map the leave graph's words. */
    KwgIndex ix;
    if (leave_kwg == NULL || leave_kwg->nodes == NULL) {
        leave_deriver_free(d);
        return rk_error(err, "leave deriver: no leave graph");
    }
    if (kwg_index_init(&ix, leave_kwg, err) != 0) {
        leave_deriver_free(d);
        return -1;
    }
    uint64_t words = kwg_index_word_count(&ix);
    kwg_index_free(&ix);
    if (words != d->num_leaves) {
        uint64_t n = d->num_leaves;
        leave_deriver_free(d);
        return rk_error(err,
                        "leave deriver: the leave graph holds %llu words, but the distribution "
                        "has %llu leaves of 1..%d tiles",
                        (unsigned long long)words, (unsigned long long)n, S);
    }
    d->to_word = malloc(((size_t)d->num_leaves + 1) * sizeof *d->to_word);
    if (d->to_word == NULL) {
        leave_deriver_free(d);
        return rk_error(err, "leave deriver: out of memory");
    }
    memset(d->to_word, 0xFF, ((size_t)d->num_leaves + 1) * sizeof *d->to_word);
    MapCtx m = {.d = d};
    kwg_foreach_word(leave_kwg, S, map_word, &m);
    if (m.bad != 0 || m.next != d->num_leaves) {
        int bad = m.bad;
        uint64_t at = m.bad_index, seen = m.next;
        leave_deriver_free(d);
        if (bad == 1)
            return rk_error(err,
                            "leave deriver: word %llu of the leave graph is not a leave of the "
                            "distribution",
                            (unsigned long long)at);
        if (bad == 2)
            return rk_error(err, "leave deriver: word %llu of the leave graph is a duplicate",
                            (unsigned long long)at);
        return rk_error(err,
                        "leave deriver: the leave graph lists %llu leaves of 1..%d tiles, "
                        "expected %llu",
                        (unsigned long long)seen, S, (unsigned long long)words);
    }
    return 0;
}

void leave_deriver_free(LeaveDeriver *d) {
    if (d == NULL) return;
    free(d->term);
    free(d->to_word);
    memset(d, 0, sizeof *d);
}

/* -------------------------------------------------------------- deriving */

typedef struct Src {
    const int64_t *count, *sum_mp; /* accumulators, or */
    const float *mean; /* means (points) with */
    const uint64_t *counts; /* optional counts */
} Src;

/* A sub-leave of the letters placed so far: its weight factor product,
 * internal number and tile count. */
typedef struct Part {
    double w;
    uint32_t num;
    uint32_t s;
} Part;

/* Sub-leaves of <= 6 tiles: at most 2^6 of them; 2^7 bounds any list. */
#define PART_MAX (1 << RK_RACK_SIZE)

typedef struct Work {
    const LeaveDeriver *d;
    const uint32_t *term; /* the numbering of acc: d->term, or the pool's (holdable_only) */
    const RackTable *rt;
    Src src;
    /* per internal leave number n: acc[stride*n] = sum W*m,
     * acc[stride*n+1] = sum W and, with stride 3 (shrinkage or n_eff
     * wanted), acc[3n+2] = sum W^2/count */
    double *acc;
    int stride;
    /* kern[(ml * w + r) * w + c] = C(bag[ml] - c, r - c) */
    double *kern;
    int bag[RK_MAX_LETTERS];
    uint64_t idx; /* the current rack's index */
    uint64_t used;
    /* part[d][0..npart[d]): the sub-leaves of the rack's first d distinct
     * letters, in the order "copies of the first letter, then of the
     * second, ..." ascending; the last one keeps every tile. */
    int npart[RK_RACK_SIZE + 1];
    Part part[RK_RACK_SIZE + 1][PART_MAX];
} Work;

/* The mean of the current rack in *m and 1/count in *inv (1 for means
 * without counts); false if it is unobserved. */
static bool rack_mean(const Work *w, double *m, double *inv) {
    uint64_t i = w->idx;
    if (w->src.count != NULL) {
        int64_t c = w->src.count[i];
        if (c <= 0) return false;
        *m = (double)w->src.sum_mp[i] / (double)c / 1000.0;
        *inv = 1.0 / (double)c;
        return true;
    }
    if (w->src.counts != NULL && w->src.counts[i] == 0) return false;
    *m = (double)w->src.mean[i];
    *inv = w->src.counts != NULL ? 1.0 / (double)w->src.counts[i] : 1.0;
    return true;
}

/* The rack is the d letters so far plus x copies of ml, which complete it:
 * every sub-leave of it but the whole rack gets W * m, W and W^2 / count. */
static void finish_rack(Work *w, int ml, int x, int d) {
    double m, inv;
    if (!rack_mean(w, &m, &inv)) return;
    w->used++; /* drawable: W(R, {}, B) > 0 */
    size_t ws = (size_t)w->rt->rack_size + 1;
    const double *k = w->kern + ((size_t)ml * ws + (size_t)x) * ws;
    const uint32_t *term = w->term + (size_t)ml * ws * ws;
    const Part *p = w->part[d];
    int n = w->npart[d];
    double *acc = w->acc;
    for (int e = 0; e < n; e++) {
        /* The last part keeps every earlier tile: with c == x it is the
         * whole rack, not a leave. */
        int top = e + 1 < n ? x : x - 1;
        const uint32_t *t = term + (size_t)p[e].s * ws;
        double pw = p[e].w;
        uint32_t num = p[e].num;
        if (w->stride == 3) {
            for (int c = 0; c <= top; c++) {
                double wc = pw * k[c];
                if (wc == 0.0) continue;
                double *a = acc + 3 * (size_t)(num + t[c]);
                a[0] += wc * m;
                a[1] += wc;
                a[2] += wc * wc * inv;
            }
        } else {
            for (int c = 0; c <= top; c++) {
                double wc = pw * k[c];
                if (wc == 0.0) continue;
                double *a = acc + 2 * (size_t)(num + t[c]);
                a[0] += wc * m;
                a[1] += wc;
            }
        }
    }
}

/* part[d + 1] = part[d] extended by 0..x copies of ml. */
static void extend_parts(Work *w, int ml, int x, int d) {
    size_t ws = (size_t)w->rt->rack_size + 1;
    const double *k = w->kern + ((size_t)ml * ws + (size_t)x) * ws;
    const uint32_t *term = w->term + (size_t)ml * ws * ws;
    const Part *p = w->part[d];
    Part *q = w->part[d + 1];
    int n = w->npart[d], out = 0;
    for (int e = 0; e < n; e++) {
        const uint32_t *t = term + (size_t)p[e].s * ws;
        for (int c = 0; c <= x; c++) {
            double wc = p[e].w * k[c];
            if (wc == 0.0) continue;
            q[out].w = wc;
            q[out].num = p[e].num + t[c];
            q[out].s = p[e].s + (uint32_t)c;
            out++;
        }
    }
    w->npart[d + 1] = out;
}

/* Generates the racks in index order from letter ml on, rem tiles still
 * to place, d distinct letters placed. */
static void walk_racks(Work *w, int ml, int rem, int d) {
    const RackTable *rt = w->rt;
    size_t ws = (size_t)rt->rack_size + 1;
    if (ml >= rt->num_letters) return;
    int hi = rt->limit[ml] < rem ? rt->limit[ml] : rem;
    for (int x = hi; x >= 0; x--) {
        uint64_t sub = rt->fill[(size_t)(ml + 1) * ws + (size_t)(rem - x)];
        if (sub == 0) continue;
        if (x > w->bag[ml]) { /* none of these racks can be drawn */
            w->idx += sub;
            continue;
        }
        if (x == 0) {
            walk_racks(w, ml + 1, rem, d);
        } else if (x == rem) { /* exactly one rack: this one */
            finish_rack(w, ml, x, d);
            w->idx++;
        } else {
            extend_parts(w, ml, x, d);
            walk_racks(w, ml + 1, rem - x, d + 1);
        }
    }
}

/* Counts the observed racks (for DeriveInfo). */
static uint64_t count_observed(const Src *src, uint64_t n) {
    uint64_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (src->count != NULL) {
            if (src->count[i] > 0) k++;
        } else if (src->counts == NULL || src->counts[i] != 0) {
            k++;
        }
    }
    return k;
}

double derive_binom(int n, int k) {
    if (k < 0 || n < 0 || k > n) return 0.0;
    double r = 1.0;
    for (int i = 1; i <= k; i++)
        r = r * (double)(n - k + i) / (double)i; /* exact: C(n-k+i, i) */
    return r;
}

/* ------------------------------------------------------------- shrinkage */

/* The shrinkage pass: the leaves in internal-number order (pre-order, the
 * later letters first, counts ascending: that is lexicographic order of the
 * count vectors), so every sub-leave is valued before its superleaves (one
 * copy fewer of letter j makes the vector smaller at j). */
typedef struct Shrink {
    const LeaveDeriver *d;
    const uint32_t *term; /* the numbering of acc and v (Work.term) */
    const double *acc; /* stride 3, see Work */
    double baseline, k;
    const int *limit; /* per letter, the most copies a leave may hold: the bag's (holdable_only) */
    bool plain;       /* k == 0: a leave without weight is 0, not its prior (holdable_only) */
    /* holdable_only: the outputs are written as leaves are valued */
    float *out;
    double *out64, *n_eff_out;
    uint64_t valued;
    double *v; /* per internal number; v[0] = 0 (the empty leave) */
    double *n_eff; /* per internal number, or NULL */
    uint32_t next; /* the number the next leave must have */
    int n; /* distinct letters held */
    int letter[RK_RACK_SIZE], cnt[RK_RACK_SIZE], before[RK_RACK_SIZE]; /* before: tiles of earlier letters */
    bool bad;
} Shrink;

static uint32_t shrink_term(const Shrink *h, int ml, int s, int c) { return h->term[term_at(h->d, ml, s, c)]; }

/* The leave graph's word index of the leave held in h. */
static uint32_t shrink_word(const Shrink *h) {
    uint32_t num = 0;
    for (int i = 0; i < h->n; i++) num += h->d->term[term_at(h->d, h->letter[i], h->before[i], h->cnt[i])];
    return h->d->to_word[num];
}

/* Values the leave held in h (number num). */
static void shrink_leave(Shrink *h, uint32_t num) {
    if (num != h->next++) h->bad = true; /* the order argument above failed */
    if (h->bad) return;
    /* prior: the mean of the values of the distinct sub-leaves one tile
     * shorter, one per distinct letter, in letter order */
    double prior = 0.0;
    for (int j = 0; j < h->n; j++) {
        uint32_t sub = 0;
        for (int i = 0; i < h->n; i++) {
            if (i < j) {
                sub += shrink_term(h, h->letter[i], h->before[i], h->cnt[i]);
            } else if (i == j) {
                sub += shrink_term(h, h->letter[i], h->before[i], h->cnt[i] - 1);
            } else {
                sub += shrink_term(h, h->letter[i], h->before[i] - 1, h->cnt[i]);
            }
        }
        prior += h->v[sub];
    }
    prior /= (double)h->n;
    const double *a = h->acc + 3 * (size_t)num;
    double v = prior, ne = 0.0;
    if (a[1] > 0.0) {
        double raw = a[0] / a[1] - h->baseline;
        ne = a[1] * a[1] / a[2];
        v = h->plain ? raw : (ne * raw + h->k * prior) / (ne + h->k);
        h->valued++;
    } else if (h->plain) {
        v = 0.0;
    }
    h->v[num] = v;
    if (h->n_eff != NULL) h->n_eff[num] = ne;
    if (h->limit != NULL) {
        uint32_t word = shrink_word(h);
        if (h->out64 != NULL) h->out64[word] = v;
        if (h->out != NULL) h->out[word] = (float)v;
        if (h->n_eff_out != NULL) h->n_eff_out[word] = ne;
    }
}

/* The leaves extending the one in h (num, s tiles) by letters >= from. */
static void shrink_walk(Shrink *h, int from, int s, uint32_t num) {
    const RackTable *rt = h->d->rt;
    int S = h->d->max_leave;
    if (s == S) return;
    for (int ml = rt->num_letters - 1; ml >= from; ml--) {
        int lim = rt->limit[ml] < S - s ? rt->limit[ml] : S - s;
        if (h->limit != NULL && h->limit[ml] < lim) lim = h->limit[ml];
        if (lim <= 0) continue;
        int j = h->n++;
        h->letter[j] = ml;
        h->before[j] = s;
        for (int c = 1; c <= lim; c++) {
            h->cnt[j] = c;
            uint32_t sub = num + shrink_term(h, ml, s, c);
            shrink_leave(h, sub);
            shrink_walk(h, ml + 1, s + c, sub);
        }
        h->n--;
    }
}

/* derive_core's arguments checked against the deriver: 0, or -1 with err set. */
static int check_derive_args(const LeaveDeriver *d, uint64_t n, double k, uint64_t out_len, RkError *err) {
    if (d == NULL || d->rt == NULL || d->to_word == NULL)
        return rk_error(err, "derive leaves: no leave deriver");
    if (!(k >= 0.0) || !isfinite(k))
        return rk_error(err, "derive leaves: the shrinkage must be a finite number >= 0, not %g", k);
    const RackTable *rt = d->rt;
    if (n != rt->num_racks)
        return rk_error(err,
                        "derive leaves: %llu rack equities, but the distribution has %llu racks",
                        (unsigned long long)n, (unsigned long long)rt->num_racks);
    if (out_len != d->num_leaves)
        return rk_error(err, "derive leaves: output holds %llu values, but there are %llu leaves",
                        (unsigned long long)out_len, (unsigned long long)d->num_leaves);
    return 0;
}

/* The walk's state for the bag (NULL: the full distribution): its numbering (holdable: the
 * pool's, in *pool_term and pool_limit, which the caller frees), the kernel and the slots
 * (*acc_leaves of them, stride slots each). 0, or -1 with nothing left allocated. */
static int work_init(Work *w, const LeaveDeriver *d, const Src *src, const Rack *bag, bool holdable, int stride,
                     uint32_t **pool_term, int *pool_limit, uint64_t *acc_leaves, RkError *err) {
    const RackTable *rt = d->rt;
    memset(w, 0, sizeof *w);
    w->d = d;
    w->term = d->term;
    w->rt = rt;
    w->src = *src;
    for (int ml = 0; ml < rt->num_letters; ml++)
        w->bag[ml] = bag ? bag->count[ml] : rt->dist[ml];
    size_t ws = (size_t)rt->rack_size + 1;
    /* holdable_only: acc is numbered densely over the holdable leaves only */
    *acc_leaves = d->num_leaves;
    *pool_term = NULL;
    if (holdable) {
        for (int ml = 0; ml < rt->num_letters; ml++)
            pool_limit[ml] = w->bag[ml] < rt->limit[ml] ? w->bag[ml] : rt->limit[ml];
        *pool_term = calloc((size_t)rt->num_letters * ws * ws, sizeof **pool_term);
        if (*pool_term == NULL) return rk_error(err, "derive leaves: out of memory");
        if (build_terms(pool_limit, rt->num_letters, d->max_leave, *pool_term, acc_leaves, err) != 0) {
            free(*pool_term);
            return -1;
        }
        w->term = *pool_term;
    }
    w->kern = calloc((size_t)rt->num_letters * ws * ws, sizeof *w->kern);
    w->stride = stride;
    w->acc = calloc((size_t)w->stride * ((size_t)*acc_leaves + 1), sizeof *w->acc);
    if (w->kern == NULL || w->acc == NULL) {
        free(w->kern);
        free(w->acc);
        free(*pool_term);
        return rk_error(err, "derive leaves: out of memory for %llu leaves",
                        (unsigned long long)*acc_leaves);
    }
    for (int ml = 0; ml < rt->num_letters; ml++)
        for (int r = 0; r <= rt->rack_size; r++)
            for (int c = 0; c <= r; c++)
                w->kern[((size_t)ml * ws + (size_t)r) * ws + (size_t)c] =
                    w->bag[ml] >= c ? derive_binom(w->bag[ml] - c, r - c) : 0.0;
    return 0;
}

/* holdable_only: only the holdable leaves (acc_leaves, numbered by pool_term), written as
 * they are valued; the rest of the outputs 0. */
static int value_holdable(const LeaveDeriver *d, const Work *w, const uint32_t *pool_term, const int *pool_limit,
                          uint64_t acc_leaves, double baseline, double k, float *out, double *out64,
                          double *n_eff_out, uint64_t *valued, RkError *err) {
    if (out64 != NULL) memset(out64, 0, (size_t)d->num_leaves * sizeof *out64);
    if (out != NULL) memset(out, 0, (size_t)d->num_leaves * sizeof *out);
    if (n_eff_out != NULL) memset(n_eff_out, 0, (size_t)d->num_leaves * sizeof *n_eff_out);
    double *shrunk = malloc(((size_t)acc_leaves + 1) * sizeof *shrunk);
    int rc = 0;
    if (shrunk == NULL) {
        rc = rk_error(err, "derive leaves: out of memory for %llu leaves", (unsigned long long)acc_leaves);
    } else {
        shrunk[0] = 0.0;
        Shrink h = {.d = d, .term = pool_term, .acc = w->acc, .baseline = baseline, .k = k, .v = shrunk,
                    .next = 1, .limit = pool_limit, .plain = !(k > 0.0), .out = out, .out64 = out64,
                    .n_eff_out = n_eff_out};
        shrink_walk(&h, 0, 0, 0);
        if (h.bad || h.next != acc_leaves + 1) rc = rk_error(err, "derive leaves: internal error: leave order");
        *valued = h.valued;
    }
    free(shrunk);
    return rc;
}

/* Every leave: its plain value from the slots, or with k > 0 the shrunk one. */
static int value_all(const LeaveDeriver *d, const Work *w, double baseline, double k, float *out, double *out64,
                     double *n_eff_out, uint64_t *valued, RkError *err) {
    double *shrunk = NULL;
    if (k > 0.0) {
        shrunk = malloc(((size_t)d->num_leaves + 1) * sizeof *shrunk);
        if (shrunk == NULL)
            return rk_error(err, "derive leaves: out of memory for %llu leaves",
                            (unsigned long long)d->num_leaves);
        shrunk[0] = 0.0;
        Shrink h = {.d = d, .term = d->term, .acc = w->acc, .baseline = baseline, .k = k, .v = shrunk, .next = 1};
        shrink_walk(&h, 0, 0, 0);
        if (h.bad || h.next != d->num_leaves + 1) {
            free(shrunk);
            return rk_error(err, "derive leaves: internal error: leave order");
        }
    }
    for (uint64_t num = 1; num <= d->num_leaves; num++) {
        const double *a = w->acc + (size_t)w->stride * num;
        double v = 0.0;
        if (a[1] > 0.0) {
            v = a[0] / a[1] - baseline;
            (*valued)++;
        }
        if (shrunk != NULL) v = shrunk[num];
        if (n_eff_out != NULL) n_eff_out[d->to_word[num]] = a[1] > 0.0 ? a[1] * a[1] / a[2] : 0.0;
        if (out64 != NULL) {
            out64[d->to_word[num]] = v;
        } else {
            out[d->to_word[num]] = (float)v;
        }
    }
    free(shrunk);
    return 0;
}

/* Writes to out (float) or out64 (double), whichever is not NULL. */
static int derive_core(const LeaveDeriver *d, const Src *src, uint64_t n, const Rack *bag,
                       const DeriveOptions *opt, float *out, double *out64, uint64_t out_len,
                       DeriveInfo *info, RkError *err) {
    if (info != NULL) memset(info, 0, sizeof *info);
    double k = opt != NULL ? opt->shrink : 0.0;
    double *n_eff_out = opt != NULL ? opt->n_eff : NULL;
    bool holdable = opt != NULL && opt->holdable_only;
    if (check_derive_args(d, n, k, out_len, err) != 0) return -1;
    Work w;
    uint32_t *pool_term;
    int pool_limit[RK_MAX_LETTERS];
    uint64_t acc_leaves;
    int stride = k > 0.0 || n_eff_out != NULL || holdable ? 3 : 2;
    if (work_init(&w, d, src, bag, holdable, stride, &pool_term, pool_limit, &acc_leaves, err) != 0) return -1;

    w.part[0][0] = (Part){.w = 1.0, .num = 0, .s = 0};
    w.npart[0] = 1;
    walk_racks(&w, 0, d->rt->rack_size, 0);

    double baseline = w.acc[1] > 0.0 ? w.acc[0] / w.acc[1] : 0.0;
    uint64_t valued = 0;
    int rc;
    if (holdable) {
        rc = value_holdable(d, &w, pool_term, pool_limit, acc_leaves, baseline, k, out, out64, n_eff_out, &valued,
                            err);
        free(pool_term);
    } else {
        rc = value_all(d, &w, baseline, k, out, out64, n_eff_out, &valued, err);
    }
    if (rc == 0 && info != NULL) {
        info->baseline = baseline;
        info->racks_used = w.used;
        info->racks_observed = count_observed(src, n);
        info->leaves_valued = valued;
    }
    free(w.kern);
    free(w.acc);
    return rc;
}

int derive_leaves_opt(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag,
                      const DeriveOptions *opt, float *out, uint64_t out_len, DeriveInfo *info,
                      RkError *err) {
    if (acc == NULL || acc->count == NULL) return rk_error(err, "derive leaves: no accumulators");
    if (out == NULL) return rk_error(err, "derive leaves: no output array");
    Src src = {.count = acc->count, .sum_mp = acc->sum_mp};
    return derive_core(d, &src, acc->n, bag, opt, out, NULL, out_len, info, err);
}

int derive_leaves_f64_opt(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag,
                          const DeriveOptions *opt, double *out, uint64_t out_len,
                          DeriveInfo *info, RkError *err) {
    if (acc == NULL || acc->count == NULL) return rk_error(err, "derive leaves: no accumulators");
    if (out == NULL) return rk_error(err, "derive leaves: no output array");
    Src src = {.count = acc->count, .sum_mp = acc->sum_mp};
    return derive_core(d, &src, acc->n, bag, opt, NULL, out, out_len, info, err);
}

int derive_leaves_from_means_opt(const LeaveDeriver *d, const float *mean, const uint64_t *counts,
                                 uint64_t n, const Rack *bag, const DeriveOptions *opt,
                                 float *out, uint64_t out_len, DeriveInfo *info, RkError *err) {
    if (mean == NULL) return rk_error(err, "derive leaves: no rack equities");
    if (out == NULL) return rk_error(err, "derive leaves: no output array");
    for (uint64_t i = 0; i < n; i++)
        if (!isfinite(mean[i]))
            return rk_error(err, "derive leaves: the equity of rack %llu is not finite",
                            (unsigned long long)i);
    Src src = {.mean = mean, .counts = counts};
    return derive_core(d, &src, n, bag, opt, out, NULL, out_len, info, err);
}

int derive_leaves(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag, float *out,
                  uint64_t out_len, DeriveInfo *info, RkError *err) {
    return derive_leaves_opt(d, acc, bag, NULL, out, out_len, info, err);
}

int derive_leaves_f64(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag, double *out,
                      uint64_t out_len, DeriveInfo *info, RkError *err) {
    return derive_leaves_f64_opt(d, acc, bag, NULL, out, out_len, info, err);
}

int derive_leaves_from_means(const LeaveDeriver *d, const float *mean, const uint64_t *counts,
                             uint64_t n, const Rack *bag, float *out, uint64_t out_len,
                             DeriveInfo *info, RkError *err) {
    return derive_leaves_from_means_opt(d, mean, counts, n, bag, NULL, out, out_len, info, err);
}
