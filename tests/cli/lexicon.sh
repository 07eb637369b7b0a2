#!/usr/bin/env bash
# `rookery lexicon` from the command line: build, wordmap, check, dump, errors,
# help; and how commands that load a lexicon treat the word map beside it.
# Usage: bash lexicon.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail

ROOKERY=${1:?usage: lexicon.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR}
SOWPODS_KWG=${2:-}
SHARED_DIR=${3:-}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rookery-lexicon-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

source "$(dirname "$0")/lib.sh" # fail, missing_part

# Runs a command, capturing stdout, stderr and the exit code without tripping set -e.
run() {
    set +e
    "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
}

expect_rc() { # expected, description
    if [ "$RC" -ne "$1" ]; then
        echo "--- stdout:" >&2; cat "$TMP/out" >&2
        echo "--- stderr:" >&2; cat "$TMP/err" >&2
        fail "$2: exit code $RC, expected $1"
    fi
}

expect_one_line_error() { # description
    local lines
    lines=$(wc -l <"$TMP/err")
    [ "$lines" -eq 1 ] || { cat "$TMP/err" >&2; fail "$1: expected a one-line error, got $lines lines"; }
    grep '^rookery' >/dev/null "$TMP/err" || { cat "$TMP/err" >&2; fail "$1: error does not start with 'rookery'"; }
}

# ---- a small word list: mixed case, CR line ends, blanks, duplicates, junk ----
printf 'care\r\nCARED\n  cares  \n\nBARE\nbared\nCAR\nZA\nQI\nQUARTZ\nCARE\nAB1C\nXI\nAA\nABCDEFGHIJKLMNOP\n' >"$TMP/words.txt"
# The kept words, sorted and unique.
printf '%s\n' AA BARE BARED CAR CARE CARED CARES QI QUARTZ XI ZA >"$TMP/expected.txt"

run "$ROOKERY" lexicon build "$TMP/words.txt" -o "$TMP/small.kwg"
expect_rc 0 "lexicon build"
[ -s "$TMP/small.kwg" ] || fail "lexicon build wrote no $TMP/small.kwg"
[ ! -e "$TMP/small.kwg.tmp" ] || fail "lexicon build left small.kwg.tmp behind"
# stderr: two skipped-word notes, the graph's summary, then the word map's
[ "$(wc -l <"$TMP/err")" -eq 4 ] || fail "build stderr: $(cat "$TMP/err")"
tail -n 1 "$TMP/err" | grep -E "^$TMP/small.wmp: word map of 11 words \(lengths 2\.\.6\), [0-9.]+ MB, built in [0-9.]+ s on 2 threads$" \
    >/dev/null || fail "word map summary: $(tail -n 1 "$TMP/err")"
[ -s "$TMP/small.wmp" ] || fail "lexicon build wrote no $TMP/small.wmp beside small.kwg"
[ ! -e "$TMP/small.wmp.tmp" ] || fail "lexicon build left small.wmp.tmp behind"
[ "$(head -c 4 "$TMP/small.wmp")" = RKWM ] || fail "small.wmp does not start with RKWM"
summary=$(grep ' words read, ' "$TMP/err")
echo "$summary" | grep '14 words read, 12 kept, 2 skipped (1 unknown letters, 1 too long)' >/dev/null ||
    fail "build summary: '$summary'"
echo "$summary" | grep -E '[0-9]+ nodes, [0-9.]+ MB, [0-9.]+ s$' >/dev/null || fail "build summary: '$summary'"
size=$(wc -c <"$TMP/small.kwg")
[ $((size % 4)) -eq 0 ] || fail "small.kwg size $size is not a multiple of 4"

# --max-len keeps the long word when allowed.
run "$ROOKERY" lexicon build "$TMP/words.txt" -o "$TMP/long.kwg" --max-len 16
expect_rc 0 "lexicon build --max-len 16"
grep '13 kept, 1 skipped (1 unknown letters, 0 too long)' >/dev/null "$TMP/err" || fail "--max-len 16: $(cat "$TMP/err")"

