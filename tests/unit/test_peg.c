/* The pre-endgame solver (search/peg.h).
 *
 * Oracle: positions with 1 and 2 tiles in the bag from static games of the
 * tiny distribution and lexicon, played until the bag is empty and both
 * racks hold at most 3 tiles, then 1 or 2 of the opponent's tiles put back
 * in the bag (short racks keep the endgames small). The solver without pruning or a
 * depth limit must give every bag-emptying candidate exactly the wins,
 * draws, losses and mean that this file finds by brute force: every unseen
 * TILE (not every letter: each physical tile is one equally likely way)
 * or pair of tiles put in the bag, the move played, the rest solved by the
 * exact endgame solver (endgame_solve, itself checked against minimax in
 * test_endgame). SOWPODS positions: a timed solve answers with a legal move
 * in time, ranks its candidates, counts C(unseen, bag) ways. Errors and a
 * stop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "core/movegen.h"
#include "search/endgame.h"
#include "search/peg.h"
#include "worker/endgame_study.h"
#include "testutil.h"


/* The endgame study's static games of this seed. */
static EndgameStudyConfig study(const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed) {
    EndgameStudyConfig c;
    endgame_study_config_defaults(&c);
    c.ld = ld;
    c.layout = lay;
    c.kwg = kwg;
    c.seed = seed;
    return c;
}

/* A position with `bag` tiles in the bag and small racks: static game
 * `index` until the bag is empty and both racks hold at most 3 tiles, then
 * `bag` of the opponent's tiles put back in the bag (the racks stay short,
 * which a CGP allows: the solver draws up to a full rack). False if the
 * game ended first or the opponent holds too few tiles. */
static bool small_peg(Game *g, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t index, int bag) {
    EndgameStudyConfig c = study(ld, lay, kwg, 31);
    c.max_tiles = 3;
    if (!endgame_study_position(&c, index, g)) return false;
    Rack *opp = &g->racks[1 - g->on_turn];
    if (opp->total <= bag) return false;
    for (int k = 0; k < bag; k++) {
        int ml = (int)((index + (uint64_t)k) % (uint64_t)ld->size), tries = 0;
        while (opp->count[ml] == 0 && tries++ < ld->size) ml = (ml + 1) % ld->size;
        rack_remove(opp, (uint8_t)ml);
        bag_add(&g->bag, (uint8_t)ml);
    }
    return true;
}

/* Static game `index` of SOWPODS (the endgame study's, seed 5) until the bag
 * holds exactly `bag` tiles; false if it does not. */
static bool peg_position(Game *g, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t index, int bag) {
    EndgameStudyConfig c = study(ld, lay, kwg, 5);
    return endgame_study_peg_position(&c, index, bag, g);
}

/* Brute force: candidate m's outcomes over every choice of `b` unseen
 * tiles for the bag (tile by tile), each line solved exactly. */
static void brute_force(const Game *g, const Move *m, double *win, double *draw, double *loss, double *mean) {
    Rack unseen;
    game_unseen(g, &unseen);
    uint8_t tiles[64];
    int n = 0;
    for (int ml = 0; ml < g->ld->size; ml++)
        for (int k = 0; k < unseen.count[ml]; k++) tiles[n++] = (uint8_t)ml;
    int b = g->bag.count, me = g->on_turn, opp = 1 - me;
    int spread = g->scores[me] - g->scores[opp];
    *win = *draw = *loss = *mean = 0;
    double ways = 0;
    EndgameConfig cfg;
    endgame_config_defaults(&cfg);
    cfg.table_bits = 16;
    EndgameResult r;
    endgame_result_init(&r);
    RkError err;
    Game *w = malloc(sizeof *w);
    CU_ASSERT_FATAL(w != NULL);
    for (int i = 0; i < n; i++)
        for (int j = b == 2 ? i + 1 : n - 1; j < n; j++) {
            *w = *g;
            rack_clear(&w->racks[opp]);
            w->bag.count = 0;
            for (int k = 0; k < n; k++) {
                if (k == i || (b == 2 && k == j)) bag_add(&w->bag, tiles[k]);
                else rack_add(&w->racks[opp], tiles[k]);
            }
            game_play(w, m);
            CU_ASSERT_FATAL(w->bag.count == 0);
            int32_t v = (w->scores[me] - w->scores[opp]) - spread;
            if (!game_over(w)) {
                CU_ASSERT_FATAL(endgame_solve(w, &cfg, &r, &err) == 0);
                v -= r.best_value;
            }
            int end = spread + v;
            *win += end > 0;
            *draw += end == 0;
            *loss += end < 0;
            *mean += v;
            ways += 1;
        }
    *mean /= ways;
    free(w);
    endgame_result_free(&r);
}

