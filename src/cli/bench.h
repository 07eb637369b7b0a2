/* bench.h - `rookery bench` subcommands that live in files of their own
 * (cmd_bench.c dispatches to them). Same conventions as commands.h: argv[0]
 * is "bench", argv[1] the benchmark's name; --help prints the usage; the
 * return value is the exit code (0 done, 1 runtime failure, 2 bad input). */
#ifndef ROOKERY_CLI_BENCH_H
#define ROOKERY_CLI_BENCH_H

/* rookery bench nn: the network's forward pass, policy and trainer (bench_nn.c). */
int bench_nn(int argc, char **argv);

/* rookery bench mcgs: the graph search player (bench_mcgs.c). */
int bench_mcgs(int argc, char **argv);

/* rookery bench endgame: the endgame search against the clock (bench_endgame.c). */
int bench_endgame(int argc, char **argv);
/* rookery bench peg: the pre-endgame solver against the simulation (bench_peg.c). */
int bench_peg(int argc, char **argv);

/* rookery bench afterstate: a value player's decision (bench_afterstate.c). */
int bench_afterstate(int argc, char **argv);

/* rookery bench infer: inference of the opponent's kept tiles (bench_infer.c). */
int bench_infer(int argc, char **argv);

#include "worker/selfplay.h"
/* The first position of each game of `play` (games 0, 1, ...) with lo..hi
 * tiles in the bag (or unseen, by_unseen), up to `want` of them into out
 * (at most 100 games a position wanted); returns how many (cmd_bench.c). */
int positions_per_game(const SelfplayConfig *play, int lo, int hi, bool by_unseen, Game *out, int want,
                       Game *scratch);

#endif
