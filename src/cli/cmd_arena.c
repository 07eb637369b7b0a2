/* rookery arena: game pairs between two SIU engines run as child processes,
 * refereed by rookery (src/arena/), under MPI. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena/engine_proc.h"
#include "arena/referee.h"
#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "reducer/comm.h"
#include "reducer/comm_max.h"

#define DAY_MS 86400000.0

static void usage(FILE *out) {
    fprintf(out,
            "usage: [mpirun -np N] rookery arena --a 'COMMAND ...' --b 'COMMAND ...' --pairs N [--movetime MS]\n"
            "       [--grace MS] [--timeout MS] [--seed S] [--gcg DIR] [--lexicon FILE.kwg] [--lex NAME]\n"
            "       [--engine-log DIR]\n"
            "\n"
            "Plays N game pairs between two SIU engines, each started as a child process with\n"
            "/bin/sh -c COMMAND. Pair i deals the racks and bag of `rookery match`'s pair i (same seed):\n"
            "A moves first in its first game, B in its second. rookery keeps the true game and checks\n"
            "every move against its lexicon (--lexicon, else the default one); each engine sees only\n"
            "its own rack: the position before the opponent's last move plus that move (an exchange as\n"
            "ex.N). Pairs are dealt to the ranks by index; each rank runs its own pair of engines.\n"
            "\n"
            "A forfeits a game (and loses it) when it crashes, answers no bestmove in time, or answers\n"
            "a malformed or illegal move; one line on stderr names the reason, the engine, the pair,\n"
            "the game and the position's CGP, and the engine is restarted for the next game.\n"
            "Forfeited games count as losses for the offender in the wins, losses and win %%; they are\n"
            "left out of the mean spread (the score when an engine fails says nothing about the\n"
            "spread the game would have had), which is over the games that ended by the rules.\n"
            "\n"
            "  --movetime MS   sent as `go movetime MS`; the move's deadline is MS + grace\n"
            "  --grace MS      margin over the movetime before a move is late (default 2000)\n"
            "  --timeout MS    the deadline of a move without --movetime, and of the handshake and\n"
            "                  each readyok (default 60000)\n"
            "  --seed S        the deals' seed (default 1, as rookery match)\n"
            "  --gcg DIR       writes every game as DIR/pair-NNNNNN-game-G.gcg (created if missing)\n"
            "  --lex NAME      adds `lex NAME;` to every CGP the engines get (for engines that need\n"
            "                  a lexicon named in the position)\n"
            "  --engine-log DIR  the engines' stderr goes to DIR/A-rank-R.log and DIR/B-rank-R.log\n"
            "                  (default: /dev/null)\n"
            "\n"
            "Prints A's wins/draws/losses, A's win %% (draws half) with a 95%% interval over pairs,\n"
            "A's mean spread, each engine's forfeits by reason and its time per move (mean, max).\n"
            "Example: rookery arena --a 'rookery siu --option Player=static' \\\n"
            "                       --b 'rookery siu --option Player=sim' --pairs 100 --movetime 1000\n");
}

typedef struct ArenaArgs {
    const char *cmd[2], *lexicon, *gcg, *lex, *logdir;
    uint64_t pairs, seed;
    int movetime, grace, timeout;
} ArenaArgs;

/* 0, 1 after --help, -1 after an error (printed). */
static int parse(int argc, char **argv, ArenaArgs *a) {
    *a = (ArenaArgs){.seed = 1, .grace = 2000, .timeout = 60000};
    const CliOption opts[] = {{"--a", CLI_STRING, &a->cmd[0], 0, 0, NULL},
                              {"--b", CLI_STRING, &a->cmd[1], 0, 0, NULL},
                              {"--pairs", CLI_U64, &a->pairs, 0, 1099511627776.0, NULL},
                              {"--movetime", CLI_INT, &a->movetime, 1, DAY_MS, NULL},
                              {"--grace", CLI_INT, &a->grace, 0, DAY_MS, NULL},
                              {"--timeout", CLI_INT, &a->timeout, 1, DAY_MS, NULL},
                              {"--seed", CLI_U64, &a->seed, 0, 18446744073709551615.0, NULL},
                              {"--gcg", CLI_STRING, &a->gcg, 0, 0, NULL},
                              {"--lex", CLI_STRING, &a->lex, 0, 0, NULL},
                              {"--engine-log", CLI_STRING, &a->logdir, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &a->lexicon, 0, 0, NULL}};
    int parsed = cli_options_parse("arena", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed;
    if (a->cmd[0] == NULL || a->cmd[1] == NULL || a->pairs == 0) {
        fprintf(stderr, "rookery arena: --a, --b and --pairs N (N > 0) are required (see --help)\n");
        return -1;
    }
    for (int e = 0; e < 2; e++)
        if (a->cmd[e][0] == '\0' || strpbrk(a->cmd[e], "\n\r") != NULL) {
            fprintf(stderr, "rookery arena: --%c needs a command on one line\n", "ab"[e]);
            return -1;
        }
    if (a->lex != NULL && (a->lex[0] == '\0' || strpbrk(a->lex, " \t\n\r;") != NULL)) {
        fprintf(stderr, "rookery arena: --lex takes a lexicon name without spaces or ';'\n");
        return -1;
    }
    return 0;
}

static int make_dir(const char *opt, const char *dir) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "rookery arena: %s %s: %s\n", opt, dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "rookery arena: %s %s is not a directory\n", opt, dir);
        return -1;
    }
    return 0;
}

