/*
 * fuzz_shard_bytes.c - libFuzzer target for the byte form of sample sets
 * (shardset_unpack_append: what rank 0 reads from every peer rank).
 *
 * Arbitrary bytes are unpacked (English distribution). A set that unpacks is
 * packed again and unpacked again: the two sets must be equal field by field,
 * and packing the second gives the same bytes as packing the first. Every
 * sample of an accepted set then goes through position_check (it may refuse:
 * the byte form carries no value checks); a position that passes is built
 * into a board over a small lexicon, and its played move and its policy
 * moves through packed_to_move. A move that fits the board must come back
 * from packed_from_move as the same packed move, be writable in notation and
 * scorable, and map into the policy's sub-move and token ranges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "nn/policy.h"
#include "nn/shard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Fixture {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    NnPolicyShape ps;
    Board b;
} Fixture;

static const char *const WORDS[] = {"AT", "TA", "QI", "ZA", "OX", "XI", "JO", "EH", "HE", "QUARTZ",
                                    "QUARTZY", "CAT", "CATS", "SCAT", "RE", "ER", "EAR", "ERA", "ARE"};

static Fixture *fixture_new(void) {
    Fixture *f = calloc(1, sizeof *f);
    if (f == NULL) abort();
    ld_english(&f->ld);
    layout_standard15(&f->lay);
    enum { N = sizeof WORDS / sizeof WORDS[0] };
    uint8_t ml[N][16];
    const uint8_t *ptrs[N];
    int lens[N];
    for (int i = 0; i < N; i++) {
        lens[i] = ld_parse_tiles(&f->ld, WORDS[i], ml[i], 16, false);
        if (lens[i] <= 0) abort();
        ptrs[i] = ml[i];
    }
    KwgWords w = {ptrs, lens, N};
    RkError err;
    if (kwg_build(&f->kwg, &w, true, &err) != 0) {
        fprintf(stderr, "kwg_build: %s\n", err.msg);
        abort();
    }
    f->ps = nn_policy_shape(&f->ld, 15);
    return f;
}

static bool same_rack(const Rack *a, const Rack *b) {
    return a->total == b->total && memcmp(a->count, b->count, sizeof a->count) == 0;
}

/* Field by field, policy targets included (probabilities bit for bit: NaN
 * and -0.0 travel unchanged). */
static bool same_sample(const ShardSet *a, size_t i, const ShardSet *b, size_t j) {
    const ShardSample *x = &a->s[i], *y = &b->s[j];
    if (x->pos.dim != y->pos.dim || memcmp(x->pos.board, y->pos.board, sizeof x->pos.board) != 0 ||
        !same_rack(&x->pos.rack, &y->pos.rack) || x->pos.score_self != y->pos.score_self ||
        x->pos.score_opp != y->pos.score_opp || x->pos.bag != y->pos.bag || x->pos.opp_tiles != y->pos.opp_tiles ||
        x->pos.zeros != y->pos.zeros)
        return false;
    if (x->game != y->game || x->generation != y->generation || x->turn != y->turn ||
        x->final_spread != y->final_spread || x->result != y->result || x->opp_leave_known != y->opp_leave_known ||
        !same_rack(&x->opp_leave, &y->opp_leave) || memcmp(&x->played, &y->played, sizeof x->played) != 0 ||
        x->policy_count != y->policy_count)
        return false;
    if (memcmp(&x->search_spread, &y->search_spread, sizeof x->search_spread) != 0) return false;
    for (uint32_t k = 0; k < x->policy_count; k++) {
        if (memcmp(&a->pmove[x->policy_start + k], &b->pmove[y->policy_start + k], sizeof(PackedMove)) != 0 ||
            memcmp(&a->pprob[x->policy_start + k], &b->pprob[y->policy_start + k], sizeof(float)) != 0)
            return false;
    }
    return true;
}

static void sort_tiles(uint8_t *t, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            uint8_t x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
}

