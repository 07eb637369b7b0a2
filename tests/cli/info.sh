#!/usr/bin/env bash
# rookery info: an .spv table's header, multipliers, statistics and heat map
# (numbers at the right squares), --bucket, --var, --png (a PNG signature and
# size), and bad files (exit 2, one line naming the file). The .spv files are
# written here byte by byte with printf and dd (no python needed).
#   info.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"; shared="${3:-}"
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# poke FILE OFFSET PRINTF_BYTES: overwrite bytes in place
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# le32 N: printf escapes of N as a little-endian u32
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
# f32 values as little-endian bytes
F_2_5='\x00\x00\x20\x40'   # 2.5
F_M3_5='\x00\x00\x60\xc0'  # -3.5
F_1='\x00\x00\x80\x3f'     # 1.0
F_4='\x00\x00\x80\x40'     # 4.0
F_0_75='\x00\x00\x40\x3f'  # 0.75
F_0_5='\x00\x00\x00\x3f'   # 0.5
F_NAN='\x00\x00\xc0\x7f'   # NaN

# new_spv FILE SQUARES BUCKETS OPENNESS FLAGS: header and zero tables
new_spv() {
  local tables=1; [ "$5" -eq 1 ] && tables=2
  head -c $((20 + 4 * $2 * $3 * tables + 4 * $4)) /dev/zero > "$1"
  poke "$1" 0 "SPV1$(le32 "$2")$(le32 "$3")$(le32 "$4")$(le32 "$5")"
}
# mean cell (square, bucket) and variance cell of a 225x11 table
mean_at() { echo $((20 + 4 * ($1 * 11 + $2))); }
var_at() { echo $((20 + 9900 + 4 * ($1 * 11 + $2))); }

# 15x15, 11 buckets, 5 multipliers, with variance: 19,840 bytes.
spv="$work/t.spv"
new_spv "$spv" 225 11 5 1
poke "$spv" "$(mean_at 112 1)" "$F_2_5"    # H8, bucket 1
poke "$spv" "$(mean_at 0 1)" "$F_M3_5"     # A1
poke "$spv" "$(mean_at 14 1)" "$F_1"       # O1 (row 1, column O)
poke "$spv" "$(mean_at 62 3)" "$F_4"       # C5 (row 5, column C), bucket 3
poke "$spv" "$(var_at 16 1)" "$F_2_5"      # B2 in the variance table
poke "$spv" 19820 "$F_1$F_0_75$F_0_5$F_0_5$F_0_5"
[ "$(wc -c < "$spv")" -eq 19840 ] || fail "test file has $(wc -c < "$spv") bytes"

out=$("$bin" info "$spv") || fail "info $spv exited $?"
echo "$out" | grep -E '^  num_squares +225 \(15x15\)$' >/dev/null || fail "num_squares: $out"
echo "$out" | grep -E '^  num_buckets +11$' >/dev/null || fail "num_buckets: $out"
echo "$out" | grep -E '^  num_openness +5$' >/dev/null || fail "num_openness: $out"
echo "$out" | grep -E '^  flags +0x1 \(variance table: yes\)$' >/dev/null || fail "flags: $out"
echo "$out" | grep -E '^  file size +19840 bytes$' >/dev/null || fail "file size: $out"
echo "$out" | grep -E '^openness multipliers: 1\.000 0\.750 0\.500 0\.500 0\.500$' >/dev/null || fail "multipliers: $out"
# statistics of bucket 1 (mean table first): min -3.5, max 2.5, mean 0/225
echo "$out" | grep -E '^ +1 +-3\.500 +\+2\.500 +\+0\.000$' >/dev/null || fail "bucket 1 statistics: $out"
echo "$out" | grep -E '^ +3 +\+0\.000 +\+4\.000 +\+0\.018$' >/dev/null || fail "bucket 3 statistics: $out"
echo "$out" | grep -E '^mean, bucket 1 ' >/dev/null || fail "default bucket is not 1: $out"

# map_cell OUTPUT ROW COLUMN_LETTER: the heat-map cell (rows 1.., columns A..)
map_cell() {
  local col=$(( $(printf '%d' "'$3") - 65 + 2 ))
  printf '%s\n' "$1" | awk -v r="$2" -v c="$col" '
    /^ +A +B +C/ { m = 1; next }
    m && $1 == r { print $c; exit }'
}
[ "$(map_cell "$out" 8 H)" = "+2.5" ] || fail "H8 is '$(map_cell "$out" 8 H)': $out"
[ "$(map_cell "$out" 1 A)" = "-3.5" ] || fail "A1 is '$(map_cell "$out" 1 A)'"
[ "$(map_cell "$out" 1 O)" = "+1.0" ] || fail "O1 is '$(map_cell "$out" 1 O)'"
[ "$(map_cell "$out" 8 G)" = "+0.0" ] || fail "G8 is '$(map_cell "$out" 8 G)'"
[ "$(map_cell "$out" 15 O)" = "+0.0" ] || fail "O15 is '$(map_cell "$out" 15 O)'"
[ "$(printf '%s\n' "$out" | grep -cE '^ *([0-9]+)( +[-+][0-9]+\.[0-9]){15}$')" -eq 15 ] || fail "not 15 map rows of 15: $out"
printf '%s\n' "$out" | grep -E '^ +A +B +C +D +E +F +G +H +I +J +K +L +M +N +O$' >/dev/null || fail "column labels: $out"

