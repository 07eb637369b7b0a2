/* test_move.c - move notation (write, parse, errors), move identity and
 * move-list ordering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/move.h"
#include "testutil.h"

typedef struct Env {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Board board;
} Env;

static Env *env_new(void) {
    static const char *const WORDS[] = {"QUARTZ", "QUARTZY", "OXYPHENBUTAZONE", "HEN", "BUT", "ON",
                                        "TAEL", "AT", "TA", "YE", "EH"};
    Env *e = calloc(1, sizeof *e);
    CU_ASSERT_FATAL(e != NULL);
    ld_english(&e->ld);
    layout_standard15(&e->lay);
    tu_build_lex(&e->kwg, &e->ld, WORDS, sizeof WORDS / sizeof WORDS[0]);
    board_init(&e->board, &e->lay, &e->ld, &e->kwg);
    return e;
}

static void env_free(Env *e) {
    kwg_free(&e->kwg);
    free(e);
}

/* Puts `word` on the board from (row, col) in direction dir ('.' = skip). */
static void put_word(Board *b, const LetterDist *ld, int row, int col, int dir, const char *word) {
    const char *p = word;
    int i = 0;
    while (*p) {
        if (*p == '.') {
            p++;
            i++;
            continue;
        }
        int t = ld_parse_tile(ld, &p);
        CU_ASSERT_FATAL(t > 0);
        board_put(b, row + (dir ? i : 0), col + (dir ? 0 : i), (uint8_t)t);
        i++;
    }
    board_refresh(b);
}

/* Parses s, writes it back and expects exactly s again. */
static void round_trip(const Env *e, const char *s, Move *m) {
    RkError err;
    int rc = move_parse(m, s, &e->board, &e->ld, &err);
    if (rc != 0) printf("\nparse '%s': %s\n", s, err.msg);
    CU_ASSERT_FATAL(rc == 0);
    char buf[128];
    move_to_string(m, &e->board, &e->ld, buf, sizeof buf);
    if (strcmp(buf, s) != 0) printf("\nround trip '%s' -> '%s'\n", s, buf);
    CU_ASSERT_STRING_EQUAL(buf, s);
    Move m2;
    CU_ASSERT_FATAL(move_parse(&m2, buf, &e->board, &e->ld, &err) == 0);
    CU_ASSERT(move_same(m, &m2));
}

static void test_across_down(void) {
    Env *e = env_new();
    Move m;
    round_trip(e, "8D QUARTZ", &m);
    CU_ASSERT_EQUAL(m.kind, MOVE_PLACE);
    CU_ASSERT_EQUAL(m.dir, DIR_ACROSS);
    CU_ASSERT_EQUAL(m.row, 7);
    CU_ASSERT_EQUAL(m.col, 3);
    CU_ASSERT_EQUAL(m.len, 6);
    CU_ASSERT_EQUAL(m.ntiles, 6);
    CU_ASSERT_EQUAL(m.tiles[0], 17); /* Q */
    CU_ASSERT_EQUAL(m.tiles[5], 26); /* Z */
    round_trip(e, "D8 QUARTZ", &m);
    CU_ASSERT_EQUAL(m.dir, DIR_DOWN);
    CU_ASSERT_EQUAL(m.row, 7);
    CU_ASSERT_EQUAL(m.col, 3);
    round_trip(e, "15O A", &m);
    CU_ASSERT_EQUAL(m.row, 14);
    CU_ASSERT_EQUAL(m.col, 14);
    round_trip(e, "A1 QUARTZY", &m);
    round_trip(e, "10J QUARTZ", &m);
    CU_ASSERT_EQUAL(m.row, 9);
    CU_ASSERT_EQUAL(m.col, 9);
    /* surrounding whitespace is tolerated, the canonical form has none */
    RkError err;
    CU_ASSERT(move_parse(&m, "  8D QUARTZ \n", &e->board, &e->ld, &err) == 0);
    CU_ASSERT_EQUAL(m.len, 6);
    env_free(e);
}

static void test_blank(void) {
    Env *e = env_new();
    Move m;
    round_trip(e, "8D QUaRTZ", &m);
    CU_ASSERT_EQUAL(m.tiles[2], 1 | RK_BLANK_BIT);
    CU_ASSERT_EQUAL(m.ntiles, 6);
    round_trip(e, "H4 qUARTzY", &m);
    CU_ASSERT_EQUAL(m.tiles[0], 17 | RK_BLANK_BIT);
    CU_ASSERT_EQUAL(m.tiles[5], 26 | RK_BLANK_BIT);
    env_free(e);
}

