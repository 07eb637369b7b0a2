/* libFuzzer target for player specs ("mcgs:visits=32,win_model=20:0:0:99"):
 * arbitrary text (up to its first NUL) into player_open. A failure leaves a
 * one-line message that is not empty; a success gives a player whose
 * options hold their checks (the search's and the simulation's win models
 * among them), and player_close frees it. Specs that name files (leaves=,
 * net=, req=, spv=) are skipped: their loaders have their own targets. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "search/mcgs_player.h"
#include "search/player.h"
#include "search/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    static const char *const files[] = {"leaves=", "net=", "model=", "req=", "spv="};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        /* the key itself, at the start of an option (win_model= is not model=) */
        for (const char *at = strstr(text, files[i]); at != NULL; at = strstr(at + 1, files[i])) {
            if (at == text || at[-1] == ':' || at[-1] == ',') {
                free(text);
                return 0;
            }
        }
    }
    LetterDist ld;
    ld_english(&ld);
    Player p;
    RkError err;
    err.msg[0] = '\0';
    if (player_open(&p, text, &ld, &err) != 0) {
        if (err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL) abort();
        free(text);
        return 0;
    }
    const McgsPlayer *mp = mcgs_player_of(&p);
    if (mp != NULL && winprob_check(&mp->cfg.win.model, &err) != 0) abort();
    const SimConfig *sc = sim_player_config(&p);
    if (sc != NULL && winprob_check(&sc->win.model, &err) != 0) abort();
    player_close(&p);
    free(text);
    return 0;
}
