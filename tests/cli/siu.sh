#!/usr/bin/env bash
# Command-line checks for `rookery siu`: --help, a bad --option, and a whole
# session piped through the binary (the protocol itself is tested in
# tests/unit/test_siu_engine.c): the end of input lets the search finish.
#   siu.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep -E '^ +siu ' >/dev/null || fail "rookery --help lists no siu"
"$bin" siu --help | grep -- "--option NAME=VALUE" >/dev/null || fail "rookery siu --help"
"$bin" siu --help | grep -E '^ +Player +string, default sim' >/dev/null || fail "rookery siu --help lists no Player option"
expect_error 2 "no option named 'Frob'" "$bin" siu --option Frob=1 </dev/null
expect_error 2 "expected NAME=VALUE" "$bin" siu --option Player </dev/null
expect_error 2 "GenCount: bad value '0'" "$bin" siu --option GenCount=0 </dev/null
expect_error 2 "Player: bad value 'frob'" "$bin" siu --option Player=frob </dev/null

# quit right after the handshake: nothing loads, exit 0
out=$(printf 'siu\nquit\n' | "$bin" siu)
echo "$out" | tail -n 1 | grep -x siuok >/dev/null || fail "siu handshake: $out"

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the session check did not run"
fi
dir=$(dirname "$kwg")
out=$(printf 'siu\nisready\nposition cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0\ngo gen\n' |
      "$bin" siu --option "DataPath=$dir" --option GenCount=2)
echo "$out" | grep -c '^info gen move ' | grep -x 2 >/dev/null || fail "siu gen lines: $out"
echo "$out" | tail -n 1 | grep -E '^bestmove 8[A-H]\.[A-Z]{7}$' >/dev/null || fail "siu bestmove: $out"
echo "$out" | grep -E '^info string provenance engine=rookery/[^ ]+ leaves=SOWPODS.klv2 winpct=[^ ]+ lexicon=SOWPODS$' \
  >/dev/null || fail "siu provenance: $out"
# a timed simulation through the end of input: it ends at its movetime with one bestmove
out=$(printf 'siu\nisready\nposition cgp 15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0\ngo sim movetime 300\n' |
      "$bin" siu --option "DataPath=$dir")
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "siu sim: $out"
echo "$out" | grep -E '^info sim move [^ ]+ wp [0-9.]+ wpse [0-9.]+ eq -?[0-9.]+ eqse [0-9.]+ iters [0-9]+$' >/dev/null ||
  fail "siu sim lines: $out"
echo "cli siu: ok"
