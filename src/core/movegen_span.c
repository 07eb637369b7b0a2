/*
 * movegen_span.c - the best move from the word map, span by span.
 *
 * A span is what a placement covers on one line: squares lo..hi, bounded by
 * empty squares or the edge, whose n empty squares all get a rack tile and
 * whose other squares hold the board's tiles (the played-through letters,
 * multiset P). At least one fresh square is an anchor (beside a tile, or the
 * start square of the empty board), so every placement lies in exactly one
 * span. A placement of a span is then a word of length hi - lo + 1 that is
 * an anagram of P plus the n tiles played (a sub-multiset S of the rack),
 * with P's letters where the board has them and every fresh letter allowed
 * by its square's cross-set: the word map lists those words directly.
 *
 * Search, best first. Each span gets an upper bound on the equity of its
 * placements: the score with the rack's highest tiles on the best
 * multipliers (rearrangement inequality: no real assignment scores more),
 * the bingo bonus when n = 7, the positional values' maxima, and the best
 * leave term of any S of size n, where S must form a word alone when P is
 * empty (looked up once per call for every S). The spans wait in a max-heap
 * by that bound. A span taken from the heap tries its candidates S in order
 * of leave term: each gets its own tighter bound (its own tiles' values)
 * and a cross-set check, and only if both pass does it ask the map for
 * words and place them. A span through one board tile first asks, once a
 * call for each S with at most one blank, which letters can join S in a
 * word (blank1, or blank2 with its blank), and a span through two tiles,
 * for each S without a blank, which letters can join S with one more
 * (blank2): S is tried only if the tiles' letters are among them. The
 * search stops when the heap's top bound is below the best move's equity.
 * Equal bounds are still taken, so ties resolve in movegen_compare order
 * exactly as on the full list. (The spans are gathered first and made a
 * heap at once.)
 */
#include <string.h>

#include "movegen_internal.h"
#include "wordmap.h"

/* a played-through letter may occur at most this often in a span; beyond,
 * a key could overflow its 4-bit count (never in a real game), so such a
 * position takes the graph path */
#define SPAN_MAX_P_COUNT 8
/* the layouts' letter multipliers, and letter times word multipliers, are
 * at most this (a square has one or the other; layout.h) */
#define SPAN_MAX_MULT 3
#define MAX_SPANS (2 * RK_MAX_DIM * RK_MAX_DIM * RK_RACK_SIZE)

/* A candidate S: the tiles a placement plays (the rack minus a kept
 * sub-rack), by its kept index. */
typedef struct Sub {
    WordKey key;          /* natural letters */
    uint64_t letters;     /* the same as a set (bit ml) */
    int32_t leave;        /* mg_leave_term of what is kept */
    uint8_t size, blanks;
    int16_t top[RK_RACK_SIZE + 1]; /* top[k]: the sum of its k highest face values */
} Sub;

typedef struct Span {
    int32_t key;          /* bound on the equity of its placements */
    uint8_t d, line, lo, hi, n, no_p;
} Span;

/* What the bounds and the placements of one span need. */
typedef struct Profile {
    int n, word_mult, fixed; /* fixed: word_mult * P's face values + cross-words' fixed parts */
    /* of the fresh squares: how many have a letter multiplier of at least 2
     * and 3 (main_ge[2], main_ge[3]), and how many have a cross-word with a
     * letter times word multiplier of at least 1, 2, 3 (cross_ge[1..3]) */
    int main_ge[SPAN_MAX_MULT + 1], cross_ge[SPAN_MAX_MULT + 1];
    int32_t positional;      /* sum of pv_max over the fresh squares */
    WordKey pkey;
    int p_tiles, p_letter;   /* tiles played through, and the letter of the last one */
    int p_letter0;           /* the letter of the first one */
    /* cross-sets of the fresh squares that have a cross-word (the others
     * take any letter) */
    uint64_t hooked[RK_RACK_SIZE];
    int n_hooked;
} Profile;

