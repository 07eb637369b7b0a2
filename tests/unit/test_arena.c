/*
 * test_arena.c - the referee of `rookery arena` (src/arena/): engines as
 * child processes (engine_proc), game pairs between them with forfeits
 * (referee), GCG records (gcg).
 *
 * The engines are fake_siu_engine (tests/unit/fake_siu_engine.c, built
 * beside this test) in its modes, and `rookery siu` when the binary has it.
 * The fake's `good` mode plays the best-scoring move, which is exactly what
 * the in-process player static:leaves=zero plays, so an arena between two
 * good fakes must play match.c's games move for move.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena/engine_proc.h"
#include "arena/gcg.h"
#include "arena/referee.h"
#include "core/engine.h"
#include "core/movegen.h"
#include "search/player.h"
#include "testutil.h"

#define FAKE "'" ROOKERY_FAKE_SIU_ENGINE "'"
#define SEED 2024

/* ---------------------------------------------------------------- engine_proc */

static void test_proc_lines(void) {
    /* a script that does the handshake, then sends lines in pieces, with
     * \r\n, blank lines, an over-long line and a last line without '\n' */
    const char *cmd = "read x; echo 'id name  script  1'; echo siuok; read y; printf 'readyok\\r\\n';"
                      "printf 'one\\r\\n\\n   \\n  two  '; sleep 0.2; printf 'three\\nlong';"
                      "head -c 10000 /dev/zero | tr '\\0' y; printf 'tail\\nlast'";
    EngineProc e;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(engine_proc_init(&e, cmd, NULL, &err), 0);
    CU_ASSERT_EQUAL_FATAL(engine_proc_start(&e, 5000, &err), 0);
    CU_ASSERT_STRING_EQUAL(e.name, "script  1");
    CU_ASSERT_EQUAL(e.starts, 1);
    char line[ENGINE_LINE_MAX + 1];
    double dl = rk_seconds() + 5;
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, dl), ENGINE_READ_LINE);
    CU_ASSERT_STRING_EQUAL(line, "one");
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, dl), ENGINE_READ_LINE);
    CU_ASSERT_STRING_EQUAL(line, "two  three"); /* the pieces of one line, trimmed at its ends */
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, dl), ENGINE_READ_LINE);
    CU_ASSERT_EQUAL(strlen(line), ENGINE_LINE_MAX); /* cut; its rest ("...ytail") dropped */
    CU_ASSERT_EQUAL(strncmp(line, "longyyy", 7), 0);
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, dl), ENGINE_READ_LINE);
    CU_ASSERT_STRING_EQUAL(line, "last");
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, dl), ENGINE_READ_EOF);
    pid_t pid = e.pid;
    engine_proc_kill(&e);
    CU_ASSERT_FALSE(engine_proc_running(&e));
    CU_ASSERT_EQUAL(waitpid(pid, NULL, WNOHANG), -1); /* reaped: no zombie left */
    CU_ASSERT_EQUAL(errno, ECHILD);
    engine_proc_free(&e);
}

