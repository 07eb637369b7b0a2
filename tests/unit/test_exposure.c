/* The cross-word exposure term (eval/exposure.h): features computed by hand on the standard
 * board, the coefficient file and its errors, the static player with the term (zero
 * coefficients: the same moves as without; a large penalty: moves that open no triple word),
 * and the least-squares study on a few games. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "search/player.h"
#include "testutil.h"
#include "worker/exposure_study.h"

static void features_of(const char *notation, const Board *b, double x[EXPOSURE_FEATURES]) {
    Move m;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(move_parse(&m, notation, b, b->ld, &err), 0);
    exposure_features(b, &m, x);
}

static void test_features_by_hand(void) {
    LetterDist ld;
    Layout lay;
    ld_english(&ld);
    layout_standard15(&lay);
    Board b;
    board_init(&b, &lay, &ld, NULL);
    double x[EXPOSURE_FEATURES];
    /* Z on B1 touches A1 (TW) and B2 (DW); A on C1 touches D1 (DL) */
    features_of("1B ZA", &b, x);
    double want[EXPOSURE_FEATURES] = {1, 0, 1, 1, 1, 0, 10, 10};
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], want[i], 1e-12);
    /* a blank Z is worth nothing */
    features_of("1B zA", &b, x);
    double want_blank[EXPOSURE_FEATURES] = {1, 0, 1, 1, 1, 0, 0, 0};
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], want_blank[i], 1e-12);
    /* with a tile on D1, the DL is taken */
    board_put(&b, 0, 3, 4); /* D */
    features_of("1B ZA(D)", &b, x);
    double want_through[EXPOSURE_FEATURES] = {0, 0, 1, 1, 0, 0, 10, 10};
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], want_through[i], 1e-12);
    /* down: Q on F2 (itself a TL, covered) touches E2, G2 and F1, all plain; I on F3
     * touches E3 (plain), G3 (a DL) and F4 (plain) */
    Board e;
    board_init(&e, &lay, &ld, NULL);
    features_of("F2 QI", &e, x);
    double want_down[EXPOSURE_FEATURES] = {1, 0, 0, 0, 1, 0, 0, 0};
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], want_down[i], 1e-12);
    Exposure ex = {.beta = {-1, -2, -3, -4, 0.5, 0.25, 0.1, 0.2}};
    features_of("1B ZA(D)", &b, x); /* dw, tw, dw_value 10, tw_value 10 */
    CU_ASSERT_EQUAL(exposure_adjust(&ex, x), -3000 - 4000 + 1000 + 2000);
    /* exchanges and passes open nothing */
    Move pass = {.kind = MOVE_PASS};
    exposure_features(&b, &pass, x);
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], 0.0, 1e-12);
}

