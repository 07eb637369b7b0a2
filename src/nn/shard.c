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

int shard_write(const char *path, const ShardSet *set, size_t first, size_t count, const LetterDist *ld, int dim,
                uint32_t generation, RkError *err) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return rk_error(err, "%s: path too long", path);
    size_t sq = (size_t)dim * (size_t)dim, L = (size_t)ld->size, n = count;
    uint64_t np = 0;
    for (size_t i = 0; i < n; i++) np += set->s[first + i].policy_count;
    uint8_t *board = calloc(n * sq + 1, 1), *rack = calloc(n * L + 1, 1), *leave = calloc(n * L + 1, 1);
    uint8_t *small = calloc(n * 5 + 1, 1), *played = calloc(n * PACKED_MOVE_BYTES + 1, 1);
    int16_t *scores = calloc(n * 2 + 1, sizeof *scores);
    uint64_t *game = calloc(n + 1, sizeof *game), *offs = calloc(n + 1, sizeof *offs);
    uint32_t *turn = calloc(n + 1, sizeof *turn), *gen = calloc(n + 1, sizeof *gen);
    int32_t *spread = calloc(n + 1, sizeof *spread);
    float *search = calloc(n + 1, sizeof *search);
    uint8_t *pm = calloc(np * PACKED_MOVE_BYTES + 1, 1);
    float *pp = calloc(np + 1, sizeof *pp);
    uint8_t *bag = small, *opp = small + n, *zeros = small + 2 * n, *known = small + 3 * n;
    int8_t *result = (int8_t *)(small + 4 * n);
    int rc = -1;
    hid_t file = -1;
    if (!board || !rack || !leave || !small || !played || !scores || !game || !offs || !turn || !gen || !spread ||
        !search || !pm || !pp) {
        rk_error(err, "%s: out of memory for %zu samples", path, n);
        goto out;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const ShardSample *s = &set->s[first + i];
        memcpy(board + i * sq, s->pos.board, sq);
        memcpy(rack + i * L, s->pos.rack.count, L);
        memcpy(leave + i * L, s->opp_leave.count, L);
        scores[2 * i] = (int16_t)s->pos.score_self;
        scores[2 * i + 1] = (int16_t)s->pos.score_opp;
        bag[i] = (uint8_t)s->pos.bag;
        opp[i] = (uint8_t)s->pos.opp_tiles;
        zeros[i] = (uint8_t)s->pos.zeros;
        known[i] = s->opp_leave_known;
        result[i] = s->result;
        game[i] = s->game;
        turn[i] = s->turn;
        gen[i] = s->generation;
        spread[i] = s->final_spread;
        search[i] = s->search_spread;
        packed_to_bytes(&s->played, played + i * PACKED_MOVE_BYTES);
        offs[i] = at;
        for (uint32_t j = 0; j < s->policy_count; j++, at++) {
            packed_to_bytes(&set->pmove[s->policy_start + j], pm + at * PACKED_MOVE_BYTES);
            pp[at] = set->pprob[s->policy_start + j];
        }
    }
    offs[n] = at;

    file = h5u_create(tmp, H5F_LIBVER_V18, err);
    if (file < 0) goto out;
    int bad = 0;
    H5E_BEGIN_TRY {
        hsize_t d2[2];
        bad |= h5u_write_attr_int(file, "schema_version", SHARD_SCHEMA_VERSION);
        bad |= h5u_write_attr_int(file, "generation", generation);
        bad |= h5u_write_attr_int(file, "dim", dim);
        bad |= h5u_write_attr_int(file, "letters", ld->size);
        bad |= h5u_write_attr_int(file, "samples", (int64_t)n);
        bad |= h5u_write_attr_int(file, "policy_entries", (int64_t)np);
        bad |= h5u_write_attr_str(file, "distribution", ld->name);
        d2[0] = n, d2[1] = sq;
        bad |= write_dataset(file, "board", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, board);
        d2[1] = L;
        bad |= write_dataset(file, "rack", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, rack);
        bad |= write_dataset(file, "opp_leave", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, leave);
        d2[1] = 2;
        bad |= write_dataset(file, "scores", H5T_STD_I16LE, H5T_NATIVE_INT16, 2, d2, scores);
        d2[1] = PACKED_MOVE_BYTES;
        bad |= write_dataset(file, "played", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, played);
        hsize_t d1 = n;
        bad |= write_dataset(file, "bag", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, bag);
        bad |= write_dataset(file, "opp_tiles", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, opp);
        bad |= write_dataset(file, "zeros", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, zeros);
        bad |= write_dataset(file, "opp_leave_known", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &d1, known);
        bad |= write_dataset(file, "result", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, &d1, result);
        bad |= write_dataset(file, "game", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &d1, game);
        bad |= write_dataset(file, "turn", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &d1, turn);
        bad |= write_dataset(file, "generation", H5T_STD_U32LE, H5T_NATIVE_UINT32, 1, &d1, gen);
        bad |= write_dataset(file, "final_spread", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, &d1, spread);
        bad |= write_dataset(file, "search_spread", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &d1, search);
        d1 = n + 1;
        bad |= write_dataset(file, "policy_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, &d1, offs);
        d2[0] = np, d2[1] = PACKED_MOVE_BYTES;
        bad |= write_dataset(file, "policy_moves", H5T_STD_U8LE, H5T_NATIVE_UINT8, 2, d2, pm);
        d1 = np;
        bad |= write_dataset(file, "policy_probs", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &d1, pp);
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
    free(board), free(rack), free(leave), free(small), free(played), free(scores);
    free(game), free(offs), free(turn), free(gen), free(spread), free(search), free(pm), free(pp);
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

int shard_read(const char *path, ShardSet *set, ShardInfo *info, const LetterDist *ld, int dim, RkError *err) {
    ShardInfo local;
    ShardInfo *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    hid_t file = -1;
    int rc = -1;
    uint8_t *board = NULL, *rack = NULL, *leave = NULL, *small = NULL, *played = NULL, *pm = NULL;
    int16_t *scores = NULL;
    uint64_t *game = NULL, *offs = NULL;
    uint32_t *turn = NULL, *gen = NULL;
    int32_t *spread = NULL;
    float *search = NULL, *pp = NULL;
    file = h5u_open_read(path, err);
    if (file < 0) return -1;
    H5E_BEGIN_TRY {
        int64_t v[6];
        if (h5u_read_attr_int(file, "schema_version", &v[0]) || h5u_read_attr_int(file, "generation", &v[1]) ||
            h5u_read_attr_int(file, "dim", &v[2]) || h5u_read_attr_int(file, "letters", &v[3]) ||
            h5u_read_attr_int(file, "samples", &v[4]) || h5u_read_attr_int(file, "policy_entries", &v[5]) ||
            h5u_read_attr_str(file, "distribution", in->distribution, sizeof in->distribution)) {
            rk_error(err, "%s: not a rookery shard (missing header attributes)", path);
            goto out;
        }
        if (v[0] < 1 || v[0] > SHARD_SCHEMA_VERSION) {
            rk_error(err, "%s: shard schema version %lld, this build reads versions 1 to %d", path, (long long)v[0],
                     SHARD_SCHEMA_VERSION);
            goto out;
        }
        if (v[2] < 1 || v[2] > RK_MAX_DIM || v[3] < 2 || v[3] > RK_MAX_LETTERS || v[4] < 0 || v[5] < 0 ||
            v[1] < 0 || v[1] > UINT32_MAX || v[4] > (INT64_C(1) << 32) || v[5] > (INT64_C(1) << 36)) {
            rk_error(err, "%s: header values out of range", path);
            goto out;
        }
        in->schema_version = (int)v[0];
        in->generation = (uint32_t)v[1];
        in->dim = (int)v[2];
        in->letters = (int)v[3];
        in->samples = (uint64_t)v[4];
        in->policy_entries = (uint64_t)v[5];
        if (ld && in->letters != ld->size) {
            rk_error(err, "%s: %d letters, the distribution has %d", path, in->letters, ld->size);
            goto out;
        }
        if (dim > 0 && in->dim != dim) {
            rk_error(err, "%s: board side %d, expected %d", path, in->dim, dim);
            goto out;
        }
        if (!set) {
            rc = 0;
            goto out;
        }
        if (!ld) {
            rk_error(err, "%s: reading samples needs the letter distribution", path);
            goto out;
        }
        size_t n = in->samples, np = in->policy_entries, sq = (size_t)in->dim * in->dim, L = (size_t)in->letters;
        board = malloc(n * sq + 1), rack = malloc(n * L + 1), leave = malloc(n * L + 1);
        small = malloc(n * 5 + 1), played = malloc(n * PACKED_MOVE_BYTES + 1), pm = malloc(np * PACKED_MOVE_BYTES + 1);
        scores = malloc((n * 2 + 1) * sizeof *scores), game = malloc((n + 1) * sizeof *game);
        offs = malloc((n + 1) * sizeof *offs), turn = malloc((n + 1) * sizeof *turn);
        gen = malloc((n + 1) * sizeof *gen), spread = malloc((n + 1) * sizeof *spread), pp = malloc((np + 1) * sizeof *pp);
        search = malloc((n + 1) * sizeof *search);
        if (!board || !rack || !leave || !small || !played || !pm || !scores || !game || !offs || !turn || !gen ||
            !spread || !search || !pp) {
            rk_error(err, "%s: out of memory for %zu samples", path, n);
            goto out;
        }
        uint8_t *bag = small, *opp = small + n, *zeros = small + 2 * n, *known = small + 3 * n;
        int8_t *result = (int8_t *)(small + 4 * n);
        hsize_t d2[2] = {n, sq}, d1 = n, dn1 = n + 1, dp = np, dpm[2] = {np, PACKED_MOVE_BYTES};
        if (h5u_read_dataset(file, "board", H5T_NATIVE_UINT8, 2, d2, board, path, err)) goto out;
        d2[1] = L;
        if (h5u_read_dataset(file, "rack", H5T_NATIVE_UINT8, 2, d2, rack, path, err)) goto out;
        if (h5u_read_dataset(file, "opp_leave", H5T_NATIVE_UINT8, 2, d2, leave, path, err)) goto out;
        d2[1] = 2;
        if (h5u_read_dataset(file, "scores", H5T_NATIVE_INT16, 2, d2, scores, path, err)) goto out;
        d2[1] = PACKED_MOVE_BYTES;
        if (h5u_read_dataset(file, "played", H5T_NATIVE_UINT8, 2, d2, played, path, err)) goto out;
        if (h5u_read_dataset(file, "bag", H5T_NATIVE_UINT8, 1, &d1, bag, path, err) ||
            h5u_read_dataset(file, "opp_tiles", H5T_NATIVE_UINT8, 1, &d1, opp, path, err) ||
            h5u_read_dataset(file, "zeros", H5T_NATIVE_UINT8, 1, &d1, zeros, path, err) ||
            h5u_read_dataset(file, "opp_leave_known", H5T_NATIVE_UINT8, 1, &d1, known, path, err) ||
            h5u_read_dataset(file, "result", H5T_NATIVE_INT8, 1, &d1, result, path, err) ||
            h5u_read_dataset(file, "game", H5T_NATIVE_UINT64, 1, &d1, game, path, err) ||
            h5u_read_dataset(file, "turn", H5T_NATIVE_UINT32, 1, &d1, turn, path, err) ||
            h5u_read_dataset(file, "generation", H5T_NATIVE_UINT32, 1, &d1, gen, path, err) ||
            h5u_read_dataset(file, "final_spread", H5T_NATIVE_INT32, 1, &d1, spread, path, err) ||
            h5u_read_dataset(file, "policy_offsets", H5T_NATIVE_UINT64, 1, &dn1, offs, path, err) ||
            h5u_read_dataset(file, "policy_moves", H5T_NATIVE_UINT8, 2, dpm, pm, path, err) ||
            h5u_read_dataset(file, "policy_probs", H5T_NATIVE_FLOAT, 1, &dp, pp, path, err))
            goto out;
        if (in->schema_version >= 2) {
            if (h5u_read_dataset(file, "search_spread", H5T_NATIVE_FLOAT, 1, &d1, search, path, err)) goto out;
        } else if (H5Lexists(file, "search_spread", H5P_DEFAULT) != 0) {
            rk_error(err, "%s: schema version 1 with a 'search_spread' dataset (version 2's): a mislabelled shard", path);
            goto out;
        } else {
            for (size_t i = 0; i < n; i++) search[i] = NAN; /* version 1: no search estimates */
        }
        static const char *const datasets[] = {
            "board", "rack", "opp_leave", "scores", "bag", "opp_tiles", "zeros", "game", "turn", "generation",
            "final_spread", "result", "search_spread", "opp_leave_known", "played", "policy_offsets", "policy_moves",
            "policy_probs"};
        if (h5u_check_chunk_overlap(file, datasets, (int)(sizeof datasets / sizeof datasets[0])) != 0) {
            /* a damaged chunk index that each dataset's own check cannot see (h5util.h) */
            rk_error(err, "%s: corrupt chunk index (datasets' chunks overlap)", path);
            goto out;
        }
        /* validate everything before anything is appended */
        if (offs[0] != 0 || offs[n] != np) {
            rk_error(err, "%s: policy_offsets do not span policy_moves", path);
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            if (offs[i + 1] < offs[i] || offs[i + 1] - offs[i] > UINT32_MAX) {
                rk_error(err, "%s: policy_offsets decrease at sample %zu", path, i);
                goto out;
            }
        }
        for (size_t j = 0; j < np; j++) {
            PackedMove m;
            packed_from_bytes(&m, pm + j * PACKED_MOVE_BYTES);
            if (check_packed(&m, ld, in->dim) != 0 || !isfinite(pp[j]) || pp[j] < 0.0f || pp[j] > 1.0f + 1e-4f) {
                rk_error(err, "%s: policy entry %zu is invalid", path, j);
                goto out;
            }
        }
        size_t base = set->n, base_np = set->np;
        for (size_t i = 0; i < n; i++) {
            ShardSample s;
            memset(&s, 0, sizeof s);
            s.pos.dim = in->dim;
            memcpy(s.pos.board, board + i * sq, sq);
            memcpy(s.pos.rack.count, rack + i * L, L);
            rack_total(&s.pos.rack);
            memcpy(s.opp_leave.count, leave + i * L, L);
            rack_total(&s.opp_leave);
            s.pos.score_self = scores[2 * i];
            s.pos.score_opp = scores[2 * i + 1];
            s.pos.bag = bag[i];
            s.pos.opp_tiles = opp[i];
            s.pos.zeros = zeros[i];
            s.opp_leave_known = known[i];
            s.result = result[i];
            s.game = game[i];
            s.turn = turn[i];
            s.generation = gen[i];
            s.final_spread = spread[i];
            s.search_spread = search[i];
            packed_from_bytes(&s.played, played + i * PACKED_MOVE_BYTES);
            RkError perr;
            Rack unseen;
            bool bad_position = position_check(&s.pos, ld, in->dim, &perr) != 0;
            bool bad_search = !shard_spread_estimate_ok(s.search_spread);
            if (bad_position || check_packed(&s.played, ld, in->dim) != 0 || s.result < -1 || s.result > 1 ||
                bad_search || known[i] > 1 || s.opp_leave.total > RK_RACK_SIZE || position_unseen(&s.pos, ld, &unseen) != 0) {
                set->n = base, set->np = base_np; /* drop what this file added */
                rk_error(err, "%s: sample %zu is invalid (%s)", path, i, bad_position ? perr.msg : "targets out of range");
                goto out;
            }
            for (int l = 0; l < in->letters; l++)
                if (s.opp_leave.count[l] > unseen.count[l]) {
                    set->n = base, set->np = base_np;
                    rk_error(err, "%s: sample %zu: the opponent's leave is not in the unseen pool", path, i);
                    goto out;
                }
            PackedMove *moves = malloc((offs[i + 1] - offs[i] + 1) * sizeof *moves);
            if (!moves) {
                set->n = base, set->np = base_np;
                rk_error(err, "%s: out of memory", path);
                goto out;
            }
            for (uint64_t j = offs[i]; j < offs[i + 1]; j++)
                packed_from_bytes(&moves[j - offs[i]], pm + j * PACKED_MOVE_BYTES);
            shardset_add(set, &s, moves, pp + offs[i], (uint32_t)(offs[i + 1] - offs[i]));
            free(moves);
        }
        rc = 0;
    out:;
    }
    H5E_END_TRY;
    if (file >= 0) H5Fclose(file);
    free(board), free(rack), free(leave), free(small), free(played), free(pm), free(scores);
    free(game), free(offs), free(turn), free(gen), free(spread), free(search), free(pp);
    return rc;
}
