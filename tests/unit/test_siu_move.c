/* test_siu_move.c - SIU move notation and positions: every legal move of
 * thousands of positions written, parsed back and checked (the move
 * generator is the oracle); malformed and illegal tokens; the position
 * command with unknown racks, moves and rack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "siu/siu_move.h"
#include "siu/siu_position.h"
#include "testutil.h"

/* Every legal move of positions from static games round-trips: written,
 * parsed, checked with the rack known and unknown, the same move with the
 * same score. */
static void test_round_trip_oracle(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    int games = tu_size(60, 20);
    long checked = 0;
    MoveList list;
    movelist_init(&list);
    for (int gi = 0; gi < games; gi++) {
        int bag = 86 - (gi * 7) % 90;
        tu_env_position(&e, 11, (uint64_t)gi, bag < 0 ? 0 : bag, NULL);
        if (game_over(e.g)) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        movegen_all(&req, &list);
        for (size_t i = 0; i < list.count; i += 1 + list.count / 200) {
            const Move *m = &list.moves[i];
            char tok[SIU_MOVE_MAX];
            siu_move_write(m, &e.g->board, &e.ld, tok, sizeof tok);
            CU_ASSERT(strchr(tok, ' ') == NULL);
            Move back;
            bool unknown;
            RkError err;
            int rc = siu_move_parse(&back, &unknown, tok, &e.g->board, &e.ld, &err);
            if (rc != 0) printf("\nparse %s: %s\n", tok, err.msg);
            CU_ASSERT_FATAL(rc == 0);
            CU_ASSERT(!unknown);
            CU_ASSERT(move_same(&back, m));
            for (int known = 0; known < 2; known++) {
                Move chk = back;
                rc = siu_move_check(e.g, known == 1, &chk, false, &err);
                if (rc != 0) printf("\ncheck %s (known %d): %s\n", tok, known, err.msg);
                CU_ASSERT(rc == 0);
                CU_ASSERT(move_same(&chk, m));
                if (m->kind == MOVE_PLACE) CU_ASSERT(chk.score == m->score);
            }
            checked++;
        }
    }
    movelist_free(&list);
    CU_ASSERT(checked > 1000);
    tu_env_close(&e);
}

static void expect_parse_error(const TuEnv *e, const char *tok, const char *part) {
    Move m;
    bool unknown;
    RkError err;
    int rc = siu_move_parse(&m, &unknown, tok, &e->g->board, &e->ld, &err);
    if (rc == 0) printf("\n'%s' parsed\n", tok);
    CU_ASSERT(rc != 0);
    if (rc != 0 && strstr(err.msg, part) == NULL) printf("\n'%s': '%s' lacks '%s'\n", tok, err.msg, part);
    if (rc != 0) CU_ASSERT(strstr(err.msg, part) != NULL);
}

static void test_malformed(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    CU_ASSERT_FATAL(cgp_parse(e.g, "15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 AEINRST/ 0/0 0", &e.ld, &e.lay,
                              &e.kwg, 1, &err) == 0);
    expect_parse_error(&e, "", "empty");
    expect_parse_error(&e, "8D", "expected");
    expect_parse_error(&e, "8.CAT", "coordinate");
    expect_parse_error(&e, "D.CAT", "coordinate");
    expect_parse_error(&e, "16A.AT", "off the board");
    expect_parse_error(&e, "8M.ATES", "runs off");
    expect_parse_error(&e, "8H.DOG", "another letter");
    expect_parse_error(&e, "8H.CAT", "places no tile");
    expect_parse_error(&e, "9A.A1", "unknown tile");
    expect_parse_error(&e, "ex.", "needs tiles");
    expect_parse_error(&e, "ex.9", "1 to 7");
    expect_parse_error(&e, "ex.ab", "uppercase");
    expect_parse_error(&e, "phony.8H.CAT", "phony");
    /* well-formed but not legal */
    Move m;
    bool unknown;
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "9A.ZZZ", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(siu_move_check(e.g, true, &m, false, &err) != 0);
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "8E.SAC", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(siu_move_check(e.g, true, &m, false, &err) != 0); /* SACCAT is no word */
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "8H.CATS", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(siu_move_check(e.g, true, &m, false, &err) == 0);
    CU_ASSERT(m.score > 0);
    /* accepted in lowercase columns, written in uppercase */
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "h7.ACT", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(m.dir == DIR_DOWN && m.row == 6 && m.col == 7 && m.ntiles == 2);
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "8h.CATS", &e.g->board, &e.ld, &err) == 0);
    char tok[SIU_MOVE_MAX];
    siu_move_write(&m, &e.g->board, &e.ld, tok, sizeof tok);
    CU_ASSERT_STRING_EQUAL(tok, "8H.CATS");
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "ex.4", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(unknown && m.kind == MOVE_EXCHANGE && m.ntiles == 4);
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, "8H.CATS.ACST.0.0", &e.g->board, &e.ld, &err) == 0);
    CU_ASSERT(m.ntiles == 1);
    tu_env_close(&e);
}

