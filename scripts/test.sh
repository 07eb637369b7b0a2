#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is
# missing, fetches the lexicon, builds the Release and the sanitizer (ASan +
# UBSan) builds and runs every ctest suite in both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
start=$SECONDS
# Every skipped test or part appends a line here (tests/unit/testutil.h, tests/cli/lib.sh);
# with CI set a missing input is a failure instead (.ci/run sets it).
export ROOKERY_SKIP_LOG="$PWD/build/skips.log"
mkdir -p build
: > "$ROOKERY_SKIP_LOG"
for kind in release sanitize; do
  dir=$(bash scripts/build.sh "$kind" | tail -n 1)
  echo "== ctest ($kind) =="
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
done
skips=$(wc -l < "$ROOKERY_SKIP_LOG")
if [ "$skips" -gt 0 ]; then
  echo "test.sh: $skips skip(s), listed in $ROOKERY_SKIP_LOG:"
  sort "$ROOKERY_SKIP_LOG" | uniq -c
else
  echo "test.sh: no test skipped anything"
fi
echo "test.sh: all suites passed in $((SECONDS - start)) s"
