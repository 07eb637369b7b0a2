/* test_game.c - the random generator, the bag, and games: drawing, moves,
 * scores, scoreless turns, going out, and tile conservation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bag.h"
#include "core/cgp.h"
#include "core/game.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/move.h"
#include "core/rng.h"
#include "testutil.h"

typedef struct Env {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game g, g2;
} Env;

static Env *env_new(void) {
    static const char *const WORDS[] = {"QUARTZ", "QUARTZY", "AT", "TA", "AB", "BA", "EH", "HE", "OX"};
    Env *e = calloc(1, sizeof *e);
    CU_ASSERT_FATAL(e != NULL);
    ld_english(&e->ld);
    layout_standard15(&e->lay);
    tu_build_lex(&e->kwg, &e->ld, WORDS, sizeof WORDS / sizeof WORDS[0]);
    return e;
}

static void env_free(Env *e) {
    kwg_free(&e->kwg);
    free(e);
}

#define EMPTY15 "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"

static void load(Env *e, const char *cgp) {
    RkError err;
    int rc = cgp_parse(&e->g, cgp, &e->ld, &e->lay, &e->kwg, 7, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
}

static void parse_move(const Env *e, Move *m, const char *s) {
    RkError err;
    int rc = move_parse(m, s, &e->g.board, &e->ld, &err);
    if (rc != 0) printf("\n%s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
}

static Rack rack_of(const Env *e, const char *s) {
    Rack r;
    RkError err;
    CU_ASSERT_FATAL(rack_parse(&r, &e->ld, s, &err) == 0);
    return r;
}

/* board + racks + bag hold exactly the distribution */
/* ---------------------------------------------------------------- rng */

static void test_rng_streams(void) {
    Rng a, b;
    rng_seed(&a, 1);
    rng_seed(&b, 1);
    for (int i = 0; i < 1000; i++) CU_ASSERT_EQUAL(rng_next(&a), rng_next(&b));
    rng_seed(&b, 2);
    int same = 0;
    rng_seed(&a, 1);
    for (int i = 0; i < 1000; i++) same += rng_next(&a) == rng_next(&b);
    CU_ASSERT(same == 0);
    /* the same (seed, a, b) gives the same stream; nearby inputs give
     * unrelated ones (no shared first outputs, about half the bits differ) */
    uint64_t first[8];
    const uint64_t in[8][3] = {{1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}, {1, 1, 1}, {0, 0, 0}};
    for (int i = 0; i < 8; i++) {
        rng_seed_stream(&a, in[i][0], in[i][1], in[i][2]);
        rng_seed_stream(&b, in[i][0], in[i][1], in[i][2]);
        first[i] = rng_next(&a);
        CU_ASSERT_EQUAL(first[i], rng_next(&b));
        for (int k = 0; k < 100; k++) CU_ASSERT_EQUAL(rng_next(&a), rng_next(&b));
    }
    for (int i = 0; i < 8; i++) {
        for (int j = i + 1; j < 8; j++) {
            CU_ASSERT(first[i] != first[j]);
            int bits = __builtin_popcountll(first[i] ^ first[j]);
            CU_ASSERT(bits > 12 && bits < 52);
        }
    }
    /* many game indices of one generation: all first outputs distinct */
    enum { N = 2000 };
    uint64_t *v = malloc(N * sizeof *v);
    CU_ASSERT_FATAL(v != NULL);
    for (int i = 0; i < N; i++) {
        rng_seed_stream(&a, 99, 3, (uint64_t)i);
        v[i] = rng_next(&a);
    }
    int dup = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) dup += v[i] == v[j];
    CU_ASSERT_EQUAL(dup, 0);
    free(v);
}

