#!/usr/bin/env bash
# Installed like a real tool: `cmake --install` into a scratch prefix, and (where dpkg-deb exists)
# the `cpack -G DEB` package extracted into a scratch root, each give a working overlapscope: its
# version, its man pages (gzipped, plain ASCII, read by man -l where man exists and by groff -ww
# without a warning), its completion, its collector when the build has one (and record naming a
# missing CUPTI), the copyright file and the gzipped changelog, and a report of a golden trace
# identical to the build tree's. The package passes lintian (errors and warnings; each override in
# packaging/lintian-overrides says why).
set -u
fail=0; pass=0
expect() { if eval "$2"; then pass=$((pass+1)); else echo "FAILED: $1"; fail=$((fail+1)); fi; }
build=$OVERLAPSCOPE_BUILD_DIR
golden=$OVERLAPSCOPE_TEST_DATA/gpu/copy_pinned.db
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
expected_report=$("$OVERLAPSCOPE" report "$golden")

# check_tree LABEL ROOT LIBDIR: the installed files under ROOT work.
check_tree() {
    local label=$1 root=$2 libdir=$3 os=$2/bin/overlapscope
    expect "$label: --version" '[[ "$("$os" --version)" =~ ^overlapscope\ [0-9]+\.[0-9]+\.[0-9]+$ ]]'
    expect "$label: a report of $golden as the build tree's" '[ "$("$os" report "$golden")" = "$expected_report" ]'
    local man=$root/share/man/man1
    expect "$label: overlapscope(1) and one page per command, gzipped" '[ $(ls "$man"/*.1.gz | wc -l) -eq $(( $("$os" --help | grep -c "^  [a-z]") + 1 )) ] && [ $(ls "$man" | wc -l) -eq $(ls "$man"/*.1.gz | wc -l) ]'
    expect "$label: the man pages' sources are plain ASCII" '! zcat "$man"/*.1.gz | LC_ALL=C grep -q "[^ -~]"'
    if command -v groff >/dev/null; then
        warnings=$(for page in "$man"/*.1.gz; do zcat "$page" | groff -man -Tutf8 -ww 2>&1 >/dev/null; done)
        expect "$label: groff -ww reads every page without a warning" '[ -z "$warnings" ] || { echo "$warnings" | head -3; false; }'
    fi
    local metrics_page=$root/share/man/man7/overlapscope-metrics.7.gz
    expect "$label: overlapscope-metrics(7), gzipped, plain ASCII" 'gzip -t "$metrics_page" && ! zcat "$metrics_page" | LC_ALL=C grep -q "[^ -~]"'
    if command -v groff >/dev/null; then
        warnings=$(zcat "$metrics_page" | groff -man -Tutf8 -ww 2>&1 >/dev/null)
        expect "$label: groff -ww reads overlapscope-metrics(7) without a warning" '[ -z "$warnings" ]'
    fi
    expect "$label: the JSON Schemas installed" '[ -f "$root"/share/doc/overlapscope/schema/report.json ] && [ -f "$root"/share/doc/overlapscope/schema/stats.json ]'
    if command -v man >/dev/null; then
        page=$(MANWIDTH=80 man -l "$man/overlapscope-check.1.gz" 2>&1)
        expect "$label: man -l reads overlapscope-check(1)" 'grep -q "overlapscope-check  *-  *gate  *CI" <<<"$page" && grep -q "^DESCRIPTION" <<<"$page"'
        page=$(MANWIDTH=1000 man -l "$man/overlapscope.1.gz" 2>&1)
        expect "$label: man -l reads overlapscope(1)" 'grep -q "overlapscope-report(1)" <<<"$page"'
        expect "$label: overlapscope(1): each command's line is sentences that end in full stops" \
            '[ "$(sed -n "/^COMMANDS/,/^HELP/p" <<<"$page" | grep -c "[[:alnum:])]\. *See overlapscope-[a-z]*(1)\.$")" -eq $("$os" --help | grep -c "^  [a-z]") ]'
    fi
    expect "$label: copyright file and gzipped changelog" '[ -f "$root"/share/doc/overlapscope/copyright ] && gzip -t "$root"/share/doc/overlapscope/changelog.gz' 
    expect "$label: LICENSE installed" '[ -f "$root"/share/doc/overlapscope/LICENSE ]'
    expect "$label: zsh completion installed" '[ -f "$root"/share/zsh/site-functions/_overlapscope ]'
    # bash completion, driven as bash drives it: "overlapscope rep<TAB>", "overlapscope report --js<TAB>"
    completed=$(PATH="$root/bin:$PATH" bash -c 'source "$1"; COMP_WORDS=(overlapscope rep); COMP_CWORD=1; _overlapscope; echo "${COMPREPLY[*]}";
        COMP_WORDS=(overlapscope report --js); COMP_CWORD=2; _overlapscope; echo "${COMPREPLY[*]}"' _ "$root"/share/bash-completion/completions/overlapscope)
    expect "$label: bash completes commands and options" '[ "$completed" = "$(printf "report\n--json")" ]'
    if [ -f "$build"/collector/liboverlapscope-collector.so ]; then
        expect "$label: the collector is installed" '[ -f "$root/$libdir/overlapscope/liboverlapscope-collector.so" ]'
        mkdir -p "$scratch/no-cupti"
        said=$(OVERLAPSCOPE_CUPTI="$scratch/no-cupti" "$os" record -o "$scratch/never.db" -- true 2>&1)
        expect "$label: record names a missing CUPTI in one line" '[ "$(wc -l <<<"$said")" -eq 1 ] && grep -q "(CUPTI) is not in OVERLAPSCOPE_CUPTI=" <<<"$said"'
    fi
}

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build"/CMakeCache.txt)
check_tree "cmake --install" "$scratch/prefix" "$libdir"

if command -v dpkg-deb >/dev/null && command -v cpack >/dev/null; then
    (cd "$scratch" && cpack -G DEB --config "$build"/CPackConfig.cmake -B "$scratch/package" >/dev/null 2>&1)
    deb=$(ls "$scratch"/package/*.deb 2>/dev/null | head -1)
    expect "cpack -G DEB builds a package" '[ -n "$deb" ]'
    if [ -n "$deb" ]; then
        expect "the package is overlapscope" '[ "$(dpkg-deb -f "$deb" Package)" = overlapscope ]'
        dpkg-deb -x "$deb" "$scratch/root"
        check_tree "DEB" "$scratch/root/usr" "$libdir"
        if command -v lintian >/dev/null; then
            lintian --fail-on error,warning "$deb" >"$scratch/lintian.txt" 2>&1; linted=$?
            expect "lintian: no error or warning" '[ $linted -eq 0 ] || { grep "^[EW]:" "$scratch/lintian.txt"; false; }'
        else
            echo "FAILED: lintian is not installed (scripts/install-deps.sh)"; fail=$((fail+1))
        fi
    fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