static void test_proc_deadlines(void) {
    EngineProc e;
    RkError err;
    /* never answers the handshake */
    CU_ASSERT_EQUAL_FATAL(engine_proc_init(&e, "sleep 30", NULL, &err), 0);
    double t0 = rk_seconds();
    CU_ASSERT_NOT_EQUAL(engine_proc_start(&e, 300, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "siuok"));
    CU_ASSERT(rk_seconds() - t0 < 5.0);
    CU_ASSERT_FALSE(engine_proc_running(&e));
    engine_proc_free(&e);
    /* exits at once */
    CU_ASSERT_EQUAL_FATAL(engine_proc_init(&e, "exit 3", NULL, &err), 0);
    CU_ASSERT_NOT_EQUAL(engine_proc_start(&e, 5000, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exited"));
    engine_proc_free(&e);
    /* a hanging engine: a read times out, a write to a full pipe does too */
    CU_ASSERT_EQUAL_FATAL(engine_proc_init(&e, FAKE " hang", NULL, &err), 0);
    CU_ASSERT_EQUAL_FATAL(engine_proc_start(&e, 10000, &err), 0);
    CU_ASSERT_STRING_EQUAL(e.name, "fake 1");
    CU_ASSERT_EQUAL(engine_proc_send(&e, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0",
                                     rk_seconds() + 5, &err), 0);
    CU_ASSERT_EQUAL(engine_proc_send(&e, "go movetime 10", rk_seconds() + 5, &err), 0);
    char line[ENGINE_LINE_MAX + 1];
    t0 = rk_seconds();
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, t0 + 0.3), ENGINE_READ_TIMEOUT);
    double dt = rk_seconds() - t0;
    CU_ASSERT(dt >= 0.29 && dt < 3.0);
    /* a dead engine: writing fails (EPIPE, not SIGPIPE), reading says EOF */
    CU_ASSERT_EQUAL_FATAL(engine_proc_restart(&e, 10000, &err), 0);
    CU_ASSERT_EQUAL(e.starts, 2);
    kill(-e.pid, SIGKILL);
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    int fails = 0;
    for (int i = 0; i < 20; i++) fails += engine_proc_send(&e, "isready", rk_seconds() + 1, &err) != 0;
    CU_ASSERT(fails > 0);
    CU_ASSERT_EQUAL(engine_proc_read_line(&e, line, sizeof line, rk_seconds() + 2), ENGINE_READ_EOF);
    engine_proc_free(&e);
}

/* ---------------------------------------------------------------- arenas */

typedef struct Arena {
    TuEnv env;
    EngineProc eng[2];
    ArenaConfig cfg;
    Referee *ref;
    FILE *log;
} Arena;

static bool arena_open(Arena *a, const char *cmd_a, const char *cmd_b, int movetime, const char *gcg_dir) {
    memset(a, 0, sizeof *a);
    if (!tu_env_open(&a->env)) return false;
    RkError err;
    a->log = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a->log);
    const char *cmds[2] = {cmd_a, cmd_b};
    for (int e = 0; e < 2; e++) {
        CU_ASSERT_EQUAL_FATAL(engine_proc_init(&a->eng[e], cmds[e], NULL, &err), 0);
        if (engine_proc_start(&a->eng[e], 20000, &err) != 0) {
            fprintf(stderr, "engine %d: %s\n", e, err.msg);
            CU_FAIL_FATAL("an engine did not start");
        }
    }
    a->cfg = (ArenaConfig){&a->env.ld, &a->env.lay, &a->env.kwg, SEED, movetime, 300, 20000, NULL, gcg_dir,
                           {cmd_a, cmd_b}, a->log};
    a->ref = referee_new(&a->cfg, &a->eng[0], &a->eng[1]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a->ref);
    return true;
}

static void arena_close(Arena *a) {
    referee_free(a->ref);
    for (int e = 0; e < 2; e++) {
        engine_proc_quit(&a->eng[e], 500);
        engine_proc_free(&a->eng[e]);
    }
    fclose(a->log);
    tu_env_close(&a->env);
}

/* Lines of the referee's log that contain `needle`; lines in all into *total. */
static int log_lines(FILE *log, const char *needle, int *total) {
    char line[16384];
    int n = 0;
    *total = 0;
    rewind(log);
    while (fgets(line, sizeof line, log) != NULL) {
        (*total)++;
        n += strstr(line, needle) != NULL;
    }
    return n;
}

/* match.c's game in process: first moves first; scores by player index. */
static void inprocess_game(TuEnv *env, const Player *first, const Player *second, uint64_t index, int scores[2],
                           int *moves) {
    Game *g = env->g;
    game_new(g, &env->ld, &env->lay, &env->kwg, SEED, MATCH_STREAM, index);
    *moves = 0;
    while (!game_over(g)) {
        Move m;
        player_choose(g->on_turn == 0 ? first : second, g, &m);
        game_play(g, &m);
        (*moves)++;
    }
    scores[0] = g->scores[0];
    scores[1] = g->scores[1];
}

