/* testutil.h - what every CUnit test executable shares: paths to the
 * reference data and the built lexicon, small helpers used by several tests
 * (TSV splitting, a tiny lexicon, tile conservation), and a runner. */
#ifndef ROOKERY_TESTUTIL_H
#define ROOKERY_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stdbool.h>

#include "core/game.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"

/* SKIPS. A test whose input is missing (the lexicon, a ../shared file)
 * calls tu_missing: with CI set in the environment (non-empty, not "0";
 * .ci/run sets it) that is a failure naming the input, so CI never passes a
 * test that checked nothing; outside CI it is a skip. A test that cannot run
 * on this machine (a file system without sparse files, a refused rlimit)
 * calls tu_skip, a skip everywhere. Every skip prints "SKIPPED: <test>:
 * <why>" and, when ROOKERY_SKIP_LOG names a file (scripts/test.sh sets it),
 * appends that line to it: test.sh counts and lists them at the end. */
void tu_skip(const char *test, const char *why);
void tu_missing(const char *test, const char *why);
/* ../shared/rel, or NULL after tu_missing if it is missing. */
const char *tu_shared_path(const char *rel, char *buf, size_t cap);
/* The SOWPODS.kwg built by the build, or NULL after tu_missing. */
const char *tu_sowpods_kwg(void);
/* Loads the built SOWPODS.kwg for ld into k (fatally on a load error);
 * false, after tu_missing, if it was not built. */
bool tu_load_sowpods(Kwg *k, const LetterDist *ld);
/* The size of a heavy oracle loop: `full`, or `quick` when ROOKERY_TEST_QUICK
 * is set (non-empty, not "0"). The sanitizer build's ctest sets it (the
 * Release pass runs every oracle in full; under ASan the same code paths at
 * a third of the size are what memory checking needs). */
int tu_size(int full, int quick);
/* A fresh temporary directory (mkdtemp); the path is written to buf. */
const char *tu_tmpdir(char *buf, size_t cap);
/* Writes text to path; returns 0 on success. */
int tu_write_file(const char *path, const char *text);
/* The bytes of a file (malloc'ed into *out); the size, or -1. */
long tu_read_bytes(const char *path, unsigned char **out);
/* Writes n bytes to path (failing the test fatally if it cannot). */
void tu_write_bytes(const char *path, const unsigned char *b, long n);
/* Training samples of static self-play games 0..games-1 (seed, generation
 * 1), with softmax policy targets of `top` moves at `temperature` points
 * (nn samples, worker/samples.h), appended to set (a ShardSet). With
 * `shared`, the self-play fills the sampler's list (samples_shared_top). */
struct ShardSet;
void tu_selfplay_samples(struct ShardSet *set, const LetterDist *ld, const Layout *lay, const Kwg *kwg,
                         uint64_t seed, int games, double temperature, int top, bool shared);
/* Splits a TSV line in place into at most cap fields (the line end is cut
 * off the last one); returns the number of fields. */
int tu_split_tabs(char *line, char **fields, int cap);
/* Builds a GADDAG lexicon from uppercase words (failing the test fatally if
 * it cannot). */
void tu_build_lex(Kwg *k, const LetterDist *ld, const char *const *words, size_t n);
/* A tiny distribution for brute-force checks: ? A B C D E, 2 4 2 3 1 5
 * tiles, worth 0 1 3 3 2 1 (A and E vowels). */
void tu_tiny_ld(LetterDist *ld);
/* The tiny distribution, a lexicon of 38 words over A-E built from it, and
 * the standard board: small endgames and pre-endgames (test_endgame, test_peg). */
void tu_open_tiny(LetterDist *ld, Layout *lay, Kwg *k);
/* Every tile of the distribution is on the board, on a rack or in the bag,
 * exactly once; rack totals match their counts. */
void tu_expect_conserved(const Game *g);
/* SOWPODS positions for the search tests: English distribution, standard
 * board, the built lexicon, and a game. */
typedef struct TuEnv {
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Game *g;
} TuEnv;
/* false (SKIPPED printed) if SOWPODS.kwg was not built. */
bool tu_env_open(TuEnv *e);
void tu_env_close(TuEnv *e);
/* Game `index` of `seed` (generation 0) played by best static equity under
 * leave_value (NULL: best score) until the bag holds at most `bag` tiles (or
 * the game ends), into e->g. */
void tu_env_position(TuEnv *e, uint64_t seed, uint64_t index, int bag, int32_t (*leave_value)(const void *, const Rack *));

/* Registers one suite with the tests, runs it in verbose mode and returns the
 * process exit code (0 = all passed; 3 = no test ran). With ROOKERY_TEST_ONLY
 * set, only the tests whose names hold its text run (while working on them). */
int tu_run(const char *suite, CU_TestInfo *tests);

#endif
