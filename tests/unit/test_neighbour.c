/* The neighbour-aware SPV table (eval/neighbour.h): neighbour states computed by hand on
 * constructed boards, the .nbv file and its errors, a hand-built table changing the static
 * player's move exactly as computed by hand, a zero table giving exactly the static player's
 * moves, a random table against an independent computation, and the study on a few games.
 *
 * Squares are 0-based (row, col). The standard board around the centre: (7,7) is the
 * double-word star, (6,6), (6,8), (8,6), (8,8) are double letters, (5,7), (9,7), (7,5),
 * (7,9) are plain. In the corner: (0,0) triple word, (1,1) double word, (0,1), (0,2),
 * (1,0) plain. (4,2) and its four neighbours are plain. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/layout.h"
#include "eval/neighbour.h"
#include "search/player.h"
#include "testutil.h"
#include "worker/neighbour_study.h"

#define SQ(r, c) ((r) * 15 + (c))

static bool premium(const Layout *lay, int r, int c) {
    return lay->letter_mult[SQ(r, c)] > 1 || lay->word_mult[SQ(r, c)] > 1;
}

static void test_state_by_hand(void) {
    LetterDist ld;
    Layout lay;
    ld_english(&ld);
    layout_standard15(&lay);
    /* the layout as the header comment says */
    CU_ASSERT_EQUAL_FATAL(lay.word_mult[SQ(7, 7)], 2);
    CU_ASSERT_EQUAL_FATAL(lay.letter_mult[SQ(6, 6)], 2);
    CU_ASSERT_EQUAL_FATAL(lay.letter_mult[SQ(8, 6)], 2);
    CU_ASSERT_FATAL(!premium(&lay, 7, 5) && !premium(&lay, 0, 2) && !premium(&lay, 1, 0) && !premium(&lay, 0, 1));
    CU_ASSERT_EQUAL_FATAL(lay.word_mult[SQ(0, 0)], 3);
    CU_ASSERT_EQUAL_FATAL(lay.word_mult[SQ(1, 1)], 2);
    CU_ASSERT_FATAL(!premium(&lay, 4, 2) && !premium(&lay, 3, 2) && !premium(&lay, 5, 2) && !premium(&lay, 4, 1) &&
                    !premium(&lay, 4, 3));
    Board b;
    board_init(&b, &lay, &ld, NULL);
    /* (7,6): premium neighbours (7,7) DW, (6,6) DL, (8,6) DL; (7,5) plain */
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 0);
    board_put(&b, 7, 5, 1); /* a plain neighbour: no change */
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 0);
    board_put(&b, 7, 7, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 1);
    board_put(&b, 6, 6, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 1);
    board_put(&b, 8, 6, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 2);
    /* its own tile does not matter */
    board_put(&b, 7, 6, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 7, 6), 2);
    /* (0,1) on the edge: premium neighbours (0,0) TW and (1,1) DW */
    CU_ASSERT_EQUAL(neighbour_state(&b, 0, 1), 0);
    board_put(&b, 1, 1, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 0, 1), 1);
    board_put(&b, 0, 0, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 0, 1), 2);
    /* the corner (0,0): neighbours (0,1) and (1,0), both plain: state 0 even when they
     * are taken */
    CU_ASSERT_EQUAL(neighbour_state(&b, 0, 0), 0);
    board_put(&b, 0, 1, 1);
    board_put(&b, 1, 0, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 0, 0), 0);
    /* (4,2): no premium neighbour at all, all taken: 0 */
    board_put(&b, 3, 2, 1);
    board_put(&b, 5, 2, 1);
    board_put(&b, 4, 1, 1);
    board_put(&b, 4, 3, 1);
    CU_ASSERT_EQUAL(neighbour_state(&b, 4, 2), 0);
}

/* ------------------------------------------------------------------ file */

static void write_table(const NeighbourTable *t, const char *path) {
    RkError err;
    CU_ASSERT_EQUAL_FATAL(neighbour_write(t, path, &err), 0);
}

