#!/usr/bin/env bash
# Command-line checks for movegen, selfplay, sim and bench: output format, exit
# codes and one-line errors on bad input.
#   engine.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"; shared="${3:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep movegen >/dev/null || fail "rookery --help lists no movegen"
for c in movegen selfplay bench lexicon sim leaves; do
  "$bin" "$c" --help >/dev/null || fail "rookery $c --help failed"
done
expect_error 2 "unknown command" "$bin" frobnicate

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the lexicon-dependent checks did not run"
fi
empty="15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"

# JSON output of the example position
out=$("$bin" movegen --lexicon "$kwg" --json --top 3 --cgp "$empty AQRTUYZ/ 0/0 0 lex SOWPODS;")
echo "$out" | grep '^{"placements": 123, "exchanges": 127, "passes": 1, "top": \[{"move": "8D QUARTZY", "score": 126}' >/dev/null \
  || fail "movegen --json output: $out"
echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["top"])==3 and d["top"][0]["score"]>=d["top"][1]["score"]>=d["top"][2]["score"]' \
  || fail "movegen --json is not valid JSON sorted by score: $out"

# the lexicon is found beside the executable when not given
ROOKERY_LEXICON="$kwg" "$bin" movegen --cgp "$empty AQRTUYZ/ 0/0 0" >/dev/null || fail "ROOKERY_LEXICON not honoured"

# bad input: one line, exit 2
expect_error 2 "rows" "$bin" movegen --lexicon "$kwg" --cgp "15/15/15 AQRTUYZ/ 0/0 0"
expect_error 2 "row 1" "$bin" movegen --lexicon "$kwg" --cgp "16/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A/ 0/0 0"
expect_error 2 "#" "$bin" movegen --lexicon "$kwg" --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/14# A/ 0/0 0"
expect_error 2 "Q" "$bin" movegen --lexicon "$kwg" --cgp "$empty QQ/ 0/0 0"
expect_error 2 "blank" "$bin" movegen --lexicon "$kwg" --cgp "a14/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ??/ 0/0 0"
expect_error 2 "score" "$bin" movegen --lexicon "$kwg" --cgp "$empty A/ 1/x 0"
expect_error 2 "cgp" "$bin" movegen --lexicon "$kwg"
expect_error 2 "/nonexistent.kwg" "$bin" movegen --lexicon /nonexistent.kwg --cgp "$empty A/ 0/0 0"
expect_error 2 "top" "$bin" movegen --lexicon "$kwg" --top x --cgp "$empty A/ 0/0 0"
expect_error 2 "games" "$bin" selfplay --lexicon "$kwg" --games -3
expect_error 2 "unknown benchmark" "$bin" bench frob --lexicon "$kwg"

# self-play: the same seed gives the same games, another seed other games
a=$("$bin" selfplay --lexicon "$kwg" --games 3 --seed 7 --show | grep -v 'games/s')
b=$("$bin" selfplay --lexicon "$kwg" --games 3 --seed 7 --show | grep -v 'games/s')
c=$("$bin" selfplay --lexicon "$kwg" --games 3 --seed 8 --show | grep -v 'games/s')
[ "$a" = "$b" ] || fail "selfplay with the same seed differs"
[ "$a" != "$c" ] || fail "selfplay with different seeds gives the same games"
"$bin" selfplay --lexicon "$kwg" --games 2 --seed 1 | grep "games 2 " >/dev/null || fail "selfplay summary"

# the win model study: the fit, the table and the held-out score; one study at a time
out=$("$bin" selfplay --lexicon "$kwg" --games 12 --seed 3 --winprob-study)
for want in "fitted on" "mean(t) = " "held-out Brier score" "as an option: win_model="; do
  printf '%s\n' "$out" | grep -F -- "$want" >/dev/null || fail "winprob study: no '$want' in: $out"
