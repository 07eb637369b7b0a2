/* test_spv_move.c - a hand-built .spv changes the chosen move exactly as
 * computed by hand, on positions small enough to enumerate by hand (a
 * two-word lexicon, AT and TA, on the standard 15x15 board). The table goes
 * through the file format (written, then loaded), through spv_prepare (the
 * spread weight and the openness multiplier) and through movegen_best
 * (whose shadow bounds must let the adjusted move through).
 *
 * Squares are 0-based (row, col); the centre is (7,7). Row 7 has
 * double-letter squares at columns 3 and 11 only; (6,6), (6,8), (8,6), (8,8)
 * are double-letter squares. A and T are worth 1 point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/layout.h"
#include "core/movegen.h"
#include "eval/spv.h"
#include "testutil.h"

typedef struct Env {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Board board;
    PositionalValues pv;
    Spv spv;
    char dir[512];
} Env;

static const char *const WORDS[] = {"AT", "TA"};

static Env *env_new(void) {
    Env *e = calloc(1, sizeof *e);
    CU_ASSERT_FATAL(e != NULL);
    ld_english(&e->ld);
    layout_standard15(&e->lay);
    tu_build_lex(&e->kwg, &e->ld, WORDS, 2);
    board_init(&e->board, &e->lay, &e->ld, &e->kwg);
    CU_ASSERT_FATAL(tu_tmpdir(e->dir, sizeof e->dir) != NULL);
    RkError err;
    CU_ASSERT_FATAL(spv_init_zero(&e->spv, 225, 11, 5, true, &err) == 0);
    return e;
}

static void env_free(Env *e) {
    spv_free(&e->spv);
    kwg_free(&e->kwg);
    free(e);
}

/* Writes e->spv to a file and loads it back (the hand-built table goes
 * through the format). */
static void reload(Env *e) {
    char path[600];
    snprintf(path, sizeof path, "%s/hand.spv", e->dir);
    RkError err;
    CU_ASSERT_FATAL(spv_write(&e->spv, path, &err) == 0);
    spv_free(&e->spv);
    CU_ASSERT_FATAL(spv_load(&e->spv, path, &err) == 0);
}

static void rack_of(Env *e, const char *s, Rack *r) {
    RkError err;
    CU_ASSERT_FATAL(rack_parse(r, &e->ld, s, &err) == 0);
}

static void best(Env *e, const Rack *rack, const PositionalValues *pv, Move *m, char *text, size_t cap) {
    MoveGenRequest req = {.board = &e->board, .rack = rack, .bag_count = 80, .exchanges_allowed = true, .positional = pv};
    movegen_best(&req, m, NULL);
    move_to_string(m, &e->board, &e->ld, text, cap);
    /* the best move is the first of the full list, with the same equity */
    MoveList ml;
    movelist_init(&ml);
    movegen_all(&req, &ml);
    movelist_sort_by_equity(&ml);
    CU_ASSERT(ml.count > 0 && ml.moves[0].equity == m->equity);
    movelist_free(&ml);
}

#define SQ(r, c) ((r) * 15 + (c))
#define MEAN(e, sq, b) (e)->spv.mean[(sq) * 11 + (b)]
#define VAR(e, sq, b) (e)->spv.var[(sq) * 11 + (b)]

/* Empty board, rack AT: four openings score (1+1)*2 = 4. The reference
 * opening penalty costs an A in column 6 or 8 350*(2-1) for each of the
 * double-letter squares above and below it: -700. So
 *   8G AT (A 6, T 7) 3300, 8H AT (A 7, T 8) 4000,
 *   8G TA (T 6, A 7) 4000, 8H TA (T 7, A 8) 3300,
 * and the tie at 4000 goes to 8G TA (column 6 first).
 * Hand-built table: (7,8) bucket 1: mean +2.5, var +2.0; openness
 * multiplier of bucket 0 (empty board: extent 0) 1.5. The opponent leads
 * by 30 with K = 75: w = 0.4, so a 1-point tile on (7,8) is worth
 * lround(1000 * (2.5 + 0.4*2.0) * 1.5) = 4950 millipoints:
 *   8H AT 4000 + 4950 = 8950 (best), 8H TA 3300 + 4950 = 8250. */
