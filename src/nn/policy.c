/*
 * policy.c - sub-move and token indices, legal-move masks (see policy.h).
 */
#include "policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

NnPolicyShape nn_policy_shape(const LetterDist *ld, int dim) {
    NnPolicyShape s;
    s.dim = dim;
    s.squares = dim * dim;
    s.letters = ld->size - 1;
    s.placements = s.squares * 2 * RK_RACK_SIZE;
    s.submoves = s.placements + RK_RACK_SIZE + 1;
    s.tokens = 2 * s.letters + 1;
    return s;
}

int nn_submove_index(const NnPolicyShape *s, const PackedMove *pm) {
    switch (pm->kind) {
    case MOVE_PLACE:
        return ((pm->row * s->dim + pm->col) * 2 + pm->dir) * RK_RACK_SIZE + pm->n - 1;
    case MOVE_EXCHANGE:
        return s->placements + pm->n - 1;
    default:
        return s->placements + RK_RACK_SIZE;
    }
}

int nn_step_token(const NnPolicyShape *s, const PackedMove *pm, int k) {
    uint8_t t = pm->tiles[k];
    if (pm->kind == MOVE_EXCHANGE) return t == 0 ? 2 * s->letters : t - 1;
    return RK_IS_BLANKED(t) ? s->letters + RK_LETTER(t) - 1 : t - 1;
}

int nn_step_square(const PackedMove *pm, int k, const Board *b) {
    if (pm->kind != MOVE_PLACE) return -1;
    int dr = pm->dir == DIR_DOWN, dc = !dr, r = pm->row, c = pm->col, seen = 0;
    while (r < b->dim && c < b->dim) {
        if (!board_at(b, r, c)) {
            if (seen == k) return r * b->dim + c;
            seen++;
        }
        r += dr, c += dc;
    }
    return -1;
}

void nn_legal_init(NnLegal *lg) { memset(lg, 0, sizeof *lg); }
void nn_legal_free(NnLegal *lg) {
    free(lg->m);
    free(lg->unsorted);
    free(lg->start);
    memset(lg, 0, sizeof *lg);
}

static int cmp_legal(const void *pa, const void *pb) {
    const NnLegalMove *a = pa, *b = pb;
    if (a->submove != b->submove) return a->submove < b->submove ? -1 : 1;
    return memcmp(a->tokens, b->tokens, RK_RACK_SIZE);
}

/* Sorts a run of one sub-move's moves by tokens: insertion sort for the
 * short runs (most), qsort for the long ones (bingos with blanks). */
static void sort_run(NnLegalMove *m, int n) {
    if (n > 24) {
        qsort(m, (size_t)n, sizeof *m, cmp_legal);
        return;
    }
    for (int i = 1; i < n; i++) {
        NnLegalMove x = m[i];
        int j = i;
        for (; j > 0 && memcmp(m[j - 1].tokens, x.tokens, RK_RACK_SIZE) > 0; j--) m[j] = m[j - 1];
        m[j] = x;
    }
}

/* The list is sorted by (sub-move, tokens), a total order (no two legal
 * moves share both): a counting sort by sub-move, then each sub-move's run
 * by tokens. A full qsort of ~1,000 moves was 7% of a net leaf's cost. */
