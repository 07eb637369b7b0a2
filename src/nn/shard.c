/*
 * shard.c - sample sets, their byte form between ranks, and HDF5 shards
 * (see shard.h and docs/shards.md).
 */
#include "shard.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5util.h"

/* ---------------------------------------------------------------- sets */

void shardset_init(ShardSet *set) { memset(set, 0, sizeof *set); }

void shardset_free(ShardSet *set) {
    free(set->s);
    free(set->pmove);
    free(set->pprob);
    memset(set, 0, sizeof *set);
}

void shardset_clear(ShardSet *set) { set->n = set->np = 0; }

/* Shards grow or the process stops: a half-recorded sample set is no use. */
static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
    if (rk_grow(&p, cap, need, elem) != 0) {
        fprintf(stderr, "shard: out of memory (%zu elements of %zu bytes)\n", need, elem);
        abort();
    }
    return p;
}

void shardset_add(ShardSet *set, const ShardSample *sample, const PackedMove *moves, const float *probs,
                  uint32_t count) {
    size_t cap = set->pcap;
    set->pmove = grow(set->pmove, &cap, set->np + count, sizeof *set->pmove);
    cap = set->pcap;
    set->pprob = grow(set->pprob, &cap, set->np + count, sizeof *set->pprob);
    set->pcap = cap;
    set->s = grow(set->s, &set->cap, set->n + 1, sizeof *set->s);
    ShardSample *x = &set->s[set->n++];
    *x = *sample;
    x->policy_start = set->np;
    x->policy_count = count;
    if (count) {
        memcpy(set->pmove + set->np, moves, count * sizeof *moves);
        memcpy(set->pprob + set->np, probs, count * sizeof *probs);
    }
    set->np += count;
}

void shardset_append(ShardSet *set, const ShardSet *src) {
    for (size_t i = 0; i < src->n; i++) {
        const ShardSample *x = &src->s[i];
        shardset_add(set, x, src->pmove + x->policy_start, src->pprob + x->policy_start, x->policy_count);
    }
}

static int cmp_sample(const void *pa, const void *pb) {
    const ShardSample *a = pa, *b = pb;
    if (a->game != b->game) return a->game < b->game ? -1 : 1;
    if (a->turn != b->turn) return a->turn < b->turn ? -1 : 1;
    return 0;
}

void shardset_sort(ShardSet *set) { qsort(set->s, set->n, sizeof *set->s, cmp_sample); }

void shardset_link_last_moves(ShardSet *set) {
    for (size_t i = 0; i < set->n; i++) {
        ShardSample *s = &set->s[i];
        const ShardSample *prev = i > 0 ? &set->s[i - 1] : NULL;
        s->pos.last_known = false;
        if (prev == NULL || prev->game != s->game || prev->generation != s->generation || prev->turn + 1 != s->turn)
            continue;
        /* the opponent's score now, less theirs before their move */
        position_set_last(&s->pos, &prev->played, prev->pos.board, s->pos.score_opp - prev->pos.score_self);
    }
}

/* ---------------------------------------------------------------- bytes */

typedef struct Buf {
    uint8_t *p;
    size_t len, cap;
} Buf;

