#!/usr/bin/env bash
# A FIFO (or any file that is not regular) given as an input is refused at
# once with one line naming it, exit 2, by every loader: it used to block the
# open forever (issue 35). Each command gets 10 s; a hang is a failure.
#   fifo_inputs.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ext in kwg klv2 spv req h5 wmp csv txt; do mkfifo "$work/in.$ext"; done

# expect_refused NAME CMD...: exit 2, one line naming the FIFO, within 10 s
expect_refused() {
  local name="$1"; shift
  set +e
  out=$(timeout 10 "$@" 2>&1 </dev/null)
  rc=$?
  set -e
  [ "$rc" -ne 124 ] || fail "$name: hung on a FIFO (killed after 10 s)"
  [ "$rc" -eq 2 ] || fail "$name: exit $rc on a FIFO, expected 2: $out"
  echo "$out" | grep -q "in\.[a-z0-9]*: not a regular file" || fail "$name: no 'not a regular file' line: $out"
}

for ext in kwg klv2 spv req h5 wmp; do expect_refused "info .$ext" "$bin" info "$work/in.$ext"; done
empty="15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
pos="$empty AEINRST/ 0/0 0 lex SOWPODS;"
expect_refused "movegen --lexicon" "$bin" movegen --lexicon "$work/in.kwg" --cgp "$pos"
expect_refused "movegen --ld" "$bin" movegen --ld "$work/in.csv" --cgp "$pos"
expect_refused "movegen --layout" "$bin" movegen --layout "$work/in.txt" --cgp "$pos"
if [ -n "$kwg" ] && [ -f "$kwg" ]; then
  expect_refused "movegen --leaves" "$bin" movegen --lexicon "$kwg" --leaves "$work/in.klv2" --cgp "$pos"
  expect_refused "sim --req" "$bin" sim --lexicon "$kwg" --req "$work/in.req" --cgp "$pos"
  expect_refused "match leaves=" "$bin" match --lexicon "$kwg" --a "static:leaves=$work/in.klv2" --b static --pairs 1
  expect_refused "match spv=" "$bin" match --lexicon "$kwg" --a "static:spv=$work/in.spv" --b static --pairs 1
  expect_refused "match model=" "$bin" match --lexicon "$kwg" --a "nn:greedy,model=$work/in.h5" --b static --pairs 1
  expect_refused "train --config" "$bin" train --config "$work/in.txt" --run "$work/run" --check
fi
echo "fifo_inputs: every loader refused a FIFO at once"
