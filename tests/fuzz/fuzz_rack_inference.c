/*
 * fuzz_rack_inference.c - libFuzzer target for the inference of the opponent's kept
 * tiles (search/rack_inference.h) on positions and moves from outside: what an SIU
 * `position ... moves M` followed by `go infer` hands it.
 *
 * The input is two lines: a CGP position (the mover on turn, their rack
 * whatever it says) and a move in rookery's notation; a leading '?' on the
 * move line makes an exchange's tiles unknown (ex.N). The lexicon is a tiny
 * built one, the budget small (300 leaves enumerated, else 64 racks drawn).
 * infer_run must fail with a message, or give a posterior whose leaves are
 * distinct, hold leave_size tiles each, come from the tiles the mover could
 * hold less the move's, and have probabilities that sum to 1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_lexicon.h"
#include "fuzz_text.h"
#include "core/cgp.h"
#include "core/kwg.h"
#include "search/rack_inference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FuzzBoard *fixture_new(void) {
    static const char *const WORDS[] = {"AT", "TA", "QI", "ZA", "ACT", "CAT", "ATE", "EAT", "TEA", "RATE", "TEAR"};
    return fuzz_board_new(WORDS, (int)(sizeof WORDS / sizeof *WORDS));
}

static void fail(const char *what, const char *text) {
    fprintf(stderr, "infer: %s on input:\n%s\n", what, text);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FuzzBoard *fx = NULL; /* built once: acceptable in a fuzz harness */
    if (fx == NULL) fx = fixture_new();
    if (size > 4096) return 0;
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    char *nl = strchr(text, '\n');
    RkError err;
    Move m;
    if (nl == NULL) goto done;
    *nl = '\0';
    char *move_text = nl + 1;
    bool unknown = move_text[0] == '?';
    if (unknown) move_text++;
    if (cgp_parse(&fx->g, text, &fx->ld, &fx->lay, &fx->kwg, 1, &err) != 0) goto done;
    if (move_parse(&m, move_text, &fx->g.board, &fx->ld, &err) != 0) goto done;
    InferConfig cfg;
    infer_config_defaults(&cfg);
    cfg.max_enumerate = 300;
    cfg.samples = 64;
    InferResult r;
    infer_result_init(&r);
    err.msg[0] = '\0';
    if (infer_run(&fx->g, &m, unknown && m.kind == MOVE_EXCHANGE, &cfg, &r, &err) == 0) {
        Rack pool; /* what the mover could hold, less the tiles the move shows */
        bag_plus_rack(&fx->g.bag, &fx->g.racks[fx->g.on_turn], &pool);
        if (!(unknown && m.kind == MOVE_EXCHANGE)) {
            Rack taken;
            move_rack_tiles(&m, &taken);
            rack_sub(&pool, &taken);
        }
        if (r.count < 1) fail("no leave", text);
        double sum = 0.0;
        for (int i = 0; i < r.count; i++) {
            const Rack *l = &r.leaves[i].leave;
            if (l->total != r.leave_size) fail("a leave of the wrong size", text);
            for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
                if (l->count[ml] > pool.count[ml]) fail("a leave of tiles the mover could not hold", text);
            for (int j = 0; j < i; j++)
                if (rack_equal(l, &r.leaves[j].leave)) fail("a leave listed twice", text);
            if (!(r.leaves[i].prob > 0.0)) fail("a leave without probability", text);
            sum += r.leaves[i].prob;
        }
        if (fabs(sum - 1.0) > 1e-9) fail("probabilities that do not sum to 1", text);
    } else if (err.msg[0] == '\0') {
        fail("an error without a message", text);
    }
    infer_result_free(&r);
done:
    free(text);
    return 0;
}