# ---- the word map ----
# --no-wordmap: the graph only (the same bytes)
run "$ROOKERY" lexicon build "$TMP/words.txt" -o "$TMP/bare.kwg" --no-wordmap
expect_rc 0 "lexicon build --no-wordmap"
[ -s "$TMP/bare.kwg" ] || fail "--no-wordmap wrote no bare.kwg"
[ ! -e "$TMP/bare.wmp" ] || fail "--no-wordmap wrote bare.wmp"
cmp -s "$TMP/small.kwg" "$TMP/bare.kwg" || fail "--no-wordmap changed the graph"
grep 'word map' "$TMP/err" >/dev/null && fail "--no-wordmap reported a word map: $(cat "$TMP/err")"
# lexicon wordmap writes NAME.wmp beside NAME.kwg: the same bytes as build's
run "$ROOKERY" lexicon wordmap "$TMP/bare.kwg"
expect_rc 0 "lexicon wordmap"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "lexicon wordmap stderr: $(cat "$TMP/err")"
grep "^$TMP/bare.wmp: word map of 11 words (lengths 2..6)" "$TMP/err" >/dev/null || fail "wordmap summary: $(cat "$TMP/err")"
cmp -s "$TMP/small.wmp" "$TMP/bare.wmp" || fail "lexicon wordmap and lexicon build wrote different maps"
# -o, --threads 1: the same bytes again
run "$ROOKERY" lexicon wordmap "$TMP/bare.kwg" -o "$TMP/one.wmp" --threads 1
expect_rc 0 "lexicon wordmap -o --threads 1"
grep 'on 1 thread$' "$TMP/err" >/dev/null || fail "--threads 1 summary: $(cat "$TMP/err")"
cmp -s "$TMP/small.wmp" "$TMP/one.wmp" || fail "1 and 2 threads wrote different maps"
rm -f "$TMP/bare.wmp"
# a name without .kwg gets .wmp appended
cp "$TMP/small.kwg" "$TMP/plain"
run "$ROOKERY" lexicon wordmap "$TMP/plain"
expect_rc 0 "lexicon wordmap of a name without .kwg"
[ -s "$TMP/plain.wmp" ] || fail "lexicon wordmap plain wrote no plain.wmp"

# Commands that load a lexicon map NAME.wmp from beside it: the same moves
# as the graph alone (ROOKERY_WORDMAP=off) and as a lexicon without a map.
empty="15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
cgp="$empty ACERSUZ/ 0/0 0"
run "$ROOKERY" movegen --lexicon "$TMP/small.kwg" --top 5 --cgp "$cgp"
expect_rc 0 "movegen with the word map"
[ ! -s "$TMP/err" ] || fail "movegen with the word map wrote to stderr: $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/with_map.txt"
grep -E '^   1\. ' "$TMP/with_map.txt" >/dev/null || fail "movegen found no move: $(cat "$TMP/with_map.txt")"
ROOKERY_WORDMAP=off run "$ROOKERY" movegen --lexicon "$TMP/small.kwg" --top 5 --cgp "$cgp"
expect_rc 0 "movegen with ROOKERY_WORDMAP=off"
diff "$TMP/with_map.txt" "$TMP/out" >/dev/null || fail "ROOKERY_WORDMAP=off gave other moves: $(cat "$TMP/out")"
ROOKERY_WORDMAP=on run "$ROOKERY" movegen --lexicon "$TMP/small.kwg" --top 5 --cgp "$cgp"
expect_rc 0 "movegen with ROOKERY_WORDMAP=on"
diff "$TMP/with_map.txt" "$TMP/out" >/dev/null || fail "ROOKERY_WORDMAP=on gave other moves"
run "$ROOKERY" movegen --lexicon "$TMP/bare.kwg" --top 5 --cgp "$cgp"
expect_rc 0 "movegen of a lexicon without a word map"
[ ! -s "$TMP/err" ] || fail "a lexicon without a map is not silent: $(cat "$TMP/err")"
diff "$TMP/with_map.txt" "$TMP/out" >/dev/null || fail "the lexicon without a map gave other moves"
ROOKERY_WORDMAP=maybe run "$ROOKERY" movegen --lexicon "$TMP/small.kwg" --cgp "$cgp"
expect_rc 2 "ROOKERY_WORDMAP=maybe"
expect_one_line_error "ROOKERY_WORDMAP=maybe"
grep "ROOKERY_WORDMAP: bad value 'maybe'" "$TMP/err" >/dev/null || fail "bad ROOKERY_WORDMAP: $(cat "$TMP/err")"