/* Arena games against match.c's games between in-process players pa and pb. */
static void expect_same_games(Arena *a, const Player *pa, const Player *pb, int pairs) {
    for (int i = 0; i < pairs; i++) {
        ArenaGame games[2];
        RkError err;
        CU_ASSERT_EQUAL(referee_play_pair(a->ref, (uint64_t)i, games, &err), 0);
        for (int k = 0; k < 2; k++) {
            int s[2], moves;
            inprocess_game(&a->env, k == 0 ? pa : pb, k == 0 ? pb : pa, (uint64_t)i, s, &moves);
            int sa = k == 0 ? s[0] : s[1], sb = k == 0 ? s[1] : s[0];
            CU_ASSERT_EQUAL(games[k].forfeit, ARENA_FORFEIT_NONE);
            CU_ASSERT_EQUAL(games[k].pair, (uint64_t)i);
            CU_ASSERT_EQUAL(games[k].game, k + 1);
            CU_ASSERT_EQUAL(games[k].score[0], sa);
            CU_ASSERT_EQUAL(games[k].score[1], sb);
            CU_ASSERT_EQUAL(games[k].moves, moves);
            CU_ASSERT_EQUAL(games[k].timed[0] + games[k].timed[1], moves);
            CU_ASSERT(games[k].max_us[0] > 0 && games[k].max_us[0] <= games[k].time_us[0]);
            if (sa != s[k] || moves < 10) printf("  pair %d game %d: arena %d-%d (%d moves), in process %d-%d (%d)\n",
                                                 i, k + 1, games[k].score[0], games[k].score[1], games[k].moves, sa, sb, moves);
        }
    }
}

static void test_good_fakes_play_match_games(void) {
    Arena a;
    if (!arena_open(&a, FAKE " good", FAKE " good", 0, NULL)) return;
    Player p;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(player_open(&p, "static:leaves=zero", &a.env.ld, &err), 0);
    expect_same_games(&a, &p, &p, tu_size(3, 2));
    int total;
    CU_ASSERT_EQUAL(log_lines(a.log, "forfeit", &total), 0);
    CU_ASSERT_EQUAL(total, 0);
    CU_ASSERT_EQUAL(a.eng[0].starts, 1); /* never restarted */
    CU_ASSERT_EQUAL(a.eng[1].starts, 1);
    player_close(&p);
    arena_close(&a);
}

/* Two `rookery siu` engines playing static moves against match.c's static
 * players with the same (default) leaves, game by game. A `rookery siu`
 * that does not start is a failure of this test (never a skip). */
