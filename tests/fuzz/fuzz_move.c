/*
 * fuzz_move.c - libFuzzer target for move notation.
 *
 * The input is NUL-terminated and parsed as a move against a fixed
 * mid-game board; a move that parses is written back, and the written form
 * must parse to the same move.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_lexicon.h"
#include "fuzz_text.h"
#include "core/cgp.h"
#include "core/kwg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FuzzBoard *fixture_new(void) {
    static const char *const WORDS[] = {"AT"};
    FuzzBoard *f = fuzz_board_new(WORDS, 1);
    RkError err;
    static const char POS[] =
        "Y14/H14/E14/N14/15/15/15/3QUARTzY5/10C4/10A4/10T4/10S4/15/15/14O EEIO?JK/ABDE 0/0 0";
    if (cgp_parse(&f->g, POS, &f->ld, &f->lay, &f->kwg, 1, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        abort();
    }
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FuzzBoard *fx = NULL; /* built once: acceptable in a fuzz harness */
    if (fx == NULL) fx = fixture_new();
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    Move m, m2;
    RkError err;
    if (move_parse(&m, text, &fx->g.board, &fx->ld, &err) == 0) {
        char out[256];
        move_to_string(&m, &fx->g.board, &fx->ld, out, sizeof out);
        if (move_parse(&m2, out, &fx->g.board, &fx->ld, &err) != 0 || !move_same(&m, &m2)) {
            fprintf(stderr, "move '%s' wrote '%s' which does not parse back\n", text, out);
            abort();
        }
        if (m.kind == MOVE_PLACE) (void)board_score_move(&fx->g.board, &m);
    }
    free(text);
    return 0;
}
