#!/usr/bin/env bash
# A blocking call whose source is a native frame without a function, "MODULE+0xOFFSET" (a function
# its library does not export: PyTorch's backward syncs at "libtorch_cuda.so+0xd44816"), is named
# with its thread where the trace names the thread ("on thread pt_autograd_0": the backward pass's
# own thread); a frame with a function, or a thread the trace does not name, reads as before. A
# wait's evidence names its launching thread the same way ("thread 1082 (python3) was blocked ...").
# Built from host_bound_sync (its 300 cudaDeviceSynchronize calls at main+0x5b5): those calls'
# source made anonymous, the launching thread named, and the answer read back from report --json.
set -u
os=$OVERLAPSCOPE
golden="$OVERLAPSCOPE_TEST_DATA/gpu-h100/host_bound_sync.db"
[ -f "$golden" ] || { echo "skipped: no $golden"; exit 77; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
fail=0
python3 - "$golden" "$scratch" <<'PY' || exit 1
import shutil, sqlite3, sys
golden, scratch = sys.argv[1], sys.argv[2]
for name, named in (("named", True), ("unnamed", False)):
    path = f"{scratch}/{name}.db"
    shutil.copy(golden, path)
    db = sqlite3.connect(path)
    db.execute("UPDATE strings SET value = 'libtorch_cuda.so+0xd44816' WHERE value = 'main+0x5b5 (host_bound)'")
    thread, process = db.execute("SELECT a.thread_id, a.process_id FROM api_calls a JOIN call_sources c ON"
                                 " c.process_id = a.process_id AND c.correlation_id = a.correlation_id"
                                 " LIMIT 1").fetchone()
    db.execute("DELETE FROM threads")
    if named:
        db.execute("INSERT INTO strings (value) VALUES ('pt_autograd_0')")
        db.execute("INSERT INTO threads SELECT ?, ?, id FROM strings WHERE value = 'pt_autograd_0'", (process, thread))
    db.commit()
    db.close()
PY
for name in named unnamed; do
    "$os" report --json "$scratch/$name.db" >"$scratch/$name.json" || { echo "FAILED: report $name"; fail=1; continue; }
    python3 - "$scratch/$name.json" "$name" <<'PY' || fail=1
import json, sys
report, name = json.load(open(sys.argv[1])), sys.argv[2]
sources = {c["source"]: c["count"] for c in report["devices"][0]["idle"]["causes"] if c["cause"] == "host-sync"}
expected = "libtorch_cuda.so+0xd44816" + (" on thread pt_autograd_0" if name == "named" else "")
ok = sources.get(expected) == 300 and sources.get("main+0x3d1 (host_bound)") == 1
if not ok:
    print(f"FAILED: {name}: host-sync sources {sources}, expected {expected!r} 300 times and main+0x3d1 once")
sys.exit(0 if ok else 1)
PY
done
"$os" report "$scratch/named.db" | grep -q "at libtorch_cuda.so+0xd44816 on thread pt_autograd_0" ||
    { echo "FAILED: the text report does not name the thread"; fail=1; }

# A wait's evidence names the launching thread likewise, by the same lookup (analyzer/thread_names.h):
# torch_prefetch's wait whose evidence names thread 1082 (in its set-up: --all), that thread named in
# one copy.
prefetch="$OVERLAPSCOPE_TEST_DATA/gpu-h100/torch_prefetch.db"
for name in named unnamed; do
    cp "$prefetch" "$scratch/wait_$name.db"
    python3 - "$scratch/wait_$name.db" "$name" <<'PY' || fail=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM threads")
if sys.argv[2] == "named":
    process = db.execute("SELECT process_id FROM api_calls WHERE thread_id = 1082 LIMIT 1").fetchone()[0]
    db.execute("INSERT INTO strings (value) VALUES ('python3')")
    db.execute("INSERT INTO threads SELECT ?, 1082, id FROM strings WHERE value = 'python3'", (process,))
db.commit()
PY
    "$os" report --all --json "$scratch/wait_$name.db" >"$scratch/wait_$name.json" || { echo "FAILED: report wait_$name"; fail=1; continue; }
    python3 - "$scratch/wait_$name.json" "$name" <<'PY' || fail=1
import json, sys
report, name = json.load(open(sys.argv[1])), sys.argv[2]
said = [w["evidence"] for w in report["waits"] if "thread 1082" in w["evidence"]]
expected = "thread 1082" + (" (python3)" if name == "named" else "") + " was blocked in cudaMalloc"
if not said or not all(expected in e for e in said):
    print(f"FAILED: {name}: the evidence {said} should say '{expected}'"); sys.exit(1)
PY
done
[ $fail -eq 0 ] && echo "ok: an anonymous native source, and a wait's launching thread, named with the thread"
exit $fail