typedef struct SpanGen {
    Gen *g;
    const WordMap *wm;
    Sub sub[MAX_SUBRACKS];
    /* per tiles played n: the kept indices in order of leave term, all of
     * them (for spans through tiles) and those whose S is a word alone */
    uint8_t order[RK_RACK_SIZE + 1][MAX_SUBRACKS], n_order[RK_RACK_SIZE + 1];
    uint8_t np_order[RK_RACK_SIZE + 1][MAX_SUBRACKS], n_np_order[RK_RACK_SIZE + 1];
    int bingo; /* the layout's bonus, in points */
    int16_t rack_top[RK_RACK_SIZE + 1]; /* sums of the rack's k highest face values */
    Span heap[MAX_SPANS];
    int n_heap;
    /* per candidate, the letters x such that S plus x (plus S's blanks) makes
     * a word of |S| + 1 letters, asked once a call when a span through one
     * tile needs it (exact: blank1 of S, or blank2 of S's letters with one
     * blank) */
    uint32_t plus_one[MAX_SUBRACKS];
    bool plus_one_known[MAX_SUBRACKS];
    /* the same for two letters, of a candidate without a blank: the letters
     * x such that S plus x and some y makes a word of |S| + 2 letters
     * (blank2 of S); a span through two tiles needs both of its letters in
     * it, which rules out most of those spans' candidates (in simulations
     * 97% of their lookups found no word) */
    uint32_t plus_two[MAX_SUBRACKS];
    bool plus_two_known[MAX_SUBRACKS];
    uint64_t popped, lookups;
} SpanGen;

/* ---------------------------------------------------------------- heap */

/* Sinks the span at i below its larger children (a heap of n spans). */
static void heap_sift_down(SpanGen *sg, int i, int n) {
    Span s = sg->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && sg->heap[c + 1].key > sg->heap[c].key) c++;
        if (sg->heap[c].key <= s.key) break;
        sg->heap[i] = sg->heap[c];
        i = c;
    }
    sg->heap[i] = s;
}

/* Makes the spans appended so far a heap, bottom up (Floyd): linear, where
 * pushing them one at a time cost a sift each. The order equal bounds come
 * out in does not change the answer: pruning is strict, so every move at or
 * above the final threshold is offered whatever the order, and the
 * comparators that rank them are total orders. */
static void heap_build(SpanGen *sg) {
    for (int i = sg->n_heap / 2 - 1; i >= 0; i--) heap_sift_down(sg, i, sg->n_heap);
}

static Span heap_pop(SpanGen *sg) {
    Span top = sg->heap[0];
    if (--sg->n_heap > 0) {
        sg->heap[0] = sg->heap[sg->n_heap];
        heap_sift_down(sg, 0, sg->n_heap);
    }
    return top;
}

/* ---------------------------------------------------------------- candidates */

/* The played part S of every kept sub-rack, its leave term, and the orders
 * by leave term (whether S is a word alone is one lookup each). */
static void setup_subs(SpanGen *sg) {
    Gen *g = sg->g;
    const LetterDist *ld = g->ld;
    int n_sub = g->n_subracks;
    memset(sg->n_order, 0, sizeof sg->n_order);
    sg->rack_top[0] = 0;
    for (int i = 0; i < g->full_rack_total; i++) sg->rack_top[i + 1] = (int16_t)(sg->rack_top[i] + g->tile_vals[i]);
    memset(sg->n_np_order, 0, sizeof sg->n_np_order);
    int letters[RK_RACK_SIZE], nl = 0;
    for (int ml = 0; ml < ld->size; ml++)
        if (g->stride[ml] != 0) letters[nl++] = ml;
    /* the kept counts of sub-rack idx, by an odometer as in setup_leaves */
    int kept[RK_RACK_SIZE] = {0};
    for (int idx = 0; idx < n_sub; idx++) {
        if (idx > 0)
            for (int li = 0; li < nl; li++) {
                if (kept[li] < g->rack[letters[li]]) {
                    kept[li]++;
                    break;
                }
                kept[li] = 0;
            }
        Sub *s = &sg->sub[idx];
        s->key = (WordKey){0, 0};
        s->letters = 0;
        s->blanks = 0;
        s->leave = mg_leave_term(g, idx);
        int nv = 0;
        uint8_t vals[RK_RACK_SIZE];
        for (int li = 0; li < nl; li++) {
            int ml = letters[li];
            int played = g->rack[ml] - kept[li];
            for (int c = 0; c < played; c++) {
                if (ml == 0) {
                    s->blanks++;
                } else {
                    wordkey_add(&s->key, ml);
                    s->letters |= (uint64_t)1 << ml;
                }
                vals[nv++] = (uint8_t)ld->score[ml];
            }
        }
        s->size = (uint8_t)nv;
        for (int i = 1; i < nv; i++) /* highest first */
            for (int j = i; j > 0 && vals[j] > vals[j - 1]; j--) {
                uint8_t t = vals[j];
                vals[j] = vals[j - 1];
                vals[j - 1] = t;
            }
        s->top[0] = 0;
        for (int i = 0; i < nv; i++) s->top[i + 1] = (int16_t)(s->top[i] + vals[i]);
        if (nv == 0) continue;
        /* insert by leave term, highest first (stable: lower index first on ties) */
        uint8_t *o = sg->order[nv];
        int k = sg->n_order[nv]++;
        while (k > 0 && sg->sub[o[k - 1]].leave < s->leave) {
            o[k] = o[k - 1];
            k--;
        }
        o[k] = (uint8_t)idx;
    }
    for (int n = 2; n <= RK_RACK_SIZE; n++)
        for (int k = 0; k < sg->n_order[n]; k++) {
            int idx = sg->order[n][k];
            const Sub *s = &sg->sub[idx];
            if (wordmap_has_word(sg->wm, n, s->key, s->blanks)) sg->np_order[n][sg->n_np_order[n]++] = (uint8_t)idx;
            sg->lookups++;
        }
}

