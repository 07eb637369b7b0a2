#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is
# missing, fetches the lexicon, builds the Release and the sanitizer (ASan +
# UBSan) builds and runs every ctest suite in both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
start=$SECONDS
for kind in release sanitize; do
  dir=$(bash scripts/build.sh "$kind" | tail -n 1)
  echo "== ctest ($kind) =="
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
done
echo "test.sh: all suites passed in $((SECONDS - start)) s"