static void put(Buf *b, const void *data, size_t n) {
    b->p = grow(b->p, &b->cap, b->len + n, 1);
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

typedef struct Cur {
    const uint8_t *p;
    size_t len, at;
    bool bad;
} Cur;

static void get(Cur *c, void *out, size_t n) {
    if (c->bad || c->len - c->at < n) {
        c->bad = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, c->p + c->at, n);
    c->at += n;
}

#define PACK_MAGIC 0x32534b52u /* "RKS2": the samples' byte form with search_spread (was "RKSS") */

static void put_sample(Buf *b, const ShardSample *s) {
    uint8_t dim = (uint8_t)s->pos.dim, pm[PACKED_MOVE_BYTES];
    put(b, &dim, 1);
    put(b, s->pos.board, (size_t)dim * dim);
    put(b, s->pos.rack.count, RK_MAX_LETTERS);
    int32_t ints[9] = {s->pos.score_self, s->pos.score_opp, s->pos.bag, s->pos.opp_tiles, s->pos.zeros,
                       (int32_t)s->generation, (int32_t)s->turn, s->final_spread, s->result};
    put(b, ints, sizeof ints);
    put(b, &s->game, sizeof s->game);
    put(b, &s->opp_leave_known, 1);
    put(b, s->opp_leave.count, RK_MAX_LETTERS);
    packed_to_bytes(&s->played, pm);
    put(b, pm, sizeof pm);
    put(b, &s->policy_count, sizeof s->policy_count);
    put(b, &s->search_spread, sizeof s->search_spread);
}

int shardset_pack(const ShardSet *set, uint8_t **out, size_t *len, RkError *err) {
    (void)err;
    Buf b = {0};
    uint32_t magic = PACK_MAGIC;
    uint64_t n = set->n;
    put(&b, &magic, sizeof magic);
    put(&b, &n, sizeof n);
    for (size_t i = 0; i < set->n; i++) {
        const ShardSample *s = &set->s[i];
        put_sample(&b, s);
        for (uint32_t j = 0; j < s->policy_count; j++) {
            uint8_t pm[PACKED_MOVE_BYTES];
            packed_to_bytes(&set->pmove[s->policy_start + j], pm);
            put(&b, pm, sizeof pm);
            put(&b, &set->pprob[s->policy_start + j], sizeof(float));
        }
    }
    *out = b.p;
    *len = b.len;
    return 0;
}

static void rack_total(Rack *r) {
    r->total = 0;
    for (int l = 0; l < RK_MAX_LETTERS; l++) r->total += r->count[l];
}

int shardset_unpack_append(ShardSet *set, const uint8_t *buf, size_t len, RkError *err) {
    Cur c = {buf, len, 0, false};
    uint32_t magic = 0;
    uint64_t n = 0;
    get(&c, &magic, sizeof magic);
    get(&c, &n, sizeof n);
    if (c.bad || magic != PACK_MAGIC) return rk_error(err, "samples from a peer rank: bad header (a rank of another rookery build?)");
    size_t base = set->n, base_np = set->np;
    PackedMove *moves = NULL;
    float *probs = NULL;
    size_t mcap = 0, pcap = 0;
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        ShardSample s;
        memset(&s, 0, sizeof s);
        uint8_t dim = 0, pm[PACKED_MOVE_BYTES];
        get(&c, &dim, 1);
        if (dim == 0 || dim > RK_MAX_DIM) {
            c.bad = true;
            break;
        }
        s.pos.dim = dim;
        get(&c, s.pos.board, (size_t)dim * dim);
        get(&c, s.pos.rack.count, RK_MAX_LETTERS);
        rack_total(&s.pos.rack);
        int32_t ints[9];
        get(&c, ints, sizeof ints);
        s.pos.score_self = ints[0], s.pos.score_opp = ints[1], s.pos.bag = ints[2];
        s.pos.opp_tiles = ints[3], s.pos.zeros = ints[4];
        s.generation = (uint32_t)ints[5], s.turn = (uint32_t)ints[6], s.final_spread = ints[7];
        s.result = (int8_t)ints[8];
        get(&c, &s.game, sizeof s.game);
        get(&c, &s.opp_leave_known, 1);
        get(&c, s.opp_leave.count, RK_MAX_LETTERS);
        rack_total(&s.opp_leave);
        get(&c, pm, sizeof pm);
        packed_from_bytes(&s.played, pm);
        uint32_t count = 0;
        get(&c, &count, sizeof count);
        get(&c, &s.search_spread, sizeof s.search_spread);
        if (c.bad || !shard_spread_estimate_ok(s.search_spread) ||
            count > (len - c.at) / (PACKED_MOVE_BYTES + sizeof(float))) {
            c.bad = true;
            break;
        }
        moves = grow(moves, &mcap, count ? count : 1, sizeof *moves);
        probs = grow(probs, &pcap, count ? count : 1, sizeof *probs);
        for (uint32_t j = 0; j < count; j++) {
            get(&c, pm, sizeof pm);
            packed_from_bytes(&moves[j], pm);
            get(&c, &probs[j], sizeof(float));
        }
        if (!c.bad) shardset_add(set, &s, moves, probs, count);
    }
    free(moves);
    free(probs);
    if (c.bad || c.at != len) {
        set->n = base, set->np = base_np; /* all or nothing */
        return rk_error(err, "samples from a peer rank: truncated or malformed");
    }
    return 0;
}

