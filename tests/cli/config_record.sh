#!/usr/bin/env bash
# A run's configuration is on record (issue 35): each generation keeps the
# configuration it was made with (gen-NNNN/config.ini, in its manifest); a
# resume may not change what makes the run (seed, player, lexicon, starting
# points, network shape, held-out split): by --set, --config or an edited
# config.ini it exits 2 naming the key; other changes (here run.generations)
# are written into RUN/config.ini and the log; a run without config.ini does
# not resume on the defaults; a changed lexicon or an unlisted file in the
# last generation is refused; --check wants room for a generation.
#   config_record.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the config record checks did not run"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run="$work/run"
s=(--set lexicon.kwg="$kwg" --set nn.train=no --set nn.shards=no --set match.pairs=0 --set spv.match_pairs=0
   --set run.games_per_generation=100)
"$bin" train --run "$run" "${s[@]}" --set run.generations=1 > "$work/log" 2>&1 || fail "the first generation failed"
[ -f "$run/gen-0001/config.ini" ] || fail "gen-0001 keeps no config.ini"
grep -q '"config.ini": {"bytes"' "$run/gen-0001/manifest.json" || fail "the manifest does not list config.ini"
grep -q '"config.ini": {"bytes"' "$run/gen-0000/manifest.json" || fail "gen-0000's manifest does not list config.ini"

# refused: exit 2, naming the key and where the new value came from
refused() {
  local why="$1" needle="$2"; shift 2
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$why: exit $rc, expected 2: $out"
  echo "$out" | grep -qF "$needle" || fail "$why: the message does not say '$needle': $out"
}
refused "--set run.seed on a resume" "run.seed = 1 in the run's record" "$bin" train --run "$run" "${s[@]}" --set run.seed=42
refused "--set nn.channels on a resume" "nn.channels = 32" "$bin" train --run "$run" "${s[@]}" --set nn.channels=8
printf '[nn]\nchannels = 8\n' > "$work/other.ini"
refused "--config on a resume" "from --config $work/other.ini" "$bin" train --run "$run" --config "$work/other.ini"
sed -i 's/^seed = 1$/seed = 7/' "$run/config.ini"
refused "an edited config.ini" "7 from config.ini (edited?)" "$bin" train --run "$run" "${s[@]}"
sed -i 's/^seed = 7$/seed = 1/' "$run/config.ini"

# allowed: more generations, recorded in config.ini and said in the log
out=$("$bin" train --run "$run" "${s[@]}" --set run.generations=2 2>&1) || fail "run.generations=2 on a resume failed: $out"
echo "$out" | grep -q "config: run.generations 1 -> 2 (recorded in $run/config.ini)" || fail "the change is not logged: $out"
grep -q "^generations = 2$" "$run/config.ini" || fail "run.generations = 2 was not written into config.ini"
[ -f "$run/gen-0002/config.ini" ] || fail "gen-0002 keeps no config.ini"

# no config.ini: no resume on the defaults
mv "$run/config.ini" "$work/saved.ini"
refused "a run without config.ini" "holds generations but no config.ini" "$bin" train --run "$run" "${s[@]}"
mv "$work/saved.ini" "$run/config.ini"

# the lexicon is checksummed in every manifest: a changed word list is refused on resume
cp "$kwg" "$work/lex.kwg"
lrun="$work/lrun"
l=(--set lexicon.kwg="$work/lex.kwg" --set nn.train=no --set nn.shards=no --set match.pairs=0
   --set spv.match_pairs=0 --set run.games_per_generation=100)
"$bin" train --run "$lrun" "${l[@]}" --set run.generations=1 > "$work/log" 2>&1 || fail "the lexicon run failed"
grep -q '"lexicon_sha256": "[0-9a-f]\{64\}"' "$lrun/gen-0001/manifest.json" || fail "the manifest has no lexicon_sha256"
printf '\001' | dd of="$work/lex.kwg" bs=1 seek=5000 conv=notrunc 2>/dev/null
refused "a flipped byte in the lexicon" "is not the one the run was made with" \
  "$bin" train --run "$lrun" "${l[@]}" --set run.generations=2
# and a file added to the last generation is refused before anything is played
cp "$kwg" "$work/lex.kwg"
echo extra > "$lrun/gen-0001/shard-00009.h5"
refused "an extra file in the last generation" "shard-00009.h5: not listed in" \
  "$bin" train --run "$lrun" "${l[@]}" --set run.generations=2
# a damaged shard of the trainer's window (an older generation) is caught before anything is played
nrun="$work/nrun"
n=(--set lexicon.kwg="$kwg" "${tiny_run[@]}" --set nn.window=2 --set match.pairs=0 --set spv.match_pairs=0
   --set run.games_per_generation=40)
"$bin" train --run "$nrun" "${n[@]}" --set run.generations=2 > "$work/nlog" 2>&1 || { cat "$work/nlog"; fail "the nn run failed"; }
shard="$nrun/gen-0001/shard-00000.h5"
[ -f "$shard" ] || fail "gen-0001 has no shard"
size=$(stat -c %s "$shard")
printf '\377' | dd of="$shard" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
refused "a flipped byte in a window shard" "shard-00000.h5: sha256 mismatch" \
  "$bin" train --run "$nrun" "${n[@]}" --set run.generations=3
[ ! -e "$nrun/gen-0003.tmp" ] || fail "a generation was started before the window's shards were verified"

# --check: the run directory must have room for a generation (/proc has none to give)
refused "--check without room" "a generation needs about" "$bin" train --run /proc/no-such-run --check
echo "config_record: the configuration is on record and changes are refused or recorded"
