#!/usr/bin/env bash
# Command-line checks for `rookery endgame`: --help, a small study (its
# figures, the same for the same seed), one position searched (--cgp), and
# one-line errors on bad input.
#   endgame.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"; shared="${3:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep endgame >/dev/null || fail "rookery --help lists no endgame"
"$bin" endgame --help | grep -- "--player SPEC" >/dev/null || fail "rookery endgame --help"
expect_error 2 "give --cgp '<CGP>' or --player SPEC" "$bin" endgame --positions 3
expect_error 2 "give one" "$bin" endgame --player static --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/B 0/0 0"
expect_error 2 "--depth" "$bin" endgame --cgp x --depth 0
expect_error 2 "--movetime" "$bin" endgame --cgp x --movetime 0
expect_error 2 "unknown or incomplete option '--frob'" "$bin" endgame --player static --frob
expect_error 2 "--positions: bad value 'x'" "$bin" endgame --player static --positions x
expect_error 2 "--positions" "$bin" endgame --player static --positions 0
expect_error 2 "--positions" "$bin" endgame --player static --positions -5
expect_error 2 "--max-tiles" "$bin" endgame --player static --max-tiles 8
expect_error 2 "--max-nodes must be at least 1" "$bin" endgame --player static --max-nodes 0
expect_error 2 "--table-bits" "$bin" endgame --player static --table-bits 31

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the lexicon-dependent checks did not run"
fi
expect_error 2 "frob" "$bin" endgame --lexicon "$kwg" --player frob --positions 3
expect_error 2 "nope.klv2" "$bin" endgame --lexicon "$kwg" --player static:leaves=nope.klv2 --positions 3
expect_error 2 "/nonexistent.kwg" "$bin" endgame --lexicon /nonexistent.kwg --player static --positions 3

# a small study: the summary lines, with the % figure and the mean loss
out=$("$bin" endgame --lexicon "$kwg" --player static --positions 20 --seed 3)
echo "$out" | grep -E '^endgame: player static; 20 positions \(racks of at most 3 tiles, seed 3, from [0-9]+ games\), 0 unsolved$' \
  >/dev/null || fail "endgame summary: $out"
echo "$out" | grep -E '^best move [0-9]+\.[0-9]% \([0-9]+ of 20\), mean loss [0-9]+\.[0-9]{3} points, max loss [0-9]+$' \
  >/dev/null || fail "endgame figures: $out"
echo "$out" | grep -E '^solver: [0-9]+ nodes a position' >/dev/null || fail "endgame solver line: $out"

# the same seed gives the same positions and figures; --show lists them
a=$("$bin" endgame --lexicon "$kwg" --player static --positions 8 --max-tiles 2 --seed 5 --show | grep -v '^solver')
b=$("$bin" endgame --lexicon "$kwg" --player static:leaves=zero --positions 8 --max-tiles 2 --seed 5 --show \
    | grep -v '^solver' | sed 's/static:leaves=zero/static/')
[ "$a" = "$b" ] || fail "endgame differs for the same seed: $a / $b"
[ "$(echo "$a" | grep -c '^position ')" -eq 8 ] || fail "--show lists 8 positions: $a"
echo "$a" | grep -E '^position 0 \(game [0-9]+\): .* \| player .* \| best .* \| loss [0-9]+ \| [0-9]+ nodes$' >/dev/null \
  || fail "--show line: $a"

# --cgp: an empty-bag position from a static game, searched to depth 2: one
# line a depth, then the answer, not proved at depth 2
cgp=$("$bin" bench endgame --lexicon "$kwg" --positions 1 --min-tiles 3 --movetime 20 --show 2>/dev/null | head -1 | sed 's/ | .*//')
[ -n "$cgp" ] || fail "bench endgame gave no position"
# bench endgame on small racks with an exact check: the answer's loss against the exact best
out=$("$bin" bench endgame --lexicon "$kwg" --positions 3 --min-tiles 2 --max-tiles 3 --movetime 5 --check 5000 2>/dev/null)
echo "$out" | grep -E '^bench endgame: 3 positions \(racks of 2-3 tiles, .*table 2\^[0-9]+$' >/dev/null || fail "bench endgame header: $out"
echo "$out" | grep -E '^  points lost against the exact best, where the check proved it: [0-9.]+ \+/- [0-9.]+ a position \(3\)$' \
  >/dev/null || fail "bench endgame --check: no loss line: $out"
expect_error 2 "--min-tiles 4 is above --max-tiles 3" "$bin" bench endgame --lexicon "$kwg" --min-tiles 4 --max-tiles 3
out=$("$bin" endgame --lexicon "$kwg" --cgp "$cgp" --depth 2)
[ "$(echo "$out" | grep -c '^depth ')" -eq 2 ] || fail "endgame --cgp --depth 2: two depth lines: $out"
echo "$out" | grep -E '^depth  2  value +[+-][0-9]+ +[0-9]+ positions +[0-9.]+ s  pv [^ ]+' >/dev/null \
  || fail "endgame --cgp depth line: $out"
echo "$out" | grep -E '^best .* value [+-][0-9]+  (not proved at depth 2|exact at depth [12]) ' >/dev/null \
  || fail "endgame --cgp answer: $out"
# the same position to the end: exact, with the value of its last depth line
out=$("$bin" endgame --lexicon "$kwg" --cgp "$cgp" --movetime 60000)
echo "$out" | grep -E '^best .* exact at depth [0-9]+ ' >/dev/null || fail "endgame --cgp not solved in 60 s: $out"
last=$(echo "$out" | grep '^depth ' | tail -1 | awk '{print $4}')
echo "$out" | grep "^best " | grep -F "value $last " >/dev/null || fail "endgame --cgp: the answer's value is not the last depth's: $out"
# a bag that is not empty (the opening), a bad CGP: one-line errors
expect_error 2 "bag is not empty" "$bin" endgame --lexicon "$kwg" --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
expect_error 2 "rookery:" "$bin" endgame --lexicon "$kwg" --cgp "15/15/15 AEINRST/ 0/0 0"
expect_error 2 "7 Z but the distribution has 1" "$bin" endgame --lexicon "$kwg" --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ZZZZZZZ/ 0/0 0"

# a budget too small: every position unsolved, counted, not a failure
out=$("$bin" endgame --lexicon "$kwg" --player static --positions 3 --max-nodes 1)
echo "$out" | grep '3 unsolved' >/dev/null || fail "endgame --max-nodes 1: $out"
echo "endgame.sh: all checks passed"
