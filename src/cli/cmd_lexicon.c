/* rookery lexicon: build, check and dump .kwg lexicon graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/letters.h"
#include "core/textfile.h"
#include "core/wordmap.h"

/* Word lists larger than this are refused (SOWPODS is about 3 MB). */
#define WORDLIST_MAX_BYTES ((size_t)1 << 30)
/* Longest word `dump` reports (and the largest --max-len). */
#define LEXICON_MAX_LEN 255
/* How many skipped words `build` names before going quiet. */
#define SKIP_NOTES 5

static void usage_main(FILE *out) {
    fprintf(out,
            "usage: rookery lexicon <build|wordmap|check|dump> ...\n"
            "\n"
            "  build WORDS.txt -o NAME.kwg [--ld english|FILE.csv] [--max-len 15] [--no-wordmap]\n"
            "        build a DAWG + GADDAG lexicon graph from a word list, and its word map\n"
            "  wordmap NAME.kwg [-o NAME.wmp] [--ld english|FILE.csv] [--threads N]\n"
            "        build the word map of a lexicon graph (the anagram tables of the\n"
            "        fast best-move generator)\n"
            "  check NAME.kwg WORD... [--ld english|FILE.csv]\n"
            "        say whether each word is in the lexicon\n"
            "  dump NAME.kwg [--ld english|FILE.csv]\n"
            "        print every word of the lexicon, one a line, in letter order\n"
            "\n"
            "`rookery lexicon <subcommand> --help` describes a subcommand.\n");
}

static void usage_build(FILE *out) {
    fprintf(out,
            "usage: rookery lexicon build WORDS.txt -o NAME.kwg [--ld english|FILE.csv] "
            "[--max-len N]\n"
            "                             [--no-wordmap]\n"
            "\n"
            "Reads one word a line (surrounding whitespace and CR are trimmed, empty lines\n"
            "skipped, ASCII letters uppercased) and writes the minimized DAWG + GADDAG to\n"
            "NAME.kwg (through NAME.kwg.tmp, renamed when complete). Words with letters outside\n"
            "the distribution (default english) or longer than --max-len (default 15, at most\n"
            "%d) are skipped and counted. Then it writes the word map NAME.wmp beside it (see\n"
            "`rookery lexicon wordmap --help`), unless --no-wordmap. A summary goes to stderr.\n",
            LEXICON_MAX_LEN);
}

static void usage_wordmap(FILE *out) {
    fprintf(out,
            "usage: rookery lexicon wordmap NAME.kwg [-o NAME.wmp] [--ld english|FILE.csv] [--threads N]\n"
            "\n"
            "Builds the word map of a lexicon graph: for every multiset of letters and word\n"
            "length, the words that are anagrams of it, also with one or two blanks. The\n"
            "best-move generator uses it instead of walking the graph (same moves, faster).\n"
            "Every command that loads NAME.kwg maps NAME.wmp from beside it when it exists,\n"
            "so this is the default output (-o names another). The file records a checksum\n"
            "of NAME.kwg: a map of another lexicon is refused. --threads: build threads\n"
            "(default 2). A summary goes to stderr. Format: docs/wordmap.md.\n");
}

static void usage_check(FILE *out) {
    fprintf(out,
            "usage: rookery lexicon check NAME.kwg WORD... [--ld english|FILE.csv]\n"
            "\n"
            "Prints \"WORD valid\" or \"WORD invalid\" for each word (ASCII letters are\n"
            "uppercased first). Exit status: 0 if every word is valid, 1 if any is invalid,\n"
            "2 on bad usage or an unreadable or corrupt lexicon.\n");
}

static void usage_dump(FILE *out) {
    fprintf(out,
            "usage: rookery lexicon dump NAME.kwg [--ld english|FILE.csv]\n"
            "\n"
            "Prints every word of the lexicon's DAWG, one a line, uppercase, in machine-letter\n"
            "order (a prefix before its extensions). Words longer than %d letters are not\n"
            "printed.\n",
            LEXICON_MAX_LEN);
}