out3=$("$bin" info "$spv" --bucket 3)
[ "$(map_cell "$out3" 5 C)" = "+4.0" ] || fail "bucket 3 C5 is '$(map_cell "$out3" 5 C)'"
[ "$(map_cell "$out3" 8 H)" = "+0.0" ] || fail "bucket 3 H8"
outv=$("$bin" info "$spv" --var)
echo "$outv" | grep -E '^variance, bucket 1 ' >/dev/null || fail "--var heading: $outv"
[ "$(map_cell "$outv" 2 B)" = "+2.5" ] || fail "--var B2 is '$(map_cell "$outv" 2 B)'"
[ "$(map_cell "$outv" 8 H)" = "+0.0" ] || fail "--var H8"

# --png: a PNG of 15 cells of 32 pixels plus a grid line = 481 x 481
png="$work/map.png"
"$bin" info "$spv" --png "$png" | grep "picture: $png" >/dev/null || fail "--png did not report the picture"
printf '\x89PNG\r\n\x1a\n' | cmp -s -n 8 - "$png" || fail "$png does not start with the PNG signature"
printf '\x00\x00\x00\x0dIHDR\x00\x00\x01\xe1\x00\x00\x01\xe1\x08\x02' | cmp -s -n 18 - <(tail -c +9 "$png") \
  || fail "$png: IHDR is not 481x481 8-bit RGB"
[ ! -e "$png.tmp" ] || fail "$png.tmp left behind"
"$bin" info "$spv" --var --bucket 0 --png "$work/var.png" >/dev/null || fail "--var --bucket 0 --png"
printf '\x89PNG' | cmp -s -n 4 - "$work/var.png" || fail "var.png is not a PNG"
expect_error 1 "$work/no/dir/x.png" "$bin" info "$spv" --png "$work/no/dir/x.png"

# detected by the magic, whatever the name
cp "$spv" "$work/table.bin"
"$bin" info "$work/table.bin" | grep -E '^  num_squares +225' >/dev/null || fail "SPV1 magic not recognised in table.bin"

# a mean-only table without multipliers, and a one-bucket table (default bucket 0)
new_spv "$work/m.spv" 225 11 0 0
"$bin" info "$work/m.spv" | grep -E '^  flags +0x0 \(variance table: no\)$' >/dev/null || fail "mean-only flags"
"$bin" info "$work/m.spv" | grep -E '^openness multipliers: none' >/dev/null || fail "no multipliers"
"$bin" info "$work/m.spv" | grep -E '^  file size +9920 bytes$' >/dev/null || fail "mean-only size"
expect_error 2 "m.spv.*no variance table" "$bin" info "$work/m.spv" --var
new_spv "$work/one.spv" 9 1 0 0
poke "$work/one.spv" 52 "$F_0_5"   # square 8 = C3 of a 3x3 board
out1=$("$bin" info "$work/one.spv")
echo "$out1" | grep -E '^mean, bucket 0 ' >/dev/null || fail "one-bucket default: $out1"
[ "$(map_cell "$out1" 3 C)" = "+0.5" ] || fail "3x3 C3 is '$(map_cell "$out1" 3 C)': $out1"