static void test_opening_changes(void) {
    Env *e = env_new();
    Rack rack;
    rack_of(e, "AT", &rack);
    Move m;
    char text[64];
    best(e, &rack, NULL, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "8G TA");
    CU_ASSERT_EQUAL(m.equity, 4000);

    MEAN(e, SQ(7, 8), 1) = 2.5f;
    VAR(e, SQ(7, 8), 1) = 2.0f;
    e->spv.openness[0] = 1.5f;
    reload(e);
    spv_prepare(&e->spv, &e->board, &rack, 30, 75.0, &e->pv);
    CU_ASSERT_EQUAL(e->pv.v[SQ(7, 8) * 11 + 1], 4950);
    best(e, &rack, &e->pv, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "8H AT");
    CU_ASSERT_EQUAL(m.equity, 8950);
    CU_ASSERT_EQUAL(spv_move_adjust(&e->pv, &e->board, &m), 4950);

    /* leading by 30 instead: w = -0.4, 1.5 * (2.5 - 0.8) = 2.55 -> 2550:
     * 8H AT 6550 still beats 8G TA 4000 */
    spv_prepare(&e->spv, &e->board, &rack, -30, 75.0, &e->pv);
    best(e, &rack, &e->pv, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "8H AT");
    CU_ASSERT_EQUAL(m.equity, 6550);

    /* a negative value on the old best's square instead: 8G TA's T sits on
     * (7,6), mean -1.0 with multiplier 1.5 -> -1500: 8G TA 2500, and the
     * other 4000 move, 8H AT, wins (its T on (7,8) now has mean 0, var 0) */
    MEAN(e, SQ(7, 8), 1) = 0.0f;
    VAR(e, SQ(7, 8), 1) = 0.0f;
    MEAN(e, SQ(7, 6), 1) = -1.0f;
    reload(e);
    spv_prepare(&e->spv, &e->board, &rack, 0, 75.0, &e->pv);
    best(e, &rack, &e->pv, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "8H AT");
    CU_ASSERT_EQUAL(m.equity, 4000);
    env_free(e);
}

/* AT on (7,7)-(7,8); rack A. The two plays are down moves in column I
 * (col 8): I7 AT puts the A on (6,8), a double-letter square: 1*2 + 1 = 3;
 * I8 TA puts it on (8,8), also double-letter: 1 + 1*2 = 3. Tie at 3000:
 * I7 A(T) first (row 6 before row 7). A down move's tile at (r, c) uses the
 * transposed square (c, r): (6,8) -> (8,6), (8,8) -> (8,8).
 * Table: mean (8,8) bucket 1 = +1.0, and +5.0 on (6,8) itself, which only
 * an implementation that forgot the transposition would read for I7 AT.
 * The board's extent is 1 (columns 7..8): openness bucket 0, multiplier 1.
 *   I8 TA 3000 + 1000 = 4000 (best), I7 AT 3000 + 0. */
static void test_down_move_uses_transposed_square(void) {
    Env *e = env_new();
    uint8_t a = 1, t = 20;
    board_put(&e->board, 7, 7, a);
    board_put(&e->board, 7, 8, t);
    board_refresh(&e->board);
    CU_ASSERT_EQUAL(board_extent(&e->board), 1);
    Rack rack;
    rack_of(e, "A", &rack);
    Move m;
    char text[64];
    best(e, &rack, NULL, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "I7 A(T)");
    CU_ASSERT_EQUAL(m.equity, 3000);

    MEAN(e, SQ(8, 8), 1) = 1.0f;
    MEAN(e, SQ(6, 8), 1) = 5.0f;
    reload(e);
    spv_prepare(&e->spv, &e->board, &rack, 0, 75.0, &e->pv);
    best(e, &rack, &e->pv, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "I8 (T)A");
    CU_ASSERT_EQUAL(m.equity, 4000);
    env_free(e);
}