/* ---------------------------------------------------------------- HDF5 */

#define CHUNK_ROWS 4096

/* One dataset: dims[0] rows of dims[1..] (rank 1 or 2), chunked with
 * shuffle + deflate + a Fletcher-32 checksum (so a damaged chunk is an error,
 * not silent garbage) when it has rows (h5util.h). */
static int write_dataset(hid_t file, const char *name, hid_t filetype, hid_t memtype, int rank,
                         const hsize_t *dims, const void *data) {
    hsize_t chunk[2] = {dims[0] < CHUNK_ROWS ? dims[0] : CHUNK_ROWS, rank > 1 ? dims[1] : 1};
    if (rank > 1 && chunk[1] == 0) chunk[1] = 1;
    return h5u_write_dataset(file, name, filetype, memtype, rank, dims, dims[0] > 0 ? chunk : NULL, data);
}

/* The columns of a shard's samples, as its datasets hold them (docs/shards.md): filled from
 * a set and written whole, or read whole, validated, then turned into samples. */
typedef struct ShardColumns {
    size_t n, np, sq, L; /* samples, policy entries, squares, letters */
    uint8_t *board, *rack, *leave, *small, *played, *pm;
    uint8_t *bag, *opp, *zeros, *known; /* slices of small */
    int8_t *result;                     /* the last slice of small */
    int16_t *scores;
    uint64_t *game, *offs;
    uint32_t *turn, *gen;
    int32_t *spread;
    float *search, *pp;
} ShardColumns;

static void columns_free(ShardColumns *c) {
    free(c->board), free(c->rack), free(c->leave), free(c->small), free(c->played), free(c->pm), free(c->scores);
    free(c->game), free(c->offs), free(c->turn), free(c->gen), free(c->spread), free(c->search), free(c->pp);
}

/* Samples first.. of set (c->n of them) into the columns, each sample's policy entries
 * after the previous one's (c->offs). */
static void columns_from_set(ShardColumns *c, const ShardSet *set, size_t first) {
    size_t sq = c->sq, L = c->L;
    uint64_t at = 0;
    for (size_t i = 0; i < c->n; i++) {
        const ShardSample *s = &set->s[first + i];
        memcpy(c->board + i * sq, s->pos.board, sq);
        memcpy(c->rack + i * L, s->pos.rack.count, L);
        memcpy(c->leave + i * L, s->opp_leave.count, L);
        c->scores[2 * i] = (int16_t)s->pos.score_self;
        c->scores[2 * i + 1] = (int16_t)s->pos.score_opp;
        c->bag[i] = (uint8_t)s->pos.bag;
        c->opp[i] = (uint8_t)s->pos.opp_tiles;
        c->zeros[i] = (uint8_t)s->pos.zeros;
        c->known[i] = s->opp_leave_known;
        c->result[i] = s->result;
        c->game[i] = s->game;
        c->turn[i] = s->turn;
        c->gen[i] = s->generation;
        c->spread[i] = s->final_spread;
        c->search[i] = s->search_spread;
        packed_to_bytes(&s->played, c->played + i * PACKED_MOVE_BYTES);
        c->offs[i] = at;
        for (uint32_t j = 0; j < s->policy_count; j++, at++) {
            packed_to_bytes(&set->pmove[s->policy_start + j], c->pm + at * PACKED_MOVE_BYTES);
            c->pp[at] = set->pprob[s->policy_start + j];
        }
    }
    c->offs[c->n] = at;
}

