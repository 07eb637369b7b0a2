/*
 * siu_engine.h - rookery as an SIU engine (../shared/siu.md; docs/siu.md):
 * a session that reads commands on one file descriptor and writes replies
 * on another until `quit` or the end of its input.
 *
 * The session reads input at all times: the searches of `go` run in a
 * thread of their own, so `isready` is answered at once and `stop` ends a
 * search within milliseconds (a simulation between iterations, the endgame
 * solver every 64 positions). Files load lazily, at the first `isready`,
 * `position` or `go`, never before `siuok`. Replies are whole lines, written
 * under a lock (the reader and the search both write) and flushed at once.
 *
 * The capabilities: gen, sim, endgame, auto, stream, stop. Every go that
 * searches ends with exactly one `bestmove`, preceded by a provenance line;
 * a go that cannot search (no position, the rack on turn unknown, the game
 * over, a mode not declared) gets `info string error <code> ...` and no
 * bestmove.
 */
#ifndef ROOKERY_SIU_ENGINE_H
#define ROOKERY_SIU_ENGINE_H

/* Runs a session on in_fd/out_fd. presets are "Name=Value" strings applied
 * as `setoption`s before the handshake (rookery siu --option). Returns 0
 * after quit or the end of input, 2 if a preset is not an option or its
 * value is bad (a one-line message on stderr first). */
int siu_engine_run(int in_fd, int out_fd, const char *const *presets, int npresets);

/* The option names and their defaults, one "Name (type, default D): what"
 * line each, for --help. */
void siu_engine_print_options(void *file);

#endif
