/* test_rack_inference.c - inference of the opponent's kept tiles (search/rack_inference.h):
 * the one-move equity against movegen's; the true leave of a modelled
 * player never excluded; a move only one leave explains; a bingo and an
 * exchange of seven; enumeration and sampling agreeing; a pass leaving the
 * prior; bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "eval/klv.h"
#include "search/rack_inference.h"
#include "search/mcgs.h"
#include "search/player.h"
#include "search/sim.h"
#include "testutil.h"

/* A late position (74 tiles on the board, a bag of 12): LATE_ROWS_1_14 is
 * its first 14 rows, LATE_CGP the whole CGP (row 15 empty, AEIISTT on turn). */
#define LATE_ROWS_1_14                                                                                                 \
    "6LINEMEN2/12UG1/9A2GU1/3CIVVY1R2GiB/5O3OP1ADO/5L3HO1REI/5T2KAWAS1L/3COATEE1N3S/2J2i1AXED4/1QUINSY3E4/2N2MAL2D4/" \
    "2I3WE7/2O3PE7/2R4R7/"
#define LATE_CGP LATE_ROWS_1_14 "15 AEIISTT/ABDIOOT 248/368 0"

/* Deterministic, varied leave values (millipoints) for the tests. */
static int32_t hash_leave(const void *ctx, const Rack *leave) {
    (void)ctx;
    if (leave->total == 0) return 0;
    uint64_t h = 1469598103934665603ULL;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) h = (h ^ leave->count[ml]) * 1099511628211ULL;
    return (int32_t)(h % 20001) - 10000;
}

/* movegen_move_equity gives every move of movegen_all its equity. */
static void test_move_equity_oracle(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    MoveList list;
    movelist_init(&list);
    long checked = 0;
    for (int gi = 0; gi < tu_size(80, 25); gi++) {
        int bag = 86 - (gi * 11) % 92;
        tu_env_position(&e, 21, (uint64_t)gi, bag < 0 ? 0 : bag, hash_leave);
        if (game_over(e.g)) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        req.leave_value = hash_leave;
        req.leave_table = NULL;
        movegen_all(&req, &list);
        for (size_t i = 0; i < list.count; i++) {
            int32_t eq = movegen_move_equity(&req, &list.moves[i]);
            if (eq != list.moves[i].equity) {
                char t[64];
                move_to_string(&list.moves[i], &e.g->board, &e.ld, t, sizeof t);
                printf("\n%s: %d, movegen %d\n", t, eq, list.moves[i].equity);
            }
            CU_ASSERT_FATAL(eq == list.moves[i].equity);
            checked++;
        }
    }
    movelist_free(&list);
    CU_ASSERT(checked > 10000);
    tu_env_close(&e);
}

static void config(InferConfig *c, double tau) {
    infer_config_defaults(c);
    c->tau = tau;
    c->leave_value = hash_leave;
    c->max_enumerate = 1000000;
}

/* The player on turn plays its best static move; from the other player's
 * view the tiles it kept always have a positive posterior (window 0: the
 * model is exactly the player). */
static void test_true_leave_consistent(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig cfg;
    config(&cfg, 0.0001);
    InferResult r;
    infer_result_init(&r);
    int tried = 0, sharp = 0;
    for (int gi = 0; gi < 400 && tried < tu_size(40, 12); gi++) {
        tu_env_position(&e, 33, (uint64_t)gi, 40 - gi % 30, hash_leave);
        if (game_over(e.g) || e.g->bag.count < 8) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        klv_request_leaves(&req, hash_leave, NULL);
        Move m;
        movegen_best(&req, &m, NULL);
        if (m.kind != MOVE_PLACE || m.ntiles < 5) continue; /* a leave of at most 2 tiles: exact and quick */
        Rack kept;
        move_kept_tiles(&e.g->racks[e.g->on_turn], &m, &kept);
        RkError err;
        int rc = infer_run(e.g, &m, false, &cfg, &r, &err);
        if (rc != 0) printf("\n%s\n", err.msg);
        CU_ASSERT_FATAL(rc == 0);
        CU_ASSERT(r.exact && r.leave_size == kept.total);
        double p = 0.0, sum = 0.0;
        for (int i = 0; i < r.count; i++) {
            sum += r.leaves[i].prob;
            if (rack_equal(&r.leaves[i].leave, &kept)) p = r.leaves[i].prob;
        }
        CU_ASSERT(p > 0.0);
        CU_ASSERT(fabs(sum - 1.0) < 1e-9);
        CU_ASSERT(r.consistent <= r.racks);
        sharp += r.count < (int)r.racks;
        tried++;
    }
    CU_ASSERT(tried >= tu_size(40, 12) / 2);
    CU_ASSERT(sharp > 0); /* the move excludes some leaves somewhere */
    infer_result_free(&r);
    tu_env_close(&e);
}