/* The header's attributes and every dataset (HDF5 errors silenced by the caller); nonzero
 * if any write failed. */
static int write_columns(hid_t file, const ShardColumns *c, const LetterDist *ld, int dim, uint32_t generation) {
    size_t n = c->n;
    uint64_t np = c->np;
    int bad = 0;
    hsize_t d2[2];
    bad |= h5u_write_attr_int(file, "schema_version", SHARD_SCHEMA_VERSION);
    bad |= h5u_write_attr_int(file, "generation", generation);
    bad |= h5u_write_attr_int(file, "dim", dim);
    bad |= h5u_write_attr_int(file, "letters", ld->size);
    bad |= h5u_write_attr_int(file, "samples", (int64_t)n);
    bad |= h5u_write_attr_int(file, "policy_entries", (int64_t)np);
    bad |= h5u_write_attr_str(file, "distribution", ld->name);
    d2[0] = n, d2[1] = c->sq;
    bad |= write_dataset(file, "board", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, c->board);
    d2[1] = c->L;
    bad |= write_dataset(file, "rack", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, c->rack);
    bad |= write_dataset(file, "opp_leave", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, c->leave);
    d2[1] = 2;
    bad |= write_dataset(file, "scores", H5T_STD_I16LE, H5T_NATIVE_INT16, 2, d2, c->scores);
    d2[1] = PACKED_MOVE_BYTES;
    bad |= write_dataset(file, "played", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, c->played);
    hsize_t d1 = n;
    bad |= write_dataset(file, "bag", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, c->bag);
    bad |= write_dataset(file, "opp_tiles", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, c->opp);
    bad |= write_dataset(file, "zeros", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, c->zeros);
    bad |= write_dataset(file, "opp_leave_known", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, c->known);
    bad |= write_dataset(file, "result", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, &d1, c->result);
    bad |= write_dataset(file, "game", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &d1, c->game);
    bad |= write_dataset(file, "turn", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &d1, c->turn);
    bad |= write_dataset(file, "generation", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &d1, c->gen);
    bad |= write_dataset(file, "final_spread", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d1, c->spread);
    bad |= write_dataset(file, "search_spread", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &d1, c->search);
    d1 = n + 1;
    bad |= write_dataset(file, "policy_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &d1, c->offs);
    d2[0] = np, d2[1] = PACKED_MOVE_BYTES;
    bad |= write_dataset(file, "policy_moves", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, c->pm);
    d1 = np;
    bad |= write_dataset(file, "policy_probs", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &d1, c->pp);
    return bad;
}

int shard_write(const char *path, const ShardSet *set, size_t first, size_t count, const LetterDist *ld, int dim,
                uint32_t generation, RkError *err) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return rk_error(err, "%s: path too long", path);
    size_t sq = (size_t)dim * (size_t)dim, L = (size_t)ld->size, n = count;
    uint64_t np = 0;
    for (size_t i = 0; i < n; i++) np += set->s[first + i].policy_count;
    ShardColumns c = {.n = n, .np = np, .sq = sq, .L = L};
    c.board = calloc(n * sq + 1, 1), c.rack = calloc(n * L + 1, 1), c.leave = calloc(n * L + 1, 1);
    c.small = calloc(n * 5 + 1, 1), c.played = calloc(n * PACKED_MOVE_BYTES + 1, 1);
    c.scores = calloc(n * 2 + 1, sizeof *c.scores);
    c.game = calloc(n + 1, sizeof *c.game), c.offs = calloc(n + 1, sizeof *c.offs);
    c.turn = calloc(n + 1, sizeof *c.turn), c.gen = calloc(n + 1, sizeof *c.gen);
    c.spread = calloc(n + 1, sizeof *c.spread);
    c.search = calloc(n + 1, sizeof *c.search);
    c.pm = calloc(np * PACKED_MOVE_BYTES + 1, 1);
    c.pp = calloc(np + 1, sizeof *c.pp);
    c.bag = c.small, c.opp = c.small + n, c.zeros = c.small + 2 * n, c.known = c.small + 3 * n;
    c.result = (int8_t *)(c.small + 4 * n);
    int rc = -1;
    hid_t file = -1;
    if (!c.board || !c.rack || !c.leave || !c.small || !c.played || !c.scores || !c.game || !c.offs || !c.turn ||
        !c.gen || !c.spread || !c.search || !c.pm || !c.pp) {
        rk_error(err, "%s: out of memory for %zu samples", path, n);
        goto out;
    }
    columns_from_set(&c, set, first);

    file = h5u_create(tmp, H5F_LIBVER_V18, err);
    if (file < 0) goto out;
    int bad = 0;
    H5E_BEGIN_TRY {
        bad = write_columns(file, &c, ld, dim, generation);
        if (H5Fclose(file) < 0) bad = 1;
        file = -1;
    }
    H5E_END_TRY;
    if (bad) {
        rk_error(err, "%s: writing the shard failed (disk full?)", tmp);
        unlink(tmp);
        goto out;
    }
    if (h5u_commit(tmp, path, err) != 0) goto out;
    rc = 0;
out:
    columns_free(&c);
    return rc;
}

