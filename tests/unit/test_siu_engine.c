/* test_siu_engine.c - a conformance test of `rookery siu`, written from
 * ../shared/siu.md: the session runs in a thread of this test on two pipes,
 * and each check drives it as a front end would: the handshake, isready
 * (also mid-search), unknown commands, stop while idle, go without a
 * position, every declared mode ending with one well-formed, legal bestmove
 * after a provenance line, stop ending go infinite, quit; and the error
 * paths: bad CGPs and moves, an unknown rack on turn, bad options, a
 * lexicon that is not there. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "search/endgame.h"
#include "siu/siu_engine.h"
#include "siu/siu_move.h"
#include "testutil.h"

#define OPENING "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
#define ENDGAME                                                                                              \
    "5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/LI1L1EX1E6/"        \
    "1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 IKLMTZ/AEINRU? 0/0 0"
#define ONE_IN_BAG                                                                                            \
    "15/3Q7U3/3U2TAURINE2/1CHANSONS2W3/2AI6JO3/DIRL1PO3IN3/E1D2EF3V4/F1I2p1TRAIK3/O1L2T4E4/ABy1PIT2BRIG2/" \
    "ME1MOZELLE5/1GRADE1O1NOH3/WE3R1V7/AT5E7/G6D7 ENOSTXY/ACEISUY 356/378 0"

typedef struct Front {
    int to_engine, from_engine; /* our ends of the pipes */
    int engine_in, engine_out;  /* the engine's ends */
    pthread_t thread;
    volatile int finished;
    char data_path[4200];
    const char *presets[4];
    int npresets;
    char buf[1 << 16];
    size_t len;
    char lines[512][2048];
    int nlines;
} Front;

static void *engine_main(void *arg) {
    Front *f = arg;
    siu_engine_run(f->engine_in, f->engine_out, f->presets, f->npresets);
    close(f->engine_out); /* the front end then reads the end of the output */
    close(f->engine_in);
    f->finished = 1;
    return NULL;
}

static Front *front_start(const char *preset) {
    Front *f = calloc(1, sizeof *f);
    CU_ASSERT_FATAL(f != NULL);
    int a[2], b[2];
    CU_ASSERT_FATAL(pipe(a) == 0 && pipe(b) == 0);
    f->engine_in = a[0];
    f->to_engine = a[1];
    f->from_engine = b[0];
    f->engine_out = b[1];
    /* the lexicon the build made, found through DataPath */
    snprintf(f->data_path, sizeof f->data_path, "DataPath=%s", tu_sowpods_kwg());
    char *slash = strrchr(f->data_path, '/');
    CU_ASSERT_FATAL(slash != NULL);
    *slash = '\0';
    f->presets[f->npresets++] = f->data_path;
    if (preset != NULL) f->presets[f->npresets++] = preset;
    CU_ASSERT_FATAL(pthread_create(&f->thread, NULL, engine_main, f) == 0);
    return f;
}

static void send_line(Front *f, const char *line) {
    size_t n = strlen(line);
    CU_ASSERT_FATAL(write(f->to_engine, line, n) == (ssize_t)n && write(f->to_engine, "\n", 1) == 1);
}

/* Reads lines into f->lines (cleared first) until one starts with `until`
 * (NULL: none) or `ms` pass. Returns the index of that line, or -1. */
static int read_until(Front *f, const char *until, int ms) {
    f->nlines = 0;
    double end = rk_seconds() + ms / 1000.0;
    for (;;) {
        char *nl;
        while ((nl = memchr(f->buf, '\n', f->len)) != NULL) {
            size_t n = (size_t)(nl - f->buf);
            if (f->nlines < 512) {
                snprintf(f->lines[f->nlines], sizeof f->lines[0], "%.*s", (int)n, f->buf);
                f->nlines++;
            }
            memmove(f->buf, nl + 1, f->len - n - 1);
            f->len -= n + 1;
            if (until != NULL && strncmp(f->lines[f->nlines - 1], until, strlen(until)) == 0) return f->nlines - 1;
        }
        double left = end - rk_seconds();
        if (left <= 0) return -1;
        struct pollfd p = {.fd = f->from_engine, .events = POLLIN};
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0) continue;
        ssize_t got = read(f->from_engine, f->buf + f->len, sizeof f->buf - f->len);
        if (got <= 0) return -1;
        f->len += (size_t)got;
    }
}