# usage errors and bad tables: exit 2, one line naming the file
expect_error 2 "t.spv: --bucket 11 is outside 0..10" "$bin" info "$spv" --bucket 11
expect_error 2 "one.spv: --bucket 1 is outside 0..0" "$bin" info "$work/one.spv" --bucket 1
expect_error 2 "bucket" "$bin" info "$spv" --bucket -1
expect_error 2 "bucket" "$bin" info "$spv" --bucket x
new_spv "$work/ten.spv" 10 1 0 0
expect_error 2 "ten.spv: num_squares 10 is not a perfect square" "$bin" info "$work/ten.spv"
cp "$spv" "$work/magic.spv"; poke "$work/magic.spv" 0 'SPV2'
expect_error 2 "magic.spv: bad magic" "$bin" info "$work/magic.spv"
head -c 19839 "$spv" > "$work/short.spv"
expect_error 2 "short.spv: 19839 bytes, but the header .* needs 19840 bytes" "$bin" info "$work/short.spv"
cp "$spv" "$work/long.spv"; printf 'x' >> "$work/long.spv"
expect_error 2 "long.spv: 19841 bytes" "$bin" info "$work/long.spv"
cp "$spv" "$work/b17.spv"; poke "$work/b17.spv" 8 "$(le32 17)"
expect_error 2 "b17.spv: num_buckets 17" "$bin" info "$work/b17.spv"
cp "$spv" "$work/flags.spv"; poke "$work/flags.spv" 16 "$(le32 3)"
expect_error 2 "flags.spv: unknown flag bits 0x3" "$bin" info "$work/flags.spv"
cp "$spv" "$work/nan.spv"; poke "$work/nan.spv" "$(mean_at 3 4)" "$F_NAN"
expect_error 2 "nan.spv: mean value 37 is not finite" "$bin" info "$work/nan.spv"
cp "$spv" "$work/nanmult.spv"; poke "$work/nanmult.spv" 19836 "$F_NAN"
expect_error 2 "nanmult.spv: openness multiplier value 4 is not finite" "$bin" info "$work/nanmult.spv"
printf 'hello world\n' > "$work/notes.txt"
expect_error 2 "notes.txt: not a .spv, .klv2, .kwg, .wmp or .h5 file" "$bin" info "$work/notes.txt"
: > "$work/empty"
expect_error 2 "empty: not a .spv, .klv2, .kwg, .wmp or .h5 file" "$bin" info "$work/empty"
expect_error 2 "$work/none.spv" "$bin" info "$work/none.spv"
expect_error 2 "$work/none.bin" "$bin" info "$work/none.bin"
expect_error 2 "give a file" "$bin" info
expect_error 2 "unknown" "$bin" info "$spv" --frobnicate
expect_error 2 "png" "$bin" info "$spv" --png
"$bin" info --help | grep '^usage: rookery info' >/dev/null || fail "--help"
"$bin" --help | grep -E '^  info ' >/dev/null || fail "info missing from rookery --help"

# leave values and lexicon graphs, when the files are at hand
klv="$shared/reference/CSW21.klv2"
if [ -n "$shared" ] && [ -f "$klv" ]; then
  "$bin" info "$klv" | grep -E '^  leaves +914624$' >/dev/null || fail "info $klv leaves"
  expect_error 2 "only" "$bin" info "$klv" --bucket 2
  head -c 1000 "$klv" > "$work/short.klv2"
  expect_error 2 "short.klv2" "$bin" info "$work/short.klv2"
else
  missing_part "$klv not found; .klv2 info not checked"
fi
if [ -n "$kwg" ] && [ -f "$kwg" ]; then
  out=$("$bin" info "$kwg")
  echo "$out" | grep -E '^  gaddag +yes$' >/dev/null || fail "info $kwg gaddag: $out"
  echo "$out" | grep -E '^  words +[1-9][0-9]+$' >/dev/null || fail "info $kwg words: $out"
else
  missing_part "SOWPODS.kwg not built; .kwg info not checked"