/* ---------------------------------------------------------------- reading */

static int check_packed(const PackedMove *pm, const LetterDist *ld, int dim) {
    if (pm->kind > MOVE_PASS || pm->n > RK_RACK_SIZE) return -1;
    if (pm->kind == MOVE_PASS) return pm->n == 0 ? 0 : -1;
    if (pm->n == 0) return -1;
    if (pm->kind == MOVE_PLACE && (pm->dir > 1 || pm->row >= dim || pm->col >= dim)) return -1;
    for (int i = 0; i < pm->n; i++) {
        uint8_t t = pm->tiles[i];
        if (pm->kind == MOVE_EXCHANGE ? t >= ld->size : (RK_LETTER(t) == 0 || RK_LETTER(t) >= ld->size || (t & 0x40u)))
            return -1;
    }
    return 0;
}

/* The header's attributes into *in, checked against this build, the distribution and the board. */
static int read_header(hid_t file, const char *path, ShardInfo *in, const LetterDist *ld, int dim, RkError *err) {
    int64_t v[6];
    if (h5u_read_attr_int(file, "schema_version", &v[0]) || h5u_read_attr_int(file, "generation", &v[1]) ||
        h5u_read_attr_int(file, "dim", &v[2]) || h5u_read_attr_int(file, "letters", &v[3]) ||
        h5u_read_attr_int(file, "samples", &v[4]) || h5u_read_attr_int(file, "policy_entries", &v[5]) ||
        h5u_read_attr_str(file, "distribution", in->distribution, sizeof in->distribution))
        return rk_error(err, "%s: not a rookery shard (missing header attributes)", path);
    if (v[0] < 1 || v[0] > SHARD_SCHEMA_VERSION)
        return rk_error(err, "%s: shard schema version %lld, this build reads versions 1 to %d", path, (long long)v[0],
                        SHARD_SCHEMA_VERSION);
    if (v[2] < 1 || v[2] > RK_MAX_DIM || v[3] < 2 || v[3] > RK_MAX_LETTERS || v[4] < 0 || v[5] < 0 || v[1] < 0 ||
        v[1] > UINT32_MAX || v[4] > (INT64_C(1) << 32) || v[5] > (INT64_C(1) << 36))
        return rk_error(err, "%s: header values out of range", path);
    in->schema_version = (int)v[0];
    in->generation = (uint32_t)v[1];
    in->dim = (int)v[2];
    in->letters = (int)v[3];
    in->samples = (uint64_t)v[4];
    in->policy_entries = (uint64_t)v[5];
    if (ld && in->letters != ld->size)
        return rk_error(err, "%s: %d letters, the distribution has %d", path, in->letters, ld->size);
    if (dim > 0 && in->dim != dim) return rk_error(err, "%s: board side %d, expected %d", path, in->dim, dim);
    return 0;
}