static void test_file(void) {
    char dir[256], path[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.txt", dir);
    Exposure a = {.beta = {-0.9, -1.5, -1.7, -4.8, 0.19, 0.05, 0.06, 0.25}}, b;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(exposure_write(&a, path, &err), 0);
    CU_ASSERT_EQUAL_FATAL(exposure_load(&b, path, &err), 0);
    CU_ASSERT_EQUAL(memcmp(a.beta, b.beta, sizeof a.beta), 0);
    const char *bad[][2] = {
        {"dl 1\ntl 1\ndw 1\ntw 1\ndl_value 1\ntl_value 1\ndw_value 1\n", "no coefficient 'tw_value'"},
        {"dl 1\nxx 2\n", "unknown coefficient 'xx'"},
        {"dl 1\ndl 2\n", "repeated coefficient 'dl'"},
        {"dl nan\n", "expected 'name value'"},
        {"dl 1 2\n", "expected 'name value'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(tu_write_file(path, bad[i][0]), 0);
        CU_ASSERT_EQUAL(exposure_load(&b, path, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i][1]));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    }
}

typedef struct Compare {
    const Player *plain, *zero, *avoid;
    int decisions, same, tw_open_avoid, tw_open_plain;
} Compare;

static void compare(const Game *g, const Move *played, void *vctx) {
    (void)played;
    Compare *c = vctx;
    if (g->bag.count == 0) return;
    Move a, b, z;
    player_choose(c->plain, g, &a);
    player_choose(c->zero, g, &z);
    player_choose(c->avoid, g, &b);
    c->decisions++;
    c->same += move_same(&a, &z);
    double x[EXPOSURE_FEATURES];
    exposure_features(&g->board, &b, x);
    c->tw_open_avoid += x[3] > 0;
    exposure_features(&g->board, &a, x);
    c->tw_open_plain += x[3] > 0;
}

static void test_player(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    if (!tu_load_sowpods(&kwg, &ld)) return;
    layout_standard15(&lay);
    char dir[256], zero[512], avoid[512], spec[1200];
    tu_tmpdir(dir, sizeof dir);
    snprintf(zero, sizeof zero, "%s/zero.txt", dir);
    snprintf(avoid, sizeof avoid, "%s/avoid.txt", dir);
    RkError err;
    Exposure z = {{0}}, a = {{0}};
    a.beta[3] = -1000.0; /* opening a triple word costs 1,000 points */
    CU_ASSERT_EQUAL_FATAL(exposure_write(&z, zero, &err), 0);
    CU_ASSERT_EQUAL_FATAL(exposure_write(&a, avoid, &err), 0);
    Player plain, pz, pa;
    CU_ASSERT_EQUAL_FATAL(player_open(&plain, "static", &ld, &err), 0);
    snprintf(spec, sizeof spec, "static:exposure=%s", zero);
    CU_ASSERT_EQUAL_FATAL(player_open(&pz, spec, &ld, &err), 0);
    snprintf(spec, sizeof spec, "static:exposure=%s", avoid);
    CU_ASSERT_EQUAL_FATAL(player_open(&pa, spec, &ld, &err), 0);
    snprintf(spec, sizeof spec, "static:exposure=%s/none.txt", dir);
    Player bad;
    CU_ASSERT_EQUAL(player_open(&bad, spec, &ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none.txt"));
    Compare c = {.plain = &plain, .zero = &pz, .avoid = &pa};
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .seed = 4};
    Game *g = malloc(sizeof *g);
    for (uint64_t i = 0; i < 6; i++) selfplay_game(&cfg, i, g, NULL, compare, &c);
    printf("(%d decisions: %d the same with zero coefficients; triple words opened %d -> %d) ", c.decisions, c.same,
           c.tw_open_plain, c.tw_open_avoid);
    CU_ASSERT_TRUE(c.decisions > 60);
    CU_ASSERT_EQUAL(c.same, c.decisions);
    CU_ASSERT_TRUE(c.tw_open_plain > 0);
    CU_ASSERT_TRUE(c.tw_open_avoid < c.tw_open_plain);
    free(g);
    player_close(&plain);
    player_close(&pz);
    player_close(&pa);
    kwg_free(&kwg);
}

static void test_study(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    if (!tu_load_sowpods(&kwg, &ld)) return;
    layout_standard15(&lay);
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .seed = 9};
    ExposureStudy st;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(exposure_study_run(&cfg, 30, 10, &st, &err), 0);
    CU_ASSERT_TRUE(st.train_moves > 400 && st.test_moves > 100);
    CU_ASSERT_TRUE(st.intercept < 0); /* the opponent scores */
    CU_ASSERT_TRUE(st.test_var_mean > 0 && isfinite(st.test_var_fit));
    for (int i = 0; i < EXPOSURE_FEATURES; i++) CU_ASSERT_TRUE(isfinite(st.fit.beta[i]));
    /* too few games to fit */
    CU_ASSERT_EQUAL(exposure_study_run(&cfg, 0, 1, &st, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too few"));
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"features by hand on the standard board", test_features_by_hand},
        {"coefficient file and its errors", test_file},
        {"static player with the term: zero = plain, a large penalty avoids triple words", test_player},
        {"the least-squares study", test_study},
        CU_TEST_INFO_NULL,
    };
    return tu_run("exposure", tests);
}
