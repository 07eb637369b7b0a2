/* libFuzzer target for the .spv loader: arbitrary bytes as a whole file
 * (spv_load_bytes, which spv_load uses). Whatever loads must agree with its
 * header and size, hold only finite values within SPV_MAX_ABS_VALUE, and
 * serialise back to exactly the input bytes (checked in memory, the way
 * spv_write lays the file out). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/spv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_values(const float *v, size_t n, const uint8_t *bytes) {
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || fabsf(v[i]) > SPV_MAX_ABS_VALUE) abort();
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        if (u != le32(bytes + 4 * i)) abort(); /* bit-exact, -0.0 included */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    Spv s;
    RkError err;
    if (spv_load_bytes(&s, data, size, "fuzz", &err) != 0) {
        /* a failed load leaves nothing behind and says so in one line */
        if (s.mean != NULL || s.var != NULL || s.num_squares != 0) abort();
        if (err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL || strncmp(err.msg, "fuzz: ", 6) != 0) abort();
        spv_free(&s);
        return 0;
    }
    if (s.num_squares < 1 || s.num_squares > RK_MAX_SQUARES) abort();
    if (s.num_buckets < 1 || s.num_buckets > SPV_MAX_BUCKETS) abort();
    if (s.num_openness > SPV_MAX_OPENNESS) abort();
    if ((s.flags & ~SPV_FLAG_VARIANCE) != 0 || (s.var != NULL) != ((s.flags & SPV_FLAG_VARIANCE) != 0)) abort();
    if (spv_file_size(&s) != size) abort();
    if (memcmp(data, SPV_MAGIC, 4) != 0 || le32(data + 4) != s.num_squares || le32(data + 8) != s.num_buckets ||
        le32(data + 12) != s.num_openness || le32(data + 16) != s.flags)
        abort();
    size_t cells = (size_t)s.num_squares * s.num_buckets;
    const uint8_t *p = data + SPV_HEADER_BYTES;
    check_values(s.mean, cells, p);
    p += 4 * cells;
    if (s.var) {
        check_values(s.var, cells, p);
        p += 4 * cells;
    }
    check_values(s.openness, s.num_openness, p);
    p += 4 * (size_t)s.num_openness;
    if ((size_t)(p - data) != size) abort();
    /* the accessors stay inside the tables */
    int last = (int)s.num_squares - 1, lb = (int)s.num_buckets - 1;
    if (spv_mean_at(&s, last, lb) != s.mean[cells - 1]) abort();
    if (s.var && spv_var_at(&s, 0, 0) != s.var[0]) abort();
    if (!s.var && spv_var_at(&s, last, lb) != 0.0f) abort();
    for (int o = 0; o < (int)s.num_openness; o++)
        if (spv_openness_mult(&s, o) != (double)s.openness[o]) abort();
    if (s.num_openness == 0 && spv_openness_mult(&s, 0) != 1.0) abort();
    /* the board check agrees with num_squares */
    for (int dim = 1; dim <= RK_MAX_DIM; dim++) {
        int rc = spv_check_board(&s, dim, "fuzz", &err);
        if ((rc == 0) != ((uint32_t)(dim * dim) == s.num_squares)) abort();
    }
    spv_free(&s);
    return 0;
}