static bool one_line_naming(const RkError *err, const char *path) {
    return strchr(err->msg, '\n') == NULL && strstr(err->msg, path) != NULL;
}

static void put_le32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void test_file(void) {
    char dir[256], path[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/t.nbv", dir);
    RkError err;
    NeighbourTable a, b;
    CU_ASSERT_EQUAL_FATAL(neighbour_init_zero(&a, 15, 11, &err), 0);
    size_t cells = 225 * 3 * 11;
    for (size_t i = 0; i < cells; i++) a.value[i] = (float)((int)(i % 17) - 8) * 0.25f;
    write_table(&a, path);
    CU_ASSERT_EQUAL_FATAL(neighbour_load(&b, path, &err), 0);
    CU_ASSERT_EQUAL(b.dim, 15);
    CU_ASSERT_EQUAL(b.num_buckets, 11);
    CU_ASSERT_EQUAL(memcmp(a.value, b.value, cells * sizeof(float)), 0);
    CU_ASSERT_EQUAL(neighbour_file_size(&b), 29716);
    neighbour_free(&b);
    unsigned char *good;
    long n = tu_read_bytes(path, &good);
    CU_ASSERT_EQUAL_FATAL(n, 29716);
    CU_ASSERT_EQUAL(memcmp(good, "RKNB", 4), 0);

    /* missing */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.nbv", dir);
    CU_ASSERT_EQUAL(neighbour_load(&b, missing, &err), -1);
    CU_ASSERT_TRUE(one_line_naming(&err, missing));
    CU_ASSERT_PTR_NULL(b.value);

    /* variants of the good bytes, each with the message it must give */
    unsigned char *buf = malloc((size_t)n + 8);
    CU_ASSERT_FATAL(buf != NULL);
    struct {
        int kind;
        long arg;
        const char *want;
    } bad[] = {
        {0, 10, "too short"},          /* truncated inside the header */
        {0, 29716 - 4, "needs 29716"}, /* truncated by one value */
        {1, 29716 + 4, "needs 29716"}, /* one value too many */
        {2, 0, "bad magic"},
        {3, 4, "dim 0"},              /* offset of the field, then its value below */
        {4, 4, "dim 22"},
        {5, 8, "num_states 4"},
        {6, 12, "num_buckets 0"},
        {7, 12, "num_buckets 17"},
        {8, 16 + 4 * 100, "not finite"},
        {9, 16 + 4 * 7, "not finite"},
        {10, 16 + 4 * 5, "exceeds"},
        {11, 4, "needs"}, /* dim 11: a consistent header for a smaller board, wrong size */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(buf, good, (size_t)n);
        long size = n;
        float f;
        uint32_t u;
        switch (bad[i].kind) {
        case 0: size = bad[i].arg; break;
        case 1: size = bad[i].arg; memset(buf + n, 0, 4); break;
        case 2: memcpy(buf, "SPV1", 4); break;
        case 3: put_le32(buf + 4, 0); break;
        case 4: put_le32(buf + 4, 22); break;
        case 5: put_le32(buf + 8, 4); break;
        case 6: put_le32(buf + 12, 0); break;
        case 7: put_le32(buf + 12, 17); break;
        case 8: f = NAN; memcpy(&u, &f, 4); put_le32(buf + bad[i].arg, u); break;
        case 9: f = INFINITY; memcpy(&u, &f, 4); put_le32(buf + bad[i].arg, u); break;
        case 10: f = 2.0e4f; memcpy(&u, &f, 4); put_le32(buf + bad[i].arg, u); break;
        case 11: put_le32(buf + 4, 11); break;
        }
        tu_write_bytes(path, buf, size);
        err.msg[0] = '\0';
        CU_ASSERT_EQUAL(neighbour_load(&b, path, &err), -1);
        CU_ASSERT_TRUE(one_line_naming(&err, path));
        if (strstr(err.msg, bad[i].want) == NULL) printf("\ncase %zu: '%s' lacks '%s'\n", i, err.msg, bad[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].want));
        CU_ASSERT_PTR_NULL(b.value);
    }
    free(buf);
    free(good);

    /* a table for another board: loads, but the player refuses it for this one */
    NeighbourTable small;
    CU_ASSERT_EQUAL_FATAL(neighbour_init_zero(&small, 11, 11, &err), 0);
    write_table(&small, path);
    neighbour_free(&small);
    LetterDist ld;
    ld_english(&ld);
    char spec[1200];
    snprintf(spec, sizeof spec, "static:neighbour=%s", path);
    Player p;
    CU_ASSERT_EQUAL_FATAL(player_open(&p, spec, &ld, &err), 0);
    CU_ASSERT_EQUAL(player_check_board(&p, 15, &err), -1);
    CU_ASSERT_TRUE(one_line_naming(&err, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "11x11"));
    player_close(&p);
    /* through the player: a missing file, and the option twice */
    snprintf(spec, sizeof spec, "static:neighbour=%s", missing);
    CU_ASSERT_EQUAL(player_open(&p, spec, &ld, &err), -1);
    CU_ASSERT_TRUE(one_line_naming(&err, missing));
    snprintf(spec, sizeof spec, "static:neighbour=%s,neighbour=%s", path, path);
    CU_ASSERT_EQUAL(player_open(&p, spec, &ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "neighbour given twice"));
    /* never write what the loader refuses */
    a.value[3] = NAN;
    CU_ASSERT_EQUAL(neighbour_write(&a, path, &err), -1);
    CU_ASSERT_TRUE(one_line_naming(&err, path));
    a.value[3] = 1.0e5f;
    CU_ASSERT_EQUAL(neighbour_write(&a, path, &err), -1);
    neighbour_free(&a);
}