static int columns_alloc(ShardColumns *c, const ShardInfo *in, const char *path, RkError *err) {
    size_t n = in->samples, np = in->policy_entries, sq = (size_t)in->dim * in->dim, L = (size_t)in->letters;
    c->n = n, c->np = np, c->sq = sq, c->L = L;
    c->board = malloc(n * sq + 1), c->rack = malloc(n * L + 1), c->leave = malloc(n * L + 1);
    c->small = malloc(n * 5 + 1), c->played = malloc(n * PACKED_MOVE_BYTES + 1);
    c->pm = malloc(np * PACKED_MOVE_BYTES + 1);
    c->scores = malloc((n * 2 + 1) * sizeof *c->scores), c->game = malloc((n + 1) * sizeof *c->game);
    c->offs = malloc((n + 1) * sizeof *c->offs), c->turn = malloc((n + 1) * sizeof *c->turn);
    c->gen = malloc((n + 1) * sizeof *c->gen), c->spread = malloc((n + 1) * sizeof *c->spread);
    c->pp = malloc((np + 1) * sizeof *c->pp);
    c->search = malloc((n + 1) * sizeof *c->search);
    if (!c->board || !c->rack || !c->leave || !c->small || !c->played || !c->pm || !c->scores || !c->game ||
        !c->offs || !c->turn || !c->gen || !c->spread || !c->search || !c->pp)
        return rk_error(err, "%s: out of memory for %zu samples", path, n);
    c->bag = c->small, c->opp = c->small + n, c->zeros = c->small + 2 * n, c->known = c->small + 3 * n;
    c->result = (int8_t *)(c->small + 4 * n);
    return 0;
}