/* ---------------------------------------------------------------- bounds */

static inline void profile_add_fresh(const Gen *g, Profile *pr, int pos) {
    int lm = g->lm[pos], wm = g->wm[pos];
    for (int v = 2; v <= lm; v++) pr->main_ge[v]++;
    if (g->hcross[pos])
        for (int v = 1; v <= lm * wm; v++) pr->cross_ge[v]++;
    pr->word_mult *= wm;
    if (g->hcross[pos]) {
        pr->fixed += g->cscore[pos] * wm;
        pr->hooked[pr->n_hooked++] = g->cross[pos];
    }
    if (g->pv != NULL) pr->positional += g->pv_max_line[pos];
    pr->n++;
}

/* Adds the board tile at pos to P; returns its face value. (No letter
 * occurs more than SPAN_MAX_P_COUNT times: push_line_spans checked.) */
static inline int profile_add_tile(const Gen *g, Profile *pr, int pos) {
    uint8_t t = g->sq[pos];
    wordkey_add(&pr->pkey, RK_LETTER(t));
    if (pr->p_tiles++ == 0) pr->p_letter0 = RK_LETTER(t);
    pr->p_letter = RK_LETTER(t);
    return ld_tile_score(g->ld, t);
}

/* The score bound (points) of the span's fresh tiles, given the sums of
 * the k highest values of the tiles played (top[k]): by the rearrangement
 * inequality the highest values on the highest multipliers, i.e. for each
 * multiplier level v the top values of as many tiles as squares reach v. */
static inline int tiles_bound(const Profile *pr, const int16_t *top) {
    int main_tiles = top[pr->n], cross_tiles = 0;
    for (int v = 2; v <= SPAN_MAX_MULT; v++) main_tiles += top[pr->main_ge[v]];
    for (int v = 1; v <= SPAN_MAX_MULT; v++) cross_tiles += top[pr->cross_ge[v]];
    return main_tiles * pr->word_mult + cross_tiles;
}

/* The bound of a span for candidates whose best leave term is `leave`, with
 * the rack's highest tiles. */
static inline int32_t span_bound(const SpanGen *sg, const Profile *pr, int psum, int32_t leave) {
    int score = pr->word_mult * psum + pr->fixed + tiles_bound(pr, sg->rack_top) +
                (pr->n == RK_RACK_SIZE ? sg->bingo : 0);
    return 1000 * score + pr->positional + leave;
}

/* ---------------------------------------------------------------- placing */

typedef struct Placing {
    int lo, len;
    const uint8_t *word;
    int blank_letter[2], n_blanks;
    int kept_idx, fresh_count;
} Placing;

/* Scores the word of pl with the fresh squares in `blank_at` (bit k: the
 * fresh square at lo + k is a blank) and offers it as the best move. */