/* --------------------------------------------------------- by hand */

/* Lexicon AT, TA. AT across on (7,7)-(7,8) (A on the star); rack T, 1 point. The plays are
 * down moves in column H (col 7): H7 T(A), T on (6,7), and H8 (A)T, T on (8,7); each scores
 * 1 + 1 = 2 (neither square is a premium, no cross word). Nothing else: TT, TAT and ATT are
 * not words. Both squares have the premium neighbours (7,7) DW (taken), and two double
 * letters (open): state 1. A down tile at (r, c) reads the transposed square (c, r):
 * (6,7) -> (7,6) = 111, (8,7) -> (7,8) = 113.
 * Table 1: +3.0 at (113, state 1, bucket 1): H8 (A)T = 2000 + 3000 = 5000, H7 T(A) 2000.
 * Table 2: +3.0 at (111, state 1, bucket 1): H7 T(A) 5000, H8 (A)T 2000.
 * Decoys, -50 points each, that only a wrong implementation would read: the same cell in
 * states 0 and 2, and the untransposed squares (8,7) = 127 and (6,7) = 97 in state 1. */
typedef struct Hand {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game *g;
    char dir[256];
} Hand;

static void choose_scaled(Hand *h, const NeighbourTable *t, const char *scale, Move *m, char *text, size_t cap) {
    char path[400], spec[500];
    snprintf(path, sizeof path, "%s/hand.nbv", h->dir);
    write_table(t, path);
    snprintf(spec, sizeof spec, "static:neighbour=%s%s", path, scale);
    Player p;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(player_open(&p, spec, &h->ld, &err), 0);
    CU_ASSERT_EQUAL_FATAL(player_check_board(&p, 15, &err), 0);
    player_choose(&p, h->g, m);
    move_to_string(m, &h->g->board, &h->ld, text, cap);
    player_close(&p);
}

static void choose_with(Hand *h, const NeighbourTable *t, Move *m, char *text, size_t cap) {
    choose_scaled(h, t, "", m, text, cap);
}

