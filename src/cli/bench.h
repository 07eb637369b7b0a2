/* bench.h - `rookery bench` subcommands that live in files of their own
 * (cmd_bench.c dispatches to them). Same conventions as commands.h: argv[0]
 * is "bench", argv[1] the benchmark's name; --help prints the usage; the
 * return value is the exit code (0 done, 1 runtime failure, 2 bad input). */
#ifndef ROOKERY_CLI_BENCH_H
#define ROOKERY_CLI_BENCH_H

/* rookery bench nn: the network's forward pass, policy and trainer (bench_nn.c). */
int bench_nn(int argc, char **argv);

#endif