static void offer(SpanGen *sg, const Placing *pl, uint32_t blank_at) {
    Gen *g = sg->g;
    const LetterDist *ld = g->ld;
    int main_sum = 0, word_mult = 1, cross_total = 0;
    int32_t positional = 0, opening = 0;
    Move m;
    memset(&m, 0, sizeof m);
    for (int k = 0; k < pl->len; k++) {
        int pos = pl->lo + k;
        uint8_t t = g->sq[pos];
        if (t != 0) {
            main_sum += ld_tile_score(ld, t);
            m.tiles[k] = MOVE_PLAYED_THROUGH;
            continue;
        }
        int x = pl->word[k];
        bool blank = (blank_at >> k) & 1u;
        int v = blank ? 0 : ld->score[x] * g->lm[pos];
        int wm = g->wm[pos];
        main_sum += v;
        word_mult *= wm;
        if (g->hcross[pos]) cross_total += (g->cscore[pos] + v) * wm;
        if (g->pv != NULL) positional += g->pv_line[pos * g->pv_buckets + (blank ? 0 : g->bucket_of[x])];
        if (g->empty_board && ld->vowel[x]) opening += g->opening_penalty[pos];
        m.tiles[k] = (uint8_t)(blank ? ((unsigned)x | RK_BLANK_BIT) : (unsigned)x);
    }
    int score = main_sum * word_mult + cross_total + (pl->fresh_count == RK_RACK_SIZE ? sg->bingo : 0);
    int32_t eq = 1000 * score + sg->sub[pl->kept_idx].leave;
    if (g->bag_count > 0) eq += positional + opening;
    if (g->have_best && eq < g->best.equity) return;
    m.kind = MOVE_PLACE;
    m.dir = (uint8_t)g->d;
    m.row = (uint8_t)(g->d == DIR_ACROSS ? g->line : pl->lo);
    m.col = (uint8_t)(g->d == DIR_ACROSS ? pl->lo : g->line);
    m.len = (uint8_t)pl->len;
    m.ntiles = (uint8_t)pl->fresh_count;
    m.score = score;
    m.equity = eq;
    mg_consider(g, &m);
}

/* Places one word on the span (line set): the board's letters must match and
 * every fresh letter pass its cross-set; then every choice of squares for
 * the blanks is a placement. */
static void place_word(SpanGen *sg, Placing *pl) {
    Gen *g = sg->g;
    uint32_t first_mask = 0, second_mask = 0;
    for (int k = 0; k < pl->len; k++) {
        int pos = pl->lo + k;
        int x = pl->word[k];
        uint8_t t = g->sq[pos];
        if (t != 0) {
            if (RK_LETTER(t) != x) return;
            continue;
        }
        if (!((g->cross[pos] >> x) & 1u)) return;
        if (pl->n_blanks > 0 && x == pl->blank_letter[0]) first_mask |= 1u << k;
        if (pl->n_blanks > 1 && x == pl->blank_letter[1]) second_mask |= 1u << k;
    }
    if (pl->n_blanks == 0) {
        offer(sg, pl, 0);
    } else if (pl->n_blanks == 1) {
        for (uint32_t m = first_mask; m; m &= m - 1) offer(sg, pl, m & -m);
    } else if (pl->blank_letter[0] == pl->blank_letter[1]) {
        for (uint32_t a = first_mask; a; a &= a - 1)
            for (uint32_t b = a & (a - 1); b; b &= b - 1) offer(sg, pl, (a & -a) | (b & -b));
    } else {
        for (uint32_t a = first_mask; a; a &= a - 1)
            for (uint32_t b = second_mask; b; b &= b - 1) offer(sg, pl, (a & -a) | (b & -b));
    }
}

static void place_words(SpanGen *sg, Placing *pl, WordKey key) {
    const uint8_t *words;
    uint32_t n = wordmap_words(sg->wm, pl->len, key, &words);
    sg->lookups++;
    for (uint32_t i = 0; i < n; i++) {
        pl->word = words + (size_t)i * (size_t)pl->len;
        place_word(sg, pl);
    }
}

/* Whether candidate idx plus letter x makes a word (idx has at most one blank). */
static bool plus_one_word(SpanGen *sg, int idx, int x) {
    if (!sg->plus_one_known[idx]) {
        const Sub *s = &sg->sub[idx];
        sg->plus_one[idx] = s->blanks == 0 ? wordmap_blank1(sg->wm, s->size + 1, s->key)
                                           : wordmap_blank2(sg->wm, s->size + 1, s->key);
        sg->plus_one_known[idx] = true;
        sg->lookups++;
    }
    return (sg->plus_one[idx] >> x) & 1u;
}

/* Whether candidate idx (no blank) plus letters x and y can make a word: a
 * necessary condition (both in blank2 of S), not a sufficient one. */
static bool plus_two_words(SpanGen *sg, int idx, int x, int y) {
    if (!sg->plus_two_known[idx]) {
        const Sub *s = &sg->sub[idx];
        sg->plus_two[idx] = wordmap_blank2(sg->wm, s->size + 2, s->key);
        sg->plus_two_known[idx] = true;
        sg->lookups++;
    }
    uint32_t need = (1u << x) | (1u << y);
    return (sg->plus_two[idx] & need) == need;
}