/* Positions of `bag` tiles from the tiny game: every bag-emptying candidate
 * of the unpruned solve equals the brute force. Returns positions checked. */
static int tiny_oracle(int bag, int want, uint64_t games) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    PegConfig cfg;
    peg_config_defaults(&cfg);
    cfg.prune = false;
    PegResult r;
    peg_result_init(&r);
    RkError err;
    int checked = 0, cands = 0, bad = 0, estimates = 0;
    for (uint64_t gi = 0; gi < games && checked < want; gi++) {
        if (!small_peg(g, &ld, &lay, &kwg, gi, bag)) continue;
        CU_ASSERT_FATAL(peg_solve(g, &cfg, &r, NULL, NULL, &err) == 0);
        Rack unseen;
        game_unseen(g, &unseen);
        double want_ways = bag == 1 ? unseen.total : unseen.total * (unseen.total - 1) / 2.0;
        CU_ASSERT_DOUBLE_EQUAL(r.ways, want_ways, 1e-9);
        CU_ASSERT(r.stage >= 1);
        CU_ASSERT(r.cand[0].exact || !r.cand[0].empties_bag);
        CU_ASSERT_EQUAL(r.alive, r.count);
        for (int i = 0; i < r.count; i++) {
            const PegCandidate *c = &r.cand[i];
            if (i > 0) CU_ASSERT(c->share <= r.cand[i - 1].share);
            if (!c->empties_bag) {
                CU_ASSERT(!c->exact);
                estimates++;
                continue;
            }
            CU_ASSERT(c->exact);
            double w, d, l, mean;
            brute_force(g, &c->move, &w, &d, &l, &mean);
            bool same = c->win == w && c->draw == d && c->loss == l && fabs(c->mean - mean) < 1e-9;
            if (!same && bad < 5) {
                char text[64];
                move_to_string(&c->move, &g->board, &ld, text, sizeof text);
                printf("\n  game %llu %s: peg %.0f-%.0f-%.0f mean %.3f, brute force %.0f-%.0f-%.0f mean %.3f",
                       (unsigned long long)gi, text, c->win, c->draw, c->loss, c->mean, w, d, l, mean);
            }
            bad += !same;
            cands++;
        }
        checked++;
    }
    printf("\n  bag %d: %d positions, %d candidates checked, %d estimated ", bag, checked, cands, estimates);
    CU_ASSERT_EQUAL(bad, 0);
    peg_result_free(&r);
    free(g);
    kwg_free(&kwg);
    return checked;
}

static void test_oracle_one_tile(void) { CU_ASSERT(tiny_oracle(1, tu_size(12, 4), 400) >= tu_size(12, 4)); }

static void test_oracle_two_tiles(void) { CU_ASSERT(tiny_oracle(2, tu_size(6, 2), 400) >= tu_size(6, 2)); }

