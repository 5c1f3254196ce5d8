#!/usr/bin/env bash
# The shape issue 30 promises of the product's folders (subfolders included; STYLE.md "Files
# follow jobs"):
# 1. No source file (.c, .h) of the library folders (analyzer/, store/, render/, import/, export/)
#    over 1,000 lines unless its opening comment (up to the first "*/") says why, naming
#    "1,000 lines" (e.g. "It stays over 1,000 lines because ...").
# 2. No include loop between the files of one folder, in those and in report/, cli/, common/,
#    collector/ and record/. A file depends on the quote-included
#    headers of its folder, through the headers they include, and on the .c file that implements
#    each (the header's name with .c): a.c -> b.h -> b.c -> a.h -> a.c is a loop, and so is a
#    longer cycle. A header that only builds on its module's own public header (scene_private.h
#    -> scene.h for scene.c) is no loop: a file never depends on itself. Two files in a loop are
#    one concept cut in the wrong place: give the part both need (types, a ledger, a writer
#    helper) its own header.
#
# Known exceptions, each with its reason; the check fails when one no longer applies, so the
# lists only shrink (both empty now: add to them only with the reason, and prefer splitting the
# file or giving the shared part its own header).
set -u
# An argument names another tree to check (the self-test below); none: this checkout.
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
folders=(analyzer store render import export)
loop_folders=("${folders[@]}" report cli common collector record)
long_exceptions=()
loop_exceptions=()
failed=0
checked=0

# 1. Line counts.
for file in $(cd "$root" && find "${folders[@]}" -name '*.[ch]' | sort); do
    checked=$((checked + 1))
    lines=$(wc -l <"$root/$file")
    excepted=0
    for known in "${long_exceptions[@]}"; do
        [ "$known" = "$file" ] && excepted=1
    done
    if [ "$lines" -gt 1000 ]; then
        opening=$(sed '/\*\//q' "$root/$file")
        if [ "$excepted" -eq 0 ] && ! grep -q '1,000 lines' <<<"$opening"; then
            echo "FAILED: $file has $lines lines and its opening comment does not say why (split it by job)"
            failed=1
        fi
    elif [ "$excepted" -eq 1 ]; then
        echo "FAILED: $file has $lines lines now: take it off long_exceptions"
        failed=1
    fi
done
if [ "$checked" -lt 150 ]; then
    echo "FAILED: only $checked files checked: the folder list is out of date"
    failed=1
fi

# 2. Include loops, one folder at a time: each line of the finder's output is a loop, "FOLDER:
#    FILE FILE ...".
loops=$(python3 - "$root" "${loop_folders[@]}" <<'EOF'
import os, re, sys

root = sys.argv[1]
include = re.compile(r'\s*#\s*include\s+"([^"/]+)"')


def includes(path):
    with open(path, errors="replace") as source:
        return [m.group(1) for m in map(include.match, source) if m]


for top in sys.argv[2:]:
    for folder, _, names in sorted(os.walk(os.path.join(root, top))):
        here = {name for name in names if name.endswith((".c", ".h"))}
        sources = sorted(name for name in here if name.endswith(".c"))

        def depends_on(source):
            """The other .c files of the folder that source reaches through its headers."""
            seen, pending, reached = set(), [h for h in includes(os.path.join(folder, source)) if h in here], set()
            while pending:
                header = pending.pop()
                if header in seen:
                    continue
                seen.add(header)
                implementation = header[:-2] + ".c"
                if implementation in here and implementation != source:
                    reached.add(implementation)
                pending += [h for h in includes(os.path.join(folder, header)) if h in here]
            return reached

        edges = {source: depends_on(source) for source in sources}
        # Tarjan's strongly connected components: each of two or more files is a loop.
        index, low, stack, on_stack, counter = {}, {}, [], set(), [0]

        def visit(node):
            index[node] = low[node] = counter[0]
            counter[0] += 1
            stack.append(node)
            on_stack.add(node)
            for next_node in sorted(edges[node]):
                if next_node not in index:
                    visit(next_node)
                    low[node] = min(low[node], low[next_node])
                elif next_node in on_stack:
                    low[node] = min(low[node], index[next_node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    print(os.path.relpath(folder, root) + ": " + " ".join(sorted(component)))

        sys.setrecursionlimit(10000)
        for source in sources:
            if source not in index:
                visit(source)
EOF
)
if [ $? -ne 0 ]; then
    echo "FAILED: the include-loop finder did not run (python3)"
    failed=1
fi
# A loop passes when a known exception of its folder holds all its files (a loop that shrank
# passes too); a known exception that no loop meets any more fails.
declare -A exception_met=()
while IFS= read -r loop; do
    [ -n "$loop" ] || continue
    folder=${loop%%:*}
    known=0
    for exception in "${loop_exceptions[@]}"; do
        [ "${exception%%:*}" = "$folder" ] || continue
        inside=1
        for member in ${loop#*:}; do
            [[ " ${exception#*:} " == *" $member "* ]] || inside=0
        done
        if [ "$inside" -eq 1 ]; then
            known=1
            exception_met[$exception]=1
        fi
    done
    if [ "$known" -eq 0 ]; then
        echo "FAILED: files of $folder/ include each other in a loop:${loop#*:} (give the part they share its own header)"
        failed=1
    fi
done <<<"$loops"
for exception in "${loop_exceptions[@]}"; do
    if [ -z "${exception_met[$exception]:-}" ]; then
        echo "FAILED: no loop left among $exception: take it off loop_exceptions"
        failed=1
    fi
done

# Self-test, on this checkout only: a made-up tree with a long file and a three-file loop must fail
# with both named, so the check cannot pass by finding nothing.
if [ $# -eq 0 ]; then
    fake=$(mktemp -d)
    trap 'rm -rf "$fake"' EXIT
    mkdir -p "$fake"/{analyzer,store,render,import,export}
    printf '#include "b.h"\n' >"$fake/analyzer/a.c"
    printf '#include "c.h"\n' >"$fake/analyzer/b.c"
    printf '#include "a.h"\n' >"$fake/analyzer/c.c"
    touch "$fake"/analyzer/{a,b,c}.h
    seq 1001 | sed 's/^/\/\/ /' >"$fake/store/long.c"
    verdict=$(bash "$0" "$fake" 2>&1)
    if ! grep -q 'store/long.c has 1001 lines' <<<"$verdict" ||
        ! grep -q 'analyzer/ include each other in a loop: a.c b.c c.c' <<<"$verdict"; then
        echo "FAILED: the self-test's long file and loop were not both found:"
        echo "$verdict"
        failed=1
    fi
fi
[ "$failed" -eq 0 ] || exit 1
echo "2 passed, 0 failed ($checked files of ${#folders[@]} folders checked for length, ${#loop_folders[@]} for loops; ${#loop_exceptions[@]} known loops)"