static void test_rng_below(void) {
    Rng r;
    rng_seed(&r, 2024);
    for (int i = 0; i < 1000; i++) CU_ASSERT_EQUAL(rng_below(&r, 1), 0);
    const uint64_t ns[] = {2, 3, 7, 100, 1000003, (1ull << 63) + 1, UINT64_MAX};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int i = 0; i < 2000; i++) CU_ASSERT(rng_below(&r, ns[k]) < ns[k]);
    /* values above 2^63 do come out for n = 2^63 + 1 (no truncation) */
    int high = 0;
    for (int i = 0; i < 1000; i++) high += rng_below(&r, (1ull << 63) + 1) >= (1ull << 62);
    CU_ASSERT(high > 300);
    /* rough chi-square for uniformity: 10 and 7 bins */
    const int bins[] = {10, 7, 100};
    for (int k = 0; k < 3; k++) {
        int nb = bins[k];
        long count[100] = {0};
        const int draws = 200000;
        for (int i = 0; i < draws; i++) count[rng_below(&r, (uint64_t)nb)]++;
        double expect = (double)draws / nb, chi = 0;
        for (int b = 0; b < nb; b++) chi += (count[b] - expect) * (count[b] - expect) / expect;
        /* dof = nb - 1; the mean is nb - 1 and the bound is very generous */
        if (chi >= 3.0 * nb + 30) printf("\nchi-square %.1f for %d bins\n", chi, nb);
        CU_ASSERT(chi < 3.0 * nb + 30);
    }
}

/* ---------------------------------------------------------------- bag */

static void test_bag(void) {
    LetterDist ld;
    ld_english(&ld);
    Bag bag;
    bag_fill(&bag, &ld);
    CU_ASSERT_EQUAL(bag.count, 100);
    Rack r;
    bag_to_rack(&bag, &r);
    CU_ASSERT_EQUAL(r.total, 100);
    static const int counts[27] = {2, 9, 2, 2, 4, 12, 2, 3, 2, 9, 1, 1, 4, 2, 6, 8, 2, 1, 6, 4, 6, 4, 2, 2, 1, 2, 1};
    for (int ml = 0; ml < 27; ml++) CU_ASSERT_EQUAL(r.count[ml], counts[ml]);
    /* drawing the whole bag gives back the distribution */
    Rng rng;
    rng_seed(&rng, 5);
    Rack drawn;
    rack_clear(&drawn);
    while (bag.count > 0) rack_add(&drawn, bag_draw(&bag, &rng));
    CU_ASSERT(rack_equal(&drawn, &r));
    /* take / add */
    CU_ASSERT_EQUAL(bag_take(&bag, 1), -1);
    bag_add(&bag, 17);
    bag_add(&bag, 0);
    CU_ASSERT_EQUAL(bag.count, 2);
    CU_ASSERT_EQUAL(bag_take(&bag, 17), 0);
    CU_ASSERT_EQUAL(bag_take(&bag, 17), -1);
    CU_ASSERT_EQUAL(bag.count, 1);
    CU_ASSERT_EQUAL(bag.tiles[0], 0);
    /* refill stops at 7 tiles, or when the bag runs out */
    bag_fill(&bag, &ld);
    Rack rk;
    rack_clear(&rk);
    rack_add(&rk, 3);
    bag_refill_rack(&bag, &rk, &rng);
    CU_ASSERT_EQUAL(rk.total, 7);
    CU_ASSERT_EQUAL(bag.count, 94);
    bag.count = 2;
    rack_clear(&rk);
    bag_refill_rack(&bag, &rk, &rng);
    CU_ASSERT_EQUAL(rk.total, 2);
    CU_ASSERT_EQUAL(bag.count, 0);
    /* draws are roughly uniform over the tiles: the first draw from a full
     * bag is an E about 12% of the time */
    int es = 0;
    for (int i = 0; i < 20000; i++) {
        bag_fill(&bag, &ld);
        es += bag_draw(&bag, &rng) == 5;
    }
    CU_ASSERT(es > 2000 && es < 2800);
}

