/* referee.c - game pairs between two SIU engines (see referee.h). */
#include "referee.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena/gcg.h"
#include "core/cgp.h"
#include "siu/siu_move.h"

struct Referee {
    ArenaConfig cfg;
    EngineProc *eng[2];
    Game *g, *start, *tmp;
    Move *moves;
    int nmoves;
    bool have_prev;    /* a move was played in this game */
    bool greeted[2];   /* the engine had its siunewgame for this game */
    char prev_cgp[ARENA_CGP_MAX];   /* the position before the last move, its mover's rack unknown */
    char last_move[SIU_MOVE_MAX];   /* that move, as its opponent may see it */
    char cmd[ARENA_CGP_MAX + SIU_MOVE_MAX + 64];
    char line[ENGINE_LINE_MAX + 1];
    char why[1024];    /* the reason of a forfeit */
};

static const char *const ENGINE_LABEL[2] = {"A", "B"};

const char *arena_forfeit_name(ArenaForfeit f) {
    static const char *const names[ARENA_FORFEIT_REASONS] = {"none", "crash", "timeout", "malformed", "illegal"};
    return f >= 0 && f < ARENA_FORFEIT_REASONS ? names[f] : "?";
}

Referee *referee_new(const ArenaConfig *cfg, EngineProc *a, EngineProc *b) {
    Referee *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->cfg = *cfg;
    r->eng[0] = a;
    r->eng[1] = b;
    r->g = malloc(sizeof *r->g);
    r->start = malloc(sizeof *r->start);
    r->tmp = malloc(sizeof *r->tmp);
    r->moves = malloc(ARENA_MAX_MOVES * sizeof *r->moves);
    if (r->g == NULL || r->start == NULL || r->tmp == NULL || r->moves == NULL) {
        referee_free(r);
        return NULL;
    }
    return r;
}

void referee_free(Referee *r) {
    if (r == NULL) return;
    free(r->g);
    free(r->start);
    free(r->tmp);
    free(r->moves);
    free(r);
}