# A map of another lexicon beside it (long.kwg kept the 16-letter word):
# refused, naming the .wmp; ROOKERY_WORDMAP=off still loads the graph.
cp "$TMP/small.kwg" "$TMP/mixed.kwg"
cp "$TMP/long.wmp" "$TMP/mixed.wmp"
run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp"
expect_rc 2 "movegen with another lexicon's map"
expect_one_line_error "movegen with another lexicon's map"
grep "mixed.wmp: built from another lexicon" "$TMP/err" >/dev/null || fail "another lexicon's map: $(cat "$TMP/err")"
ROOKERY_WORDMAP=off run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --top 5 --cgp "$cgp"
expect_rc 0 "ROOKERY_WORDMAP=off beside another lexicon's map"
diff "$TMP/with_map.txt" "$TMP/out" >/dev/null || fail "ROOKERY_WORDMAP=off beside a bad map gave other moves"
# ROOKERY_LEXICON finds the map beside the lexicon too
ROOKERY_LEXICON="$TMP/mixed.kwg" run "$ROOKERY" movegen --cgp "$cgp"
expect_rc 2 "ROOKERY_LEXICON with another lexicon's map"
grep "mixed.wmp" "$TMP/err" >/dev/null || fail "ROOKERY_LEXICON: the bad map not named: $(cat "$TMP/err")"
# truncated, damaged, a directory, a FIFO where the map should be
size=$(wc -c <"$TMP/small.wmp")
head -c $((size - 64)) "$TMP/small.wmp" >"$TMP/mixed.wmp"
run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp"
expect_rc 2 "movegen with a truncated map"
expect_one_line_error "movegen with a truncated map"
grep "mixed.wmp: the header says $size bytes but the file has $((size - 64))" "$TMP/err" >/dev/null ||
    fail "truncated map: $(cat "$TMP/err")"
head -c 100 "$TMP/small.wmp" >"$TMP/mixed.wmp"
run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp"
expect_rc 2 "movegen with a 100-byte map"
grep "mixed.wmp: 100 bytes, too short" "$TMP/err" >/dev/null || fail "100-byte map: $(cat "$TMP/err")"
cp "$TMP/small.wmp" "$TMP/mixed.wmp"
printf 'X' | dd of="$TMP/mixed.wmp" bs=1 seek=$((size - 1)) conv=notrunc status=none
run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp"
expect_rc 2 "movegen with a damaged map"
expect_one_line_error "movegen with a damaged map"
grep "mixed.wmp: the word map's checksum does not match" "$TMP/err" >/dev/null || fail "damaged map: $(cat "$TMP/err")"
rm -f "$TMP/mixed.wmp"
mkdir "$TMP/mixed.wmp"
run "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp"
expect_rc 2 "movegen with a directory for a map"
grep "mixed.wmp: not a regular file" "$TMP/err" >/dev/null || fail "directory map: $(cat "$TMP/err")"
rmdir "$TMP/mixed.wmp"
mkfifo "$TMP/mixed.wmp"
set +e
timeout 20 "$ROOKERY" movegen --lexicon "$TMP/mixed.kwg" --cgp "$cgp" >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 2 "movegen with a FIFO for a map (124: it hung)"
grep "mixed.wmp: not a regular file" "$TMP/err" >/dev/null || fail "FIFO map: $(cat "$TMP/err")"
rm -f "$TMP/mixed.wmp"

# ---- check ----
run "$ROOKERY" lexicon check "$TMP/small.kwg" CARE QUARTZ za
expect_rc 0 "check of valid words"
printf 'CARE valid\nQUARTZ valid\nza valid\n' | diff - "$TMP/out" >/dev/null || fail "check output: $(cat "$TMP/out")"

run "$ROOKERY" lexicon check "$TMP/small.kwg" CARE CA CARER AB1C
expect_rc 1 "check with invalid words"
printf 'CARE valid\nCA invalid\nCARER invalid\nAB1C invalid\n' | diff - "$TMP/out" >/dev/null ||
    fail "check output: $(cat "$TMP/out")"

run "$ROOKERY" lexicon check "$TMP/small.kwg"
expect_rc 2 "check without words"
expect_one_line_error "check without words"

# ---- dump: the sorted unique kept words ----
run "$ROOKERY" lexicon dump "$TMP/small.kwg"
expect_rc 0 "dump"
diff "$TMP/expected.txt" "$TMP/out" >/dev/null || {
    diff "$TMP/expected.txt" "$TMP/out" >&2 || true
    fail "dump differs from the sorted unique input"
}

# ---- an empty word list gives the 8-byte empty graph ----
: >"$TMP/none.txt"
run "$ROOKERY" lexicon build "$TMP/none.txt" -o "$TMP/none.kwg"
expect_rc 0 "build of an empty list"
[ "$(od -An -tx1 "$TMP/none.kwg" | tr -d ' \n')" = "0000400000004000" ] || fail "empty graph bytes"
run "$ROOKERY" lexicon dump "$TMP/none.kwg"
expect_rc 0 "dump of the empty graph"
[ ! -s "$TMP/out" ] || fail "dump of the empty graph printed words"

