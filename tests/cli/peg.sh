#!/usr/bin/env bash
# Command-line checks for `rookery peg`: --help, a 1-tile and a 2-tile
# pre-endgame solved under a movetime (a table a stage, the answer, in
# time), --all with --depth, and one-line errors on bad input.
#   peg.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"

"$bin" --help | grep -E '^ +peg ' >/dev/null || fail "rookery --help lists no peg"
"$bin" peg --help | grep -- "--movetime MS" >/dev/null || fail "rookery peg --help"
expect_error 2 "give --cgp" "$bin" peg --movetime 100
expect_error 2 "--movetime" "$bin" peg --cgp x --movetime 0
expect_error 2 "--depth" "$bin" peg --cgp x --depth 0
expect_error 2 "--table-bits" "$bin" peg --cgp x --table-bits 31
expect_error 2 "unknown or incomplete option '--frob'" "$bin" peg --frob

[ -n "$kwg" ] && [ -f "$kwg" ] || missing "SOWPODS.kwg not built; the lexicon-dependent checks did not run"
one="15/3Q7U3/3U2TAURINE2/1CHANSONS2W3/2AI6JO3/DIRL1PO3IN3/E1D2EF3V4/F1I2p1TRAIK3/O1L2T4E4/ABy1PIT2BRIG2/ME1MOZELLE5/1GRADE1O1NOH3/WE3R1V7/AT5E7/G6D7 ENOSTXY/ACEISUY 356/378 0"
two="3ALLONYm4R/8EMETINE/6HOX5V/13LI/10E2AS/5OF3I2YO/5BEFOGS2ER/UnBRAIDED1WILDS/10E4/9MI2W1/9AN2A1/7K1U3I1/5STAGNATED1/1GAZOO1I1N3E1/2TOPH1N1A5 CEJQRRU/CEIPTTU 369/406 0"

# one tile in the bag: 8 ways (the opponent's 7 and the bag's 1), stage 1 in time
# (the sanitizer build runs several times slower: its movetime is longer, the check the same)
mt=$(size 2500 10000)
start=$(date +%s%N)
out=$("$bin" peg --lexicon "$kwg" --cgp "$one" --movetime "$mt" --show 3)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt $((mt + 2000)) ] || fail "peg --movetime $mt took $ms ms"
echo "$out" | grep -E '^stage 1: [0-9]+ of [0-9]+ candidates left' >/dev/null || fail "peg stage line: $out"
echo "$out" | grep -E '^  .+ wins +[0-9.]+% +[0-9.]+-[0-9.]+-[0-9.]+ of 8 ' >/dev/null || fail "peg candidate line: $out"
echo "$out" | grep -E '^best .+  wins [0-9.]+%  mean [+-][0-9.]+  (exact|not proved) after stage [0-9]+ +\([0-9]+ candidates, [0-9]+ deals' \
  >/dev/null || fail "peg answer: $out"
# two tiles: 36 ways (9 unseen tiles, two at a time)
out=$("$bin" peg --lexicon "$kwg" --cgp "$two" --movetime 3000 --show 2)
echo "$out" | grep -E '^best ' >/dev/null || fail "peg (2 tiles) answer: $out"
if echo "$out" | grep -q '^stage 1'; then
  echo "$out" | grep -E ' of 36 ' >/dev/null || fail "peg (2 tiles): 36 ways: $out"
fi
# --depth 1 --all: one stage, every candidate left
out=$("$bin" peg --lexicon "$kwg" --cgp "$one" --depth 1 --all --show 1)
[ "$(echo "$out" | grep -c '^stage ')" -eq 1 ] || fail "peg --depth 1: one stage: $out"
echo "$out" | grep -E '^stage 1: ([0-9]+) of \1 candidates left' >/dev/null || fail "peg --all prunes nothing: $out"
# bags it does not take, a bad CGP: one-line errors
expect_error 2 "bag holds 93" "$bin" peg --lexicon "$kwg" --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
expect_error 2 "rookery:" "$bin" peg --lexicon "$kwg" --cgp "15/15/15 AEINRST/ 0/0 0"
# an empty bag (every tile on the board or the racks): the endgame's, not the pre-endgame's
empty="5BERGS5/4PA3U5/2QAID3R5/3BEE3F2S2/1P1ET2VIATIC2/MA1TAW3c2H2/ES3IS2E2A2/AT1FOLIA4V2/LI1L1EX1E6/1N1O1D2N2Y3/1GNU2C1JETE3/2ER2OHO2N3/2O3GOY6/1INDOW1U7/4DORR7 IKLMTZ/AEINRU? 0/0 0"
expect_error 2 "bag holds 0 tiles" "$bin" peg --lexicon "$kwg" --cgp "$empty" --movetime 100
# racks that do not add up (more tiles of a letter than the distribution has)
expect_error 2 "7 Z but the distribution has 1" "$bin" peg --lexicon "$kwg" --cgp "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ZZZZZZZ/ 0/0 0"
echo "peg.sh: all checks passed"
