/* rookery bench mcgs: the graph search player's throughput on self-play
 * positions (a benchmark: it prints figures and never fails on speed). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "search/mcgs_player.h"
#include "search/player.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench mcgs --player SPEC [--positions N] [--seed S] [--lexicon FILE.kwg]\n"
            "\n"
            "Runs the graph search player SPEC (mcgs:..., see `rookery match --help`) once on each of\n"
            "N self-play positions (default 20: the first position of each static best-score game\n"
            "with 40 to 80 tiles in the bag, games of seed S, default 1), on one core, and prints:\n"
            "  playouts/s      completed playouts per second of search;\n"
            "  net positions/s positions through the network (with net=), and the average batch;\n"
            "  collisions      playouts dropped because their leaf was already waiting in a batch;\n"
            "  the leak's reach the opponent's choices of a move below the root, and the share of\n"
            "                  them made from statistics (search/mcgs.h, LEAKS);\n"
            "  memory          graph bytes per node at the largest search, nodes per decision.\n");
}

int bench_mcgs(int argc, char **argv) {
    const char *lexicon = NULL, *spec = NULL;
    uint64_t npos = 20, seed = 1;
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--player", CLI_STRING, &spec, 0, 0, NULL},
                              {"--positions", CLI_U64, &npos, 0, 100000, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL}};
    /* argv[1] is "mcgs": the options follow it */
    int parsed = cli_options_parse("bench mcgs", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (npos == 0) {
        fprintf(stderr, "rookery bench mcgs: --positions must be at least 1\n");
        return 2;
    }
    if (spec == NULL) {
        fprintf(stderr, "rookery bench mcgs: give --player mcgs:... (see --help)\n");
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    RkError err;
    Player p;
    if (cli_player_open(&p, spec, &e, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        engine_close(&e);
        return 2;
    }
    if (player_check_board(&p, e.layout.dim, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        player_close(&p);
        engine_close(&e);
        return 2;
    }
    int rc = 0;
    Game *pos = malloc(npos * sizeof *pos), *scratch = malloc(sizeof *scratch);
    McgsPlayer *mp = mcgs_player_of(&p);
    if (mp == NULL) {
        fprintf(stderr, "rookery bench mcgs: '%s' is not an mcgs: player\n", spec);
        rc = 2;
        goto done;
    }
    if (pos == NULL || scratch == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        rc = 1;
        goto done;
    }
    SelfplayConfig play = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed};
    int got = positions_per_game(&play, 40, 80, false, pos, (int)npos, scratch);
    if (got == 0) {
        fprintf(stderr, "rookery bench mcgs: no self-play game reached 40 to 80 tiles in the bag\n");
        rc = 1;
        goto done;
    }
    uint64_t nodes = 0;
    for (int i = 0; i < got; i++) {
        Move m;
        if (mcgs_player_choose(mp, &pos[i], player_leave_fn(&p), p.leaves, &m, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
            goto done;
        }
        nodes += mp->last.nodes;
    }
    double secs = mp->seconds;
    cli_print_player("bench mcgs", spec, &p, &e);
    printf("  %d positions (40-80 tiles in the bag), one core\n", got);
    printf("  %.1f playouts/s, %.2f ms per playout, %.3f s per decision\n", (double)mp->playouts / secs,
           1000.0 * secs / (double)mp->playouts, secs / got);
    if (mp->full_share < 1.0)
        printf("  playout cap randomization: %" PRIu64 " of %d decisions full (%u visits), the others %u visits\n",
               mp->full_decisions, got, mp->cfg.visits, mp->fast_visits);
    printf("  %" PRIu64 " leaves evaluated, %" PRIu64 " collisions (%.2f%% of descents)\n", mp->evaluations,
           mp->collisions, 100.0 * (double)mp->collisions / (double)(mp->collisions + mp->playouts));
    printf("  the opponent's nodes: %" PRIu64 " moves chosen below the root, %" PRIu64
           " (%.1f%%) from statistics (the leak's reach)\n",
           mp->opponent_choices, mp->opponent_informed,
           mp->opponent_choices ? 100.0 * (double)mp->opponent_informed / (double)mp->opponent_choices : 0.0);
    if (mp->batches > 0)
        printf("  %.1f net positions/s, %" PRIu64 " network passes, average batch %.2f\n",
               (double)mp->net_positions / secs, mp->batches, (double)mp->net_positions / (double)mp->batches);
    else
        printf("  no network (static candidates, rollouts)\n");
    printf("  %.0f nodes per decision; largest graph %" PRIu64 " nodes, %.1f MB (%.0f bytes per node)\n",
           (double)nodes / got, mp->max_nodes, mp->max_bytes / 1e6,
           mp->max_nodes ? (double)mp->max_bytes / (double)mp->max_nodes : 0.0);
done:
    free(pos);
    free(scratch);
    player_close(&p);
    engine_close(&e);
    return rc;
}
