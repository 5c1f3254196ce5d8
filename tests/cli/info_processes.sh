#!/usr/bin/env bash
# `info` on a job whose many processes never touched the GPU (torch.compile workers, DataLoader
# workers: issue 19 Must 6): the processes with GPU activity are listed, the others summed up in
# one line by what they ran; --all lists every one. Hand-built: the two ranks of the golden ddp.db
# plus 12 compile workers and 6 loader workers (one of which made a CUDA context: a device row).
set -u
fail=0; pass=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
os=$OVERLAPSCOPE
here=$(cd "$(dirname "$0")" && pwd)
bad() { echo "FAILED: $*"; fail=$((fail+1)); }
good() { pass=$((pass+1)); }
expect() { [ "$2" = "$3" ] && good || bad "$1: got '$2', expected '$3'"; }

cp "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/gpu/ddp.db" "$dir/job.db"
python3 - "$dir/job.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for i in range(12):
    c.execute("INSERT INTO processes (pid, host, command_line) VALUES (?, 'vm', ?)",
              (2000 + i, "/usr/bin/python3 -m torch._inductor.compile_worker --workers=12 --parent=1368"))
for i in range(6):
    c.execute("INSERT INTO processes (pid, host, command_line) VALUES (?, 'vm', ?)",
              (3000 + i, "/opt/venv/bin/python3 /home/me/train.py --epochs 3"))
# torch.compile's own workers (PyTorch 2.11, recorded on the H100): a path longer than the name
for i in range(3):
    c.execute("INSERT INTO processes (pid, host, command_line) VALUES (?, 'vm', ?)",
              (4000 + i, "/opt/torch/.venv/bin/python3 /opt/torch/.venv/lib/python3.12/site-packages/torch/"
                         "_inductor/compile_worker/__main__.py --pickler=torch._inductor.compile_worker."
                         "subproc_pool.SubprocPickler --kind=fork --workers=16 --parent=562"))
c.execute("INSERT INTO devices (process_id, device_id, name) SELECT process_id, 0, 'NVIDIA H200'"
          " FROM processes WHERE pid = 3000")
c.commit()
PY
processes() { sed -n '/^processes:/,/^$/p' <<<"$1"; }
devices() { sed -n '/^devices:/,/^$/p' <<<"$1"; }

out=$("$os" info --no-verify "$dir/job.db")
expect "listed processes" "$(processes "$out" | grep -c '^  pid ')" 2
expect "summary line" "$(processes "$out" | grep 'without GPU')" \
    "  21 more processes without GPU activity: python3 -m torch._inductor.compile_worker x12, python3 train.py x6, python3 torch/_inductor/compile_worker/__main__.py x3 (info --all lists them)"
expect "listed devices" "$(devices "$out" | grep -c '^  pid ')" 4
expect "device summary" "$(devices "$out" | grep 'more')" "  1 more device of those processes (info --all lists them)"

out=$("$os" info --no-verify --all "$dir/job.db")
expect "--all processes" "$(processes "$out" | grep -c '^  pid ')" 23
expect "--all devices" "$(devices "$out" | grep -c '^  pid ')" 5
expect "--all summary" "$(grep -c 'without GPU' <<<"$out")" 0

# A trace where no process ran GPU work lists them all: there is nothing to tell apart.
"$os" import "${OVERLAPSCOPE_TEST_DATA:-$here/../data}/kineto/cpu_only.json.gz" -o "$dir/cpu.db" >/dev/null 2>&1
out=$("$os" info "$dir/cpu.db")
expect "no GPU at all" "$(processes "$out" | grep -c '^  pid ')" 1

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
