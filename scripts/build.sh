#!/usr/bin/env bash
# Configures and builds rookery in a build folder.
#   scripts/build.sh [release|sanitize]   (default release)
# Builds in build/ (release) or build-sanitize/ (ASan + UBSan), with the
# default lexicon (SOWPODS.kwg) built into <build>/lexica/.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-release}"
lexdir=$(bash scripts/fetch-lexicon.sh | tail -n 1)
jobs=$(nproc 2>/dev/null || echo 2)
case "$kind" in
  release)  dir=build;          extra=(-DCMAKE_BUILD_TYPE=Release) ;;
  sanitize) dir=build-sanitize; extra=(-DCMAKE_BUILD_TYPE=Debug -DROOKERY_SANITIZE=ON) ;;
  *) echo "build.sh: unknown build kind '$kind' (release or sanitize)" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${extra[@]}" -DROOKERY_WERROR=ON -DROOKERY_LEXICON_DIR="$lexdir" >/dev/null
cmake --build "$dir" -j "$jobs"
echo "$dir"