static void test_rookery_siu_plays_match_games(void) {
    CU_ASSERT_EQUAL_FATAL(system("'" ROOKERY_BINARY "' siu --help >/dev/null 2>&1"), 0);
    if (tu_sowpods_kwg() == NULL) return;
    const char *cmd = "'" ROOKERY_BINARY "' siu --option Player=static --option AutoEndgame=false --option AutoPeg=0";
    Arena a;
    if (!arena_open(&a, cmd, cmd, 0, NULL)) return;
    Engine *e = malloc(sizeof *e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    RkError err;
    CU_ASSERT_EQUAL_FATAL(engine_open(e, NULL, NULL, tu_sowpods_kwg(), NULL, &err), 0);
    char leaves[4200];
    Player p;
    CU_ASSERT_EQUAL_FATAL(player_open(&p, "static", &a.env.ld, &err), 0);
    if (engine_default_leaves(e, leaves, sizeof leaves, &err) == 1)
        CU_ASSERT_EQUAL_FATAL(player_default_leaves(&p, leaves, &a.env.ld, &err), 0);
    expect_same_games(&a, &p, &p, tu_size(3, 2));
    int total;
    CU_ASSERT_EQUAL(log_lines(a.log, "forfeit", &total), 0);
    player_close(&p);
    engine_close(e);
    free(e);
    arena_close(&a);
}

/* B misbehaves in `mode`: every game of every pair is B's forfeit for
 * `reason`, B is restarted after each, and the pairs all complete. */
static void expect_forfeits(const char *mode, ArenaForfeit reason, int movetime) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, FAKE " %s", mode);
    Arena a;
    if (!arena_open(&a, FAKE " good", cmd, movetime, NULL)) return;
    const int pairs = 2;
    ArenaTotals t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < pairs; i++) {
        ArenaGame games[2];
        RkError err;
        CU_ASSERT_EQUAL(referee_play_pair(a.ref, (uint64_t)i, games, &err), 0);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(games[k].forfeit, reason);
            CU_ASSERT_EQUAL(games[k].offender, 1);
            CU_ASSERT_EQUAL(games[k].a_result, 1);
            /* B's first turn: the second move of game 1, the first of game 2 */
            CU_ASSERT_EQUAL(games[k].moves, k == 0 ? 1 : 0);
            CU_ASSERT_EQUAL(games[k].timed[1], reason == ARENA_FORFEIT_MALFORMED || reason == ARENA_FORFEIT_ILLEGAL);
        }
        arena_totals_add(&t, games);
    }
    CU_ASSERT_EQUAL(a.eng[1].starts, 1 + 2 * pairs);
    CU_ASSERT_EQUAL(a.eng[0].starts, 1);
    CU_ASSERT_TRUE(engine_proc_running(&a.eng[1]));
    int total;
    char needle[64];
    snprintf(needle, sizeof needle, "B forfeits pair ");
    CU_ASSERT_EQUAL(log_lines(a.log, needle, &total), 2 * pairs);
    snprintf(needle, sizeof needle, "(%s): ", arena_forfeit_name(reason));
    CU_ASSERT_EQUAL(log_lines(a.log, needle, &total), 2 * pairs);
    CU_ASSERT_EQUAL(log_lines(a.log, "; position 15/", &total), 2 * pairs);
    CU_ASSERT_EQUAL(total, 2 * pairs);
    /* the totals: every game a win for A, none in the spread */
    CU_ASSERT_EQUAL(t.m.pairs, pairs);
    CU_ASSERT_EQUAL(t.m.a_wins, 2 * pairs);
    CU_ASSERT_EQUAL(t.forfeits[1][reason], 2 * pairs);
    CU_ASSERT_EQUAL(t.forfeits[0][reason], 0);
    CU_ASSERT_EQUAL(t.spread_games, 0);
    MatchResult r;
    arena_result(&t, &r);
    CU_ASSERT_DOUBLE_EQUAL(r.win_pct, 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.mean_spread, 0.0, 1e-9);
    arena_close(&a);
}

static void test_crash(void) { expect_forfeits("crash", ARENA_FORFEIT_CRASH, 0); }
static void test_hang(void) { expect_forfeits("hang", ARENA_FORFEIT_TIMEOUT, 100); }
static void test_illegal(void) { expect_forfeits("illegal", ARENA_FORFEIT_ILLEGAL, 0); }
static void test_garbage(void) { expect_forfeits("garbage", ARENA_FORFEIT_MALFORMED, 0); }

/* An engine that starts once and never again: after its first forfeit it
 * cannot be restarted, and every later game is its forfeit at its first
 * turn ("does not start"); the pairs still complete. */
static void test_no_restart(void) {
    char dir[256], cmd[1024];
    tu_tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "if [ -e '%s/started' ]; then exit 1; fi; touch '%s/started'; exec " FAKE " crash", dir,
             dir);
    Arena a;
    if (!arena_open(&a, FAKE " good", cmd, 0, NULL)) return;
    for (uint64_t i = 0; i < 2; i++) {
        ArenaGame games[2];
        RkError err;
        CU_ASSERT_EQUAL(referee_play_pair(a.ref, i, games, &err), 0);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(games[k].forfeit, ARENA_FORFEIT_CRASH);
            CU_ASSERT_EQUAL(games[k].offender, 1);
            CU_ASSERT_EQUAL(games[k].a_result, 1);
        }
    }
    CU_ASSERT_EQUAL(a.eng[1].starts, 1);
    CU_ASSERT_FALSE(engine_proc_running(&a.eng[1]));
    int total;
    CU_ASSERT_EQUAL(log_lines(a.log, "(crash): exited during its move", &total), 1);
    CU_ASSERT_EQUAL(log_lines(a.log, "(crash): does not start: ", &total), 3);
    CU_ASSERT_EQUAL(log_lines(a.log, "B does not restart", &total), 4);
    CU_ASSERT_EQUAL(total, 8);
    arena_close(&a);
}