static ArenaForfeit forfeit(Referee *r, ArenaForfeit f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ArenaForfeit forfeit(Referee *r, ArenaForfeit f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return f;
}

/* The CGP of g with the rack of player `hide` cleared (unknown). */
static void cgp_hiding(Referee *r, int hide, char *buf, size_t cap) {
    *r->tmp = *r->g;
    rack_clear(&r->tmp->racks[hide]);
    cgp_write(r->tmp, r->cfg.lex, buf, cap);
}

/* The `position` command for the player on turn (see referee.h). */
static void position_command(Referee *r) {
    if (r->have_prev) {
        snprintf(r->cmd, sizeof r->cmd, "position cgp %s moves %s", r->prev_cgp, r->last_move);
    } else {
        char cgp[ARENA_CGP_MAX];
        cgp_hiding(r, 1 - r->g->on_turn, cgp, sizeof cgp);
        snprintf(r->cmd, sizeof r->cmd, "position cgp %s", cgp);
    }
}

/* The failure of a readyok wait or a write: a crash, or a hang. */
static ArenaForfeit lost_contact(Referee *r, bool timed_out, const char *what, const RkError *err) {
    return forfeit(r, timed_out ? ARENA_FORFEIT_TIMEOUT : ARENA_FORFEIT_CRASH, "%s: %s", what, err->msg);
}

/* Brings engine e to the position, with `isready` after it so that its
 * stale output is drained. */
static ArenaForfeit prepare(Referee *r, int e) {
    EngineProc *ep = r->eng[e];
    RkError err;
    bool timed_out = false;
    if (!engine_proc_running(ep) && engine_proc_start(ep, r->cfg.timeout_ms, &err) != 0)
        return forfeit(r, ARENA_FORFEIT_CRASH, "does not start: %s", err.msg);
    double deadline = rk_seconds() + r->cfg.timeout_ms / 1000.0;
    if (!r->greeted[e]) {
        if (engine_proc_send(ep, "siunewgame", deadline, &err) != 0 || engine_proc_send(ep, "isready", deadline, &err) != 0 ||
            engine_proc_expect(ep, "readyok", deadline, &timed_out, &err) != 0)
            return lost_contact(r, timed_out, "at siunewgame", &err);
        r->greeted[e] = true;
    }
    position_command(r);
    deadline = rk_seconds() + r->cfg.timeout_ms / 1000.0;
    if (engine_proc_send(ep, r->cmd, deadline, &err) != 0 || engine_proc_send(ep, "isready", deadline, &err) != 0 ||
        engine_proc_expect(ep, "readyok", deadline, &timed_out, &err) != 0)
        return lost_contact(r, timed_out, "after position", &err);
    return ARENA_FORFEIT_NONE;
}

/* Sends go and reads up to `bestmove`; the move's token into r->line. */
static ArenaForfeit search(Referee *r, int e, ArenaGame *out, const char **token) {
    EngineProc *ep = r->eng[e];
    RkError err;
    char go[64] = "go";
    int limit = r->cfg.timeout_ms;
    if (r->cfg.movetime_ms > 0) {
        snprintf(go, sizeof go, "go movetime %d", r->cfg.movetime_ms);
        limit = r->cfg.movetime_ms + r->cfg.grace_ms;
    }
    double t0 = rk_seconds(), deadline = t0 + limit / 1000.0;
    if (engine_proc_send(ep, go, deadline, &err) != 0) return forfeit(r, ARENA_FORFEIT_CRASH, "at go: %s", err.msg);
    for (;;) {
        EngineRead rd = engine_proc_read_line(ep, r->line, sizeof r->line, deadline);
        if (rd == ENGINE_READ_EOF) return forfeit(r, ARENA_FORFEIT_CRASH, "exited during its move");
        if (rd == ENGINE_READ_TIMEOUT) return forfeit(r, ARENA_FORFEIT_TIMEOUT, "no bestmove within %d ms", limit);
        const char *rest;
        size_t n;
        const char *w = engine_token(r->line, &n, &rest);
        if (n == 8 && memcmp(w, "bestmove", 8) == 0) {
            *token = rest;
            break;
        }
    }
    int64_t us = (int64_t)((rk_seconds() - t0) * 1e6);
    out->time_us[e] += us;
    if (us > out->max_us[e]) out->max_us[e] = us;
    out->timed[e]++;
    return ARENA_FORFEIT_NONE;
}

/* Parses and checks the engine's move against the true game. */
static ArenaForfeit judge(Referee *r, const char *rest, Move *m) {
    size_t n;
    const char *tok = engine_token(rest, &n, NULL);
    char token[SIU_MOVE_MAX + 1], quoted[96];
    rk_quote_text(quoted, sizeof quoted, tok, n);
    if (n == 0) return forfeit(r, ARENA_FORFEIT_MALFORMED, "bestmove without a move");
    if (n > SIU_MOVE_MAX) return forfeit(r, ARENA_FORFEIT_MALFORMED, "move '%s' is too long", quoted);
    memcpy(token, tok, n);
    token[n] = '\0';
    bool unknown;
    RkError err;
    if (siu_move_parse(m, &unknown, token, &r->g->board, r->g->ld, &err) != 0)
        return forfeit(r, ARENA_FORFEIT_MALFORMED, "%s", err.msg);
    if (unknown) return forfeit(r, ARENA_FORFEIT_ILLEGAL, "move '%s': an exchange must name its tiles", quoted);
    if (siu_move_check(r->g, true, m, false, &err) != 0)
        return forfeit(r, ARENA_FORFEIT_ILLEGAL, "move '%s': %s", quoted, err.msg);
    return ARENA_FORFEIT_NONE;
}

/* Plays a move of the engine on turn (engine e), or says why it forfeits. */
static ArenaForfeit engine_turn(Referee *r, int e, ArenaGame *out) {
    ArenaForfeit f = prepare(r, e);
    const char *rest = NULL;
    if (f == ARENA_FORFEIT_NONE) f = search(r, e, out, &rest);
    Move m;
    if (f == ARENA_FORFEIT_NONE) f = judge(r, rest, &m);
    if (f != ARENA_FORFEIT_NONE) return f;
    if (r->nmoves >= ARENA_MAX_MOVES) return forfeit(r, ARENA_FORFEIT_ILLEGAL, "more than %d moves", ARENA_MAX_MOVES);
    /* what the opponent will be told: the position before this move, this
     * player's rack unknown, and the move (an exchange by its count only) */
    cgp_hiding(r, r->g->on_turn, r->prev_cgp, sizeof r->prev_cgp);
    if (m.kind == MOVE_EXCHANGE) snprintf(r->last_move, sizeof r->last_move, "ex.%d", m.ntiles);
    else siu_move_write(&m, &r->g->board, r->g->ld, r->last_move, sizeof r->last_move);
    game_play(r->g, &m);
    r->moves[r->nmoves++] = m;
    r->have_prev = true;
    return ARENA_FORFEIT_NONE;
}

/* One line on the log, then the offender restarted. */
static void report_forfeit(Referee *r, const ArenaGame *out, int e, ArenaForfeit f) {
    if (r->cfg.log != NULL) {
        char cgp[ARENA_CGP_MAX];
        cgp_write(r->g, r->cfg.lex, cgp, sizeof cgp);
        fprintf(r->cfg.log, "arena: %s forfeits pair %" PRIu64 " game %d at move %d (%s): %s; engine '%s'; position %s\n",
                ENGINE_LABEL[e], out->pair, out->game, r->nmoves + 1, arena_forfeit_name(f), r->why,
                r->cfg.names[e] != NULL ? r->cfg.names[e] : "", cgp);
    }
    RkError err;
    if (engine_proc_restart(r->eng[e], r->cfg.timeout_ms, &err) != 0 && r->cfg.log != NULL)
        fprintf(r->cfg.log, "arena: %s does not restart (%s); it will be tried again at its next move\n",
                ENGINE_LABEL[e], err.msg);
}

static int write_gcg(Referee *r, const ArenaGame *out, int first, RkError *err) {
    char path[4096], desc[1536];
    snprintf(path, sizeof path, "%s/pair-%06" PRIu64 "-game-%d.gcg", r->cfg.gcg_dir, out->pair, out->game);
    int n = snprintf(desc, sizeof desc, "rookery arena, seed %" PRIu64 ", pair %" PRIu64 ", game %d", r->cfg.seed,
                     out->pair, out->game);
    if (out->forfeit != ARENA_FORFEIT_NONE && n > 0 && (size_t)n < sizeof desc)
        snprintf(desc + n, sizeof desc - (size_t)n, "; %s forfeited at move %d (%s: %s)", ENGINE_LABEL[out->offender],
                 out->moves + 1, arena_forfeit_name(out->forfeit), r->why);
    GcgRecord rec = {r->start, r->moves, r->nmoves, {ENGINE_LABEL[first], ENGINE_LABEL[1 - first]},
                     {r->cfg.names[first], r->cfg.names[1 - first]}, desc, r->cfg.lex};
    return gcg_write(path, &rec, err);
}

/* Plays one game; `first` is the engine that is player 0. */
static int play_game(Referee *r, uint64_t index, int first, ArenaGame *out, RkError *err) {
    memset(out, 0, sizeof *out);
    out->pair = index;
    out->game = first + 1;
    out->offender = -1;
    game_new(r->g, r->cfg.ld, r->cfg.layout, r->cfg.kwg, r->cfg.seed, MATCH_STREAM, index);
    *r->start = *r->g;
    r->nmoves = 0;
    r->have_prev = false;
    r->greeted[0] = r->greeted[1] = false;
    while (!game_over(r->g)) {
        int e = r->g->on_turn == 0 ? first : 1 - first;
        ArenaForfeit f = engine_turn(r, e, out);
        if (f != ARENA_FORFEIT_NONE) {
            out->forfeit = f;
            out->offender = e;
            report_forfeit(r, out, e, f);
            break;
        }
    }
    out->moves = r->nmoves;
    for (int p = 0; p < 2; p++) out->score[p == 0 ? first : 1 - first] = r->g->scores[p];
    if (out->forfeit != ARENA_FORFEIT_NONE) out->a_result = out->offender == 0 ? -1 : 1;
    else out->a_result = out->score[0] > out->score[1] ? 1 : out->score[0] < out->score[1] ? -1 : 0;
    return r->cfg.gcg_dir != NULL ? write_gcg(r, out, first, err) : 0;
}

int referee_play_pair(Referee *r, uint64_t index, ArenaGame games[2], RkError *err) {
    int rc = 0;
    RkError second;
    if (play_game(r, index, 0, &games[0], err) != 0) rc = -1;
    if (play_game(r, index, 1, &games[1], rc != 0 ? &second : err) != 0) rc = -1;
    return rc;
}

/* ---------------------------------------------------------------- totals */

void arena_totals_add(ArenaTotals *t, const ArenaGame games[2]) {
    int64_t half = 0;
    for (int i = 0; i < 2; i++) {
        const ArenaGame *g = &games[i];
        if (g->a_result > 0) {
            t->m.a_wins++;
            half += 2;
        } else if (g->a_result == 0) {
            t->m.draws++;
            half += 1;
        } else {
            t->m.a_losses++;
        }
        if (g->forfeit != ARENA_FORFEIT_NONE) {
            t->forfeits[g->offender][g->forfeit]++;
        } else {
            t->m.spread_sum += g->score[0] - g->score[1];
            t->spread_games++;
        }
        t->m.turns += g->moves;
        for (int e = 0; e < 2; e++) {
            t->timed[e] += g->timed[e];
            t->time_us[e] += g->time_us[e];
            if (g->max_us[e] > t->max_us[e]) t->max_us[e] = g->max_us[e];
        }
    }
    t->m.pairs++;
    t->m.games += 2;
    t->m.half_points += half;
    t->m.half_points_sq += half * half;
}

void arena_result(const ArenaTotals *t, MatchResult *r) {
    match_result(&t->m, r);
    r->mean_spread = t->spread_games > 0 ? (double)t->m.spread_sum / (double)t->spread_games : 0.0;
}

void arena_totals_pack(const ArenaTotals *t, int64_t sum[ARENA_SUM_FIELDS], int64_t max[ARENA_MAX_FIELDS]) {
    int k = MATCH_TOTALS_FIELDS;
    match_totals_pack(&t->m, sum);
    sum[k++] = t->spread_games;
    for (int e = 0; e < 2; e++)
        for (int f = 0; f < ARENA_FORFEIT_REASONS; f++) sum[k++] = t->forfeits[e][f];
    for (int e = 0; e < 2; e++) {
        sum[k++] = t->timed[e];
        sum[k++] = t->time_us[e];
        max[e] = t->max_us[e];
    }
}

void arena_totals_unpack(const int64_t sum[ARENA_SUM_FIELDS], const int64_t max[ARENA_MAX_FIELDS], ArenaTotals *t) {
    int k = MATCH_TOTALS_FIELDS;
    match_totals_unpack(sum, &t->m);
    t->spread_games = sum[k++];
    for (int e = 0; e < 2; e++)
        for (int f = 0; f < ARENA_FORFEIT_REASONS; f++) t->forfeits[e][f] = sum[k++];
    for (int e = 0; e < 2; e++) {
        t->timed[e] = sum[k++];
        t->time_us[e] = sum[k++];
        t->max_us[e] = max[e];
    }
}
