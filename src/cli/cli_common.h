/* cli_common.h - what the commands share: loading the letter distribution,
 * board layout and lexicon named on the command line, and small option
 * parsing helpers. */
#ifndef ROOKERY_CLI_COMMON_H
#define ROOKERY_CLI_COMMON_H

#include <stdint.h>

#include "core/engine.h"
#include "reducer/comm.h"
#include "search/player.h"
#include "train/config.h"

/* The start of every command that runs its share under mpirun: MPI up
 * (comm_init), then the engine with the built-in distribution and layout and
 * `lexicon` (NULL: the default), on the heap. Returns -1 after a one-line
 * message when MPI cannot start (comm is not up: the caller returns 2).
 * Otherwise comm is up and the result is 0 with *engine set, or 1 (out of
 * memory) or 2 (the lexicon, message printed) with *engine NULL: the caller
 * still agrees on the failure with the other ranks, then finalizes comm. */
int cli_start_comm_engine(Comm *comm, const char *lexicon, Engine **engine);
/* engine_open, its error printed as "rookery: <message>" (-1). */
int cli_engine_open(Engine *e, const char *ld_name, const char *layout_name, const char *lexicon_path,
                    const char *lexicon_name);
/* A run's configuration, as the commands that read a run take it
 * (`rookery nn`, `rookery afterstate`): the defaults, RUN/config.ini, then
 * each "section.key=value" of sets (nsets of them; --set). 0 or -1 (err). */
int cli_run_config(const char *run, const char *const *sets, int nsets, TrainConfig *cfg, RkError *err);
/* The engine of a run's configuration (its lexicon, distribution and
 * layout), the error printed as cli_engine_open does. */
int cli_run_engine_open(Engine *e, const TrainConfig *cfg);
/* Closes and frees an engine of cli_start_comm_engine (NULL: nothing). */
void cli_engine_free(Engine *e);

/* player_open, then the engine's default leaves (engine_default_leaves) if
 * the spec names no leaves. */
int cli_player_open(Player *p, const char *spec, const Engine *e, RkError *err);
/* "LABEL: SPEC", with the default leaves p got from cli_player_open, if any. */
void cli_print_player(const char *label, const char *spec, const Player *p, const Engine *e);
/* Opens the engine a CGP is read with (the commands that take --cgp): the
 * letter distribution is --ld (ld_name) if given, else the CGP's `ld`
 * opcode, which must be one rookery has built in ("english"; a name, never
 * a path), else english; the lexicon --lexicon, else the CGP's `lex`
 * opcode, else the default. 0, or -1 with one line on stderr (a malformed
 * CGP line, an unknown `ld`, what engine_open says). The caller parses the
 * CGP itself with e's tables. */
int cli_engine_for_cgp(Engine *e, const char *cgp, const char *ld_name, const char *layout_name, const char *lexicon);

/* Parses a non-negative integer option value; prints an error naming the
 * option and returns -1 on junk or out of range. */
int cli_parse_u64(const char *opt, const char *value, uint64_t max, uint64_t *out);
int cli_parse_int(const char *opt, const char *value, int lo, int hi, int *out);
/* The same for a number in [lo, hi] (NaN and infinities refused). */
int cli_parse_double(const char *opt, const char *value, double lo, double hi, double *out);
/* True if s is --help or -h. */
int cli_is_help(const char *s);
/* Monotonic wall clock in seconds. */
double cli_now(void);
/* How many of the items 0..n-1 rank `rank` of `size` plays when item i goes
 * to rank i mod size (for progress lines). */
uint64_t cli_share_count(uint64_t n, int rank, int size);

#endif
