/*
 * movegen_internal.h - what the two best-move paths share inside the
 * generator: the per-call state (rack, leave value of every kept sub-rack,
 * positional values, the best move so far) and its set-up (movegen_setup.c).
 * movegen.c walks the GADDAG from anchors; movegen_span.c takes words from
 * the word map (wordmap.h) span by span. Not part of the engine's interface.
 */
#ifndef ROOKERY_MOVEGEN_INTERNAL_H
#define ROOKERY_MOVEGEN_INTERNAL_H

#include "movegen.h"

#define PASS_EQUITY (INT32_MIN / 2)
#define MAX_SUBRACKS 256 /* product of (count+1) over a 7-tile rack is at most 128 */

/* GEN_ALL lists every move; GEN_BEST keeps the best (movegen_compare);
 * GEN_TOP keeps the k best in a heap (movegen_top), with `best` the k-th
 * once there are k, so the best-move pruning cuts at the k-th. */
typedef enum { GEN_ALL, GEN_BEST, GEN_TOP } GenMode;

typedef struct Gen {
    const Board *b;
    const Kwg *k;
    const uint32_t *nodes;
    const LetterDist *ld;
    GenMode mode;
    int dim;
    /* the line being searched */
    int d, line, anchor_pos, left_end;
    const uint8_t *sq, *lm, *wm, *hcross, *anchors;
    const uint64_t *cross;
    const int16_t *cscore;
    /* the rack and the move being built */
    uint8_t rack[RK_MAX_LETTERS];
    uint64_t rack_mask; /* letters (not the blank) still on the rack */
    int rack_total, full_rack_total;
    uint8_t placed[RK_MAX_DIM];
    bool anchor_right_free, can_go_right;
    /* kept-tile index: a mixed-radix number over the rack's distinct letters */
    int leave_idx, n_subracks;
    int stride[RK_MAX_LETTERS];
    int32_t leave_val[MAX_SUBRACKS];
    int16_t kept_face[MAX_SUBRACKS];
    int8_t kept_size[MAX_SUBRACKS];
    int32_t best_leave_of_size[RK_RACK_SIZE + 1];
    /* shadow bounds: the rack's face values, highest first, and the letters
     * it can put on a square (all of them with a blank) */
    int tile_vals[RK_RACK_SIZE];
    uint64_t rack_letters;
    /* equity context */
    int bag_count, opp_rack_score;
    bool empty_board;
    int32_t opening_penalty[RK_MAX_DIM]; /* per column of the start row, millipoints */
    /* positional values (NULL: none, or the bag is empty): the table, the
     * current line's part of it, each letter's bucket, and per square the
     * largest value of any rack tile (for the shadow bounds) */
    const int32_t *pv, *pv_line;
    int pv_buckets;
    int8_t bucket_of[RK_MAX_LETTERS];
    int32_t pv_max[RK_MAX_SQUARES];
    const int32_t *pv_max_line;
    /* output */
    MoveList *out;
    size_t placements;
    Move best;
    bool have_best;
    /* movegen_beats: `best` starts as a stand-in pass at the floor (every
     * move below it pruned) and the search stops at the first real move */
    bool stop_at_first;
    /* GEN_TOP: a heap of the top_n <= top_k best so far, the worst first */
    Move *top;
    int top_k, top_n;
    MoveCompareFn top_cmp;
} Gen;

/* Sets up g for one call (leave values of every kept sub-rack, positional
 * values, opening penalties). out is the list of GEN_ALL, else NULL. */
void mg_init(Gen *g, const MoveGenRequest *req, GenMode mode, MoveList *out);
/* Points g's line views at line `line` of orientation d. */
void mg_set_line(Gen *g, int d, int line);
/* The exchanges (all in GEN_ALL, else only those that can be best). */
void mg_exchanges(Gen *g);
/* GEN_TOP: offers m to the heap of the k best. */
void mg_top_offer(Gen *g, const Move *m);
/* Takes m as the best move if it comes first in movegen_compare order
 * (GEN_TOP: offers it to the k best). */
static inline void mg_consider(Gen *g, const Move *m) {
    if (g->mode == GEN_TOP) {
        mg_top_offer(g, m);
    } else if (!g->have_best || movegen_compare(m, &g->best) < 0) {
        g->best = *m;
        g->have_best = true;
    }
}
/* The leave term of a kept sub-rack (index into leave_val): its leave value
 * with tiles in the bag, the empty-bag bonus or penalty otherwise. */
static inline int32_t mg_leave_term(const Gen *g, int kept_idx) {
    if (g->bag_count > 0) return g->leave_val[kept_idx];
    if (g->kept_size[kept_idx] == 0) return 2000 * g->opp_rack_score;
    return -1000 * (10 + 2 * g->kept_face[kept_idx]);
}
/* The opening penalty (millipoints) of a vowel on column c of the start row
 * of an empty board: 0.35 points for each extra multiplier of the squares
 * just above and below it, which the reply can use (by the board's symmetry
 * also the penalty of row c of a down move through the start column). */
static inline int32_t mg_opening_penalty(const Layout *lay, int c) {
    int dim = lay->dim, r = lay->start_row;
    int32_t pen = 0;
    for (int dr = -1; dr <= 1; dr += 2) {
        int rr = r + dr;
        if (rr < 0 || rr >= dim) continue;
        pen -= 350 * (lay->word_mult[rr * dim + c] - 1);
        pen -= 350 * (lay->letter_mult[rr * dim + c] - 1);
    }
    return pen;
}
/* The best move from the word map, span by span (movegen_span.c); false if
 * this position must take the graph path instead. */
bool mg_best_from_wordmap(Gen *g, MoveGenStats *stats);
/* movegen_beats: a real move has been found above the floor. */
static inline bool mg_done(const Gen *g) { return g->stop_at_first && g->best.kind != MOVE_PASS; }

#endif
