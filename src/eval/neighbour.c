/*
 * neighbour.c - the neighbour-aware SPV table: neighbour states, the .nbv
 * file and the adjustment (see neighbour.h).
 */
#include "neighbour.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

int neighbour_state(const Board *b, int row, int col) {
    static const int DR[4] = {-1, 1, 0, 0}, DC[4] = {0, 0, -1, 1};
    const Layout *lay = b->layout;
    int dim = b->dim, premium = 0, used = 0;
    for (int d = 0; d < 4; d++) {
        int r = row + DR[d], c = col + DC[d];
        if (r < 0 || c < 0 || r >= dim || c >= dim) continue;
        int i = r * dim + c;
        if (lay->letter_mult[i] <= 1 && lay->word_mult[i] <= 1) continue;
        premium++;
        used += board_at(b, r, c) != 0;
    }
    if (used == 0) return 0;
    return used == premium ? 2 : 1;
}

static size_t cells_of(uint32_t dim, uint32_t num_buckets) {
    return (size_t)dim * dim * NEIGHBOUR_STATES * num_buckets;
}

size_t neighbour_file_size(const NeighbourTable *t) {
    return NEIGHBOUR_HEADER_BYTES + 4 * cells_of(t->dim, t->num_buckets);
}

void neighbour_free(NeighbourTable *t) {
    free(t->value);
    memset(t, 0, sizeof *t);
}

static int check_dims(uint32_t dim, uint32_t states, uint32_t buckets, const char *source, RkError *err) {
    if (dim < 1 || dim > RK_MAX_DIM) return rk_error(err, "%s: dim %u is outside 1..%d", source, dim, RK_MAX_DIM);
    if (states != NEIGHBOUR_STATES)
        return rk_error(err, "%s: num_states %u, expected %d", source, states, NEIGHBOUR_STATES);
    if (buckets < 1 || buckets > SPV_MAX_BUCKETS)
        return rk_error(err, "%s: num_buckets %u is outside 1..%d", source, buckets, SPV_MAX_BUCKETS);
    return 0;
}

static int alloc_table(NeighbourTable *t, uint32_t dim, uint32_t num_buckets, RkError *err) {
    t->value = calloc(cells_of(dim, num_buckets), sizeof *t->value);
    if (t->value == NULL) return rk_error(err, "out of memory for a neighbour table");
    t->dim = dim;
    t->num_buckets = num_buckets;
    return 0;
}

int neighbour_init_zero(NeighbourTable *t, uint32_t dim, uint32_t num_buckets, RkError *err) {
    memset(t, 0, sizeof *t);
    if (check_dims(dim, NEIGHBOUR_STATES, num_buckets, "neighbour table", err) != 0) return -1;
    return alloc_table(t, dim, num_buckets, err);
}

int neighbour_load_bytes(NeighbourTable *t, const uint8_t *data, size_t size, const char *source, RkError *err) {
    memset(t, 0, sizeof *t);
    if (rk_check_magic(data, size, NEIGHBOUR_HEADER_BYTES, NEIGHBOUR_MAGIC, "a neighbour table (.nbv)", source,
                       err) != 0)
        return -1;
    uint32_t dim = spv_read_le32(data + 4), states = spv_read_le32(data + 8), buckets = spv_read_le32(data + 12);
    if (check_dims(dim, states, buckets, source, err) != 0) return -1;
    size_t want = NEIGHBOUR_HEADER_BYTES + 4 * cells_of(dim, buckets);
    if (size != want)
        return rk_error(err, "%s: %zu bytes, but the header (%ux%u squares x %u states x %u buckets) needs %zu bytes",
                        source, size, dim, dim, states, buckets, want);
    if (alloc_table(t, dim, buckets, err) != 0) return -1;
    if (spv_read_values(t->value, data + NEIGHBOUR_HEADER_BYTES, cells_of(dim, buckets), source, "table", err) != 0) {
        neighbour_free(t);
        return -1;
    }
    return 0;
}

int neighbour_load(NeighbourTable *t, const char *path, RkError *err) {
    memset(t, 0, sizeof *t);
    uint64_t max = NEIGHBOUR_HEADER_BYTES + 4ull * RK_MAX_SQUARES * NEIGHBOUR_STATES * SPV_MAX_BUCKETS;
    size_t size;
    uint8_t *data = rk_read_regular_file(path, max, "a neighbour table (.nbv)", &size, err);
    if (data == NULL) return -1;
    int rc = neighbour_load_bytes(t, data, size, path, err);
    free(data);
    return rc;
}

int neighbour_write(const NeighbourTable *t, const char *path, RkError *err) {
    if (t->value == NULL) return rk_error(err, "%s: no neighbour table to write", path);
    size_t cells = cells_of(t->dim, t->num_buckets);
    long bad = spv_find_bad_value(t->value, cells);
    if (bad >= 0)
        return rk_error(err, "%s: refusing to write a non-finite or out-of-range value (%g)", path,
                        (double)t->value[bad]);
    size_t size = neighbour_file_size(t);
    uint8_t *buf = malloc(size);
    if (buf == NULL) return rk_error(err, "%s: out of memory", path);
    memcpy(buf, NEIGHBOUR_MAGIC, 4);
    spv_write_le32(buf + 4, t->dim);
    spv_write_le32(buf + 8, NEIGHBOUR_STATES);
    spv_write_le32(buf + 12, t->num_buckets);
    spv_write_values(buf + NEIGHBOUR_HEADER_BYTES, t->value, cells);
    int rc = rk_write_file_atomic(path, buf, size, err);
    free(buf);
    return rc;
}

int neighbour_check_board(const NeighbourTable *t, int dim, const char *source, RkError *err) {
    if ((int)t->dim != dim)
        return rk_error(err, "%s: the neighbour table is for a %ux%u board, the game's is %dx%d", source, t->dim,
                        t->dim, dim, dim);
    return 0;
}

int32_t neighbour_move_adjust(const NeighbourTable *t, const Board *b, const Move *m) {
    if (m->kind != MOVE_PLACE) return 0;
    int32_t sum = 0;
    int nb = (int)t->num_buckets, r, c;
    for (int i = 0; i < m->len; i++) {
        uint8_t tile = m->tiles[i];
        if (tile == MOVE_PLAYED_THROUGH) continue;
        int sq = spv_move_square(m, i, b->dim, &r, &c);
        double x = 1000.0 * t->value[neighbour_index(t, sq, neighbour_state(b, r, c), spv_tile_bucket(nb, b->ld, tile))];
        if (x > SPV_MAX_TILE_MP) x = SPV_MAX_TILE_MP; /* a scaled table (player.h) may exceed the file's range */
        if (x < -SPV_MAX_TILE_MP) x = -SPV_MAX_TILE_MP;
        sum += (int32_t)lround(x);
    }
    return sum;
}
