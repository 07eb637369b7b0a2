/*
 * referee.h - game pairs between two SIU engines (engine_proc.h), refereed
 * by rookery: `rookery arena`.
 *
 * Pair i is worker/match.h's pair i: two games from game_new(g, ..., seed,
 * MATCH_STREAM, i); in the first, engine A is player 0 and moves first, in the
 * second B does. The referee keeps the true game; every move comes from the
 * engine on turn, which sees only its own rack:
 *
 *   siunewgame, isready           at the engine's first turn of each game
 *   position cgp <CGP> [moves <m>]
 *   isready                       (readyok: the position is taken, and any
 *                                  stale output of the engine is drained)
 *   go [movetime MS]              read until `bestmove <m>`
 *
 * The CGP is the position before the opponent's last move, with the racks
 * field "/<MYRACK>" (the opponent was on turn there; an empty field is an
 * unknown rack), followed by `moves <that move>` (an exchange as `ex.N`: its
 * tiles are the opponent's secret); at the first move of a game it is the
 * position itself with "<MYRACK>/". The move is parsed (siu_move_parse)
 * against the true board, checked against the true rack (siu_move_check) and
 * played (game_play).
 *
 * Forfeits: an engine that crashes (its output closes, or it cannot be
 * written to), does not answer before the deadline (movetime + grace with a
 * movetime, else the per-move timeout), answers a malformed move (no token,
 * or one siu_move_parse refuses) or an illegal one (siu_move_check refuses
 * it, or ex.N: an engine knows its own tiles) loses that game at once.
 * The referee prints one line on its log (the reason, the engine, pair and
 * game, the true position's CGP), restarts the engine and goes on with the
 * next game.
 *
 * Counting: a forfeited game is a loss for the offender (a win for the other
 * engine) in the wins, draws, losses and win %; its score at the forfeit is
 * kept in the per-game result but it is left out of the mean spread, which is
 * over the games that ended by the rules (the score when an engine fails says
 * nothing about the spread the game would have had).
 */
#ifndef ROOKERY_REFEREE_H
#define ROOKERY_REFEREE_H

#include <stdio.h>

#include "arena/engine_proc.h"
#include "core/game.h"
#include "worker/match.h"

typedef enum {
    ARENA_FORFEIT_NONE = 0,
    ARENA_FORFEIT_CRASH,     /* exited, closed its output, or could not be (re)started */
    ARENA_FORFEIT_TIMEOUT,   /* no bestmove (or readyok) before the deadline */
    ARENA_FORFEIT_MALFORMED, /* a bestmove the notation cannot read */
    ARENA_FORFEIT_ILLEGAL,   /* a well-formed move that is not legal here */
    ARENA_FORFEIT_REASONS
} ArenaForfeit;

/* "crash", "timeout", "malformed", "illegal" ("none" for NONE). */
const char *arena_forfeit_name(ArenaForfeit f);

/* Enough for every game: at most 100 placements, and at most 5 scoreless
 * turns between two scoring plays and after the last one. */
#define ARENA_MAX_MOVES 1024
#define ARENA_CGP_MAX 4096

typedef struct ArenaConfig {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    uint64_t seed;
    int movetime_ms; /* > 0: `go movetime MS` and a deadline of movetime + grace */
    int grace_ms;
    int timeout_ms;  /* the deadline of a move without movetime; also of the handshake and readyok */
    const char *lex; /* NULL, or a name added to every CGP as " lex NAME;" */
    const char *gcg_dir;  /* NULL: no GCG files; else DIR/pair-NNNNNN-game-G.gcg */
    const char *names[2]; /* the engines' names for the log and the GCG files (their commands) */
    FILE *log;            /* forfeit lines (stderr); NULL: none */
} ArenaConfig;

/* One game as the referee saw it. Engines are indexed 0 = A, 1 = B. */
typedef struct ArenaGame {
    uint64_t pair;
    int game;          /* 1: A moved first; 2: B did */
    int score[2];      /* final, or at the forfeit */
    int moves;         /* moves played */
    ArenaForfeit forfeit;
    int offender;      /* the engine that forfeited, or -1 */
    int a_result;      /* +1 A won, 0 draw, -1 A lost */
    int64_t time_us[2], max_us[2], timed[2]; /* per engine: time from go to bestmove, summed, max, count */
} ArenaGame;

/* Integer totals (exact sums over ranks). m holds the wins, draws, losses
 * and per-pair half points with forfeits counted as losses, and spread_sum
 * over the games without a forfeit only (spread_games of them). */
typedef struct ArenaTotals {
    MatchTotals m;
    int64_t spread_games;
    int64_t forfeits[2][ARENA_FORFEIT_REASONS];
    int64_t timed[2], time_us[2];
    int64_t max_us[2]; /* a maximum over ranks, not a sum */
} ArenaTotals;

/* The fields summed over ranks, and those maximised. */
#define ARENA_SUM_FIELDS (MATCH_TOTALS_FIELDS + 1 + 2 * ARENA_FORFEIT_REASONS + 4)
#define ARENA_MAX_FIELDS 2
void arena_totals_pack(const ArenaTotals *t, int64_t sum[ARENA_SUM_FIELDS], int64_t max[ARENA_MAX_FIELDS]);
void arena_totals_unpack(const int64_t sum[ARENA_SUM_FIELDS], const int64_t max[ARENA_MAX_FIELDS], ArenaTotals *t);
/* Adds a pair's two games. */
void arena_totals_add(ArenaTotals *t, const ArenaGame games[2]);
/* match_result's win % and interval over pairs; the mean spread over the
 * games without a forfeit. */
void arena_result(const ArenaTotals *t, MatchResult *r);

typedef struct Referee Referee;

/* A referee for engines a and b (started by the caller: engine_proc_start),
 * which it uses, restarts and never frees. NULL when out of memory. The
 * config's strings must outlive it. */
Referee *referee_new(const ArenaConfig *cfg, EngineProc *a, EngineProc *b);
void referee_free(Referee *r);
/* Plays pair `index` into games[0] (A first) and games[1] (B first). The
 * engines' failures are forfeits, not errors; -1 (err set) only when a GCG
 * file cannot be written (the games are still played and reported). */
int referee_play_pair(Referee *r, uint64_t index, ArenaGame games[2], RkError *err);

#endif
