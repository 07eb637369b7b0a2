/* test_cgp.c - CGP positions: round trips, bag contents, every validation
 * error, and random mutations that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/rng.h"
#include "testutil.h"

typedef struct Env {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game g, g2;
} Env;

static Env *env_new(void) {
    static const char *const WORDS[] = {"QUARTZ", "QUARTZY", "AT", "TA", "ZA", "QI", "EH", "HE", "OX",
                                        "XI", "JO", "ZO", "RE", "ER", "ME", "EM", "CAT", "CATS", "SCAT"};
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

static int parse(Env *e, Game *g, const char *cgp, RkError *err) {
    return cgp_parse(g, cgp, &e->ld, &e->lay, &e->kwg, 42, err);
}

static void expect_same_position(const Game *a, const Game *b) {
    CU_ASSERT(memcmp(a->board.sq[0], b->board.sq[0], sizeof a->board.sq[0]) == 0);
    CU_ASSERT(memcmp(a->board.sq[1], b->board.sq[1], sizeof a->board.sq[1]) == 0);
    CU_ASSERT(memcmp(a->board.cross, b->board.cross, sizeof a->board.cross) == 0);
    CU_ASSERT(memcmp(a->board.anchor, b->board.anchor, sizeof a->board.anchor) == 0);
    CU_ASSERT_EQUAL(a->board.tiles_on_board, b->board.tiles_on_board);
    CU_ASSERT(rack_equal(&a->racks[0], &b->racks[0]));
    CU_ASSERT(rack_equal(&a->racks[1], &b->racks[1]));
    CU_ASSERT_EQUAL(a->scores[0], b->scores[0]);
    CU_ASSERT_EQUAL(a->scores[1], b->scores[1]);
    CU_ASSERT_EQUAL(a->zeros, b->zeros);
    Rack ba, bb;
    bag_to_rack(&a->bag, &ba);
    bag_to_rack(&b->bag, &bb);
    CU_ASSERT(rack_equal(&ba, &bb));
}

/* Parses s, writes it (with the same lex) and expects the canonical form
 * `canon` (s itself if NULL); the written form parses to the same
 * position. */
static void round_trip(Env *e, const char *s, const char *canon) {
    RkError err;
    int rc = parse(e, &e->g, s, &err);
    if (rc != 0) printf("\nparse '%s': %s\n", s, err.msg);
    CU_ASSERT_FATAL(rc == 0);
    tu_expect_conserved(&e->g);
    CgpOps ops;
    CU_ASSERT_FATAL(cgp_read_ops(s, &ops, &err) == 0);
    char buf[1024];
    cgp_write(&e->g, ops.lex[0] ? ops.lex : NULL, buf, sizeof buf);
    const char *want = canon ? canon : s;
    if (strcmp(buf, want) != 0) printf("\nwrote '%s'\nwant  '%s'\n", buf, want);
    CU_ASSERT_STRING_EQUAL(buf, want);
    rc = parse(e, &e->g2, buf, &err);
    CU_ASSERT_FATAL(rc == 0);
    expect_same_position(&e->g, &e->g2);
    CU_ASSERT_EQUAL(e->g.on_turn, 0);
    CU_ASSERT_EQUAL(e->g.turn, 0);
    CU_ASSERT_EQUAL(e->g.end, GAME_PLAYING);
}

#define EMPTY15 "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"