static SiuPosError build(TuEnv *e, SiuPosition *p, const char *line, RkError *err) {
    char cgp[1024], buf[2048], *moves[64];
    int n = siu_position_split(line, cgp, sizeof cgp, buf, sizeof buf, moves, 64, err);
    CU_ASSERT_FATAL(n >= 0);
    return siu_position_build(p, cgp, moves, n, &e->ld, &e->lay, &e->kwg, 7, err);
}

static void test_positions(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    SiuPosition *p = malloc(sizeof *p);
    CU_ASSERT_FATAL(p != NULL);
    RkError err;
    /* opponent unknown: dealt 7 tiles, the rest in the bag */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0", &err) == SIU_POS_OK);
    CU_ASSERT(p->rack_known[0] && !p->rack_known[1]);
    CU_ASSERT(p->game.racks[1].total == 7 && p->game.bag.count == 86);
    tu_expect_conserved(&p->game);
    /* both unknown, the opponent opens with ZA: scores follow, racks unknown */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA", &err) == SIU_POS_OK);
    CU_ASSERT(p->game.scores[0] == 22 && p->game.on_turn == 1);
    CU_ASSERT(!p->rack_known[0] && !p->rack_known[1]);
    tu_expect_conserved(&p->game);
    /* then the rack of the player on turn */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.QI?ABCD", &err) ==
              SIU_POS_OK);
    CU_ASSERT(p->rack_known[1] && p->game.racks[1].total == 7);
    tu_expect_conserved(&p->game);
    /* a move not legal here, a move of tiles the mover does not hold, a bad CGP */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 moves 8H.QI", &err) ==
              SIU_POS_BAD_MOVE);
    CU_ASSERT(strstr(err.msg, "8H.QI") != NULL);
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8A.ZZ", &err) ==
              SIU_POS_BAD_MOVE);
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0", &err) == SIU_POS_BAD_POSITION);
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.ZZZ", &err) ==
              SIU_POS_BAD_MOVE);
    /* bag empty, opponent unknown: dealt exactly the unseen tiles */
    const char *eg = "cgp 5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/"
                     "LI1L1EX1E6/1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 IKLMTZ/ 0/0 0";
    CU_ASSERT(build(&e, p, eg, &err) == SIU_POS_OK);
    CU_ASSERT(p->game.bag.count == 0 && p->game.racks[1].total == 7);
    tu_expect_conserved(&p->game);
    /* both racks unknown: the opponent's dealt tiles are unseen too, whatever the seed */
    const char *eg_unknown = "cgp 5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/"
                             "LI1L1EX1E6/1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 / 0/0 0 moves rack.IKLMTZ";
    for (uint64_t seed = 1; seed <= 40; seed++) {
        char cgp[1024], buf[2048], *moves[8];
        int n = siu_position_split(eg_unknown, cgp, sizeof cgp, buf, sizeof buf, moves, 8, &err);
        CU_ASSERT_FATAL(n == 1);
        SiuPosError rc = siu_position_build(p, cgp, moves, n, &e.ld, &e.lay, &e.kwg, seed, &err);
        if (rc != SIU_POS_OK) printf("\nseed %llu: %s\n", (unsigned long long)seed, err.msg);
        CU_ASSERT(rc == SIU_POS_OK);
        CU_ASSERT(p->game.bag.count == 0 && p->game.racks[1].total == 7 && p->rack_known[0]);
        tu_expect_conserved(&p->game);
        n = siu_position_split("cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA 9H.AX", cgp,
                               sizeof cgp, buf, sizeof buf, moves, 8, &err);
        rc = siu_position_build(p, cgp, moves, n, &e.ld, &e.lay, &e.kwg, seed, &err);
        if (rc != SIU_POS_OK) printf("\nseed %llu: %s\n", (unsigned long long)seed, err.msg);
        CU_ASSERT(rc == SIU_POS_OK && p->game.scores[0] == 22);
        tu_expect_conserved(&p->game);
    }
    /* a play challenged off: a scoreless turn, the rack kept */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 moves phony.8D.RETSINA",
                    &err) == SIU_POS_OK);
    CU_ASSERT(p->game.on_turn == 1 && p->game.zeros == 1 && p->game.scores[0] == 0 && p->game.board.tiles_on_board == 0);
    CU_ASSERT(p->rack_known[0] && p->game.racks[0].total == 7);
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 moves phony.8D", &err) ==
              SIU_POS_BAD_MOVE);
    /* rack. with no tiles, or short while the bag has tiles */
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.", &err) ==
              SIU_POS_BAD_MOVE);
    CU_ASSERT(build(&e, p, "cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.AB", &err) ==
              SIU_POS_BAD_MOVE);
    char line[64];
    CU_ASSERT(siu_position_split("joho 15/15", line, sizeof line, line, sizeof line, NULL, 0, &err) < 0);
    free(p);
    tu_env_close(&e);
}

int main(void) {
    CU_TestInfo tests[] = {{"round trip of every legal move (movegen oracle)", test_round_trip_oracle},
                           {"malformed and illegal tokens", test_malformed},
                           {"positions with unknown racks, moves and rack.", test_positions},
                           CU_TEST_INFO_NULL};
    return tu_run("siu_move", tests);
}