static int count_prefix(const Front *f, const char *prefix) {
    int n = 0;
    for (int i = 0; i < f->nlines; i++) n += strncmp(f->lines[i], prefix, strlen(prefix)) == 0;
    return n;
}

static int first_prefix(const Front *f, const char *prefix) {
    for (int i = 0; i < f->nlines; i++)
        if (strncmp(f->lines[i], prefix, strlen(prefix)) == 0) return i;
    return -1;
}

static void front_quit(Front *f) {
    send_line(f, "quit");
    for (int i = 0; i < 500 && !f->finished; i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
    CU_ASSERT(f->finished);
    pthread_join(f->thread, NULL);
    close(f->to_engine);
    close(f->from_engine);
    free(f);
}

/* A ready engine, handshaken. */
static Front *ready(const char *preset) {
    Front *f = front_start(preset);
    send_line(f, "siu");
    CU_ASSERT_FATAL(read_until(f, "siuok", 5000) >= 0);
    send_line(f, "isready");
    CU_ASSERT_FATAL(read_until(f, "readyok", 30000) >= 0);
    return f;
}

static void test_handshake(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = front_start(NULL);
    send_line(f, "siu");
    CU_ASSERT_FATAL(read_until(f, "siuok", 5000) >= 0);
    CU_ASSERT(first_prefix(f, "id name rookery ") >= 0);
    CU_ASSERT(first_prefix(f, "id author ") >= 0);
    int cap = first_prefix(f, "capability ");
    CU_ASSERT_FATAL(cap >= 0);
    const char *want[] = {" gen", " sim", " infer", " endgame", " auto", " stream", " stop"};
    for (int i = 0; i < 7; i++) CU_ASSERT(strstr(f->lines[cap], want[i]) != NULL);
    int options = 0;
    for (int i = 0; i < f->nlines; i++) {
        if (strncmp(f->lines[i], "option ", 7) != 0) continue;
        options++;
        CU_ASSERT(strncmp(f->lines[i], "option name ", 12) == 0);
        const char *t = strstr(f->lines[i], " type ");
        CU_ASSERT(t != NULL && (strncmp(t + 6, "check", 5) == 0 || strncmp(t + 6, "spin", 4) == 0 ||
                                strncmp(t + 6, "string", 6) == 0));
    }
    CU_ASSERT(options >= 8);
    const char *reserved[] = {"DataPath", "Lexicon", "Leaves", "Threads", "WinPctTable", "Player", "Model"};
    for (int k = 0; k < 7; k++) {
        char want_line[64];
        snprintf(want_line, sizeof want_line, "option name %s type", reserved[k]);
        CU_ASSERT(first_prefix(f, want_line) >= 0);
    }
    front_quit(f); /* quit right after siuok: nothing was loaded, nothing leaks */
}

static void test_idle_commands(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "joho frobnicate");
    send_line(f, "isready");
    CU_ASSERT(read_until(f, "readyok", 5000) >= 0);
    CU_ASSERT(first_prefix(f, "info string error unknown-command") >= 0);
    /* unknown words before a command are skipped */
    send_line(f, "joho isready");
    CU_ASSERT(read_until(f, "readyok", 5000) >= 0);
    send_line(f, "stop");
    CU_ASSERT(read_until(f, "bestmove", 300) < 0);
    send_line(f, "go gen");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0);
    CU_ASSERT(first_prefix(f, "info string error no-position") >= 0);
    send_line(f, "isready");
    CU_ASSERT(read_until(f, "readyok", 5000) >= 0);
    front_quit(f);
}