static void test_move_by_hand(void) {
    Hand h;
    static const char *const WORDS[] = {"AT", "TA"};
    ld_english(&h.ld);
    layout_standard15(&h.lay);
    tu_build_lex(&h.kwg, &h.ld, WORDS, 2);
    tu_tmpdir(h.dir, sizeof h.dir);
    h.g = malloc(sizeof *h.g);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(cgp_parse(h.g, "15/15/15/15/15/15/15/7AT6/15/15/15/15/15/15/15 T/B 0/0 0", &h.ld, &h.lay,
                                    &h.kwg, 3, &err),
                          0);
    CU_ASSERT_FATAL(h.g->bag.count > 0);
    CU_ASSERT_EQUAL(neighbour_state(&h.g->board, 6, 7), 1);
    CU_ASSERT_EQUAL(neighbour_state(&h.g->board, 8, 7), 1);
    Player plain;
    CU_ASSERT_EQUAL_FATAL(player_open(&plain, "static", &h.ld, &err), 0);
    Move m;
    char text[64];
    player_choose(&plain, h.g, &m);
    move_to_string(&m, &h.g->board, &h.ld, text, sizeof text);
    player_close(&plain);
    CU_ASSERT_EQUAL(m.equity, 2000);
    CU_ASSERT_TRUE(strcmp(text, "H7 T(A)") == 0 || strcmp(text, "H8 (A)T") == 0);

    NeighbourTable t;
    CU_ASSERT_EQUAL_FATAL(neighbour_init_zero(&t, 15, 11, &err), 0);
    /* a zero table: the same move */
    choose_with(&h, &t, &m, text, sizeof text);
    CU_ASSERT_EQUAL(m.equity, 2000);
    const int cells[2] = {113, 111}, wrong[2] = {SQ(8, 7), SQ(6, 7)};
    const char *want[2] = {"H8 (A)T", "H7 T(A)"};
    for (int k = 0; k < 2; k++) {
        memset(t.value, 0, 225 * 3 * 11 * sizeof(float));
        t.value[neighbour_index(&t, cells[k], 1, 1)] = 3.0f;
        t.value[neighbour_index(&t, cells[k], 0, 1)] = -50.0f;
        t.value[neighbour_index(&t, cells[k], 2, 1)] = -50.0f;
        t.value[neighbour_index(&t, wrong[k], 1, 1)] = -50.0f;
        choose_with(&h, &t, &m, text, sizeof text);
        CU_ASSERT_STRING_EQUAL(text, want[k]);
        CU_ASSERT_EQUAL(m.equity, 5000);
        CU_ASSERT_EQUAL(neighbour_move_adjust(&t, &h.g->board, &m), 3000);
    }
    /* the last table scaled: by 0.5, the same move at 2000 + 1500; by 0.01, H7 T(A)
     * 2000 + 30, H8 (A)T 2000 */
    choose_scaled(&h, &t, ",neighbour_scale=0.5", &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "H7 T(A)");
    CU_ASSERT_EQUAL(m.equity, 3500);
    choose_scaled(&h, &t, ",neighbour_scale=0.01", &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "H7 T(A)");
    CU_ASSERT_EQUAL(m.equity, 2030);
    Player bad;
    CU_ASSERT_EQUAL(player_open(&bad, "static:neighbour_scale=0.5", &h.ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "goes with neighbour="));
    CU_ASSERT_EQUAL(player_open(&bad, "static:neighbour_scale=-1", &h.ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "neighbour_scale"));
    /* the value of the cell in state 0 instead: no move has a tile in state 0 there, the
     * decoy states and squares cost 50: the other move (2000) wins */
    memset(t.value, 0, 225 * 3 * 11 * sizeof(float));
    t.value[neighbour_index(&t, 113, 0, 1)] = 3.0f;
    t.value[neighbour_index(&t, 111, 1, 1)] = -50.0f;
    choose_with(&h, &t, &m, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "H8 (A)T");
    CU_ASSERT_EQUAL(m.equity, 2000);
    /* an exchange or a pass has no tiles */
    Move pass = {.kind = MOVE_PASS};
    CU_ASSERT_EQUAL(neighbour_move_adjust(&t, &h.g->board, &pass), 0);
    neighbour_free(&t);
    free(h.g);
    kwg_free(&h.kwg);
}

/* ------------------------------------------- zero table, random table */

