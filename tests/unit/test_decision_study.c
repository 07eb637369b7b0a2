/* The decision study (worker/decision_study.h): position i is a state of
 * static game i with tiles in the bag, found by an independent replay; with
 * 0 plies every reference value is score + leave exactly, so the best value
 * and each player's loss are checked against every legal move; the totals
 * are exact sums (two halves of the positions, or the shares of 3 ranks,
 * add up to the whole); the summary's means and standard errors on hand-made items; the
 * same seed gives the same items; bad configurations are refused. Real
 * SOWPODS positions, pseudo-random leave values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "worker/decision_study.h"
#include "testutil.h"

/* Leave values: a fixed pseudo-random function of the multiset. */
static int32_t hash_leave(const void *ctx, const Rack *leave) {
    (void)ctx;
    uint64_t h = 1469598103934665603ULL;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) h = (h ^ leave->count[ml]) * 1099511628211ULL;
    return (int32_t)(h % 20001) - 10000;
}

static DecisionStudyConfig config(const TuEnv *e, int candidates, int plies, int iterations) {
    DecisionStudyConfig c;
    decision_study_config_defaults(&c);
    c.ld = &e->ld;
    c.layout = &e->lay;
    c.kwg = &e->kwg;
    c.leave_value = c.game_leave_value = hash_leave;
    c.seed = 5;
    c.candidates = candidates;
    c.plies = plies;
    c.iterations = iterations;
    return c;
}

static void open_players(Player *p, int n, const char *const *specs, const LetterDist *ld) {
    RkError err;
    for (int k = 0; k < n; k++) {
        memset(&p[k], 0, sizeof p[k]);
        CU_ASSERT_FATAL(player_open(&p[k], specs[k], ld, &err) == 0);
    }
}

static void test_positions_are_static_game_states(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    DecisionStudyConfig c = config(&e, 10, 0, 2);
    Game *replay = malloc(sizeof *replay);
    int n = tu_size(40, 12), found = 0, early = 0, late = 0;
    char want[1024], got[1024];
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        decision_study_position(&c, i, e.g);
        CU_ASSERT(!game_over(e.g));
        CU_ASSERT(e.g->bag.count > 0);
        early += e.g->bag.count >= 60;
        late += e.g->bag.count <= 20;
        cgp_write(e.g, NULL, want, sizeof want);
        /* the same state along game i of the seed, static moves under the leaves */
        game_new(replay, &e.ld, &e.lay, &e.kwg, c.seed, 0, i);
        bool hit = false;
        while (!game_over(replay) && replay->bag.count > 0 && !hit) {
            cgp_write(replay, NULL, got, sizeof got);
            hit = strcmp(got, want) == 0 && replay->bag.count == e.g->bag.count;
            MoveGenRequest req;
            movegen_request_for_game(&req, replay);
            req.leave_value = hash_leave;
            Move m;
            movegen_best(&req, &m, NULL);
            game_play(replay, &m);
        }
        found += hit;
    }
    CU_ASSERT_EQUAL(found, n);
    CU_ASSERT(early > 0); /* the move is drawn over the whole game, not always the same */
    CU_ASSERT(late > 0);
    /* the positions follow the games' leaves, not the reference's */
    DecisionStudyConfig ref_only = c, games_too = c;
    ref_only.leave_value = NULL;
    games_too.game_leave_value = NULL;
    int same_ref = 0, same_games = 0;
    for (uint64_t i = 0; i < 10; i++) {
        char a[1024], b[1024];
        decision_study_position(&c, i, e.g);
        cgp_write(e.g, NULL, want, sizeof want);
        decision_study_position(&ref_only, i, e.g);
        cgp_write(e.g, NULL, a, sizeof a);
        decision_study_position(&games_too, i, e.g);
        cgp_write(e.g, NULL, b, sizeof b);
        same_ref += strcmp(a, want) == 0;
        same_games += strcmp(b, want) == 0;
    }
    CU_ASSERT_EQUAL(same_ref, 10);
    CU_ASSERT(same_games < 10);
    free(replay);
    tu_env_close(&e);
}