/* INFER_TOPK: a player that plays the 4th of its 4 best static moves (the
 * worst choice a simulation of 4 candidates can make) never has its true
 * leave excluded by top_k 4, which still rules leaves out somewhere; a
 * window of 0 points (the best move only) excludes it somewhere. And top_k
 * 1 on a best-move player gives the window-0 posterior, leave for leave. */
static void test_topk_true_leave(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig top, win;
    config(&top, 5.0);
    top.model = INFER_TOPK;
    top.top_k = 4;
    config(&win, 0.0001);
    InferResult r, w;
    infer_result_init(&r);
    infer_result_init(&w);
    MoveList list;
    movelist_init(&list);
    int tried = 0, sharp = 0, win_excluded = 0, same = 0;
    RkError err;
    for (int gi = 0; gi < 400 && tried < tu_size(30, 10); gi++) {
        tu_env_position(&e, 35, (uint64_t)gi, 40 - gi % 30, hash_leave);
        if (game_over(e.g) || e.g->bag.count < 8) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        klv_request_leaves(&req, hash_leave, NULL);
        movegen_top(&req, 4, move_compare_equity, &list);
        if (list.count < 4) continue;
        Move m = list.moves[3];
        if (m.kind != MOVE_PLACE || m.ntiles < 5) continue; /* a leave of at most 2 tiles: exact and quick */
        Rack kept;
        move_kept_tiles(&e.g->racks[e.g->on_turn], &m, &kept);
        CU_ASSERT_FATAL(infer_run(e.g, &m, false, &top, &r, &err) == 0);
        CU_ASSERT(r.exact);
        double p = 0.0;
        for (int i = 0; i < r.count; i++)
            if (rack_equal(&r.leaves[i].leave, &kept)) p = r.leaves[i].prob;
        CU_ASSERT(p > 0.0);
        sharp += r.count < (int)r.racks;
        CU_ASSERT_FATAL(infer_run(e.g, &m, false, &win, &w, &err) == 0);
        bool held = false;
        for (int i = 0; i < w.count; i++) held |= rack_equal(&w.leaves[i].leave, &kept);
        win_excluded += !held && !w.prior_only;
        /* the best move: top 1 is the window of 0 */
        Move best = list.moves[0];
        if (best.kind == MOVE_PLACE && best.ntiles >= 5) {
            top.top_k = 1;
            CU_ASSERT_FATAL(infer_run(e.g, &best, false, &top, &r, &err) == 0);
            CU_ASSERT_FATAL(infer_run(e.g, &best, false, &win, &w, &err) == 0);
            CU_ASSERT(r.count == w.count);
            for (int i = 0; i < r.count && i < w.count; i++) {
                CU_ASSERT(rack_equal(&r.leaves[i].leave, &w.leaves[i].leave));
                CU_ASSERT(fabs(r.leaves[i].prob - w.leaves[i].prob) < 1e-12);
            }
            same++;
            top.top_k = 4;
        }
        tried++;
    }
    CU_ASSERT(tried >= tu_size(30, 10) / 2);
    CU_ASSERT(sharp > 0);
    CU_ASSERT(win_excluded > 0);
    CU_ASSERT(same > 0);
    top.top_k = 0;
    CU_ASSERT(infer_run(e.g, &list.moves[0], false, &top, &r, &err) == -1 && strstr(err.msg, "top_k") != NULL);
    movelist_free(&list);
    infer_result_free(&r);
    infer_result_free(&w);
    tu_env_close(&e);
}

