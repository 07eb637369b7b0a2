/*
 * movegen.c - the GADDAG move generator (movegen.h): every placement from
 * every anchor, exchanges and the pass; the best or the k best with
 * per-anchor shadow bounds (the graph path, when the lexicon has no word
 * map); a given move's equity. The per-call set-up is movegen_setup.c, the
 * word-map path movegen_span.c.
 */
#include "movegen.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "movegen_internal.h"

/* ---------------------------------------------------------------- order */

int movegen_compare(const Move *a, const Move *b) {
    if (a->equity != b->equity) return a->equity > b->equity ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->dir != b->dir) return a->dir < b->dir ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return memcmp(a->tiles, b->tiles, a->len);
}

/* ---------------------------------------------------------------- lines */

void mg_set_line(Gen *g, int d, int line) {
    const Board *b = g->b;
    int off = line * g->dim;
    g->d = d;
    g->line = line;
    g->sq = b->sq[d] + off;
    g->lm = b->lm[d] + off;
    g->wm = b->wm[d] + off;
    g->hcross = b->has_cross[d] + off;
    g->anchors = b->anchor[d] + off;
    g->cross = b->cross[d] + off;
    g->cscore = b->cross_score[d] + off;
    if (g->pv != NULL) {
        g->pv_line = g->pv + (size_t)off * (size_t)g->pv_buckets;
        g->pv_max_line = g->pv_max + off;
    }
}

/* ---------------------------------------------------------------- record */

/* The running score of the move being built: face values of the main word
 * (letter multipliers applied), the product of the fresh squares' word
 * multipliers, and the cross-words' total. Passed by value so that it lives
 * in registers. */
typedef struct Score {
    int main_sum, word_mult, cross_total;
    int32_t positional; /* sum of the fresh tiles' positional values */
} Score;

static int32_t placement_equity(const Gen *g, int score, int32_t positional, int lo, int hi) {
    int32_t eq = score * 1000;
    if (g->bag_count > 0) {
        eq += g->leave_val[g->leave_idx] + positional;
        if (g->empty_board) {
            for (int p = lo; p <= hi; p++) {
                uint8_t t = g->placed[p];
                if (t != 0 && g->ld->vowel[RK_LETTER(t)]) eq += g->opening_penalty[p];
            }
        }
    } else if (g->rack_total == 0) {
        eq += 2000 * g->opp_rack_score;
    } else {
        eq -= 1000 * (10 + 2 * g->kept_face[g->leave_idx]);
    }
    return eq;
}

static void fill_move(const Gen *g, Move *m, int lo, int hi, int score, int32_t equity) {
    m->kind = MOVE_PLACE;
    m->dir = (uint8_t)g->d;
    m->row = (uint8_t)(g->d == DIR_ACROSS ? g->line : lo);
    m->col = (uint8_t)(g->d == DIR_ACROSS ? lo : g->line);
    m->len = (uint8_t)(hi - lo + 1);
    m->ntiles = (uint8_t)(g->full_rack_total - g->rack_total);
    for (int p = lo; p <= hi; p++) m->tiles[p - lo] = g->placed[p];
    m->score = score;
    m->equity = equity;
}

static void record(Gen *g, int lo, int hi, Score sc) {
    int ntiles = g->full_rack_total - g->rack_total;
    if (hi - lo + 1 < 2 || ntiles == 0) return;
    if (g->d == DIR_DOWN && ntiles == 1) {
        /* a single tile with an across word is listed as the across move */
        for (int p = lo; p <= hi; p++)
            if (g->placed[p] != 0 && g->hcross[p]) return;
    }
    int score = sc.main_sum * sc.word_mult + sc.cross_total +
                (ntiles == RK_RACK_SIZE ? g->b->layout->bingo_bonus : 0);
    int32_t eq = placement_equity(g, score, sc.positional, lo, hi);
    if (g->mode == GEN_ALL) {
        fill_move(g, movelist_push(g->out), lo, hi, score, eq);
        g->placements++;
        return;
    }
    if (g->have_best && eq < g->best.equity) return;
    Move m;
    memset(&m, 0, sizeof m);
    fill_move(g, &m, lo, hi, score, eq);
    mg_consider(g, &m);
}

