/*
 * neighbour.h - the neighbour-aware SPV variant of ../shared/spv-design.md
 * ("Neighbor-Aware Variant"): a value per (canonical square, neighbour
 * state, tile bucket) instead of per (square, bucket), so that a tile next
 * to an open premium square and one next to a used one are told apart.
 *
 * NEIGHBOUR STATE of square (r, c) on a board: among its (up to 4)
 * orthogonal neighbours that are premium squares of the layout (letter or
 * word multiplier > 1; the centre star counts as a double word),
 *   0  none is occupied (all open), and also: the square has no premium
 *      neighbour (the state of such a square is always 0, so its cells with
 *      state 0 are the plain table's and states 1, 2 stay empty)
 *   1  some, not all, are occupied
 *   2  all are occupied
 * always on the board *before* the move: a premium square the move itself
 * covers counts as open (the state is a property of the position, known
 * before any move is generated).
 *
 * TABLE. value[(sq * NEIGHBOUR_STATES + state) * num_buckets + bucket], in
 * points, sq the canonical square and bucket the tile bucket of spv.h (an
 * across tile at (r, c): sq = r*dim+c; a down tile: c*dim+r; the state is
 * always that of the real square (r, c), which the diagonal symmetry of the
 * layout makes consistent). This layout is an SPV table of dim*dim*3
 * "squares", which is how it is derived (worker/neighbour_study.h).
 *
 * FILE (.nbv, rookery's own; the .spv format of ../shared/formats.md has
 * no room for a third index). Little-endian: "RKNB", u32 dim, u32
 * num_states (= NEIGHBOUR_STATES), u32 num_buckets, then f32
 * value[dim*dim][num_states][num_buckets]: 16 + 4*dim*dim*3*num_buckets bytes
 * (29,716 for 15x15 and 11 buckets). The loader checks the magic, dim in
 * 1..RK_MAX_DIM, num_states = 3, num_buckets in 1..SPV_MAX_BUCKETS, the exact
 * size, and every value finite and within SPV_MAX_ABS_VALUE; errors name the
 * file.
 *
 * USE. For a placement while the bag is not empty:
 *   adjustment = sum over fresh tiles of lround(1000 * value), millipoints
 *   (each tile's term clamped to +-SPV_MAX_TILE_MP)
 * (static:neighbour=FILE.nbv, search/player.h).
 */
#ifndef ROOKERY_NEIGHBOUR_H
#define ROOKERY_NEIGHBOUR_H

#include "eval/spv.h"

#define NEIGHBOUR_MAGIC "RKNB"
#define NEIGHBOUR_HEADER_BYTES 16
#define NEIGHBOUR_STATES 3

typedef struct NeighbourTable {
    uint32_t dim, num_buckets;
    float *value; /* dim*dim*NEIGHBOUR_STATES*num_buckets, points */
} NeighbourTable;

/* The neighbour state (0, 1, 2) of square (row, col) on b. */
int neighbour_state(const Board *b, int row, int col);

/* An all-zero table. */
int neighbour_init_zero(NeighbourTable *t, uint32_t dim, uint32_t num_buckets, RkError *err);
void neighbour_free(NeighbourTable *t);
int neighbour_load(NeighbourTable *t, const char *path, RkError *err);
/* The same from a buffer holding the whole file; `source` names it. */
int neighbour_load_bytes(NeighbourTable *t, const uint8_t *data, size_t size, const char *source, RkError *err);
/* Writes t atomically (core/atomicfile.h); refuses values the loader would. */
int neighbour_write(const NeighbourTable *t, const char *path, RkError *err);
size_t neighbour_file_size(const NeighbourTable *t);
/* Whether t is for a board of side dim; the error names `source`. */
int neighbour_check_board(const NeighbourTable *t, int dim, const char *source, RkError *err);

static inline size_t neighbour_index(const NeighbourTable *t, int sq, int state, int bucket) {
    return ((size_t)sq * NEIGHBOUR_STATES + (size_t)state) * t->num_buckets + (size_t)bucket;
}
/* The adjustment of move m on board b (before m), millipoints: the sum over
 * its fresh tiles of their rounded values; 0 for exchanges and passes.
 * t must fit the board. */
int32_t neighbour_move_adjust(const NeighbourTable *t, const Board *b, const Move *m);

#endif