/* The bestmove of the last read, checked: well-formed and legal in cgp. */
static void expect_legal_bestmove(const Front *f, const char *cgp) {
    int at = first_prefix(f, "bestmove ");
    CU_ASSERT_FATAL(at >= 0);
    CU_ASSERT(count_prefix(f, "bestmove") == 1);
    TuEnv e;
    CU_ASSERT_FATAL(tu_env_open(&e));
    RkError err;
    CU_ASSERT_FATAL(cgp_parse(e.g, cgp, &e.ld, &e.lay, &e.kwg, 1, &err) == 0);
    Move m;
    bool unknown;
    const char *tok = f->lines[at] + 9;
    int rc = siu_move_parse(&m, &unknown, tok, &e.g->board, &e.ld, &err);
    if (rc == 0) rc = siu_move_check(e.g, true, &m, unknown, &err);
    if (rc != 0) printf("\nbestmove %s: %s\n", tok, err.msg);
    CU_ASSERT(rc == 0);
    tu_env_close(&e);
}

/* go MODE on cgp: provenance before the first result, one legal bestmove. */
static void check_mode(const char *cgp, const char *go, const char *result_prefix, bool want_result) {
    Front *f = ready(NULL);
    char line[1024];
    snprintf(line, sizeof line, "position cgp %s", cgp);
    send_line(f, line);
    send_line(f, go);
    int end = read_until(f, "bestmove", 60000);
    if (end < 0) printf("\n%s: no bestmove\n", go);
    CU_ASSERT_FATAL(end >= 0);
    int prov = first_prefix(f, "info string provenance engine=rookery/");
    int result = first_prefix(f, result_prefix);
    CU_ASSERT(prov >= 0);
    if (want_result) CU_ASSERT(result > prov);
    CU_ASSERT(first_prefix(f, "info string error") < 0);
    expect_legal_bestmove(f, cgp);
    CU_ASSERT(read_until(f, "bestmove", 300) < 0); /* never a second one */
    front_quit(f);
}

static void test_modes(void) {
    if (tu_sowpods_kwg() == NULL) return;
    check_mode(OPENING, "go gen", "info gen move ", true);
    check_mode(OPENING, "go sim movetime 300", "info sim move ", true);
    check_mode(OPENING, "go sim iterations 8", "info sim move ", true);
    check_mode(ONE_IN_BAG, "go sim movetime 200", "info sim move ", true);
    check_mode(ONE_IN_BAG, "go movetime 200", "info sim move ", true); /* no mode: auto, the default sim player (AutoPeg 0) */
    check_mode(ONE_IN_BAG, "go peg movetime 2000", "info peg move ", true);
    check_mode(ENDGAME, "go peg movetime 300", "info ", false); /* the endgame search instead */
    check_mode(ENDGAME, "go endgame movetime 500", "info ", false);
    check_mode(ENDGAME, "go auto movetime 500", "info ", false);
    check_mode(ENDGAME, "go gen", "info gen move ", true);
}

/* go peg with one tile in the bag: every info peg line lists the 8 unseen
 * tiles (ENOSTXY against ACEISUY and one in the bag: the unseen are the
 * opponent's 7 and the bag's 1) between w:, d: and l:, within the time. */
static void test_peg_lines(void) {
    Front *f = ready(NULL);
    send_line(f, "position cgp " ONE_IN_BAG);
    double t0 = rk_seconds();
    send_line(f, "go peg movetime 1500");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(rk_seconds() - t0 < 1.5 + 0.5);
    int lines = 0;
    for (int i = 0; i < f->nlines; i++) {
        const char *l = f->lines[i];
        if (strncmp(l, "info peg move ", 14) != 0) continue;
        lines++;
        const char *w = strstr(l, " w:"), *d = strstr(l, " d:"), *x = strstr(l, " l:"), *sp = strstr(l, " spread ");
        CU_ASSERT_FATAL(w != NULL && d != NULL && x != NULL && sp != NULL && w < d && d < x && x < sp);
        int draws = 0;
        for (const char *seg[3] = {w + 3, d + 3, x + 3}, **p = seg; p < seg + 3; p++) {
            const char *c = *p;
            if (*c == ' ') continue; /* an empty list */
            draws++;
            for (; *c != ' ' && *c != '\0'; c++) draws += *c == '|';
        }
        CU_ASSERT_EQUAL(draws, 8);
    }
    CU_ASSERT(lines >= 1);
    CU_ASSERT(first_prefix(f, "info depth ") >= 0);
    CU_ASSERT(first_prefix(f, "info string peg: ") >= 0);
    expect_legal_bestmove(f, ONE_IN_BAG);
    /* go auto: the simulation by default (AutoPeg 0), the solver with AutoPeg 1 */
    send_line(f, "go movetime 300");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(first_prefix(f, "info sim move ") >= 0 && first_prefix(f, "info peg move ") < 0);
    send_line(f, "setoption name AutoPeg value 1");
    send_line(f, "isready");
    CU_ASSERT_FATAL(read_until(f, "readyok", 30000) >= 0);
    send_line(f, "position cgp " ONE_IN_BAG);
    send_line(f, "go movetime 1000");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(first_prefix(f, "info peg move ") >= 0);
    expect_legal_bestmove(f, ONE_IN_BAG);
    front_quit(f);
}

