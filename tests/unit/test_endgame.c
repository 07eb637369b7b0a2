/* The exact endgame solver (search/endgame.h) and the endgame study
 * (worker/endgame_study.h).
 *
 * Hand-computed positions on a board without premium squares (so a word
 * scores the sum of its tiles) with lexicons of a few words: going out in two
 * turns beats one big play; the highest-scoring move is wrong because it
 * lets the opponent go out; passing is best (six scoreless turns). Their
 * CGPs hold only the board and racks, so the parsed bag holds the rest of
 * the distribution: the test empties it (those tiles are simply out of the
 * game), which is what an empty-bag position needs.
 *
 * Oracle: random small endgames (static games of the tiny distribution and
 * lexicon, and of SOWPODS when it is built, played until the bag is empty
 * and on until both racks are small): every root move's value from the
 * solver, with and without its table, equals a plain minimax written here
 * (no pruning, no table). Errors: bag not empty, game over, node budget,
 * an illegal move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/layout.h"
#include "core/movegen.h"
#include "search/endgame.h"
#include "worker/endgame_study.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

typedef struct Env {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game g;
} Env;

/* A 15x15 board with no premium squares, start square in the middle. */
static void plain_layout(Layout *lay) {
    char text[512];
    int n = snprintf(text, sizeof text, "7, 7\n");
    for (int r = 0; r < 15; r++) n += snprintf(text + n, sizeof text - (size_t)n, "%15s\n", "");
    RkError err;
    CU_ASSERT_FATAL(layout_parse(lay, text, "plain15", &err) == 0);
}

static Env *env_words(const char *const *words, size_t n) {
    Env *e = calloc(1, sizeof *e);
    CU_ASSERT_FATAL(e != NULL);
    ld_english(&e->ld);
    plain_layout(&e->lay);
    tu_build_lex(&e->kwg, &e->ld, words, n);
    return e;
}

static void env_free(Env *e) {
    kwg_free(&e->kwg);
    free(e);
}