/* The exact relation on a whole move list (rack ?T on the empty board, so
 * blanked letters appear): every placement's equity with the table minus
 * its equity without = the sum of the table over its fresh tiles, with
 * bucket 0 for a blank whatever letter it stands for; exchanges and the pass
 * unchanged; and nothing at all once the bag is empty. */
static void test_blank_bucket_and_full_list(void) {
    Env *e = env_new();
    Rack rack;
    rack_of(e, "?T", &rack);
    for (int sq = 0; sq < 225; sq++)
        for (int b = 0; b < 11; b++) MEAN(e, sq, b) = (float)((sq * 7 + b * 3) % 11) - 5.0f;
    reload(e);
    spv_prepare(&e->spv, &e->board, &rack, 0, 75.0, &e->pv);
    MoveGenRequest plain = {.board = &e->board, .rack = &rack, .bag_count = 80, .exchanges_allowed = true};
    MoveGenRequest adj = plain;
    adj.positional = &e->pv;
    MoveList a, b;
    movelist_init(&a);
    movelist_init(&b);
    movegen_all(&plain, &a);
    movegen_all(&adj, &b);
    CU_ASSERT_FATAL(a.count == b.count && a.count > 1);
    int blanks = 0;
    for (size_t i = 0; i < a.count; i++) {
        const Move *m = &a.moves[i];
        int32_t want = 0;
        for (int k = 0; k < m->len; k++) {
            uint8_t tile = m->tiles[k];
            if (tile == 0) continue;
            int sq = m->dir == DIR_ACROSS ? m->row * 15 + m->col + k : m->col * 15 + m->row + k;
            int bucket = RK_IS_BLANKED(tile) ? 0 : e->ld.score[tile];
            blanks += RK_IS_BLANKED(tile) != 0;
            want += (int32_t)(1000.0f * MEAN(e, sq, bucket));
        }
        if (m->kind != MOVE_PLACE) want = 0;
        CU_ASSERT_EQUAL(b.moves[i].equity - m->equity, want);
    }
    CU_ASSERT(blanks > 0);
    movelist_free(&a);
    movelist_free(&b);
    /* an empty bag: no adjustment at all */
    plain.bag_count = adj.bag_count = 0;
    movegen_all(&plain, &a);
    movegen_all(&adj, &b);
    for (size_t i = 0; i < a.count && i < b.count; i++) CU_ASSERT_EQUAL(b.moves[i].equity, a.moves[i].equity);
    movelist_free(&a);
    movelist_free(&b);
    env_free(e);
}

/* The spread weight and the openness bucket. */
static void test_weight_and_openness(void) {
    CU_ASSERT_DOUBLE_EQUAL(spv_spread_weight(30, 75.0), 0.4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spv_spread_weight(-300, 75.0), -1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spv_spread_weight(300, 75.0), 1.0, 1e-12);
    Env *e = env_new();
    CU_ASSERT_EQUAL(spv_openness_bucket(&e->spv, &e->board), 0);
    board_put(&e->board, 7, 7, 1);
    board_put(&e->board, 7, 10, 1); /* extent 3 -> bucket 1 */
    CU_ASSERT_EQUAL(board_extent(&e->board), 3);
    CU_ASSERT_EQUAL(spv_openness_bucket(&e->spv, &e->board), 1);
    board_put(&e->board, 0, 7, 1); /* extent 7 -> bucket 3 */
    CU_ASSERT_EQUAL(spv_openness_bucket(&e->spv, &e->board), 3);
    board_put(&e->board, 0, 7, 0);
    board_refresh(&e->board); /* removing a tile: refresh recomputes the box */
    CU_ASSERT_EQUAL(board_extent(&e->board), 3);
    env_free(e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"hand-built table changes the opening exactly", test_opening_changes},
        {"down moves use the transposed square", test_down_move_uses_transposed_square},
        {"blanks are bucket 0; full list = plain + table sum; empty bag", test_blank_bucket_and_full_list},
        {"spread weight and openness bucket", test_weight_and_openness},
        CU_TEST_INFO_NULL,
    };
    return tu_run("spv_move", tests);
}