/* An empty-bag position with few tiles on the racks, from a static game;
 * its CGP into cgp. */
static bool small_endgame(TuEnv *e, char *cgp, size_t cap) {
    for (uint64_t idx = 0; idx < 200; idx++) {
        tu_env_position(e, 5, idx, 0, NULL);
        Game *g = e->g;
        while (!game_over(g) && g->bag.count == 0 && g->racks[0].total + g->racks[1].total > 7) {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            Move m;
            movegen_best(&req, &m, NULL);
            game_play(g, &m);
        }
        if (!game_over(g) && g->bag.count == 0 && g->racks[0].total > 0 && g->racks[1].total > 0) {
            cgp_write(g, NULL, cgp, cap);
            return true;
        }
    }
    return false;
}

static void test_endgame_small(void) {
    if (tu_sowpods_kwg() == NULL) return;
    TuEnv e;
    CU_ASSERT_FATAL(tu_env_open(&e));
    char cgp[1024];
    CU_ASSERT_FATAL(small_endgame(&e, cgp, sizeof cgp));
    EndgameConfig cfg;
    endgame_config_defaults(&cfg);
    EndgameResult r;
    endgame_result_init(&r);
    RkError err;
    CU_ASSERT_FATAL(endgame_solve(e.g, &cfg, &r, &err) == 0);
    Front *f = ready(NULL);
    char line[1200];
    snprintf(line, sizeof line, "position cgp %s", cgp);
    send_line(f, line);
    send_line(f, "go endgame");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    /* one line a depth, 1, 2, ..., the last one exact: the solver's value */
    int depth = 0, spread = 0, lines = 0;
    for (int i = 0; i < f->nlines; i++) {
        int d;
        if (sscanf(f->lines[i], "info endgame depth %d score spread %d pv", &d, &spread) != 2) continue;
        CU_ASSERT(strstr(f->lines[i], " pv ") != NULL);
        CU_ASSERT_EQUAL(d, depth + 1);
        depth = d;
        lines++;
    }
    CU_ASSERT(lines >= 1);
    CU_ASSERT(spread == r.best_value); /* the solver's exact value, through the protocol */
    CU_ASSERT(first_prefix(f, "info string endgame solved exactly") >= 0);
    CU_ASSERT(first_prefix(f, "info string endgame not solved") < 0);
    expect_legal_bestmove(f, cgp);
    /* the bestmove is worth the best value */
    int b = first_prefix(f, "bestmove ");
    Move m;
    bool unknown;
    CU_ASSERT_FATAL(siu_move_parse(&m, &unknown, f->lines[b] + 9, &e.g->board, &e.ld, &err) == 0);
    int at = endgame_result_find(&r, &m);
    CU_ASSERT(at >= 0 && r.values[at] == r.best_value);
    /* go endgame depth 1: one depth, not proved (unless it is at depth 1) */
    if (depth > 1) {
        send_line(f, "go endgame depth 1");
        CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
        CU_ASSERT_EQUAL(count_prefix(f, "info endgame depth 1 "), 1);
        CU_ASSERT_EQUAL(count_prefix(f, "info endgame depth "), 1);
        CU_ASSERT(first_prefix(f, "info string endgame not solved: the best move at depth 1") >= 0);
        expect_legal_bestmove(f, cgp);
    }
    endgame_result_free(&r);
    tu_env_close(&e);
    front_quit(f);
}