/* Every dataset into the columns (search_spread by schema version), and the chunk index checked. */
static int read_columns(hid_t file, const char *path, const ShardInfo *in, ShardColumns *c, RkError *err) {
    size_t n = c->n, np = c->np;
    hsize_t d2[2] = {n, c->sq}, d1 = n, dn1 = n + 1, dp = np, dpm[2] = {np, PACKED_MOVE_BYTES};
    if (h5u_read_dataset(file, "board", H5T_NATIVE_UINT8, 2, d2, c->board, path, err)) return -1;
    d2[1] = c->L;
    if (h5u_read_dataset(file, "rack", H5T_NATIVE_UINT8, 2, d2, c->rack, path, err)) return -1;
    if (h5u_read_dataset(file, "opp_leave", H5T_NATIVE_UINT8, 2, d2, c->leave, path, err)) return -1;
    d2[1] = 2;
    if (h5u_read_dataset(file, "scores", H5T_NATIVE_INT16, 2, d2, c->scores, path, err)) return -1;
    d2[1] = PACKED_MOVE_BYTES;
    if (h5u_read_dataset(file, "played", H5T_NATIVE_UINT8, 2, d2, c->played, path, err)) return -1;
    if (h5u_read_dataset(file, "bag", H5T_NATIVE_UINT8, 1, &d1, c->bag, path, err) ||
        h5u_read_dataset(file, "opp_tiles", H5T_NATIVE_UINT8, 1, &d1, c->opp, path, err) ||
        h5u_read_dataset(file, "zeros", H5T_NATIVE_UINT8, 1, &d1, c->zeros, path, err) ||
        h5u_read_dataset(file, "opp_leave_known", H5T_NATIVE_UINT8, 1, &d1, c->known, path, err) ||
        h5u_read_dataset(file, "result", H5T_NATIVE_INT8, 1, &d1, c->result, path, err) ||
        h5u_read_dataset(file, "game", H5T_NATIVE_UINT64, 1, &d1, c->game, path, err) ||
        h5u_read_dataset(file, "turn", H5T_NATIVE_UINT32, 1, &d1, c->turn, path, err) ||
        h5u_read_dataset(file, "generation", H5T_NATIVE_UINT32, 1, &d1, c->gen, path, err) ||
        h5u_read_dataset(file, "final_spread", H5T_NATIVE_INT32, 1, &d1, c->spread, path, err) ||
        h5u_read_dataset(file, "policy_offsets", H5T_NATIVE_UINT64, 1, &dn1, c->offs, path, err) ||
        h5u_read_dataset(file, "policy_moves", H5T_NATIVE_UINT8, 2, dpm, c->pm, path, err) ||
        h5u_read_dataset(file, "policy_probs", H5T_NATIVE_FLOAT, 1, &dp, c->pp, path, err))
        return -1;
    if (in->schema_version >= 2) {
        if (h5u_read_dataset(file, "search_spread", H5T_NATIVE_FLOAT, 1, &d1, c->search, path, err)) return -1;
    } else if (H5Lexists(file, "search_spread", H5P_DEFAULT) != 0) {
        return rk_error(err, "%s: schema version 1 with a 'search_spread' dataset (version 2's): a mislabelled shard",
                        path);
    } else {
        for (size_t i = 0; i < n; i++) c->search[i] = NAN; /* version 1: no search estimates */
    }
    static const char *const datasets[] = {
        "board", "rack", "opp_leave", "scores", "bag", "opp_tiles", "zeros", "game", "turn", "generation",
        "final_spread", "result", "search_spread", "opp_leave_known", "played", "policy_offsets", "policy_moves",
        "policy_probs"};
    if (h5u_check_chunk_overlap(file, datasets, (int)(sizeof datasets / sizeof datasets[0])) != 0) {
        /* a damaged chunk index that each dataset's own check cannot see (h5util.h) */
        return rk_error(err, "%s: corrupt chunk index (datasets' chunks overlap)", path);
    }
    return 0;
}

/* The policy columns: offsets that span the entries in order, every entry a valid move and probability. */
static int check_policy(const ShardColumns *c, const char *path, const LetterDist *ld, int dim, RkError *err) {
    size_t n = c->n, np = c->np;
    if (c->offs[0] != 0 || c->offs[n] != np) return rk_error(err, "%s: policy_offsets do not span policy_moves", path);
    for (size_t i = 0; i < n; i++) {
        if (c->offs[i + 1] < c->offs[i] || c->offs[i + 1] - c->offs[i] > UINT32_MAX)
            return rk_error(err, "%s: policy_offsets decrease at sample %zu", path, i);
    }
    for (size_t j = 0; j < np; j++) {
        PackedMove m;
        packed_from_bytes(&m, c->pm + j * PACKED_MOVE_BYTES);
        if (check_packed(&m, ld, dim) != 0 || !isfinite(c->pp[j]) || c->pp[j] < 0.0f || c->pp[j] > 1.0f + 1e-4f)
            return rk_error(err, "%s: policy entry %zu is invalid", path, j);
    }
    return 0;
}