void nn_legal_build(NnLegal *lg, const NnPolicyShape *s, const MoveList *all, const Board *b, bool equity_prior) {
    if ((size_t)lg->cap < all->count) {
        size_t cap = all->count + 64;
        NnLegalMove *m = realloc(lg->m, cap * sizeof *m);
        if (!m) abort();
        lg->m = m;
        NnLegalMove *u = realloc(lg->unsorted, cap * sizeof *u);
        if (!u) abort();
        lg->unsorted = u;
        lg->cap = (int)cap;
    }
    if (lg->start_cap < s->submoves + 1) {
        int *st = realloc(lg->start, (size_t)(s->submoves + 1) * sizeof *st);
        if (!st) abort();
        lg->start = st;
        lg->start_cap = s->submoves + 1;
    }
    int n = (int)all->count;
    memset(lg->start, 0, (size_t)(s->submoves + 1) * sizeof *lg->start);
    for (int i = 0; i < n; i++) {
        NnLegalMove *x = &lg->unsorted[i];
        memset(x, 0, sizeof *x);
        packed_from_move(&x->pm, &all->moves[i], b);
        x->submove = nn_submove_index(s, &x->pm);
        x->score = all->moves[i].score;
        x->prior = !equity_prior ? (float)x->score
                   : all->moves[i].kind == MOVE_PASS ? 0.0f /* movegen ranks it below all: -1e6 */
                                                     : (float)all->moves[i].equity / 1000.0f;
        for (int k = 0; k < x->pm.n; k++) x->tokens[k] = (uint8_t)nn_step_token(s, &x->pm, k);
        lg->start[x->submove + 1]++;
    }
    for (int k = 0; k < s->submoves; k++) lg->start[k + 1] += lg->start[k];
    for (int i = 0; i < n; i++) lg->m[lg->start[lg->unsorted[i].submove]++] = lg->unsorted[i];
    /* start[k] is now the end of sub-move k's run */
    for (int k = 0, from = 0; k < s->submoves && from < n; k++) {
        if (lg->start[k] - from > 1) sort_run(lg->m + from, lg->start[k] - from);
        from = lg->start[k];
    }
    lg->n = n;
}

void nn_legal_submove_mask(const NnLegal *lg, const NnPolicyShape *s, uint8_t *mask) {
    memset(mask, 0, (size_t)s->submoves);
    for (int i = 0; i < lg->n; i++) mask[lg->m[i].submove] = 1;
}

/* First index with submove >= sub. */
static int lower_bound(const NnLegal *lg, int sub) {
    int lo = 0, hi = lg->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (lg->m[mid].submove < sub) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void nn_legal_submove_best(const NnLegal *lg, const NnPolicyShape *s, float *best) {
    for (int k = 0; k < s->submoves; k++) best[k] = -INFINITY;
    for (int i = 0; i < lg->n; i++)
        if (lg->m[i].prior > best[lg->m[i].submove]) best[lg->m[i].submove] = lg->m[i].prior;
    for (int k = 0; k < s->submoves; k++)
        if (best[k] == -INFINITY) best[k] = 0.0f;
}

int nn_legal_step_mask(const NnLegal *lg, const NnPolicyShape *s, int submove, const uint8_t *prefix, int k,
                       uint8_t *mask, float *best) {
    memset(mask, 0, (size_t)s->tokens);
    if (best) memset(best, 0, (size_t)s->tokens * sizeof(float));
    int allowed = 0;
    for (int i = lower_bound(lg, submove); i < lg->n && lg->m[i].submove == submove; i++) {
        const NnLegalMove *x = &lg->m[i];
        if (k >= x->pm.n || memcmp(x->tokens, prefix, (size_t)k) != 0) continue;
        bool first = !mask[x->tokens[k]]; /* the first move through t sets best[t] (values may be < 0) */
        if (first) allowed++;
        mask[x->tokens[k]] = 1;
        if (best && (first || x->prior > best[x->tokens[k]])) best[x->tokens[k]] = x->prior;
    }
    return allowed;
}

int nn_legal_find(const NnLegal *lg, const NnPolicyShape *s, const PackedMove *pm) {
    int sub = nn_submove_index(s, pm);
    uint8_t tok[RK_RACK_SIZE] = {0};
    for (int k = 0; k < pm->n && k < RK_RACK_SIZE; k++) tok[k] = (uint8_t)nn_step_token(s, pm, k);
    for (int i = lower_bound(lg, sub); i < lg->n && lg->m[i].submove == sub; i++)
        if (memcmp(lg->m[i].tokens, tok, RK_RACK_SIZE) == 0) return i;
    return -1;
}