static void test_infinite_stop_isready(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "position cgp " OPENING);
    send_line(f, "go infinite");
    CU_ASSERT(read_until(f, "bestmove", 600) < 0); /* an infinite search does not end alone */
    double t = rk_seconds();
    send_line(f, "isready");
    CU_ASSERT(read_until(f, "readyok", 2000) >= 0);
    CU_ASSERT(rk_seconds() - t < 1.0);
    CU_ASSERT(first_prefix(f, "bestmove") < 0);
    CU_ASSERT(first_prefix(f, "info sim move ") >= 0 || read_until(f, "info sim move", 1500) >= 0); /* streams */
    t = rk_seconds();
    send_line(f, "stop");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    double ms = (rk_seconds() - t) * 1000.0;
    printf("(bestmove %.0f ms after stop) ", ms);
    CU_ASSERT(ms < 1000.0); /* the protocol's 100 ms, with room for a loaded machine */
    CU_ASSERT(read_until(f, "bestmove", 300) < 0);
    /* a go infinite in the endgame, stopped in the middle of the solve */
    send_line(f, "position cgp " ENDGAME);
    send_line(f, "go endgame infinite");
    CU_ASSERT(read_until(f, "bestmove", 500) < 0);
    send_line(f, "stop");
    CU_ASSERT(read_until(f, "bestmove", 5000) >= 0);
    expect_legal_bestmove(f, ENDGAME);
    /* and a go peg infinite, stopped inside a stage */
    send_line(f, "position cgp " ONE_IN_BAG);
    send_line(f, "go peg infinite");
    CU_ASSERT(read_until(f, "bestmove", 1500) < 0);
    double t0 = rk_seconds();
    send_line(f, "stop");
    CU_ASSERT(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(rk_seconds() - t0 < 1.0);
    expect_legal_bestmove(f, ONE_IN_BAG);
    CU_ASSERT(read_until(f, "bestmove", 300) < 0);
    front_quit(f);
}

static void test_position_errors(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "position cgp 15/15/15 AEINRST/ 0/0 0");
    send_line(f, "go gen");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0);
    CU_ASSERT(first_prefix(f, "info string error bad-position") >= 0);
    CU_ASSERT(first_prefix(f, "info string error no-position") >= 0);
    send_line(f, "position cgp " OPENING);
    send_line(f, "position cgp " OPENING " moves 8H.QZ");
    send_line(f, "position cgp " OPENING " moves 8H.ZZZZZZZZ");
    send_line(f, "go gen");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(count_prefix(f, "info string error bad-move") == 2);
    expect_legal_bestmove(f, OPENING); /* the previous position stayed */
    /* the rack on turn unknown: no search */
    send_line(f, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA");
    send_line(f, "go gen");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0);
    CU_ASSERT(first_prefix(f, "info string error bad-position") >= 0);
    /* ...given with rack.: a search, from the right position */
    send_line(f, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.EIRSTLN");
    send_line(f, "go gen searchmoves 9I.SLINTER J8.SLINTER bogus 8H.QI");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(count_prefix(f, "info gen move ") <= 2);
    CU_ASSERT(count_prefix(f, "info string error bad-move") >= 1);
    int b = first_prefix(f, "bestmove ");
    CU_ASSERT(b >= 0 && strcmp(f->lines[b], "bestmove J8.SLINTER") == 0); /* the better of the two by equity */
    /* go peg with a full bag: said, and simulated instead */
    send_line(f, "position cgp " OPENING);
    send_line(f, "go peg movetime 300");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(first_prefix(f, "info string peg needs 1 to 2 tiles in the bag") >= 0);
    expect_legal_bestmove(f, OPENING);
    front_quit(f);
}

