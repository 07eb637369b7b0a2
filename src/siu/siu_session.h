/*
 * siu_session.h - the state of one SIU session, shared by its parts (not a
 * public header):
 *   siu_engine.c   the input loop, the commands, the search thread's life
 *   siu_options.c  the options (handshake lines, setoption) and the tables
 *                  they name (lexicon, leaves, player), loaded lazily
 *   siu_go.c       a `go`: its parameters and the modes gen, sim, endgame, auto
 */
#ifndef ROOKERY_SIU_SESSION_H
#define ROOKERY_SIU_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/engine.h"
#include "eval/klv.h"
#include "eval/winprob.h"
#include "search/rack_inference.h"
#include "search/player.h"
#include "siu_position.h"

#define SIU_NAME "rookery"
#define SIU_AUTHOR "the rookery authors"

/* The options' values (siu_options.c has the table). */
typedef struct SiuOptions {
    char data_path[4096];
    char lexicon[64];
    char leaves[4096];
    char win_table[256];
    char player[512];
    char model[4096];
    int threads;
    int endgame_hash_mb;
    bool auto_endgame;
    int auto_peg;        /* go auto: peg with 1..auto_peg tiles in the bag */
    int gen_count;
    int sim_plies, sim_candidates;
    int infer_tau;
    long long seed;
} SiuOptions;

/* What the options name, loaded: valid while `loaded` and the key matches. */
typedef struct SiuTables {
    bool loaded;
    char key[16384];          /* the options they were loaded for */
    Engine *engine;           /* heap: an open Engine must not move */
    char lexicon_code[64];    /* the lexicon really used, e.g. SOWPODS */
    Klv *leaves;              /* NULL: zero leaves */
    char leaves_id[256];
    WinValue win;
    char win_id[128];
    Player player;            /* the Player option, for go auto */
    bool player_open;
} SiuTables;

typedef struct SiuSession {
    int out_fd;
    pthread_mutex_t out_lock;
    SiuOptions opt;
    SiuTables tables;
    bool have_position;
    SiuPosition *pos;         /* heap; built under the tables loaded now (a reload rebuilds it) */
    char *pos_text;           /* the position command's arguments, to rebuild it */
    char pos_lexicon[64];     /* the position's lex opcode, "" if none */
    /* commands that need the engine idle (setoption, position, siunewgame,
     * go), arrived during a search: run in order once it ends */
    char **queue;
    int qhead, qcount, qcap;
    /* the search */
    pthread_t thread;
    bool thread_live;         /* started and not joined */
    atomic_bool stop;         /* ends the search: stop, quit, or the movetime deadline */
    atomic_bool halt;         /* the front end's stop (or quit): a go infinite may answer */
    atomic_bool done;         /* the thread has written its bestmove */
    double deadline;          /* rk_seconds() at which to stop; 0 = none */
    bool infinite;
    /* the last go infer's result, for go ... useinference on the same position */
    InferResult inference;
    char *inference_pos;      /* the position's text it was made for (NULL: none) */
} SiuSession;

/* Writes one line (formatted, '\n' added) and flushes it, under the lock. */
void siu_say(SiuSession *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Options: the handshake's option lines; setoption's arguments (the text
 * after "setoption"): 0, or -1 after an `info string` saying what was wrong;
 * the defaults. */
void siu_options_defaults(SiuOptions *o);
void siu_options_announce(SiuSession *s);
int siu_options_set(SiuSession *s, const char *args);
/* A preset "Name=Value" (rookery siu --option): 0, or -1 with why. */
int siu_options_preset(SiuOptions *o, const char *name_value, char *why, size_t cap);
/* Loads what the options name for lexicon `lex` ("" = the Lexicon option)
 * unless it is loaded already (*reloaded says whether it loaded anew: what
 * pointed into the old tables, such as the position, must be rebuilt): 0,
 * or -1 after an `info string` line (the tables are then closed). */
int siu_tables_load(SiuSession *s, const char *lex, bool *reloaded);
void siu_tables_free(SiuTables *t);

/* A go: parses its arguments and starts the search thread (the session's
 * thread fields), or answers with an error and starts nothing. The tables
 * must be loaded for the position (if there is one). */
void siu_go_start(SiuSession *s, const char *args);

#endif