/* The adjustment of m computed independently: each fresh tile's square by hand, its state
 * by counting premium neighbours. */
static int32_t by_hand(const NeighbourTable *t, const Board *b, const Move *m) {
    if (m->kind != MOVE_PLACE) return 0;
    int32_t sum = 0;
    for (int i = 0; i < m->len; i++) {
        if (m->tiles[i] == MOVE_PLAYED_THROUGH) continue;
        int r = m->row, c = m->col;
        if (m->dir == DIR_ACROSS) c += i;
        else r += i;
        int canon = m->dir == DIR_ACROSS ? r * 15 + c : c * 15 + r;
        int prem = 0, taken = 0;
        int nr[4] = {r - 1, r + 1, r, r}, nc[4] = {c, c, c - 1, c + 1};
        for (int d = 0; d < 4; d++) {
            if (nr[d] < 0 || nr[d] > 14 || nc[d] < 0 || nc[d] > 14) continue;
            if (!premium(b->layout, nr[d], nc[d])) continue;
            prem++;
            taken += board_at(b, nr[d], nc[d]) != 0;
        }
        int state = taken == 0 ? 0 : taken < prem ? 1 : 2;
        uint8_t tile = m->tiles[i];
        int v = RK_IS_BLANKED(tile) ? 0 : b->ld->score[tile];
        float x = t->value[(canon * 3 + state) * 11 + (v > 10 ? 10 : v)];
        sum += (int32_t)lround(1000.0 * x);
    }
    return sum;
}

typedef struct Compare {
    const Player *plain, *zero, *rnd;
    const NeighbourTable *table;
    MoveList *all;
    int decisions, same_zero, same_oracle, changed, states[3];
} Compare;

static void compare(const Game *g, const Move *played, void *vctx) {
    (void)played;
    Compare *c = vctx;
    if (g->bag.count == 0) return;
    Move a, z, r;
    player_choose(c->plain, g, &a);
    player_choose(c->zero, g, &z);
    player_choose(c->rnd, g, &r);
    c->decisions++;
    c->same_zero += move_same(&a, &z) && a.equity == z.equity;
    c->changed += !move_same(&a, &r);
    /* the oracle: every move, plain equity + the independent adjustment */
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    movegen_all(&req, c->all);
    size_t best = 0;
    for (size_t i = 0; i < c->all->count; i++) {
        Move *m = &c->all->moves[i];
        m->equity += by_hand(c->table, &g->board, m);
        if (i > 0 && movegen_compare(m, &c->all->moves[best]) < 0) best = i;
    }
    c->same_oracle += move_same(&c->all->moves[best], &r) && c->all->moves[best].equity == r.equity;
    for (int row = 0; row < 15; row++)
        for (int col = 0; col < 15; col++) c->states[neighbour_state(&g->board, row, col)]++;
}