static void test_options(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "setoption name GenCount value 3");
    send_line(f, "setoption name GenCount value 0");
    send_line(f, "setoption name NoSuchOption value 1");
    send_line(f, "setoption name Player value sim:plies=zzz");
    send_line(f, "setoption name Lexicon value CSW21");
    send_line(f, "isready");
    CU_ASSERT_FATAL(read_until(f, "readyok", 30000) >= 0);
    CU_ASSERT(count_prefix(f, "info string setoption:") == 3);
    CU_ASSERT(first_prefix(f, "info string lexicon CSW21 not loaded: lexicon CSW21.kwg not found") >= 0);
    send_line(f, "position cgp " OPENING);
    send_line(f, "go gen");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(count_prefix(f, "info gen move ") == 3);
    int prov = first_prefix(f, "info string provenance");
    CU_ASSERT(prov >= 0 && strstr(f->lines[prov], "lexicon=SOWPODS") != NULL);
    /* the position's lex opcode beats the option: still SOWPODS here, said once more */
    send_line(f, "position cgp " OPENING " lex NWL20;");
    send_line(f, "go gen");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(first_prefix(f, "info string lexicon NWL20 not loaded: lexicon NWL20.kwg not found") >= 0);
    front_quit(f);
    /* a preset that is not an option: exit code 2 before the handshake */
    const char *bad[] = {"Nope=1"};
    CU_ASSERT(siu_engine_run(-1, -1, bad, 1) == 2);
}

/* Options changed between position and go: the tables load anew and the
 * position is built again under them (it pointed into the old ones). */
static void test_reload_rebuilds_position(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "position cgp " OPENING);
    send_line(f, "setoption name Leaves value zero");
    send_line(f, "isready");
    CU_ASSERT(read_until(f, "readyok", 30000) >= 0);
    send_line(f, "setoption name Leaves value default");
    send_line(f, "go gen");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    int prov = first_prefix(f, "info string provenance");
    CU_ASSERT(prov >= 0 && strstr(f->lines[prov], "leaves=SOWPODS.klv2") != NULL);
    expect_legal_bestmove(f, OPENING);
    /* a position that fails after loading another lexicon: the previous one stays, usable */
    send_line(f, "position cgp " OPENING " lex NWL20; moves 8H.QQ");
    send_line(f, "go gen");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(first_prefix(f, "info string error bad-move") >= 0);
    expect_legal_bestmove(f, OPENING);
    front_quit(f);
}

/* Commands right behind a stop, in one write, and a movetime under go
 * infinite (it ends the search, not the wait for stop). */
static void test_pipelined(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "position cgp " OPENING);
    send_line(f, "go infinite movetime 150");
    CU_ASSERT(read_until(f, "bestmove", 700) < 0);
    send_line(f, "stop\ngo gen");
    int answered = 0;
    /* the go was lost when the search ended between the stop and the go
     * being queued (the engine then polled input forever): under load, 2 of
     * 5 runs of the sanitizer build (fixed in poll_wait, 2026-11-27) */
    for (int i = 0; i < 2; i++) answered += read_until(f, "bestmove", 30000) >= 0;
    CU_ASSERT(answered == 2); /* the infinite search's, then the gen's */
    /* a go piped behind a go with a limit runs after it, in order */
    send_line(f, "go sim iterations 5\ngo gen\ngo sim iterations 3");
    int got = 0;
    for (int i = 0; i < 3; i++) got += read_until(f, "bestmove", 20000) >= 0;
    CU_ASSERT(got == 3);
    front_quit(f);
}

/* go infer: the leaves the opponent kept, by probability, then bestmove
 * none; go sim useinference draws from them; refusals. */
