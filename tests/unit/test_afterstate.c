/* test_afterstate.c - the afterstate of a move and its features (nn/afterstate.h), against
 * slow references: the game's own rules for what a move leaves, brute-force word lookups for
 * the cross-set features, a dense recount of every other feature group; and the two ways
 * an afterstate is built (from a game, from a shard's position and packed move) agree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/position.h"
#include "eval/klv.h"
#include "nn/afterstate.h"
#include "testutil.h"

/* The word through empty square sq if a letter ml went there, along the perpendicular of a
 * move in direction d: whether there is one (tiles next to sq that way) and, if so, whether
 * it is in the lexicon. */
static bool perpendicular(const Position *q, const Kwg *kwg, int sq, int d, int ml, bool *is_word) {
    int dim = q->dim, r = sq / dim, c = sq % dim;
    int dr = d == DIR_ACROSS ? 1 : 0, dc = 1 - dr; /* the perpendicular's step */
    int r0 = r, c0 = c;
    while (r0 - dr >= 0 && c0 - dc >= 0 && q->board[(r0 - dr) * dim + (c0 - dc)]) r0 -= dr, c0 -= dc;
    uint8_t word[RK_MAX_DIM];
    int n = 0;
    for (int rr = r0, cc = c0; rr < dim && cc < dim; rr += dr, cc += dc) {
        uint8_t t = rr == r && cc == c ? (uint8_t)ml : q->board[rr * dim + cc];
        if (!t) break;
        word[n++] = RK_LETTER(t);
    }
    if (n < 2) return false;
    *is_word = kwg_has_word(kwg, word, n);
    return true;
}

static int bucket_of(int allowed) {
    return allowed <= 1 ? allowed : allowed < 4 ? 2 : allowed < 8 ? 3 : allowed < 16 ? 4 : 5;
}

/* Every feature of as, recounted from its Position alone into a dense vector x. */
static void reference_features(const AftContext *c, const Afterstate *as, float *x) {
    const AftShape *s = &c->shape;
    const Position *q = &as->pos;
    int L = s->letters, dim = s->dim;
    memset(x, 0, (size_t)s->total * sizeof *x);
    for (int sq = 0; sq < s->squares; sq++) {
        if (q->board[sq]) {
            x[s->off_square + sq] = 1;
            x[s->off_occupancy + (sq / dim / 3) * s->blocks + (sq % dim) / 3] += 1.0f / 9.0f;
            continue;
        }
        int lm = c->layout->letter_mult[sq], wm = c->layout->word_mult[sq];
        int prem = wm >= 3 ? 4 : wm == 2 ? 3 : lm >= 3 ? 2 : lm == 2 ? 1 : 0;
        bool next_to_tile = false;
        for (int d = 0; d < 2; d++) {
            int allowed = 0;
            bool any = false;
            for (int ml = 1; ml <= L; ml++) {
                bool w = false;
                if (!perpendicular(q, c->kwg, sq, d, ml, &w)) break;
                any = true;
                if (w) {
                    allowed++;
                    x[s->off_hook + (prem * 2 + d) * L + ml - 1] += 0.25f;
                }
            }
            if (any) x[s->off_cross + (prem * 2 + d) * AFT_CROSS_BUCKETS + bucket_of(allowed)] += 0.1f;
        }
        /* an anchor: a tile on one of the four sides */
        int r = sq / dim, col = sq % dim;
        next_to_tile = (r > 0 && q->board[sq - dim]) || (r + 1 < dim && q->board[sq + dim]) ||
                       (col > 0 && q->board[sq - 1]) || (col + 1 < dim && q->board[sq + 1]);
        if (next_to_tile) x[s->off_anchor + prem] += 0.1f, x[s->off_open + sq] = 1;
    }
    Rack unseen;
    CU_ASSERT_FATAL(position_unseen(q, c->ld, &unseen) == 0);
    for (int ml = 0; ml <= L; ml++) {
        for (int k = 0; k < q->rack.count[ml]; k++) x[s->off_kept + ml * RK_RACK_SIZE + k] = 1;
        for (int k = 0; k < unseen.count[ml]; k++) x[s->off_unseen + ml * s->unseen_max + k] = 1;
    }
    static const int lo[AFT_BAG_BUCKETS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 30, 40, 50, 60, 70};
    int b = AFT_BAG_BUCKETS - 1;
    while (q->bag < lo[b]) b--;
    x[s->off_bag + b] = 1;
    x[s->off_opp + q->opp_tiles] = 1;
    x[s->off_zeros + (q->zeros < GAME_MAX_SCORELESS ? q->zeros : GAME_MAX_SCORELESS - 1)] = 1;
    int on_board = 0;
    for (int sq = 0; sq < s->squares; sq++) on_board += q->board[sq] != 0;
    int32_t leave = q->rack.total > 0 && c->leave_value ? c->leave_value(c->leave_ctx, &q->rack) : 0;
    float *dense = x + s->off_dense;
    dense[0] = (float)(q->score_self - q->score_opp) / 100.0f;
    dense[1] = (float)as->move_score / 100.0f;
    dense[2] = (float)leave / 100000.0f;
    dense[3] = (float)on_board / 100.0f;
    dense[4] = as->kind == MOVE_EXCHANGE;
    dense[5] = as->kind == MOVE_PASS;
    dense[6] = (float)as->used / RK_RACK_SIZE;
    dense[7] = (float)q->bag / 100.0f;
    dense[8] = (float)unseen.total / 100.0f;
}

