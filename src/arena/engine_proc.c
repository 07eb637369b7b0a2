/* engine_proc.c - an SIU engine as a child process (see engine_proc.h). */
#include "engine_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

int engine_proc_init(EngineProc *e, const char *command, const char *stderr_path, RkError *err) {
    memset(e, 0, sizeof *e);
    e->pid = -1;
    e->to_fd = e->from_fd = -1;
    e->command = dup_str(command);
    e->stderr_path = stderr_path != NULL ? dup_str(stderr_path) : NULL;
    if (e->command == NULL || (stderr_path != NULL && e->stderr_path == NULL)) {
        engine_proc_free(e);
        return rk_error(err, "out of memory");
    }
    return 0;
}

void engine_proc_free(EngineProc *e) {
    engine_proc_kill(e);
    free(e->command);
    free(e->stderr_path);
    e->command = e->stderr_path = NULL;
}

const char *engine_token(const char *s, size_t *n, const char **rest) {
    while (*s == ' ' || *s == '\t') s++;
    const char *end = s;
    while (*end != '\0' && *end != ' ' && *end != '\t') end++;
    if (n != NULL) *n = (size_t)(end - s);
    if (rest != NULL) {
        const char *r = end;
        while (*r == ' ' || *r == '\t') r++;
        *rest = r;
    }
    return s;
}

static bool token_is(const char *line, const char *word, const char **rest) {
    size_t n;
    const char *t = engine_token(line, &n, rest);
    return n == strlen(word) && memcmp(t, word, n) == 0;
}

