#!/usr/bin/env bash
# Every subcommand that reads a trace meets bad input with one line naming the file and the
# problem, and exit status 2: never a crash (a signal would give 128+N) and never a hang (a
# corrupted index once made a seek loop forever; each case runs under a time limit).
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
good="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/gpu/copy_pinned.db"
python3 - "$dir" "$good" <<'PY'
import os, shutil, sqlite3, sys
d, good = sys.argv[1], sys.argv[2]
open(os.path.join(d, "text.db"), "w").write("not a database, only words, long enough to fill an SQLite header" + "." * 40)
c = sqlite3.connect(os.path.join(d, "foreign.db")); c.execute("CREATE TABLE t(x)"); c.commit(); c.close()
data = open(good, "rb").read()
open(os.path.join(d, "truncated.db"), "wb").write(data[: len(data) // 3])
shutil.copy(good, os.path.join(d, "other_version.db"))
c = sqlite3.connect(os.path.join(d, "other_version.db"))
c.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'"); c.commit(); c.close()
open(os.path.join(d, "empty.db"), "wb").close()
PY
cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/bad/corrupt_index.db" "$dir/corrupt_index.db"

# $1: label, $2: the file that must be named, $3: expected fragment (may be empty), rest: argv.
check_case() {
    local label=$1 file=$2 fragment=$3 out rc
    shift 3
    out=$(timeout 60 "$os" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF "$file" <<<"$out" &&
        { [ -z "$fragment" ] || grep -qF "$fragment" <<<"$out"; }; then
        pass=$((pass+1))
    else
        echo "FAILED: $label: overlapscope $*: rc=$rc, said: $out"; fail=$((fail+1))
    fi
}
declare -A expect=(
    [missing.db]="No such file or directory"
    [text.db]="not an SQLite database"
    [foreign.db]="not an overlapscope trace"
    [empty.db]="empty file"
    [truncated.db]=""
    [other_version.db]="schema"
    [corrupt_index.db]=""
)
for name in "${!expect[@]}"; do
    f="$dir/$name"; frag=${expect[$name]}
    check_case "$name" "$f" "$frag" info "$f"
    check_case "$name" "$f" "$frag" report "$f"
    check_case "$name" "$f" "$frag" report --json "$f"
    check_case "$name" "$f" "$frag" check --min comm_overlap=0 "$f"
    check_case "$name" "$f" "$frag" diff "$f" "$good"
    check_case "$name" "$f" "$frag" diff "$good" "$f"
    check_case "$name" "$f" "$frag" render "$f" -o "$dir/out.png"
    check_case "$name" "$f" "$frag" export "$f" --chrome "$dir/out.json"
    check_case "$name" "$f" "$frag" merge "$f" "$good" -o "$dir/merged.db"
    [ ! -e "$dir/out.png" ] && [ ! -e "$dir/out.json" ] && [ ! -e "$dir/merged.db" ] ||
        { echo "FAILED: $name left an output behind"; fail=$((fail+1)); rm -f "$dir/out.png" "$dir/out.json" "$dir/merged.db"; }
done
# Sound SQLite, impossible times (a memset lasting 54 years, a kernel ending in 2226): the
# analysis and the renderer refuse them.
f="$dir/absurd_times.db"; cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/bad/absurd_times.db" "$f"
check_case "absurd times" "$f" "the trace is damaged" report "$f"
check_case "absurd times" "$f" "the trace is damaged" check --min comm_overlap=0 "$f"
check_case "absurd times" "$f" "the trace is damaged" diff "$f" "$good"
f="$dir/absurd_kernel.db"; cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/bad/absurd_kernel.db" "$f"
check_case "absurd kernel" "$f" "the trace is damaged" render "$f" -o "$dir/out.png"
check_case "absurd kernel" "$f" "the trace is damaged" report "$f"
f="$dir/absurd_window.db"; cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/bad/absurd_window.db" "$f"
check_case "absurd window" "$f" "longer than any recording" render "$f" -o "$dir/out.png"
# A stored overview (render/overview.h) with a lane's cells cut short: render refuses it as damaged
# (the fuzzing seed's overview serves a 320 px picture).
f="$dir/damaged_overview.db"
python3 - "$here/../fuzz-corpus/fuzz_store/with_overview.db" "$f" <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2]); c.execute("UPDATE render_overview SET cells = x'0102' WHERE what = 2"); c.commit(); c.close()
PY
check_case "damaged overview" "$f" "render_overview" render "$f" -o "$dir/out.png" --width 320
[ ! -e "$dir/out.png" ] || { echo "FAILED: damaged overview left a picture"; fail=$((fail+1)); rm -f "$dir/out.png"; }
# A folder is imported as one (cli/trace_input.h); one without traces is said to be so.
mkdir "$dir/empty_folder"
check_case "directory" "$dir/empty_folder" "no trace files" info "$dir/empty_folder"
# A device the trace does not have is named, with those it has (ddp: devices 0 and 1, one process
# each; copy_pinned: device 0), in every command that analyzes.
gpu="${OVERLAPSCOPE_TEST_DATA:-$here/../data}/gpu"
check_case "unknown device" "$gpu/ddp.db" "no device 5 (the trace has devices 0, 1)" report "$gpu/ddp.db" --device 5
check_case "unknown device, one device" "$gpu/copy_pinned.db" "no device 3 (the trace has device 0)" check "$gpu/copy_pinned.db" --device 3 --max busy_ms=1
# So are a rank and a stream (issue 19 Must 7): ddp's ranks 0 and 1; its devices' streams (kernels
# on 7, 17, 18; copies and memsets on 15, 16, sqlite3 over the file), sorted.
for command in report "check --max busy_ms=1e9" "export --chrome $dir/x.json" "render -o $dir/x.png"; do
    check_case "unknown rank" "$gpu/ddp.db" "no rank 3 (the trace has ranks 0, 1)" $command "$gpu/ddp.db" --rank 3
    # By default the steady state (the steps: streams 7, 15 and 16 hold set-up only); --all the run.
    check_case "unknown stream" "$gpu/ddp.db" "no stream 9 (the steady state (--all: the whole run) has streams 17, 18)" \
        $command "$gpu/ddp.db" --stream 9
    check_case "unknown stream, --all" "$gpu/ddp.db" "no stream 9 (the selected devices have streams 7, 15, 16, 17, 18)" \
        $command "$gpu/ddp.db" --stream 9 --all
done
check_case "unknown stream, one device" "$gpu/ddp.db" "no stream 9 (the selected devices have streams 7, 15, 16, 17, 18)" \
    diff "$gpu/ddp.db" "$gpu/ddp.db" --stream 9 --device 1 --all
check_case "unknown stream in a window" "$gpu/copy_pinned.db" "no stream 9 (the selected window has stream" \
    report "$gpu/copy_pinned.db" --stream 9 --window 0:1us
# A bare 0 needs no unit: no warning (a bare 5 gets one, tests/render/window_road.sh).
said=$("$os" report --window 0:2ms "$gpu/ddp.db" 2>&1 >/dev/null)
[ -z "$said" ] && pass=$((pass+1)) || { echo "FAILED: --window 0:2ms said: $said"; fail=$((fail+1)); }
# The commands that write one trace from their inputs (import, merge) share their option parsing
# (cli_parse_output_options): no -o and an unknown option are usage errors, exit 2, nothing written.
for command in import merge; do
    for args in "$good" "--bogus -o $dir/w.db $good"; do
        said=$(timeout 60 "$os" $command $args 2>&1 >/dev/null); rc=$?
        case $args in --bogus*) want="overlapscope: $command: unknown option or missing value: '--bogus'" ;;
                      *) want="overlapscope: $command: missing -o TRACE" ;; esac
        if [ $rc -eq 2 ] && grep -qF "$want" <<<"$said" && grep -qx "try 'overlapscope help $command'" <<<"$said" &&
            [ ! -e "$dir/w.db" ]; then pass=$((pass+1))
        else echo "FAILED: $command $args: rc=$rc, said: $said"; fail=$((fail+1)); fi
    done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
