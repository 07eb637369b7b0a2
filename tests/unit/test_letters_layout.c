/* Letter distribution and board layout loaders. */
#include <stdio.h>
#include <string.h>

#include "core/layout.h"
#include "core/letters.h"
#include "testutil.h"

static void test_english_matches_file(void) {
    LetterDist a, b;
    RkError err;
    ld_english(&a);
    CU_ASSERT_FATAL(ld_load(&b, ROOKERY_SOURCE_DIR "/data/english.csv", &err) == 0);
    CU_ASSERT_EQUAL(a.size, 27);
    CU_ASSERT_EQUAL(a.total_tiles, 100);
    CU_ASSERT_EQUAL(b.size, a.size);
    for (int i = 0; i < a.size; i++) {
        CU_ASSERT_STRING_EQUAL(a.upper[i], b.upper[i]);
        CU_ASSERT_STRING_EQUAL(a.lower[i], b.lower[i]);
        CU_ASSERT_EQUAL(a.count[i], b.count[i]);
        CU_ASSERT_EQUAL(a.score[i], b.score[i]);
        CU_ASSERT_EQUAL(a.vowel[i], b.vowel[i]);
    }
    /* spot facts from formats.md */
    CU_ASSERT_EQUAL(a.count[0], 2);
    CU_ASSERT_EQUAL(a.count[5], 12); /* E */
    CU_ASSERT_EQUAL(a.score[17], 10); /* Q */
    CU_ASSERT_EQUAL(a.score[11], 5);  /* K */
    CU_ASSERT_TRUE(a.vowel[21]);      /* U */
    CU_ASSERT_FALSE(a.vowel[25]);     /* Y */
}

static void test_parse_tiles(void) {
    LetterDist ld;
    ld_english(&ld);
    uint8_t t[16];
    CU_ASSERT_EQUAL(ld_parse_tiles(&ld, "QUaRTZ?", t, 16, true), 7);
    CU_ASSERT_EQUAL(t[0], 17);
    CU_ASSERT_EQUAL(t[2], 1 | RK_BLANK_BIT);
    CU_ASSERT_EQUAL(t[6], 0);
    CU_ASSERT_EQUAL(ld_parse_tiles(&ld, "QUaRTZ", t, 16, false), -1);
    CU_ASSERT_EQUAL(ld_parse_tiles(&ld, "AB1", t, 16, true), -1);
    CU_ASSERT_EQUAL(ld_parse_tiles(&ld, "ABCDEFGH", t, 4, true), -1);
    char buf[8];
    ld_tile_label(&ld, 26 | RK_BLANK_BIT, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "z");
}

static void test_bad_distributions(void) {
    LetterDist ld;
    RkError err;
    const char *bad[] = {
        "A,a,9,1,1\n",                       /* first line not the blank */
        "?,?,2,0,0\nA,a,9,1\n",              /* 4 fields */
        "?,?,2,0,0\nA,a,x,1,1\n",            /* bad count */
        "?,?,2,0,0\nA,a,9,1,2\n",            /* bad vowel flag */
        "?,?,2,0,0\nA,a,9,1,1\nA,b,1,1,0\n", /* duplicate */
        "?,?,2,0,0\n",                       /* no letters */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        CU_ASSERT_EQUAL(ld_parse(&ld, bad[i], "bad.csv", &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.csv"));
    }
    CU_ASSERT_EQUAL(ld_load(&ld, "/nonexistent/x.csv", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.csv"));
}

static void test_standard_layout(void) {
    Layout a, b;
    RkError err;
    layout_standard15(&a);
    CU_ASSERT_FATAL(layout_load(&b, ROOKERY_SOURCE_DIR "/data/standard15.txt", &err) == 0);
    CU_ASSERT_EQUAL(a.dim, 15);
    CU_ASSERT_EQUAL(a.start_row, 7);
    CU_ASSERT_EQUAL(a.start_col, 7);
    CU_ASSERT_EQUAL(memcmp(a.letter_mult, b.letter_mult, sizeof a.letter_mult), 0);
    CU_ASSERT_EQUAL(memcmp(a.word_mult, b.word_mult, sizeof a.word_mult), 0);
    int tw = 0, dw = 0, tl = 0, dl = 0;
    for (int i = 0; i < 225; i++) {
        tw += a.word_mult[i] == 3;
        dw += a.word_mult[i] == 2;
        tl += a.letter_mult[i] == 3;
        dl += a.letter_mult[i] == 2;
        CU_ASSERT_EQUAL(a.word_mult[i], a.word_mult[(i % 15) * 15 + i / 15]); /* diagonal symmetry */
    }
    CU_ASSERT_EQUAL(tw, 8);
    CU_ASSERT_EQUAL(dw, 17); /* includes the centre */
    CU_ASSERT_EQUAL(tl, 12);
    CU_ASSERT_EQUAL(dl, 24);
    CU_ASSERT_EQUAL(a.word_mult[0], 3);
    CU_ASSERT_EQUAL(a.letter_mult[3], 2);
    CU_ASSERT_EQUAL(a.word_mult[7 * 15 + 7], 2);
}

static void test_bad_layouts(void) {
    Layout lay;
    RkError err;
    const char *bad[] = {
        "",                                  /* nothing */
        "7 7\n   \n   \n   \n",              /* no comma */
        "5, 5\n   \n   \n   \n",             /* start off board */
        "0, 0\n    \n    \n    \n",          /* not square */
        "0, 0\n  x\n   \n   \n",             /* unknown square */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        CU_ASSERT_EQUAL(layout_parse(&lay, bad[i], "bad.txt", &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.txt"));
    }
    CU_ASSERT_EQUAL(layout_parse(&lay, "1, 1\n=  \n - \n  '\n", "small", &err), 0);
    CU_ASSERT_EQUAL(lay.dim, 3);
    CU_ASSERT_EQUAL(lay.word_mult[0], 3);
    CU_ASSERT_EQUAL(lay.letter_mult[8], 2);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"english distribution matches data/english.csv", test_english_matches_file},
        {"tile parsing", test_parse_tiles},
        {"bad distributions are rejected", test_bad_distributions},
        {"standard layout", test_standard_layout},
        {"bad layouts are rejected", test_bad_layouts},
        CU_TEST_INFO_NULL,
    };
    return tu_run("letters_layout", tests);
}