/* Milliseconds left until the deadline, rounded up, at least 0. */
static int ms_left(double deadline) {
    double left = (deadline - rk_seconds()) * 1000.0;
    if (left <= 0) return 0;
    if (left > (double)INT_MAX) return INT_MAX;
    return (int)left + 1;
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

void engine_proc_kill(EngineProc *e) {
    close_fd(&e->to_fd);
    close_fd(&e->from_fd);
    if (e->pid > 0) {
        /* the whole group: a shell that did not exec its command leaves the
         * engine as its child */
        kill(-e->pid, SIGKILL);
        kill(e->pid, SIGKILL);
        while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    e->pid = -1;
    e->len = 0;
    e->discarding = false;
    e->eof = false;
}

void engine_proc_quit(EngineProc *e, int grace_ms) {
    if (e->pid <= 0) return;
    double deadline = rk_seconds() + grace_ms / 1000.0;
    RkError ignored;
    if (engine_proc_send(e, "quit", deadline, &ignored) == 0) {
        close_fd(&e->to_fd); /* EOF on stdin too, for engines that wait for it */
        while (rk_seconds() < deadline) {
            pid_t r = waitpid(e->pid, NULL, WNOHANG);
            if (r == e->pid || (r < 0 && errno != EINTR)) {
                kill(-e->pid, SIGKILL); /* anything it left in its group */
                e->pid = -1;
                break;
            }
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    engine_proc_kill(e);
}

static int set_flags(int fd, bool nonblock) {
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) return -1;
    if (nonblock) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    }
    return 0;
}

/* posix_spawn rather than fork: under MPI a fork of a process with
 * registered memory is unsafe with some transports; glibc's posix_spawn
 * uses a vfork-style clone. */
static int spawn(EngineProc *e, RkError *err) {
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipe(in) < 0 || pipe(out) < 0 || set_flags(in[0], false) || set_flags(in[1], true) ||
        set_flags(out[0], true) || set_flags(out[1], false)) {
        int saved = errno;
        for (int i = 0; i < 2; i++) {
            close_fd(&in[i]);
            close_fd(&out[i]);
        }
        return rk_error(err, "cannot create the engine's pipes: %s", strerror(saved));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, e->stderr_path != NULL ? e->stderr_path : "/dev/null",
                                     O_WRONLY | O_APPEND | O_CREAT, 0644);
    sigset_t def, none;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE); /* ignored here, default for the engine */
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {"sh", "-c", e->command, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close_fd(&in[0]);
    close_fd(&out[1]);
    if (rc != 0) {
        close_fd(&in[1]);
        close_fd(&out[0]);
        return rk_error(err, "cannot start /bin/sh for the engine: %s", strerror(rc));
    }
    e->pid = pid;
    e->to_fd = in[1];
    e->from_fd = out[0];
    e->len = 0;
    e->discarding = false;
    e->eof = false;
    return 0;
}

/* Reads the handshake up to `siuok`, keeping the engine's `id name`. */
static int handshake(EngineProc *e, int timeout_ms, RkError *err) {
    double deadline = rk_seconds() + timeout_ms / 1000.0;
    if (engine_proc_send(e, "siu", deadline, err) != 0) return -1;
    char line[ENGINE_LINE_MAX + 1];
    for (;;) {
        EngineRead r = engine_proc_read_line(e, line, sizeof line, deadline);
        if (r == ENGINE_READ_EOF) return rk_error(err, "the engine exited before `siuok`");
        if (r == ENGINE_READ_TIMEOUT) return rk_error(err, "no `siuok` within %d ms", timeout_ms);
        const char *rest;
        if (token_is(line, "siuok", NULL)) break;
        if (token_is(line, "id", &rest) && token_is(rest, "name", &rest))
            snprintf(e->name, sizeof e->name, "%s", rest);
    }
    deadline = rk_seconds() + timeout_ms / 1000.0;
    if (engine_proc_send(e, "isready", deadline, err) != 0) return -1;
    return engine_proc_expect(e, "readyok", deadline, NULL, err);
}

int engine_proc_start(EngineProc *e, int timeout_ms, RkError *err) {
    /* Process-wide and idempotent: a write to a dead engine must fail with
     * EPIPE, not end the referee. */
    signal(SIGPIPE, SIG_IGN);
    engine_proc_kill(e);
    e->name[0] = '\0';
    if (spawn(e, err) != 0) return -1;
    if (handshake(e, timeout_ms, err) != 0) {
        engine_proc_kill(e);
        return -1;
    }
    e->starts++;
    return 0;
}

int engine_proc_restart(EngineProc *e, int timeout_ms, RkError *err) {
    engine_proc_kill(e);
    return engine_proc_start(e, timeout_ms, err);
}

int engine_proc_send(EngineProc *e, const char *line, double deadline, RkError *err) {
    if (e->pid <= 0 || e->to_fd < 0) return rk_error(err, "the engine is not running");
    size_t n = strlen(line);
    char stackbuf[1024];
    char *msg = n + 1 <= sizeof stackbuf ? stackbuf : malloc(n + 1);
    if (msg == NULL) return rk_error(err, "out of memory");
    memcpy(msg, line, n);
    msg[n++] = '\n';
    size_t off = 0;
    int rc = 0;
    while (off < n) {
        ssize_t w = write(e->to_fd, msg + off, n - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            if (errno == EPIPE) rc = rk_error(err, "the engine exited (its input is closed)");
            else rc = rk_error(err, "cannot write to the engine: %s", strerror(errno));
            break;
        }
        struct pollfd p = {e->to_fd, POLLOUT, 0};
        int left = ms_left(deadline);
        if (left == 0) {
            rc = rk_error(err, "the engine does not read its input");
            break;
        }
        if (poll(&p, 1, left) < 0 && errno != EINTR) {
            rc = rk_error(err, "poll: %s", strerror(errno));
            break;
        }
    }
    if (msg != stackbuf) free(msg);
    return rc;
}

/* Moves a whole line out of the buffer into out; false if there is none.
 * Over-long lines are cut (the rest dropped up to the next line end). */
static bool take_line(EngineProc *e, char *out, size_t cap, bool *got) {
    char *nl = memchr(e->buf, '\n', e->len);
    size_t n;
    if (nl != NULL) {
        n = (size_t)(nl - e->buf);
    } else if (e->len == ENGINE_LINE_MAX || (e->eof && e->len > 0)) {
        n = e->len; /* a line too long, or the last one without its '\n' */
    } else {
        return false;
    }
    bool keep = !e->discarding;
    e->discarding = nl == NULL && !e->eof; /* the rest of a cut line follows */
    size_t len = n;
    while (len > 0 && (e->buf[len - 1] == '\r' || e->buf[len - 1] == ' ' || e->buf[len - 1] == '\t')) len--;
    size_t start = 0;
    while (start < len && (e->buf[start] == ' ' || e->buf[start] == '\t')) start++;
    *got = keep && len > start;
    if (*got) {
        size_t m = len - start < cap - 1 ? len - start : cap - 1;
        memcpy(out, e->buf + start, m);
        out[m] = '\0';
        for (size_t i = 0; i < m; i++) /* NULs would cut the line short later */
            if (out[i] == '\0') out[i] = ' ';
    }
    size_t used = nl != NULL ? n + 1 : n;
    memmove(e->buf, e->buf + used, e->len - used);
    e->len -= used;
    return true;
}

EngineRead engine_proc_read_line(EngineProc *e, char *line, size_t cap, double deadline) {
    if (cap == 0) return ENGINE_READ_TIMEOUT;
    for (;;) {
        bool got = false;
        while (take_line(e, line, cap, &got))
            if (got) return ENGINE_READ_LINE;
        if (e->eof || e->from_fd < 0) return ENGINE_READ_EOF;
        int left = ms_left(deadline);
        if (left == 0) return ENGINE_READ_TIMEOUT;
        struct pollfd p = {e->from_fd, POLLIN, 0};
        int pr = poll(&p, 1, left);
        if (pr < 0 && errno != EINTR) {
            e->eof = true;
            continue;
        }
        if (pr <= 0) continue;
        ssize_t r = read(e->from_fd, e->buf + e->len, ENGINE_LINE_MAX - e->len);
        if (r > 0) e->len += (size_t)r;
        else if (r == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) e->eof = true;
    }
}

int engine_proc_expect(EngineProc *e, const char *word, double deadline, bool *timed_out, RkError *err) {
    char line[ENGINE_LINE_MAX + 1];
    double t0 = rk_seconds();
    if (timed_out != NULL) *timed_out = false;
    for (;;) {
        EngineRead r = engine_proc_read_line(e, line, sizeof line, deadline);
        if (r == ENGINE_READ_LINE) {
            if (token_is(line, word, NULL)) return 0;
            continue;
        }
        if (r == ENGINE_READ_EOF) return rk_error(err, "the engine exited (its output closed) before `%s`", word);
        if (timed_out != NULL) *timed_out = true;
        return rk_error(err, "no `%s` within %.0f ms", word, (rk_seconds() - t0) * 1000.0);
    }
}