/* ---------------------------------------------------------------- search */

/* The search from one anchor, along the line set by set_line(). gen_left
 * reads or fills square pos (the anchor or left of it) with a child of the
 * sibling list `list` (GADDAG: letters read right to left), gen_right
 * reads or fills square pos right of the anchor (letters after the
 * separator). The *_on functions handle the node just taken at pos. */
static void gen_left(Gen *g, int pos, uint32_t list, Score sc);
static void gen_right(Gen *g, int pos, uint32_t list, Score sc);

static inline void left_on(Gen *g, int pos, uint32_t node, Score sc) {
    bool left_free = pos == 0 || g->sq[pos - 1] == 0;
    if (left_free && g->anchor_right_free && (node & KWG_ACCEPTS_BIT)) record(g, pos, g->anchor_pos, sc);
    uint32_t arc = node & KWG_ARC_MASK;
    if (arc == 0) return;
    /* the separator, if any, is the first child (tile 0) */
    uint32_t first = g->nodes[arc];
    bool has_sep = (first >> 24) == KWG_SEPARATOR;
    if (pos > 0 && !(has_sep && (first & KWG_IS_END_BIT))) {
        /* an empty anchor square to the left belongs to that anchor's moves */
        if (!left_free || (g->rack_total > 0 && !g->anchors[pos - 1])) gen_left(g, pos - 1, arc + has_sep, sc);
    }
    if (has_sep && left_free && g->can_go_right) {
        uint32_t after = first & KWG_ARC_MASK;
        if (after != 0) {
            int saved = g->left_end;
            g->left_end = pos;
            gen_right(g, g->anchor_pos + 1, after, sc);
            g->left_end = saved;
        }
    }
}

static inline void right_on(Gen *g, int pos, uint32_t node, Score sc) {
    bool right_free = pos == g->dim - 1 || g->sq[pos + 1] == 0;
    if (right_free && (node & KWG_ACCEPTS_BIT)) record(g, g->left_end, pos, sc);
    if (pos < g->dim - 1) {
        uint32_t arc = node & KWG_ARC_MASK;
        if (arc != 0 && (!right_free || g->rack_total > 0)) gen_right(g, pos + 1, arc, sc);
    }
}

/* Index of the child of `list` with letter ml, or 0. */
static inline uint32_t find_child(const uint32_t *nodes, uint32_t list, int ml) {
    for (uint32_t i = list;; i++) {
        uint32_t node = nodes[i];
        int t = (int)(node >> 24);
        if (t == ml) return i;
        if (t > ml || (node & KWG_IS_END_BIT)) return 0;
    }
}

/* Fills empty square pos with every letter of `list` the rack (or the blank)
 * can supply there; on_left selects the continuation. */
