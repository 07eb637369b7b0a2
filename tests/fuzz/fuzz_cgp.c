/*
 * fuzz_cgp.c - libFuzzer target for the CGP reader (and writer).
 *
 * Any input is NUL-terminated and handed to cgp_parse() with the English
 * distribution, the standard board and a small lexicon; a position that
 * parses is written back, and the written form must parse again to the same
 * text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "core/cgp.h"
#include "core/kwg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Fixture {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
} Fixture;

static const char *const WORDS[] = {"AT", "TA", "QI", "ZA", "OX", "XI", "JO", "EH", "HE", "QUARTZ",
                                    "QUARTZY", "CAT", "CATS", "SCAT", "RE", "ER", "EAR", "ERA", "ARE"};

static Fixture *fixture_new(void) {
    Fixture *f = calloc(1, sizeof *f);
    if (f == NULL) abort();
    ld_english(&f->ld);
    layout_standard15(&f->lay);
    enum { N = sizeof WORDS / sizeof WORDS[0] };
    uint8_t ml[N][16];
    const uint8_t *ptrs[N];
    int lens[N];
    for (int i = 0; i < N; i++) {
        lens[i] = ld_parse_tiles(&f->ld, WORDS[i], ml[i], 16, false);
        if (lens[i] <= 0) abort();
        ptrs[i] = ml[i];
    }
    KwgWords w = {ptrs, lens, N};
    RkError err;
    if (kwg_build(&f->kwg, &w, true, &err) != 0) {
        fprintf(stderr, "kwg_build: %s\n", err.msg);
        abort();
    }
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Built once and kept for the process: acceptable in a fuzz harness. */
    static Fixture *fx = NULL;
    static Game *g = NULL, *g2 = NULL;
    if (fx == NULL) {
        fx = fixture_new();
        g = malloc(sizeof *g);
        g2 = malloc(sizeof *g2);
        if (g == NULL || g2 == NULL) abort();
    }
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;

    RkError err;
    CgpOps ops;
    (void)cgp_read_ops(text, &ops, &err);
    if (cgp_parse(g, text, &fx->ld, &fx->lay, &fx->kwg, 1, &err) == 0) {
        char out[2048], out2[2048];
        cgp_write(g, ops.lex[0] ? ops.lex : NULL, out, sizeof out);
        if (cgp_parse(g2, out, &fx->ld, &fx->lay, &fx->kwg, 1, &err) != 0) {
            fprintf(stderr, "written CGP does not parse: '%s': %s\n", out, err.msg);
            abort();
        }
        cgp_write(g2, ops.lex[0] ? ops.lex : NULL, out2, sizeof out2);
        if (strcmp(out, out2) != 0) {
            fprintf(stderr, "CGP write is not stable:\n'%s'\n'%s'\n", out, out2);
            abort();
        }
    } else if (strchr(err.msg, '\n') != NULL) {
        fprintf(stderr, "multi-line error: %s\n", err.msg);
        abort();
    }
    free(text);
    return 0;
}