done
wm=$(printf '%s\n' "$out" | sed -n 's/.*as an option: win_model=//p')
# (`match` initialises MPI, whose start-up allocations are never freed: no leak check here, as
# for the cli_train and cli_nn tests)
ASAN_OPTIONS=detect_leaks=0 "$bin" match --lexicon "$kwg" --a "sim:iterations=2,candidates=3,win_bonus=30,win_model=$wm" \
  --b static --pairs 1 | grep "win" >/dev/null || fail "the study's win_model= is not a valid option: $wm"
expect_exit 1 "too few" "$bin" selfplay --lexicon "$kwg" --games 1 --winprob-study

# bench runs and prints throughput
"$bin" bench movegen --lexicon "$kwg" --positions 50 --seconds 0 | grep "moves/s" >/dev/null || fail "bench movegen"
"$bin" bench selfplay --lexicon "$kwg" --games 2 | grep "games/s" >/dev/null || fail "bench selfplay"
"$bin" bench sim --lexicon "$kwg" --positions 2 --iterations 3 --candidates 3 | grep "iterations/s" >/dev/null \
  || fail "bench sim"

# rookery sim: a table, the same for the same seed, another for another seed
pos="$empty AEINRST/ 0/0 0"
s1=$("$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 4 --iterations 12 --seed 5 | tail -n +2)
s2=$("$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 4 --iterations 12 --seed 5 | tail -n +2)
s3=$("$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 4 --iterations 12 --seed 6 | tail -n +2)
s4=$("$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 4 --iterations 12 --seed 5 --threads 2 | tail -n +2)
[ "$s1" = "$s2" ] || fail "sim is not deterministic for a seed: $s1 / $s2"
[ "$s1" = "$s4" ] || fail "sim on 2 threads gives another table: $s1 / $s4"
[ "$s1" != "$s3" ] || fail "sim gives the same table for another seed"
[ "$(echo "$s1" | grep -c ' best$')" -eq 1 ] || fail "sim marks one best move: $s1"
[ "$(echo "$s1" | wc -l)" -eq 5 ] || fail "sim prints a header and 4 candidates: $s1"
expect_error 2 "--cgp is required" "$bin" sim --lexicon "$kwg"
expect_error 2 "--plies" "$bin" sim --lexicon "$kwg" --cgp "$pos" --plies x
expect_error 2 "at least 1" "$bin" sim --lexicon "$kwg" --cgp "$pos" --iterations 0
expect_error 2 "--stop-z: bad value 'x'" "$bin" sim --lexicon "$kwg" --cgp "$pos" --stop-z x
expect_error 2 "--seconds: bad value '-1'" "$bin" sim --lexicon "$kwg" --cgp "$pos" --seconds -1
expect_error 2 "--alloc best, expected toptwo or uniform" "$bin" sim --lexicon "$kwg" --cgp "$pos" --alloc best
expect_error 2 "--threads" "$bin" sim --lexicon "$kwg" --cgp "$pos" --threads 0
expect_error 2 "--spv-k must be above 0" "$bin" bench movegen --lexicon "$kwg" --spv-k 0
expect_error 2 "--spv-k: bad value 'nan'" "$bin" bench movegen --lexicon "$kwg" --spv-k nan
expect_error 2 "not both" "$bin" sim --lexicon "$kwg" --cgp "$pos" --leaves a.klv2 --req b.req
expect_error 2 "nope.klv2" "$bin" sim --lexicon "$kwg" --cgp "$pos" --leaves nope.klv2
# the CGP's ld opcode names a built-in distribution, never a file (it was accepted and ignored)
expect_error 2 "CGP ld '/etc/passwd': not a letter distribution" "$bin" movegen --lexicon "$kwg" \
  --cgp "$empty AQRTUYZ/ 0/0 0 lex SOWPODS; ld /etc/passwd;"
expect_error 2 "CGP ld 'klingon'" "$bin" sim --lexicon "$kwg" --cgp "$empty AQRTUYZ/ 0/0 0 lex SOWPODS; ld klingon;"
"$bin" movegen --lexicon "$kwg" --top 1 --cgp "$empty AQRTUYZ/ 0/0 0 lex SOWPODS; ld english;" > /dev/null \
  || fail "ld english was refused"
echo "engine.sh: all checks passed"
