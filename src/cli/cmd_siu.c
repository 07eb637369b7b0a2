/* rookery siu: rookery as an SIU engine on stdin/stdout (src/siu/siu_engine.h,
 * docs/siu.md). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cli_options.h"
#include "commands.h"
#include "siu/siu_engine.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery siu [--option NAME=VALUE]...\n"
            "\n"
            "Runs rookery as an engine of the SIU protocol (../shared/siu.md) on stdin and stdout,\n"
            "for a front end or a referee (rookery arena) to drive: siu, setoption, isready,\n"
            "position cgp ... [moves ...], siunewgame, go [gen|sim|endgame|auto] ..., stop, quit.\n"
            "Files load at the first isready, position or go. --option sets an option before the\n"
            "handshake, as setoption would (repeatable), e.g. --option Player=static.\n"
            "The options (docs/siu.md has a transcript and every reply):\n");
    siu_engine_print_options(out);
}

int cmd_siu(int argc, char **argv) {
    const char *presets[64];
    CliStrings options = {presets, 0, 64, "rookery siu: at most 64 --option"};
    const CliOption opts[] = {{"--option", CLI_STRINGS, &options, 0, 0, NULL}};
    int parsed = cli_options_parse("siu", argc, argv, opts, 1, usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    signal(SIGPIPE, SIG_IGN); /* a front end that goes away ends the session, not the process by a signal */
    return siu_engine_run(STDIN_FILENO, STDOUT_FILENO, presets, options.n);
}
