/* rookery train: argument parsing and signals; the loop itself is the
 * library in src/train/ (train.h).
 *
 * Signals: SIGTERM, SIGINT and SIGUSR1 set a flag that the loop reads at its
 * stop checks (every ~32 games a rank, and between the stages after the
 * games): the ranks take the maximum of their flags, so all of them stop
 * together, discard the generation in flight and exit with
 * TRAIN_EXIT_STOPPED. The flag is the one piece of file-scope mutable state
 * in rookery: a signal handler can reach nothing else. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "train/train.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: mpirun -np N rookery train [--config FILE] [--run DIR] [--set section.key=value]...\n"
            "       rookery train --print-default-config\n"
            "\n"
            "Runs generations of static self-play, leave and SPV training. Each generation plays\n"
            "run.games_per_generation games over all ranks, sums the rack-equity and SPV\n"
            "accumulators, derives the leaves and the SPV positional table (per spv.schedule),\n"
            "evaluates them (held-out residual variance, matches) and writes RUN/gen-NNNN/\n"
            "(leaves.klv2, racks.req, positional.spv, manifest.json), RUN/LATEST and\n"
            "RUN/metrics.csv. Without --config the embedded default is used\n"
            "(--print-default-config shows it, with every key).\n"
            "If RUN already holds generations, its config.ini is used (or --config, plus --set), the\n"
            "last complete generation is verified whole against its manifest (and the lexicon\n"
            "against its checksum), and training continues. A resume may not change the seed,\n"
            "player, lexicon, starting points, network shape or held-out split (exit 2 naming the\n"
            "key); other changes are written into RUN/config.ini and the log. Each generation\n"
            "keeps its configuration (gen-NNNN/config.ini). Rank 0 holds RUN/.lock: a second\n"
            "training on RUN exits 2 naming the holder.\n"
            "With run.keep = N, generations older than the newest N keep only their manifest and\n"
            "metrics row (not the shards of nn.window or the model in force; run.keep_every = M\n"
            "keeps every M-th whole).\n"
            "  --run DIR      the run directory (overrides run.output)\n"
            "  --set K=V      override one key, e.g. --set run.generations=10\n"
            "  --check        set up everything a run needs (config, lexicon, leaves, players, the\n"
            "                 model, nn.initial, nn.reference, the anchor; a resumed run's last\n"
            "                 generation verified), say what the run would do, and stop without\n"
            "                 writing or playing anything: for a login node before sbatch\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input, 3 stopped by SIGTERM/SIGINT/SIGUSR1\n"
            "(the generation in flight is discarded; run the same command to resume).\n");
}

int cmd_train(int argc, char **argv) {
    TrainRequest req = {.stop = &stop_requested};
    const char *sets[64]; /* applied after the config file */
    CliStrings set_list = {sets, 0, 64, NULL};
    bool print_default = false;
    const CliOption opts[] = {{"--bench", CLI_FLAG, &req.bench, 0, 0, NULL},
                              {"--check", CLI_FLAG, &req.check_only, 0, 0, NULL},
                              {"--print-default-config", CLI_FLAG, &print_default, 0, 0, NULL},
                              {"--config", CLI_STRING, &req.config_path, 0, 0, NULL},
                              {"--run", CLI_STRING, &req.run_dir, 0, 0, NULL},
                              {"--set", CLI_STRINGS, &set_list, 0, 0, NULL}};
    int parsed = cli_options_parse("train", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (print_default) {
        char text[16384];
        if (train_config_default_text(text, sizeof text) < 0) return 1;
        fputs(text, stdout);
        return 0;
    }
    req.sets = sets;
    req.nsets = set_list.n;
    if (req.check_only && req.bench) {
        fprintf(stderr, "rookery train: --check plays nothing and --bench plays one generation: give one of them\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    return train_run(&req);
}