static void test_play_through(void) {
    Env *e = env_new();
    /* OXYPHENBUTAZONE down column A with Y, HEN, UT and ON on the board */
    put_word(&e->board, &e->ld, 0, 0, DIR_DOWN, "..Y.HEN.UT..ON.");
    Move m;
    round_trip(e, "A1 OX(Y)P(HEN)B(UT)AZ(ON)E", &m);
    CU_ASSERT_EQUAL(m.dir, DIR_DOWN);
    CU_ASSERT_EQUAL(m.len, 15);
    CU_ASSERT_EQUAL(m.ntiles, 7);
    CU_ASSERT_EQUAL(m.tiles[2], MOVE_PLAYED_THROUGH);
    CU_ASSERT_EQUAL(m.tiles[3], 16); /* P */
    CU_ASSERT_EQUAL(m.tiles[14], 5); /* E */
    /* a played-through blank is written in lowercase */
    Env *e2 = env_new();
    put_word(&e2->board, &e2->ld, 8, 10, DIR_ACROSS, "a");
    round_trip(e2, "K8 T(a)EL", &m);
    CU_ASSERT_EQUAL(m.tiles[1], MOVE_PLAYED_THROUGH);
    /* parentheses match the letter; the case of a board tile is not the
     * mover's to choose, so "(A)" is accepted for a blank and written "(a)" */
    RkError err;
    CU_ASSERT(move_parse(&m, "K8 T(A)EL", &e2->board, &e2->ld, &err) == 0);
    char buf[64];
    move_to_string(&m, &e2->board, &e2->ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "K8 T(a)EL");
    env_free(e2);
    env_free(e);
}

static void test_exchange_pass(void) {
    Env *e = env_new();
    Move m;
    round_trip(e, "(exch ?EQ)", &m);
    CU_ASSERT_EQUAL(m.kind, MOVE_EXCHANGE);
    CU_ASSERT_EQUAL(m.len, 3);
    CU_ASSERT_EQUAL(m.ntiles, 3);
    RkError err;
    CU_ASSERT(move_parse(&m, "(exch QE?)", &e->board, &e->ld, &err) == 0);
    char buf[64];
    move_to_string(&m, &e->board, &e->ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "(exch ?EQ)");
    /* an exchange written from unsorted tiles prints sorted */
    Move x;
    memset(&x, 0, sizeof x);
    x.kind = MOVE_EXCHANGE;
    x.len = x.ntiles = 4;
    x.tiles[0] = 26;
    x.tiles[1] = 0;
    x.tiles[2] = 1;
    x.tiles[3] = 0;
    move_to_string(&x, &e->board, &e->ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "(exch ??AZ)");
    round_trip(e, "(exch ??AZ)", &m);
    CU_ASSERT(move_same(&m, &x));
    round_trip(e, "pass", &m);
    CU_ASSERT_EQUAL(m.kind, MOVE_PASS);
    /* a pass needs no board */
    CU_ASSERT(move_parse(&m, "pass", NULL, &e->ld, &err) == 0);
    env_free(e);
}

static void expect_error(const Env *e, const char *s, const char *key) {
    Move m;
    RkError err;
    err.msg[0] = '\0';
    int rc = move_parse(&m, s, &e->board, &e->ld, &err);
    if (rc != -1 || strstr(err.msg, key) == NULL)
        printf("\n'%s': rc %d, message '%s' (wanted '%s')\n", s, rc, err.msg, key);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, key));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
}