/* Parses the CGP and empties the bag (see the file comment). */
static void load_endgame(Env *e, const char *cgp) {
    RkError err;
    int rc = cgp_parse(&e->g, cgp, &e->ld, &e->lay, &e->kwg, 7, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    e->g.bag.count = 0;
}

static EndgameConfig config(int table_bits) {
    EndgameConfig c;
    endgame_config_defaults(&c);
    c.table_bits = table_bits;
    return c;
}

/* The root value of the move written `text` in r (fails if absent). */
static int32_t value_of(const Env *e, const EndgameResult *r, const char *text) {
    Move m;
    RkError err;
    int rc = move_parse(&m, text, &e->g.board, &e->ld, &err);
    if (rc != 0) printf("\n  %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    int i = endgame_result_find(r, &m);
    if (i < 0) printf("\n  move %s is not among the root moves\n", text);
    CU_ASSERT_FATAL(i >= 0);
    return r->values[i];
}

static void expect_best(const Env *e, const EndgameResult *r, const char *text) {
    char got[128];
    move_to_string(&r->moves[r->best], &e->g.board, &e->ld, got, sizeof got);
    if (strcmp(got, text) != 0) printf("\n  best move %s, expected %s\n", got, text);
    CU_ASSERT_STRING_EQUAL(got, text);
    CU_ASSERT_EQUAL(r->best_value, r->values[r->best]);
}

/* Solves the loaded position with and without the table; both must agree,
 * and endgame_move_value must give every root move's value. Returns the
 * solve with the table in *r. */
static void solve_both(const Env *e, EndgameResult *r) {
    RkError err;
    EndgameConfig with = config(12), without = config(0);
    CU_ASSERT_FATAL(endgame_solve(&e->g, &with, r, &err) == 0);
    EndgameResult plain;
    endgame_result_init(&plain);
    CU_ASSERT_FATAL(endgame_solve(&e->g, &without, &plain, &err) == 0);
    CU_ASSERT_EQUAL_FATAL(plain.count, r->count);
    for (int i = 0; i < r->count; i++) {
        CU_ASSERT(move_same(&plain.moves[i], &r->moves[i]));
        CU_ASSERT_EQUAL(plain.values[i], r->values[i]);
        int32_t v = -999;
        CU_ASSERT_FATAL(endgame_move_value(&e->g, &r->moves[i], &with, &v, NULL, &err) == 0);
        CU_ASSERT_EQUAL(v, r->values[i]);
    }
    CU_ASSERT_EQUAL(plain.best, r->best);
    endgame_result_free(&plain);
}

#define EMPTY_ROW "15"

/* ------------------------------------------------- hand-computed positions */

/* Board: JO (row 4, columns D-E) and AS (row 10, columns J-K). Lexicon: JO
 * JOB JOT AS BAS. On turn: BT; opponent: V, which fits nowhere (the
 * opponent can only pass). Face values: J 8, O 1, B 3, T 1, A 1, S 1, V 4.
 *   JOB  +12, then T fits nowhere (its one spot, JOT, is taken): passes to
 *        six scoreless turns, we lose T (1), they lose V (4): 12 + 3 = 15
 *   JOT  +10, they pass, BAS goes out: 5 + 2*4 = 13; 10 + 13 = 23
 *   BAS  +5, they pass, JOT goes out: 10 + 8 = 18; 5 + 18 = 23
 *   pass they pass, then JOT and BAS as above: 23
 * Going out in two (23) beats the one big play (15). The static endgame
 * equity ranks JOB first (12 - 10 - 2*1 = 0 against JOT's 10 - 10 - 2*3), so
 * the best of the tied moves in that order is JOT. */
static void test_out_in_two(void) {
    static const char *const WORDS[] = {"JO", "JOB", "JOT", "AS", "BAS"};
    Env *e = env_words(WORDS, 5);
    load_endgame(e, EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/3JO10/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/"
                    EMPTY_ROW "/" EMPTY_ROW "/9AS4/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW
                    " BT/V 100/100 0");
    EndgameResult r;
    endgame_result_init(&r);
    solve_both(e, &r);
    CU_ASSERT_EQUAL(r.count, 4);
    CU_ASSERT_EQUAL(value_of(e, &r, "4D (JO)B"), 15);
    CU_ASSERT_EQUAL(value_of(e, &r, "4D (JO)T"), 23);
    CU_ASSERT_EQUAL(value_of(e, &r, "10I B(AS)"), 23);
    CU_ASSERT_EQUAL(value_of(e, &r, "pass"), 23);
    CU_ASSERT_EQUAL(r.best_value, 23);
    expect_best(e, &r, "4D (JO)T");
    endgame_result_free(&r);
    env_free(e);
}

/* Board: JO (row 4, D-E) and OS (row 8, H-I). Lexicon: JO JOT OS DOS ZOS.
 * On turn: DT; opponent: Z (10), whose only play is ZOS (12 points, going
 * out).
 *   JOT  +10 (the highest score), then ZOS goes out: 12 + 2*2 (our D) = 16;
 *        10 - 16 = -6
 *   DOS  +4 blocks ZOS; they pass; JOT goes out: 10 + 2*10 = 30; 4 + 30 = 34
 *   pass ZOS goes out: 12 + 2*3 = 18: -18 */
static void test_greedy_is_wrong(void) {
    static const char *const WORDS[] = {"JO", "JOT", "OS", "DOS", "ZOS"};
    Env *e = env_words(WORDS, 5);
    load_endgame(e, EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/3JO10/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW
                    "/7OS6/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW
                    "/" EMPTY_ROW " DT/Z 0/0 0");
    EndgameResult r;
    endgame_result_init(&r);
    solve_both(e, &r);
    CU_ASSERT_EQUAL(r.count, 3);
    CU_ASSERT_EQUAL(value_of(e, &r, "4D (JO)T"), -6);
    CU_ASSERT_EQUAL(value_of(e, &r, "8G D(OS)"), 34);
    CU_ASSERT_EQUAL(value_of(e, &r, "pass"), -18);
    expect_best(e, &r, "8G D(OS)");
    CU_ASSERT_EQUAL(r.best_value, 34);
    /* the greedy move is the highest-scoring one and the static equity's first */
    CU_ASSERT_EQUAL(r.moves[0].score, 10);
    CU_ASSERT(r.best != 0);
    /* the opponent's side of the same board: ZOS goes out at once, 12 + 2*3 */
    load_endgame(e, EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/3JO10/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW
                    "/7OS6/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW "/" EMPTY_ROW
                    "/" EMPTY_ROW " Z/DT 0/0 0");
    solve_both(e, &r);
    CU_ASSERT_EQUAL(r.count, 2);
    expect_best(e, &r, "8G Z(OS)");
    CU_ASSERT_EQUAL(r.best_value, 18);
    endgame_result_free(&r);
    env_free(e);
}

/* Board: AD (row 8, H-I). Lexicon: AD ADS ZADS. On turn: QS (Q fits
 * nowhere); opponent: Z, which can only play after an S: ZADS.
 *   ADS  +4, then ZADS goes out: 14 + 2*10 (our Q) = 34: -30
 *   pass the opponent can only pass; six scoreless turns end the game: we
 *        lose Q + S (11), they lose Z (10): -1
 * Passing is best, and it stays best with scoreless turns already counted
 * (zeros 4: pass, pass, end). With 5 zeros a pass ends the game at once:
 * still -1. */
static void test_pass_is_best(void) {
    static const char *const WORDS[] = {"AD", "ADS", "ZADS"};
    Env *e = env_words(WORDS, 3);
    for (int zeros = 0; zeros <= 5; zeros++) {
        char cgp[256];
        snprintf(cgp, sizeof cgp,
                 "15/15/15/15/15/15/15/7AD6/15/15/15/15/15/15/15 QS/Z 50/60 %d", zeros);
        load_endgame(e, cgp);
        EndgameResult r;
        endgame_result_init(&r);
        solve_both(e, &r);
        CU_ASSERT_EQUAL(r.count, 2);
        CU_ASSERT_EQUAL(value_of(e, &r, "8H (AD)S"), -30);
        CU_ASSERT_EQUAL(value_of(e, &r, "pass"), -1);
        expect_best(e, &r, "pass");
        endgame_result_free(&r);
    }
    env_free(e);
}

/* ------------------------------------------------------------- the oracle */

/* Plain minimax: every move, every reply, to the end (depth 0) or to `depth`
 * plies, where a line cut before the game ends is valued by the spread it
 * made (endgame_search's horizon rule) and *cut is set; *budget counts down
 * the positions it may still expand (false when spent). */
static bool minimax_depth(const Game *g, int depth, int32_t *value, bool *cut, int64_t *budget) {
    if (--*budget < 0) return false;
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    MoveList ml;
    movelist_init(&ml);
    movegen_all(&req, &ml);
    Game *c = malloc(sizeof *c);
    if (c == NULL) abort();
    int me = g->on_turn, opp = 1 - me;
    int32_t best = INT32_MIN;
    bool ok = true;
    for (size_t i = 0; i < ml.count && ok; i++) {
        *c = *g;
        game_play(c, &ml.moves[i]);
        int32_t v = (c->scores[me] - c->scores[opp]) - (g->scores[me] - g->scores[opp]);
        if (!game_over(c)) {
            int32_t reply = 0;
            if (depth != 1) ok = minimax_depth(c, depth > 0 ? depth - 1 : 0, &reply, cut, budget);
            else *cut = true;
            v -= reply;
        }
        if (v > best) best = v;
    }
    free(c);
    movelist_free(&ml);
    *value = best;
    return ok;
}

static bool minimax(const Game *g, int32_t *value, int64_t *budget) {
    bool cut = false;
    return minimax_depth(g, 0, value, &cut, budget);
}

/* Static game `index` (best score) until the bag is empty, then on until
 * both racks hold at most max_tiles; false if it ended first. */
static bool small_endgame(Game *g, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t index,
                          int max_tiles) {
    EndgameStudyConfig c;
    endgame_study_config_defaults(&c);
    c.ld = ld;
    c.layout = lay;
    c.kwg = kwg;
    c.seed = 77;
    c.max_tiles = max_tiles;
    return endgame_study_position(&c, index, g);
}

/* Checks every root move of positions from games 0.. against minimax;
 * returns the number of positions checked (at most want). */
static int oracle_games(const LetterDist *ld, const Layout *lay, const Kwg *kwg, int max_tiles, int want,
                        uint64_t games, int64_t minimax_budget, int *skipped) {
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    EndgameResult with, without;
    endgame_result_init(&with);
    endgame_result_init(&without);
    EndgameConfig ctt = config(16), cplain = config(0);
    RkError err;
    int checked = 0, bad = 0, moves = 0, nonzero_zeros = 0;
    double t0 = rk_seconds();
    for (uint64_t gi = 0; gi < games && checked < want; gi++) {
        if (!small_endgame(g, ld, lay, kwg, gi, max_tiles)) continue;
        /* every other position as if three scoreless turns had just been
         * played (static play rarely passes): the six-zeros rule comes sooner */
        if (g->zeros == 0) g->zeros = (int)(gi % 6);
        CU_ASSERT_FATAL(endgame_solve(g, &ctt, &with, &err) == 0);
        CU_ASSERT_FATAL(endgame_solve(g, &cplain, &without, &err) == 0);
        CU_ASSERT_EQUAL_FATAL(with.count, without.count);
        int32_t *mm = malloc((size_t)with.count * sizeof *mm);
        CU_ASSERT_FATAL(mm != NULL);
        bool ok = true;
        Game *c = malloc(sizeof *c);
        CU_ASSERT_FATAL(c != NULL);
        int64_t budget = minimax_budget;
        int me = g->on_turn, opp = 1 - me;
        for (int i = 0; i < with.count && ok; i++) {
            *c = *g;
            game_play(c, &with.moves[i]);
            mm[i] = (c->scores[me] - c->scores[opp]) - (g->scores[me] - g->scores[opp]);
            if (!game_over(c)) {
                int32_t reply = 0;
                ok = minimax(c, &reply, &budget);
                mm[i] -= reply;
            }
        }
        free(c);
        if (!ok) {
            (*skipped)++;
            free(mm);
            continue;
        }
        int32_t best = INT32_MIN;
        for (int i = 0; i < with.count; i++) {
            if (mm[i] > best) best = mm[i];
            bool same = with.values[i] == mm[i] && without.values[i] == mm[i] &&
                        move_same(&with.moves[i], &without.moves[i]);
            if (!same && bad < 5) {
                char text[128];
                move_to_string(&with.moves[i], &g->board, ld, text, sizeof text);
                printf("\n  game %llu move %s: solver %d / %d (no table), minimax %d", (unsigned long long)gi, text,
                       with.values[i], without.values[i], mm[i]);
            }
            bad += !same;
        }
        CU_ASSERT_EQUAL(with.best_value, best);
        CU_ASSERT_EQUAL(with.values[with.best], best);
        free(mm);
        moves += with.count;
        nonzero_zeros += g->zeros > 0;
        checked++;
    }
    printf("\n  %d positions (%d root moves, %d with scoreless turns counted), %d skipped (minimax too big), "
           "%.1f s ",
           checked, moves, nonzero_zeros, *skipped, rk_seconds() - t0);
    CU_ASSERT_EQUAL(bad, 0);
    endgame_result_free(&with);
    endgame_result_free(&without);
    free(g);
    return checked;
}


/* SOWPODS on the standard board; false (the test returns) without it. */
static bool open_sowpods(LetterDist *ld, Layout *lay, Kwg *kwg) {
    ld_english(ld);
    if (!tu_load_sowpods(kwg, ld)) return false;
    layout_standard15(lay);
    return true;
}

static void test_oracle_tiny(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    int skipped = 0;
    int n3 = oracle_games(&ld, &lay, &kwg, 3, tu_size(40, 12), 400, 300000, &skipped);
    CU_ASSERT(n3 >= tu_size(30, 9));
    skipped = 0;
    int n4 = oracle_games(&ld, &lay, &kwg, 4, tu_size(8, 1), 300, 300000, &skipped);
    CU_ASSERT(n4 >= 1 && n4 >= tu_size(4, 1));
    kwg_free(&kwg);
}

static void test_oracle_sowpods(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    if (!open_sowpods(&ld, &lay, &kwg)) return;
    int skipped = 0;
    int n2 = oracle_games(&ld, &lay, &kwg, 2, tu_size(25, 8), 200, 1000000, &skipped);
    CU_ASSERT(n2 >= tu_size(20, 6));
    skipped = 0;
    int n3 = oracle_games(&ld, &lay, &kwg, 3, tu_size(4, 2), 100, 1000000, &skipped);
    CU_ASSERT(n3 >= tu_size(3, 2));
    kwg_free(&kwg);
}

/* Larger endgames, beyond plain minimax: the solver with a table (a large
 * one, and a small one whose entries are overwritten all the time) gives
 * every root move the value it gives without one (which the oracle above
 * checks against minimax). The table must have been used. */
static void table_agrees(const LetterDist *ld, const Layout *lay, const Kwg *kwg, int max_tiles, int want,
                         uint64_t games) {
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    EndgameResult big, small, none;
    endgame_result_init(&big);
    endgame_result_init(&small);
    endgame_result_init(&none);
    EndgameConfig cbig = config(18), csmall = config(6), cnone = config(0);
    cnone.max_nodes = 2000000; /* positions beyond it are skipped */
    RkError err;
    int checked = 0, bad = 0, moves = 0, skipped = 0;
    uint64_t hits_big = 0, hits_small = 0, nodes_none = 0, nodes_big = 0;
    double t0 = rk_seconds();
    for (uint64_t gi = 0; gi < games && checked < want; gi++) {
        if (!small_endgame(g, ld, lay, kwg, gi, max_tiles)) continue;
        if (g->zeros == 0) g->zeros = (int)(gi % 6);
        int rc = endgame_solve(g, &cnone, &none, &err);
        if (rc == ENDGAME_OVER_BUDGET) {
            skipped++;
            continue;
        }
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT_FATAL(endgame_solve(g, &cbig, &big, &err) == 0);
        CU_ASSERT_FATAL(endgame_solve(g, &csmall, &small, &err) == 0);
        CU_ASSERT_EQUAL_FATAL(big.count, none.count);
        CU_ASSERT_EQUAL_FATAL(small.count, none.count);
        int wrong = 0;
        for (int i = 0; i < none.count; i++)
            wrong += big.values[i] != none.values[i] || small.values[i] != none.values[i];
        if (wrong > 0 && bad < 5)
            printf("\n  game %llu (racks up to %d): %d root values differ", (unsigned long long)gi, max_tiles, wrong);
        bad += wrong;
        CU_ASSERT_EQUAL(big.best, none.best);
        CU_ASSERT_EQUAL(none.table_hits, 0);
        hits_big += big.table_hits;
        hits_small += small.table_hits;
        nodes_big += big.nodes;
        nodes_none += none.nodes;
        moves += none.count;
        checked++;
    }
    printf("\n  %d positions (%d root moves, %d skipped): %llu nodes without a table, %llu with (%llu table "
           "hits; %llu with 64 entries), %.1f s ",
           checked, moves, skipped, (unsigned long long)nodes_none, (unsigned long long)nodes_big,
           (unsigned long long)hits_big, (unsigned long long)hits_small, rk_seconds() - t0);
    CU_ASSERT_EQUAL(checked, want);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(hits_big > 1000 && hits_small > 100);
    endgame_result_free(&big);
    endgame_result_free(&small);
    endgame_result_free(&none);
    free(g);
}

static void test_table_tiny(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    table_agrees(&ld, &lay, &kwg, 5, tu_size(30, 10), 1000);
    kwg_free(&kwg);
}

static void test_table_sowpods(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    if (!open_sowpods(&ld, &lay, &kwg)) return;
    table_agrees(&ld, &lay, &kwg, 4, tu_size(12, 4), 400);
    kwg_free(&kwg);
}

/* The table's key: everything the value depends on, and not the scores. */
static void test_position_key(void) {
    static const char *const WORDS[] = {"AD", "ADS", "ZADS"};
    Env *e = env_words(WORDS, 3);
    load_endgame(e, "15/15/15/15/15/15/15/7AD6/15/15/15/15/15/15/15 QS/Z 50/60 2");
    Game *a = malloc(sizeof *a);
    CU_ASSERT_FATAL(a != NULL);
    *a = e->g;
    uint64_t k = endgame_position_key(a);
    a->scores[0] += 17;
    a->scores[1] -= 3;
    a->turn += 5;
    CU_ASSERT_EQUAL(endgame_position_key(a), k);
    *a = e->g;
    a->zeros = 3;
    CU_ASSERT_NOT_EQUAL(endgame_position_key(a), k);
    *a = e->g;
    a->on_turn = 1;
    CU_ASSERT_NOT_EQUAL(endgame_position_key(a), k);
    *a = e->g; /* the racks swapped between the players */
    a->racks[0] = e->g.racks[1];
    a->racks[1] = e->g.racks[0];
    CU_ASSERT_NOT_EQUAL(endgame_position_key(a), k);
    *a = e->g; /* one tile moved from a rack to the board */
    Move m;
    RkError err;
    CU_ASSERT_FATAL(move_parse(&m, "8H (AD)S", &a->board, &e->ld, &err) == 0);
    board_place_move(&a->board, &m);
    CU_ASSERT_NOT_EQUAL(endgame_position_key(a), k);
    rack_remove(&a->racks[0], m.tiles[2]);
    CU_ASSERT_NOT_EQUAL(endgame_position_key(a), k);
    /* the same position reached another way has the same key */
    Game *b = malloc(sizeof *b);
    CU_ASSERT_FATAL(b != NULL);
    load_endgame(e, "15/15/15/15/15/15/15/7ADS5/15/15/15/15/15/15/15 Q/Z 0/0 2");
    *b = e->g;
    CU_ASSERT_EQUAL(endgame_position_key(b), endgame_position_key(a));
    free(a);
    free(b);
    env_free(e);
}

/* --------------------------------------------------------------- errors */

static void test_errors(void) {
    static const char *const WORDS[] = {"AD", "ADS", "ZADS"};
    Env *e = env_words(WORDS, 3);
    EndgameConfig c = config(10);
    EndgameResult r;
    endgame_result_init(&r);
    RkError err;
    /* the bag is not empty: as parsed, it holds the rest of the distribution */
    RkError perr;
    CU_ASSERT_FATAL(cgp_parse(&e->g, "15/15/15/15/15/15/15/7AD6/15/15/15/15/15/15/15 QS/Z 0/0 0", &e->ld, &e->lay,
                              &e->kwg, 1, &perr) == 0);
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bag is not empty"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    /* one tile in the bag is enough to refuse */
    e->g.bag.count = 1;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bag is not empty (1 tile)"));
    /* the game is over */
    e->g.bag.count = 0;
    e->g.end = GAME_SIX_ZEROS;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "game is over"));
    e->g.end = GAME_PLAYING;
    /* the node budget: the root, ADS and the pass line need more than 3 positions */
    c.max_nodes = 3;
    err.msg[0] = '\0';
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), ENDGAME_OVER_BUDGET);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "node budget of 3 positions exceeded"));
    CU_ASSERT(r.nodes <= 3);
    int32_t v = 12345;
    Move pass;
    CU_ASSERT_FATAL(move_parse(&pass, "pass", &e->g.board, &e->ld, &err) == 0);
    CU_ASSERT_EQUAL(endgame_move_value(&e->g, &pass, &c, &v, NULL, &err), ENDGAME_OVER_BUDGET);
    CU_ASSERT_EQUAL(v, 12345); /* no value written */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "node budget"));
    /* a budget large enough: the same position solves, within it */
    c.max_nodes = 100;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), 0);
    CU_ASSERT(r.nodes <= 100 && r.nodes > 3);
    uint64_t needed = r.nodes;
    c.max_nodes = needed;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), 0);
    c.max_nodes = needed - 1;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), ENDGAME_OVER_BUDGET);
    c.max_nodes = 0;
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "at least 1"));
    c = config(ENDGAME_MAX_TABLE_BITS + 1);
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "table bits"));
    /* a move that is not legal here */
    c = config(10);
    Move m;
    CU_ASSERT_FATAL(move_parse(&m, "8G Z(AD)", &e->g.board, &e->ld, &err) == 0);
    CU_ASSERT_EQUAL(endgame_move_value(&e->g, &m, &c, &v, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'8G Z(AD)' is not a legal move"));
    /* an empty rack */
    rack_clear(&e->g.racks[1]);
    CU_ASSERT_EQUAL(endgame_solve(&e->g, &c, &r, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rack is empty"));
    endgame_result_free(&r);
    env_free(e);
}

/* ---------------------------------------------------------------- study */

typedef struct Seen {
    int max_tiles;
    int items, best, unsolved;
    int64_t loss;
    uint64_t first_game;
    char first_cgp[1024];
} Seen;

static void seen_item(const EndgameStudyItem *it, void *ctx) {
    Seen *s = ctx;
    CU_ASSERT_EQUAL(it->index, s->items);
    if (s->items++ == 0) {
        s->first_game = it->game_index;
        cgp_write(it->game, NULL, s->first_cgp, sizeof s->first_cgp);
    }
    CU_ASSERT_EQUAL(it->game->bag.count, 0);
    CU_ASSERT(it->game->racks[0].total <= s->max_tiles && it->game->racks[1].total <= s->max_tiles);
    if (it->solved == NULL) {
        s->unsolved++;
        return;
    }
    CU_ASSERT_FATAL(it->chosen_index >= 0);
    CU_ASSERT(move_same(&it->solved->moves[it->chosen_index], &it->chosen));
    CU_ASSERT_EQUAL(it->loss, it->solved->best_value - it->solved->values[it->chosen_index]);
    CU_ASSERT(it->loss >= 0);
    s->best += it->loss == 0;
    s->loss += it->loss;
}

/* ------------------------------------------------ iterative deepening */

/* minimax_depth to `depth` plies, without a budget. */
static int32_t minimax_to(const Game *g, int depth, bool *cut) {
    int32_t v = 0;
    int64_t budget = INT64_MAX;
    minimax_depth(g, depth, &v, cut, &budget);
    return v;
}

/* The depth-limited value of playing m in g (minimax_to below it). */
static int32_t move_to(const Game *g, const Move *m, int depth) {
    Game *c = malloc(sizeof *c);
    CU_ASSERT_FATAL(c != NULL);
    *c = *g;
    game_play(c, m);
    int me = g->on_turn, opp = 1 - me;
    int32_t v = (c->scores[me] - c->scores[opp]) - (g->scores[me] - g->scores[opp]);
    bool cut = false;
    if (!game_over(c) && depth > 1) v -= minimax_to(c, depth - 1, &cut);
    free(c);
    return v;
}

typedef struct Depths {
    int calls, last_depth;
    bool increasing;
} Depths;

static void count_depth(void *ctx, const EndgameSearchResult *r) {
    Depths *d = ctx;
    d->increasing = d->increasing && r->depth == d->last_depth + 1;
    d->last_depth = r->depth;
    d->calls++;
}

/* On positions from games 0..: (1) without a table, the search stopped at
 * depth d (1..4) gives minimax_to's value, a best move with that value, and
 * says exact exactly when no line was cut, and endgame_value gives the
 * same value; (2) with a table (large, and a
 * small one overwritten all the time), run to the end, it is exact and its
 * value and its move's value are endgame_solve's best. Returns positions. */
static int deepening_games(const LetterDist *ld, const Layout *lay, const Kwg *kwg, int max_tiles, int want,
                           uint64_t games, int max_depth, int threads) {
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    EndgameResult exact;
    endgame_result_init(&exact);
    RkError err;
    int checked = 0, bad = 0;
    double t0 = rk_seconds();
    for (uint64_t gi = 0; gi < games && checked < want; gi++) {
        if (!small_endgame(g, ld, lay, kwg, gi, max_tiles)) continue;
        if (g->zeros == 0) g->zeros = (int)(gi % 6);
        EndgameConfig c = config(0);
        c.threads = threads;
        EndgameSearchResult last = {0};
        for (int d = 1; d <= max_depth; d++) {
            bool cut = false;
            int32_t want_v = minimax_to(g, d, &cut);
            c.max_depth = d;
            EndgameSearchResult r;
            Depths seen = {0, 0, true};
            CU_ASSERT_FATAL(endgame_search(g, &c, &r, count_depth, &seen, &err) == 0);
            /* a depth that is proved may have pruned every line that a
             * horizon cut (cut without exact is fine; exact is checked
             * against the solver below) */
            bool ok = r.value == want_v && move_to(g, &r.best, r.depth) == want_v && (r.exact || cut) &&
                      (r.depth == d || (r.exact && r.depth < d)) && seen.increasing && seen.calls == r.depth &&
                      r.pv_len >= 1 && move_same(&r.pv[0], &r.best);
            if (!ok && bad < 5)
                printf("\n  game %llu depth %d: value %d (minimax %d), depth %d, exact %d (cut %d)",
                       (unsigned long long)gi, d, r.value, want_v, r.depth, r.exact, cut);
            bad += !ok;
            /* endgame_value, the same search without root moves: the same value */
            int32_t v = 0;
            bool vexact = false;
            CU_ASSERT_FATAL(endgame_value(g, &c, &v, &vexact, NULL, &err) == 0);
            if ((v != want_v || !(vexact || cut)) && bad < 5)
                printf("\n  game %llu depth %d: endgame_value %d (minimax %d), exact %d (cut %d)", (unsigned long long)gi,
                       d, v, want_v, vexact, cut);
            bad += v != want_v || !(vexact || cut);
            last = r;
            if (r.exact) break;
        }
        EndgameConfig full = config(0);
        CU_ASSERT_FATAL(endgame_solve(g, &full, &exact, &err) == 0);
        if (last.exact && last.value != exact.best_value && bad < 5)
            printf("\n  game %llu: proved at depth %d with %d, solver %d", (unsigned long long)gi, last.depth, last.value,
                   exact.best_value);
        bad += last.exact && last.value != exact.best_value;
        for (int bits = 0; bits <= 16; bits += 8) { /* endgame_value to the end: the solver's value */
            EndgameConfig cv = config(bits);
            int32_t v = 0;
            bool vexact = false;
            CU_ASSERT_FATAL(endgame_value(g, &cv, &v, &vexact, NULL, &err) == 0);
            if ((!vexact || v != exact.best_value) && bad < 5)
                printf("\n  game %llu, table 2^%d: endgame_value %d, exact %d; solver %d", (unsigned long long)gi, bits,
                       v, vexact, exact.best_value);
            bad += !vexact || v != exact.best_value;
        }
        for (int bits = 6; bits <= 16; bits += 10) {
            EndgameConfig ct = config(bits);
            EndgameSearchResult r;
            CU_ASSERT_FATAL(endgame_search(g, &ct, &r, NULL, NULL, &err) == 0);
            int i = endgame_result_find(&exact, &r.best);
            bool ok = r.exact && r.value == exact.best_value && i >= 0 && exact.values[i] == exact.best_value;
            if (!ok && bad < 5)
                printf("\n  game %llu, table 2^%d: value %d, exact %d; solver's best %d", (unsigned long long)gi, bits,
                       r.value, r.exact, exact.best_value);
            bad += !ok;
        }
        checked++;
    }
    printf("\n  %d positions (racks up to %d, depths 1..%d), %.1f s ", checked, max_tiles, max_depth,
           rk_seconds() - t0);
    CU_ASSERT_EQUAL(bad, 0);
    endgame_result_free(&exact);
    free(g);
    return checked;
}

static void test_deepening_tiny(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    CU_ASSERT(deepening_games(&ld, &lay, &kwg, 3, tu_size(1000, 150), 4000, 4, 1) >= tu_size(1000, 150));
    kwg_free(&kwg);
}

static void test_deepening_sowpods(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    if (!open_sowpods(&ld, &lay, &kwg)) return;
    CU_ASSERT(deepening_games(&ld, &lay, &kwg, 2, tu_size(200, 40), 2000, 3, 1) >= tu_size(200, 40));
    kwg_free(&kwg);
}

/* On threads (endgame_deepen.c): the same oracle, each depth the
 * depth-limited minimax and the end the solver's value, on 2 and 3 threads
 * (depths 3 and 4 split the root moves between them). */
static void test_deepening_threads(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    CU_ASSERT(deepening_games(&ld, &lay, &kwg, 3, tu_size(400, 60), 4000, 4, 2) >= tu_size(400, 60));
    CU_ASSERT(deepening_games(&ld, &lay, &kwg, 3, tu_size(200, 40), 4000, 4, 3) >= tu_size(200, 40));
    kwg_free(&kwg);
    if (!open_sowpods(&ld, &lay, &kwg)) return;
    CU_ASSERT(deepening_games(&ld, &lay, &kwg, 2, tu_size(60, 15), 2000, 3, 2) >= tu_size(60, 15));
    kwg_free(&kwg);
}

/* A full-rack SOWPODS endgame searched to depth 3 with the table, twice on
 * 2 threads: the same move, value and positions (the same answer for the
 * same thread count); on 1 thread the same value. A thread count out of
 * range is an error. */
static void test_threads_same_answer(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    int found = 0;
    for (uint64_t gi = 0; gi < 40 && found < tu_size(3, 1); gi++) {
        tu_env_position(&e, 1, gi, 0, NULL);
        if (game_over(e.g) || e.g->racks[0].total < 6 || e.g->racks[1].total < 6) continue;
        found++;
        EndgameConfig c;
        endgame_config_defaults(&c);
        c.table_bits = 16;
        c.max_depth = 3;
        c.threads = 2;
        EndgameSearchResult a, b, one;
        CU_ASSERT_FATAL(endgame_search(e.g, &c, &a, NULL, NULL, &err) == 0);
        CU_ASSERT_FATAL(endgame_search(e.g, &c, &b, NULL, NULL, &err) == 0);
        CU_ASSERT(move_same(&a.best, &b.best));
        CU_ASSERT_EQUAL(a.value, b.value);
        CU_ASSERT_EQUAL(a.nodes, b.nodes);
        CU_ASSERT_EQUAL(a.depth, 3);
        c.threads = 1;
        CU_ASSERT_FATAL(endgame_search(e.g, &c, &one, NULL, NULL, &err) == 0);
        CU_ASSERT_EQUAL(one.value, a.value);
        c.threads = 0;
        CU_ASSERT(endgame_search(e.g, &c, &one, NULL, NULL, &err) != 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "threads"));
        c.threads = ENDGAME_MAX_THREADS + 1;
        CU_ASSERT(endgame_search(e.g, &c, &one, NULL, NULL, &err) != 0);
    }
    CU_ASSERT(found >= tu_size(3, 1));
    tu_env_close(&e);
}

/* A search stopped before it starts still answers: depth 1 (which cannot be
 * stopped) with a legal move; the node budget and a past deadline the same;
 * bad depths and positions are errors. */
static void test_deepening_stops(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    if (!open_sowpods(&ld, &lay, &kwg)) return;
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    uint64_t gi = 0;
    while (!small_endgame(g, &ld, &lay, &kwg, gi, 7) || g->racks[0].total + g->racks[1].total < 10) gi++;
    atomic_bool stop = true;
    EndgameConfig c = config(16);
    c.stop = &stop;
    EndgameSearchResult r;
    RkError err;
    CU_ASSERT_FATAL(endgame_search(g, &c, &r, NULL, NULL, &err) == 0);
    /* (the flag is read every 64 positions: depth 2 may begin) */
    CU_ASSERT(r.depth == 1 || r.depth == 2);
    CU_ASSERT(!r.exact);
    CU_ASSERT(move_to(g, &r.best, r.depth) == r.value);
    c.stop = NULL;
    c.deadline = rk_seconds() - 1.0;
    CU_ASSERT_FATAL(endgame_search(g, &c, &r, NULL, NULL, &err) == 0);
    CU_ASSERT(r.depth == 1 || r.depth == 2);
    CU_ASSERT(move_to(g, &r.best, r.depth) == r.value);
    c.deadline = 0.0;
    c.max_nodes = 50;
    CU_ASSERT_FATAL(endgame_search(g, &c, &r, NULL, NULL, &err) == 0);
    CU_ASSERT(r.depth >= 1 && !r.exact && r.nodes <= 50);
    c.max_nodes = ENDGAME_DEFAULT_MAX_NODES;
    c.max_depth = 3;
    CU_ASSERT_FATAL(endgame_search(g, &c, &r, NULL, NULL, &err) == 0);
    CU_ASSERT_EQUAL(r.depth, 3);
    CU_ASSERT_EQUAL(r.pv_len, 3);
    c.max_depth = ENDGAME_MAX_DEPTH + 1;
    CU_ASSERT_EQUAL(endgame_search(g, &c, &r, NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "depth 65 out of range"));
    c.max_depth = 0;
    g->bag.count = 2;
    CU_ASSERT_EQUAL(endgame_search(g, &c, &r, NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bag is not empty (2 tiles)"));
    free(g);
    kwg_free(&kwg);
}

/* The study with the static player on tiny games: totals agree with the
 * items; the same seed gives the same positions and another seed others. */
static void test_study(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    Player p;
    RkError err;
    CU_ASSERT_FATAL(player_open(&p, "static", &ld, &err) == 0);
    EndgameStudyConfig c;
    endgame_study_config_defaults(&c);
    c.ld = &ld;
    c.layout = &lay;
    c.kwg = &kwg;
    c.positions = 25;
    c.max_tiles = 4;
    c.seed = 5;
    EndgameStudyResult r;
    Seen a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.max_tiles = b.max_tiles = c.max_tiles;
    CU_ASSERT_FATAL(endgame_study_run(&c, &p, &r, seen_item, &a, &err) == 0);
    CU_ASSERT_EQUAL(a.items, 25);
    CU_ASSERT_EQUAL(r.positions + r.unsolved, 25);
    CU_ASSERT_EQUAL(r.unsolved, a.unsolved);
    CU_ASSERT_EQUAL(r.best, a.best);
    CU_ASSERT_EQUAL(r.loss_sum, a.loss);
    CU_ASSERT(r.games >= 25);
    CU_ASSERT(r.nodes_sum >= (uint64_t)r.positions && r.nodes_max <= r.nodes_sum);
    printf("\n  static: %.1f%% best, mean loss %.3f ", endgame_study_best_pct(&r), endgame_study_mean_loss(&r));
    /* two players on one solve of each position: each one's result is its own study's */
    Player q;
    CU_ASSERT_FATAL(player_open(&q, "mcgs:visits=20,candidates=4", &ld, &err) == 0);
    EndgameStudyResult rq, many[2];
    CU_ASSERT_FATAL(endgame_study_run(&c, &q, &rq, NULL, NULL, &err) == 0);
    const Player *both[2] = {&p, &q};
    CU_ASSERT_FATAL(endgame_study_run_many(&c, both, 2, many, NULL, NULL, &err) == 0);
    const EndgameStudyResult *alone[2] = {&r, &rq};
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(many[k].positions, alone[k]->positions);
        CU_ASSERT_EQUAL(many[k].unsolved, alone[k]->unsolved);
        CU_ASSERT_EQUAL(many[k].games, alone[k]->games);
        CU_ASSERT_EQUAL(many[k].best, alone[k]->best);
        CU_ASSERT_EQUAL(many[k].loss_sum, alone[k]->loss_sum);
        CU_ASSERT_EQUAL(many[k].max_loss, alone[k]->max_loss);
        CU_ASSERT_EQUAL(many[k].nodes_sum, alone[k]->nodes_sum);
    }
    CU_ASSERT_EQUAL(endgame_study_run_many(&c, both, 0, many, NULL, NULL, &err), -1);
    player_close(&q);
    CU_ASSERT_FATAL(endgame_study_run(&c, &p, &r, seen_item, &b, &err) == 0);
    CU_ASSERT_EQUAL(a.first_game, b.first_game);
    CU_ASSERT_STRING_EQUAL(a.first_cgp, b.first_cgp);
    CU_ASSERT_EQUAL(a.loss, b.loss);
    c.seed = 6;
    memset(&b, 0, sizeof b);
    b.max_tiles = c.max_tiles;
    CU_ASSERT_FATAL(endgame_study_run(&c, &p, &r, seen_item, &b, &err) == 0);
    CU_ASSERT(strcmp(a.first_cgp, b.first_cgp) != 0);
    /* a budget too small for anything: every position unsolved, no figures */
    c.solver.max_nodes = 1;
    c.positions = 5;
    memset(&b, 0, sizeof b);
    b.max_tiles = c.max_tiles;
    CU_ASSERT_FATAL(endgame_study_run(&c, &p, &r, seen_item, &b, &err) == 0);
    CU_ASSERT_EQUAL(r.unsolved, 5);
    CU_ASSERT_EQUAL(r.positions, 0);
    CU_ASSERT_EQUAL(endgame_study_best_pct(&r), 0.0);
    /* bad configurations */
    c.positions = 0;
    CU_ASSERT_EQUAL(endgame_study_run(&c, &p, &r, NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "positions"));
    c.positions = 3;
    c.max_tiles = 8;
    CU_ASSERT_EQUAL(endgame_study_run(&c, &p, &r, NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "max tiles"));
    player_close(&p);
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"going out in two beats one big play", test_out_in_two},
        {"the highest score is wrong when it lets the opponent out", test_greedy_is_wrong},
        {"passing is best (six scoreless turns), at every zeros count", test_pass_is_best},
        {"oracle: every root value = plain minimax (tiny lexicon)", test_oracle_tiny},
        {"oracle: every root value = plain minimax (SOWPODS)", test_oracle_sowpods},
        {"the table changes no value (tiny lexicon, racks up to 5)", test_table_tiny},
        {"the table changes no value (SOWPODS, racks up to 4)", test_table_sowpods},
        {"the table's key: board, racks, side on turn, zeros; not scores", test_position_key},
        {"errors: bag not empty, game over, node budget, illegal move", test_errors},
        {"deepening: each depth = depth-limited minimax; the end = the solver (tiny)", test_deepening_tiny},
        {"deepening: each depth = depth-limited minimax; the end = the solver (SOWPODS)", test_deepening_sowpods},
        {"deepening on 2 and 3 threads: the same oracle", test_deepening_threads},
        {"deepening on threads: the same answer for the same count", test_threads_same_answer},
        {"deepening: answers when stopped at once, by budget or by deadline; errors", test_deepening_stops},
        {"study: totals, determinism, unsolved, bad configuration", test_study},
        CU_TEST_INFO_NULL,
    };
    return tu_run("endgame", tests);
}
