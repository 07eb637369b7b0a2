/* libFuzzer target for the training configuration parser: arbitrary text
 * (up to its first NUL) into train_config_parse on top of the defaults.
 * A failure leaves a one-line message. A success must write back
 * (train_config_write) into text that parses again, into a zeroed config as
 * well as over the defaults, to the very same values, and writing that
 * gives the same text again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "train/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const TrainConfig *a, const TrainConfig *b) {
    if (a->seed != b->seed || a->generations != b->generations ||
        a->games_per_generation != b->games_per_generation || a->progress_seconds != b->progress_seconds ||
        a->max_forced_games != b->max_forced_games || a->sampled_racks != b->sampled_racks || a->shrink != b->shrink)
        abort();
    if (strcmp(a->output, b->output) != 0 || strcmp(a->lexicon, b->lexicon) != 0 || strcmp(a->ld, b->ld) != 0 ||
        strcmp(a->layout, b->layout) != 0 || strcmp(a->initial_leaves, b->initial_leaves) != 0)
        abort();
    if (a->n_min_rack_count != b->n_min_rack_count) abort();
    for (int i = 0; i < a->n_min_rack_count; i++)
        if (a->min_rack_count[i] != b->min_rack_count[i]) abort();
    for (int g = 0; g <= a->n_min_rack_count + 1; g++)
        if (train_config_min_count(a, g) != train_config_min_count(b, g)) abort();
}

static void one_line(const RkError *err) {
    if (err->msg[0] == '\0' || strchr(err->msg, '\n') != NULL) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 16)) return 0;
    char *text = fuzz_text(data, size);
    if (text == NULL) return 0;
    static TrainConfig c, d, z; /* 5 KB each */
    static char out[16384], out2[16384];
    RkError err;
    err.msg[0] = '\0';
    train_config_defaults(&c);
    if (train_config_parse(&c, text, "fuzz.ini", &err) != 0) {
        one_line(&err);
        free(text);
        return 0;
    }
    free(text);
    /* the values in force are in range */
    if (c.generations < 1 || c.games_per_generation < 1 || c.progress_seconds < 0 || c.n_min_rack_count < 1 ||
        c.n_min_rack_count > TRAIN_MAX_SCHEDULE || !(c.shrink >= 0.0))
        abort();
    int n = train_config_write(&c, out, sizeof out);
    if (n <= 0 || (size_t)n != strlen(out)) abort();
    train_config_defaults(&d);
    if (train_config_parse(&d, out, "written", &err) != 0) abort();
    same(&c, &d);
    memset(&z, 0, sizeof z);
    if (train_config_parse(&z, out, "written", &err) != 0) abort();
    same(&c, &z);
    int n2 = train_config_write(&d, out2, sizeof out2);
    if (n2 != n || memcmp(out, out2, (size_t)n) != 0) abort();
    return 0;
}