/* Row i of the columns as a sample (its policy entries aside). */
static void column_sample(const ShardColumns *c, size_t i, int dim, ShardSample *s) {
    size_t sq = c->sq, L = c->L;
    memset(s, 0, sizeof *s);
    s->pos.dim = dim;
    memcpy(s->pos.board, c->board + i * sq, sq);
    memcpy(s->pos.rack.count, c->rack + i * L, L);
    rack_total(&s->pos.rack);
    memcpy(s->opp_leave.count, c->leave + i * L, L);
    rack_total(&s->opp_leave);
    s->pos.score_self = c->scores[2 * i];
    s->pos.score_opp = c->scores[2 * i + 1];
    s->pos.bag = c->bag[i];
    s->pos.opp_tiles = c->opp[i];
    s->pos.zeros = c->zeros[i];
    s->opp_leave_known = c->known[i];
    s->result = c->result[i];
    s->game = c->game[i];
    s->turn = c->turn[i];
    s->generation = c->gen[i];
    s->final_spread = c->spread[i];
    s->search_spread = c->search[i];
    packed_from_bytes(&s->played, c->played + i * PACKED_MOVE_BYTES);
}

/* Each row checked, then appended with its policy entries; on an invalid row, what this file
 * added is dropped. */
static int append_samples(ShardSet *set, const ShardColumns *c, const ShardInfo *in, const char *path,
                          const LetterDist *ld, RkError *err) {
    size_t base = set->n, base_np = set->np;
    const uint64_t *offs = c->offs;
    for (size_t i = 0; i < c->n; i++) {
        ShardSample s;
        column_sample(c, i, in->dim, &s);
        RkError perr;
        Rack unseen;
        bool bad_position = position_check(&s.pos, ld, in->dim, &perr) != 0;
        bool bad_search = !shard_spread_estimate_ok(s.search_spread);
        if (bad_position || check_packed(&s.played, ld, in->dim) != 0 || s.result < -1 || s.result > 1 || bad_search ||
            c->known[i] > 1 || s.opp_leave.total > RK_RACK_SIZE || position_unseen(&s.pos, ld, &unseen) != 0) {
            set->n = base, set->np = base_np; /* drop what this file added */
            return rk_error(err, "%s: sample %zu is invalid (%s)", path, i,
                            bad_position ? perr.msg : "targets out of range");
        }
        for (int l = 0; l < in->letters; l++)
            if (s.opp_leave.count[l] > unseen.count[l]) {
                set->n = base, set->np = base_np;
                return rk_error(err, "%s: sample %zu: the opponent's leave is not in the unseen pool", path, i);
            }
        PackedMove *moves = malloc((offs[i + 1] - offs[i] + 1) * sizeof *moves);
        if (!moves) {
            set->n = base, set->np = base_np;
            return rk_error(err, "%s: out of memory", path);
        }
        for (uint64_t j = offs[i]; j < offs[i + 1]; j++)
            packed_from_bytes(&moves[j - offs[i]], c->pm + j * PACKED_MOVE_BYTES);
        shardset_add(set, &s, moves, c->pp + offs[i], (uint32_t)(offs[i + 1] - offs[i]));
        free(moves);
    }
    return 0;
}

int shard_read(const char *path, ShardSet *set, ShardInfo *info, const LetterDist *ld, int dim, RkError *err) {
    ShardInfo local;
    ShardInfo *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    int rc = -1;
    ShardColumns cols;
    memset(&cols, 0, sizeof cols);
    hid_t file = h5u_open_read(path, err);
    if (file < 0) return -1;
    H5E_BEGIN_TRY {
        if (read_header(file, path, in, ld, dim, err) != 0) goto out;
        if (!set) {
            rc = 0;
            goto out;
        }
        if (!ld) {
            rk_error(err, "%s: reading samples needs the letter distribution", path);
            goto out;
        }
        /* validate everything before anything is appended */
        if (columns_alloc(&cols, in, path, err) != 0 || read_columns(file, path, in, &cols, err) != 0 ||
            check_policy(&cols, path, ld, in->dim, err) != 0 || append_samples(set, &cols, in, path, ld, err) != 0)
            goto out;
        rc = 0;
    out:;
    }
    H5E_END_TRY;
    if (file >= 0) H5Fclose(file);
    columns_free(&cols);
    return rc;
}