# ---- corrupt and missing files: exit 2, one line ----
printf '1234567' >"$TMP/bad.kwg"
for sub in check dump; do
    if [ "$sub" = check ]; then run "$ROOKERY" lexicon check "$TMP/bad.kwg" CARE; else run "$ROOKERY" lexicon dump "$TMP/bad.kwg"; fi
    expect_rc 2 "$sub of a 7-byte kwg"
    expect_one_line_error "$sub of a 7-byte kwg"
    grep "bad.kwg: size 7 is not a multiple of 4" >/dev/null "$TMP/err" || fail "$sub of a 7-byte kwg: $(cat "$TMP/err")"
done
run "$ROOKERY" lexicon dump "$TMP/missing.kwg"
expect_rc 2 "dump of a missing file"
expect_one_line_error "dump of a missing file"
grep "missing.kwg" >/dev/null "$TMP/err" || fail "missing file not named: $(cat "$TMP/err")"
run "$ROOKERY" lexicon build "$TMP/missing.txt" -o "$TMP/x.kwg"
expect_rc 2 "build from a missing list"
expect_one_line_error "build from a missing list"
# An arc beyond the array: nodes 0 and 1 with is_end, node 2 pointing to 99.
printf '\x02\x00\x40\x00\x00\x00\x40\x00\x63\x00\xc0\x01' >"$TMP/arc.kwg"
run "$ROOKERY" lexicon check "$TMP/arc.kwg" A
expect_rc 2 "check of a kwg with a bad arc"
expect_one_line_error "check of a kwg with a bad arc"

# ---- usage ----
for args in "--help" "build --help" "wordmap --help" "check --help" "dump --help"; do
    # shellcheck disable=SC2086
    run "$ROOKERY" lexicon $args
    expect_rc 0 "lexicon $args"
    grep 'usage' >/dev/null "$TMP/out" || fail "lexicon $args printed no usage"
done
for args in "" "frobnicate" "build" "build $TMP/words.txt" "dump" "build $TMP/words.txt -o" \
    "build $TMP/words.txt -o $TMP/y.kwg --max-len 0" "dump $TMP/small.kwg --bogus" \
    "wordmap" "wordmap $TMP/small.kwg --bogus" "wordmap $TMP/small.kwg $TMP/bare.kwg" \
    "wordmap $TMP/small.kwg --threads 0" "wordmap $TMP/small.kwg --threads 9" "wordmap $TMP/small.kwg --threads" \
    "wordmap $TMP/small.kwg -o" "wordmap $TMP/missing.kwg" "wordmap $TMP/bad.kwg" "build $TMP/words.txt -o $TMP/z.kwg --no-wordmaps"; do
    # shellcheck disable=SC2086
    run "$ROOKERY" lexicon $args
    expect_rc 2 "lexicon $args"
    expect_one_line_error "lexicon $args"
done

# ---- the real lexicon and MAGPIE's TWL06, when present ----
if [ -n "$SOWPODS_KWG" ] && [ -f "$SOWPODS_KWG" ]; then
    run "$ROOKERY" lexicon check "$SOWPODS_KWG" QI ZA AARDVARK OXYPHENBUTAZONE
    expect_rc 0 "SOWPODS check"
    run "$ROOKERY" lexicon dump "$SOWPODS_KWG"
    expect_rc 0 "SOWPODS dump"
    [ "$(wc -l <"$TMP/out")" -eq 267751 ] || fail "SOWPODS dump: $(wc -l <"$TMP/out") words, expected 267751"
else
    missing_part "SOWPODS checks: SOWPODS.kwg was not built"
fi
if [ -n "$SHARED_DIR" ] && [ -f "$SHARED_DIR/reference/TWL06.kwg" ]; then
    run "$ROOKERY" lexicon check "$SHARED_DIR/reference/TWL06.kwg" QI ZA AARDVARK ZZZZ
    expect_rc 1 "TWL06 check"
    printf 'QI valid\nZA valid\nAARDVARK valid\nZZZZ invalid\n' | diff - "$TMP/out" >/dev/null ||
        fail "TWL06 check output: $(cat "$TMP/out")"
else
    missing_part "TWL06 checks: $SHARED_DIR/reference/TWL06.kwg not found"
fi

echo "lexicon.sh: all checks passed"