static inline void fill_square(Gen *g, int pos, uint32_t list, Score sc, bool on_left) {
    const uint32_t *nodes = g->nodes;
    bool have_blank = g->rack[0] > 0;
    uint64_t usable = g->cross[pos] & (have_blank ? g->b->all_letters : g->rack_mask);
    if (usable == 0) return;
    int top_letter = 63 - __builtin_clzll(usable);
    int lm = g->lm[pos], wm = g->wm[pos];
    bool hc = g->hcross[pos] != 0;
    int cs = g->cscore[pos];
    const int32_t *pv = g->pv != NULL ? g->pv_line + pos * g->pv_buckets : NULL;
    Score blank_sc = {sc.main_sum, sc.word_mult * wm, sc.cross_total + (hc ? cs * wm : 0),
                      sc.positional + (pv ? pv[0] : 0)};
    g->rack_total--;
    for (uint32_t j = list;; j++) {
        uint32_t node = nodes[j];
        int x = (int)(node >> 24);
        if (x > top_letter) break;
        if ((usable >> x) & 1u) {
            if (g->rack[x] > 0) {
                int v = g->ld->score[x] * lm;
                Score nsc = {sc.main_sum + v, blank_sc.word_mult, sc.cross_total + (hc ? (cs + v) * wm : 0),
                             sc.positional + (pv ? pv[g->bucket_of[x]] : 0)};
                g->placed[pos] = (uint8_t)x;
                if (--g->rack[x] == 0) g->rack_mask &= ~((uint64_t)1 << x);
                g->leave_idx -= g->stride[x];
                if (on_left) left_on(g, pos, node, nsc);
                else right_on(g, pos, node, nsc);
                g->leave_idx += g->stride[x];
                if (g->rack[x]++ == 0) g->rack_mask |= (uint64_t)1 << x;
            }
            if (have_blank) {
                g->placed[pos] = (uint8_t)(x | RK_BLANK_BIT);
                g->rack[0]--;
                g->leave_idx -= g->stride[0];
                if (on_left) left_on(g, pos, node, blank_sc);
                else right_on(g, pos, node, blank_sc);
                g->leave_idx += g->stride[0];
                g->rack[0]++;
            }
            g->placed[pos] = 0;
        }
        if (node & KWG_IS_END_BIT) break;
    }
    g->rack_total++;
}

static void gen_left(Gen *g, int pos, uint32_t list, Score sc) {
    uint8_t t = g->sq[pos];
    if (t != 0) {
        uint32_t j = find_child(g->nodes, list, RK_LETTER(t));
        if (j == 0) return;
        sc.main_sum += ld_tile_score(g->ld, t);
        left_on(g, pos, g->nodes[j], sc);
        return;
    }
    fill_square(g, pos, list, sc, true);
}

static void gen_right(Gen *g, int pos, uint32_t list, Score sc) {
    uint8_t t = g->sq[pos];
    if (t != 0) {
        uint32_t j = find_child(g->nodes, list, RK_LETTER(t));
        if (j == 0) return;
        sc.main_sum += ld_tile_score(g->ld, t);
        right_on(g, pos, g->nodes[j], sc);
        return;
    }
    fill_square(g, pos, list, sc, false);
}

static void search_anchor(Gen *g, int d, int line, int pos) {
    mg_set_line(g, d, line);
    g->anchor_pos = pos;
    g->left_end = pos;
    g->anchor_right_free = pos == g->dim - 1 || g->sq[pos + 1] == 0;
    g->can_go_right = pos < g->dim - 1;
    uint32_t root = kwg_gaddag_root(g->k);
    Score sc = {0, 1, 0, 0};
    if (root != 0 && g->rack_total > 0) gen_left(g, pos, root, sc);
}

/* ---------------------------------------------------------------- exchanges */

void mg_exchanges(Gen *g) {
    /* every kept sub-multiset other than the whole rack is one exchange */
    int full = g->n_subracks - 1;
    int32_t top_eq = INT32_MIN;
    int top_kept = -1;
    if (g->mode == GEN_BEST) {
        /* exchanges rank by equity (the leave), then fewer tiles thrown:
         * only those first on both can be the best */
        for (int idx = 0; idx < full; idx++) {
            int32_t v = g->leave_val[idx];
            if (v > top_eq || (v == top_eq && g->kept_size[idx] > top_kept)) {
                top_eq = v;
                top_kept = g->kept_size[idx];
            }
        }
    }
    for (int idx = 0; idx < full; idx++) {
        if (g->mode == GEN_BEST && (g->leave_val[idx] != top_eq || g->kept_size[idx] != top_kept)) continue;
        Move m;
        memset(&m, 0, sizeof m);
        m.kind = MOVE_EXCHANGE;
        /* thrown tiles = rack minus kept, decoded from the index */
        int n = 0;
        for (int ml = 0; ml < g->ld->size; ml++) {
            if (g->stride[ml] == 0) continue;
            int c = g->rack[ml] + 1;
            int kept = (idx / g->stride[ml]) % c;
            for (int i = kept; i < g->rack[ml]; i++) m.tiles[n++] = (uint8_t)ml;
        }
        m.len = m.ntiles = (uint8_t)n;
        m.score = 0;
        m.equity = g->leave_val[idx];
        if (g->mode == GEN_ALL) *movelist_push(g->out) = m;
        else mg_consider(g, &m);
    }
}