/* A hang without --movetime: the per-move timeout ends it. */
static void test_hang_timeout(void) {
    Arena a;
    if (!arena_open(&a, FAKE " good", FAKE " hang", 0, NULL)) return;
    a.cfg.timeout_ms = 400; /* the referee keeps its own copy */
    referee_free(a.ref);
    a.ref = referee_new(&a.cfg, &a.eng[0], &a.eng[1]);
    ArenaGame games[2];
    RkError err;
    double t0 = rk_seconds();
    CU_ASSERT_EQUAL(referee_play_pair(a.ref, 5, games, &err), 0);
    CU_ASSERT(rk_seconds() - t0 < 15.0);
    CU_ASSERT_EQUAL(games[0].forfeit, ARENA_FORFEIT_TIMEOUT);
    CU_ASSERT_EQUAL(games[1].forfeit, ARENA_FORFEIT_TIMEOUT);
    arena_close(&a);
}

static void test_totals_pack(void) {
    ArenaTotals t, u;
    memset(&t, 0, sizeof t);
    int64_t *v = (int64_t *)&t.m;
    for (int i = 0; i < MATCH_TOTALS_FIELDS; i++) v[i] = 3 * i + 1;
    t.spread_games = 77;
    for (int e = 0; e < 2; e++) {
        for (int f = 0; f < ARENA_FORFEIT_REASONS; f++) t.forfeits[e][f] = 100 * e + f;
        t.timed[e] = 5 + e;
        t.time_us[e] = 1000 + e;
        t.max_us[e] = 99 + e;
    }
    int64_t sum[ARENA_SUM_FIELDS], max[ARENA_MAX_FIELDS];
    arena_totals_pack(&t, sum, max);
    memset(&u, 0xff, sizeof u);
    arena_totals_unpack(sum, max, &u);
    CU_ASSERT_EQUAL(memcmp(&t, &u, sizeof t), 0);
}

/* ---------------------------------------------------------------- GCG */

typedef struct GcgFile {
    int move_lines, end_lines, through_lines, last_total[2];
    bool header_ok;
    char player1[16];
} GcgFile;

static void read_gcg(const char *path, GcgFile *f) {
    memset(f, 0, sizeof *f);
    f->last_total[0] = f->last_total[1] = -1000000;
    FILE *in = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    char line[4096];
    bool enc = false, p1 = false, p2 = false;
    while (fgets(line, sizeof line, in) != NULL) {
        if (strcmp(line, "#character-encoding UTF-8\n") == 0) enc = true;
        if (strncmp(line, "#player1 ", 9) == 0 && sscanf(line + 9, "%15s", f->player1) == 1) p1 = true;
        if (strncmp(line, "#player2 ", 9) == 0) p2 = true;
        if (line[0] != '>') continue;
        char nick[16];
        int total;
        char *colon = strchr(line, ':');
        CU_ASSERT_PTR_NOT_NULL_FATAL(colon);
        CU_ASSERT_EQUAL(sscanf(line + 1, "%15[^:]", nick), 1);
        char *last = strrchr(line, ' ');
        CU_ASSERT_EQUAL(sscanf(last, "%d", &total), 1);
        int p = strcmp(nick, f->player1) == 0 ? 0 : 1;
        f->last_total[p] = total;
        if (colon[2] == '(') f->end_lines++;
        else f->move_lines++;
        if (strchr(colon, '.') != NULL) f->through_lines++; /* a played-through tile */
    }
    fclose(in);
    f->header_ok = enc && p1 && p2;
}

