#!/usr/bin/env bash
# tests/gpu/host_samples.sh OUTDIR [record|bench|all]: issue 31's host side on a GPU machine.
#   record: the reference jobs recorded with host samples at the default rate into OUTDIR/NAME.db
#     (+ sidecar, the goldens), and what their samples must show asserted (OUTDIR/host_checks.txt):
#     starved_loader   workloads/torch/starved_loader.py, 2 DataLoader workers burning CPU: the workers'
#                      process samples (children of the job, no CUDA) busy, the main thread asleep in
#                      the loader's queue (dataloader.py in its stacks);
#     io_loader        workloads/torch/host_verdicts.py io_loader: workers sleeping (S or D) in read_sample;
#     launch_blocking  host_verdicts.py launch_blocking under CUDA_LAUNCH_BLOCKING=1: the variable stored
#                      (process_environment, and `info` shows it); launch_blocking_off: not stored;
#     warmup           host_verdicts.py warmup: steady_loop in 10 samples or more (first_call when a tick fell in it);
#     gc_loop          host_verdicts.py gc_loop: collect_garbage the main thread's commonest innermost frame;
#     lock_wait        host_verdicts.py lock_wait: the launching thread asleep (S) in wait_for_lock while
#                      its process burns CPU in the side thread (process CPU > the thread's);
#   bench: bench/torch_overhead/run.sh with VARIANTS="plain floor record record-nosample", BENCH_REPEATS
#     rounds (default 5) of BENCH_JOBS (default "mlp seed004"; "resnet50 gpt2" fit a second call),
#     interleaved: medians, spread, ratios to plain and to the floor (OUTDIR/bench/summary.txt).
# Default: all (about 6 minutes on one H200). Needs the tree staged by tests/gpu/stage.sh and
# PyTorch at $TORCH_PY (/opt/torch/.venv). Exit 1 when a check fails.
set -u
mode=${2:-all}
. "$(dirname "$0")/recording_env.sh" "$1"
[ -x "$OVERLAPSCOPE" ] || { echo "$0: build or stage first" >&2; exit 2; }
[ -x "$TORCH_PY" ] || { echo "$0: no PyTorch at $TORCH_PY" >&2; exit 2; }
echo "== host samples on $GPUS x $GPU_NAME, driver $DRIVER, CUDA $CUDA_VERSION"
failed=0
T=workloads/torch
record() {
  record_into "$@" || { echo "FAILED to record $1:"; tail -5 "$OUT/$1.log"; failed=1; }
}

if [ "$mode" = record ] || [ "$mode" = all ]; then
  record host_starved_loader -- "$TORCH_PY" $T/starved_loader.py --workers 2 --load-ms 80 --steps 40
  record host_io_loader -- "$TORCH_PY" $T/host_verdicts.py io_loader --steps 30
  record host_launch_blocking CUDA_LAUNCH_BLOCKING=1 -- "$TORCH_PY" $T/host_verdicts.py launch_blocking --steps 20
  record host_launch_blocking_off -- "$TORCH_PY" $T/host_verdicts.py launch_blocking --steps 20
  record host_warmup -- "$TORCH_PY" $T/host_verdicts.py warmup --steps 20
  record host_gc_loop -- "$TORCH_PY" $T/host_verdicts.py gc_loop --steps 20
  record host_lock_wait -- "$TORCH_PY" $T/host_verdicts.py lock_wait --steps 30
  for name in host_starved_loader host_launch_blocking; do
    "$OVERLAPSCOPE" info "$OUT/$name.db" >"$OUT/$name.info" 2>&1 || failed=1
  done
  grep -q "CUDA_LAUNCH_BLOCKING=1" "$OUT/host_launch_blocking.info" ||
    { echo "FAILED: info does not show CUDA_LAUNCH_BLOCKING=1"; failed=1; }
  grep -q "^host samples: 100 Hz" "$OUT/host_starved_loader.info" ||
    { echo "FAILED: info does not show the sample rate"; failed=1; }
  python3 - "$OUT" <<'PY' | tee "$OUT/host_checks.txt" || failed=1
