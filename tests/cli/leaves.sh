#!/usr/bin/env bash
# Command-line checks for --leaves (.klv2 leave values): movegen ranks by
# static equity and prints it, selfplay and bench accept the option, and a
# bad .klv2 gives exit 2 with a one-line error naming the file.
#   leaves.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"; shared="${3:-}"
source "$(dirname "$0")/lib.sh"

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the --leaves checks did not run"
fi
klv="$shared/reference/CSW21.klv2"
tsv="$shared/reference/equity_sowpods.tsv"
if [ -z "$shared" ] || [ ! -f "$klv" ] || [ ! -f "$tsv" ]; then
  missing "$shared/reference (CSW21.klv2, equity_sowpods.tsv) not found; the --leaves checks did not run"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first reference position: its top move by equity, with the equity.
cgp=$(awk -F'\t' 'NR == 2 { print $2 }' "$tsv")
ref_move=$(awk -F'\t' 'NR == 2 { print $3 }' "$tsv")
ref_eq=$(awk -F'\t' 'NR == 2 { print $5 }' "$tsv")
[ "$ref_move" = "8C OVERDoG" ] && [ "$ref_eq" = "79.300" ] || fail "unexpected first row of $tsv: $ref_move $ref_eq"
out=$("$bin" movegen --lexicon "$kwg" --leaves "$klv" --json --cgp "$cgp")
echo "$out" | grep '"top": \[{"move": "8C OVERDoG", "score": 80, "equity": 79.300}' >/dev/null \
  || fail "movegen --leaves --json top move: $out"
echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
eq = [m["equity"] for m in d["top"]]
assert len(eq) == 10 and eq == sorted(eq, reverse=True), eq
assert all("equity" in m for m in d["top"])
' || fail "movegen --leaves --json is not valid JSON sorted by equity: $out"

# Text output carries the equity too.
"$bin" movegen --lexicon "$kwg" --leaves "$klv" --top 1 --cgp "$cgp" | grep '1\. 8C OVERDoG .* equity 79\.300' >/dev/null \
  || fail "movegen --leaves text output"

# Without --leaves the output is as before: sorted by score, no equity.
plain=$("$bin" movegen --lexicon "$kwg" --json --top 3 --cgp "$cgp")
echo "$plain" | grep equity >/dev/null && fail "movegen without --leaves prints equity: $plain"

# An exchange ranks where its equity puts it (AUUUUVV: exchanging everything).
ex=$(awk -F'\t' '$1 == "classic_empty_AUUUUVV" { print $2 }' "$tsv")
"$bin" movegen --lexicon "$kwg" --leaves "$klv" --json --top 1 --cgp "$ex" \
  | grep '"top": \[{"move": "(exch AUUUUVV)", "score": 0, "equity": 0.000}' >/dev/null || fail "exchange not ranked first"

# selfplay and bench accept --leaves, and the leaves change the games.
a=$("$bin" selfplay --lexicon "$kwg" --games 2 --seed 3 --show --leaves "$klv" | grep -v 'games/s')
b=$("$bin" selfplay --lexicon "$kwg" --games 2 --seed 3 --show --leaves "$klv" | grep -v 'games/s')
c=$("$bin" selfplay --lexicon "$kwg" --games 2 --seed 3 --show | grep -v 'games/s')
[ "$a" = "$b" ] || fail "selfplay --leaves is not deterministic"
[ "$a" != "$c" ] || fail "selfplay --leaves plays the same games as without leaves"
"$bin" bench selfplay --lexicon "$kwg" --games 2 --leaves "$klv" | grep "games/s" >/dev/null || fail "bench selfplay --leaves"
"$bin" bench movegen --lexicon "$kwg" --positions 20 --seconds 0 --leaves "$klv" | grep "moves/s" >/dev/null \
  || fail "bench movegen --leaves"

# Bad leave files: exit 2, one line naming the file.
head -c 1234 "$klv" > "$tmp/short.klv2"
expect_error 2 "short.klv2: truncated" "$bin" movegen --lexicon "$kwg" --leaves "$tmp/short.klv2" --cgp "$cgp"
head -c 3667339 "$klv" > "$tmp/short1.klv2"
expect_error 2 "short1.klv2: truncated: 3667339 bytes, expected 3667340" \
  "$bin" movegen --lexicon "$kwg" --leaves "$tmp/short1.klv2" --cgp "$cgp"
expect_error 2 "short.klv2" "$bin" selfplay --lexicon "$kwg" --games 1 --leaves "$tmp/short.klv2"
expect_error 2 "short.klv2" "$bin" bench selfplay --lexicon "$kwg" --games 1 --leaves "$tmp/short.klv2"
expect_error 2 "$tmp/none.klv2" "$bin" movegen --lexicon "$kwg" --leaves "$tmp/none.klv2" --cgp "$cgp"
expect_error 2 "leaves" "$bin" movegen --lexicon "$kwg" --cgp "$cgp" --leaves
echo "leaves.sh: all checks passed"