static void make_pass(Move *m) {
    memset(m, 0, sizeof *m);
    m->kind = MOVE_PASS;
    m->equity = PASS_EQUITY;
}

/* ---------------------------------------------------------------- public */

size_t movegen_all(const MoveGenRequest *req, MoveList *out) {
    Gen g;
    movelist_clear(out);
    mg_init(&g, req, GEN_ALL, out);
    int dim = g.dim;
    int ndirs = g.empty_board ? 1 : 2;
    for (int d = 0; d < ndirs; d++)
        for (int line = 0; line < dim; line++)
            for (int pos = 0; pos < dim; pos++)
                if (req->board->anchor[d][line * dim + pos]) search_anchor(&g, d, line, pos);
    if (req->exchanges_allowed && req->rack->total > 0) mg_exchanges(&g);
    make_pass(movelist_push(out));
    return g.placements;
}

/* ---------------------------------------------------------------- shadow */

/* Sorted (descending) multiplier lists of the fresh squares of a span, so the
 * rack's highest values can be paired with the highest multipliers: by the
 * rearrangement inequality no real assignment of tiles scores more. */
typedef struct Shadow {
    int n;                       /* fresh squares */
    int main_lm[RK_RACK_SIZE];   /* letter multipliers (main word) */
    int cross_lm[RK_RACK_SIZE];  /* letter x word multiplier of squares with a cross-word, else 0 */
    int word_mult, occupied, cross_fixed;
    int32_t positional; /* per fresh square, the largest positional value of a rack tile */
} Shadow;

static void insert_desc(int *a, int n, int v) {
    int j = n;
    while (j > 0 && a[j - 1] < v) {
        a[j] = a[j - 1];
        j--;
    }
    a[j] = v;
}

static void shadow_add(const Gen *g, Shadow *sh, int pos) {
    int lm = g->lm[pos], wm = g->wm[pos];
    insert_desc(sh->main_lm, sh->n, lm);
    insert_desc(sh->cross_lm, sh->n, g->hcross[pos] ? lm * wm : 0);
    sh->word_mult *= wm;
    if (g->hcross[pos]) sh->cross_fixed += g->cscore[pos] * wm;
    if (g->pv != NULL) sh->positional += g->pv_max_line[pos];
    sh->n++;
}

/* Upper bound on the equity of any move with exactly these fresh squares,
 * without the bingo bonus. */
static int32_t shadow_equity(const Gen *g, const Shadow *sh) {
    int main_tiles = 0, cross_tiles = 0;
    for (int i = 0; i < sh->n; i++) {
        main_tiles += g->tile_vals[i] * sh->main_lm[i];
        cross_tiles += g->tile_vals[i] * sh->cross_lm[i];
    }
    int score = sh->occupied * sh->word_mult + main_tiles * sh->word_mult + cross_tiles + sh->cross_fixed;
    int32_t eq = 1000 * score;
    int kept = g->full_rack_total - sh->n;
    if (g->bag_count > 0) eq += g->best_leave_of_size[kept] + sh->positional;
    else if (kept == 0) eq += 2000 * g->opp_rack_score;
    /* the opening penalty and the empty-bag penalty for kept tiles are never
     * positive, so leaving them out keeps the bound admissible */
    return eq;
}

static bool square_blocked(const Gen *g, int pos) { return (g->cross[pos] & g->rack_letters) == 0; }

/* Sum of face values of the tiles from pos onwards in direction step while
 * the squares are occupied; *end gets the first square past them. */