fi
# word maps (.wmp): a small lexicon's, counted by hand
printf '%s\n' AA QI XI ZA CAR ARC CARE RACE ACRE BARE BEAR CARES RACES SCARE CARED BARED QUARTZ > "$work/w.txt"
"$bin" lexicon build "$work/w.txt" -o "$work/w.kwg" 2>/dev/null || fail "lexicon build of the word map's list"
printf '%s\n' AA QI > "$work/v.txt"
"$bin" lexicon build "$work/v.txt" -o "$work/v.kwg" --no-wordmap 2>/dev/null || fail "lexicon build of another list"
wmp="$work/w.wmp"
out=$("$bin" info "$wmp") || fail "info $wmp exited $?"
echo "$out" | grep -E "^$wmp: word map \(\.wmp\), version 2$" >/dev/null || fail "wmp title: $out"
echo "$out" | grep -E "^  file size +$(wc -c < "$wmp") bytes" >/dev/null || fail "wmp file size: $out"
echo "$out" | grep -E "^  lexicon +$(($(wc -c < "$work/w.kwg") / 4)) nodes, hash 0x[0-9a-f]{16}$" >/dev/null || fail "wmp lexicon: $out"
echo "$out" | grep -E '^  alphabet +26 letters and the blank$' >/dev/null || fail "wmp alphabet: $out"
echo "$out" | grep -E '^  longest word +6$' >/dev/null || fail "wmp longest word: $out"
# length, words, classes, blank1 keys, blank2 keys (then the slots of the three tables)
echo "$out" | grep -E '^ +2 +4 +4 +5 +1 +[0-9]+ +[0-9]+ +[0-9]+$' >/dev/null || fail "wmp length 2: $out"   # AA QI XI ZA; A Q I X Z; the empty key
echo "$out" | grep -E '^ +3 +2 +1 +3 +3 ' >/dev/null || fail "wmp length 3: $out"   # CAR ARC: AC AR CR; A C R
echo "$out" | grep -E '^ +4 +5 +2 ' >/dev/null || fail "wmp length 4: $out"         # ACER x3, ABER x2
echo "$out" | grep -E '^ +5 +5 +3 ' >/dev/null || fail "wmp length 5: $out"         # ACERS x3, ACDER, ABDER
echo "$out" | grep -E '^ +6 +1 +1 +6 +15 ' >/dev/null || fail "wmp length 6: $out"  # QUARTZ: 6 and 15 subsets
[ "$(echo "$out" | grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$')" -eq 5 ] || fail "wmp rows: $out"
echo "$out" | grep -E '^  total +17 words in 11 classes; ' >/dev/null || fail "wmp total: $out"
echo "$out" | grep 'lexicon check' >/dev/null && fail "lexicon check without --lexicon: $out"
out=$("$bin" info "$wmp" --lexicon "$work/w.kwg") || fail "info --lexicon of its own lexicon exited $?"
echo "$out" | grep -E "^  lexicon check matches $work/w.kwg$" >/dev/null || fail "wmp --lexicon: $out"
set +e
out=$("$bin" info "$wmp" --lexicon "$work/v.kwg"); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "info --lexicon of another lexicon exited $rc, expected 1"
echo "$out" | grep -E "^  lexicon check does not match $work/v.kwg .*built from another lexicon$" >/dev/null || fail "wmp --lexicon other: $out"
# told by its magic whatever the name
cp "$wmp" "$work/map.bin"
"$bin" info "$work/map.bin" | grep -E '^  longest word +6$' >/dev/null || fail "RKWM magic not recognised in map.bin"
# bad maps and options: exit 2, one line naming the file
head -c 3000 "$wmp" > "$work/cut.wmp"
expect_error 2 "cut.wmp: the header says $(wc -c < "$wmp") bytes but the file has 3000" "$bin" info "$work/cut.wmp"
cp "$wmp" "$work/flip.wmp"; printf 'X' | dd of="$work/flip.wmp" bs=1 seek=5000 conv=notrunc status=none
expect_error 2 "flip.wmp: the word map's checksum does not match" "$bin" info "$work/flip.wmp"
cp "$wmp" "$work/magic.wmp"; printf 'RKWX' | dd of="$work/magic.wmp" bs=1 conv=notrunc status=none
expect_error 2 "magic.wmp: bad magic" "$bin" info "$work/magic.wmp"
: > "$work/empty.wmp"
expect_error 2 "empty.wmp" "$bin" info "$work/empty.wmp"
expect_error 2 "none.wmp" "$bin" info "$work/none.wmp"
expect_error 2 "missing.kwg" "$bin" info "$wmp" --lexicon "$work/missing.kwg"
expect_error 2 "only" "$bin" info "$wmp" --bucket 1
expect_error 2 "only" "$bin" info "$wmp" --png "$work/x.png"
expect_error 2 "t.spv: --lexicon applies to .wmp files only" "$bin" info "$spv" --lexicon "$work/w.kwg"
expect_error 2 "lexicon" "$bin" info "$wmp" --lexicon
# a FIFO and a directory: refused at once, for any extension (a read would wait for a writer)
mkfifo "$work/fifo.wmp" "$work/fifo.spv"
expect_error 2 "fifo.wmp: not a regular file" timeout 20 "$bin" info "$work/fifo.wmp"
expect_error 2 "fifo.spv: not a regular file" timeout 20 "$bin" info "$work/fifo.spv"
mkdir "$work/dir.wmp"
expect_error 2 "dir.wmp: not a regular file" "$bin" info "$work/dir.wmp"
# the built SOWPODS map, when there
if [ -n "$kwg" ] && [ -f "${kwg%.kwg}.wmp" ]; then
  out=$("$bin" info "${kwg%.kwg}.wmp" --lexicon "$kwg") || fail "info of SOWPODS.wmp exited $?"
  echo "$out" | grep -E '^  total +267751 words in ' >/dev/null || fail "SOWPODS.wmp words: $out"
  echo "$out" | grep -E '^  longest word +15$' >/dev/null || fail "SOWPODS.wmp longest word: $out"
  echo "$out" | grep -E '^  lexicon check matches ' >/dev/null || fail "SOWPODS.wmp lexicon check: $out"
else
  missing_part "SOWPODS.wmp not built; its info not checked"
fi
echo "info.sh: all checks passed"
