/* The lexicon pruned to one position's words (core/kwg_prune.h).
 *
 * Oracle: on SOWPODS endgames (static games played until the bag is empty)
 * and along random lines of moves from them, the moves generated from the
 * pruned lexicon, on a board whose cross-sets were kept with it, are the
 * moves generated from the whole lexicon (same placements, same scores),
 * for the player on turn and the other. Every pruned word is a lexicon word.
 * A hand-made position: the words it must hold and must not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kwg_prune.h"
#include "core/movegen.h"
#include "core/rng.h"
#include "testutil.h"

static int cmp_moves(const void *a, const void *b) { return movegen_compare(a, b); }

/* The placements of the rack of player p on g, sorted. */
static void placements(const Game *g, int p, MoveList *out) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    req.rack = &g->racks[p];
    req.exchanges_allowed = false;
    movegen_all(&req, out);
    qsort(out->moves, out->count, sizeof *out->moves, cmp_moves);
}

/* Whether the two lists hold the same moves with the same scores. */
static bool same_lists(const MoveList *a, const MoveList *b) {
    if (a->count != b->count) return false;
    for (size_t i = 0; i < a->count; i++)
        if (!move_same(&a->moves[i], &b->moves[i]) || a->moves[i].score != b->moves[i].score) return false;
    return true;
}

typedef struct WordCheck {
    const Kwg *full;
    size_t words, missing;
} WordCheck;

static int word_in_full(const uint8_t *ml, int len, void *ctx) {
    WordCheck *c = ctx;
    c->words++;
    if (!kwg_has_word(c->full, ml, len)) c->missing++;
    return 0;
}

static void pool_racks(const Game *g, Rack *pool) {
    *pool = g->racks[0];
    for (int ml = 0; ml < g->ld->size; ml++) pool->count[ml] += g->racks[1].count[ml];
    pool->total += g->racks[1].total;
}

static void test_same_moves_as_the_lexicon(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    Game *pruned = malloc(sizeof *pruned);
    CU_ASSERT_FATAL(pruned != NULL);
    MoveList a, b;
    movelist_init(&a);
    movelist_init(&b);
    Rng rng;
    rng_seed(&rng, 77);
    int positions = 0, compared = 0, differ = 0, with_blank = 0;
    size_t words = 0;
    const int games = tu_size(120, 30);
    for (int gi = 0; gi < games; gi++) {
        tu_env_position(&e, 5, (uint64_t)gi, 0, NULL);
        if (game_over(e.g)) continue;
        positions++;
        Rack pool;
        pool_racks(e.g, &pool);
        with_blank += pool.count[0] > 0;
        Kwg lex;
        RkError err;
        size_t n = 0;
        CU_ASSERT_FATAL(kwg_prune(&e.kwg, &e.g->board, &pool, &lex, &n, &err) == 0);
        words += n;
        WordCheck wc = {&e.kwg, 0, 0};
        kwg_foreach_word(&lex, 15, word_in_full, &wc);
        CU_ASSERT(wc.words == n);
        CU_ASSERT(wc.missing == 0);
        *pruned = *e.g;
        pruned->kwg = &lex;
        pruned->board.kwg = &lex;
        /* a random line of moves, both games played alike: the whole
         * lexicon's board and the pruned one's */
        while (!game_over(e.g)) {
            for (int p = 0; p < 2; p++) {
                if (e.g->racks[p].total == 0) continue;
                placements(e.g, p, &a);
                placements(pruned, p, &b);
                compared++;
                if (!same_lists(&a, &b)) {
                    differ++;
                    if (differ <= 3)
                        printf("\n  game %d: %zu moves from the lexicon, %zu from the pruned one", gi, a.count,
                               b.count);
                }
            }
            placements(e.g, e.g->on_turn, &a);
            Move m = {.kind = MOVE_PASS};
            if (a.count > 0 && rng_below(&rng, 8) != 0) m = a.moves[rng_below(&rng, (uint32_t)a.count)];
            game_play(e.g, &m);
            game_play(pruned, &m);
        }
        kwg_free(&lex);
    }
    printf("\n  %d positions, %d move lists compared, %d with a blank, %.0f words a position", positions, compared,
           with_blank, positions ? (double)words / positions : 0.0);
    CU_ASSERT(positions >= games * 3 / 4);
    CU_ASSERT(compared >= 4 * positions);
    CU_ASSERT(with_blank >= 1);
    CU_ASSERT(differ == 0);
    movelist_free(&a);
    movelist_free(&b);
    free(pruned);
    tu_env_close(&e);
}

/* A hand-made board: CAT across the centre; racks S and OH. The pruned
 * lexicon holds CATS (the line's tiles plus S), HOT and OH (rack tiles
 * alone), HOTS (down through the T), and not DOG (no D or G anywhere), CAT
 * itself (no rack tile) nor SHOTS (one S). */
static void test_words_of_a_position(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    Game *g = e.g;
    game_new(g, &e.ld, &e.lay, &e.kwg, 1, 0, 0);
    RkError err;
    Move m;
    CU_ASSERT_FATAL(move_parse(&m, "8G CAT", &g->board, &e.ld, &err) == 0);
    m.score = board_score_move(&g->board, &m);
    board_place_move(&g->board, &m);
    Rack pool;
    rack_clear(&pool);
    const char *tiles = "SOH";
    for (const char *t = tiles; *t; t++) rack_add(&pool, (uint8_t)(*t - 'A' + 1));
    Kwg lex;
    CU_ASSERT_FATAL(kwg_prune(&e.kwg, &g->board, &pool, &lex, NULL, &err) == 0);
    const char *has[] = {"CATS", "HOT", "OH", "SOH", "SH", "HOTS"};
    const char *not[] = {"DOG", "CAT", "CHATS", "SHOTS"}; /* lexicon words all */
    for (size_t i = 0; i < sizeof has / sizeof *has; i++) {
        uint8_t w[16];
        int n = (int)strlen(has[i]);
        for (int j = 0; j < n; j++) w[j] = (uint8_t)(has[i][j] - 'A' + 1);
        CU_ASSERT(kwg_has_word(&lex, w, n));
    }
    for (size_t i = 0; i < sizeof not / sizeof *not; i++) {
        uint8_t w[16];
        int n = (int)strlen(not[i]);
        for (int j = 0; j < n; j++) w[j] = (uint8_t)(not[i][j] - 'A' + 1);
        CU_ASSERT(kwg_has_word(&e.kwg, w, n));
        CU_ASSERT(!kwg_has_word(&lex, w, n));
    }
    kwg_free(&lex);
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {{"same moves as the whole lexicon", test_same_moves_as_the_lexicon},
                           {"the words of a position", test_words_of_a_position},
                           CU_TEST_INFO_NULL};
    return tu_run("kwg_prune", tests);
}
