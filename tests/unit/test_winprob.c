/* The win model (eval/winprob.h): its formula against values of the normal distribution
 * worked out by hand, the win value from both players' views, the option's parser and its
 * errors, the win value a rollout adds (recomputed from the rollout's own end), the players'
 * options, and the least-squares study on a few games (it must beat the sign of the lead). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/mcgs_player.h"
#include "search/player.h"
#include "search/sim.h"
#include "testutil.h"
#include "worker/winprob_study.h"

static void test_formula(void) {
    WinModel m = {.mean0 = 10.0, .mean_per_tile = 0.0, .var0 = 400.0, .var_per_tile = 0.0}; /* sd 20 */
    CU_ASSERT_DOUBLE_EQUAL(winprob(&m, -10.0, 30), 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(winprob(&m, 10.0, 30), 0.8413447460685429, 1e-12);  /* Phi(1) */
    CU_ASSERT_DOUBLE_EQUAL(winprob(&m, -50.0, 30), 0.0227501319481792, 1e-12); /* Phi(-2) */
    /* the lines in t: mean 2 + 0.5 t, var 100 + 10 t; t = 30: mean 17, sd 20 */
    WinModel lin = {.mean0 = 2.0, .mean_per_tile = 0.5, .var0 = 100.0, .var_per_tile = 10.0};
    CU_ASSERT_DOUBLE_EQUAL(winprob(&lin, 3.0, 30), 0.8413447460685429, 1e-12);
    /* the game decided: the sign of the lead */
    CU_ASSERT_DOUBLE_EQUAL(winprob(&lin, 3.0, 0), 1.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(winprob(&lin, -3.0, 0), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(winprob(&lin, 0.0, 0), 0.5, 0.0);
    double last = -1.0;
    for (int lead = -200; lead <= 200; lead += 5) {
        double p = winprob(&lin, lead, 50);
        CU_ASSERT(p >= 0.0 && p <= 1.0 && p >= last && (abs(lead) > 100 || p > last));
        last = p;
    }
    /* win values: bonus x (2p - 1); the player not on turn gets the opponent's complement */
    WinValue w;
    win_value_defaults(&w);
    CU_ASSERT_DOUBLE_EQUAL(win_value_open(&w, 40.0, true, 30), 0.0, 0.0); /* bonus 0 */
    w.bonus = 50.0;
    w.model = m;
    CU_ASSERT_DOUBLE_EQUAL(win_value_open(&w, 10.0, true, 30), 50.0 * (2 * 0.8413447460685429 - 1), 1e-9);
    /* not on turn with lead 10: the opponent on turn has lead -10, P = 1/2 */
    CU_ASSERT_DOUBLE_EQUAL(win_value_open(&w, 10.0, false, 30), 0.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(win_value_open(&w, 30.0, false, 30), -win_value_open(&w, -30.0, true, 30), 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(win_value_final(&w, 3.0), 50.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(win_value_final(&w, -3.0), -50.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(win_value_final(&w, 0.0), 0.0, 0.0);
    w.terminal_only = true;
    CU_ASSERT_DOUBLE_EQUAL(win_value_open(&w, 10.0, true, 30), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(win_value_final(&w, 3.0), 50.0, 0.0);
    /* the default model is a valid one */
    WinModel d = WINPROB_DEFAULT;
    RkError err;
    CU_ASSERT_EQUAL(winprob_check(&d, &err), 0);
    CU_ASSERT(winprob(&d, 0.0, 93) > 0.5); /* moving next is an advantage */
}

static void test_parse(void) {
    WinValue w;
    win_value_defaults(&w);
    RkError err;
    CU_ASSERT_EQUAL(win_value_parse_model(&w, "terminal", &err), 0);
    CU_ASSERT(w.terminal_only);
    CU_ASSERT_EQUAL(win_value_parse_model(&w, "1.5:-0.25:300:60", &err), 0);
    CU_ASSERT(!w.terminal_only);
    CU_ASSERT_DOUBLE_EQUAL(w.model.mean0, 1.5, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(w.model.mean_per_tile, -0.25, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(w.model.var0, 300.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(w.model.var_per_tile, 60.0, 0.0);
    CU_ASSERT_EQUAL(win_value_parse_model(&w, "default", &err), 0);
    WinModel d = WINPROB_DEFAULT;
    CU_ASSERT_EQUAL(memcmp(&w.model, &d, sizeof d), 0);
    const char *bad[] = {"", "1:2:3", "1:2:3:4:5", "x", "1:2:3:4x", "1::3:4", "nan:0:1:1", "0:0:-10:0", "-5:0:-100:50",
                         "0:0:100:-1", "inf:0:1:1"};
    /* unchanged on error, from a terminal state (a parser that cleared it first would show) */
    CU_ASSERT_EQUAL(win_value_parse_model(&w, "terminal", &err), 0);
    w.bonus = 7.0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        WinValue v = w;
        CU_ASSERT_EQUAL(win_value_parse_model(&v, bad[i], &err), -1);
        CU_ASSERT(strstr(err.msg, "win model") != NULL);
        CU_ASSERT(v.terminal_only && v.bonus == 7.0);
        CU_ASSERT(v.model.mean0 == d.mean0 && v.model.mean_per_tile == d.mean_per_tile && v.model.var0 == d.var0 &&
                  v.model.var_per_tile == d.var_per_tile);
    }
}

/* Leave values for the rollouts: 3 points a blank or S, -2 a Q, -0.5 a tile otherwise. */
static int32_t some_leaves(const void *ctx, const Rack *r) {
    (void)ctx;
    int32_t v = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) {
        int per = ml == 0 || ml == 19 ? 3000 : ml == 17 ? -2000 : -500; /* ? and S, Q (english: A = 1) */
        v += per * r->count[ml];
    }
    return v;
}

/* A rollout's win value, recomputed from where it ended: the same moves are played with
 * and without it (it changes values, not choices), and the difference is +-bonus once the
 * game is over, else bonus x (2 P(win) - 1) of the lead with the leaves the rollout counted
 * (recomputed here from the moves: a lead without them, or with their sign flipped, misses). */
static void test_rollout(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    WinValue w;
    win_value_defaults(&w);
    w.bonus = 80.0;
    w.model = (WinModel){.mean0 = 5.0, .mean_per_tile = 0.2, .var0 = 200.0, .var_per_tile = 60.0};
    WinValue terminal = w;
    terminal.terminal_only = true;
    Game *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c = malloc(sizeof *c);
    int open = 0, over = 0, leaves_seen = 0;
    for (uint64_t i = 0; i < 24; i++) {
        int bag = i % 3 == 0 ? 40 : i % 3 == 1 ? 6 : 0;
        tu_env_position(&e, 20, i, bag, NULL);
        if (game_over(e.g)) continue;
        int moves = (int)(i % 4) + 1;
        *a = *e.g, *b = *e.g, *c = *e.g;
        int me = a->on_turn, spread0 = a->scores[me] - a->scores[1 - me];
        /* the leaves each side keeps in this rollout, replayed move by move */
        Game *r = malloc(sizeof *r);
        *r = *e.g;
        int32_t last[2] = {0, 0};
        for (int k = 0; k < moves && !game_over(r); k++) {
            MoveGenRequest req;
            movegen_request_for_game(&req, r);
            req.leave_value = some_leaves;
            Move mv;
            movegen_best(&req, &mv, NULL);
            last[r->on_turn] = r->bag.count > 0 ? move_leave_value(some_leaves, NULL, &r->racks[r->on_turn], &mv) : 0;
            game_play(r, &mv);
        }
        double plain = sim_static_rollout(a, moves, NULL, some_leaves, NULL, NULL);
        double with = sim_static_rollout(b, moves, NULL, some_leaves, NULL, &w);
        double term = sim_static_rollout(c, moves, NULL, some_leaves, NULL, &terminal);
        CU_ASSERT_EQUAL(memcmp(r->scores, a->scores, sizeof r->scores), 0);
        free(r);
        CU_ASSERT_EQUAL(memcmp(&a->board, &b->board, sizeof a->board), 0);
        CU_ASSERT_EQUAL(memcmp(a->scores, b->scores, sizeof a->scores), 0);
        int spread = a->scores[me] - a->scores[1 - me];
        if (game_over(a)) {
            over++;
            double want = spread > 0 ? 80.0 : spread < 0 ? -80.0 : 0.0;
            CU_ASSERT_DOUBLE_EQUAL(with - plain, want, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(term - plain, want, 1e-9);
        } else {
            open++;
            double lead = spread + (last[me] - last[1 - me]) / 1000.0;
            CU_ASSERT_DOUBLE_EQUAL(plain, spread - spread0 + (last[me] - last[1 - me]) / 1000.0, 1e-9);
            leaves_seen += last[me] != last[1 - me];
            int t = a->bag.count + a->racks[0].total + a->racks[1].total;
            double p = a->on_turn == me ? winprob(&w.model, lead, t) : 1.0 - winprob(&w.model, -lead, t);
            /* with a win value (terminal or not) the rollout also counts the tempo: the model's
             * mean(t) for whoever moves next (search/sim.h); without one (plain) it does not */
            double tempo = (a->on_turn == me ? 1.0 : -1.0) * winprob_mean(&w.model, t);
            CU_ASSERT_DOUBLE_EQUAL(with - plain, tempo + 80.0 * (2.0 * p - 1.0), 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(term - plain, tempo, 1e-9);
        }
    }
    printf("(%d rollouts ended the game, %d did not, %d with unequal leaves) ", over, open, leaves_seen);
    CU_ASSERT(open >= 6 && over >= 3 && leaves_seen >= 4);
    free(a), free(b), free(c);
    tu_env_close(&e);
}

static void test_player_options(void) {
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    Player p;
    CU_ASSERT_EQUAL_FATAL(player_open(&p, "mcgs:visits=8,win_bonus=40,win_model=1:0.1:100:50", &ld, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->cfg.win.bonus, 40.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(mcgs_player_of(&p)->cfg.win.model.var_per_tile, 50.0, 0.0);
    player_close(&p);
    CU_ASSERT_EQUAL_FATAL(player_open(&p, "sim:iterations=4,win_bonus=25,win_model=terminal", &ld, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(sim_player_config(&p)->win.bonus, 25.0, 0.0);
    CU_ASSERT(sim_player_config(&p)->win.terminal_only);
    player_close(&p);
    const char *bad[][2] = {
        {"mcgs:win_model=1:2", "win model '1:2'"},
        {"sim:win_model=0:0:0:0", "variance"},
        {"sim:win_bonus=-1", "win_bonus"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(player_open(&p, bad[i][0], &ld, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i][1]));
    }
    /* errors quote the spec, so a spec must be one line (found by fuzz_player_spec:
     * "smm\ngcsc" gave a two-line error) */
    CU_ASSERT_EQUAL(player_open(&p, "smm\ngcsc", &ld, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "control character 0x0a at byte 3"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
}

static void test_study(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    SelfplayConfig cfg = {.ld = &e.ld, .layout = &e.lay, .kwg = &e.kwg, .seed = 6};
    int games = tu_size(60, 20);
    WinprobStudy st;
    RkError err;
    int rc = winprob_study_run(&cfg, (uint64_t)games, (uint64_t)games, &st, &err);
    if (rc != 0) printf("%s ", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    uint64_t n = 0;
    for (int b = 0; b < WINPROB_STUDY_BUCKETS; b++) n += st.bucket[b].n;
    printf("(%llu decisions; mean %.2f + %.3f t, var %.1f + %.2f t; Brier %.4f, sign of the lead %.4f) ",
           (unsigned long long)st.train_positions, st.fit.mean0, st.fit.mean_per_tile, st.fit.var0,
           st.fit.var_per_tile, st.test_brier, st.test_brier_sign);
    CU_ASSERT_EQUAL(n, st.train_positions);
    CU_ASSERT(st.train_positions > 20u * (uint64_t)games && st.test_positions > 20u * (uint64_t)games);
    CU_ASSERT_EQUAL(winprob_check(&st.fit, &err), 0);
    /* more tiles to play, more noise to come; moving next is worth points at mid-game */
    CU_ASSERT(st.fit.var_per_tile > 0.0);
    CU_ASSERT(st.bucket[10].sd > st.bucket[1].sd);
    CU_ASSERT(st.fit.mean0 + st.fit.mean_per_tile * 50 > 0.0);
    CU_ASSERT(st.test_brier < st.test_brier_sign && st.test_brier < 0.25);
    /* too few games to fit */
    CU_ASSERT_EQUAL(winprob_study_run(&cfg, 1, 1, &st, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too few"));
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"the formula, the win values from both views", test_formula},
        {"the model option and its errors", test_parse},
        {"a rollout's win value, recomputed from its end", test_rollout},
        {"players' win_bonus and win_model options; a spec on two lines", test_player_options},
        {"the least-squares study beats the sign of the lead", test_study},
        CU_TEST_INFO_NULL,
    };
    return tu_run("winprob", tests);
}