import sqlite3, sys
out = sys.argv[1]
failures = []


def check(label, condition, detail):
    print(("ok    " if condition else "FAIL  ") + f"{label}: {detail}")
    if not condition:
        failures.append(label)


def main_samples(db):
    """(state, innermost function, frames, cpu_ns) of the main thread's samples of the process that
    made the most CUDA calls (forked DataLoader workers record their own samples too, but call none)."""
    pid = db.execute("SELECT p.pid FROM processes p JOIN api_calls a ON a.process_id = p.process_id"
                     " GROUP BY p.pid ORDER BY COUNT(*) DESC LIMIT 1").fetchone()
    if not pid:
        return None, []
    rows = db.execute("SELECT s.state, h.frames, s.cpu_ns FROM host_samples s LEFT JOIN host_stacks h"
                      " ON h.id = s.stack_id WHERE s.pid = ?1 AND s.tid = ?1 ORDER BY s.time_ns", pid).fetchall()
    return pid[0], [(state, (frames or "").split("\n")[0].split(" ")[-1], frames or "", cpu) for state, frames, cpu in rows]


def main_times(db, pid):
    """The times of main_samples' rows, in the same order."""
    return [t for (t,) in db.execute("SELECT time_ns FROM host_samples WHERE pid = ?1 AND tid = ?1"
                                      " ORDER BY time_ns", (pid,))]


def share(rows, predicate):
    return sum(1 for row in rows if predicate(row)) / max(len(rows), 1)


def open_db(name):
    return sqlite3.connect(f"file:{out}/{name}.db?mode=ro", uri=True)


db = open_db("host_starved_loader")
pid, rows = main_samples(db)
check("starved: samples", len(rows) >= 50, f"{len(rows)} main-thread samples")
# In the training loop (its NVTX range "train"): the 4.5 s of imports before it are not the loader's.
train = db.execute("SELECT n.start_ns, n.end_ns FROM nvtx n JOIN strings m ON m.id = n.message_id"
                   " WHERE m.value = 'train'").fetchone() or (0, 0)
loop = [r for r, t in zip(rows, main_times(db, pid)) if train[0] <= t <= train[1]]
check("starved: main waits in the loader", share(loop, lambda r: "dataloader.py" in r[2]) >= 0.5,
      f"{share(loop, lambda r: 'dataloader.py' in r[2]):.2f} of {len(loop)} samples in the train range in "
      f"dataloader.py, {share(loop, lambda r: r[0] == 'S'):.2f} sleeping")
workers = db.execute("SELECT pid, SUM(cpu_ns), COUNT(*) FROM process_cpu_samples WHERE parent_pid = ? GROUP BY pid",
                     (pid,)).fetchall()
busy = [w for w in workers if w[1] > 0.5e9]
check("starved: 2 busy workers", len(busy) >= 2, f"children (pid, cpu_ns, samples): {workers}")

db = open_db("host_io_loader")
pid, rows = main_samples(db)
children = [p for (p,) in db.execute("SELECT DISTINCT pid FROM process_cpu_samples WHERE parent_pid = ?", (pid,))]
states = db.execute("SELECT state, COUNT(*) FROM process_cpu_samples WHERE parent_pid = ? GROUP BY state", (pid,)).fetchall()
waiting = sum(n for s, n in states if s in "SD") / max(sum(n for _, n in states), 1)
check("io: workers wait", len(children) >= 2 and waiting >= 0.6, f"{len(children)} children, states {states}")
worker_stacks = db.execute("SELECT COUNT(*) FROM host_samples s JOIN host_stacks h ON h.id = s.stack_id"
                           " WHERE h.frames LIKE '%read_sample%'").fetchone()[0]
print(f"info  io: {worker_stacks} thread samples in read_sample (workers record too when they are injected)")

