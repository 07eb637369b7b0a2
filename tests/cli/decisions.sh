#!/usr/bin/env bash
# Command-line checks for `rookery decisions`: --help, one-line errors on bad
# input, a small study (its table, the same figures for the same seed, --show
# lines, the leaves given to players that name none).
#   decisions.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"; shared="${3:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep decisions >/dev/null || fail "rookery --help lists no decisions"
"$bin" decisions --help | grep -- "--player SPEC" >/dev/null || fail "rookery decisions --help"
expect_error 2 "at least one --player" "$bin" decisions --positions 3
expect_error 2 "unknown or incomplete option '--frob'" "$bin" decisions --player static --frob
expect_error 2 "--positions" "$bin" decisions --player static --positions 0
expect_error 2 "--iterations" "$bin" decisions --player static --iterations 1
expect_error 2 "--plies" "$bin" decisions --player static --plies 101
expect_error 2 "--candidates" "$bin" decisions --player static --candidates 0
expect_error 2 "--win-bonus" "$bin" decisions --player static --win-bonus -1
expect_error 2 "62 reference candidates, expected 1..61 with 3 player(s)" \
  "$bin" decisions --player static --player static --player static --candidates 62
expect_error 2 "--max-bag" "$bin" decisions --player static --max-bag 0
many=(); for k in $(seq 17); do many+=(--player static); done
expect_error 2 "at most 16 players" "$bin" decisions "${many[@]}"

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the lexicon-dependent checks did not run"
fi
expect_error 2 "frob" "$bin" decisions --lexicon "$kwg" --player frob --positions 3
expect_error 2 "nope.klv2" "$bin" decisions --lexicon "$kwg" --player static --leaves nope.klv2 --positions 3
expect_error 2 "nope.klv2" "$bin" decisions --lexicon "$kwg" --player static:leaves=nope.klv2 --positions 3

# a small study: the header, one row a player, the paired column from the second player on
out=$("$bin" decisions --lexicon "$kwg" --player static --player static:leaves=zero --positions 6 --seed 3 \
      --iterations 20 --candidates 4 --plies 1 2>/dev/null)
echo "$out" | grep -E '^decisions: 6 positions \(seed 3, leaves zero\); reference: 4 best static moves and the players.* 20 worlds, 1 plies, win bonus 0$' \
  >/dev/null || fail "decisions header: $out"
echo "$out" | grep -E '^1 +[0-9.]+ +[0-9]+\.[0-9]{3} \+/- [0-9]+\.[0-9]{3} +[0-9.]+ +[0-9.]+  static$' >/dev/null \
  || fail "player 1's row: $out"
echo "$out" | grep -E '^2 +[0-9.]+ +[0-9]+\.[0-9]{3} \+/- [0-9.]+ +[0-9.]+ +[-+][0-9.]+ \+/- [0-9.]+ +[0-9.]+  static:leaves=zero$' \
  >/dev/null || fail "player 2's row: $out"
# the two players are the same (no leaves either way): no difference at all
echo "$out" | grep -E '^2 .* \+0\.000 \+/- 0\.000 ' >/dev/null || fail "identical players differ: $out"

# the same seed, the same figures (the times aside); --show lists every position
strip() { grep -E '^[12] ' | awk '{print $2, $3, $5, $6}'; }
a=$("$bin" decisions --lexicon "$kwg" --player static --positions 5 --seed 9 --iterations 10 --show 2>/dev/null)
b=$("$bin" decisions --lexicon "$kwg" --player static --positions 5 --seed 9 --iterations 10 2>/dev/null)
[ "$(echo "$a" | strip)" = "$(echo "$b" | strip)" ] || fail "decisions differ for the same seed: $a / $b"
[ "$(echo "$a" | grep -c '^position ')" -eq 5 ] || fail "--show lists 5 positions: $a"
echo "$a" | grep -E '^position 0: .* \| player 1 .* loss [0-9.]+ \(se [0-9.]+\) \| best .* of [0-9]+ candidates$' >/dev/null \
  || fail "--show line: $a"

# --max-bag 5: every position has 1 to 5 tiles in the bag (100 tiles less those on the board
# and on both racks, read off each --show line's CGP), and the header says so
out=$("$bin" decisions --lexicon "$kwg" --player static --positions 8 --seed 9 --iterations 4 --max-bag 5 --show 2>/dev/null)
echo "$out" | grep -E '^decisions: 8 positions \(seed 9, leaves zero, 1\.\.5 tiles in the bag\)' >/dev/null \
  || fail "--max-bag header: $out"
bags=$(echo "$out" | sed -n 's/^position [0-9]*: \([^ ]*\) \([^ ]*\) .*/\1\2/p' | tr -cd 'A-Za-z?\n' \
       | awk '{print 100 - length($0)}' | sort -n | uniq | tr '\n' ' ')
[ "$(echo "$out" | grep -c '^position ')" -eq 8 ] && [ -n "$bags" ] || fail "--max-bag: 8 positions: $out"
for b in $bags; do [ "$b" -ge 1 ] && [ "$b" -le 5 ] || fail "--max-bag 5 gave a position with $b in the bag: $bags"; done

# the study's leaves: a player naming none plays with them (the same moves as naming them)
if [ -n "$shared" ] && [ -f "$shared/reference/CSW21.klv2" ]; then
  L="$shared/reference/CSW21.klv2"
  out=$("$bin" decisions --lexicon "$kwg" --leaves "$L" --player static --player "static:leaves=$L" \
        --player static:leaves=zero --positions 8 --seed 4 --iterations 10 2>/dev/null)
  echo "$out" | grep -E "^2 .* \+0\.000 \+/- 0\.000 " >/dev/null || fail "lent leaves differ from named ones: $out"
  echo "$out" | grep -E "leaves .*CSW21.klv2\)" >/dev/null || fail "header names the leaves: $out"
else
  missing_part "../shared/reference/CSW21.klv2 missing; the leaves check did not run"
fi
echo "decisions.sh: all checks passed"