static void test_rack_text(void) {
    LetterDist ld;
    ld_english(&ld);
    Rack r;
    RkError err;
    CU_ASSERT(rack_parse(&r, &ld, "", &err) == 0);
    CU_ASSERT_EQUAL(r.total, 0);
    CU_ASSERT(rack_parse(&r, &ld, "ZEB?RA?", &err) == 0);
    CU_ASSERT_EQUAL(r.total, 7);
    CU_ASSERT_EQUAL(r.count[0], 2);
    char buf[32];
    rack_to_string(&r, &ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "??ABERZ");
    CU_ASSERT_EQUAL(rack_score(&r, &ld), 1 + 3 + 1 + 1 + 10);
    Rack r2;
    CU_ASSERT(rack_parse(&r2, &ld, "??ZREBA", &err) == 0);
    CU_ASSERT(rack_equal(&r, &r2));
    CU_ASSERT(rack_parse(&r2, &ld, "??ZREBE", &err) == 0);
    CU_ASSERT(!rack_equal(&r, &r2));
    CU_ASSERT(rack_parse(&r, &ld, "AB1", &err) == -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "rack 'AB1': unknown tile '1'");
    CU_ASSERT(rack_parse(&r, &ld, "ABCDEFGH", &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rack 'ABCDEFGH'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than 7"));
    CU_ASSERT(rack_parse(&r, &ld, "ABc", &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rack 'ABc'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lowercase 'c'"));
    CU_ASSERT(rack_parse(&r, &ld, "A\xC3\xA9", &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown tile '\xC3\xA9'"));
    rack_clear(&r);
    rack_to_string(&r, &ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "");
    CU_ASSERT(rack_parse(&r, &ld, "QUARTZY", &err) == 0);
    rack_to_string(&r, &ld, buf, 4);
    CU_ASSERT_STRING_EQUAL(buf, "AQR");
}

/* ---------------------------------------------------------------- games */

static void test_new_game(void) {
    Env *e = env_new();
    game_new(&e->g, &e->ld, &e->lay, &e->kwg, 11, 2, 3);
    game_new(&e->g2, &e->ld, &e->lay, &e->kwg, 11, 2, 3);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(e->g.racks[1].total, 7);
    CU_ASSERT_EQUAL(e->g.bag.count, 86);
    CU_ASSERT_EQUAL(e->g.on_turn, 0);
    CU_ASSERT_EQUAL(e->g.turn, 0);
    CU_ASSERT_EQUAL(e->g.zeros, 0);
    CU_ASSERT_EQUAL(e->g.scores[0] + e->g.scores[1], 0);
    CU_ASSERT_EQUAL(e->g.end, GAME_PLAYING);
    CU_ASSERT(board_is_empty(&e->g.board));
    tu_expect_conserved(&e->g);
    /* the same seed gives the same draws */
    CU_ASSERT(rack_equal(&e->g.racks[0], &e->g2.racks[0]));
    CU_ASSERT(rack_equal(&e->g.racks[1], &e->g2.racks[1]));
    CU_ASSERT(memcmp(e->g.bag.tiles, e->g2.bag.tiles, 86) == 0);
    CU_ASSERT(memcmp(&e->g.rng, &e->g2.rng, sizeof e->g.rng) == 0);
    /* other games of the generation draw differently */
    int differ = 0;
    for (uint64_t i = 4; i < 14; i++) {
        game_new(&e->g2, &e->ld, &e->lay, &e->kwg, 11, 2, i);
        differ += !rack_equal(&e->g.racks[0], &e->g2.racks[0]);
    }
    CU_ASSERT(differ >= 9);
    env_free(e);
}

static void test_pass(void) {
    Env *e = env_new();
    load(e, EMPTY15 " AQRTUYZ/EEIIOOU 10/20 0");
    Move m;
    parse_move(e, &m, "pass");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.zeros, 1);
    CU_ASSERT_EQUAL(e->g.on_turn, 1);
    CU_ASSERT_EQUAL(e->g.turn, 1);
    CU_ASSERT_EQUAL(e->g.scores[0], 10);
    CU_ASSERT_EQUAL(e->g.scores[1], 20);
    CU_ASSERT_EQUAL(e->g.bag.count, 86);
    Rack want = rack_of(e, "AQRTUYZ");
    CU_ASSERT(rack_equal(&e->g.racks[0], &want));
    CU_ASSERT_EQUAL(e->g.end, GAME_PLAYING);
    tu_expect_conserved(&e->g);
    env_free(e);
}

static void test_exchange(void) {
    Env *e = env_new();
    load(e, EMPTY15 " AQRTUYZ/EEIIOOU 10/20 2");
    Move m;
    parse_move(e, &m, "(exch QUZ)");
    Rack bag_before;
    bag_to_rack(&e->g.bag, &bag_before);
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.zeros, 3);
    CU_ASSERT_EQUAL(e->g.scores[0], 10);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(e->g.bag.count, 86);
    CU_ASSERT_EQUAL(e->g.on_turn, 1);
    /* kept A R T Y; the Q and Z went back and could not be drawn again
     * (there is one of each and the replacements are drawn first) */
    const Rack *r = &e->g.racks[0];
    CU_ASSERT(r->count[1] >= 1 && r->count[18] >= 1 && r->count[20] >= 1 && r->count[25] >= 1);
    CU_ASSERT_EQUAL(r->count[17], 0);
    CU_ASSERT_EQUAL(r->count[26], 0);
    Rack bag_after;
    bag_to_rack(&e->g.bag, &bag_after);
    CU_ASSERT_EQUAL(bag_after.count[17], 1);
    CU_ASSERT_EQUAL(bag_after.count[26], 1);
    tu_expect_conserved(&e->g);
    /* a blank can be exchanged */
    load(e, EMPTY15 " ??ABCDE/ 0/0 0");
    parse_move(e, &m, "(exch ?\?)");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(e->g.racks[0].count[0], 0);
    tu_expect_conserved(&e->g);
    env_free(e);
}

static void test_placement(void) {
    Env *e = env_new();
    load(e, EMPTY15 " AQRTUYZ/EEIIOOU 10/20 4");
    Move m;
    parse_move(e, &m, "8D QUARTZY");
    game_play(&e->g, &m);
    /* Q on the DL, T on the centre DW: (20+1+1+1+1+10+4) * 2 + 50 */
    CU_ASSERT_EQUAL(e->g.scores[0], 10 + 126);
    CU_ASSERT_EQUAL(e->g.scores[1], 20);
    CU_ASSERT_EQUAL(e->g.zeros, 0);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(e->g.bag.count, 86 - 7);
    CU_ASSERT_EQUAL(e->g.board.tiles_on_board, 7);
    CU_ASSERT_EQUAL(board_at(&e->g.board, 7, 3), 17);
    CU_ASSERT_EQUAL(e->g.on_turn, 1);
    CU_ASSERT_EQUAL(e->g.turn, 1);
    tu_expect_conserved(&e->g);
    /* the other player plays down through the U: (U)EE on plain squares,
     * 1 + 1 + 1 */
    parse_move(e, &m, "E8 (U)EE");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.scores[1], 23);
    CU_ASSERT_EQUAL(e->g.racks[1].total, 7);
    CU_ASSERT_EQUAL(e->g.bag.count, 86 - 9);
    CU_ASSERT_EQUAL(e->g.on_turn, 0);
    tu_expect_conserved(&e->g);
    env_free(e);
}

static void test_blank_placement(void) {
    Env *e = env_new();
    load(e, EMPTY15 " ??A/ 0/0 2");
    Move m;
    /* two blanks through the centre: 0 points, a scoreless turn */
    parse_move(e, &m, "8G ab");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.scores[0], 0);
    CU_ASSERT_EQUAL(e->g.zeros, 3);
    CU_ASSERT_EQUAL(e->g.racks[0].count[0], 0);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(board_at(&e->g.board, 7, 6), 1 | RK_BLANK_BIT);
    tu_expect_conserved(&e->g);
    env_free(e);
}

static void test_six_zeros(void) {
    Env *e = env_new();
    load(e, EMPTY15 " AQRTUYZ/EEIIOOU 10/20 4");
    Move m;
    parse_move(e, &m, "pass");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.end, GAME_PLAYING);
    game_play(&e->g, &m);
    CU_ASSERT(game_over(&e->g));
    CU_ASSERT_EQUAL(e->g.end, GAME_SIX_ZEROS);
    CU_ASSERT_EQUAL(e->g.zeros, 6);
    CU_ASSERT_EQUAL(e->g.scores[0], 10 - 28); /* A1 Q10 R1 T1 U1 Y4 Z10 */
    CU_ASSERT_EQUAL(e->g.scores[1], 20 - 7);
    CU_ASSERT_EQUAL(e->g.turn, 2);
    /* six scoreless turns from a fresh game, mixing kinds */
    load(e, EMPTY15 " ??ABCDE/FGHIJKL 0/0 0");
    for (int t = 0; t < 6; t++) {
        CU_ASSERT_FATAL(!game_over(&e->g));
        if (t == 0) parse_move(e, &m, "8G ab");
        else if (t % 2) parse_move(e, &m, "pass");
        else {
            Move x;
            memset(&x, 0, sizeof x);
            x.kind = MOVE_EXCHANGE;
            x.len = x.ntiles = 1;
            for (int ml = 1; ml < 27; ml++)
                if (e->g.racks[e->g.on_turn].count[ml]) {
                    x.tiles[0] = (uint8_t)ml;
                    break;
                }
            m = x;
        }
        game_play(&e->g, &m);
        tu_expect_conserved(&e->g);
    }
    CU_ASSERT_EQUAL(e->g.end, GAME_SIX_ZEROS);
    env_free(e);
}

static void test_go_out(void) {
    Env *e = env_new();
    /* the bag is empty when the board and racks hold every tile: build such
     * a position by loading it and emptying the bag onto the board */
    load(e, EMPTY15 " AT/QZ 100/50 3");
    /* put the whole bag on rows away from row 8 */
    int k = 0;
    while (e->g.bag.count > 0) {
        uint8_t t = e->g.bag.tiles[--e->g.bag.count];
        int r = k / 15 < 5 ? k / 15 : k / 15 + 5; /* rows 1-5 and 11-15 */
        board_put(&e->g.board, r, k % 15, t == 0 ? (uint8_t)(1 | RK_BLANK_BIT) : t);
        k++;
    }
    board_refresh(&e->g.board);
    CU_ASSERT_FATAL(k == 96 && k <= 10 * 15);
    tu_expect_conserved(&e->g);
    Move m;
    parse_move(e, &m, "8G AT");
    int score = board_score_move(&e->g.board, &m);
    CU_ASSERT_EQUAL(score, 4); /* (1 + 1) x2 on the centre */
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.end, GAME_WENT_OUT);
    CU_ASSERT_EQUAL(e->g.scores[0], 100 + 4 + 2 * 20);
    CU_ASSERT_EQUAL(e->g.scores[1], 50);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 0);
    CU_ASSERT_EQUAL(e->g.zeros, 0);
    tu_expect_conserved(&e->g);
    /* going out with a 0-point play still ends the game by going out */
    load(e, EMPTY15 " ?/QZ 0/0 5");
    k = 0;
    while (e->g.bag.count > 0) {
        uint8_t t = e->g.bag.tiles[--e->g.bag.count];
        int r = k / 15 < 5 ? k / 15 : k / 15 + 5; /* rows 1-5 and 11-15 */
        board_put(&e->g.board, r, k % 15, t == 0 ? (uint8_t)(1 | RK_BLANK_BIT) : t);
        k++;
    }
    board_refresh(&e->g.board);
    parse_move(e, &m, "8H a");
    game_play(&e->g, &m);
    CU_ASSERT_EQUAL(e->g.end, GAME_WENT_OUT);
    CU_ASSERT_EQUAL(e->g.scores[0], 40);
    env_free(e);
}

