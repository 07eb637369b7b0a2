#!/usr/bin/env bash
# docs/architecture.md stays true to src/: its module list (the code block of the layout)
# names every .c/.h module of each src/ folder and nothing that is not there, and no two
# files in src/ share a name (one name, one meaning); the sizes of files and functions; the
# docs' links; results.md and performance.md at most 500 lines.
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
# Docs' links (README.md, docs/**/*.md): every relative link names a file that exists and, with
# an anchor, a heading of that file (GitHub's anchors: lowercase, punctuation but - and _ dropped,
# spaces to -, a repeated heading gets -1, -2...), so a moved section cannot leave pointers behind.
out=$(python3 - "$root" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
def slug(h):
    h = re.sub(r"[`*~]", "", h.strip().lower())
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")
files = glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True) + [os.path.join(root, "README.md")]
anchors = {}
for f in files:
    seen, inblock = {}, False
    for l in open(f, errors="replace"):
        if l.startswith("```"):
            inblock = not inblock
        m = None if inblock else re.match(r"^#+\s+(.*)", l)
        if m:
            a = slug(m.group(1))
            seen[a] = seen.get(a, -1) + 1
            anchors.setdefault(os.path.abspath(f), set()).add(a if seen[a] == 0 else f"{a}-{seen[a]}")
bad = []
for f in files:
    for m in re.finditer(r"\]\(([^)\s]*)\)", open(f, errors="replace").read()):
        link = m.group(1)
        if link.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = link.partition("#")
        target = os.path.abspath(os.path.join(os.path.dirname(f), path)) if path else os.path.abspath(f)
        rel = os.path.relpath(f, root)
        if path and not os.path.exists(target):
            bad.append(f"{rel}: ({link}): no such file")
        elif anchor and target.endswith(".md") and anchor not in anchors.get(target, set()):
            bad.append(f"{rel}: ({link}): no such section")
print("\n".join(bad))
PY
)
[ -z "$out" ] || fail "$out"
# docs/results.md and docs/performance.md are tables of what is true now, history in docs/journal/
for d in results performance; do
  n=$(wc -l < "$root/docs/$d.md")
  [ "$n" -le 500 ] || fail "docs/$d.md is $n lines (at most 500: history goes to docs/journal/)"
done
echo "architecture.sh: all checks passed"