typedef struct Fixture {
    TuEnv e;
    Klv klv;
    AftContext c;
    float *x, *y;
    int32_t *idx;
    float *val;
} Fixture;

static bool fixture_open(Fixture *f) {
    memset(f, 0, sizeof *f);
    if (!tu_env_open(&f->e)) return false;
    RkError err;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/leaves/SOWPODS.klv2", ROOKERY_SOURCE_DIR);
    CU_ASSERT_FATAL(klv_load(&f->klv, path, &f->e.ld, &err) == 0);
    aft_context(&f->c, &f->e.ld, &f->e.lay, &f->e.kwg, klv_leave_value, &f->klv);
    f->x = malloc((size_t)f->c.shape.total * sizeof *f->x);
    f->y = malloc((size_t)f->c.shape.total * sizeof *f->y);
    f->idx = malloc(AFT_MAX_ACTIVE * sizeof *f->idx);
    f->val = malloc(AFT_MAX_ACTIVE * sizeof *f->val);
    CU_ASSERT_FATAL(f->x && f->y && f->idx && f->val);
    return true;
}

static void fixture_close(Fixture *f) {
    free(f->x), free(f->y), free(f->idx), free(f->val);
    klv_free(&f->klv);
    tu_env_close(&f->e);
}

/* The features of as as a dense vector y, checking the list is in increasing index order. */
static void dense_features(Fixture *f, const Afterstate *as, const Board *after) {
    int n = aft_features(&f->c, as, after, f->idx, f->val);
    CU_ASSERT_FATAL(n > 0 && n < AFT_MAX_ACTIVE);
    memset(f->y, 0, (size_t)f->c.shape.total * sizeof *f->y);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_FATAL(f->idx[i] >= 0 && f->idx[i] < f->c.shape.total);
        if (i > 0) CU_ASSERT_FATAL(f->idx[i] > f->idx[i - 1]);
        f->y[f->idx[i]] = f->val[i];
    }
}

/* Over positions of static games at every stage, each of their best moves: the features
 * equal the slow recount, and the shard path (position + packed move) gives the same
 * afterstate and features as the game path. */