static void test_bingo_exchange_pass(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    InferConfig cfg;
    config(&cfg, 5.0);
    InferResult r;
    infer_result_init(&r);
    /* a bingo on the opening: every tile played, one leave (empty) with probability 1 */
    CU_ASSERT_FATAL(cgp_parse(e.g, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0", &e.ld, &e.lay, &e.kwg,
                              1, &err) == 0);
    MoveGenRequest req;
    movegen_request_for_game(&req, e.g);
    Move m;
    movegen_best(&req, &m, NULL);
    CU_ASSERT_FATAL(m.ntiles == 7);
    CU_ASSERT(infer_run(e.g, &m, false, &cfg, &r, &err) == 0);
    CU_ASSERT(r.count == 1 && r.leaves[0].leave.total == 0 && fabs(r.leaves[0].prob - 1.0) < 1e-12);
    /* an exchange of seven unknown tiles: nothing kept, the new rack uniform over the unseen tiles */
    Move ex = {.kind = MOVE_EXCHANGE, .len = 7, .ntiles = 7};
    CU_ASSERT(infer_run(e.g, &ex, true, &cfg, &r, &err) == 0);
    CU_ASSERT(r.count == 1 && r.leave_size == 0 && r.leaves[0].leave.total == 0);
    /* an exchange of two unknown tiles: a posterior over the five tiles kept */
    Move ex2 = {.kind = MOVE_EXCHANGE, .len = 2, .ntiles = 2};
    CU_ASSERT(infer_run(e.g, &ex2, true, &cfg, &r, &err) == 0);
    CU_ASSERT(r.leave_size == 5 && r.count > 1);
    /* a pass: the prior, sampled (7 of 93 tiles are too many leaves to list) */
    Move pass = {.kind = MOVE_PASS};
    CU_ASSERT(infer_run(e.g, &pass, false, &cfg, &r, &err) == 0);
    CU_ASSERT(!r.exact && r.leave_size == 7 && r.consistent == r.racks);
    double with_e = 0.0; /* P(the leave holds an E) against the hypergeometric's */
    for (int i = 0; i < r.count; i++) with_e += r.leaves[i].leave.count[5] > 0 ? r.leaves[i].prob : 0.0;
    Rack unseen;
    rack_clear(&unseen);
    for (int i = 0; i < e.g->bag.count; i++) rack_add(&unseen, e.g->bag.tiles[i]);
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) unseen.count[ml] += e.g->racks[0].count[ml];
    unseen.total += e.g->racks[0].total;
    double none = 1.0;
    for (int i = 0; i < 7; i++) none *= (double)(unseen.total - unseen.count[5] - i) / (unseen.total - i);
    printf("(P(E kept) %.3f, hypergeometric %.3f) ", with_e, 1.0 - none);
    CU_ASSERT(fabs(with_e - (1.0 - none)) < 0.05);
    /* bad input: a placement that is no word, tiles that are not unseen, too many tiles */
    bool unknown;
    Move bad;
    CU_ASSERT_FATAL(move_parse(&bad, "8H QZ", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(infer_run(e.g, &bad, false, &cfg, &r, &err) != 0 && strstr(err.msg, "not a legal play") != NULL);
    (void)unknown;
    CU_ASSERT_FATAL(cgp_parse(e.g, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 QQQQQQQ/ 0/0 0", &e.ld, &e.lay, &e.kwg,
                              1, &err) != 0); /* (not drawable: the distribution has one Q) */
    CU_ASSERT_FATAL(cgp_parse(e.g, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 /AEIQRST 0/0 0", &e.ld, &e.lay, &e.kwg,
                              1, &err) == 0);
    CU_ASSERT_FATAL(move_parse(&bad, "8H QI", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(infer_run(e.g, &bad, false, &cfg, &r, &err) != 0 && strstr(err.msg, "plays 1 Q, only 0 unseen") != NULL);
    /* an exchange with fewer than 7 tiles in the bag the mover saw (before's bag holds their rack too) */
    CU_ASSERT_FATAL(cgp_parse(e.g, LATE_CGP, &e.ld, &e.lay, &e.kwg, 1, &err) == 0);
    CU_ASSERT_FATAL(move_parse(&bad, "(exch II)", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(e.g->bag.count == 12 && infer_run(e.g, &bad, false, &cfg, &r, &err) == 0);
    CU_ASSERT_FATAL(cgp_parse(e.g, /* six more tiles on the board: the mover saw a bag of 6 */
                              LATE_ROWS_1_14 "FFHNRZ9 AEIISTT/ABDIOOT 248/368 0",
                              &e.ld, &e.lay, &e.kwg, 1, &err) == 0);
    CU_ASSERT(e.g->bag.count == 6);
    CU_ASSERT(infer_run(e.g, &bad, false, &cfg, &r, &err) != 0 &&
              strstr(err.msg, "needs at least 7 tiles in the bag, it held 6") != NULL);
    /* a searching player infers from a placement, not from a pass (whose posterior is the uniform deal) */
    game_play(e.g, &pass);
    CU_ASSERT(e.g->has_last && e.g->last.kind == MOVE_PASS && e.g->bag.count > 0);
    CU_ASSERT(infer_last_move(e.g, &cfg, &r) == 0);
    infer_result_free(&r);
    tu_env_close(&e);
}

/* A move that only one leave explains: the player on turn plays its best
 * scoring move (no leaves), the other side infers with a window of almost
 * 0 points. Where several leaves were possible and the posterior keeps one,
 * it is the leave really kept, with probability 1. The position: AEIISTT
 * plays 15D ETATS; of the 40 leaves of two tiles the unseen pool allows,
 * only II leaves ETATS the best score (a wider window lets others in). */
static void test_single_consistent_leave(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig cfg;
    infer_config_defaults(&cfg);
    cfg.tau = 0.0001;
    cfg.max_enumerate = 1000000;
    InferResult r;
    infer_result_init(&r);
    RkError err;
    Move m;
    Rack kept;
    CU_ASSERT_FATAL(cgp_parse(e.g, LATE_CGP, &e.ld, &e.lay, &e.kwg, 1, &err) == 0);
    CU_ASSERT_FATAL(move_parse(&m, "15D ETATS", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT_FATAL(infer_run(e.g, &m, false, &cfg, &r, &err) == 0);
    CU_ASSERT(r.exact && r.racks == 40 && r.count == 1);
    CU_ASSERT_FATAL(rack_parse(&kept, &e.ld, "II", &err) == 0);
    CU_ASSERT(r.count >= 1 && rack_equal(&r.leaves[0].leave, &kept) && r.leaves[0].prob == 1.0);
    CU_ASSERT(r.consistent == 1);
    cfg.tau = 30.0; /* a window of 30 points: other leaves explain the move too */
    CU_ASSERT_FATAL(infer_run(e.g, &m, false, &cfg, &r, &err) == 0);
    CU_ASSERT(r.count > 1 && r.leaves[0].prob < 1.0);
    infer_result_free(&r);
    tu_env_close(&e);
}

/* The exact posterior against a brute force over the unseen tiles as
 * physical tiles: every way the mover's rack could have been dealt (a
 * subset of `held` of the |U| tiles, each equally likely) whose tiles hold
 * the move's, weighed by the window's test run here on the whole rack; the
 * leave's probability is the weight of the racks that keep it. Late in the
 * game (|U| <= 14), with a window of 8 points and with one so wide that
 * every rack explains the move (the prior alone: a rack that repeats a
 * played letter has more ways to be dealt). */
static void test_posterior_brute_force(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferResult r;
    infer_result_init(&r);
    Game *probe = malloc(sizeof *probe);
    CU_ASSERT_FATAL(probe != NULL);
    int compared = 0, repeated = 0;
    for (int gi = 0; gi < 300 && compared < tu_size(12, 4); gi++) {
        tu_env_position(&e, 55, (uint64_t)gi, 1 + gi % 7, hash_leave);
        if (game_over(e.g) || e.g->bag.count < 1) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        klv_request_leaves(&req, hash_leave, NULL);
        Move m;
        movegen_best(&req, &m, NULL);
        if (m.kind != MOVE_PLACE || m.ntiles == 7) continue;
        Rack taken, pool;
        move_rack_tiles(&m, &taken);
        bag_plus_rack(&e.g->bag, &e.g->racks[e.g->on_turn], &pool);
        uint8_t tile[RK_MAX_BAG + RK_RACK_SIZE];
        int n = 0;
        for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
            for (int c = 0; c < pool.count[ml]; c++) tile[n++] = (uint8_t)ml;
        int held = n < RK_RACK_SIZE ? n : RK_RACK_SIZE;
        for (int wide = 0; wide < 2; wide++) {
            InferConfig cfg;
            config(&cfg, wide ? 1e6 : 8.0);
            RkError err;
            CU_ASSERT_FATAL(infer_run(e.g, &m, false, &cfg, &r, &err) == 0);
            CU_ASSERT_FATAL(r.exact);
            /* the brute force: every subset of `held` tiles by index */
            double want[1024] = {0}, total = 0.0;
            Rack leaves[1024];
            int nl = 0;
            for (uint32_t mask = 0; mask < (1u << n); mask++) {
                if (__builtin_popcount(mask) != held) continue;
                Rack rack;
                rack_clear(&rack);
                for (int i = 0; i < n; i++)
                    if (mask >> i & 1) rack_add(&rack, tile[i]);
                bool holds = true;
                for (int ml = 0; ml < RK_MAX_LETTERS; ml++) holds = holds && rack.count[ml] >= taken.count[ml];
                if (!holds) continue;
                *probe = *e.g;
                probe->racks[probe->on_turn] = rack;
                probe->bag.count = n - held;
                MoveGenRequest pr;
                movegen_request_for_game(&pr, probe);
                klv_request_leaves(&pr, hash_leave, NULL);
                Move best;
                movegen_best(&pr, &best, NULL);
                int32_t eq_m = movegen_move_equity(&pr, &m);
                if (!wide && (double)best.equity > floor((double)eq_m + 8000.0)) continue;
                Rack leave;
                move_kept_tiles(&rack, &m, &leave);
                int k = 0;
                while (k < nl && !rack_equal(&leaves[k], &leave)) k++;
                if (k == nl) {
                    CU_ASSERT_FATAL(nl < 1024);
                    leaves[nl++] = leave;
                }
                want[k] += 1.0;
                total += 1.0;
            }
            CU_ASSERT_FATAL(total > 0.0);
            CU_ASSERT(r.count == nl);
            for (int k = 0; k < nl; k++) {
                double got = 0.0;
                for (int i = 0; i < r.count; i++)
                    if (rack_equal(&r.leaves[i].leave, &leaves[k])) got = r.leaves[i].prob;
                CU_ASSERT(fabs(got - want[k] / total) < 1e-9);
                if (fabs(got - want[k] / total) >= 1e-9) printf("\n(leave %d: %.6f, brute force %.6f)", k, got, want[k] / total);
            }
            for (int ml = 0; ml < RK_MAX_LETTERS && wide; ml++)
                for (int k = 0; k < nl; k++) repeated += taken.count[ml] > 0 && leaves[k].count[ml] > 0;
        }
        compared++;
    }
    printf("(%d positions, %d leaves repeating a played letter) ", compared, repeated);
    CU_ASSERT(compared >= tu_size(12, 4) / 2);
    CU_ASSERT(repeated > 0);
    free(probe);
    infer_result_free(&r);
    tu_env_close(&e);
}

/* After an exchange the exchanger drew before throwing back: a world dealt
 * from the posterior never gives them more of a letter than the unseen
 * tiles less the leave and the thrown tiles hold (the uniform deal does).
 * A known exchange (II of AEIISTT, bag 12) throws its own tiles; an
 * exchange of 2 unknown tiles (as self-play sees it) throws 2 of each
 * rack weighed. */
static void test_worlds_after_exchange(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig cfg;
    config(&cfg, 5.0);
    InferResult r;
    infer_result_init(&r);
    RkError err;
    Game *w = malloc(sizeof *w);
    CU_ASSERT_FATAL(w != NULL);
    for (int unknown = 0; unknown < 2; unknown++) {
        CU_ASSERT_FATAL(cgp_parse(e.g, LATE_CGP, &e.ld, &e.lay, &e.kwg, 1, &err) == 0);
        Move ex;
        CU_ASSERT_FATAL(move_parse(&ex, "(exch II)", &e.g->board, &e.ld, &err) == 0);
        CU_ASSERT_FATAL(infer_run(e.g, &ex, unknown, &cfg, &r, &err) == 0);
        CU_ASSERT_FATAL(r.count > 0);
        for (int i = 0; i < r.count; i++) {
            CU_ASSERT(r.leaves[i].thrown.total == 2 && r.leaves[i].leave.total == 5);
            if (!unknown) CU_ASSERT(r.leaves[i].thrown.count[9] == 2); /* the II thrown */
        }
        game_play(e.g, &ex); /* the viewer on turn, the thrown tiles back in the bag */
        CU_ASSERT_FATAL(infer_check_fits(e.g, &r, &err) == 0);
        Rack unseen;
        game_unseen(e.g, &unseen);
        int opp = 1 - e.g->on_turn, over_posterior = 0, over_uniform = 0;
        Rng rng;
        rng_seed_stream(&rng, 5, (uint64_t)unknown, 0);
        for (int k = 0; k < tu_size(400, 100); k++) {
            *w = *e.g;
            const InferLeave *l = infer_draw(&r, &rng);
            game_deal_hidden_out(w, &l->leave, &l->thrown, &rng);
            Rack uw;
            game_unseen(w, &uw);
            CU_ASSERT(rack_equal(&uw, &unseen) && w->racks[opp].total == 7);
            for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
                over_posterior += w->racks[opp].count[ml] > unseen.count[ml] - l->thrown.count[ml];
            *w = *e.g;
            game_deal_hidden(w, &l->leave, &rng);
            for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
                over_uniform += w->racks[opp].count[ml] > unseen.count[ml] - l->thrown.count[ml];
        }
        printf("(%s: %d leaves, the thrown tiles dealt back %d times in the uniform deal) ",
               unknown ? "ex.2" : "exch II", r.count, over_uniform);
        CU_ASSERT(over_posterior == 0);
        CU_ASSERT(over_uniform > 0);
    }
    free(w);
    infer_result_free(&r);
    tu_env_close(&e);
}

/* The per-letter chance of being kept, exact and sampled, on a position
 * whose leave space is small. */
static void test_enumerate_matches_sampling(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig exact, sampled;
    config(&exact, 8.0);
    config(&sampled, 8.0);
    sampled.max_enumerate = 0;
    sampled.samples = (uint64_t)tu_size(8000, 3000);
    InferResult a, b;
    infer_result_init(&a);
    infer_result_init(&b);
    int compared = 0;
    for (int gi = 0; gi < 200 && compared < tu_size(4, 2); gi++) {
        tu_env_position(&e, 44, (uint64_t)gi, 50, hash_leave);
        if (game_over(e.g) || e.g->bag.count < 8) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        klv_request_leaves(&req, hash_leave, NULL);
        Move m;
        movegen_best(&req, &m, NULL);
        if (m.kind != MOVE_PLACE || m.ntiles != 5) continue;
        RkError err;
        CU_ASSERT_FATAL(infer_run(e.g, &m, false, &exact, &a, &err) == 0);
        CU_ASSERT_FATAL(infer_run(e.g, &m, false, &sampled, &b, &err) == 0);
        CU_ASSERT(a.exact && !b.exact);
        double worst = 0.0;
        for (int ml = 0; ml < e.ld.size; ml++) {
            double pa = 0.0, pb = 0.0;
            for (int i = 0; i < a.count; i++) pa += a.leaves[i].leave.count[ml] > 0 ? a.leaves[i].prob : 0.0;
            for (int i = 0; i < b.count; i++) pb += b.leaves[i].leave.count[ml] > 0 ? b.leaves[i].prob : 0.0;
            if (fabs(pa - pb) > worst) worst = fabs(pa - pb);
        }
        printf("(%d leaves, worst letter %.3f) ", a.count, worst);
        CU_ASSERT(worst < 0.06);
        compared++;
    }
    CU_ASSERT(compared > 0);
    infer_result_free(&a);
    infer_result_free(&b);
    tu_env_close(&e);
}

/* game_before_last undoes a move as the viewer sees it: the same board (its
 * cross-sets too: the same moves for the same rack), scores and turn, and
 * the mover's tiles with the bag as the unseen pool. */
static void test_before_last_oracle(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    Game *saved = malloc(sizeof *saved), *back = malloc(sizeof *back);
    CU_ASSERT_FATAL(saved != NULL && back != NULL);
    MoveList a, b;
    movelist_init(&a);
    movelist_init(&b);
    int checked = 0, games = tu_size(12, 4);
    for (uint64_t gi = 0; gi < (uint64_t)games; gi++) {
        Game *g = e.g;
        game_new(g, &e.ld, &e.lay, &e.kwg, 5, 0, gi);
        CU_ASSERT(!game_before_last(g, back)); /* no move yet */
        while (!game_over(g)) {
            *saved = *g;
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, hash_leave, NULL);
            Move m;
            movegen_best(&req, &m, NULL);
            game_play(g, &m);
            if (game_over(g)) break;
            CU_ASSERT_FATAL(game_before_last(g, back));
            int mover = saved->on_turn;
            CU_ASSERT(back->on_turn == mover && back->scores[0] == saved->scores[0] &&
                      back->scores[1] == saved->scores[1]);
            CU_ASSERT(memcmp(back->board.sq[0], saved->board.sq[0], sizeof saved->board.sq[0]) == 0);
            CU_ASSERT(back->racks[mover].total == 0 && rack_equal(&back->racks[1 - mover], &saved->racks[1 - mover]));
            Rack u1, u2;
            bag_to_rack(&back->bag, &u1);
            bag_to_rack(&saved->bag, &u2);
            for (int ml = 0; ml < RK_MAX_LETTERS; ml++) u2.count[ml] += saved->racks[mover].count[ml];
            u2.total += saved->racks[mover].total;
            CU_ASSERT(rack_equal(&u1, &u2));
            /* the mover's true rack back on the rebuilt board: the same moves */
            back->racks[mover] = saved->racks[mover];
            back->bag = saved->bag;
            movegen_request_for_game(&req, saved);
            movegen_all(&req, &a);
            movegen_request_for_game(&req, back);
            movegen_all(&req, &b);
            CU_ASSERT_FATAL(a.count == b.count);
            for (size_t i = 0; i < a.count; i++) CU_ASSERT(move_same(&a.moves[i], &b.moves[i]) && a.moves[i].score == b.moves[i].score);
            checked++;
        }
    }
    CU_ASSERT(checked > 15 * games); /* every move but the last of each game (about 24 a game) */
    movelist_free(&a);
    movelist_free(&b);
    free(saved);
    free(back);
    tu_env_close(&e);
}

/* A player opened from spec plays legal, repeatable moves through a game
 * (game index `index` of seed 9). */
static void plays_legal_repeatable(TuEnv *e, const char *spec, uint64_t index, int max_moves) {
    Player p;
    RkError err;
    CU_ASSERT_FATAL(player_open(&p, spec, &e->ld, &err) == 0);
    game_new(e->g, &e->ld, &e->lay, &e->kwg, 9, 0, index);
    int moves = 0;
    while (!game_over(e->g) && moves < max_moves) {
        Move a, b;
        player_choose(&p, e->g, &a);
        player_choose(&p, e->g, &b);
        CU_ASSERT(move_same(&a, &b)); /* the same decision for the same position */
        Move legal = a;
        CU_ASSERT(movegen_find(e->g, &legal));
        game_play(e->g, &a);
        moves++;
    }
    CU_ASSERT(moves >= 4);
    player_close(&p);
}

/* sim:infer=yes plays legal, repeatable moves through a game; bad values
 * are errors naming them. */
static void test_sim_player_infer(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    Player q;
    RkError err;
    CU_ASSERT(player_open(&q, "sim:infer=maybe", &e.ld, &err) != 0 && strstr(err.msg, "infer=maybe") != NULL);
    CU_ASSERT(player_open(&q, "sim:infer=yes,infer_tau=0", &e.ld, &err) != 0);
    plays_legal_repeatable(&e, "sim:plies=1,candidates=4,iterations=8,infer=yes,infer_tau=3", 0, tu_size(16, 6));
    tu_env_close(&e);
}

static bool rack_holds(const Rack *rack, const Rack *leave) {
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        if (leave->count[ml] > rack->count[ml]) return false;
    return true;
}

static bool holds_a_leave(const InferResult *r, const Rack *rack) {
    for (int i = 0; i < r->count; i++)
        if (rack_holds(rack, &r->leaves[i].leave)) return true;
    return false;
}

/* Worlds from the posterior: after an inference of the opponent's last
 * move, every world of the simulation (sim_deal_world) and of the graph
 * search (mcgs_deal_world) deals the opponent a rack that holds one of
 * the posterior's leaves, the most likely one at least as often as its
 * probability says, with the unseen tiles conserved; the uniform deal
 * breaks the first rule somewhere. */
static void test_worlds_from_posterior(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    InferConfig cfg;
    config(&cfg, 0.0001);
    InferResult r;
    infer_result_init(&r);
    Game *w = malloc(sizeof *w);
    McgsConfig mc;
    mcgs_config_defaults(&mc);
    mc.leave_value = hash_leave;
    mc.infer = &r;
    McgsSearch ms;
    RkError err;
    CU_ASSERT_FATAL(mcgs_search_init(&ms, &mc, &err) == 0);
    int tried = 0, uniform_outside = 0;
    const int worlds = tu_size(400, 150);
    for (uint64_t gi = 0; gi < 60 && tried < tu_size(8, 3); gi++) {
        tu_env_position(&e, 41, gi, 50 - (int)(gi % 20), hash_leave);
        if (game_over(e.g) || e.g->last.kind != MOVE_PLACE || e.g->last.ntiles > 4) continue;
        if (!infer_last_move(e.g, &cfg, &r) || r.prior_only || r.leave_size == 0 || !r.exact) continue;
        int opp = 1 - e.g->on_turn, top = 0;
        Rack unseen, wu;
        game_unseen(e.g, &unseen);
        for (int i = 0; i < worlds; i++) {
            sim_deal_world(e.g, &r, 7, (uint64_t)i, w);
            CU_ASSERT(holds_a_leave(&r, &w->racks[opp]));
            CU_ASSERT(w->racks[opp].total == e.g->racks[opp].total);
            game_unseen(w, &wu);
            CU_ASSERT(rack_equal(&wu, &unseen));
            top += rack_holds(&w->racks[opp], &r.leaves[0].leave);
            mcgs_deal_world(&ms, e.g, (uint64_t)i, w);
            CU_ASSERT(holds_a_leave(&r, &w->racks[opp]));
            game_unseen(w, &wu);
            CU_ASSERT(rack_equal(&wu, &unseen));
            sim_deal_world(e.g, NULL, 7, (uint64_t)i, w);
            uniform_outside += !holds_a_leave(&r, &w->racks[opp]);
        }
        double p = r.leaves[0].prob;
        CU_ASSERT((double)top / worlds >= p - 4.0 * sqrt(p * (1.0 - p) / worlds) - 1e-9);
        tried++;
    }
    CU_ASSERT(tried >= tu_size(8, 3) / 2);
    CU_ASSERT(uniform_outside > 0);
    /* a posterior that does not fit the position is an error, not a deal */
    Rack big;
    CU_ASSERT_FATAL(rack_parse(&big, &e.ld, "ZZZ", &err) == 0);
    InferResult bad = {.leaves = &(InferLeave){.leave = big, .prob = 1.0}, .count = 1};
    CU_ASSERT(infer_check_fits(e.g, &bad, &err) == -1 && strstr(err.msg, "not unseen") != NULL);
    McgsResult *res = malloc(sizeof *res);
    mc.infer = &bad;
    ms.cfg.infer = &bad;
    CU_ASSERT(mcgs_search_run(&ms, e.g, res, &err) == -1 && strstr(err.msg, "mcgs: ") != NULL);
    free(res);
    mcgs_search_free(&ms);
    free(w);
    infer_result_free(&r);
    tu_env_close(&e);
}

/* mcgs:infer=yes plays legal, repeatable moves; it cannot go with hidden=net. */
static void test_mcgs_player_infer(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    Player q;
    RkError err;
    CU_ASSERT(player_open(&q, "mcgs:infer=maybe", &e.ld, &err) != 0 && strstr(err.msg, "infer") != NULL);
    CU_ASSERT(player_open(&q, "mcgs:infer=yes,hidden=net", &e.ld, &err) != 0 && strstr(err.msg, "hidden=net") != NULL);
    plays_legal_repeatable(&e, "mcgs:visits=24,candidates=4,infer=yes,infer_tau=3", 1, tu_size(12, 5));
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {{"one move's equity = movegen's, every move", test_move_equity_oracle},
                           {"the position before the last move, rebuilt (movegen oracle)", test_before_last_oracle},
                           {"the modelled player's true leave is never excluded", test_true_leave_consistent},
                           {"top K: a player choosing among its K best", test_topk_true_leave},
                           {"a bingo, an exchange of seven, a pass, bad input", test_bingo_exchange_pass},
                           {"a move only one leave explains: posterior 1 on it", test_single_consistent_leave},
                           {"the exact posterior against a brute force over the tiles", test_posterior_brute_force},
                           {"enumeration and sampling agree", test_enumerate_matches_sampling},
                           {"worlds after an exchange keep the thrown tiles in the bag", test_worlds_after_exchange},
                           {"the sim player with infer=yes", test_sim_player_infer},
                           {"worlds dealt from the posterior (sim and mcgs)", test_worlds_from_posterior},
                           {"the mcgs player with infer=yes", test_mcgs_player_infer},
                           CU_TEST_INFO_NULL};
    return tu_run("rack_inference", tests);
}