static int occupied_run(const Gen *g, int pos, int step, int *end) {
    int sum = 0;
    while (pos >= 0 && pos < g->dim && g->sq[pos] != 0) {
        sum += ld_tile_score(g->ld, g->sq[pos]);
        pos += step;
    }
    *end = pos;
    return sum;
}

/* The best equity any move generated from this anchor could have. Moves from
 * an anchor place a tile on it, may place tiles leftwards only on empty
 * non-anchor squares (so those have no cross-words), and extend rightwards
 * over tiles and empty squares. Every span of RK_RACK_SIZE fresh squares
 * counts the bingo bonus; *no_bingo gets the bound without any bingo. */
static int32_t anchor_bound(Gen *g, int d, int line, int a, int32_t *no_bingo) {
    mg_set_line(g, d, line);
    *no_bingo = INT32_MIN;
    int total = g->full_rack_total;
    if (total == 0 || square_blocked(g, a)) return INT32_MIN;
    int left_end;
    int left_occ = occupied_run(g, a - 1, -1, &left_end);
    Shadow base = {.n = 0, .word_mult = 1, .occupied = left_occ, .cross_fixed = 0, .positional = 0};
    int max_left = 0;
    if (left_occ == 0 && left_end == a - 1) {
        for (int p = a - 1; p >= 0 && max_left < total - 1; p--) {
            if (g->sq[p] != 0 || g->anchors[p] || square_blocked(g, p)) break;
            max_left++;
        }
    }
    int32_t best = INT32_MIN;
    shadow_add(g, &base, a);
    for (int kl = 0; kl <= max_left; kl++) {
        if (kl > 0) shadow_add(g, &base, a - kl);
        Shadow sh = base;
        int p;
        sh.occupied += occupied_run(g, a + 1, 1, &p);
        for (;;) {
            /* a one-square word is not a move, but the bound may include it */
            int32_t eq = shadow_equity(g, &sh);
            if (eq > best) best = eq;
            if (eq > *no_bingo) *no_bingo = eq;
            if (sh.n == RK_RACK_SIZE) {
                eq += 1000 * g->b->layout->bingo_bonus;
                if (eq > best) best = eq;
            }
            if (sh.n >= total || p >= g->dim || square_blocked(g, p)) break;
            shadow_add(g, &sh, p);
            sh.occupied += occupied_run(g, p + 1, 1, &p);
        }
    }
    return best;
}

/* Bingos on the span lo..hi (every empty square in it gets a rack tile):
 * a search of the DAWG from left to right, recording each word found. */
static void span_square(Gen *g, int pos, int hi, uint32_t list, Score sc);

static void span_on(Gen *g, int pos, int hi, uint32_t node, Score sc) {
    if (pos == hi) {
        if (node & KWG_ACCEPTS_BIT) record(g, g->left_end, hi, sc);
        return;
    }
    uint32_t arc = node & KWG_ARC_MASK;
    if (arc != 0) span_square(g, pos + 1, hi, arc, sc);
}

