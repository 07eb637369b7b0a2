#include "spv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

/* Largest valid file: header + two full tables + multipliers. */
#define SPV_MAX_FILE_BYTES                                                                                           \
    ((uint64_t)SPV_HEADER_BYTES + 8ull * RK_MAX_SQUARES * SPV_MAX_BUCKETS + 4ull * SPV_MAX_OPENNESS)

/* Little-endian words and f32 tables. */
static uint32_t spv_read_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void spv_write_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static float read_f32(const uint8_t *p) {
    uint32_t u = spv_read_le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void spv_zero(Spv *s) { memset(s, 0, sizeof *s); }

void spv_free(Spv *s) {
    free(s->mean);
    free(s->var);
    spv_zero(s);
}

size_t spv_file_size(const Spv *s) {
    size_t cells = (size_t)s->num_squares * s->num_buckets;
    return SPV_HEADER_BYTES + 4 * cells * (s->var ? 2 : 1) + 4 * (size_t)s->num_openness;
}

static int check_dims(uint32_t squares, uint32_t buckets, uint32_t openness, const char *source, RkError *err) {
    if (squares < 1 || squares > RK_MAX_SQUARES)
        return rk_error(err, "%s: num_squares %u is outside 1..%d", source, squares, RK_MAX_SQUARES);
    if (buckets < 1 || buckets > SPV_MAX_BUCKETS)
        return rk_error(err, "%s: num_buckets %u is outside 1..%d", source, buckets, SPV_MAX_BUCKETS);
    if (openness > SPV_MAX_OPENNESS)
        return rk_error(err, "%s: num_openness %u is outside 0..%d", source, openness, SPV_MAX_OPENNESS);
    return 0;
}

static int alloc_tables(Spv *s, bool with_var, RkError *err) {
    size_t cells = (size_t)s->num_squares * s->num_buckets;
    s->mean = calloc(cells, sizeof(float));
    s->var = with_var ? calloc(cells, sizeof(float)) : NULL;
    if (s->mean == NULL || (with_var && s->var == NULL)) {
        spv_free(s);
        return rk_error(err, "out of memory for an SPV table");
    }
    return 0;
}

/* Reads n floats, each finite and within SPV_MAX_ABS_VALUE; the error names
 * source, table and the value's index. */
static int spv_read_values(float *dst, const uint8_t *p, size_t n, const char *source, const char *table, RkError *err) {
    for (size_t i = 0; i < n; i++) {
        float f = read_f32(p + 4 * i);
        if (!isfinite(f)) return rk_error(err, "%s: %s value %zu is not finite", source, table, i);
        if (fabsf(f) > SPV_MAX_ABS_VALUE)
            return rk_error(err, "%s: %s value %zu (%g) exceeds %g in magnitude", source, table, i, (double)f,
                            SPV_MAX_ABS_VALUE);
        dst[i] = f;
    }
    return 0;
}

static void spv_write_values(uint8_t *p, const float *src, size_t n) {
    for (size_t i = 0; i < n; i++, p += 4) {
        uint32_t u;
        memcpy(&u, &src[i], sizeof u);
        spv_write_le32(p, u);
    }
}

/* The first value of n that is not finite or exceeds SPV_MAX_ABS_VALUE, or -1. */
static long spv_find_bad_value(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabsf(v[i]) > SPV_MAX_ABS_VALUE) return (long)i;
    return -1;
}

int spv_load_bytes(Spv *s, const uint8_t *data, size_t size, const char *source, RkError *err) {
    spv_zero(s);
    if (rk_check_magic(data, size, SPV_HEADER_BYTES, SPV_MAGIC, "an .spv file", source, err) != 0) return -1;
    uint32_t squares = spv_read_le32(data + 4), buckets = spv_read_le32(data + 8),
             openness = spv_read_le32(data + 12), flags = spv_read_le32(data + 16);
    if (check_dims(squares, buckets, openness, source, err) != 0) return -1;
    if (flags & ~SPV_FLAG_VARIANCE) return rk_error(err, "%s: unknown flag bits 0x%x", source, flags);
    bool with_var = (flags & SPV_FLAG_VARIANCE) != 0;
    size_t cells = (size_t)squares * buckets;
    size_t want = SPV_HEADER_BYTES + 4 * cells * (with_var ? 2 : 1) + 4 * (size_t)openness;
    if (size != want)
        return rk_error(err,
                        "%s: %zu bytes, but the header (%u squares x %u buckets%s, %u openness) needs %zu bytes",
                        source, size, squares, buckets, with_var ? " x 2 tables" : "", openness, want);
    s->num_squares = squares;
    s->num_buckets = buckets;
    s->num_openness = openness;
    s->flags = flags;
    if (alloc_tables(s, with_var, err) != 0) return -1;
    const uint8_t *p = data + SPV_HEADER_BYTES;
    int rc = spv_read_values(s->mean, p, cells, source, "mean", err);
    p += 4 * cells;
    if (rc == 0 && with_var) {
        rc = spv_read_values(s->var, p, cells, source, "variance", err);
        p += 4 * cells;
    }
    if (rc == 0) rc = spv_read_values(s->openness, p, openness, source, "openness multiplier", err);
    if (rc != 0) spv_free(s);
    return rc;
}

