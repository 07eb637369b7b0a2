/* siu_engine.c - the SIU session: the input loop, the commands and the
 * search thread's life (see siu_engine.h, siu_session.h). */
#include "siu_engine.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/cgp.h"
#include "siu_session.h"

#ifndef ROOKERY_VERSION
#define ROOKERY_VERSION "dev"
#endif

/* A line longer than this is answered with an error and dropped. */
#define MAX_LINE (1 << 20)
#define MAX_MOVES 1024

void siu_say(SiuSession *s, const char *fmt, ...) {
    char line[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    pthread_mutex_lock(&s->out_lock);
    for (int off = 0; off < n;) { /* a front end that went away is not our error */
        ssize_t w = write(s->out_fd, line + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (int)w;
    }
    pthread_mutex_unlock(&s->out_lock);
}

static bool searching(const SiuSession *s) { return s->thread_live && !atomic_load(&s->done); }

/* Joins a search thread that has finished (or waits for it to). */
static void reap(SiuSession *s, bool wait) {
    if (!s->thread_live || (!wait && !atomic_load(&s->done))) return;
    pthread_join(s->thread, NULL);
    s->thread_live = false;
    s->deadline = 0;
}

static void handshake(SiuSession *s) {
    siu_say(s, "id name %s %s", SIU_NAME, ROOKERY_VERSION);
    siu_say(s, "id author %s", SIU_AUTHOR);
    siu_say(s, "capability gen sim infer endgame peg auto stream stop");
    siu_options_announce(s);
    siu_say(s, "siuok");
}

/* A 64-bit FNV-1a hash: the seed of a position's dealing of unknown racks,
 * so the same command gives the same position. */
static uint64_t text_hash(const char *t, uint64_t h) {
    for (; *t; t++) h = (h ^ (unsigned char)*t) * UINT64_C(1099511628211);
    return h;
}

/* Milliseconds until the search's deadline (-1: none), setting the stop
 * flag once it has passed. */
static int deadline_wait(SiuSession *s) {
    if (!searching(s) || s->deadline <= 0) return -1;
    double left = s->deadline - rk_seconds();
    if (left <= 0) {
        atomic_store(&s->stop, true);
        s->deadline = 0;
        return -1;
    }
    return (int)(left * 1000.0) + 1;
}

/* Builds the position of a `position` command's arguments under the tables
 * loaded now into out, its lex opcode into lex: SIU_POS_OK, or the error
 * (err says why). */
static SiuPosError build_position(SiuSession *s, const char *args, SiuPosition *out, char *lex, size_t lex_cap,
                                  bool load, RkError *err) {
    char *cgp = malloc(MAX_LINE), *buf = malloc(MAX_LINE), **moves = malloc(MAX_MOVES * sizeof *moves);
    SiuPosError rc = SIU_POS_BAD_POSITION;
    if (cgp == NULL || buf == NULL || moves == NULL) {
        rk_error(err, "out of memory");
        goto done;
    }
    int n = siu_position_split(args, cgp, MAX_LINE, buf, MAX_LINE, moves, MAX_MOVES, err);
    if (n < 0) goto done;
    CgpOps ops;
    if (cgp_read_ops(cgp, &ops, err) != 0) goto done;
    snprintf(lex, lex_cap, "%s", ops.lex);
    bool reloaded;
    if (load && siu_tables_load(s, ops.lex, &reloaded) != 0) {
        rk_error(err, "the tables for this position did not load (see above)");
        goto done;
    }
    if (!s->tables.loaded) {
        rk_error(err, "no tables loaded");
        goto done;
    }
    const Engine *e = s->tables.engine;
    uint64_t seed = text_hash(args, UINT64_C(1469598103934665603) ^ (uint64_t)s->opt.seed);
    rc = siu_position_build(out, cgp, moves, n, &e->ld, &e->layout, &e->kwg, seed, err);
done:
    free(moves);
    free(buf);
    free(cgp);
    return rc;
}

static void drop_position(SiuSession *s) {
    s->have_position = false;
    free(s->pos_text);
    s->pos_text = NULL;
}

/* The tables for lexicon lex, loaded. A position built under tables that a
 * reload closed points into freed memory: it is built again from its text
 * under the new ones (dropped, with an info line, if it no longer builds). */
static int session_tables(SiuSession *s, const char *lex) {
    bool reloaded;
    if (siu_tables_load(s, lex, &reloaded) != 0) {
        if (s->have_position) siu_say(s, "info string the position was dropped: the tables did not load");
        drop_position(s);
        return -1;
    }
    if (reloaded && s->have_position) {
        RkError err;
        char lex2[64];
        if (build_position(s, s->pos_text, s->pos, lex2, sizeof lex2, false, &err) != SIU_POS_OK) {
            siu_say(s, "info string the position was dropped: it does not build with the new options (%s)", err.msg);
            drop_position(s);
        }
    }
    return 0;
}

static void position(SiuSession *s, const char *args) {
    SiuPosition *next = malloc(sizeof *next);
    char *text = strdup(args), lex[64];
    RkError err;
    if (next == NULL || text == NULL) {
        siu_say(s, "info string out of memory");
        free(next);
        free(text);
        return;
    }
    SiuPosError rc = build_position(s, args, next, lex, sizeof lex, true, &err);
    if (rc != SIU_POS_OK) {
        siu_say(s, "info string error %s %s%s", rc == SIU_POS_BAD_MOVE ? "bad-move" : "bad-position", err.msg,
                s->have_position ? " (the previous position stays)" : "");
        free(next);
        free(text);
        /* the previous position, under its own tables again (the attempt may have loaded others) */
        if (s->have_position) session_tables(s, s->pos_lexicon);
        return;
    }
    free(s->pos);
    free(s->pos_text);
    s->pos = next;
    s->pos_text = text;
    s->have_position = true;
    snprintf(s->pos_lexicon, sizeof s->pos_lexicon, "%s", lex);
}

/* The first word of `line` that is a command, and its arguments; unknown
 * words before it are skipped (the protocol's rule). */
typedef enum { C_NONE, C_SIU, C_ISREADY, C_SETOPTION, C_POSITION, C_NEWGAME, C_GO, C_STOP, C_QUIT } Command;

static Command find_command(char *line, char **args) {
    static const struct {
        const char *word;
        Command c;
    } WORDS[] = {{"siu", C_SIU},           {"isready", C_ISREADY}, {"setoption", C_SETOPTION},
                 {"position", C_POSITION}, {"siunewgame", C_NEWGAME}, {"go", C_GO},
                 {"stop", C_STOP},         {"quit", C_QUIT}};
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0') return C_NONE;
        char *end = p;
        while (*end != '\0' && *end != ' ' && *end != '\t') end++;
        size_t len = (size_t)(end - p);
        for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
            if (strlen(WORDS[i].word) == len && strncmp(p, WORDS[i].word, len) == 0) {
                *args = end;
                return WORDS[i].c;
            }
        p = end;
    }
}

/* A command that needs the engine idle, run now (the search is over). */
static void idle_command(SiuSession *s, Command c, char *args) {
    reap(s, true);
    switch (c) {
    case C_SETOPTION: siu_options_set(s, args); break;
    case C_POSITION: position(s, args); break;
    case C_GO:
        if (s->have_position && session_tables(s, s->pos_lexicon) != 0) {
            siu_say(s, "info string error bad-position the tables did not load (see above)");
            break;
        }
        siu_go_start(s, args);
        break;
    default: break; /* siunewgame: nothing is cached between positions */
    }
}

static bool queue_push(SiuSession *s, const char *line) {
    if (s->qcount == s->qcap) {
        int cap = s->qcap > 0 ? s->qcap * 2 : 16;
        char **q = malloc((size_t)cap * sizeof *q);
        if (q == NULL) return false;
        for (int i = 0; i < s->qcount; i++) q[i] = s->queue[(s->qhead + i) % s->qcap];
        free(s->queue);
        s->queue = q;
        s->qcap = cap;
        s->qhead = 0;
    }
    char *copy = strdup(line);
    if (copy == NULL) return false;
    s->queue[(s->qhead + s->qcount) % s->qcap] = copy;
    s->qcount++;
    return true;
}

/* One line of input; false after quit. */
static bool command(SiuSession *s, char *line) {
    char *args = NULL;
    Command c = find_command(line, &args);
    reap(s, false);
    switch (c) {
    case C_NONE: {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '\0') siu_say(s, "info string error unknown-command %.200s", p);
        return true;
    }
    case C_SIU: handshake(s); return true;
    case C_ISREADY: {
        /* during a search: at once; idle: once the tables are loaded */
        if (!searching(s) && s->qcount == 0) session_tables(s, s->have_position ? s->pos_lexicon : "");
        siu_say(s, "readyok");
        return true;
    }
    case C_SETOPTION:
    case C_POSITION:
    case C_NEWGAME:
    case C_GO:
        /* during a search (or behind commands waiting for one): in order once it ends */
        if (searching(s) || s->qcount > 0) {
            if (!queue_push(s, line)) siu_say(s, "info string out of memory: a command was dropped");
        } else {
            idle_command(s, c, args);
        }
        return true;
    case C_STOP:
        if (searching(s)) { /* idle: ignored */
            atomic_store(&s->stop, true);
            atomic_store(&s->halt, true);
        }
        return true;
    case C_QUIT: return false;
    }
    return true;
}

