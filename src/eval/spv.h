/*
 * spv.h - square placement values (.spv, ../shared/formats.md "SPV"; the
 * design is ../shared/spv-design.md): a positional adjustment per fresh tile,
 * from a table of (canonical square, tile-value bucket).
 *
 * FILE. Little-endian: "SPV1", u32 num_squares, u32 num_buckets,
 * u32 num_openness, u32 flags (bit 0: a variance table follows), then
 * f32 mean[num_squares][num_buckets], f32 var[...] if flag bit 0,
 * f32 openness_mult[num_openness]. Units: points (see docs/spv.md for what
 * rookery's var table holds).
 *
 * INDEXING. A tile placed by an across move at (r, c) uses square r*dim+c;
 * a down move's tile uses the transposed square c*dim+r. bucket = the tile's
 * face value, clamped to num_buckets-1; a blank is 0.
 *
 * USE. For a move played while the bag is not empty:
 *   adjustment = sum over fresh tiles of (mean + w*var) * openness_mult[o]
 *   w = clamp(opp_lead / K, -1, 1)   (opp_lead: opponent's score minus the
 *                                     mover's, points; K > 0, points)
 *   o = min(board_extent / 2, num_openness - 1), multiplier 1 if none.
 * Each tile's term is rounded once to millipoints:
 *   lround(1000 * (mean + w*var) * mult), computed in double and clamped to
 *   +-SPV_MAX_TILE_MP (so that no table can overflow an equity),
 * and move generation sums those integers (so equities stay exact integers
 * and ties are exact). spv_prepare() computes them for one position.
 *
 * An Spv is read-only after loading; threads may share one.
 */
#ifndef ROOKERY_SPV_H
#define ROOKERY_SPV_H

#include "core/board.h"
#include "core/game.h"
#include "core/movegen.h"
#include "core/rack.h"

#define SPV_MAGIC "SPV1"
#define SPV_HEADER_BYTES 20
#define SPV_FLAG_VARIANCE 1u
#define SPV_MAX_BUCKETS POS_MAX_BUCKETS
#define SPV_MAX_OPENNESS 16
/* Largest |value| accepted, in points (mean, var and multipliers). */
#define SPV_MAX_ABS_VALUE 1.0e4
/* Largest |per-tile value| after weighting, millipoints (1000 points). */
#define SPV_MAX_TILE_MP 1.0e6
/* rookery's own tables: 15x15 squares, face values 0..10, 5 openness buckets. */
#define SPV_DEFAULT_BUCKETS 11
#define SPV_DEFAULT_OPENNESS 5

typedef struct Spv {
    uint32_t num_squares, num_buckets, num_openness, flags;
    float *mean; /* num_squares * num_buckets, [square][bucket] */
    float *var;  /* the same, or NULL without a variance table */
    float openness[SPV_MAX_OPENNESS];
} Spv;

/* Loads path. Checks, before anything is used: the magic; num_squares in
 * 1..RK_MAX_SQUARES, num_buckets in 1..SPV_MAX_BUCKETS, num_openness in
 * 0..SPV_MAX_OPENNESS; no flag bits but bit 0; the file size is exactly what
 * the header implies; every value finite and within SPV_MAX_ABS_VALUE. On
 * error returns -1 with a one-line message naming the file and the problem
 * (s is then empty and spv_free is harmless). */
int spv_load(Spv *s, const char *path, RkError *err);
/* The same from a buffer holding the whole file; `source` names it. */
int spv_load_bytes(Spv *s, const uint8_t *data, size_t size, const char *source, RkError *err);
/* An all-zero table (multipliers 1), with a variance table if with_var. */
int spv_init_zero(Spv *s, uint32_t num_squares, uint32_t num_buckets, uint32_t num_openness, bool with_var,
                  RkError *err);
/* Writes s to PATH.tmp, fsync, rename (core/atomicfile.h). */
int spv_write(const Spv *s, const char *path, RkError *err);
void spv_free(Spv *s);
/* Bytes of the file s would be written as. */
size_t spv_file_size(const Spv *s);
/* Whether s fits a board of side dim (num_squares == dim*dim); the error
 * names `source`. */
int spv_check_board(const Spv *s, int dim, const char *source, RkError *err);

static inline float spv_mean_at(const Spv *s, int sq, int bucket) { return s->mean[sq * (int)s->num_buckets + bucket]; }
static inline float spv_var_at(const Spv *s, int sq, int bucket) {
    return s->var ? s->var[sq * (int)s->num_buckets + bucket] : 0.0f;
}

/* w = clamp(opp_lead / k, -1, 1). */
double spv_spread_weight(int opp_lead, double k);
/* Openness bucket of a board for a table with n buckets (n = 0: 0). */
static inline int spv_openness_bucket_n(int n, const Board *b) {
    if (n <= 0) return 0;
    int o = board_extent(b) / 2;
    return o < n - 1 ? o : n - 1;
}
static inline int spv_openness_bucket(const Spv *s, const Board *b) {
    return spv_openness_bucket_n((int)s->num_openness, b);
}
/* The multiplier of openness bucket o (1 without a table). */
static inline double spv_openness_mult(const Spv *s, int o) { return s->num_openness ? s->openness[o] : 1.0; }
/* Bucket of a tile (rack letter or board tile; blank or blanked = 0). */
static inline int spv_tile_bucket(int num_buckets, const LetterDist *ld, uint8_t tile) {
    if (tile == 0 || RK_IS_BLANKED(tile)) return 0;
    int v = ld->score[RK_LETTER(tile)];
    return v < num_buckets - 1 ? v : num_buckets - 1;
}

/* Row and column of tile i of placement m, and its canonical square: an
 * across tile's own square r*dim+c, a down tile's transposed one c*dim+r. */
static inline int spv_move_square(const Move *m, int i, int dim, int *row, int *col) {
    bool down = m->dir == DIR_DOWN;
    int r = m->row + (down ? i : 0), c = m->col + (down ? 0 : i);
    *row = r;
    *col = c;
    return down ? c * dim + r : r * dim + c;
}

/* Per-tile values (millipoints) for the position: s must fit b
 * (spv_check_board). Fills pv->buckets and, for every square, the buckets of
 * the tiles on `rack` (all buckets if rack is NULL). */
void spv_prepare(const Spv *s, const Board *b, const Rack *rack, int opp_lead, double k, PositionalValues *pv);
/* For the player on turn in g: prepares pv and returns it, or returns NULL
 * if s is NULL or the bag is empty (no adjustment then). */
const PositionalValues *spv_prepare_for_game(const Spv *s, double k, const Game *g, PositionalValues *pv);
/* The adjustment of move m (millipoints) from prepared values: the sum over
 * its fresh tiles; 0 for exchanges and passes. */
int32_t spv_move_adjust(const PositionalValues *pv, const Board *b, const Move *m);

#endif
