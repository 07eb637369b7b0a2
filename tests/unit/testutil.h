/* testutil.h - what every CUnit test executable shares: paths to the
 * reference data and the built lexicon, and a runner. */
#ifndef ROOKERY_TESTUTIL_H
#define ROOKERY_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stdbool.h>

/* ../shared, or NULL (with a SKIPPED line printed) if it is missing. */
const char *tu_shared_path(const char *rel, char *buf, size_t cap);
/* The SOWPODS.kwg built by the build, or NULL (SKIPPED printed) if absent. */
const char *tu_sowpods_kwg(void);
/* Prints "SKIPPED: <test>: <why>" so a skip is never silent. */
void tu_skip(const char *test, const char *why);
/* A fresh temporary directory (mkdtemp); the path is written to buf. */
const char *tu_tmpdir(char *buf, size_t cap);
/* Writes text to path; returns 0 on success. */
int tu_write_file(const char *path, const char *text);
/* Registers one suite with the tests, runs it in verbose mode and returns the
 * process exit code (0 = all passed). */
int tu_run(const char *suite, CU_TestInfo *tests);

#endif
