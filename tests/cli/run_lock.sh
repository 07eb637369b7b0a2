#!/usr/bin/env bash
# The run directory's lock (train/rundir.h, issue 35): a second training on
# a directory in use exits 2 naming the holder and leaves the first run's
# generations alone; a lock left by a run that died is taken over (and the
# log says so); a clean exit empties the lock file; --check says whether the
# directory is in use; a symlink at RUN/.lock is refused.
#   run_lock.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the lock checks did not run"
fi
work=$(mktemp -d)
first=
# a failure while the first run is stopped must not leave it behind
trap '[ -z "$first" ] || { kill -KILL "$first"; } 2>/dev/null || true; rm -rf "$work"' EXIT
small=(--set lexicon.kwg="$kwg" --set nn.train=no --set nn.shards=no --set match.pairs=0 --set spv.match_pairs=0)
run="$work/run"

# a first run in the background, stopped (SIGSTOP) once it holds the lock, so that it holds it
# however slow the machine while a second run tries the same directory; then it goes on
"$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=400 --set run.generations=1 \
  > "$work/first.log" 2>&1 &
first=$!
for _ in $(seq 300); do [ -s "$run/.lock" ] && break; sleep 0.1; done
[ -s "$run/.lock" ] || fail "the first run wrote no holder into $run/.lock"
kill -STOP "$first"
grep -q "^host .* pid $first since " "$run/.lock" || fail "the lock names no holder: $(cat "$run/.lock")"
set +e
out=$("$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=4000 2>&1)
rc=$?
chk=$("$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=4000 --check 2>&1)
chk_rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a second run on a directory in use exited $rc, expected 2: $out"
echo "$out" | grep -q "is in use by another rookery train (host .* pid $first since" \
  || fail "the second run does not name the holder: $out"
[ "$chk_rc" -eq 2 ] || fail "--check on a directory in use exited $chk_rc: $chk"
kill -CONT "$first"
rc=0
wait "$first" || rc=$?
first= # waited for: the exit trap leaves it alone
[ "$rc" -eq 0 ] || fail "the first run failed beside the refused second one: $(cat "$work/first.log")"
grep -q "seed = 1$" "$run/config.ini" || fail "config.ini is not the first run's"
[ ! -s "$run/.lock" ] || fail "a clean exit left a holder in the lock file: $(cat "$run/.lock")"
out=$("$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=4000 --check 2>&1) \
  || fail "--check on an idle run failed: $out"
echo "$out" | grep -q "is not in use by another run" || fail "--check does not say the directory is free: $out"

# a lock file left by a run that died (a holder line, no lock held): taken over, and said
echo "host gone pid 999999 since 2026-01-01 00:00:00 UTC" > "$run/.lock"
out=$("$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=4000 --check 2>&1) \
  || fail "a stale lock was not taken over: $out"
echo "$out" | grep -q "took over the lock of a run that ended without letting go (host gone pid 999999" \
  || fail "the stale lock's takeover is not in the log: $out"

# a symlink at .lock is refused, its target untouched
rm -f "$run/.lock"
echo "precious" > "$work/victim"
ln -s "$work/victim" "$run/.lock"
set +e
out=$("$bin" train --run "$run" "${small[@]}" --set run.games_per_generation=4000 --set run.generations=2 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a symlink at .lock: exit $rc, expected 2: $out"
[ "$(cat "$work/victim")" = "precious" ] || fail "the symlink's target was written"
echo "run_lock: a second run refused, a stale lock taken over, a symlinked lock refused"