/* Starts both engines of this rank; 0 or 2 (bad input: an engine that does
 * not start or does not answer the handshake). */
static int start_engines(const ArenaArgs *a, const Comm *comm, EngineProc eng[2]) {
    RkError err;
    for (int e = 0; e < 2; e++) {
        char log[4096];
        if (a->logdir != NULL) snprintf(log, sizeof log, "%s/%c-rank-%d.log", a->logdir, "AB"[e], comm->rank);
        if (engine_proc_init(&eng[e], a->cmd[e], a->logdir != NULL ? log : NULL, &err) != 0 ||
            engine_proc_start(&eng[e], a->timeout, &err) != 0) {
            fprintf(stderr, "rookery arena: engine %c ('%s'): %s\n", "AB"[e], a->cmd[e], err.msg);
            return 2;
        }
    }
    return 0;
}

/* This rank's share of the pairs; 0, or 1 when a GCG file could not be
 * written (the rank stops there; the totals are still summed). */
static int play_share(const ArenaArgs *a, const Comm *comm, Referee *ref, ArenaTotals *t) {
    double t0 = cli_now(), last = t0;
    uint64_t mine = cli_share_count(a->pairs, comm->rank, comm->size);
    for (uint64_t i = (uint64_t)comm->rank, k = 1; i < a->pairs; i += (uint64_t)comm->size, k++) {
        ArenaGame games[2];
        RkError err;
        int rc = referee_play_pair(ref, i, games, &err);
        arena_totals_add(t, games);
        if (rc != 0) {
            fprintf(stderr, "rookery arena: rank %d: %s\n", comm->rank, err.msg);
            return 1;
        }
        if (comm->rank == 0 && cli_now() - last >= 10.0) {
            last = cli_now();
            fprintf(stderr, "arena: rank 0 has played %" PRIu64 " of its %" PRIu64 " pairs (%.0f s): A %" PRId64
                            "-%" PRId64 "-%" PRId64 "\n",
                    k, mine, last - t0, t->m.a_wins, t->m.draws, t->m.a_losses);
        }
    }
    return 0;
}

static int sum_totals(const Comm *comm, ArenaTotals *t, RkError *err) {
    int64_t sum[ARENA_SUM_FIELDS], max[ARENA_MAX_FIELDS];
    arena_totals_pack(t, sum, max);
    if (comm_sum_i64(comm, sum, ARENA_SUM_FIELDS, err) != 0 || comm_max_i64_array(comm, max, ARENA_MAX_FIELDS, err) != 0)
        return -1;
    arena_totals_unpack(sum, max, t);
    return 0;
}

