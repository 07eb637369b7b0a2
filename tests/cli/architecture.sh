#!/usr/bin/env bash
# docs/architecture.md stays true to src/: its module list (the code block of the layout)
# names every .c/.h module of each src/ folder and nothing that is not there, and no two
# files in src/ share a name (one name, one meaning).
#   architecture.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR (only the source tree is read)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dups=$(find "$root/src" -name '*.[ch]' -printf '%f\n' | sort | uniq -d)
[ -z "$dups" ] || fail "files in src/ that share a name: $dups"
# one word for dealing the unseen tiles (docs/development.md, "Words")
retired=$(grep -rn -i -E "redeal|re-deal|sample_world|sampled world" "$root/src" || true)
[ -z "$retired" ] || fail "a retired word for dealing (docs/development.md, Words): $retired"
out=$(python3 - "$root" <<'PY'
import os, re, sys
root = sys.argv[1]
lines = open(os.path.join(root, "docs/architecture.md")).read().split("\n")
listed, cur, inblock = {}, None, False
for l in lines:
    if l.startswith("```"):
        if inblock and cur:
            break  # the end of the layout block
        inblock = True
        continue
    if not inblock:
        continue
    m = re.match(r"^src/(\w+)/", l)
    if m:
        cur = m.group(1)
        listed.setdefault(cur, set())
        continue
    m = re.match(r"^  ([A-Za-z_][\w]*)(\.[ch])?\s", l)
    if m and cur:
        listed[cur].add(m.group(1))
bad = []
for d in sorted(os.listdir(os.path.join(root, "src"))):
    path = os.path.join(root, "src", d)
    if not os.path.isdir(path):
        continue
    actual = {os.path.splitext(f)[0] for f in os.listdir(path) if f.endswith((".c", ".h"))}
    have = listed.get(d, set())
    for x in sorted(actual - have):
        bad.append(f"src/{d}/{x} is not in docs/architecture.md")
    for x in sorted(have - actual):
        bad.append(f"docs/architecture.md lists src/{d}/{x}, which does not exist")
print("\n".join(bad))
PY
)
[ -z "$out" ] || fail "$out"

# Sizes (issue 51): no file in src/ over 800 lines, no function over 100 (a function starts at a
# column-0 line with '(' that is not a declaration and ends at the next column-0 '}').
out=$(/usr/bin/python3 - "$root" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
bad = []
for f in sorted(glob.glob(os.path.join(root, "src", "*", "*.[ch]"))):
    lines = open(f, errors="replace").read().split("\n")
    rel = os.path.relpath(f, root)
    if len(lines) - 1 > 800:
        bad.append(f"{rel}: {len(lines) - 1} lines (at most 800)")
    start = None
    for i, l in enumerate(lines):
        if start is None and re.match(r"^[A-Za-z_].*\(", l) and not l.rstrip().endswith((";", ")", "}")) \
                and not l.startswith(("typedef", "#")) and "=" not in l.split("(")[0]:
            start = i
        elif start is not None and l.rstrip().endswith(";") and not any("{" in x for x in lines[start:i + 1]):
            start = None  # a declaration over several lines
        elif start is not None and l == "}":
            if i - start + 1 > 100:
                name = re.search(r"(\w+)\s*\(", lines[start])
                bad.append(f"{rel}:{start + 1}: {name.group(1) if name else '?'} is {i - start + 1} lines (at most 100)")
            start = None
print("\n".join(bad))
PY
)
[ -z "$out" ] || fail "$out"
echo "architecture.sh: all checks passed"
