/* main.c - `rookery <command> ...`: dispatches to one file per command. */
#include <cblas.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "nn/blas_core.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

static const Command COMMANDS[] = {
    {"train", cmd_train, "the training job: generations of self-play and leave training (under mpirun)"},
    {"siu", cmd_siu, "rookery as an SIU engine on stdin/stdout, for front ends and referees"},
    {"match", cmd_match, "game pairs between two players, with a 95% confidence interval (under mpirun)"},
    {"arena", cmd_arena, "game pairs between two SIU engines run as child processes, refereed (under mpirun)"},
    {"report", cmd_report, "per-generation table of a run and a PNG of its training curves"},
    {"lexicon", cmd_lexicon, "build, check and dump .kwg lexicon graphs"},
    {"movegen", cmd_movegen, "generate the moves of a CGP position (counts and best moves)"},
    {"sim", cmd_sim, "Monte Carlo simulation of the best candidate moves of a CGP position"},
    {"leaves", cmd_leaves, "bag-aware leave values from a rack-equity table (.req) for a position"},
    {"peg", cmd_peg, "a pre-endgame (1 or 2 tiles in the bag) solved: every way the tiles can lie"},
    {"endgame", cmd_endgame, "an empty-bag position searched (--cgp), or a player's endgame moves against the exact solver"},
    {"decisions", cmd_decisions, "players' middle-game moves against a long reference simulation (under mpirun)"},
    {"selfplay", cmd_selfplay, "play static-equity games against itself and summarize them"},
    {"bench", cmd_bench, "measure move generation, self-play, search and network throughput"},
    {"nn", cmd_nn, "train or evaluate the P/V/H network on a run's shards (under mpirun)"},
    {"afterstate", cmd_afterstate, "train or evaluate the afterstate value network on a run's shards (under mpirun)"},
    {"info", cmd_info, "describe a data file: .spv tables (heat map, optional PNG), .klv2, .kwg, .h5 models and shards"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: rookery <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "\n`rookery <command> --help` describes a command.\n");
}

int main(int argc, char **argv) {
    /* First of all (before MPI_Init): OpenBLAS's kernels for this CPU; may
     * execute the program again with OPENBLAS_CORETYPE set (blas_core.h). */
    blas_core_fix(argv);
    /* Every HDF5 file is closed explicitly; HDF5's own teardown at exit
     * would only print a spurious "infinite loop closing library" after a
     * corrupt file was refused (its damaged metadata stays cached). */
    H5dont_atexit();
    /* One BLAS thread per process: parallelism comes from MPI ranks. */
    openblas_set_num_threads(1);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        const char *best = blas_core_best();
        printf("rookery 0.1.0\nOpenBLAS core: %s (the best this CPU runs: %s)\n", blas_core_name(),
               best != NULL ? best : "generic");
        return 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "rookery: unknown command '%s' (see rookery --help)\n", argv[1]);
    return 2;
}