static void test_infer(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    send_line(f, "position cgp " OPENING);
    send_line(f, "go infer");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0); /* no opponent's move: refused */
    CU_ASSERT(first_prefix(f, "info string error bad-position go infer needs") >= 0);
    /* both racks unknown, the opponent opened with ZA (the published suite's position) */
    send_line(f, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA");
    send_line(f, "go infer");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    int prov = first_prefix(f, "info string provenance"), first = first_prefix(f, "info infer leave ");
    CU_ASSERT(prov >= 0 && first > prov);
    CU_ASSERT(count_prefix(f, "bestmove") == 1 && first_prefix(f, "bestmove none") >= 0);
    double sum = 0.0, last = 2.0;
    for (int i = 0; i < f->nlines; i++) {
        char leave[32];
        double p;
        if (sscanf(f->lines[i], "info infer leave %31s prob %lf", leave, &p) != 2) continue;
        CU_ASSERT(strlen(leave) == 5 && p > 0.0 && p <= last);
        last = p;
        sum += p;
    }
    CU_ASSERT(sum > 0.0 && sum <= 1.0 + 1e-6);
    /* the rack on turn unknown late in the game: how many tiles the mover held is not known */
    send_line(f, "position cgp 6LINEMEN2/12UG1/9A2GU1/3CIVVY1R2GiB/5O3OP1ADO/5L3HO1REI/5T2KAWAS1L/3COATEE1N3S/"
                 "2J2i1AXED4/1QUINSY3E4/2N2MAL2D4/2I3WE7/2O3PE7/2R4R5TT/FFHNRZEEIRTU3 AEIIS/ 248/368 0 moves I11.SEA");
    send_line(f, "go infer");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0);
    CU_ASSERT(first_prefix(f, "info string error bad-position go infer with the rack of the player on turn unknown "
                              "needs 14 unseen tiles before the move (there were 12)") >= 0);
    send_line(f, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA");
    /* "inference" is not "infer": a go of the player, refused (the rack on turn is unknown) */
    send_line(f, "go inference");
    CU_ASSERT(read_until(f, "bestmove", 1000) < 0);
    CU_ASSERT(first_prefix(f, "info string error bad-position the rack of the player on turn is unknown") >= 0);
    /* useinference on another position is ignored, said; on this one with a rack it is used */
    send_line(f, "position cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 moves 8H.ZA rack.EIRSTLN");
    send_line(f, "go sim iterations 10 useinference");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(first_prefix(f, "info string ignored useinference") >= 0);
    send_line(f, "go infer");
    CU_ASSERT_FATAL(read_until(f, "bestmove none", 30000) >= 0);
    send_line(f, "go sim iterations 10 useinference");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 30000) >= 0);
    CU_ASSERT(first_prefix(f, "info string ignored useinference") < 0);
    CU_ASSERT(first_prefix(f, "info string sim failed") < 0);
    CU_ASSERT(first_prefix(f, "info sim move ") >= 0);
    front_quit(f);
}

/* The static player through go auto plays the static best move. */
static void test_static_player(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready("Player=static");
    send_line(f, "position cgp " OPENING);
    send_line(f, "go");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    int gen = first_prefix(f, "info gen move ");
    int best = first_prefix(f, "bestmove ");
    CU_ASSERT_FATAL(gen >= 0 && best >= 0);
    char a[64], b[64];
    CU_ASSERT(sscanf(f->lines[gen], "info gen move %63s", a) == 1 && sscanf(f->lines[best], "bestmove %63s", b) == 1);
    CU_ASSERT_STRING_EQUAL(a, b);
    front_quit(f);
}

/* The lines of a search's final table: the info sim lines after the last
 * "info time" before the bestmove, joined into out. */
static void final_table(const Front *f, char *out, size_t cap) {
    int last_time = -1, prev_time = -1;
    for (int i = 0; i < f->nlines; i++)
        if (strncmp(f->lines[i], "info time", 9) == 0) {
            prev_time = last_time;
            last_time = i;
        }
    out[0] = '\0';
    size_t len = 0;
    for (int i = prev_time + 1; i < last_time; i++)
        if (strncmp(f->lines[i], "info sim move ", 14) == 0)
            len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s\n", f->lines[i]);
}

/* Threads: go sim on 1, 2 (go threads) and 3 (the Threads option) threads
 * gives the same table and move for a fixed number of iterations; go
 * endgame on 2 threads the same answer as on one at a fixed depth; threads
 * is said ignored where no search runs on threads. */