static void test_players(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    if (!tu_load_sowpods(&kwg, &ld)) return;
    layout_standard15(&lay);
    char dir[256], zero[512], rnd[512], spec[1200];
    tu_tmpdir(dir, sizeof dir);
    snprintf(zero, sizeof zero, "%s/zero.nbv", dir);
    snprintf(rnd, sizeof rnd, "%s/random.nbv", dir);
    RkError err;
    NeighbourTable z, t;
    CU_ASSERT_EQUAL_FATAL(neighbour_init_zero(&z, 15, 11, &err), 0);
    CU_ASSERT_EQUAL_FATAL(neighbour_init_zero(&t, 15, 11, &err), 0);
    uint64_t x = 12345;
    for (size_t i = 0; i < 225 * 3 * 11; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        t.value[i] = (float)((double)(x >> 40) / (double)(1ull << 24) * 30.0 - 15.0);
    }
    write_table(&z, zero);
    write_table(&t, rnd);
    Player plain, pz, pr;
    CU_ASSERT_EQUAL_FATAL(player_open(&plain, "static", &ld, &err), 0);
    snprintf(spec, sizeof spec, "static:neighbour=%s", zero);
    CU_ASSERT_EQUAL_FATAL(player_open(&pz, spec, &ld, &err), 0);
    snprintf(spec, sizeof spec, "static:neighbour=%s", rnd);
    CU_ASSERT_EQUAL_FATAL(player_open(&pr, spec, &ld, &err), 0);
    MoveList all;
    movelist_init(&all);
    Compare c = {.plain = &plain, .zero = &pz, .rnd = &pr, .table = &t, .all = &all};
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .seed = 4};
    Game *g = malloc(sizeof *g);
    for (uint64_t i = 0; i < 6; i++) selfplay_game(&cfg, i, g, NULL, compare, &c);
    printf("(%d decisions: %d the same with a zero table; random table: %d changed, %d as the oracle; "
           "squares in states 0/1/2: %d/%d/%d) ",
           c.decisions, c.same_zero, c.changed, c.same_oracle, c.states[0], c.states[1], c.states[2]);
    CU_ASSERT_TRUE(c.decisions > 60);
    CU_ASSERT_EQUAL(c.same_zero, c.decisions);
    CU_ASSERT_EQUAL(c.same_oracle, c.decisions);
    CU_ASSERT_TRUE(c.changed > c.decisions / 2);
    CU_ASSERT_TRUE(c.states[1] > 0 && c.states[2] > 0);
    free(g);
    movelist_free(&all);
    player_close(&plain);
    player_close(&pz);
    player_close(&pr);
    neighbour_free(&z);
    neighbour_free(&t);
    kwg_free(&kwg);
}

/* ------------------------------------------------------------- study */

static void test_study(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    if (!tu_load_sowpods(&kwg, &ld)) return;
    layout_standard15(&lay);
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .seed = 9};
    char dir[256], path[512];
    tu_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/study.nbv", dir);
    RkError err;
    for (int target = 0; target < 2; target++) {
        NeighbourStudy st;
        CU_ASSERT_EQUAL_FATAL(neighbour_study_run(&cfg, (ResidualTarget)target, 30, 10, &st, &err), 0);
        CU_ASSERT_TRUE(st.train_moves > 400 && st.test_moves > 100);
        /* both derivations saw the same tile observations, split over the states */
        CU_ASSERT_EQUAL(st.info.observations, st.plain_info.observations);
        CU_ASSERT_EQUAL(st.state_obs[0] + st.state_obs[1] + st.state_obs[2], st.info.observations);
        CU_ASSERT_TRUE(st.state_obs[1] > 0);
        CU_ASSERT_TRUE(st.test.var > 0 && isfinite(st.test.var_adj) && isfinite(st.test_plain.var_adj));
        CU_ASSERT_DOUBLE_EQUAL(st.test.var, st.test_plain.var, 1e-6 * st.test.var);
        CU_ASSERT_TRUE(st.max_abs > 0 && st.max_abs <= SPV_MAX_ABS_VALUE);
        CU_ASSERT_EQUAL_FATAL(neighbour_write(&st.table, path, &err), 0);
        NeighbourTable back;
        CU_ASSERT_EQUAL_FATAL(neighbour_load(&back, path, &err), 0);
        CU_ASSERT_EQUAL(memcmp(back.value, st.table.value, 225 * 3 * 11 * sizeof(float)), 0);
        /* cells of squares with no premium neighbour only ever see state 0 */
        CU_ASSERT_EQUAL(back.value[neighbour_index(&back, SQ(4, 2), 1, 1)], 0.0f);
        neighbour_free(&back);
        neighbour_study_free(&st);
    }
    NeighbourStudy st;
    CU_ASSERT_EQUAL(neighbour_study_run(&cfg, RESIDUAL_EXPOSURE, 0, 1, &st, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no move"));
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"neighbour states by hand on constructed boards", test_state_by_hand},
        {"the .nbv file and its errors", test_file},
        {"a hand-built table changes the move exactly as computed by hand", test_move_by_hand},
        {"zero table = the static player; random table = an independent computation", test_players},
        {"the study on a few games, both targets", test_study},
        CU_TEST_INFO_NULL,
    };
    return tu_run("neighbour", tests);
}
