#!/usr/bin/env bash
# Command-line checks for `rookery arena`: --help, one-line errors with exit 2 on bad options
# and on an engine that does not start, and a short run between the tests' fake SIU engines
# (tests/unit/fake_siu_engine.c, built beside the unit tests) with forfeits and GCG files.
#   arena.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep -q arena || fail "rookery --help lists no arena"
"$bin" arena --help | grep -q -- "--movetime" || fail "rookery arena --help"
expect_error 2 "required" "$bin" arena --a true --b true
expect_error 2 "required" "$bin" arena --a true --pairs 2
expect_error 2 "movetime" "$bin" arena --a true --b true --pairs 1 --movetime 0
expect_error 2 "grace" "$bin" arena --a true --b true --pairs 1 --grace x
expect_error 2 "frob" "$bin" arena --a true --b true --pairs 1 --frob
expect_error 2 "lex" "$bin" arena --a true --b true --pairs 1 --lex "a b"

fake="$(dirname "$bin")/tests/fake_siu_engine"
if [ -z "$kwg" ] || [ ! -f "$kwg" ] || [ ! -x "$fake" ]; then
  missing "SOWPODS.kwg or the fake SIU engine not built; the arena runs did not run"
fi
export ROOKERY_LEXICON="$kwg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# an engine that does not start, or does not speak SIU: one line, exit 2
expect_error 2 "engine B ('exit 7')" "$bin" arena --a "$fake good" --b "exit 7" --pairs 1
expect_error 2 "siuok" "$bin" arena --a "$fake good" --b "cat" --pairs 1 --timeout 300
touch "$work/file"
expect_error 2 "not a directory" "$bin" arena --a "$fake good" --b "$fake good" --pairs 1 --gcg "$work/file"

# garbage moves: B forfeits both games of each pair, one stderr line each, and every game is recorded
"$bin" arena --a "$fake good" --b "$fake garbage" --pairs 2 --movetime 20 --grace 500 --gcg "$work/gcg" \
  > "$work/out" 2> "$work/err" || fail "arena good vs garbage exited $?: $(cat "$work/err")"
grep -q "pairs 2, games 4: A wins 4, draws 0, losses 0" "$work/out" || fail "tally: $(cat "$work/out")"
grep -q "A win% 100.00 +/- 0.00" "$work/out" || fail "win %: $(cat "$work/out")"
grep -q "B forfeits 4 (crash 0, timeout 0, malformed 4, illegal 0)" "$work/out" || fail "forfeits: $(cat "$work/out")"
grep -q "A forfeits 0 " "$work/out" || fail "A's forfeits: $(cat "$work/out")"
[ "$(grep -c "^arena: B forfeits pair .* (malformed): .*; position 15/" "$work/err")" -eq 4 ] \
  || fail "forfeit lines: $(cat "$work/err")"
[ "$(ls "$work/gcg" | wc -l)" -eq 4 ] || fail "GCG files: $(ls "$work/gcg")"
grep -q "^#description .*B forfeited at move 1 (malformed" "$work/gcg/pair-000001-game-2.gcg" || fail "GCG forfeit"

# two good engines: no forfeit, the spread over every game, the engines' stderr logged
"$bin" arena --a "$fake good" --b "$fake pass" --pairs 1 --engine-log "$work/logs" --seed 9 > "$work/out" 2> "$work/err" \
  || fail "arena good vs pass: $(cat "$work/err")"
grep -q "over 2 games without a forfeit" "$work/out" || fail "spread games: $(cat "$work/out")"
[ -f "$work/logs/A-rank-0.log" ] && [ -f "$work/logs/B-rank-0.log" ] || fail "engine logs: $(ls "$work/logs")"
[ ! -s "$work/err" ] || fail "stderr of a clean run: $(cat "$work/err")"
echo "arena: options, errors, forfeits and GCG files as expected"