static void test_threads(void) {
    if (tu_sowpods_kwg() == NULL) return;
    Front *f = ready(NULL);
    static char tables[3][16384];
    char best[3][256];
    const char *go[3] = {"go sim iterations 30", "go sim iterations 30 threads 2", "go sim iterations 30"};
    for (int k = 0; k < 3; k++) {
        if (k == 2) {
            send_line(f, "setoption name Threads value 3");
            send_line(f, "isready");
            CU_ASSERT_FATAL(read_until(f, "readyok", 30000) >= 0);
        }
        send_line(f, "position cgp " ONE_IN_BAG);
        send_line(f, go[k]);
        int end = read_until(f, "bestmove", 60000);
        CU_ASSERT_FATAL(end >= 0);
        CU_ASSERT(first_prefix(f, "info string ignored threads") < 0);
        final_table(f, tables[k], sizeof tables[k]);
        snprintf(best[k], sizeof best[k], "%s", f->lines[end]);
        CU_ASSERT(strlen(tables[k]) > 0);
    }
    CU_ASSERT_STRING_EQUAL(tables[0], tables[1]);
    CU_ASSERT_STRING_EQUAL(tables[0], tables[2]);
    CU_ASSERT_STRING_EQUAL(best[0], best[1]);
    CU_ASSERT_STRING_EQUAL(best[0], best[2]);
    /* a timed threaded search answers in time */
    send_line(f, "position cgp " OPENING);
    double t0 = rk_seconds();
    send_line(f, "go sim movetime 200 threads 2");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 10000) >= 0);
    CU_ASSERT(rk_seconds() - t0 < 5.0); /* 200 ms, with room for a loaded machine or a sanitizer build */
    /* the endgame search on 2 threads (go threads): the same move and value as on one, at the
     * same depth, and threads is not said ignored */
    char eg_best[2][256];
    int eg_value[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        send_line(f, "position cgp " ENDGAME);
        send_line(f, k == 0 ? "go endgame depth 3" : "go endgame depth 3 threads 2");
        int end = read_until(f, "bestmove", 60000);
        CU_ASSERT_FATAL(end >= 0);
        CU_ASSERT(first_prefix(f, "info string ignored threads") < 0);
        snprintf(eg_best[k], sizeof eg_best[k], "%s", f->lines[end]);
        for (int i = 0; i < end; i++) sscanf(f->lines[i], "info endgame depth %*d score spread %d", &eg_value[k]);
    }
    CU_ASSERT_STRING_EQUAL(eg_best[0], eg_best[1]);
    CU_ASSERT_EQUAL(eg_value[0], eg_value[1]);
    /* go gen runs no simulation: threads is said ignored */
    send_line(f, "go gen threads 2");
    CU_ASSERT_FATAL(read_until(f, "bestmove", 5000) >= 0);
    CU_ASSERT(first_prefix(f, "info string ignored threads") >= 0);
    /* a bad Threads value is refused, named */
    send_line(f, "setoption name Threads value 0");
    send_line(f, "isready");
    CU_ASSERT_FATAL(read_until(f, "readyok", 30000) >= 0);
    CU_ASSERT(count_prefix(f, "info string setoption:") == 1);
    front_quit(f);
}

int main(void) {
    CU_TestInfo tests[] = {{"handshake: id, capabilities, option lines, siuok; quit at once", test_handshake},
                           {"idle: unknown commands, stop, go without a position, isready", test_idle_commands},
                           {"every mode: provenance first, one legal bestmove", test_modes},
                           {"go peg: info peg lines over every unseen tile", test_peg_lines},
                           {"endgame: the solver's line with its spread and pv", test_endgame_small},
                           {"go infinite: isready answered, stop ends it with one bestmove", test_infinite_stop_isready},
                           {"bad CGPs and moves, the rack on turn unknown, rack., searchmoves", test_position_errors},
                           {"options: set, bad values, a lexicon that is not there", test_options},
                           {"Player=static: go plays the static best move", test_static_player},
                           {"options changed after position: the position is built again", test_reload_rebuilds_position},
                           {"stop then go in one write; movetime under go infinite", test_pipelined},
                           {"go infer and go sim useinference", test_infer},
                           {"threads: the same table on 1, 2 and 3 threads, the same endgame answer on 2; ignored elsewhere", test_threads},
                           CU_TEST_INFO_NULL};
    return tu_run("siu_engine", tests);
}