/* A packed move against the sample's board: it may not fit, but must not
 * crash, and one that fits must be consistent. */
static void check_move(Fixture *fx, const Position *p, const PackedMove *pm) {
    Move m;
    if (packed_to_move(pm, &fx->b, &m) != 0) return;
    if (m.kind != pm->kind) abort();
    PackedMove back;
    packed_from_move(&back, &m, &fx->b);
    if (pm->kind == MOVE_EXCHANGE) { /* packed_from_move sorts the thrown tiles */
        PackedMove sorted = *pm;
        sort_tiles(sorted.tiles, sorted.n);
        if (!packed_equal(&sorted, &back)) abort();
    } else if (!packed_equal(pm, &back)) {
        abort();
    }
    char text[256];
    move_to_string(&m, &fx->b, &fx->ld, text, sizeof text);
    if (memchr(text, '\0', sizeof text) == NULL) abort();
    if (m.kind == MOVE_PLACE) {
        if (m.len < m.ntiles || m.len > p->dim) abort();
        (void)board_score_move(&fx->b, &m);
    }
    Rack kept;
    move_kept_tiles(&p->rack, &m, &kept);
    if (kept.total > p->rack.total) abort();
    int s = nn_submove_index(&fx->ps, pm);
    if (s < 0 || s >= fx->ps.submoves) abort();
    for (int k = 0; k < pm->n; k++) {
        int t = nn_step_token(&fx->ps, pm, k);
        if (t < 0 || t >= fx->ps.tokens) abort();
        int sq = nn_step_square(pm, k, &fx->b);
        if (pm->kind == MOVE_PLACE && (sq < 0 || sq >= p->dim * p->dim || fx->b.sq[0][sq] != 0)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Built once and kept for the process: acceptable in a fuzz harness. */
    static Fixture *fx = NULL;
    if (fx == NULL) fx = fixture_new();
    if (size > (1u << 20)) return 0;

    ShardSet set, again;
    shardset_init(&set);
    shardset_init(&again);
    RkError err;
    if (shardset_unpack_append(&set, data, size, &err) != 0) {
        if (err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL) abort();
        shardset_free(&set);
        return 0;
    }
    /* pack, unpack: the same set; pack again: the same bytes */
    uint8_t *bytes = NULL, *bytes2 = NULL;
    size_t len = 0, len2 = 0;
    if (shardset_pack(&set, &bytes, &len, &err) != 0) abort();
    if (shardset_unpack_append(&again, bytes, len, &err) != 0) {
        fprintf(stderr, "a packed set does not unpack: %s\n", err.msg);
        abort();
    }
    if (again.n != set.n || again.np != set.np) abort();
    for (size_t i = 0; i < set.n; i++)
        if (!same_sample(&set, i, &again, i)) {
            fprintf(stderr, "sample %zu differs after pack + unpack\n", i);
            abort();
        }
    if (shardset_pack(&again, &bytes2, &len2, &err) != 0) abort();
    if (len2 != len || memcmp(bytes, bytes2, len) != 0) abort();
    free(bytes);
    free(bytes2);
    shardset_free(&again);

    for (size_t i = 0; i < set.n; i++) {
        const ShardSample *s = &set.s[i];
        if (s->policy_start + s->policy_count > set.np) abort();
        if (position_check(&s->pos, &fx->ld, 15, &err) != 0) {
            if (err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL) abort();
            continue;
        }
        Rack unseen;
        if (position_unseen(&s->pos, &fx->ld, &unseen) != 0) abort();
        position_board(&s->pos, &fx->lay, &fx->ld, &fx->kwg, &fx->b);
        check_move(fx, &s->pos, &s->played);
        for (uint32_t j = 0; j < s->policy_count; j++) check_move(fx, &s->pos, &set.pmove[s->policy_start + j]);
    }
    shardset_free(&set);
    return 0;
}