static void upcase_ascii(char *s) {
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'z') *s = (char)(*s - 'a' + 'A');
}

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int open_ld(LetterDist *ld, const char *name) {
    RkError err;
    if (ld_open(ld, name, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* The options of check and dump (--ld NAME), then the lexicon; the operands
 * after it are words (into *words, *n_words of them) if `words`, otherwise an
 * error. Returns -1 to go on, or the exit code. */
static int lexicon_args(int argc, char **argv, const char *sub, void (*usage)(FILE *), bool words,
                        const char **kwg_path, const char **ld_name, const char ***word_list, int *n_words) {
    const char **operands = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *operands);
    if (operands == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        return 1;
    }
    CliStrings pos = {operands, 0, argc, NULL};
    const CliOption opts[] = {{"--ld", CLI_STRING, ld_name, 0, 0, NULL}};
    char cmd[32];
    snprintf(cmd, sizeof cmd, "lexicon %s", sub);
    int parsed = cli_options_parse_args(cmd, argc, argv, opts, 1, usage, &pos);
    if (parsed != 0 || (!words && pos.n > 1)) {
        if (parsed == 0) fprintf(stderr, "rookery lexicon %s: unexpected argument '%s' (see --help)\n", sub, operands[1]);
        free(operands);
        return parsed > 0 ? 0 : 2;
    }
    *kwg_path = pos.n > 0 ? operands[0] : NULL;
    if (words) {
        *n_words = pos.n > 0 ? pos.n - 1 : 0;
        *word_list = operands; /* the caller frees it; the words start at [1] */
    } else {
        free(operands);
    }
    return -1;
}

/* The letter distribution and the lexicon for check and dump: 0, or the
 * exit code (2) after printing the error. */
static int open_lexicon(LetterDist *ld, const char *ld_name, Kwg *k, const char *kwg_path) {
    if (open_ld(ld, ld_name) != 0) return 2;
    RkError err;
    if (kwg_load(k, kwg_path, (uint32_t)ld->size, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* ---- build ---- */

static int write_wordmap(const Kwg *k, int alphabet, int threads, const char *kwg_path, const char *wmp_path);

/* The kept words of a word list: their tiles back to back in ml, word i at offs[i], lens[i]
 * tiles long; and the counts the summary reports. */
typedef struct WordList {
    uint8_t *ml;
    size_t *offs;
    int *lens;
    size_t cap, n_read, n_kept, n_unknown, n_long;
} WordList;

static void wordlist_free(WordList *wl) {
    free(wl->ml);
    free(wl->offs);
    free(wl->lens);
}

/* Room for one more kept word; -1 if out of memory. */
static int wordlist_grow(WordList *wl) {
    if (wl->n_kept < wl->cap) return 0;
    wl->cap *= 2;
    size_t *no = realloc(wl->offs, wl->cap * sizeof *no);
    if (no != NULL) wl->offs = no;
    int *nlens = realloc(wl->lens, wl->cap * sizeof *nlens);
    if (nlens != NULL) wl->lens = nlens;
    return no == NULL || nlens == NULL ? -1 : 0;
}

/* Each line of text (text_len bytes, modified in place) trimmed, uppercased and parsed into
 * tiles; words with unknown letters or longer than max_len skipped (the first SKIP_NOTES
 * named). 0, or the exit code after printing the error. */
static int scan_words(char *text, size_t text_len, uint8_t *tiles, const LetterDist *ld, int max_len,
                      const char *in_path, WordList *wl) {
    size_t used = 0, line_no = 0;
    int notes = 0;
    char *p = text;
    while (p < text + text_len) {
        char *line = p;
        char *nl = memchr(p, '\n', (size_t)(text + text_len - p));
        char *end = nl ? nl : text + text_len;
        p = nl ? nl + 1 : text + text_len;
        line_no++;
        while (line < end && is_space(*line)) line++;
        while (end > line && is_space(end[-1])) end--;
        if (end == line) continue;
        *end = '\0';
        wl->n_read++;
        upcase_ascii(line);
        int n = ld_parse_tiles(ld, line, tiles, (int)(end - line), false);
        const char *why = NULL;
        if (n <= 0) {
            wl->n_unknown++;
            why = "letters outside the distribution";
        } else if (n > max_len) {
            wl->n_long++;
            why = "too long";
        }
        if (why != NULL) {
            if (notes < SKIP_NOTES)
                fprintf(stderr, "rookery: %s:%zu: skipped '%s' (%s)\n", in_path, line_no, line, why);
            else if (notes == SKIP_NOTES)
                fprintf(stderr, "rookery: %s: further skipped words are only counted\n", in_path);
            notes++;
            continue;
        }
        if (wordlist_grow(wl) != 0) {
            fprintf(stderr, "rookery: %s: out of memory\n", in_path);
            return 1;
        }
        memcpy(wl->ml + used, tiles, (size_t)n);
        wl->offs[wl->n_kept] = used;
        wl->lens[wl->n_kept] = n;
        used += (size_t)n;
        wl->n_kept++;
    }
    return 0;
}

/* The word list at in_path read into *wl (which the caller frees, whatever the result).
 * 0, or the exit code after printing the error. */
static int read_words(const char *in_path, const LetterDist *ld, int max_len, WordList *wl) {
    RkError err;
    size_t text_len = 0;
    char *text = rk_read_file(in_path, WORDLIST_MAX_BYTES, &text_len, &err);
    if (text == NULL) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    /* Tiles never outnumber bytes, so text_len bounds the ML buffer. */
    wl->ml = malloc(text_len + 1);
    wl->cap = 1024;
    wl->offs = malloc(wl->cap * sizeof *wl->offs);
    wl->lens = malloc(wl->cap * sizeof *wl->lens);
    uint8_t *tiles = malloc(text_len + 1);
    int rc = 0;
    if (wl->ml == NULL || wl->offs == NULL || wl->lens == NULL || tiles == NULL) {
        fprintf(stderr, "rookery: %s: out of memory\n", in_path);
        rc = 1;
    } else {
        rc = scan_words(text, text_len, tiles, ld, max_len, in_path, wl);
    }
    free(text);
    free(tiles);
    return rc;
}

/* The DAWG + GADDAG of the kept words into *k. 0, or the exit code after printing the error. */
static int build_graph(const WordList *wl, const char *in_path, Kwg *k) {
    const uint8_t **ptrs = malloc((wl->n_kept ? wl->n_kept : 1) * sizeof *ptrs);
    if (ptrs == NULL) {
        fprintf(stderr, "rookery: %s: out of memory\n", in_path);
        return 1;
    }
    for (size_t i = 0; i < wl->n_kept; i++) ptrs[i] = wl->ml + wl->offs[i];
    KwgWords words = {ptrs, wl->lens, wl->n_kept};
    RkError err;
    int rc = 0;
    if (kwg_build(k, &words, true, &err) != 0) {
        fprintf(stderr, "rookery: %s: %s\n", in_path, err.msg);
        rc = 2;
    }
    free(ptrs);
    return rc;
}

static int lexicon_build(int argc, char **argv) {
    const char *in_path = NULL, *out_path = NULL, *ld_name = NULL;
    int max_len = 15;
    bool no_wordmap = false;
    const char *operands[2];
    CliStrings pos = {operands, 0, 2, NULL};
    const CliOption opts[] = {{"--no-wordmap", CLI_FLAG, &no_wordmap, 0, 0, NULL},
                              {"-o", CLI_STRING, &out_path, 0, 0, NULL},
                              {"--output", CLI_STRING, &out_path, 0, 0, NULL},
                              {"--ld", CLI_STRING, &ld_name, 0, 0, NULL},
                              {"--max-len", CLI_INT, &max_len, 1, LEXICON_MAX_LEN, NULL}};
    int parsed = cli_options_parse_args("lexicon build", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                                        usage_build, &pos);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (pos.n > 1) {
        fprintf(stderr, "rookery lexicon build: more than one word list ('%s', '%s')\n", operands[0], operands[1]);
        return 2;
    }
    in_path = pos.n > 0 ? operands[0] : NULL;
    bool with_wordmap = !no_wordmap;
    if (in_path == NULL || out_path == NULL) {
        fprintf(stderr, "rookery lexicon build: %s is required (see --help)\n",
                in_path == NULL ? "a word list" : "-o NAME.kwg");
        return 2;
    }
    LetterDist ld;
    if (open_ld(&ld, ld_name) != 0) return 2;

    double t0 = cli_now();
    RkError err;
    WordList wl = {0};
    int rc = read_words(in_path, &ld, max_len, &wl);
    Kwg k = {0};
    if (rc == 0) rc = build_graph(&wl, in_path, &k);
    wordlist_free(&wl);
    if (rc == 0 && kwg_write(&k, out_path, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0) {
        double secs = cli_now() - t0;
        fprintf(stderr,
                "%s: %zu words read, %zu kept, %zu skipped (%zu unknown letters, %zu too long); "
                "%u nodes, %.1f MB, %.2f s\n",
                in_path, wl.n_read, wl.n_kept, wl.n_unknown + wl.n_long, wl.n_unknown, wl.n_long, k.n,
                (double)k.n * 4.0 / 1e6, secs);
    }
    if (rc == 0 && with_wordmap) {
        char wmp_path[4096];
        if (wordmap_path_beside(out_path, wmp_path, sizeof wmp_path) != 0) {
            fprintf(stderr, "rookery: %s: path too long for its word map\n", out_path);
            rc = 2;
        } else {
            rc = write_wordmap(&k, ld.size, 2, out_path, wmp_path);
        }
    }
    kwg_free(&k);
    return rc;
}

/* ---- wordmap ---- */

/* Builds and writes the word map of k; prints a summary. 0 or an exit code. */
static int write_wordmap(const Kwg *k, int alphabet, int threads, const char *kwg_path, const char *wmp_path) {
    RkError err;
    WordMap wm;
    double t0 = cli_now();
    if (wordmap_build(&wm, k, alphabet, threads, kwg_path, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    double t_build = cli_now() - t0;
    int rc = 0;
    if (wordmap_write(&wm, wmp_path, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 1;
    } else {
        uint64_t words = 0;
        for (int L = 2; L <= wm.max_len; L++) words += wm.len[L].nwords;
        fprintf(stderr, "%s: word map of %llu words (lengths 2..%d), %.1f MB, built in %.2f s on %d thread%s\n",
                wmp_path, (unsigned long long)words, wm.max_len, (double)wm.image_size / 1e6, t_build, threads,
                threads == 1 ? "" : "s");
    }
    wordmap_free(&wm);
    return rc;
}

static int lexicon_wordmap(int argc, char **argv) {
    const char *kwg_path = NULL, *out_path = NULL, *ld_name = NULL;
    int threads = 2;
    const char *operands[2];
    CliStrings pos = {operands, 0, 2, NULL};
    const CliOption opts[] = {{"-o", CLI_STRING, &out_path, 0, 0, NULL},
                              {"--output", CLI_STRING, &out_path, 0, 0, NULL},
                              {"--ld", CLI_STRING, &ld_name, 0, 0, NULL},
                              {"--threads", CLI_INT, &threads, 1, 8, NULL}};
    int parsed = cli_options_parse_args("lexicon wordmap", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                                        usage_wordmap, &pos);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (pos.n > 1) {
        fprintf(stderr, "rookery lexicon wordmap: unexpected argument '%s' (see --help)\n", operands[1]);
        return 2;
    }
    kwg_path = pos.n > 0 ? operands[0] : NULL;
    if (kwg_path == NULL) {
        fprintf(stderr, "rookery lexicon wordmap: a lexicon is required (see --help)\n");
        return 2;
    }
    char beside[4096];
    if (out_path == NULL) {
        if (wordmap_path_beside(kwg_path, beside, sizeof beside) != 0) {
            fprintf(stderr, "rookery: %s: path too long for its word map\n", kwg_path);
            return 2;
        }
        out_path = beside;
    }
    LetterDist ld;
    Kwg k;
    if (open_lexicon(&ld, ld_name, &k, kwg_path) != 0) return 2;
    int rc = write_wordmap(&k, ld.size, threads, kwg_path, out_path);
    kwg_free(&k);
    return rc;
}

/* ---- check ---- */

static int lexicon_check(int argc, char **argv) {
    const char *kwg_path = NULL, *ld_name = NULL, **words = NULL;
    int n_words = 0;
    int rc = lexicon_args(argc, argv, "check", usage_check, true, &kwg_path, &ld_name, &words, &n_words);
    if (rc >= 0) return rc;
    if (kwg_path == NULL || n_words == 0) {
        fprintf(stderr, "rookery lexicon check: %s (see --help)\n",
                kwg_path == NULL ? "a lexicon and words are required" : "no words to check");
        free(words);
        return 2;
    }
    LetterDist ld;
    Kwg k;
    if (open_lexicon(&ld, ld_name, &k, kwg_path) != 0) {
        free(words);
        return 2;
    }
    rc = 0;
    for (int w = 1; w <= n_words; w++) {
        const char *a = words[w];
        size_t len = strlen(a);
        char *up = malloc(len + 1);
        uint8_t *tiles = malloc(len + 1);
        if (up == NULL || tiles == NULL) {
            free(up);
            free(tiles);
            fprintf(stderr, "rookery: out of memory\n");
            kwg_free(&k);
            free(words);
            return 1;
        }
        memcpy(up, a, len + 1);
        upcase_ascii(up);
        int n = len == 0 ? -1 : ld_parse_tiles(&ld, up, tiles, (int)len, false);
        bool ok = n > 0 && kwg_has_word(&k, tiles, n);
        printf("%s %s\n", a, ok ? "valid" : "invalid");
        if (!ok) rc = 1;
        free(up);
        free(tiles);
    }
    kwg_free(&k);
    free(words);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "rookery: lexicon check: cannot write the output\n");
        return 1;
    }
    return rc;
}

/* ---- dump ---- */

typedef struct DumpCtx {
    const LetterDist *ld;
    char line[LEXICON_MAX_LEN * RK_LABEL_MAX + 2];
} DumpCtx;

static int dump_word(const uint8_t *ml, int len, void *ctx) {
    DumpCtx *d = ctx;
    size_t at = 0;
    for (int i = 0; i < len; i++) {
        int w = ld_tile_label(d->ld, ml[i], d->line + at, sizeof d->line - at - 1);
        if (w > 0) at += (size_t)w;
        if (at >= sizeof d->line - 1) at = sizeof d->line - 2;
    }
    d->line[at++] = '\n';
    d->line[at] = '\0';
    return fputs(d->line, stdout) == EOF ? 1 : 0;
}

static int lexicon_dump(int argc, char **argv) {
    const char *kwg_path = NULL, *ld_name = NULL;
    int rc = lexicon_args(argc, argv, "dump", usage_dump, false, &kwg_path, &ld_name, NULL, NULL);
    if (rc >= 0) return rc;
    if (kwg_path == NULL) {
        fprintf(stderr, "rookery lexicon dump: a lexicon is required (see --help)\n");
        return 2;
    }
    LetterDist ld;
    Kwg k;
    if (open_lexicon(&ld, ld_name, &k, kwg_path) != 0) return 2;
    RkError err;
    /* A cyclic DAWG would make the walk (depth-capped) print garbage for a
     * very long time; the word index refuses cycles. */
    KwgIndex ix;
    if (kwg_index_init(&ix, &k, &err) != 0) {
        fprintf(stderr, "rookery: %s: %s\n", kwg_path, err.msg);
        kwg_free(&k);
        return 2;
    }
    kwg_index_free(&ix);
    DumpCtx *ctx = malloc(sizeof *ctx);
    if (ctx == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        kwg_free(&k);
        return 1;
    }
    ctx->ld = &ld;
    int r = kwg_foreach_word(&k, LEXICON_MAX_LEN, dump_word, ctx);
    free(ctx);
    kwg_free(&k);
    if (r != 0 || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "rookery: lexicon dump: cannot write the output\n");
        return 1;
    }
    return 0;
}

int cmd_lexicon(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "rookery lexicon: a subcommand is required: build, wordmap, check or dump (see "
                        "rookery lexicon --help)\n");
        return 2;
    }
    const char *sub = argv[1];
    if (cli_is_help(sub) || strcmp(sub, "help") == 0) {
        usage_main(stdout);
        return 0;
    }
    if (strcmp(sub, "build") == 0) return lexicon_build(argc - 1, argv + 1);
    if (strcmp(sub, "wordmap") == 0) return lexicon_wordmap(argc - 1, argv + 1);
    if (strcmp(sub, "check") == 0) return lexicon_check(argc - 1, argv + 1);
    if (strcmp(sub, "dump") == 0) return lexicon_dump(argc - 1, argv + 1);
    fprintf(stderr, "rookery lexicon: unknown subcommand '%s' (build, wordmap, check or dump)\n", sub);
    return 2;
}
