/*
 * engine_proc.h - an SIU engine (../shared/siu.md) run as a child process:
 * the referee's end of the pipes.
 *
 * The engine is started from a command string through `/bin/sh -c`, in a
 * process group of its own (so that killing it also kills whatever the shell
 * started), with its stdin and stdout on pipes and its stderr appended to a
 * log file or sent to /dev/null. Nothing here blocks without a deadline: lines
 * are read with poll() against an absolute deadline and buffered across calls
 * (a line may arrive in pieces, several may arrive at once), and writes go
 * through a non-blocking pipe polled against a deadline too, so an engine
 * that stops reading its stdin cannot stall the referee.
 *
 * The other end is not trusted. Lines may end in \r\n; blank lines are
 * skipped; a line longer than ENGINE_LINE_MAX is returned cut at that length
 * and the rest of it is dropped; a write to an engine that died fails with
 * EPIPE instead of killing the referee: the first engine_proc_start ignores
 * SIGPIPE in the calling process (the engine gets it back at its default).
 */
#ifndef ROOKERY_ENGINE_PROC_H
#define ROOKERY_ENGINE_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/common.h"

#define ENGINE_LINE_MAX 8192
#define ENGINE_NAME_MAX 128

typedef struct EngineProc {
    char *command;      /* as given to /bin/sh -c (owned) */
    char *stderr_path;  /* NULL: /dev/null (owned) */
    pid_t pid;          /* -1 when not running */
    int to_fd, from_fd; /* the engine's stdin and stdout; -1 when closed */
    char buf[ENGINE_LINE_MAX + 1];
    size_t len;      /* bytes buffered in buf */
    bool discarding; /* the rest of an over-long line is being dropped */
    bool eof;        /* the engine closed its stdout */
    char name[ENGINE_NAME_MAX]; /* from `id name`, or "" */
    int starts;      /* successful starts, the first included (tests count restarts) */
} EngineProc;

typedef enum {
    ENGINE_READ_EOF = -1,    /* the engine closed its stdout (exited or crashed) */
    ENGINE_READ_TIMEOUT = 0, /* the deadline passed before a whole line came */
    ENGINE_READ_LINE = 1,
} EngineRead;

/* Copies the command and the stderr log path (NULL: /dev/null); the engine is
 * not started. Returns -1 (err set) when out of memory. */
int engine_proc_init(EngineProc *e, const char *command, const char *stderr_path, RkError *err);
/* Releases everything, killing the engine first if it runs. */
void engine_proc_free(EngineProc *e);

/* Starts the engine and does the handshake: `siu` answered by `siuok`
 * (taking the name from `id name` on the way), then `isready` answered by
 * `readyok`, each within timeout_ms. On failure the engine is killed and
 * err says what went wrong (one line). */
int engine_proc_start(EngineProc *e, int timeout_ms, RkError *err);
/* engine_proc_kill, then engine_proc_start. */
int engine_proc_restart(EngineProc *e, int timeout_ms, RkError *err);
/* SIGKILL to the engine's process group, then waitpid (no zombie is left);
 * closes the pipes and empties the buffer. Harmless when not running. */
void engine_proc_kill(EngineProc *e);
/* Sends `quit`, gives the engine up to grace_ms to exit, then kills it. */
void engine_proc_quit(EngineProc *e, int grace_ms);
static inline bool engine_proc_running(const EngineProc *e) { return e->pid > 0; }

/* Writes line plus '\n' before the deadline (rk_seconds() clock). -1 (err
 * set) if the engine is not running, its stdin is closed (it died), or the
 * deadline passes with the pipe full. */
int engine_proc_send(EngineProc *e, const char *line, double deadline, RkError *err);
/* The next non-blank line (without its line end) into line (cap bytes),
 * waiting until the deadline at most. */
EngineRead engine_proc_read_line(EngineProc *e, char *line, size_t cap, double deadline);
/* Reads lines until one whose first token is `word`, before the deadline;
 * the others are dropped (info lines, stale output). 0, or -1 with err
 * saying whether the engine closed its output or the time ran out
 * (*timed_out tells which when not NULL). */
int engine_proc_expect(EngineProc *e, const char *word, double deadline, bool *timed_out, RkError *err);

/* The first whitespace-separated token of s: its start, its length in *n,
 * and where the rest begins in *rest (NULL pointers are allowed). */
const char *engine_token(const char *s, size_t *n, const char **rest);

#endif