static void test_parse_errors(void) {
    Env *e = env_new();
    expect_error(e, "", "empty");
    expect_error(e, "   ", "empty");
    expect_error(e, "QUARTZ", "coordinate");
    expect_error(e, "8 QUARTZ", "coordinate");
    expect_error(e, "D QUARTZ", "coordinate");
    expect_error(e, "0D QUARTZ", "coordinate");
    expect_error(e, "8DQUARTZ", "coordinate");
    expect_error(e, "#8 QUARTZ", "coordinate");
    expect_error(e, "8D", "no tiles");
    expect_error(e, "16A AB", "off the");
    expect_error(e, "8P AB", "off the");
    expect_error(e, "Z8 AB", "off the");
    expect_error(e, "8K QUARTZ", "off the board");
    expect_error(e, "K11 QUARTZ", "off the board");
    expect_error(e, "8D QU1RTZ", "unknown letter '1'");
    expect_error(e, "8D QU RTZ", "space");
    expect_error(e, "8D QU?RTZ", "blank");
    expect_error(e, "8D QUA(R)TZ", "empty");
    expect_error(e, "8D QUARTZ(", "unclosed");
    expect_error(e, "8D QUA)RTZ", "without");
    expect_error(e, "8D QU()ARTZ", "empty parentheses");
    expect_error(e, "8D QU((A))RTZ", "nested");
    expect_error(e, "(exch )", "needs tiles");
    expect_error(e, "(exch abc)", "uppercase");
    expect_error(e, "(exch AB1)", "unknown tile");
    expect_error(e, "(exch ABCDEFGH)", "more than 7");
    expect_error(e, "(exch AB", "expected");
    /* control characters are escaped in messages, which stay one line */
    expect_error(e, "8D QU\nARTZ", "move '8D QU\\x0AARTZ': unexpected space");
    expect_error(e, "8D QU\x01RTZ", "unknown letter '\\x01'");

    put_word(&e->board, &e->ld, 0, 0, DIR_DOWN, "..Y.HEN.UT..ON.");
    expect_error(e, "A1 OX(Z)P(HEN)B(UT)AZ(ON)E", "holds 'Y', not 'Z'");
    expect_error(e, "A1 OXYP(HEN)B(UT)AZ(ON)E", "occupied");
    expect_error(e, "A1 OX(Y)P(HEN)B(U)", "after the word");
    expect_error(e, "A4 P(HEN)", "before the word");
    expect_error(e, "A3 (Y)", "places no tiles");
    expect_error(e, "A1 OX(YP)", "is empty");
    env_free(e);
}

static void test_move_same(void) {
    Env *e = env_new();
    Move a, b;
    RkError err;
    /* one tile written across or down is the same move */
    CU_ASSERT_FATAL(move_parse(&a, "8H A", &e->board, &e->ld, &err) == 0);
    CU_ASSERT_FATAL(move_parse(&b, "H8 A", &e->board, &e->ld, &err) == 0);
    CU_ASSERT(move_same(&a, &b));
    CU_ASSERT_FATAL(move_parse(&b, "H8 a", &e->board, &e->ld, &err) == 0);
    CU_ASSERT(!move_same(&a, &b));
    CU_ASSERT_FATAL(move_parse(&b, "8G TA", &e->board, &e->ld, &err) == 0);
    CU_ASSERT(!move_same(&a, &b));
    /* exchanges compare as multisets */
    CU_ASSERT_FATAL(move_parse(&a, "(exch AB?)", &e->board, &e->ld, &err) == 0);
    memset(&b, 0, sizeof b);
    b.kind = MOVE_EXCHANGE;
    b.len = b.ntiles = 3;
    b.tiles[0] = 2;
    b.tiles[1] = 0;
    b.tiles[2] = 1;
    CU_ASSERT(move_same(&a, &b));
    b.tiles[2] = 2;
    CU_ASSERT(!move_same(&a, &b));
    Move p1, p2;
    CU_ASSERT_FATAL(move_parse(&p1, "pass", &e->board, &e->ld, &err) == 0);
    CU_ASSERT_FATAL(move_parse(&p2, "pass", &e->board, &e->ld, &err) == 0);
    CU_ASSERT(move_same(&p1, &p2));
    CU_ASSERT(!move_same(&p1, &a));
    env_free(e);
}

