/*
 * fake_siu_engine.c - a small SIU engine of the arena tests' own (not a
 * test: tests/CMakeLists.txt builds it as its own executable, and
 * test_arena.c starts it through the referee). It speaks just enough SIU for
 * a referee, and misbehaves on purpose:
 *
 *   fake_siu_engine MODE [LEXICON.kwg]
 *     good     plays the best-scoring move (zero leaves) of the position it
 *              was given; its output ends lines with \r\n and carries blank
 *              lines and info lines the referee must skip
 *     pass     always passes
 *     crash    exits at the first go
 *     hang     never answers a go (still reads its input)
 *     illegal  answers a well-formed move that is not legal: two tiles "QZ"
 *              on the first two empty squares of a row
 *     garbage  answers `bestmove` followed by junk, after an over-long line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/movegen.h"
#include "siu/siu_move.h"
#include "siu/siu_position.h"

#ifndef ROOKERY_SOWPODS_KWG
#define ROOKERY_SOWPODS_KWG ""
#endif

typedef struct Fake {
    const char *mode;
    Engine *e;          /* loaded at the first position (boot fast) */
    const char *kwg;
    SiuPosition *pos;
    bool have_pos;
    char line[65536];
} Fake;

static void say(const Fake *f, const char *s) {
    bool crlf = strcmp(f->mode, "good") == 0;
    fputs(s, stdout);
    fputs(crlf ? "\r\n" : "\n", stdout);
    fflush(stdout);
}

static int load(Fake *f) {
    if (f->e != NULL) return 0;
    f->e = malloc(sizeof *f->e);
    f->pos = malloc(sizeof *f->pos);
    RkError err = {.msg = "out of memory"};
    if (f->e == NULL || f->pos == NULL || engine_open(f->e, NULL, NULL, f->kwg[0] ? f->kwg : NULL, NULL, &err) != 0) {
        fprintf(stderr, "fake: cannot load the lexicon: %s\n", err.msg);
        exit(4);
    }
    return 0;
}

static void position(Fake *f, const char *args) {
    static const int MAXM = 64;
    char cgp[8192], buf[16384];
    char *moves[64];
    RkError err;
    load(f);
    f->have_pos = false;
    int n = siu_position_split(args, cgp, sizeof cgp, buf, sizeof buf, moves, MAXM, &err);
    if (n < 0 || siu_position_build(f->pos, cgp, moves, n, &f->e->ld, &f->e->layout, &f->e->kwg, 7, &err) != SIU_POS_OK) {
        fprintf(stdout, "info string error bad-position %s\n", err.msg);
        fflush(stdout);
        return;
    }
    f->have_pos = true;
}

/* Two fresh tiles QZ across on the first row with two empty squares side by side. */
static void illegal_move(const Fake *f, char *out, size_t cap) {
    const Board *b = &f->pos->game.board;
    for (int r = 0; r < b->dim; r++)
        for (int c = 0; c + 1 < b->dim; c++)
            if (board_at(b, r, c) == 0 && board_at(b, r, c + 1) == 0) {
                snprintf(out, cap, "%d%c.QZ", r + 1, 'A' + c);
                return;
            }
    snprintf(out, cap, "ex.ZZZZZZZ");
}

static void go(Fake *f) {
    char mv[SIU_MOVE_MAX];
    if (strcmp(f->mode, "crash") == 0) exit(3);
    if (strcmp(f->mode, "hang") == 0) return;
    if (strcmp(f->mode, "garbage") == 0) {
        char longline[20000];
        memset(longline, 'x', sizeof longline - 1);
        longline[sizeof longline - 1] = '\0';
        say(f, longline);
        say(f, "bestmove %%!!junk\x01");
        return;
    }
    if (!f->have_pos) {
        say(f, "info string error no-position");
        say(f, "bestmove pass");
        return;
    }
    if (strcmp(f->mode, "illegal") == 0) {
        illegal_move(f, mv, sizeof mv);
    } else if (strcmp(f->mode, "pass") == 0) {
        snprintf(mv, sizeof mv, "pass");
    } else {
        MoveGenRequest req;
        Move m;
        movegen_request_for_game(&req, &f->pos->game);
        movegen_best(&req, &m, NULL);
        siu_move_write(&m, &f->pos->game.board, &f->e->ld, mv, sizeof mv);
        say(f, "");
        say(f, "info string provenance engine=fake/1 leaves=zero winpct=none lexicon=SOWPODS");
        say(f, "info depth 1 nodes 1 something unknown");
    }
    char line[SIU_MOVE_MAX + 16];
    snprintf(line, sizeof line, "bestmove %s", mv);
    say(f, line);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: fake_siu_engine good|pass|crash|hang|illegal|garbage [LEXICON.kwg]\n");
        return 2;
    }
    Fake f = {argv[1], NULL, argc > 2 ? argv[2] : ROOKERY_SOWPODS_KWG, NULL, false, {0}};
    while (fgets(f.line, sizeof f.line, stdin) != NULL) {
        f.line[strcspn(f.line, "\r\n")] = '\0';
        char *cmd = f.line + strspn(f.line, " \t");
        if (strcmp(cmd, "siu") == 0) {
            say(&f, "id name fake 1");
            say(&f, "id author the arena tests");
            say(&f, "capability gen auto");
            say(&f, "option name Threads type spin default 1 min 1 max 1");
            say(&f, "siuok");
        } else if (strcmp(cmd, "isready") == 0) {
            say(&f, "readyok");
        } else if (strncmp(cmd, "position ", 9) == 0) {
            position(&f, cmd + 9);
        } else if (strncmp(cmd, "go", 2) == 0 && (cmd[2] == '\0' || cmd[2] == ' ')) {
            go(&f);
        } else if (strcmp(cmd, "quit") == 0) {
            break;
        }
    }
    if (f.e != NULL) engine_close(f.e);
    free(f.e);
    free(f.pos);
    return 0;
}
