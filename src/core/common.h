/*
 * common.h - limits shared by every engine module, and the error type.
 *
 * The engine has no global mutable state: every function works on the
 * structs it is given. Errors are reported through an RkError the caller
 * owns; a function that fails returns a non-zero value (or NULL) and leaves a
 * one-line message there.
 */
#ifndef ROOKERY_COMMON_H
#define ROOKERY_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Machine letters 0..RK_MAX_LETTERS-1 (0 = blank on a rack, empty on the
 * board). Cross-sets are uint64_t bit masks, so 63 real letters at most. */
#define RK_MAX_LETTERS 64
/* Largest supported board side (super boards are 21x21). */
#define RK_MAX_DIM 21
#define RK_MAX_SQUARES (RK_MAX_DIM * RK_MAX_DIM)
/* Tiles on a full rack. */
#define RK_RACK_SIZE 7
/* A blank on the board standing for letter L is stored as L | RK_BLANK_BIT. */
#define RK_BLANK_BIT 0x80u
#define RK_LETTER(t) ((uint8_t)((t) & 0x7Fu))
#define RK_IS_BLANKED(t) (((t) & RK_BLANK_BIT) != 0)

typedef struct RkError {
    char msg[512];
} RkError;

/* Formats msg into err (if err is not NULL). Always returns -1 so callers can
 * write `return rk_error(err, "...")`. */
int rk_error(RkError *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copies n bytes of user text into dst (cap bytes) for quoting in a
 * one-line message: control characters are escaped as \xNN and long text is
 * cut with "..." (never inside a UTF-8 character). */
void rk_quote_text(char *dst, size_t cap, const char *s, size_t n);
/* Writes s into out (cap > 0 bytes) as the inside of a JSON string: quotes,
 * backslashes and control characters escaped, and a byte that does not
 * begin a well-formed UTF-8 character too, as \u00XX (so the result is
 * always valid UTF-8 JSON); cut short to fit, never inside an escape or a
 * character. Returns out. */
char *rk_json_escape(const char *s, char *out, size_t cap);
/* Text built in a caller's buffer: each piece appended is cut to fit, and
 * the buffer always holds a NUL-terminated string (when cap > 0). */
typedef struct RkText {
    char *buf;
    size_t cap, pos;
} RkText;
void rk_text_put(RkText *t, const char *s);
/* Bytes of the (UTF-8) character at s, at least 1 (fewer if the string ends
 * inside it). */
size_t rk_char_len(const char *s);
/* Checks the start of a binary file read from `source`: at least
 * header_bytes bytes, and the 4-byte magic. Otherwise a one-line error
 * naming the source, the size or the magic found, and what the file should
 * be (`what`, e.g. "an .spv file"). */
int rk_check_magic(const uint8_t *data, size_t size, size_t header_bytes, const char magic[4], const char *what,
                   const char *source, RkError *err);
/* Grows the array *p of elem-byte elements, capacity *cap elements, to
 * hold at least `need`: the capacity doubles (from 16) until it does.
 * Returns 0, or -1 with *p and *cap unchanged (still valid) when out of
 * memory or when the size in bytes would overflow. */
int rk_grow(void **p, size_t *cap, size_t need, size_t elem);
/* A monotonic wall clock, in seconds (for progress and time limits). */
double rk_seconds(void);

#endif
