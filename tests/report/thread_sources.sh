#!/usr/bin/env bash
# A blocking call whose source is a native frame without a function, "MODULE+0xOFFSET" (a function
# its library does not export: PyTorch's backward syncs at "libtorch_cuda.so+0xd44816"), is named
# with its thread where the trace names the thread ("on thread pt_autograd_0": the backward pass's
# own thread); a frame with a function, or a thread the trace does not name, reads as before.
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
[ $fail -eq 0 ] && echo "ok: an anonymous native source is named with its thread"
exit $fail
