/* rookery match: game pairs between two players, under MPI. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "reducer/comm.h"
#include "reducer/totals_sum.h"
#include "worker/match.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: [mpirun -np N] rookery match --a SPEC --b SPEC --pairs N [--seed S] [--lexicon FILE.kwg]\n"
            "\n"
            "Plays N game pairs between players A and B: each pair is the same racks and bag order\n"
            "played twice with the seats swapped. Pairs are dealt to the ranks by index, so the\n"
            "result does not depend on the number of ranks. Prints A's wins/draws/losses, A's win %%\n"
            "(draws count half) with a 95%% confidence interval over pairs, and A's mean spread.\n"
            "A player without leaves= (or req=) plays with the lexicon's default leaves, NAME.klv2\n"
            "beside NAME.kwg (for SOWPODS the trained table data/leaves/SOWPODS.klv2; the output's\n"
            "A:/B: lines name it); leaves=zero plays by score alone; $ROOKERY_LEAVES=zero|FILE.klv2\n"
            "overrides the default.\n"
            "SPEC: static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K], e.g.\n"
            "      static:leaves=runs/default/gen-0003/leaves.klv2,spv=runs/default/gen-0003/positional.spv\n"
            "      (spv_k: the spread scale K of the SPV variance weight, points, default 75;\n"
            "      explore=T: a move drawn from the 16 best by softmax(equity / T points))\n"
            "      sim[:plies=P][,candidates=K][,iterations=N][,stop_z=Z][,seed=S][,leaves=F|,req=F.req]\n"
            "      Monte Carlo simulation of the K best static moves (search/player.h)\n"
            "      nn:greedy,model=F.h5   the network's most probable legal move\n"
            "      nn:value,model=F.h5[,candidates=K][,samples=S]   the best by the value head among\n"
            "      the K most probable moves, each played in S dealt worlds (defaults 8, 4)\n"
            "      value:model=F.h5[,candidates=K]   the best of the K best static moves (default 16)\n"
            "      by the afterstate network's chance of winning (docs/afterstate.md)\n"
            "      mcgs[:visits=N][,crn=yes][,net=F.h5][,...]   the graph search over information sets\n"
            "      (every option and its default: docs/mcgs.md)\n");
}

int cmd_match(int argc, char **argv) {
    const char *spec_a = NULL, *spec_b = NULL, *lexicon = NULL;
    uint64_t pairs = 0, seed = 1;
    const CliOption opts[] = {{"--a", CLI_STRING, &spec_a, 0, 0, NULL},
                              {"--b", CLI_STRING, &spec_b, 0, 0, NULL},
                              {"--pairs", CLI_U64, &pairs, 0, 1099511627776.0, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL}};
    int parsed = cli_options_parse("match", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (spec_a == NULL || spec_b == NULL || pairs == 0) {
        fprintf(stderr, "rookery match: --a, --b and --pairs N (N > 0) are required (see --help)\n");
        return 2;
    }
    RkError err;
    Comm comm;
    Engine *e;
    int rc = cli_start_comm_engine(&comm, lexicon, &e);
    if (rc < 0) return 2;
    Game *g = malloc(sizeof *g);
    Player a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (rc == 0 && g == NULL) rc = 1;
    if (rc == 0 &&
        (cli_player_open(&a, spec_a, e, &err) != 0 || cli_player_open(&b, spec_b, e, &err) != 0 ||
         player_check_board(&a, e->layout.dim, &err) != 0 || player_check_board(&b, e->layout.dim, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 2;
    }
    if (comm_max_i64(&comm, rc) != 0) {
        player_close(&a);
        player_close(&b);
        cli_engine_free(e);
        comm_finalize(&comm);
        free(g);
        return rc ? rc : 2;
    }
    MatchTotals t;
    memset(&t, 0, sizeof t);
    double t0 = cli_now();
    uint64_t mine = cli_share_count(pairs, comm.rank, comm.size);
    double last = t0;
    for (uint64_t i = (uint64_t)comm.rank, k = 1; i < pairs; i += (uint64_t)comm.size, k++) {
        match_play_pair(&a, &b, &e->ld, &e->layout, &e->kwg, seed, i, g, &t);
        if (comm.rank == 0 && cli_now() - last >= 10.0) { /* progress of rank 0's share */
            last = cli_now();
            fprintf(stderr, "match: rank 0 has played %llu of its %llu pairs (%.0f s)\n", (unsigned long long)k,
                    (unsigned long long)mine, last - t0);
        }
    }
    if (totals_sum_match(&comm, &t, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 1;
    } else if (comm.rank == 0) {
        MatchResult r;
        match_result(&t, &r);
        double dt = cli_now() - t0;
        cli_print_player("A", spec_a, &a, e);
        cli_print_player("B", spec_b, &b, e);
        printf("pairs %" PRId64 ", games %" PRId64 ": A wins %" PRId64 ", draws %" PRId64 ", losses %" PRId64 "\n",
               t.pairs, t.games, t.a_wins, t.draws, t.a_losses);
        printf("A win%% %.2f +/- %.2f (95%% CI over pairs), mean spread %+.2f; %.1f games/s on %d rank(s)\n",
               r.win_pct, r.ci95_pct, r.mean_spread, (double)t.games / dt, comm.size);
    }
    player_close(&a);
    player_close(&b);
    cli_engine_free(e);
    free(g);
    comm_finalize(&comm);
    return rc;
}