/* SOWPODS positions under a deadline: an answer in time, legal, ranked. */
static void test_timed_sowpods(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    ld_english(&ld);
    layout_standard15(&lay);
    if (!tu_load_sowpods(&kwg, &ld)) return; /* said by tu_missing (a failure under CI) */
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    PegResult r;
    peg_result_init(&r);
    RkError err;
    int done[3] = {0, 0, 0};
    for (uint64_t gi = 0; gi < 200 && (done[1] < tu_size(3, 1) || done[2] < tu_size(3, 1)); gi++) {
        int bag = 1 + (int)(gi % 2);
        if (done[bag] >= tu_size(3, 1) || !peg_position(g, &ld, &lay, &kwg, gi, bag)) continue;
        PegConfig cfg;
        peg_config_defaults(&cfg);
        double t0 = rk_seconds();
        cfg.deadline = t0 + 0.3;
        CU_ASSERT_FATAL(peg_solve(g, &cfg, &r, NULL, NULL, &err) == 0);
        double dt = rk_seconds() - t0;
        CU_ASSERT(dt < 0.3 + tu_size(1, 3) * 0.5); /* the stop is seen within one line */
        CU_ASSERT(r.count > 0);
        CU_ASSERT(r.best == 0);
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        MoveList all;
        movelist_init(&all);
        movegen_all(&req, &all);
        bool legal = false;
        for (size_t k = 0; k < all.count; k++) legal |= move_same(&all.moves[k], &r.cand[0].move);
        CU_ASSERT(legal);
        movelist_free(&all);
        Rack unseen;
        game_unseen(g, &unseen);
        double want = bag == 1 ? unseen.total : unseen.total * (unseen.total - 1) / 2.0;
        CU_ASSERT_DOUBLE_EQUAL(r.ways, want, 1e-9);
        if (r.stage >= 1) {
            double sum = r.cand[0].win + r.cand[0].draw + r.cand[0].loss;
            CU_ASSERT_DOUBLE_EQUAL(sum, want, 1e-9);
        }
        done[bag]++;
    }
    CU_ASSERT(done[1] >= tu_size(3, 1));
    CU_ASSERT(done[2] >= tu_size(3, 1));
    peg_result_free(&r);
    free(g);
    kwg_free(&kwg);
}

static void test_stop_and_errors(void) {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    tu_open_tiny(&ld, &lay, &kwg);
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    uint64_t gi = 0;
    while (!small_peg(g, &ld, &lay, &kwg, gi, 1)) gi++;
    PegConfig cfg;
    peg_config_defaults(&cfg);
    PegResult r;
    peg_result_init(&r);
    RkError err;
    /* a stop already set: the static order's first move, no stage */
    atomic_bool stop = true;
    cfg.stop = &stop;
    CU_ASSERT_EQUAL(peg_solve(g, &cfg, &r, NULL, NULL, &err), 0);
    CU_ASSERT(r.count > 0);
    CU_ASSERT_EQUAL(r.stage, 0);
    cfg.stop = NULL;
    cfg.max_depth = 1; /* one stage */
    CU_ASSERT_EQUAL(peg_solve(g, &cfg, &r, NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(r.stage, 1);
    cfg.max_depth = -1;
    CU_ASSERT_EQUAL(peg_solve(g, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "depth") != NULL);
    cfg.max_depth = 0;
    cfg.table_bits = ENDGAME_MAX_TABLE_BITS + 1;
    CU_ASSERT_EQUAL(peg_solve(g, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "table") != NULL);
    cfg.table_bits = 16;
    Game empty = *g;
    empty.bag.count = 0;
    CU_ASSERT_EQUAL(peg_solve(&empty, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "bag holds 0") != NULL);
    Game noopp = *g; /* the opponent's rack empty: nothing to deal it */
    rack_clear(&noopp.racks[1 - noopp.on_turn]);
    CU_ASSERT_EQUAL(peg_solve(&noopp, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "opponent's rack is empty") != NULL);
    cfg.only_count = 2; /* a list without its moves */
    CU_ASSERT_EQUAL(peg_solve(g, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "without the moves") != NULL);
    cfg.only_count = 0;
    Game three = *g;
    bag_add(&three.bag, 1);
    bag_add(&three.bag, 1);
    CU_ASSERT_EQUAL(peg_solve(&three, &cfg, &r, NULL, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "bag holds 3") != NULL);
    peg_result_free(&r);
    free(g);
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {{"oracle, 1 tile in the bag", test_oracle_one_tile},
                           {"oracle, 2 tiles in the bag", test_oracle_two_tiles},
                           {"timed SOWPODS positions", test_timed_sowpods},
                           {"stop and errors", test_stop_and_errors},
                           CU_TEST_INFO_NULL};
    return tu_run("peg", tests);
}
