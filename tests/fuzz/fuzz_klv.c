/* libFuzzer target for the .klv2 loader: arbitrary bytes as a whole file
 * (klv_load_bytes, which klv_load uses). Whatever loads must be safe to look
 * leaves up in, and its word index must be consistent: the word at index i
 * has index i. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/klv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    LetterDist ld;
    ld_english(&ld);
    Klv k;
    RkError err;
    if (klv_load_bytes(&k, data, size, &ld, "fuzz", &err) != 0) {
        klv_free(&k); /* harmless after a failure */
        return 0;
    }
    /* a few leaves, including the empty one, a full rack and tiles the
     * distribution has but the graph may not */
    static const char *const leaves[] = {"", "?", "??", "Q", "QU", "AEINST", "AEINRST", "ZZZZZZ"};
    for (size_t i = 0; i < sizeof leaves / sizeof *leaves; i++) {
        Rack r;
        if (rack_parse(&r, &ld, leaves[i], &err) != 0) abort();
        int64_t idx = klv_index(&k, &r);
        if (idx >= (int64_t)k.count) abort();
        int32_t v = klv_leave_value(&k, &r);
        if (idx < 0 && v != 0) abort();
    }
    /* index <-> word round trip at both ends and in the middle */
    uint64_t probes[5] = {0, 1, k.count / 2, k.count >= 2 ? k.count - 2 : 0, k.count ? k.count - 1 : 0};
    for (int i = 0; i < 5; i++) {
        if (probes[i] >= k.count) continue;
        uint8_t w[64];
        int len = kwg_index_word_at(&k.kwg, &k.ix, probes[i], w, (int)sizeof w);
        if (len <= 0) continue; /* longer than the buffer */
        if (kwg_index_of(&k.kwg, &k.ix, w, len) != (int64_t)probes[i]) abort();
    }
    /* new values, with junk among them */
    if (k.count > 0 && k.count <= 4096) {
        float *v = malloc(k.count * sizeof *v);
        if (v != NULL) {
            for (uint32_t i = 0; i < k.count; i++) memcpy(&v[i], data + (i * 4) % (size - 3), sizeof(float));
            klv_set_values(&k, v);
            for (uint32_t i = 0; i < k.count; i++)
                if (k.milli[i] > 1000 * KLV_MAX_ABS_VALUE || k.milli[i] < -1000 * KLV_MAX_ABS_VALUE) abort();
            free(v);
        }
    }
    klv_free(&k);
    return 0;
}
