/* Compact positions, packed moves, the policy's decomposition and masks, and
 * HDF5 training shards: round trips against real self-play positions,
 * masks against a brute force over the legal list, byte-identical rewrites,
 * and corrupt, truncated and mismatched files refused with a message. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/layout.h"
#include "nn/policy.h"
#include "nn/shard.h"
#include "nn/shard_stats.h"
#include "testutil.h"
#include "worker/samples.h"
#include "worker/selfplay.h"

typedef struct World {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
} World;

static bool world_open(World *w) {
    ld_english(&w->ld);
    layout_standard15(&w->lay);
    return tu_load_sowpods(&w->kwg, &w->ld);
}

/* ---- positions and packed moves, on every position of a few games ---- */

typedef struct Check {
    World *w;
    MoveList all;
    NnLegal legal;
    NnPolicyShape ps;
    int positions, moves;
} Check;

static void check_position(const Game *g, const Move *played, void *vctx) {
    Check *c = vctx;
    Position p;
    position_from_game(&p, g);
    RkError err;
    CU_ASSERT_EQUAL(position_check(&p, &c->w->ld, 15, &err), 0);
    Board b;
    position_board(&p, &c->w->lay, &c->w->ld, &c->w->kwg, &b);
    /* the rebuilt board has the same tiles, cross-sets and anchors */
    CU_ASSERT_EQUAL(memcmp(b.sq, g->board.sq, sizeof b.sq), 0);
    CU_ASSERT_EQUAL(memcmp(b.cross, g->board.cross, sizeof b.cross), 0);
    CU_ASSERT_EQUAL(memcmp(b.anchor, g->board.anchor, sizeof b.anchor), 0);
    Rack unseen, want;
    CU_ASSERT_EQUAL(position_unseen(&p, &c->w->ld, &unseen), 0);
    game_unseen(g, &want);
    CU_ASSERT_TRUE(rack_equal(&unseen, &want));

    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    movegen_all(&req, &c->all);
    nn_legal_build(&c->legal, &c->ps, &c->all, &b, false);
    CU_ASSERT_EQUAL((size_t)c->legal.n, c->all.count);
    uint8_t *sub = malloc((size_t)c->ps.submoves);
    nn_legal_submove_mask(&c->legal, &c->ps, sub);
    for (size_t i = 0; i < c->all.count; i++) {
        const Move *m = &c->all.moves[i];
        PackedMove pm;
        Move back;
        packed_from_move(&pm, m, &b);
        CU_ASSERT_EQUAL_FATAL(packed_to_move(&pm, &b, &back), 0);
        CU_ASSERT_TRUE(move_same(m, &back));
        uint8_t bytes[PACKED_MOVE_BYTES];
        PackedMove again;
        packed_to_bytes(&pm, bytes);
        packed_from_bytes(&again, bytes);
        CU_ASSERT_TRUE(packed_equal(&pm, &again));
        int idx = nn_legal_find(&c->legal, &c->ps, &pm);
        CU_ASSERT_TRUE_FATAL(idx >= 0);
        int s = nn_submove_index(&c->ps, &pm);
        CU_ASSERT_TRUE(s >= 0 && s < c->ps.submoves && sub[s]);
        /* every step's mask = the brute force over the whole list */
        uint8_t prefix[RK_RACK_SIZE], mask[64], want_mask[64];
        for (int k = 0; k < pm.n; k++) {
            int allowed = nn_legal_step_mask(&c->legal, &c->ps, s, prefix, k, mask, NULL);
            memset(want_mask, 0, sizeof want_mask);
            int want_allowed = 0;
            for (size_t j = 0; j < c->all.count; j++) {
                PackedMove q;
                packed_from_move(&q, &c->all.moves[j], &b);
                if (nn_submove_index(&c->ps, &q) != s) continue;
                bool same = true;
                for (int x = 0; x < k; x++) same &= nn_step_token(&c->ps, &q, x) == prefix[x];
                if (!same) continue;
                int t = nn_step_token(&c->ps, &q, k);
                if (!want_mask[t]) want_allowed++;
                want_mask[t] = 1;
            }
            CU_ASSERT_EQUAL(allowed, want_allowed);
            CU_ASSERT_EQUAL(memcmp(mask, want_mask, (size_t)c->ps.tokens), 0);
            prefix[k] = (uint8_t)nn_step_token(&c->ps, &pm, k);
            CU_ASSERT_TRUE(mask[prefix[k]]);
            if (pm.kind == MOVE_PLACE) {
                int sq = nn_step_square(&pm, k, &b);
                CU_ASSERT_TRUE(sq >= 0 && b.sq[0][sq] == 0);
            }
        }
        c->moves++;
        if (i > 60) break; /* the brute force is quadratic: the first moves of each position */
    }
    free(sub);
    (void)played;
    c->positions++;
}