int spv_load(Spv *s, const char *path, RkError *err) {
    spv_zero(s);
    size_t size;
    uint8_t *data = rk_read_regular_file(path, SPV_MAX_FILE_BYTES, "an .spv file", &size, err);
    if (data == NULL) return -1;
    int rc = spv_load_bytes(s, data, size, path, err);
    free(data);
    return rc;
}

int spv_init_zero(Spv *s, uint32_t num_squares, uint32_t num_buckets, uint32_t num_openness, bool with_var,
                  RkError *err) {
    spv_zero(s);
    if (check_dims(num_squares, num_buckets, num_openness, "SPV table", err) != 0) return -1;
    s->num_squares = num_squares;
    s->num_buckets = num_buckets;
    s->num_openness = num_openness;
    s->flags = with_var ? SPV_FLAG_VARIANCE : 0;
    for (uint32_t o = 0; o < num_openness; o++) s->openness[o] = 1.0f;
    return alloc_tables(s, with_var, err);
}

int spv_write(const Spv *s, const char *path, RkError *err) {
    if (s->mean == NULL) return rk_error(err, "%s: no SPV table to write", path);
    size_t size = spv_file_size(s), cells = (size_t)s->num_squares * s->num_buckets;
    /* never write what spv_load would refuse */
    const float *parts[3] = {s->mean, s->var, s->openness};
    size_t counts[3] = {cells, s->var ? cells : 0, s->num_openness};
    for (int t = 0; t < 3; t++) {
        long bad = spv_find_bad_value(parts[t], counts[t]);
        if (bad >= 0)
            return rk_error(err, "%s: refusing to write a non-finite or out-of-range SPV value (%g)", path,
                            (double)parts[t][bad]);
    }
    uint8_t *buf = malloc(size);
    if (buf == NULL) return rk_error(err, "%s: out of memory", path);
    memcpy(buf, SPV_MAGIC, 4);
    spv_write_le32(buf + 4, s->num_squares);
    spv_write_le32(buf + 8, s->num_buckets);
    spv_write_le32(buf + 12, s->num_openness);
    spv_write_le32(buf + 16, s->var ? SPV_FLAG_VARIANCE : 0);
    uint8_t *p = buf + SPV_HEADER_BYTES;
    for (int t = 0; t < 3; t++) {
        spv_write_values(p, parts[t], counts[t]);
        p += 4 * counts[t];
    }
    int rc = rk_write_file_atomic(path, buf, size, err);
    free(buf);
    return rc;
}

int spv_check_board(const Spv *s, int dim, const char *source, RkError *err) {
    if ((int)s->num_squares != dim * dim)
        return rk_error(err, "%s: the table has %u squares but the board is %dx%d (%d squares)", source,
                        s->num_squares, dim, dim, dim * dim);
    return 0;
}

double spv_spread_weight(int opp_lead, double k) {
    if (!(k > 0)) return 0.0;
    double w = (double)opp_lead / k;
    return w < -1.0 ? -1.0 : w > 1.0 ? 1.0 : w;
}

void spv_prepare(const Spv *s, const Board *b, const Rack *rack, int opp_lead, double k, PositionalValues *pv) {
    int nb = (int)s->num_buckets;
    pv->buckets = nb;
    bool want[SPV_MAX_BUCKETS] = {false};
    for (int ml = 0; ml < b->ld->size; ml++)
        if (rack == NULL || rack->count[ml] > 0) want[spv_tile_bucket(nb, b->ld, (uint8_t)ml)] = true;
    double w = spv_spread_weight(opp_lead, k);
    double mult = spv_openness_mult(s, spv_openness_bucket(s, b));
    int squares = b->dim * b->dim;
    for (int bucket = 0; bucket < nb; bucket++) {
        if (!want[bucket]) continue;
        for (int sq = 0; sq < squares; sq++) {
            int i = sq * nb + bucket;
            double x = 1000.0 * ((double)s->mean[i] + w * (s->var ? (double)s->var[i] : 0.0)) * mult;
            /* clamped (a table may hold values up to 1e4 and multipliers up
             * to 1e4 points), then lround without the call */
            if (x > SPV_MAX_TILE_MP) x = SPV_MAX_TILE_MP;
            if (x < -SPV_MAX_TILE_MP) x = -SPV_MAX_TILE_MP;
            pv->v[i] = (int32_t)(x >= 0 ? x + 0.5 : x - 0.5);
        }
    }
}

const PositionalValues *spv_prepare_for_game(const Spv *s, double k, const Game *g, PositionalValues *pv) {
    if (s == NULL || g->bag.count == 0) return NULL;
    int me = g->on_turn;
    spv_prepare(s, &g->board, &g->racks[me], g->scores[1 - me] - g->scores[me], k, pv);
    return pv;
}

int32_t spv_move_adjust(const PositionalValues *pv, const Board *b, const Move *m) {
    if (m->kind != MOVE_PLACE) return 0;
    int32_t sum = 0;
    int nb = pv->buckets, r, c;
    for (int i = 0; i < m->len; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) continue;
        int sq = spv_move_square(m, i, b->dim, &r, &c);
        sum += pv->v[sq * nb + spv_tile_bucket(nb, b->ld, t)];
    }
    return sum;
}