static void span_square(Gen *g, int pos, int hi, uint32_t list, Score sc) {
    const uint32_t *nodes = g->nodes;
    uint8_t t = g->sq[pos];
    if (t != 0) {
        uint32_t j = find_child(nodes, list, RK_LETTER(t));
        if (j == 0) return;
        sc.main_sum += ld_tile_score(g->ld, t);
        span_on(g, pos, hi, nodes[j], sc);
        return;
    }
    bool have_blank = g->rack[0] > 0;
    uint64_t usable = g->cross[pos] & (have_blank ? g->b->all_letters : g->rack_mask);
    if (usable == 0) return;
    int top_letter = 63 - __builtin_clzll(usable);
    int lm = g->lm[pos], wm = g->wm[pos];
    bool hc = g->hcross[pos] != 0;
    int cs = g->cscore[pos];
    const int32_t *pv = g->pv != NULL ? g->pv_line + pos * g->pv_buckets : NULL;
    Score blank_sc = {sc.main_sum, sc.word_mult * wm, sc.cross_total + (hc ? cs * wm : 0),
                      sc.positional + (pv ? pv[0] : 0)};
    g->rack_total--;
    for (uint32_t j = list;; j++) {
        uint32_t node = nodes[j];
        int x = (int)(node >> 24);
        if (x > top_letter) break;
        if ((usable >> x) & 1u) {
            if (g->rack[x] > 0) {
                int v = g->ld->score[x] * lm;
                Score nsc = {sc.main_sum + v, blank_sc.word_mult, sc.cross_total + (hc ? (cs + v) * wm : 0),
                             sc.positional + (pv ? pv[g->bucket_of[x]] : 0)};
                g->placed[pos] = (uint8_t)x;
                if (--g->rack[x] == 0) g->rack_mask &= ~((uint64_t)1 << x);
                g->leave_idx -= g->stride[x];
                span_on(g, pos, hi, node, nsc);
                g->leave_idx += g->stride[x];
                if (g->rack[x]++ == 0) g->rack_mask |= (uint64_t)1 << x;
            }
            if (have_blank) {
                g->placed[pos] = (uint8_t)(x | RK_BLANK_BIT);
                g->rack[0]--;
                g->leave_idx -= g->stride[0];
                span_on(g, pos, hi, node, blank_sc);
                g->leave_idx += g->stride[0];
                g->rack[0]++;
            }
            g->placed[pos] = 0;
        }
        if (node & KWG_IS_END_BIT) break;
    }
    g->rack_total++;
}

/* Every bingo generated from anchor a (line set) whose span's bound reaches
 * the best move found so far. Moves from a are the ones anchor_bound()
 * describes; a bingo fills a span of RK_RACK_SIZE fresh squares of them. */
static void anchor_bingos(Gen *g, int d, int line, int a) {
    mg_set_line(g, d, line);
    int total = g->full_rack_total;
    uint32_t root = kwg_dawg_root(g->k);
    if (total != RK_RACK_SIZE || root == 0 || square_blocked(g, a)) return;
    int left_end;
    int left_occ = occupied_run(g, a - 1, -1, &left_end);
    Shadow base = {.n = 0, .word_mult = 1, .occupied = left_occ, .cross_fixed = 0, .positional = 0};
    int max_left = 0;
    if (left_occ == 0 && left_end == a - 1) {
        for (int p = a - 1; p >= 0 && max_left < total - 1; p--) {
            if (g->sq[p] != 0 || g->anchors[p] || square_blocked(g, p)) break;
            max_left++;
        }
    }
    shadow_add(g, &base, a);
    for (int kl = 0; kl <= max_left; kl++) {
        if (kl > 0) shadow_add(g, &base, a - kl);
        Shadow sh = base;
        int p;
        sh.occupied += occupied_run(g, a + 1, 1, &p);
        while (sh.n < total && p < g->dim && !square_blocked(g, p)) {
            shadow_add(g, &sh, p);
            sh.occupied += occupied_run(g, p + 1, 1, &p);
        }
        if (sh.n < total) continue;
        int32_t eq = shadow_equity(g, &sh) + 1000 * g->b->layout->bingo_bonus;
        if (eq < g->best.equity) continue;
        int lo = kl > 0 ? a - kl : left_end + 1;
        g->left_end = lo;
        Score sc = {0, 1, 0, 0};
        span_square(g, lo, p - 1, root, sc);
    }
}

typedef struct AnchorRef {
    int32_t bound;    /* without bingos (used for the order) */
    int32_t bingo;    /* with bingos, not checked */
    uint8_t d, line, pos;
} AnchorRef;

static int by_bound_desc(const void *x, const void *y) {
    const AnchorRef *a = x, *b = y;
    if (a->bound != b->bound) return a->bound > b->bound ? -1 : 1;
    if (a->d != b->d) return a->d - b->d;
    if (a->line != b->line) return a->line - b->line;
    return a->pos - b->pos;
}

