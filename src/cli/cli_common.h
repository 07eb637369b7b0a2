/* cli_common.h - what the commands share: loading the letter distribution,
 * board layout and lexicon named on the command line, and small option
 * parsing helpers. */
#ifndef ROOKERY_CLI_COMMON_H
#define ROOKERY_CLI_COMMON_H

#include <stdint.h>

#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/wordmap.h"
#include "search/player.h"

/* kwg.wordmap points at the Engine's own wordmap member: an open Engine must
 * not be copied or moved (every caller keeps it in place, on the stack or
 * the heap, and passes pointers). */
typedef struct Engine {
    LetterDist ld;
    Layout layout;
    Kwg kwg;
    WordMap wordmap; /* kwg.wordmap == &wordmap when loaded, else NULL */
    char lexicon_path[4096];
} Engine;

/* Loads the distribution (name or file; NULL = english), the layout (NULL =
 * standard15) and the lexicon. The lexicon is, in order: `lexicon_path` if
 * given; else $ROOKERY_LEXICON; else <lexicon name>.kwg (default SOWPODS)
 * looked up in $ROOKERY_LEXICA, then in the `lexica/` folder beside the
 * rookery executable. The lexicon's word map (NAME.wmp beside NAME.kwg,
 * wordmap_path_beside) is mapped and attached as kwg.wordmap when the file
 * exists (none: graph only, silently); ROOKERY_WORDMAP=off skips it (unset
 * or empty, or "on": the default). A map that fails its checks is an error.
 * On error prints "rookery: <message>", frees what it loaded and returns -1. */
int engine_open(Engine *e, const char *ld_name, const char *layout_name, const char *lexicon_path,
                const char *lexicon_name);
void engine_close(Engine *e);

/* The default leaves of the engine's lexicon, those of every player that
 * takes leaves and names none: NAME.klv2 beside NAME.kwg (the build copies
 * the trained tables of data/leaves/ there; docs/leaves.md, "Shipped
 * leaves"). $ROOKERY_LEAVES overrides it: "zero" for none, or a .klv2 path.
 * Writes the path to out and returns 1; returns 0 when there are none (no
 * file beside a foreign lexicon); -1 (err says why) if the path does not
 * fit. */
int engine_default_leaves(const Engine *e, char *out, size_t cap, RkError *err);
/* player_open, then the engine's default leaves (engine_default_leaves) if
 * the spec names no leaves. */
int cli_player_open(Player *p, const char *spec, const Engine *e, RkError *err);
/* The letter distribution to open for a CGP: --ld if given (a name or a
 * file: the caller's choice), else the CGP's `ld` opcode, which must be a
 * distribution rookery has built in ("english"; a name, never a path), else
 * NULL (english). -1 with err set for an unknown `ld`. */
int cli_cgp_distribution(const char *given, const char *cgp_ld, const char **out, RkError *err);

/* Parses a non-negative integer option value; prints an error naming the
 * option and returns -1 on junk or out of range. */
int cli_parse_u64(const char *opt, const char *value, uint64_t max, uint64_t *out);
int cli_parse_int(const char *opt, const char *value, int lo, int hi, int *out);
/* The same for a number in [lo, hi] (NaN and infinities refused). */
int cli_parse_double(const char *opt, const char *value, double lo, double hi, double *out);
/* True if s is --help or -h. */
int cli_is_help(const char *s);
/* Monotonic wall clock in seconds. */
double cli_now(void);
/* How many of the items 0..n-1 rank `rank` of `size` plays when item i goes
 * to rank i mod size (for progress lines). */
uint64_t cli_share_count(uint64_t n, int rank, int size);

#endif