static void test_round_trip(void) {
    Env *e = env_new();
    /* the example of formats.md */
    round_trip(e, EMPTY15 " AQRTUYZ/ 0/0 0 lex SOWPODS;", NULL);
    CU_ASSERT_EQUAL(e->g.bag.count, 93);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 7);
    CU_ASSERT_EQUAL(e->g.racks[1].total, 0);
    CU_ASSERT(board_is_empty(&e->g.board));
    /* a rack is written in ML order, blank first */
    round_trip(e, EMPTY15 " DEGORV?/ 0/0 0", EMPTY15 " ?DEGORV/ 0/0 0");
    /* blanks on the board, multi-digit runs, both racks, negative score */
    const char *mid = "15/15/15/15/15/15/15/3QUARTzY5/10C4/10A4/10T4/10S4/15/15/15 EEIO?JK/ABDE -12/130 3";
    round_trip(e, mid, "15/15/15/15/15/15/15/3QUARTzY5/10C4/10A4/10T4/10S4/15/15/15 ?EEIJKO/ABDE -12/130 3");
    CU_ASSERT_EQUAL(board_at(&e->g.board, 7, 3), 17);
    CU_ASSERT_EQUAL(board_at(&e->g.board, 7, 8), 26 | RK_BLANK_BIT);
    CU_ASSERT_EQUAL(board_at(&e->g.board, 11, 10), 19);
    CU_ASSERT_EQUAL(e->g.board.tiles_on_board, 11);
    CU_ASSERT_EQUAL(e->g.scores[0], -12);
    CU_ASSERT_EQUAL(e->g.scores[1], 130);
    CU_ASSERT_EQUAL(e->g.zeros, 3);
    CU_ASSERT_EQUAL(e->g.racks[0].count[0], 1);
    CU_ASSERT_EQUAL(e->g.racks[0].count[5], 2);
    CU_ASSERT_EQUAL(e->g.racks[1].total, 4);
    CU_ASSERT_EQUAL(e->g.bag.count, 100 - 11 - 7 - 4);
    /* the board blank z used one of the two blanks, the rack the other */
    CU_ASSERT_EQUAL(e->g.bag.count, 78);
    Rack bag;
    bag_to_rack(&e->g.bag, &bag);
    CU_ASSERT_EQUAL(bag.count[0], 0);
    CU_ASSERT_EQUAL(bag.count[26], 1); /* the real Z is unseen */
    /* tiles at the edges, full rows */
    round_trip(e, "A14/15/15/15/15/15/15/7E7/15/15/15/15/15/15/14Z ?/? 1/2 5", NULL);
    round_trip(e, "ABCDEFGHIJKLMNO/15/15/15/15/15/15/15/15/15/15/15/15/15/PQRSTUVWXYZabAB / 0/0 0", NULL);
    CU_ASSERT_EQUAL(e->g.bag.count, 70);
    /* empty racks both sides */
    round_trip(e, EMPTY15 " / 0/0 0", NULL);
    CU_ASSERT_EQUAL(e->g.bag.count, 100);
    /* several ops, unknown ones ignored; whitespace between fields */
    round_trip(e, EMPTY15 "  A/B\t0/0   0 ld english; foo bar baz; bdn standard15; lex CSW21;",
               EMPTY15 " A/B 0/0 0 lex CSW21;");
    /* an explicit opponent rack is kept on its side */
    round_trip(e, EMPTY15 " /QZ 5/-5 0", NULL);
    CU_ASSERT_EQUAL(e->g.racks[0].total, 0);
    CU_ASSERT_EQUAL(e->g.racks[1].total, 2);
    env_free(e);
}