for name, expected in (("host_launch_blocking", [("CUDA_LAUNCH_BLOCKING", "1")]), ("host_launch_blocking_off", [])):
    db = open_db(name)
    facts = db.execute("SELECT name, value FROM process_environment WHERE name = 'CUDA_LAUNCH_BLOCKING'").fetchall()
    check(f"{name}: environment", sorted(set(facts)) == expected, f"{facts}")
    secrets = db.execute("SELECT COUNT(*) FROM process_environment WHERE name NOT LIKE 'CUDA_%' AND name NOT LIKE"
                         " 'NCCL_%' AND name NOT LIKE 'TORCH_NCCL_%' AND name NOT LIKE 'PYTORCH_%' AND name NOT LIKE"
                         " 'CUBLAS%' AND name NOT LIKE '%_NUM_THREADS' AND name NOT LIKE 'TORCH_CUDNN%'").fetchone()[0]
    check(f"{name}: nothing beyond the allow-list", secrets == 0, f"{secrets} other variables")

db = open_db("host_warmup")
pid, rows = main_samples(db)
# The loop's 20 x 300 GEMMs last about 0.2 s after CUDA's lazy initialization (0.3 s, seen on an H200):
# at 100 Hz, 10 samples or more in steady_loop.
steady = sum(1 for r in rows if "steady_loop" in r[2])
check("warmup: steady loop", steady >= 10,
      f"{steady} of {len(rows)} samples in steady_loop, "
      f"{sum(1 for r in rows if 'first_call' in r[2])} samples in first_call")

db = open_db("host_gc_loop")
pid, rows = main_samples(db)
# A sample taken while a collection ran starts with the gc hook's marker (STORE_HOST_GC_FRAME).
check("gc: collect_garbage", share(rows, lambda r: "collect_garbage" in (r[2] or "")) >= 0.5,
      f"{share(rows, lambda r: 'collect_garbage' in (r[2] or '')):.2f} of {len(rows)} samples")
check("gc: the collections marked", share(rows, lambda r: (r[2] or "").startswith("<gc> gc.collect")) >= 0.3,
      f"{share(rows, lambda r: (r[2] or '').startswith('<gc> gc.collect')):.2f} of {len(rows)} samples")

db = open_db("host_lock_wait")
pid, rows = main_samples(db)
waiting = [r for r in rows if r[1] == "wait_for_lock"]
check("lock: waits in wait_for_lock", len(waiting) >= 0.3 * len(rows) and share(waiting, lambda r: r[0] == "S") >= 0.8,
      f"{len(waiting)} of {len(rows)} samples, {share(waiting, lambda r: r[0] == 'S'):.2f} of them S")
thread_cpu = sum(r[3] for r in rows)
process_cpu = db.execute("SELECT SUM(cpu_ns) FROM process_cpu_samples WHERE pid = ?", (pid,)).fetchone()[0] or 0
check("lock: another thread computes", process_cpu > 1.5 * thread_cpu, f"process {process_cpu / 1e9:.2f} s, main thread {thread_cpu / 1e9:.2f} s")
for name in ("host_starved_loader", "host_gc_loop", "host_lock_wait"):
    db = open_db(name)
    warnings = db.execute("SELECT message FROM warnings WHERE code = 'host-samples'").fetchall()
    check(f"{name}: no host-samples warning", not warnings, f"{warnings}")
sys.exit(1 if failures else 0)
PY
fi

if [ "$mode" = bench ] || [ "$mode" = all ]; then
  echo "== bench/torch_overhead: host samples at the default rate vs off vs the CUPTI floor"
  VARIANTS="plain floor record record-nosample" PYTHON="$TORCH_PY" OVERLAPSCOPE="$PWD/$OVERLAPSCOPE" \
    CUPTI_FLOOR="$PWD/$BUILD/bench/libcupti_floor.so" \
    bench/torch_overhead/run.sh "$OUT/bench" "${BENCH_REPEATS:-5}" ${BENCH_JOBS:-mlp seed004} >"$OUT/bench.log" 2>&1 || failed=1
  cat "$OUT/bench/summary.txt" 2>/dev/null || { tail -20 "$OUT/bench.log"; failed=1; }
fi
exit $failed
