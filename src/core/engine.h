/* engine.h - what every command and the training loop open first: the letter
 * distribution, the board layout, the lexicon (.kwg) and its word map, found
 * by name the way the README describes ($ROOKERY_LEXICON, $ROOKERY_LEXICA,
 * the lexica/ folder beside the executable), and the default leaves beside
 * the lexicon. */
#ifndef ROOKERY_CORE_ENGINE_H
#define ROOKERY_CORE_ENGINE_H

#include <stddef.h>

#include "core/common.h"
#include "core/kwg.h"
#include "core/layout.h"
#include "core/letters.h"
#include "core/wordmap.h"

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
 * On error frees what it loaded and returns -1, err saying why in one line
 * (the lexicon not found, a damaged file, a bad ROOKERY_WORDMAP). */
int engine_open(Engine *e, const char *ld_name, const char *layout_name, const char *lexicon_path,
                const char *lexicon_name, RkError *err);
void engine_close(Engine *e);

/* The default leaves of the engine's lexicon, those of every player that
 * takes leaves and names none: NAME.klv2 beside NAME.kwg (the build copies
 * the trained tables of data/leaves/ there; docs/leaves.md, "Shipped
 * leaves"). $ROOKERY_LEAVES overrides it: "zero" for none, or a .klv2 path.
 * Writes the path to out and returns 1; returns 0 when there are none (no
 * file beside a foreign lexicon); -1 (err says why) if the path does not
 * fit. */
int engine_default_leaves(const Engine *e, char *out, size_t cap, RkError *err);
#endif