/* Plays whole games with moves built by hand: words along the even rows
 * (extending the row's run, so later moves play through earlier tiles),
 * exchanges and passes now and then. Tiles are conserved at every turn,
 * move notation round-trips, and the game ends by going out or by six
 * scoreless turns. */
static void play_constructed_game(Env *e, uint64_t seed, int *went_out, int *six_zeros) {
    Game *g = &e->g;
    game_new(g, &e->ld, &e->lay, &e->kwg, seed, 0, seed);
    Rng pick;
    rng_seed(&pick, seed ^ 0xABCDEF);
    int filled[15] = {0};
    int turns = 0;
    while (!game_over(g)) {
        CU_ASSERT_FATAL(turns < 500);
        Rack *rack = &g->racks[g->on_turn];
        int opp = 1 - g->on_turn;
        int before[2] = {g->scores[0], g->scores[1]};
        Move m;
        memset(&m, 0, sizeof m);
        uint64_t roll = rng_below(&pick, 10);
        int row = -1;
        for (int r = 0; r < 15; r += 2)
            if (filled[r] < 15) {
                row = r;
                break;
            }
        bool passive = seed % 4 == 0; /* some games mostly pass */
        if (roll == 0 || row < 0 || (passive && roll < 8)) {
            m.kind = MOVE_PASS;
        } else if (roll == 1 && g->bag.count >= RK_RACK_SIZE) {
            m.kind = MOVE_EXCHANGE;
            int n = 1 + (int)rng_below(&pick, (uint64_t)rack->total);
            Rack tmp = *rack;
            for (int i = 0; i < n; i++) {
                int ml = 0;
                while (tmp.count[ml] == 0) ml++;
                rack_remove(&tmp, (uint8_t)ml);
                m.tiles[m.len++] = (uint8_t)ml;
            }
            m.ntiles = m.len;
        } else {
            m.kind = MOVE_PLACE;
            m.dir = DIR_ACROSS;
            m.row = (uint8_t)row;
            m.col = 0;
            int n = 1 + (int)rng_below(&pick, (uint64_t)rack->total);
            if (n > 15 - filled[row]) n = 15 - filled[row];
            for (int i = 0; i < filled[row]; i++) m.tiles[m.len++] = MOVE_PLAYED_THROUGH;
            Rack tmp = *rack;
            for (int i = 0; i < n; i++) {
                int ml = (int)rng_below(&pick, 27);
                while (tmp.count[ml] == 0) ml = (ml + 1) % 27;
                rack_remove(&tmp, (uint8_t)ml);
                m.tiles[m.len++] = ml == 0 ? (uint8_t)(5 | RK_BLANK_BIT) : (uint8_t)ml;
            }
            m.ntiles = (uint8_t)n;
            filled[row] += n;
        }
        /* notation round trip against the board before the move */
        char text[128];
        move_to_string(&m, &g->board, &e->ld, text, sizeof text);
        Move back;
        RkError err;
        int rc = move_parse(&back, text, &g->board, &e->ld, &err);
        if (rc != 0) printf("\n'%s': %s\n", text, err.msg);
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT(move_same(&m, &back));
        int expect_score = m.kind == MOVE_PLACE ? board_score_move(&g->board, &m) : 0;
        int zeros_before = g->zeros, me = g->on_turn;
        int bag_before = g->bag.count, turn_before = g->turn;
        game_play(g, &m);
        tu_expect_conserved(g);
        CU_ASSERT_EQUAL(g->turn, turn_before + 1);
        CU_ASSERT_EQUAL(g->on_turn, opp);
        CU_ASSERT_EQUAL(g->zeros, expect_score == 0 ? zeros_before + 1 : 0);
        if (m.kind == MOVE_EXCHANGE) CU_ASSERT_EQUAL(g->bag.count, bag_before);
        if (g->end == GAME_WENT_OUT) {
            CU_ASSERT_EQUAL(g->racks[me].total, 0);
            CU_ASSERT_EQUAL(g->bag.count, 0);
            CU_ASSERT_EQUAL(g->scores[me], before[me] + expect_score + 2 * rack_score(&g->racks[opp], &e->ld));
            CU_ASSERT_EQUAL(g->scores[opp], before[opp]);
            (*went_out)++;
        } else if (g->end == GAME_SIX_ZEROS) {
            CU_ASSERT_EQUAL(g->zeros, 6);
            (*six_zeros)++;
            CU_ASSERT_EQUAL(g->scores[me], before[me] + expect_score - rack_score(&g->racks[me], &e->ld));
            CU_ASSERT_EQUAL(g->scores[opp], before[opp] - rack_score(&g->racks[opp], &e->ld));
        } else {
            CU_ASSERT_EQUAL(g->scores[me], before[me] + expect_score);
            CU_ASSERT_EQUAL(g->racks[me].total, bag_before >= RK_RACK_SIZE ? 7 : g->racks[me].total);
        }
        turns++;
    }
}

static void test_whole_games(void) {
    Env *e = env_new();
    int went_out = 0, six_zeros = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) play_constructed_game(e, seed, &went_out, &six_zeros);
    printf(" (of 40 games %d went out, %d ended on six zeros) ", went_out, six_zeros);
    CU_ASSERT(went_out > 10);
    CU_ASSERT(six_zeros > 0);
    CU_ASSERT_EQUAL(went_out + six_zeros, 40);
    env_free(e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"rng streams", test_rng_streams},
        {"rng_below", test_rng_below},
        {"bag", test_bag},
        {"rack text", test_rack_text},
        {"new game", test_new_game},
        {"pass", test_pass},
        {"exchange", test_exchange},
        {"placement", test_placement},
        {"blank placement", test_blank_placement},
        {"six zeros", test_six_zeros},
        {"going out", test_go_out},
        {"whole games", test_whole_games},
        CU_TEST_INFO_NULL,
    };
    return tu_run("game", tests);
}