/* score + leave of m for the player on turn, minus the opponent's tempo
 * (the win model's mean(t) for the tiles left after m): the reference's
 * value at 0 plies (search/sim.h). */
static double value0(const Game *g, const Move *m) {
    WinValue w;
    win_value_defaults(&w);
    int left = g->bag.count + g->racks[0].total + g->racks[1].total - (m->kind == MOVE_PLACE ? m->ntiles : 0);
    return m->score + move_leave_value(hash_leave, NULL, &g->racks[g->on_turn], m) / 1000.0 -
           winprob_mean(&w.model, left);
}

static void test_zero_plies_oracle(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    const char *specs[2] = {"static:leaves=zero", "sim:plies=1,candidates=3,iterations=4,leaves=zero"};
    Player p[2];
    open_players(p, 2, specs, &e.ld);
    const Player *order[2] = {&p[0], &p[1]};
    DecisionStudyConfig c = config(&e, SIM_MAX_CANDIDATES - 2, 0, 3);
    DecisionStudy *s = decision_study_new(&c, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    DecisionStudyConfig c1 = config(&e, 1, 0, 3); /* the top static move and the players' */
    DecisionStudy *s1 = decision_study_new(&c1, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
    DecisionItem item, item1;
    MoveList all;
    movelist_init(&all);
    int n = tu_size(25, 8), bad = 0, lossy = 0, extra = 0;
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        CU_ASSERT_FATAL(decision_study_score(s, order, i, &item, &err) == 0);
        MoveGenRequest req;
        movegen_request_for_game(&req, item.game);
        req.leave_value = hash_leave;
        all.count = 0;
        movegen_all(&req, &all);
        movelist_sort_by_equity(&all);
        double best = -1e9;
        for (size_t m = 0; m < all.count; m++) best = fmax(best, value0(item.game, &all.moves[m]));
        if (fabs(item.best_value - best) > 1e-9 || fabs(value0(item.game, &item.best) - best) > 1e-9) {
            if (bad < 5) printf("\n  position %llu: best value %.6f, %.6f over every move", (unsigned long long)i, item.best_value, best);
            bad++;
        }
        for (int k = 0; k < 2; k++) {
            double want = best - value0(item.game, &item.chosen[k]);
            if (fabs(item.loss[k] - want) > 1e-9 || item.loss_se[k] > 1e-9 ||
                item.best_chosen[k] != move_same(&item.chosen[k], &item.best)) {
                if (bad < 5) printf("\n  position %llu player %d: loss %.6f (se %g), want %.6f", (unsigned long long)i, k, item.loss[k], item.loss_se[k], want);
                bad++;
            }
            lossy += item.loss[k] > 0.5;
        }
        CU_ASSERT(item.candidates >= 1 && item.candidates <= SIM_MAX_CANDIDATES);
        /* the reference best's static rank: its place in the list by equity, within the R best */
        int at = -1;
        for (size_t m = 0; m < all.count && at < 0; m++)
            if (move_same(&all.moves[m], &item.best)) at = (int)m;
        int want_rank = at >= 0 && at < c.candidates ? at + 1 : 0;
        if (item.best_static_rank != want_rank) {
            if (bad < 5) printf("\n  position %llu: static rank %d, want %d", (unsigned long long)i, item.best_static_rank, want_rank);
            bad++;
        }
        /* one reference candidate: the players' moves are simulated too */
        CU_ASSERT_FATAL(decision_study_score(s1, order, i, &item1, &err) == 0);
        const Move *set[3] = {&all.moves[0], &item1.chosen[0], &item1.chosen[1]};
        int distinct = 1;
        double top = value0(item1.game, set[0]);
        for (int k = 1; k < 3; k++) {
            distinct += !move_same(set[k], set[0]) && (k == 1 || !move_same(set[k], set[1]));
            top = fmax(top, value0(item1.game, set[k]));
        }
        if (item1.candidates != distinct || fabs(item1.best_value - top) > 1e-9) {
            if (bad < 5) printf("\n  position %llu, 1 candidate: %d simulated (want %d), best %.6f (want %.6f)", (unsigned long long)i, item1.candidates, distinct, item1.best_value, top);
            bad++;
        }
        extra += distinct > 1;
        bad += item1.best_static_rank != (move_same(&item1.best, &all.moves[0]) ? 1 : 0);
    }
    CU_ASSERT(extra > 0); /* some positions had a player's move besides the top one */
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(lossy > 0); /* the players choose by score, the reference by score + leave */
    movelist_free(&all);
    decision_study_free(s);
    decision_study_free(s1);
    for (int k = 0; k < 2; k++) player_close(&p[k]);
    tu_env_close(&e);
}

/* The totals' deterministic fields (all but the times). */
static void fields(const DecisionTotals *t, int64_t out[DECISION_TOTALS_FIELDS]) {
    DecisionTotals u = *t;
    memset(u.player_us, 0, sizeof u.player_us);
    u.reference_us = 0;
    decision_totals_pack(&u, out);
}

static void test_totals_split_exactly(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    const char *specs[2] = {"static:leaves=zero", "sim:iterations=8,candidates=4,plies=1"};
    Player p[2];
    open_players(p, 2, specs, &e.ld);
    const Player *order[2] = {&p[0], &p[1]};
    DecisionStudyConfig c = config(&e, 5, 1, 12);
    DecisionStudy *s = decision_study_new(&c, 2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    DecisionTotals whole, half[2], again;
    memset(&whole, 0, sizeof whole);
    memset(half, 0, sizeof half);
    memset(&again, 0, sizeof again);
    DecisionItem item, first;
    int n = tu_size(10, 4);
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        CU_ASSERT_FATAL(decision_study_score(s, order, i, &item, &err) == 0);
        if (i == 0) first = item;
        decision_totals_add(&whole, &item);
        decision_totals_add(&half[i % 2], &item);
    }
    for (uint64_t i = (uint64_t)n; i-- > 0;) { /* another order, the same sums */
        CU_ASSERT_FATAL(decision_study_score(s, order, i, &item, &err) == 0);
        decision_totals_add(&again, &item);
    }
    /* the same position, the same scores, whatever came before */
    CU_ASSERT(move_same(&item.chosen[0], &first.chosen[0]) && move_same(&item.chosen[1], &first.chosen[1]));
    CU_ASSERT(memcmp(item.loss, first.loss, sizeof item.loss) == 0);
    int64_t a[DECISION_TOTALS_FIELDS], b[DECISION_TOTALS_FIELDS], h[DECISION_TOTALS_FIELDS], r[DECISION_TOTALS_FIELDS];
    fields(&whole, a);
    fields(&half[0], h);
    fields(&half[1], b);
    for (int f = 0; f < DECISION_TOTALS_FIELDS; f++) h[f] += b[f];
    fields(&again, r);
    CU_ASSERT(memcmp(a, h, sizeof a) == 0);
    CU_ASSERT(memcmp(a, r, sizeof a) == 0);
    /* the shares of 3 "ranks" add up to the whole too */
    c.positions = n;
    int64_t sum3[DECISION_TOTALS_FIELDS] = {0};
    for (int rank = 0; rank < 3; rank++) {
        DecisionTotals share;
        CU_ASSERT_FATAL(decision_study_run_share(&c, order, 2, rank, 3, &share, NULL, NULL, &err) == 0);
        fields(&share, b);
        for (int f = 0; f < DECISION_TOTALS_FIELDS; f++) sum3[f] += b[f];
    }
    CU_ASSERT(memcmp(a, sum3, sizeof a) == 0);
    DecisionTotals bad;
    CU_ASSERT_EQUAL(decision_study_run_share(&c, order, 2, 3, 3, &bad, NULL, NULL, &err), -1);
    CU_ASSERT_EQUAL(whole.positions, n);
    CU_ASSERT(whole.loss_se[0] + whole.loss_se[1] > 0); /* 1 ply: the reference has variance */
    DecisionTotals back;
    decision_totals_pack(&whole, a);
    decision_totals_unpack(a, &back);
    CU_ASSERT(memcmp(&back, &whole, sizeof back) == 0);
    /* another seed, other positions */
    DecisionStudyConfig c2 = c;
    c2.seed = 6;
    Game *g2 = malloc(sizeof *g2);
    char x[1024], y[1024];
    decision_study_position(&c, 0, e.g);
    decision_study_position(&c2, 0, g2);
    cgp_write(e.g, NULL, x, sizeof x);
    cgp_write(g2, NULL, y, sizeof y);
    CU_ASSERT(strcmp(x, y) != 0);
    free(g2);
    decision_study_free(s);
    for (int k = 0; k < 2; k++) player_close(&p[k]);
    tu_env_close(&e);
}

static void test_summary(void) {
    /* losses (player 1, player 2): (1, 3), (2, 2), (0, 4) */
    const double l[3][2] = {{1, 3}, {2, 2}, {0, 4}};
    DecisionTotals t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; i++) {
        DecisionItem it;
        memset(&it, 0, sizeof it);
        it.players = 2;
        it.loss[0] = l[i][0];
        it.loss[1] = l[i][1];
        it.best_chosen[0] = l[i][0] == 0;
        it.loss_se[0] = 0.5;
        it.player_seconds[1] = 0.002;
        it.candidates = 12;
        decision_totals_add(&t, &it);
    }
    DecisionSummary s0, s1;
    decision_summary(&t, 0, &s0);
    decision_summary(&t, 1, &s1);
    CU_ASSERT_DOUBLE_EQUAL(s0.best_pct, 100.0 / 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s1.best_pct, 0.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s0.mean_loss, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s0.loss_se, 1.0 / sqrt(3.0), 1e-9); /* sd 1 */
    CU_ASSERT_DOUBLE_EQUAL(s1.mean_loss, 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s1.diff, 2.0, 1e-9);                /* differences 2, 0, 4 */
    CU_ASSERT_DOUBLE_EQUAL(s1.diff_se, 2.0 / sqrt(3.0), 1e-9); /* sd 2 */
    CU_ASSERT_DOUBLE_EQUAL(s0.diff, 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s0.reference_se, 0.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s1.ms_per_move, 2.0, 1e-6);
    CU_ASSERT_EQUAL(t.candidates, 36);
}