/* Runs queued commands while no search runs. */
static void drain_queue(SiuSession *s) {
    while (s->qcount > 0 && !searching(s)) {
        char *line = s->queue[s->qhead];
        s->qhead = (s->qhead + 1) % s->qcap;
        s->qcount--;
        char *args = NULL;
        Command c = find_command(line, &args);
        idle_command(s, c, args);
        free(line);
    }
}

/* How long input may be waited for: until the deadline, or a moment when
 * commands wait for the search to end (to run them when it does), or not
 * at all when they wait and the search has ended already: it can end
 * between queueing a command and this call (a stop and a go in one write),
 * and an endless poll would then never run the go. */
static int poll_wait(SiuSession *s) {
    int ms = deadline_wait(s);
    if (s->qcount > 0 && (ms < 0 || ms > 2)) ms = searching(s) ? 2 : 0;
    return ms;
}

/* Reads lines from fd until quit or the end of input. */
static void input_loop(SiuSession *s, int fd) {
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    bool discarding = false, go_on = buf != NULL;
    while (go_on) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, poll_wait(s));
        deadline_wait(s);
        reap(s, false);
        drain_queue(s);
        if (rc < 0 && errno == EINTR) continue;
        if (rc == 0) continue;
        if (len == cap) {
            size_t ncap = cap * 2;
            char *nb = ncap <= MAX_LINE ? realloc(buf, ncap) : NULL;
            if (nb == NULL) { /* a line too long: drop it up to its end */
                siu_say(s, "info string error unknown-command a line longer than %d bytes was dropped", MAX_LINE);
                len = 0;
                discarding = true;
            } else {
                buf = nb;
                cap = ncap;
            }
        }
        ssize_t got = rc < 0 ? -1 : read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; /* the end of input: as quit, once the searches asked for end */
        len += (size_t)got;
        size_t start = 0;
        for (size_t i = 0; i < len && go_on; i++) {
            if (buf[i] != '\n') continue;
            buf[i] = '\0';
            if (i > start && buf[i - 1] == '\r') buf[i - 1] = '\0';
            if (!discarding) go_on = command(s, buf + start);
            discarding = false;
            start = i + 1;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (go_on && len > 0 && !discarding && len < cap) { /* a last line without its newline */
        buf[len] = '\0';
        go_on = command(s, buf);
    }
    free(buf);
    /* quit stops the search and drops what waits; the end of input lets the
     * searches with a limit end and the waiting commands run (a go infinite
     * is stopped: nobody is left to stop it) */
    for (;;) {
        if (!go_on || s->infinite) {
            atomic_store(&s->stop, true);
            atomic_store(&s->halt, true);
        }
        if (go_on) drain_queue(s);
        if (!searching(s) && (!go_on || s->qcount == 0)) break;
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        deadline_wait(s);
        reap(s, false);
    }
    reap(s, true);
    while (s->qcount > 0) {
        free(s->queue[s->qhead]);
        s->qhead = (s->qhead + 1) % s->qcap;
        s->qcount--;
    }
}

int siu_engine_run(int in_fd, int out_fd, const char *const *presets, int npresets) {
    SiuSession *s = calloc(1, sizeof *s);
    if (s == NULL) return 1;
    s->out_fd = out_fd;
    pthread_mutex_init(&s->out_lock, NULL);
    atomic_init(&s->stop, false);
    atomic_init(&s->halt, false);
    atomic_init(&s->done, true);
    siu_options_defaults(&s->opt);
    int rc = 0;
    for (int i = 0; i < npresets && rc == 0; i++) {
        char why[1024];
        if (siu_options_preset(&s->opt, presets[i], why, sizeof why) != 0) {
            fprintf(stderr, "rookery siu: --option %s\n", why);
            rc = 2;
        }
    }
    if (rc == 0) input_loop(s, in_fd);
    siu_tables_free(&s->tables);
    infer_result_free(&s->inference);
    free(s->inference_pos);
    free(s->pos);
    free(s->pos_text);
    free(s->queue);
    pthread_mutex_destroy(&s->out_lock);
    free(s);
    return rc;
}