static void test_movelist(void) {
    MoveList ml;
    movelist_init(&ml);
    CU_ASSERT_EQUAL(ml.count, 0);
    /* many pushes force growth; every slot comes back zeroed */
    for (int i = 0; i < 1000; i++) {
        Move *m = movelist_push(&ml);
        CU_ASSERT_EQUAL(m->score, 0);
        m->kind = MOVE_PLACE;
        m->row = (uint8_t)(i % 15);
        m->col = (uint8_t)((i / 15) % 15);
        m->dir = (uint8_t)(i % 2);
        m->len = m->ntiles = 1;
        m->tiles[0] = (uint8_t)(1 + i % 26);
        m->score = (i * 7919) % 50;
        m->equity = ((i * 104729) % 60000) - 30000;
    }
    CU_ASSERT_EQUAL(ml.count, 1000);
    CU_ASSERT(ml.cap >= 1000);
    movelist_sort_by_score(&ml);
    for (size_t i = 1; i < ml.count; i++) {
        const Move *a = &ml.moves[i - 1], *b = &ml.moves[i];
        CU_ASSERT(a->score > b->score || (a->score == b->score && a->equity >= b->equity));
    }
    movelist_sort_by_equity(&ml);
    for (size_t i = 1; i < ml.count; i++) {
        const Move *a = &ml.moves[i - 1], *b = &ml.moves[i];
        CU_ASSERT(a->equity > b->equity || (a->equity == b->equity && a->score >= b->score));
    }
    movelist_clear(&ml);
    CU_ASSERT_EQUAL(ml.count, 0);

    /* equal keys: placements, then exchanges, then passes, then (dir, row,
     * col, tiles); the result does not depend on the input order */
    Move tmpl[6];
    memset(tmpl, 0, sizeof tmpl);
    tmpl[0].kind = MOVE_PASS;
    tmpl[1].kind = MOVE_EXCHANGE;
    tmpl[1].len = tmpl[1].ntiles = 1;
    tmpl[1].tiles[0] = 3;
    tmpl[2].kind = MOVE_PLACE; /* down */
    tmpl[2].dir = DIR_DOWN;
    tmpl[2].len = tmpl[2].ntiles = 1;
    tmpl[2].tiles[0] = 1;
    tmpl[3].kind = MOVE_PLACE; /* across, row 3 */
    tmpl[3].row = 3;
    tmpl[3].len = tmpl[3].ntiles = 1;
    tmpl[3].tiles[0] = 1;
    tmpl[4] = tmpl[3]; /* across, row 3, larger tile */
    tmpl[4].tiles[0] = 2;
    tmpl[5] = tmpl[3]; /* across, row 2 */
    tmpl[5].row = 2;
    static const int want[6] = {5, 3, 4, 2, 1, 0};
    static const int orders[3][6] = {{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 0, 5, 1, 4, 3}};
    for (int o = 0; o < 3; o++) {
        for (int pass = 0; pass < 2; pass++) {
            movelist_clear(&ml);
            for (int i = 0; i < 6; i++) *movelist_push(&ml) = tmpl[orders[o][i]];
            if (pass == 0) movelist_sort_by_score(&ml);
            else movelist_sort_by_equity(&ml);
            for (int i = 0; i < 6; i++)
                CU_ASSERT(memcmp(&ml.moves[i], &tmpl[want[i]], sizeof(Move)) == 0);
        }
    }
    movelist_free(&ml);
    CU_ASSERT_PTR_NULL(ml.moves);
}

/* Writing into a small buffer truncates and stays NUL-terminated. */
/* move_rack_tiles: what the rack gives (the blank for a blanked letter, no
 * played-through tile), and move_kept_tiles is the rack minus that. */
static void test_rack_tiles(void) {
    Env *e = env_new();
    put_word(&e->board, &e->ld, 0, 0, DIR_DOWN, "..Y.HEN.UT..ON.");
    Move m;
    RkError err;
    CU_ASSERT_FATAL(move_parse(&m, "A1 oX(Y)P(HEN)B(UT)AZ(ON)E", &e->board, &e->ld, &err) == 0);
    Rack taken, want, rack, kept;
    move_rack_tiles(&m, &taken);
    CU_ASSERT_FATAL(rack_parse(&want, &e->ld, "?XPBAZE", &err) == 0);
    CU_ASSERT(rack_equal(&taken, &want));
    CU_ASSERT_FATAL(rack_parse(&rack, &e->ld, "?XPBAZE", &err) == 0);
    move_kept_tiles(&rack, &m, &kept);
    CU_ASSERT_EQUAL(kept.total, 0);
    CU_ASSERT_FATAL(move_parse(&m, "(exch ??AZ)", &e->board, &e->ld, &err) == 0);
    move_rack_tiles(&m, &taken);
    CU_ASSERT_FATAL(rack_parse(&want, &e->ld, "??AZ", &err) == 0);
    CU_ASSERT(rack_equal(&taken, &want));
    CU_ASSERT_FATAL(move_parse(&m, "pass", NULL, &e->ld, &err) == 0);
    move_rack_tiles(&m, &taken);
    CU_ASSERT_EQUAL(taken.total, 0);
    env_free(e);
}

static void test_small_buffer(void) {
    Env *e = env_new();
    Move m;
    RkError err;
    CU_ASSERT_FATAL(move_parse(&m, "8D QUARTZ", &e->board, &e->ld, &err) == 0);
    char buf[6];
    memset(buf, 'x', sizeof buf);
    move_to_string(&m, &e->board, &e->ld, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "8D QU");
    env_free(e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"across and down", test_across_down},
        {"blanks", test_blank},
        {"play-through", test_play_through},
        {"exchange and pass", test_exchange_pass},
        {"parse errors", test_parse_errors},
        {"move_same", test_move_same},
        {"move lists", test_movelist},
        {"rack tiles", test_rack_tiles},
        {"small buffer", test_small_buffer},
        CU_TEST_INFO_NULL,
    };
    return tu_run("move", tests);
}