static void print_summary(const ArenaArgs *a, const EngineProc eng[2], const ArenaTotals *t, double secs, int ranks) {
    MatchResult r;
    arena_result(t, &r);
    for (int e = 0; e < 2; e++) {
        if (eng[e].name[0] != '\0') printf("%c: %s (%s)\n", "AB"[e], a->cmd[e], eng[e].name);
        else printf("%c: %s\n", "AB"[e], a->cmd[e]);
    }
    printf("pairs %" PRId64 ", games %" PRId64 ": A wins %" PRId64 ", draws %" PRId64 ", losses %" PRId64 "\n",
           t->m.pairs, t->m.games, t->m.a_wins, t->m.draws, t->m.a_losses);
    printf("A win%% %.2f +/- %.2f (95%% CI over pairs), mean spread %+.2f over %" PRId64
           " games without a forfeit; %.2f games/s on %d rank(s)\n",
           r.win_pct, r.ci95_pct, r.mean_spread, t->spread_games, secs > 0 ? (double)t->m.games / secs : 0.0, ranks);
    for (int e = 0; e < 2; e++) {
        int64_t n = 0;
        for (int f = 1; f < ARENA_FORFEIT_REASONS; f++) n += t->forfeits[e][f];
        printf("%c forfeits %" PRId64 " (", "AB"[e], n);
        for (int f = 1; f < ARENA_FORFEIT_REASONS; f++)
            printf("%s%s %" PRId64, f > 1 ? ", " : "", arena_forfeit_name((ArenaForfeit)f), t->forfeits[e][f]);
        printf("); time per move: mean %.1f ms, max %.1f ms over %" PRId64 " moves\n",
               t->timed[e] > 0 ? (double)t->time_us[e] / (double)t->timed[e] / 1000.0 : 0.0,
               (double)t->max_us[e] / 1000.0, t->timed[e]);
    }
}

static int run(const ArenaArgs *a, const Comm *comm, Engine *e, EngineProc eng[2]) {
    RkError err;
    ArenaConfig cfg = {&e->ld, &e->layout, &e->kwg, a->seed, a->movetime, a->grace, a->timeout, a->lex, a->gcg,
                       {a->cmd[0], a->cmd[1]}, stderr};
    Referee *ref = referee_new(&cfg, &eng[0], &eng[1]);
    ArenaTotals t;
    memset(&t, 0, sizeof t);
    double t0 = cli_now();
    int rc = ref == NULL ? 1 : play_share(a, comm, ref, &t);
    if (ref == NULL) fprintf(stderr, "rookery arena: out of memory\n");
    referee_free(ref);
    if (sum_totals(comm, &t, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    rc = (int)comm_max_i64(comm, rc);
    if (comm->rank == 0) print_summary(a, eng, &t, cli_now() - t0, comm->size);
    return rc;
}

int cmd_arena(int argc, char **argv) {
    ArenaArgs a;
    int parsed = parse(argc, argv, &a);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    Comm comm;
    Engine *e;
    int rc = cli_start_comm_engine(&comm, a.lexicon, &e);
    if (rc < 0) return 2;
    EngineProc eng[2];
    memset(eng, 0, sizeof eng);
    eng[0].pid = eng[1].pid = -1;
    eng[0].to_fd = eng[0].from_fd = eng[1].to_fd = eng[1].from_fd = -1;
    if (rc == 0) {
        if ((a.gcg != NULL && make_dir("--gcg", a.gcg) != 0) ||
            (a.logdir != NULL && make_dir("--engine-log", a.logdir) != 0))
            rc = 2;
        else
            rc = start_engines(&a, &comm, eng);
    }
    if (comm_max_i64(&comm, rc) == 0) rc = run(&a, &comm, e, eng);
    else if (rc == 0) rc = 2; /* another rank failed to start */
    for (int i = 0; i < 2; i++) {
        engine_proc_quit(&eng[i], 500);
        engine_proc_free(&eng[i]);
    }
    cli_engine_free(e);
    comm_finalize(&comm);
    return rc;
}
