#!/usr/bin/env bash
# `rookery lexicon` from the command line: build, check, dump, errors, help.
# Usage: bash lexicon.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail

ROOKERY=${1:?usage: lexicon.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR}
SOWPODS_KWG=${2:-}
SHARED_DIR=${3:-}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rookery-lexicon-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

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
summary=$(tail -n 1 "$TMP/err")
echo "$summary" | grep '14 words read, 12 kept, 2 skipped (1 unknown letters, 1 too long)' >/dev/null ||
    fail "build summary: '$summary'"
echo "$summary" | grep -E '[0-9]+ nodes, [0-9.]+ MB, [0-9.]+ s$' >/dev/null || fail "build summary: '$summary'"
size=$(wc -c <"$TMP/small.kwg")
[ $((size % 4)) -eq 0 ] || fail "small.kwg size $size is not a multiple of 4"

# --max-len keeps the long word when allowed.
run "$ROOKERY" lexicon build "$TMP/words.txt" -o "$TMP/long.kwg" --max-len 16
expect_rc 0 "lexicon build --max-len 16"
grep '13 kept, 1 skipped (1 unknown letters, 0 too long)' >/dev/null "$TMP/err" || fail "--max-len 16: $(cat "$TMP/err")"

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
for args in "--help" "build --help" "check --help" "dump --help"; do
    # shellcheck disable=SC2086
    run "$ROOKERY" lexicon $args
    expect_rc 0 "lexicon $args"
    grep 'usage' >/dev/null "$TMP/out" || fail "lexicon $args printed no usage"
done
for args in "" "frobnicate" "build" "build $TMP/words.txt" "dump" "build $TMP/words.txt -o" \
    "build $TMP/words.txt -o $TMP/y.kwg --max-len 0" "dump $TMP/small.kwg --bogus"; do
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
    echo "SKIPPED: SOWPODS checks: SOWPODS.kwg was not built"
fi
if [ -n "$SHARED_DIR" ] && [ -f "$SHARED_DIR/reference/TWL06.kwg" ]; then
    run "$ROOKERY" lexicon check "$SHARED_DIR/reference/TWL06.kwg" QI ZA AARDVARK ZZZZ
    expect_rc 1 "TWL06 check"
    printf 'QI valid\nZA valid\nAARDVARK valid\nZZZZ invalid\n' | diff - "$TMP/out" >/dev/null ||
        fail "TWL06 check output: $(cat "$TMP/out")"
else
    echo "SKIPPED: TWL06 checks: $SHARED_DIR/reference/TWL06.kwg not found"
fi

echo "lexicon.sh: all checks passed"