static void test_bad_config(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    DecisionStudyConfig c = config(&e, 12, 2, 1);
    err.msg[0] = '\0';
    CU_ASSERT_PTR_NULL(decision_study_new(&c, 1, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "iterations"));
    c = config(&e, 0, 2, 10);
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "candidates"));
    c = config(&e, SIM_MAX_CANDIDATES - 1, 2, 10); /* room for one player's move, not two */
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), 0);
    CU_ASSERT_EQUAL(decision_study_check(&c, 2, &err), -1);
    c = config(&e, 12, -1, 10);
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "plies"));
    c = config(&e, 12, 2, 10);
    CU_ASSERT_EQUAL(decision_study_check(&c, 0, &err), -1);
    CU_ASSERT_EQUAL(decision_study_check(&c, DECISION_MAX_PLAYERS + 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "players"));
    c.win.bonus = -1.0;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "win bonus"));
    c.win.bonus = DECISION_MAX_WIN_BONUS + 1.0;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    c.win.bonus = DECISION_MAX_WIN_BONUS;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), 0);
    c.iterations = DECISION_MAX_ITERATIONS + 1;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "iterations"));
    c.iterations = 10;
    c.positions = DECISION_MAX_POSITIONS + 1;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "positions"));
    c.win.bonus = 0.0;
    c.positions = 0;
    CU_ASSERT_EQUAL(decision_study_check(&c, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "positions"));
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"position i is a state of static game i with tiles in the bag", test_positions_are_static_game_states},
        {"0 plies: best value and losses against every legal move's score + leave - tempo", test_zero_plies_oracle},
        {"totals: two halves and any order add up to the whole exactly", test_totals_split_exactly},
        {"summary: means, standard errors, the paired difference", test_summary},
        {"bad configurations are refused", test_bad_config},
        CU_TEST_INFO_NULL,
    };
    return tu_run("decision_study", tests);
}