static void test_positions_and_moves(void) {
    World w;
    if (!world_open(&w)) return;
    Check c = {.w = &w};
    movelist_init(&c.all);
    nn_legal_init(&c.legal);
    c.ps = nn_policy_shape(&w.ld, 15);
    CU_ASSERT_EQUAL(c.ps.submoves, 15 * 15 * 14 + 8);
    CU_ASSERT_EQUAL(c.ps.tokens, 53);
    SelfplayConfig cfg = {.ld = &w.ld, .layout = &w.lay, .kwg = &w.kwg, .seed = 7};
    Game *g = malloc(sizeof *g);
    for (uint64_t i = 0; i < 3; i++) selfplay_game(&cfg, i, g, NULL, check_position, &c);
    CU_ASSERT_TRUE(c.positions > 40);
    CU_ASSERT_TRUE(c.moves > 1000);
    free(g);
    nn_legal_free(&c.legal);
    movelist_free(&c.all);
    kwg_free(&w.kwg);
}

static void test_position_check_rejects(void) {
    LetterDist ld;
    ld_english(&ld);
    Position p;
    memset(&p, 0, sizeof p);
    p.dim = 15;
    p.bag = 93;
    p.opp_tiles = 7;
    RkError err;
    CU_ASSERT_EQUAL(position_check(&p, &ld, 15, &err), 0);
    p.board[0] = 27; /* beyond Z */
    CU_ASSERT_EQUAL(position_check(&p, &ld, 15, &err), -1);
    p.board[0] = 26;
    p.bag = 92; /* one tile on the board: 92 + 7 = 99 unseen */
    CU_ASSERT_EQUAL(position_check(&p, &ld, 15, &err), 0);
    p.bag = 93;
    CU_ASSERT_EQUAL(position_check(&p, &ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unseen"));
    p.bag = 92;
    p.board[1] = 26; /* a second Z: there is one */
    CU_ASSERT_EQUAL(position_check(&p, &ld, 15, &err), -1);
    CU_ASSERT_EQUAL(position_check(&p, &ld, 21, &err), -1);
}

/* ---- shards ---- */

typedef struct Rec {
    SampleRecorder *r;
} Rec;

static void record(const Game *g, const Move *m, void *vctx) { samples_record(((Rec *)vctx)->r, g, m); }

/* Samples of games [0, n) with softmax targets. */
static void make_samples(World *w, ShardSet *set, int n) {
    SelfplayConfig cfg = {.ld = &w->ld, .layout = &w->lay, .kwg = &w->kwg, .seed = 11, .generation = 3};
    SampleRecorder r;
    samples_init(&r, set, 1.0, 8, NULL, NULL);
    Rec rec = {&r};
    Game *g = malloc(sizeof *g);
    for (int i = n - 1; i >= 0; i--) { /* out of order: the writer's caller sorts */
        samples_begin_game(&r, (uint64_t)i, 3);
        selfplay_game(&cfg, (uint64_t)i, g, NULL, record, &rec);
        samples_finish_game(&r, g);
        /* V targets from the final scores, H targets inside the unseen pool */
        for (size_t k = r.first; k < set->n; k++) {
            const ShardSample *s = &set->s[k];
            int me = (int)(s->turn % 2);
            CU_ASSERT_EQUAL(s->final_spread, g->scores[me] - g->scores[1 - me]);
            CU_ASSERT_EQUAL(s->opp_leave_known, s->turn >= 1);
            float sum = 0;
            for (uint32_t j = 0; j < s->policy_count; j++) sum += set->pprob[s->policy_start + j];
            CU_ASSERT_DOUBLE_EQUAL(sum, 1.0, 1e-5);
        }
    }
    free(g);
    samples_free(&r);
}

/* Takes the P target away from every `every`-th sample (from the second),
 * as the recorder does for a fast search's decisions. */
static void without_targets(ShardSet *set, size_t every) {
    ShardSet out;
    shardset_init(&out);
    for (size_t i = 0; i < set->n; i++) {
        const ShardSample *x = &set->s[i];
        shardset_add(&out, x, set->pmove + x->policy_start, set->pprob + x->policy_start,
                     i % every == 1 ? 0 : x->policy_count);
    }
    shardset_free(set);
    *set = out;
}

static bool same_sample(const ShardSet *a, size_t i, const ShardSet *b, size_t j) {
    const ShardSample *x = &a->s[i], *y = &b->s[j];
    if (memcmp(x->pos.board, y->pos.board, RK_MAX_SQUARES) != 0 || !rack_equal(&x->pos.rack, &y->pos.rack))
        return false;
    if (x->pos.score_self != y->pos.score_self || x->pos.score_opp != y->pos.score_opp || x->pos.bag != y->pos.bag ||
        x->pos.opp_tiles != y->pos.opp_tiles || x->pos.zeros != y->pos.zeros)
        return false;
    if (x->game != y->game || x->turn != y->turn || x->generation != y->generation ||
        x->final_spread != y->final_spread || x->result != y->result || x->opp_leave_known != y->opp_leave_known ||
        !rack_equal(&x->opp_leave, &y->opp_leave) || !packed_equal(&x->played, &y->played) ||
        x->policy_count != y->policy_count)
        return false;
    if (isnan(x->search_spread) ? !isnan(y->search_spread) : x->search_spread != y->search_spread) return false;
    for (uint32_t k = 0; k < x->policy_count; k++)
        if (!packed_equal(&a->pmove[x->policy_start + k], &b->pmove[y->policy_start + k]) ||
            a->pprob[x->policy_start + k] != b->pprob[y->policy_start + k])
            return false;
    return true;
}

/* Rewrites a shard's schema_version attribute, and deletes a dataset if
 * `drop` is not NULL. */
static void set_schema_version(const char *path, int64_t v, const char *drop) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    if (drop) CU_ASSERT(H5Ldelete(f, drop, H5P_DEFAULT) >= 0);
    hid_t attr = H5Aopen(f, "schema_version", H5P_DEFAULT);
    CU_ASSERT(H5Awrite(attr, H5T_NATIVE_INT64, &v) >= 0);
    H5Aclose(attr);
    H5Fclose(f);
}

static void test_shard_round_trip(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSet set, back;
    shardset_init(&set);
    shardset_init(&back);
    make_samples(&w, &set, 4);
    without_targets(&set, 4); /* a fast search's samples: no P target */
    /* a search's estimates on some samples (static self-play gives none) */
    for (size_t i = 0; i < set.n; i++) {
        CU_ASSERT(isnan(set.s[i].search_spread));
        if (i % 3 != 0) set.s[i].search_spread = (float)i * 3.25f - 20.0f;
    }
    shardset_sort(&set);
    for (size_t i = 1; i < set.n; i++)
        CU_ASSERT_TRUE(set.s[i - 1].game < set.s[i].game ||
                       (set.s[i - 1].game == set.s[i].game && set.s[i - 1].turn < set.s[i].turn));
    char dir[256], a[512], b[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(shard_write(a, &set, 0, set.n, &w.ld, 15, 3, &err), 0);
    CU_ASSERT_EQUAL(access(a, F_OK), 0);
    ShardInfo in;
    CU_ASSERT_EQUAL_FATAL(shard_read(a, &back, &in, &w.ld, 15, &err), 0);
    CU_ASSERT_EQUAL(in.samples, set.n);
    CU_ASSERT_EQUAL(in.generation, 3);
    CU_ASSERT_STRING_EQUAL(in.distribution, "english");
    CU_ASSERT_EQUAL_FATAL(back.n, set.n);
    size_t untargeted = 0;
    for (size_t i = 0; i < set.n; i++) {
        CU_ASSERT_TRUE(same_sample(&set, i, &back, i));
        untargeted += back.s[i].policy_count == 0;
    }
    CU_ASSERT(untargeted >= set.n / 4 - 1 && untargeted > 0);
    /* the same samples a second later: the same bytes (no timestamps) */
    sleep(1);
    CU_ASSERT_EQUAL_FATAL(shard_write(b, &set, 0, set.n, &w.ld, 15, 3, &err), 0);
    unsigned char *ba, *bb;
    long na = tu_read_bytes(a, &ba), nb = tu_read_bytes(b, &bb);
    CU_ASSERT_TRUE_FATAL(na > 0 && na == nb);
    CU_ASSERT_EQUAL(memcmp(ba, bb, (size_t)na), 0);
    /* the byte form between ranks */
    uint8_t *packed;
    size_t len;
    CU_ASSERT_EQUAL_FATAL(shardset_pack(&set, &packed, &len, &err), 0);
    ShardSet un;
    shardset_init(&un);
    CU_ASSERT_EQUAL(shardset_unpack_append(&un, packed, len, &err), 0);
    CU_ASSERT_EQUAL_FATAL(un.n, set.n);
    for (size_t i = 0; i < set.n; i++) CU_ASSERT_TRUE(same_sample(&set, i, &un, i));
    shardset_clear(&un);
    CU_ASSERT_EQUAL(shardset_unpack_append(&un, packed, len - 3, &err), -1);
    CU_ASSERT_EQUAL(un.n, 0); /* nothing appended from a truncated set */
    CU_ASSERT_EQUAL(un.np, 0);
    /* an infinite estimate in a peer's bytes: refused, nothing appended; a
     * finite one travels */
    {
        ShardSet one;
        shardset_init(&one);
        shardset_add(&one, &set.s[0], set.pmove + set.s[0].policy_start, set.pprob + set.s[0].policy_start, 0);
        one.s[0].search_spread = INFINITY;
        uint8_t *p1;
        size_t l1;
        CU_ASSERT_EQUAL_FATAL(shardset_pack(&one, &p1, &l1, &err), 0);
        shardset_clear(&un);
        CU_ASSERT_EQUAL(shardset_unpack_append(&un, p1, l1, &err), -1);
        CU_ASSERT_EQUAL(un.n, 0);
        one.s[0].search_spread = 12.0f;
        free(p1);
        CU_ASSERT_EQUAL_FATAL(shardset_pack(&one, &p1, &l1, &err), 0);
        CU_ASSERT_EQUAL(shardset_unpack_append(&un, p1, l1, &err), 0);
        CU_ASSERT_EQUAL_FATAL(un.n, 1);
        CU_ASSERT_EQUAL(un.s[0].search_spread, 12.0f);
        free(p1);
        shardset_free(&one);
    }
    free(packed);
    shardset_free(&un);

    /* damaged copies: a clean error or, where the byte is unused, the same samples */
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);
    int refused = 0, same = 0;
    for (long off = 0; off < na; off += na / 97 + 1) {
        ba[off] ^= 0x5a;
        tu_write_bytes(bad, ba, na);
        ba[off] ^= 0x5a;
        shardset_clear(&back);
        if (shard_read(bad, &back, NULL, &w.ld, 15, &err) != 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad));
            refused++;
        } else {
            bool all = back.n == set.n;
            for (size_t i = 0; all && i < set.n; i++) all = same_sample(&set, i, &back, i);
            CU_ASSERT_TRUE(all);
            same++;
        }
    }
    /* many bytes are unused B-tree space; the metadata that is read has checksums */
    CU_ASSERT_TRUE(refused >= 10);
    /* a byte inside a data chunk: its Fletcher-32 checksum refuses it */
    {
        hid_t f0 = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = H5Dopen2(f0, "board", H5P_DEFAULT);
        haddr_t addr = 0;
        hsize_t size = 0, coff[2];
        unsigned fmask;
        hid_t space = H5Dget_space(ds);
        CU_ASSERT_FATAL(H5Dget_chunk_info(ds, space, 0, coff, &fmask, &addr, &size) >= 0);
        H5Sclose(space);
        H5Dclose(ds);
        H5Fclose(f0);
        CU_ASSERT_FATAL(size > 8 && (long)(addr + size) <= na);
        ba[addr + size / 2] ^= 0x01;
        tu_write_bytes(bad, ba, na);
        ba[addr + size / 2] ^= 0x01;
        CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'board'"));

        /* The chunk's entry in the (unchecksummed) v1 B-tree: its stored size
         * (le32), filter mask (le32), 3 zero offsets (le64) and address
         * (le64). fuzz_shard_file found a size of 0xffffffff, for which HDF5
         * allocates 4 GiB before it reads; a mask that skips Fletcher-32
         * would let a damaged chunk through unchecked. Both are refused. */
        unsigned char key[40] = {0};
        for (int k = 0; k < 4; k++) key[k] = (unsigned char)(size >> (8 * k));
        for (int k = 0; k < 8; k++) key[32 + k] = (unsigned char)((uint64_t)addr >> (8 * k));
        long at = -1;
        for (long o = 0; o + (long)sizeof key <= na && at < 0; o++)
            if (memcmp(ba + o, key, sizeof key) == 0) at = o;
        CU_ASSERT_FATAL(at >= 0 && fmask == 0);
        /* Each forgery writes 4 bytes at an offset of the entry: the stored size
         * (0) or the filter mask (4). A stored size under Fletcher-32's 4
         * checksum bytes would have HDF5 1.10's filter read size - 4 (unsigned)
         * bytes, far past the chunk (fuzz_shard_file, 2026-12-02). */
        static const struct {
            int at;
            unsigned char bytes[4];
        } forged[] = {
            {0, {0xff, 0xff, 0xff, 0xff}}, /* 4 GiB stored */
            {4, {0x04, 0, 0, 0}},          /* Fletcher-32 skipped */
            {4, {0x07, 0, 0, 0}},          /* every filter skipped */
            {0, {1, 0, 0, 0}},             /* stored sizes under the checksum's 4 bytes */
            {0, {2, 0, 0, 0}},
            {0, {3, 0, 0, 0}},
        };
        for (size_t k = 0; k < sizeof forged / sizeof forged[0]; k++) {
            unsigned char keep[4];
            unsigned char *field = ba + at + forged[k].at;
            memcpy(keep, field, 4);
            memcpy(field, forged[k].bytes, 4);
            tu_write_bytes(bad, ba, na);
            memcpy(field, keep, 4);
            shardset_clear(&back);
            CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'board'"));
            CU_ASSERT_EQUAL(back.n, 0);
        }
    }
    /* several chunks per dataset (4,096 rows each): the chunk index check
     * counts and accepts them all */
    {
        ShardSet big;
        shardset_init(&big);
        while (big.n <= 2 * 4096 + 7)
            for (size_t i = 0; i < set.n; i++) {
                const ShardSample *s = &set.s[i];
                shardset_add(&big, s, set.pmove + s->policy_start, set.pprob + s->policy_start, s->policy_count);
            }
        CU_ASSERT_EQUAL_FATAL(shard_write(bad, &big, 0, big.n, &w.ld, 15, 3, &err), 0);
        shardset_clear(&back);
        CU_ASSERT_EQUAL_FATAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), 0);
        CU_ASSERT_EQUAL_FATAL(back.n, big.n);
        CU_ASSERT_TRUE(back.np > 3 * 4096);
        bool all = true;
        for (size_t i = 0; i < big.n; i++) all &= same_sample(&big, i, &back, i);
        CU_ASSERT_TRUE(all);
        shardset_free(&big);
    }
    /* truncated */
    tu_write_bytes(bad, ba, na / 2);
    CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad));
    /* another board size or distribution */
    CU_ASSERT_EQUAL(shard_read(a, &back, NULL, &w.ld, 21, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "board side"));
    LetterDist tiny;
    tu_tiny_ld(&tiny);
    CU_ASSERT_EQUAL(shard_read(a, &back, NULL, &tiny, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "letters"));
    /* another schema version */
    set_schema_version(b, 99, NULL);
    CU_ASSERT_EQUAL(shard_read(b, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "schema version 99"));
    /* schema version 1 (no search_spread) still loads, without estimates;
     * version 2 without the dataset does not */
    set_schema_version(b, 2, "search_spread");
    shardset_clear(&back);
    CU_ASSERT_EQUAL(shard_read(b, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "search_spread"));
    set_schema_version(b, 1, NULL);
    shardset_clear(&back);
    CU_ASSERT_EQUAL_FATAL(shard_read(b, &back, &in, &w.ld, 15, &err), 0);
    CU_ASSERT_EQUAL(in.schema_version, 1);
    CU_ASSERT_EQUAL_FATAL(back.n, set.n);
    for (size_t i = 0; i < set.n; i++) {
        CU_ASSERT(isnan(back.s[i].search_spread));
        CU_ASSERT_EQUAL(back.s[i].final_spread, set.s[i].final_spread);
    }
    /* version 1 with version 2's dataset: mislabelled, refused */
    CU_ASSERT_EQUAL_FATAL(shard_write(bad, &set, 0, set.n, &w.ld, 15, 3, &err), 0);
    set_schema_version(bad, 1, NULL);
    shardset_clear(&back);
    CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mislabelled"));
    CU_ASSERT_EQUAL(back.n, 0);
    /* an estimate out of range, or infinite, is refused */
    float keep = set.s[1].search_spread;
    const float wrong[2] = {2.0f * SHARD_MAX_SPREAD, INFINITY};
    for (int k = 0; k < 2; k++) {
        set.s[1].search_spread = wrong[k];
        CU_ASSERT_EQUAL_FATAL(shard_write(bad, &set, 0, set.n, &w.ld, 15, 3, &err), 0);
        shardset_clear(&back);
        CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sample 1 is invalid"));
        CU_ASSERT_EQUAL(back.n, 0);
    }
    set.s[1].search_spread = keep;
    /* a missing file */
    CU_ASSERT_EQUAL(shard_read("/nonexistent/x.h5", &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.h5"));
    /* an unwritable place: a clean error, no file left */
    CU_ASSERT_EQUAL(shard_write("/nonexistent/dir/s.h5", &set, 0, set.n, &w.ld, 15, 3, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/dir/s.h5"));
    free(ba);
    free(bb);
    shardset_free(&set);
    shardset_free(&back);
    kwg_free(&w.kwg);
}

/* The address and stored size of the first chunk of dataset `name`. */
static void chunk_of(const char *path, const char *name, haddr_t *addr, hsize_t *size) {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT), space = H5Dget_space(ds);
    hsize_t off[2];
    unsigned mask;
    CU_ASSERT_FATAL(H5Dget_chunk_info(ds, space, 0, off, &mask, addr, size) >= 0);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
}

/* Where a 1-D dataset's single chunk has its key in the v1 B-tree: stored
 * size (le32), filter mask (le32), 2 zero offsets (le64), then the chunk's
 * address (le64). -1 if not found. */
static long chunk_key_at(const unsigned char *bytes, long n, hsize_t size, haddr_t addr) {
    unsigned char key[32] = {0};
    for (int k = 0; k < 4; k++) key[k] = (unsigned char)(size >> (8 * k));
    for (int k = 0; k < 8; k++) key[24 + k] = (unsigned char)((uint64_t)addr >> (8 * k));
    for (long o = 0; o + (long)sizeof key <= n; o++)
        if (memcmp(bytes + o, key, sizeof key) == 0) return o;
    return -1;
}

/* The chunk index (the 1.8 format's v1 B-tree, without a checksum) forged
 * in ways whose data still pass Fletcher-32: a chunk moved off its place in
 * the grid (HDF5 would read the fill value, zeros, for the place and ignore
 * the chunk), and a dataset pointed at another dataset's chunk of the same
 * bytes. Both read as plausible samples; both are refused. */
static void test_shard_chunk_index(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSet set, back;
    shardset_init(&set);
    shardset_init(&back);
    make_samples(&w, &set, 2);
    shardset_sort(&set);
    /* zeros and opp_leave_known all 0: their chunks are the same bytes */
    for (size_t i = 0; i < set.n; i++) {
        set.s[i].pos.zeros = 0;
        set.s[i].opp_leave_known = 0;
        rack_clear(&set.s[i].opp_leave);
    }
    char dir[256], a[512], bad[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(shard_write(a, &set, 0, set.n, &w.ld, 15, 3, &err), 0);
    CU_ASSERT_EQUAL_FATAL(shard_read(a, &back, NULL, &w.ld, 15, &err), 0);
    unsigned char *bytes;
    long n = tu_read_bytes(a, &bytes);
    CU_ASSERT_FATAL(n > 0);
    haddr_t za, ka, ra;
    hsize_t zs, ks, rs;
    chunk_of(a, "zeros", &za, &zs);
    chunk_of(a, "opp_leave_known", &ka, &ks);
    chunk_of(a, "result", &ra, &rs);
    CU_ASSERT_FATAL(zs == ks && za != ka);
    CU_ASSERT_EQUAL(memcmp(bytes + za, bytes + ka, zs), 0);
    long at = chunk_key_at(bytes, n, ks, ka);
    CU_ASSERT_FATAL(at >= 0);
    /* opp_leave_known's chunk pointed at zeros' */
    unsigned char keep[32];
    memcpy(keep, bytes + at, 32);
    for (int k = 0; k < 8; k++) bytes[at + 24 + k] = (unsigned char)((uint64_t)za >> (8 * k));
    tu_write_bytes(bad, bytes, n);
    memcpy(bytes + at, keep, 32);
    shardset_clear(&back);
    CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "overlap"));
    CU_ASSERT_EQUAL(back.n, 0);
    /* result's chunk (the only one: rows 0..n-1) moved to the next place of
     * the grid, rows n..2n-1, outside the dataset */
    at = chunk_key_at(bytes, n, rs, ra);
    CU_ASSERT_FATAL(at >= 0 && set.n < 65536);
    bytes[at + 8] = (unsigned char)(set.n & 0xff);
    bytes[at + 9] = (unsigned char)(set.n >> 8);
    tu_write_bytes(bad, bytes, n);
    bytes[at + 8] = bytes[at + 9] = 0;
    CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'result'"));
    CU_ASSERT_EQUAL(back.n, 0);
    /* and unforged, the same bytes read */
    tu_write_bytes(bad, bytes, n);
    CU_ASSERT_EQUAL(shard_read(bad, &back, NULL, &w.ld, 15, &err), 0);
    free(bytes);
    shardset_free(&set);
    shardset_free(&back);
    kwg_free(&w.kwg);
}

/* shard_stats: counts against a direct tally; softmax targets on no grid;
 * visit-count targets (k/12) on the 1/12 grid, not a coarser one; search
 * estimates counted with their RMS difference from the final spread;
 * samples without a P target counted apart. */
static void test_shard_stats(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSet set;
    shardset_init(&set);
    make_samples(&w, &set, 3);
    shardset_sort(&set);
    ShardStats st;
    shard_stats(&set, &st);
    CU_ASSERT_EQUAL(st.samples, set.n);
    CU_ASSERT_EQUAL(st.games, 3);
    CU_ASSERT_EQUAL(st.policy_entries, set.np);
    CU_ASSERT_EQUAL(st.won + st.drawn + st.lost, set.n);
    CU_ASSERT_EQUAL(st.grid, 0);
    CU_ASSERT_EQUAL(st.estimates, 0);
    uint64_t known = 0;
    for (size_t i = 0; i < set.n; i++) known += set.s[i].opp_leave_known;
    CU_ASSERT_EQUAL(st.leave_known, known);
    /* visit counts over 12 playouts, and estimates 3 and 4 points off on two samples */
    for (size_t i = 0; i < set.n; i++) {
        const ShardSample *s = &set.s[i];
        for (uint32_t j = 0; j < s->policy_count; j++) set.pprob[s->policy_start + j] = j == 0 ? 1.0f : 0.0f;
        if (s->policy_count >= 3) {
            set.pprob[s->policy_start] = 7.0f / 12.0f;
            set.pprob[s->policy_start + 1] = 4.0f / 12.0f;
            set.pprob[s->policy_start + 2] = 1.0f / 12.0f;
        }
    }
    set.s[0].search_spread = (float)set.s[0].final_spread + 3.0f;
    set.s[1].search_spread = (float)set.s[1].final_spread - 4.0f;
    shard_stats(&set, &st);
    CU_ASSERT_EQUAL(st.grid, 12);
    CU_ASSERT_EQUAL(st.estimates, 2);
    CU_ASSERT_DOUBLE_EQUAL(st.rms_estimate_error, sqrt(12.5), 1e-6);
    /* 1/2 and 1/4: the grid is 4 */
    for (size_t i = 0; i < set.n; i++) {
        const ShardSample *s = &set.s[i];
        if (s->policy_count >= 3) {
            set.pprob[s->policy_start] = 0.5f;
            set.pprob[s->policy_start + 1] = 0.25f;
            set.pprob[s->policy_start + 2] = 0.25f;
        }
    }
    shard_stats(&set, &st);
    CU_ASSERT_EQUAL(st.grid, 4);
    CU_ASSERT_EQUAL(st.no_policy, 0);
    /* samples without a P target: counted apart, and not in the mean top probability */
    without_targets(&set, 2);
    double top = 0;
    uint64_t none = 0;
    for (size_t i = 0; i < set.n; i++) {
        const ShardSample *s = &set.s[i];
        if (s->policy_count == 0) {
            none++;
            continue;
        }
        float best = 0;
        for (uint32_t j = 0; j < s->policy_count; j++) best = fmaxf(best, set.pprob[s->policy_start + j]);
        top += best;
    }
    shard_stats(&set, &st);
    CU_ASSERT(none > 0);
    CU_ASSERT_EQUAL(st.no_policy, none);
    CU_ASSERT_EQUAL(st.samples, set.n);
    CU_ASSERT_DOUBLE_EQUAL(st.mean_top_prob, top / (double)(set.n - none), 1e-9);
    CU_ASSERT_EQUAL(st.grid, 4);
    shardset_free(&set);
    kwg_free(&w.kwg);
}


/* Self-play that hands its k best moves to the sampler (samples_shared_top)
 * plays the same games and records the same samples and targets as self-play
 * that leaves the sampler to generate them, with k = 16 and k = 2 (where
 * the k best are often all tied and the player asks movegen_best). */
static void test_shared_top(void) {
    LetterDist ld;
    ld_english(&ld);
    Layout lay;
    layout_standard15(&lay);
    Kwg kwg;
    if (!tu_load_sowpods(&kwg, &ld)) return;
    static const int TOPS[2] = {16, 2};
    for (int t = 0; t < 2; t++) {
        ShardSet a, b;
        shardset_init(&a);
        shardset_init(&b);
        int games = tu_size(12, 4);
        tu_selfplay_samples(&a, &ld, &lay, &kwg, 31, games, 1.0, TOPS[t], false);
        tu_selfplay_samples(&b, &ld, &lay, &kwg, 31, games, 1.0, TOPS[t], true);
        CU_ASSERT_TRUE(a.n > (size_t)(games * 15));
        CU_ASSERT_EQUAL(a.n, b.n);
        CU_ASSERT_EQUAL(a.np, b.np);
        if (a.n == b.n && a.np == b.np) {
            CU_ASSERT_EQUAL(memcmp(a.s, b.s, a.n * sizeof *a.s), 0);
            CU_ASSERT_EQUAL(memcmp(a.pmove, b.pmove, a.np * sizeof *a.pmove), 0);
            CU_ASSERT_EQUAL(memcmp(a.pprob, b.pprob, a.np * sizeof *a.pprob), 0);
        }
        shardset_free(&a);
        shardset_free(&b);
    }
    kwg_free(&kwg);
}

static bool same_last(const Position *a, const Position *b) {
    if (a->last_known != b->last_known) return false;
    if (!a->last_known) return true;
    return a->last.kind == b->last.kind && a->last.dir == b->last.dir && a->last.row == b->last.row &&
           a->last.col == b->last.col && a->last.n == b->last.n && a->last.score == b->last.score &&
           a->last.fresh == b->last.fresh &&
           memcmp(a->last.tiles, b->last.tiles, sizeof a->last.tiles) == 0;
}

/* Shards do not store the opponent's last move: linked again from the
 * previous sample of the same game after reading, it equals what the game
 * gave each position (position_from_game: the move, its score, an
 * exchange's tiles unseen), for every sample but each game's first. */
static void test_link_last_moves(void) {
    World w;
    if (!world_open(&w)) return;
    ShardSet set, back;
    shardset_init(&set);
    shardset_init(&back);
    int games = tu_size(10, 4);
    tu_selfplay_samples(&set, &w.ld, &w.lay, &w.kwg, 37, games, 1.0, 4, false);
    shardset_sort(&set);
    char dir[256], a[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.h5", dir);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(shard_write(a, &set, 0, set.n, &w.ld, 15, 1, &err), 0);
    CU_ASSERT_EQUAL_FATAL(shard_read(a, &back, NULL, &w.ld, 15, &err), 0);
    CU_ASSERT_EQUAL_FATAL(back.n, set.n);
    size_t known = 0, firsts = 0, exchanges = 0, scored = 0;
    for (size_t i = 0; i < back.n; i++) CU_ASSERT(!back.s[i].pos.last_known); /* not stored */
    shardset_link_last_moves(&back);
    for (size_t i = 0; i < set.n; i++) {
        const Position *want = &set.s[i].pos, *got = &back.s[i].pos;
        CU_ASSERT(same_last(want, got));
        known += got->last_known;
        firsts += set.s[i].turn == 0;
        CU_ASSERT(got->last_known == (set.s[i].turn > 0));
        if (got->last_known && got->last.kind == MOVE_EXCHANGE) {
            exchanges++;
            for (int k = 0; k < RK_RACK_SIZE; k++) CU_ASSERT(got->last.tiles[k] == 0);
        }
        scored += got->last_known && got->last.score > 0;
    }
    CU_ASSERT(firsts == (size_t)games);
    CU_ASSERT(known == set.n - (size_t)games);
    CU_ASSERT(scored > known / 2);
    printf("(%zu linked, %zu exchanges) ", known, exchanges);
    /* an exchange's tiles are not seen: n kept, tiles and score dropped */
    Position p;
    memset(&p, 0, sizeof p);
    PackedMove ex = {.kind = MOVE_EXCHANGE, .n = 3, .tiles = {1, 5, 26}};
    position_set_last(&p, &ex, p.board, 17);
    CU_ASSERT(p.last_known && p.last.kind == MOVE_EXCHANGE && p.last.n == 3 && p.last.score == 0);
    for (int k = 0; k < RK_RACK_SIZE; k++) CU_ASSERT(p.last.tiles[k] == 0);
    unlink(a);
    rmdir(dir);
    shardset_free(&set);
    shardset_free(&back);
    kwg_free(&w.kwg);
}

int main(void) {
    H5dont_atexit(); /* as the CLI: no teardown message after the damaged files */
    CU_TestInfo tests[] = {
        {"positions and packed moves round-trip; step masks = brute force", test_positions_and_moves},
        {"position_check rejects impossible positions", test_position_check_rejects},
        {"shards: round trip, same bytes, damaged/truncated/mismatched files refused", test_shard_round_trip},
        {"shards: a forged chunk index is refused", test_shard_chunk_index},
        {"shard statistics: counts, the visit grid, search estimates", test_shard_stats},
        {"self-play sharing its k best with the sampler: the same samples", test_shared_top},
        {"the opponent's last move, linked from the previous sample", test_link_last_moves},
        CU_TEST_INFO_NULL,
    };
    return tu_run("shard", tests);
}