/* The graph path of movegen_best (g set up, exchanges offered). */
static void best_from_anchors(Gen *g, const MoveGenRequest *req, MoveGenStats *stats) {
    int dim = g->dim;
    int ndirs = g->empty_board ? 1 : 2;
    AnchorRef anchors[2 * RK_MAX_SQUARES];
    int n = 0;
    for (int d = 0; d < ndirs; d++)
        for (int line = 0; line < dim; line++)
            for (int pos = 0; pos < dim; pos++)
                if (req->board->anchor[d][line * dim + pos]) {
                    int32_t no_bingo;
                    int32_t bound = anchor_bound(g, d, line, pos, &no_bingo);
                    if (bound == INT32_MIN) continue;
                    anchors[n++] = (AnchorRef){no_bingo, bound, (uint8_t)d, (uint8_t)line, (uint8_t)pos};
                }
    qsort(anchors, (size_t)n, sizeof anchors[0], by_bound_desc);
    /* Anchors are searched by their bound without bingos: the bingo bonus
     * makes bounds loose (bingos are rarely possible) and falls on the
     * anchors with the largest searches. Those this loop does not reach are
     * then only checked for bingos, span by span. */
    int searched = 0, i = 0;
    for (; i < n; i++) {
        /* equal bounds are still searched so ties resolve as in movegen_compare */
        if (g->have_best && anchors[i].bound < g->best.equity) break;
        search_anchor(g, anchors[i].d, anchors[i].line, anchors[i].pos);
        searched++;
        if (mg_done(g)) return;
    }
    /* the best move is known here (the loop above only stops then); only a
     * bingo from the remaining anchors could beat or tie it */
    for (; i < n && !mg_done(g); i++) {
        const AnchorRef *a = &anchors[i];
        if (a->bingo < g->best.equity) continue;
        anchor_bingos(g, a->d, a->line, a->pos);
    }
    if (stats) {
        stats->anchors_searched += (uint64_t)searched;
        stats->anchors_pruned += (uint64_t)(n - searched);
    }
}

void movegen_best(const MoveGenRequest *req, Move *best, MoveGenStats *stats) {
    Gen g;
    mg_init(&g, req, GEN_BEST, NULL);
    if (req->exchanges_allowed && req->rack->total > 0) mg_exchanges(&g);
    if (!mg_best_from_wordmap(&g, stats)) best_from_anchors(&g, req, stats);
    if (g.have_best) *best = g.best;
    else make_pass(best);
}

bool movegen_beats(const MoveGenRequest *req, int32_t floor) {
    if (floor == INT32_MAX) return false;
    Gen g;
    mg_init(&g, req, GEN_BEST, NULL);
    /* the stand-in: a pass at floor + 1, after every real move of that equity
     * in movegen_compare order, so a move at floor + 1 or above replaces it */
    make_pass(&g.best);
    g.best.equity = floor + 1;
    g.best.score = INT32_MIN;
    g.have_best = true;
    g.stop_at_first = true;
    if (req->exchanges_allowed && req->rack->total > 0) mg_exchanges(&g);
    if (!mg_done(&g) && !mg_best_from_wordmap(&g, NULL)) best_from_anchors(&g, req, NULL);
    return g.best.kind != MOVE_PASS;
}

/* The heap of GEN_TOP: top[0] is the worst of the top_n kept. Puts m at
 * the root's place and lets it sink below the worse children. */
static void top_sift_down(Gen *g, Move m) {
    Move *h = g->top;
    int n = g->top_n, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && g->top_cmp(&h[c + 1], &h[c]) > 0) c++; /* the worse child */
        if (g->top_cmp(&h[c], &m) <= 0) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = m;
}