static void test_ops(void) {
    CgpOps ops;
    RkError err;
    CU_ASSERT(cgp_read_ops(EMPTY15 " A/ 0/0 0 lex SOWPODS; ld english;bdn standard15 ;", &ops, &err) == 0);
    CU_ASSERT_STRING_EQUAL(ops.lex, "SOWPODS");
    CU_ASSERT_STRING_EQUAL(ops.ld, "english");
    CU_ASSERT_STRING_EQUAL(ops.bdn, "standard15");
    CU_ASSERT(cgp_read_ops(EMPTY15 " A/ 0/0 0", &ops, &err) == 0);
    CU_ASSERT_STRING_EQUAL(ops.lex, "");
    CU_ASSERT_STRING_EQUAL(ops.ld, "");
    CU_ASSERT(cgp_read_ops(EMPTY15 " A/ 0/0 0 lexicon X; tile_distribution y; lex NWL20", &ops, &err) == 0);
    CU_ASSERT_STRING_EQUAL(ops.lex, "NWL20");
    CU_ASSERT_STRING_EQUAL(ops.ld, "");
    CU_ASSERT(cgp_read_ops(EMPTY15 " A/ 0/0", &ops, &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ZEROS"));
    CU_ASSERT(cgp_read_ops(EMPTY15 " A/ 0/0 0 lex ;", &ops, &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lex"));
    char longname[200];
    snprintf(longname, sizeof longname, EMPTY15 " A/ 0/0 0 lex %0100d;", 0);
    CU_ASSERT(cgp_read_ops(longname, &ops, &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too long"));
}

/* The reference positions all parse, with the on-turn rack and bag size
 * given in their own columns, and write back to an equal position. */
static void test_reference_positions(void) {
    char path[1024];
    if (tu_shared_path("reference/movegen_sowpods.tsv", path, sizeof path) == NULL) return;
    FILE *f = fopen(path, "r");
    CU_ASSERT_FATAL(f != NULL);
    Env *e = env_new();
    char line[4096];
    int n = 0;
    CU_ASSERT_FATAL(fgets(line, sizeof line, f) != NULL); /* header */
    while (fgets(line, sizeof line, f) != NULL) {
        char *cols[4];
        char *save = NULL;
        cols[0] = strtok_r(line, "\t\n", &save);
        for (int i = 1; i < 4; i++) cols[i] = strtok_r(NULL, "\t\n", &save);
        if (cols[3] == NULL) continue;
        RkError err;
        int rc = parse(e, &e->g, cols[1], &err);
        if (rc != 0) printf("\n%s: %s\n", cols[0], err.msg);
        CU_ASSERT_FATAL(rc == 0);
        tu_expect_conserved(&e->g);
        Rack want;
        CU_ASSERT_FATAL(rack_parse(&want, &e->ld, cols[2], &err) == 0);
        CU_ASSERT(rack_equal(&want, &e->g.racks[0]));
        CU_ASSERT_EQUAL(e->g.bag.count, atoi(cols[3]));
        char buf[1024], buf2[1024];
        cgp_write(&e->g, "SOWPODS", buf, sizeof buf);
        CU_ASSERT_FATAL(parse(e, &e->g2, buf, &err) == 0);
        expect_same_position(&e->g, &e->g2);
        cgp_write(&e->g2, "SOWPODS", buf2, sizeof buf2);
        CU_ASSERT_STRING_EQUAL(buf, buf2);
        n++;
    }
    fclose(f);
    CU_ASSERT(n >= 49);
    env_free(e);
}

/* Bag contents: the distribution minus the board (a lowercase tile uses a
 * blank) minus both racks. */
static void test_bag_contents(void) {
    Env *e = env_new();
    RkError err;
    CU_ASSERT_FATAL(parse(e, &e->g, EMPTY15 " AQRTUYZ/ 0/0 0", &err) == 0);
    CU_ASSERT_EQUAL(e->g.bag.count, 93);
    Rack bag;
    bag_to_rack(&e->g.bag, &bag);
    CU_ASSERT_EQUAL(bag.count[17], 0); /* Q */
    CU_ASSERT_EQUAL(bag.count[26], 0); /* Z */
    CU_ASSERT_EQUAL(bag.count[1], 8);  /* A */
    CU_ASSERT_EQUAL(bag.count[0], 2);
    CU_ASSERT_FATAL(parse(e, &e->g, "15/15/15/15/15/15/15/6qI7/15/15/15/15/15/15/15 ?/ 0/0 0", &err) == 0);
    bag_to_rack(&e->g.bag, &bag);
    CU_ASSERT_EQUAL(bag.count[0], 0);
    CU_ASSERT_EQUAL(bag.count[17], 1); /* the q is a blank: the real Q is still unseen */
    CU_ASSERT_EQUAL(bag.count[9], 8);
    CU_ASSERT_EQUAL(e->g.bag.count, 97);
    env_free(e);
}

static void expect_error(Env *e, const char *cgp, const char *key) {
    RkError err;
    err.msg[0] = '\0';
    int rc = parse(e, &e->g, cgp, &err);
    if (rc != -1 || strstr(err.msg, key) == NULL)
        printf("\n'%s': rc %d, message '%s' (wanted '%s')\n", cgp, rc, err.msg, key);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, key));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
}

static void test_errors(void) {
    Env *e = env_new();
    /* fields */
    expect_error(e, "", "found 0 fields");
    expect_error(e, EMPTY15, "found 1 field");
    expect_error(e, EMPTY15 " A/B 0/0", "found 3 fields");
    /* rows */
    expect_error(e, "15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP: 14 rows, expected 15");
    expect_error(e, EMPTY15 "/15 A/ 0/0 0", "CGP: 16 rows, expected 15");
    expect_error(e, "15/15/16/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 3: 16 squares, expected 15");
    expect_error(e, "15/15/QUARTZ10/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 3: 16 squares");
    expect_error(e, "15/14/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 2: 14 squares");
    expect_error(e, "15/15/15/15/15/15/15/15/15/15/15/15/15//15 A/ 0/0 0", "CGP row 14: 0 squares");
    expect_error(e, "15/15/15/15/7#7/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 5: unknown letter '#'");
    expect_error(e, "15/15/15/15/7?7/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 5: '?'");
    expect_error(e, "15/15/15/15/015/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0", "CGP row 5: bad empty-square run");
    expect_error(e, "99999999999999999999999/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0",
                 "CGP row 1: ");
    /* racks */
    expect_error(e, EMPTY15 " QQ/ 0/0 0", "CGP: rack 'QQ' not drawable: 2 Q but the distribution has 1");
    expect_error(e, EMPTY15 " A/???? 0/0 0", "not drawable: 4 ?");
    expect_error(e, EMPTY15 " AB1/ 0/0 0", "rack 'AB1': unknown tile '1'");
    expect_error(e, EMPTY15 " ab/ 0/0 0", "rack 'ab'");
    expect_error(e, EMPTY15 " AAAAAAAA/ 0/0 0", "more than 7");
    expect_error(e, EMPTY15 " AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/ 0/0 0",
                 "more than 7");
    expect_error(e, EMPTY15 " AB 0/0 0", "bad racks 'AB'");
    expect_error(e, EMPTY15 " A/B/C 0/0 0", "bad racks");
    expect_error(e, "15/15/15/15/15/15/15/6zq7/15/15/15/15/15/15/15 ?/ 0/0 0",
                 "CGP: board and racks hold 3 blanks, the distribution has 2");
    expect_error(e, "15/15/15/15/15/15/15/6QI7/15/15/15/15/15/15/15 Q/ 0/0 0",
                 "CGP: board and racks hold 2 Q, the distribution has 1");
    expect_error(e, "15/15/15/15/15/15/15/6ZA7/15/15/15/15/15/15/15 /Z 0/0 0", "hold 2 Z");
    /* scores */
    expect_error(e, EMPTY15 " A/ 1/x 0", "CGP: bad scores '1/x'");
    expect_error(e, EMPTY15 " A/ 12x/0 0", "CGP: bad scores '12x/0'");
    expect_error(e, EMPTY15 " A/ 12 0", "bad scores");
    expect_error(e, EMPTY15 " A/ /0 0", "bad scores");
    expect_error(e, EMPTY15 " A/ 0/ 0", "bad scores");
    expect_error(e, EMPTY15 " A/ 0/0/0 0", "bad scores");
    expect_error(e, EMPTY15 " A/ --1/0 0", "bad scores");
    expect_error(e, EMPTY15 " A/ 1.5/0 0", "bad scores");
    expect_error(e, EMPTY15 " A/ 99999999999999999999/0 0", "bad scores");
    /* zeros */
    expect_error(e, EMPTY15 " A/ 0/0 6", "CGP: zeros 6 out of range 0..5");
    expect_error(e, EMPTY15 " A/ 0/0 -1", "zeros -1 out of range");
    expect_error(e, EMPTY15 " A/ 0/0 99999999999999999999", "bad zeros");
    expect_error(e, EMPTY15 " A/ 0/0 x", "CGP: bad zeros 'x'");
    expect_error(e, EMPTY15 " A/ 0/0 2x", "bad zeros");
    expect_error(e, EMPTY15 " A/ 0/0 lex CSW21;", "bad zeros 'lex'");
    /* ops */
    expect_error(e, EMPTY15 " A/ 0/0 0 lex;", "op 'lex' needs an argument");
    /* quoted text never breaks the message over lines (found by fuzzing) */
    expect_error(e, EMPTY15 " A/ 0/0 0 lex SOW\nPODS\xff;", "lex name 'SOW\\x0APODS\xff' holds a control character");
    expect_error(e, EMPTY15 " A\x01/ 0/0 0", "unknown tile '\\x01'");
    expect_error(e, EMPTY15 " A/ 1\x7f/0 0", "bad scores '1\\x7F/0'");
    /* a good one still parses after all that */
    RkError err;
    CU_ASSERT(parse(e, &e->g, EMPTY15 " A/ -3/+4 5", &err) == 0);
    CU_ASSERT_EQUAL(e->g.scores[0], -3);
    CU_ASSERT_EQUAL(e->g.scores[1], 4);
    env_free(e);
}

/* Random edits of valid positions never crash; whatever parses writes
 * back to something that parses to the same position. */
static void test_mutations(void) {
    static const char *const SEEDS[] = {
        EMPTY15 " AQRTUYZ/ 0/0 0 lex SOWPODS;",
        "15/15/15/15/15/15/15/3QUARTzY5/10C4/10A4/10T4/10S4/15/15/15 EEIO?JK/ABDE -12/130 3",
        "ABCDEFGHIJKLMNO/15/15/15/15/15/15/15/15/15/15/15/15/15/PQRSTUVWXYZabAB / 0/0 0",
        "A14/15/15/15/15/15/15/7E7/15/15/15/15/15/15/14Z ?/? 1/2 5 ld english; bdn standard15;",
    };
    static const char ALPHABET[] = "0123456789/ ;?-+AEQZaqzs#\t\x80\xC3\xA9xl";
    Env *e = env_new();
    Rng rng;
    rng_seed(&rng, 12345);
    char buf[512], out[1024], out2[1024];
    int parsed = 0;
    for (int iter = 0; iter < 20000; iter++) {
        const char *seed = SEEDS[rng_below(&rng, sizeof SEEDS / sizeof SEEDS[0])];
        size_t n = strlen(seed);
        memcpy(buf, seed, n + 1);
        int edits = 1 + (int)rng_below(&rng, 4);
        for (int k = 0; k < edits; k++) {
            size_t at = n ? (size_t)rng_below(&rng, n) : 0;
            char c = ALPHABET[rng_below(&rng, sizeof ALPHABET - 1)];
            switch (rng_below(&rng, 4)) {
            case 0: /* replace */
                if (n) buf[at] = c;
                break;
            case 1: /* delete */
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at);
                    n--;
                }
                break;
            case 2: /* insert */
                if (n + 2 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at + 1);
                    buf[at] = c;
                    n++;
                }
                break;
            default: /* truncate */
                buf[at] = '\0';
                n = at;
                break;
            }
        }
        RkError err;
        err.msg[0] = 'x';
        if (parse(e, &e->g, buf, &err) != 0) {
            CU_ASSERT(err.msg[0] != 'x' && strchr(err.msg, '\n') == NULL);
            continue;
        }
        parsed++;
        tu_expect_conserved(&e->g);
        cgp_write(&e->g, NULL, out, sizeof out);
        int rc = parse(e, &e->g2, out, &err);
        if (rc != 0) printf("\n'%s' -> '%s': %s\n", buf, out, err.msg);
        CU_ASSERT_FATAL(rc == 0);
        expect_same_position(&e->g, &e->g2);
        cgp_write(&e->g2, NULL, out2, sizeof out2);
        CU_ASSERT_STRING_EQUAL(out, out2);
    }
    printf(" (%d of 20000 mutants parsed) ", parsed);
    CU_ASSERT(parsed > 100);
    env_free(e);
}

/* cgp_write truncates safely into a short buffer. */
static void test_short_buffer(void) {
    Env *e = env_new();
    RkError err;
    CU_ASSERT_FATAL(parse(e, &e->g, EMPTY15 " AQRTUYZ/ 0/0 0", &err) == 0);
    char buf[10];
    cgp_write(&e->g, "SOWPODS", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "15/15/15/");
    env_free(e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"round trips", test_round_trip},
        {"ops", test_ops},
        {"reference positions", test_reference_positions},
        {"bag contents", test_bag_contents},
        {"errors", test_errors},
        {"random mutations", test_mutations},
        {"short buffer", test_short_buffer},
        CU_TEST_INFO_NULL,
    };
    return tu_run("cgp", tests);
}