/* Every placement of candidate kept_idx on the span lo..hi (line set). */
static void place_candidate(SpanGen *sg, int lo, int hi, WordKey pkey, int kept_idx) {
    const Sub *s = &sg->sub[kept_idx];
    Placing pl = {.lo = lo, .len = hi - lo + 1, .kept_idx = kept_idx, .fresh_count = s->size, .n_blanks = s->blanks};
    WordKey key = wordkey_plus(pkey, s->key);
    if (s->blanks == 0) {
        place_words(sg, &pl, key);
        return;
    }
    if (s->blanks == 1) {
        uint32_t xs = wordmap_blank1(sg->wm, pl.len, key);
        sg->lookups++;
        for (; xs; xs &= xs - 1) {
            int x = __builtin_ctz(xs);
            WordKey k = key;
            wordkey_add(&k, x);
            pl.blank_letter[0] = x;
            place_words(sg, &pl, k);
        }
        return;
    }
    uint32_t xs = wordmap_blank2(sg->wm, pl.len, key);
    sg->lookups++;
    for (; xs; xs &= xs - 1) {
        int x = __builtin_ctz(xs);
        WordKey kx = key;
        wordkey_add(&kx, x);
        uint32_t ys = wordmap_blank1(sg->wm, pl.len, kx) & ~((1u << x) - 1u); /* y >= x */
        sg->lookups++;
        for (; ys; ys &= ys - 1) {
            int y = __builtin_ctz(ys);
            WordKey k = kx;
            wordkey_add(&k, y);
            pl.blank_letter[0] = x;
            pl.blank_letter[1] = y;
            place_words(sg, &pl, k);
        }
    }
}

/* ---------------------------------------------------------------- spans */

static const uint8_t *span_order(const SpanGen *sg, int n, bool no_p, int *count) {
    *count = no_p ? sg->n_np_order[n] : sg->n_order[n];
    return no_p ? sg->np_order[n] : sg->order[n];
}

/* Pushes every span of line `line` in orientation d whose bound reaches the
 * best move so far. Returns false if a letter occurs on the line more often
 * than a key may count, or a square's multipliers exceed SPAN_MAX_MULT (the
 * graph path then takes the position). */
static bool push_line_spans(SpanGen *sg, int d, int line) {
    Gen *g = sg->g;
    mg_set_line(g, d, line);
    int dim = g->dim;
    bool any_anchor = false;
    for (int p = 0; p < dim && !any_anchor; p++) any_anchor = g->anchors[p] != 0;
    if (!any_anchor) return true;
    /* per position: face values and tiles of the line before it; per empty
     * square: the last square of the tiles right after it */
    int psum_before[RK_MAX_DIM + 1], tiles_before[RK_MAX_DIM + 1];
    int empties[RK_MAX_DIM], hi_of[RK_MAX_DIM], m = 0;
    uint8_t letter_count[RK_MAX_LETTERS] = {0};
    psum_before[0] = tiles_before[0] = 0;
    for (int p = 0; p < dim; p++) {
        uint8_t t = g->sq[p];
        if (g->lm[p] * g->wm[p] > SPAN_MAX_MULT) return false;
        psum_before[p + 1] = psum_before[p] + (t ? ld_tile_score(g->ld, t) : 0);
        tiles_before[p + 1] = tiles_before[p] + (t != 0);
        if (t == 0) {
            empties[m] = p;
            int hi = p;
            while (hi + 1 < dim && g->sq[hi + 1] != 0) hi++;
            hi_of[m++] = hi;
        } else if (++letter_count[RK_LETTER(t)] > SPAN_MAX_P_COUNT) {
            return false;
        }
    }
    int total = g->full_rack_total;
    for (int i = 0; i < m; i++) {
        int first = empties[i];
        if ((g->cross[first] & g->rack_letters) == 0) continue;
        Profile pr = {.n = 0, .word_mult = 1};
        int lo = first;
        while (lo > 0 && g->sq[lo - 1] != 0) lo--;
        bool anchor = false;
        for (int j = i; j < m && pr.n < total; j++) {
            int f = empties[j];
            if ((g->cross[f] & g->rack_letters) == 0) break;
            profile_add_fresh(g, &pr, f);
            anchor = anchor || g->anchors[f];
            int hi = hi_of[j];
            if (!anchor || hi - lo + 1 < 2) continue;
            if (d == DIR_DOWN && pr.n == 1 && g->hcross[f]) continue; /* listed as the across move */
            bool no_p = tiles_before[hi + 1] == tiles_before[lo];
            int count;
            const uint8_t *order = span_order(sg, pr.n, no_p, &count);
            if (count == 0) continue;
            int psum = psum_before[hi + 1] - psum_before[lo];
            int32_t bound = span_bound(sg, &pr, psum, sg->sub[order[0]].leave);
            if (g->have_best && bound < g->best.equity) continue;
            sg->heap[sg->n_heap++] = (Span){bound, (uint8_t)d, (uint8_t)line, (uint8_t)lo, (uint8_t)hi, (uint8_t)pr.n, no_p};
        }
    }
    return true;
}

