/*
 * fuzz_siu.c - libFuzzer target for what an SIU front end sends rookery:
 * move tokens and position commands (src/siu).
 *
 * An input starting "position " is split and built as a position command
 * on a small lexicon; a position that builds must hold every tile of the
 * distribution exactly once (board, racks, bag). Any other input is a move
 * token against a fixed mid-game position: a token that parses is written
 * back and must parse to the same move; a move the legality check accepts
 * (rack known or not) is played on a copy, which must conserve the tiles.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_lexicon.h"
#include "fuzz_text.h"
#include "core/cgp.h"
#include "core/kwg.h"
#include "siu/siu_move.h"
#include "siu/siu_position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Fixture {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game g;
    char cgp[2048], buf[2048];
    char *moves[64];
    SiuPosition pos;
} Fixture;

static Fixture *fixture_new(void) {
    Fixture *f = calloc(1, sizeof *f);
    if (f == NULL) abort();
    ld_english(&f->ld);
    layout_standard15(&f->lay);
    static const char *const WORDS[] = {"AT", "TA", "ZA", "QI", "CAT", "CATS", "SCAT", "EAT", "TEA", "ZAS"};
    fuzz_tiny_kwg(&f->kwg, WORDS, (int)(sizeof WORDS / sizeof *WORDS));
    RkError err;
    static const char POS[] = "15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 ASTEZ?Q/ 10/0 0";
    if (cgp_parse(&f->g, POS, &f->ld, &f->lay, &f->kwg, 1, &err) != 0) abort();
    return f;
}

/* Every tile of the distribution exactly once on the board, the racks and the bag. */
static void check_conserved(const Game *g, const char *what) {
    int count[RK_MAX_LETTERS] = {0};
    for (int r = 0; r < g->board.dim; r++)
        for (int c = 0; c < g->board.dim; c++) {
            uint8_t t = board_at(&g->board, r, c);
            if (t != 0) count[RK_IS_BLANKED(t) ? 0 : t]++;
        }
    for (int k = 0; k < 2; k++)
        for (int ml = 0; ml < RK_MAX_LETTERS; ml++) count[ml] += g->racks[k].count[ml];
    for (int i = 0; i < g->bag.count; i++) count[g->bag.tiles[i]]++;
    for (int ml = 0; ml < g->ld->size; ml++)
        if (count[ml] != g->ld->count[ml]) {
            fprintf(stderr, "%s: tile %d counted %d times, the distribution has %d\n", what, ml, count[ml],
                    g->ld->count[ml]);
            abort();
        }
}

static void fuzz_position(Fixture *f, const char *args) {
    RkError err;
    int n = siu_position_split(args, f->cgp, sizeof f->cgp, f->buf, sizeof f->buf, f->moves, 64, &err);
    if (n < 0) return;
    if (siu_position_build(&f->pos, f->cgp, f->moves, n, &f->ld, &f->lay, &f->kwg, 1, &err) == SIU_POS_OK)
        check_conserved(&f->pos.game, args);
}

static void fuzz_move(Fixture *f, const char *text) {
    Move m, m2;
    bool unknown, unknown2;
    RkError err;
    if (siu_move_parse(&m, &unknown, text, &f->g.board, &f->ld, &err) != 0) return;
    char out[SIU_MOVE_MAX];
    siu_move_write(&m, &f->g.board, &f->ld, out, sizeof out);
    if (!unknown && (siu_move_parse(&m2, &unknown2, out, &f->g.board, &f->ld, &err) != 0 || !move_same(&m, &m2))) {
        fprintf(stderr, "move '%s' wrote '%s' which does not parse back\n", text, out);
        abort();
    }
    if (unknown) return;
    for (int known = 0; known < 2; known++) {
        Move chk = m;
        if (siu_move_check(&f->g, known == 1, &chk, false, &err) != 0 || known == 0) continue;
        Game copy = f->g; /* the rack is known: the move is playable as it is */
        game_play(&copy, &chk);
        check_conserved(&copy, text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static Fixture *fx = NULL; /* built once: acceptable in a fuzz harness */
    if (fx == NULL) fx = fixture_new();
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    if (strncmp(text, "position ", 9) == 0) fuzz_position(fx, text + 9);
    else fuzz_move(fx, text);
    free(text);
    return 0;
}
