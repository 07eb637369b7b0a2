/* commands.h - one function per `rookery <command>`, each in its own file.
 * Every command prints its usage for --help and returns the process exit
 * code: 0 success, 1 runtime failure, 2 bad input or usage. */
#ifndef ROOKERY_COMMANDS_H
#define ROOKERY_COMMANDS_H

int cmd_lexicon(int argc, char **argv);
int cmd_movegen(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_leaves(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_nn(int argc, char **argv);
int cmd_afterstate(int argc, char **argv);
int cmd_endgame(int argc, char **argv);
int cmd_peg(int argc, char **argv);
int cmd_decisions(int argc, char **argv);
int cmd_siu(int argc, char **argv);
int cmd_arena(int argc, char **argv);

#endif
