# Shared helpers of the command-line tests (sourced, not a test itself).

fail() { echo "FAIL: $*" >&2; exit 1; }

# skipped_part WHY: a part of the script cannot run on this machine: says so and logs it to
# $ROOKERY_SKIP_LOG (scripts/test.sh counts and lists them); the script goes on.
skipped_part() {
  echo "SKIPPED: $(basename "$0"): $*"
  [ -z "${ROOKERY_SKIP_LOG:-}" ] || echo "SKIPPED: $(basename "$0"): $*" >> "$ROOKERY_SKIP_LOG"
}
# missing_part WHY: an input of a part is missing (the lexicon, a ../shared file, a tool the
# setup installs): a failure when CI is set (.ci/run sets it), else skipped_part.
missing_part() {
  if [ -n "${CI:-}" ] && [ "${CI}" != 0 ]; then fail "MISSING (CI is set, so this fails instead of skipping): $*"; fi
  skipped_part "$*"
}
# skip WHY / missing WHY: the same for the rest of the script, which ends there with success.
skip() { skipped_part "$*"; exit 0; }
missing() { missing_part "$*"; exit 0; }

# check_exit ONE_LINE CODE PATTERN cmd...: runs cmd once; it must exit CODE,
# its stderr must match PATTERN and, if ONE_LINE is 1, be exactly one line.
check_exit() {
  local one_line="$1" code="$2" pattern="$3"; shift 3
  local err rc=0
  err=$("$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code (stderr: $err)"
  if [ "$one_line" -eq 1 ]; then
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'$*' printed more than one error line: $err"
  fi
  printf '%s' "$err" | grep -- "$pattern" >/dev/null || fail "'$*' error '$err' does not mention '$pattern'"
}
# expect_exit CODE PATTERN cmd...: exit code and stderr matching PATTERN
expect_exit() { check_exit 0 "$@"; }
# expect_error CODE PATTERN cmd...: the same, with exactly one stderr line
expect_error() { check_exit 1 "$@"; }
# json_get FILE PATH: the member at the dotted PATH of a JSON file (a manifest), printed as
# JSON on one line (strings quoted, objects {"k": v, ...}); nothing if it is absent.
json_get() {
  /usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k] if isinstance(v, dict) and k in v else sys.exit(0)
print(json.dumps(v))' "$1" "$2"
}
# size FULL QUICK: FULL, or QUICK when ROOKERY_TEST_QUICK is set (the sanitizer pass: it checks
# memory on the same code paths, the Release pass runs the sizes in full)
size() { if [ -n "${ROOKERY_TEST_QUICK:-}" ] && [ "${ROOKERY_TEST_QUICK}" != 0 ]; then echo "$2"; else echo "$1"; fi; }
# A tiny network for the training runs of the tests (the default one takes
# minutes a generation), and the SPV table's evaluation at 10 pairs and 10 held-out games
# (200 each by default; of a 2-game generation's 9 s in the sanitizer build, about 4 s);
# shards, the network stage and the SPV evaluation still run.
tiny_run=(--set nn.steps=3 --set nn.batch=16 --set nn.grad_chunks=4 --set nn.channels=4 --set nn.blocks=1
          --set nn.embed=8 --set nn.head_hidden=8 --set nn.eval_positions=40
          --set spv.match_pairs=10 --set spv.heldout_games=10)