void mg_top_offer(Gen *g, const Move *m) {
    Move *h = g->top;
    if (g->top_n < g->top_k) {
        int i = g->top_n++;
        while (i > 0 && g->top_cmp(&h[(i - 1) / 2], m) < 0) { /* the parent is better: m goes up */
            h[i] = h[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        h[i] = *m;
    } else if (g->top_cmp(m, &h[0]) < 0) { /* better than the worst kept */
        top_sift_down(g, *m);
    }
    if (g->top_n == g->top_k) {
        g->best = h[0];
        g->have_best = true;
    }
}

size_t movegen_top(const MoveGenRequest *req, int k, MoveCompareFn cmp, MoveList *out) {
    movelist_clear(out);
    if (k < 1) return 0;
    Move stack_heap[MOVEGEN_TOP_MAX];
    Move *heap = k <= MOVEGEN_TOP_MAX ? stack_heap : malloc((size_t)k * sizeof *heap);
    if (heap == NULL) abort(); /* as movelist_push does when out of memory */
    Gen g;
    mg_init(&g, req, GEN_TOP, NULL);
    g.top = heap;
    g.top_k = k;
    g.top_n = 0;
    g.top_cmp = cmp;
    if (req->exchanges_allowed && req->rack->total > 0) mg_exchanges(&g);
    if (!mg_best_from_wordmap(&g, NULL)) best_from_anchors(&g, req, NULL);
    Move pass;
    make_pass(&pass);
    mg_top_offer(&g, &pass);
    /* best first: the worst comes off the heap first and goes last */
    size_t n = (size_t)g.top_n;
    for (size_t i = 0; i < n; i++) movelist_push(out);
    for (size_t i = n; i-- > 0;) {
        out->moves[i] = heap[0];
        Move last = heap[--g.top_n];
        if (g.top_n > 0) top_sift_down(&g, last);
    }
    if (heap != stack_heap) free(heap);
    return n;
}

void movegen_request_for_game(MoveGenRequest *req, const Game *g) {
    memset(req, 0, sizeof *req);
    req->board = &g->board;
    req->rack = &g->racks[g->on_turn];
    req->bag_count = g->bag.count;
    req->exchanges_allowed = game_can_exchange(g);
    req->opp_rack_score = rack_score(&g->racks[1 - g->on_turn], g->ld);
}

int32_t move_leave_value(LeaveValueFn leave_value, const void *ctx, const Rack *rack, const Move *m) {
    if (leave_value == NULL) return 0;
    Rack kept;
    move_kept_tiles(rack, m, &kept);
    return kept.total > 0 ? leave_value(ctx, &kept) : 0;
}

int32_t movegen_move_equity(const MoveGenRequest *req, const Move *m) {
    if (m->kind == MOVE_PASS) return PASS_EQUITY;
    int32_t leave = req->bag_count > 0 ? move_leave_value(req->leave_value, req->leave_ctx, req->rack, m) : 0;
    if (m->kind == MOVE_EXCHANGE) return leave;
    const Board *b = req->board;
    int32_t eq = 1000 * board_score_move(b, m);
    Rack kept;
    move_kept_tiles(req->rack, m, &kept);
    if (req->bag_count > 0) {
        eq += leave;
        if (board_is_empty(b)) {
            const LetterDist *ld = b->ld;
            for (int i = 0; i < m->len; i++) {
                uint8_t t = m->tiles[i];
                int at = m->dir == DIR_ACROSS ? m->col + i : m->row + i;
                if (t != MOVE_PLAYED_THROUGH && ld->vowel[RK_LETTER(t)]) eq += mg_opening_penalty(b->layout, at);
            }
        }
    } else if (kept.total == 0) {
        eq += 2000 * req->opp_rack_score;
    } else {
        eq -= 1000 * (10 + 2 * rack_score(&kept, b->ld));
    }
    return eq;
}

bool movegen_find(const struct Game *g, Move *m) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    MoveList list;
    movelist_init(&list);
    movegen_all(&req, &list);
    bool found = false;
    for (size_t i = 0; i < list.count && !found; i++)
        if (move_same(&list.moves[i], m)) {
            *m = list.moves[i];
            found = true;
        }
    movelist_free(&list);
    return found;
}