/* Takes the span's candidates in order of leave term while their bound
 * reaches the best move so far: each that passes its own bound and the
 * cross-sets has its words looked up and placed. (Putting the span back
 * into the heap after each candidate, so that candidates of all spans go in
 * one order, cost more in heap work and profiles than it saved: 2.66G
 * against 1.71G instructions for 60 self-play games.) */
static void search_span(SpanGen *sg, Span s) {
    Gen *g = sg->g;
    mg_set_line(g, s.d, s.line);
    Profile pr = {.n = 0, .word_mult = 1};
    int psum = 0;
    for (int p = s.lo; p <= s.hi; p++) {
        if (g->sq[p] != 0) psum += profile_add_tile(g, &pr, p);
        else profile_add_fresh(g, &pr, p);
    }
    int count;
    const uint8_t *order = span_order(sg, s.n, s.no_p, &count);
    int32_t base = span_bound(sg, &pr, psum, 0);
    int extra = pr.word_mult * psum + pr.fixed + (pr.n == RK_RACK_SIZE ? sg->bingo : 0);
    for (int c = 0; c < count; c++) {
        const Sub *sub = &sg->sub[order[c]];
        int32_t key = base + sub->leave;
        if (g->have_best && key < g->best.equity) return;
        int32_t own = 1000 * (extra + tiles_bound(&pr, sub->top)) + pr.positional + sub->leave;
        if (g->have_best && own < g->best.equity) continue;
        /* each hooked square needs a letter of S its cross-set allows, or a blank */
        int need_blank = 0;
        for (int h = 0; h < pr.n_hooked; h++) need_blank += (pr.hooked[h] & sub->letters) == 0;
        if (need_blank > sub->blanks) continue;
        if (pr.p_tiles == 1 && sub->blanks < 2 && !plus_one_word(sg, order[c], pr.p_letter)) continue;
        if (pr.p_tiles == 2 && sub->blanks == 0 && !plus_two_words(sg, order[c], pr.p_letter0, pr.p_letter)) continue;
        place_candidate(sg, s.lo, s.hi, pr.pkey, order[c]);
    }
}

bool mg_best_from_wordmap(Gen *g, MoveGenStats *stats) {
    const WordMap *wm = g->k->wordmap;
    if (wm == NULL || wm->alphabet != g->ld->size) return false;
    if (g->full_rack_total == 0) return true;
    SpanGen sgs; /* about 93 KB, most of it the heap's room, never touched beyond its use */
    SpanGen *sg = &sgs;
    sg->g = g;
    sg->wm = wm;
    sg->n_heap = 0;
    sg->popped = sg->lookups = 0;
    memset(sg->plus_one_known, 0, sizeof sg->plus_one_known);
    memset(sg->plus_two_known, 0, sizeof sg->plus_two_known);
    sg->bingo = g->b->layout->bingo_bonus;
    setup_subs(sg);
    int ndirs = g->empty_board ? 1 : 2;
    for (int d = 0; d < ndirs; d++)
        for (int line = 0; line < g->dim; line++)
            if (!push_line_spans(sg, d, line)) return false;
    heap_build(sg);
    uint64_t pushed = (uint64_t)sg->n_heap;
    while (sg->n_heap > 0) {
        if (g->have_best && sg->heap[0].key < g->best.equity) break;
        Span s = heap_pop(sg);
        sg->popped++;
        search_span(sg, s);
        if (mg_done(g)) break;
    }
    if (stats) {
        stats->spans_pushed += pushed;
        stats->spans_searched += sg->popped;
        stats->wordmap_lookups += sg->lookups;
    }
    return true;
}
