/* cli_options.h - a command's options as a table: each option's name, kind,
 * destination and range, parsed by one loop with the same messages for
 * every command (an unknown or incomplete option, a bad value) and --help.
 * Every command uses it (the lexicon subcommands with their operands). */
#ifndef ROOKERY_CLI_OPTIONS_H
#define ROOKERY_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    CLI_FLAG,    /* bool *: set to true */
    CLI_STRING,  /* const char **: the next argument */
    CLI_STRINGS, /* CliStrings *: the next argument, appended (the option may repeat) */
    CLI_U64,     /* uint64_t *: an integer in [0, hi] */
    CLI_INT,     /* int *: an integer in [lo, hi] */
    CLI_DOUBLE   /* double *: a number in [lo, hi] */
} CliOptionKind;

typedef struct CliStrings {
    const char **v;       /* the caller's array of cap entries */
    int n, cap;
    const char *too_many; /* the error when more than cap are given (NULL: a generic one) */
} CliStrings;

typedef struct CliOption {
    const char *name; /* "--pairs" */
    CliOptionKind kind;
    void *dest;
    double lo, hi;
    bool *given; /* if not NULL: set when the option is given */
} CliOption;

/* Parses argv[1..argc) against opts[0..n): 0 done; 1 after --help or -h
 * (usage printed to stdout: exit 0); -1 after a one-line error on stderr
 * (exit 2). */
int cli_options_parse(const char *cmd, int argc, char **argv, const CliOption *opts, int n, void (*usage)(FILE *out));
/* The same, with arguments that are not options (not starting with '-')
 * collected into *positional, up to its cap; one more is an error. */
int cli_options_parse_args(const char *cmd, int argc, char **argv, const CliOption *opts, int n,
                           void (*usage)(FILE *out), CliStrings *positional);

#endif