static void test_gcg_files(void) {
    char dir[256];
    tu_tmpdir(dir, sizeof dir);
    Arena a;
    if (!arena_open(&a, FAKE " good", FAKE " good", 0, dir)) return;
    int went_out = 0, zeros = 0, through = 0;
    for (uint64_t i = 0; i < 3; i++) {
        ArenaGame games[2];
        RkError err;
        CU_ASSERT_EQUAL(referee_play_pair(a.ref, i, games, &err), 0);
        for (int k = 0; k < 2; k++) {
            char path[512];
            snprintf(path, sizeof path, "%s/pair-%06d-game-%d.gcg", dir, (int)i, k + 1);
            GcgFile f;
            read_gcg(path, &f);
            CU_ASSERT_TRUE(f.header_ok);
            CU_ASSERT_STRING_EQUAL(f.player1, k == 0 ? "A" : "B"); /* the first mover */
            CU_ASSERT_EQUAL(f.move_lines, games[k].moves);
            /* player 1's last total is the first mover's final score */
            CU_ASSERT_EQUAL(f.last_total[0], games[k].score[k]);
            CU_ASSERT_EQUAL(f.last_total[1], games[k].score[1 - k]);
            CU_ASSERT(f.end_lines == 1 || f.end_lines == 2);
            went_out += f.end_lines == 1;
            zeros += f.end_lines == 2;
            through += f.through_lines;
        }
    }
    CU_ASSERT(went_out > 0); /* static games mostly end by going out */
    CU_ASSERT(through > 0);  /* and play through tiles, written '.' */
    arena_close(&a);
}

/* The best-scoring first move of g (across on row 8) and its GCG line. */
static void first_placement(TuEnv *env, Move *m, char *expect, size_t cap) {
    Game *g = env->g;
    MoveGenRequest req;
    char rack[64], word[64] = "";
    movegen_request_for_game(&req, g);
    movegen_best(&req, m, NULL);
    CU_ASSERT_EQUAL_FATAL(m->kind, MOVE_PLACE);
    CU_ASSERT_EQUAL_FATAL(m->dir, DIR_ACROSS);
    for (int i = 0; i < m->len; i++) {
        char l[8];
        ld_tile_label(&env->ld, m->tiles[i], l, sizeof l);
        strcat(word, l);
    }
    rack_to_string(&g->racks[0], &env->ld, rack, sizeof rack);
    snprintf(expect, cap, ">A: %s 8%c %s +%d %d\n", rack, 'A' + m->col, word, m->score, m->score);
}

/* A game of our own: a placement, an exchange, then passes up to six
 * scoreless turns; every line checked against the text it must be. */