static void test_features_oracle(void) {
    Fixture f;
    if (!fixture_open(&f)) return;
    MoveList top;
    movelist_init(&top);
    int checked = 0, games = tu_size(40, 12);
    for (int gi = 0; gi < games; gi++) {
        tu_env_position(&f.e, 31, (uint64_t)gi, (gi * 7) % 90, NULL);
        if (game_over(f.e.g)) continue;
        const Game *g = f.e.g;
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        klv_request_leaves(&req, klv_leave_value, &f.klv);
        size_t k = movegen_top(&req, 6, move_compare_equity, &top);
        Position pos;
        position_from_game(&pos, g);
        for (size_t i = 0; i < k; i++) {
            Afterstate as, as2;
            Board after, after2;
            aft_build(&f.e.ld, &g->board, &pos, &top.moves[i], &as, &after);
            CU_ASSERT_EQUAL(as.move_score, top.moves[i].score);
            reference_features(&f.c, &as, f.x);
            dense_features(&f, &as, &after);
            int bad = 0;
            for (int j = 0; j < f.c.shape.total; j++) bad += fabsf(f.x[j] - f.y[j]) > 1e-5f;
            CU_ASSERT_EQUAL(bad, 0);
            PackedMove pm;
            packed_from_move(&pm, &top.moves[i], &g->board);
            CU_ASSERT_FATAL(aft_from_position(&f.c, &pos, &pm, &as2, &after2) == 0);
            CU_ASSERT(memcmp(as.pos.board, as2.pos.board, sizeof as.pos.board) == 0);
            CU_ASSERT(rack_equal(&as.pos.rack, &as2.pos.rack));
            CU_ASSERT_EQUAL(as.pos.score_self, as2.pos.score_self);
            CU_ASSERT_EQUAL(as.move_score, as2.move_score);
            CU_ASSERT_EQUAL(as.terminal, as2.terminal);
            memcpy(f.x, f.y, (size_t)f.c.shape.total * sizeof *f.x);
            dense_features(&f, &as2, &after2);
            CU_ASSERT(memcmp(f.x, f.y, (size_t)f.c.shape.total * sizeof *f.x) == 0);
            checked++;
        }
    }
    CU_ASSERT(checked >= games * 3);
    movelist_free(&top);
    fixture_close(&f);
}

/* The rest of an afterstate against the game's own rules: play the move with game_play and
 * compare the board, the mover's score, the tiles kept (what the mover holds before the draw
 * is what they hold after it, less the draw) and, where the move ends the game, the final
 * spread. */
static void test_against_game_play(void) {
    Fixture f;
    if (!fixture_open(&f)) return;
    MoveList top;
    movelist_init(&top);
    int terminal = 0, games = tu_size(60, 20);
    for (int gi = 0; gi < games; gi++) {
        int bag = gi % 3 == 0 ? 0 : gi % 3 == 1 ? 8 : 40;
        tu_env_position(&f.e, 77, (uint64_t)gi, bag, NULL);
        if (game_over(f.e.g)) continue;
        const Game *g = f.e.g;
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        size_t k = movegen_top(&req, 12, move_compare_equity, &top);
        Position pos;
        position_from_game(&pos, g);
        int me = g->on_turn;
        for (size_t i = 0; i < k; i++) {
            Afterstate as;
            Board after;
            aft_build(&f.e.ld, &g->board, &pos, &top.moves[i], &as, &after);
            Game *h = malloc(sizeof *h);
            *h = *g;
            game_play(h, &top.moves[i]);
            CU_ASSERT(memcmp(as.pos.board, h->board.sq[0], (size_t)(pos.dim * pos.dim)) == 0);
            CU_ASSERT(memcmp(after.cross, h->board.cross, sizeof after.cross) == 0);
            Rack kept;
            move_kept_tiles(&g->racks[me], &top.moves[i], &kept);
            CU_ASSERT(rack_equal(&as.pos.rack, &kept));
            CU_ASSERT_EQUAL(as.terminal, game_over(h));
            if (game_over(h) && g->bag.count == 0) { /* exact: the unseen tiles are the opponent's rack */
                CU_ASSERT_EQUAL(as.final_spread, h->scores[me] - h->scores[1 - me]);
                terminal++;
            } else if (!game_over(h)) {
                CU_ASSERT_EQUAL(as.pos.score_self, h->scores[me]);
            }
            free(h);
        }
    }
    CU_ASSERT(terminal > 0); /* some moves went out with an empty bag */
    movelist_free(&top);
    fixture_close(&f);
}

/* A corrupt shard's move is refused, not placed. */
static void test_bad_packed_move(void) {
    Fixture f;
    if (!fixture_open(&f)) return;
    tu_env_position(&f.e, 5, 1, 60, NULL);
    Position pos;
    position_from_game(&pos, f.e.g);
    PackedMove pm = {.kind = MOVE_PLACE, .dir = DIR_ACROSS, .row = 14, .col = 14, .n = 3, .tiles = {1, 2, 3}};
    Afterstate as;
    Board after;
    CU_ASSERT_EQUAL(aft_from_position(&f.c, &pos, &pm, &as, &after), -1);
    fixture_close(&f);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"features = a slow recount; the shard path = the game path", test_features_oracle},
        {"board, kept tiles, scores and the end against game_play", test_against_game_play},
        {"a packed move off the board is refused", test_bad_packed_move},
        CU_TEST_INFO_NULL,
    };
    return tu_run("afterstate", tests);
}
