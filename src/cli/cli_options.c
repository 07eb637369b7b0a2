/* cli_options.c - see cli_options.h. */
#include "cli_options.h"

#include <string.h>

#include "cli_common.h"

static const CliOption *find(const CliOption *opts, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(opts[i].name, name) == 0) return &opts[i];
    return NULL;
}

int cli_options_parse(const char *cmd, int argc, char **argv, const CliOption *opts, int n, void (*usage)(FILE *out)) {
    return cli_options_parse_args(cmd, argc, argv, opts, n, usage, NULL);
}

int cli_options_parse_args(const char *cmd, int argc, char **argv, const CliOption *opts, int n,
                           void (*usage)(FILE *out), CliStrings *positional) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) {
            usage(stdout);
            return 1;
        }
        if (a[0] != '-' && positional != NULL && positional->n < positional->cap) {
            positional->v[positional->n++] = a;
            continue;
        }
        const CliOption *o = find(opts, n, a);
        /* a number without its value gets the parser's "needs a value" */
        if (o == NULL || ((o->kind == CLI_STRING || o->kind == CLI_STRINGS) && v == NULL)) {
            fprintf(stderr, "rookery %s: unknown or incomplete option '%s' (see --help)\n", cmd, a);
            return -1;
        }
        if (o->given != NULL) *o->given = true;
        switch (o->kind) {
        case CLI_FLAG:
            *(bool *)o->dest = true;
            continue;
        case CLI_STRING:
            *(const char **)o->dest = v;
            break;
        case CLI_STRINGS: {
            CliStrings *s = o->dest;
            if (s->n == s->cap) {
                if (s->too_many != NULL) fprintf(stderr, "rookery %s: %s\n", cmd, s->too_many);
                else fprintf(stderr, "rookery %s: more than %d %s options\n", cmd, s->cap, a);
                return -1;
            }
            s->v[s->n++] = v;
            break;
        }
        case CLI_U64:
            if (cli_parse_u64(a, v, o->hi >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)o->hi, o->dest) != 0)
                return -1;
            break;
        case CLI_INT:
            if (cli_parse_int(a, v, (int)o->lo, (int)o->hi, o->dest) != 0) return -1;
            break;
        case CLI_DOUBLE:
            if (cli_parse_double(a, v, o->lo, o->hi, o->dest) != 0) return -1;
            break;
        }
        i++; /* the value */
    }
    return 0;
}