static void test_gcg_text(void) {
    TuEnv env;
    if (!tu_env_open(&env)) return;
    Game *g = env.g;
    game_new(g, &env.ld, &env.lay, &env.kwg, SEED, MATCH_STREAM, 3);
    Game *start = malloc(sizeof *start);
    CU_ASSERT_PTR_NOT_NULL_FATAL(start);
    *start = *g;
    Move moves[7];
    char expect[7][256], rack[64];
    first_placement(&env, &moves[0], expect[0], sizeof expect[0]);
    int a_score = moves[0].score;
    game_play(g, &moves[0]);
    /* B throws back the first two tiles of its rack */
    rack_to_string(&g->racks[1], &env.ld, rack, sizeof rack);
    memset(&moves[1], 0, sizeof moves[1]);
    moves[1].kind = MOVE_EXCHANGE;
    moves[1].len = moves[1].ntiles = 2;
    char thrown[16] = "";
    for (int ml = 0, k = 0; ml < RK_MAX_LETTERS && k < 2; ml++)
        for (int c = 0; c < g->racks[1].count[ml] && k < 2; c++, k++) {
            moves[1].tiles[k] = (uint8_t)ml;
            char l[8];
            ld_tile_label(&env.ld, (uint8_t)ml, l, sizeof l);
            strcat(thrown, l);
        }
    snprintf(expect[1], sizeof expect[1], ">B: %s -%s +0 0\n", rack, thrown);
    game_play(g, &moves[1]);
    for (int i = 2; i < 7; i++) {
        int p = g->on_turn;
        rack_to_string(&g->racks[p], &env.ld, rack, sizeof rack);
        memset(&moves[i], 0, sizeof moves[i]);
        moves[i].kind = MOVE_PASS;
        snprintf(expect[i], sizeof expect[i], ">%s: %s - +0 %d\n", p == 0 ? "A" : "B", rack, p == 0 ? a_score : 0);
        game_play(g, &moves[i]);
    }
    CU_ASSERT_EQUAL_FATAL(g->end, GAME_SIX_ZEROS);
    GcgRecord rec = {start, moves, 7, {"A", "B"}, {"engine one", "engine\ntwo"}, "a test", NULL};
    char *text;
    size_t len;
    RkError err;
    CU_ASSERT_EQUAL_FATAL(gcg_format(&rec, &text, &len, &err), 0);
    CU_ASSERT_EQUAL(strlen(text), len);
    const char *head = "#character-encoding UTF-8\n#player1 A engine one\n#player2 B engine two\n#description a test\n";
    CU_ASSERT_EQUAL(strncmp(text, head, strlen(head)), 0);
    const char *at = text + strlen(head);
    for (int i = 0; i < 7; i++) {
        size_t n = strlen(expect[i]);
        if (strncmp(at, expect[i], n) != 0) printf("\n  expected %s  got %.*s", expect[i], (int)n, at);
        CU_ASSERT_EQUAL(strncmp(at, expect[i], n), 0);
        at += n;
    }
    char tail[256], ra[64], rb[64];
    rack_to_string(&g->racks[0], &env.ld, ra, sizeof ra);
    rack_to_string(&g->racks[1], &env.ld, rb, sizeof rb);
    /* the last mover (A) first, each losing their own rack */
    snprintf(tail, sizeof tail, ">A: (%s) %+d %d\n>B: (%s) %+d %d\n", ra, -rack_score(&g->racks[0], &env.ld),
             g->scores[0], rb, -rack_score(&g->racks[1], &env.ld), g->scores[1]);
    CU_ASSERT_STRING_EQUAL(at, tail);
    free(text);
    /* unusable nicknames are refused */
    rec.nick[1] = "A";
    CU_ASSERT_NOT_EQUAL(gcg_format(&rec, &text, &len, &err), 0);
    rec.nick[1] = "B b";
    CU_ASSERT_NOT_EQUAL(gcg_format(&rec, &text, &len, &err), 0);
    free(start);
    tu_env_close(&env);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"engine_proc: lines in pieces, \\r\\n, blank and over-long lines, EOF, no zombie", test_proc_lines},
        {"engine_proc: deadlines on the handshake and reads, a dead engine's pipe", test_proc_deadlines},
        {"two good fakes play match.c's games, game by game", test_good_fakes_play_match_games},
        {"two rookery siu engines play rookery match's static games", test_rookery_siu_plays_match_games},
        {"a crashing engine forfeits every game, is restarted, the pairs complete", test_crash},
        {"a hanging engine forfeits on movetime + grace", test_hang},
        {"a hanging engine forfeits on the per-move timeout", test_hang_timeout},
        {"an engine that cannot be restarted forfeits its later games at once", test_no_restart},
        {"an illegal move forfeits", test_illegal},
        {"a garbage move forfeits", test_garbage},
        {"totals pack and unpack", test_totals_pack},
        {"GCG files: pragmas, a line a move, totals = final scores", test_gcg_files},
        {"GCG text: placement, exchange, passes, six zeros", test_gcg_text},
        CU_TEST_INFO_NULL,
    };
    return tu_run("arena", tests);
}
