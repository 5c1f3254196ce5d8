#!/usr/bin/env python3
"""The workload checker (check_workload.py) on hand-built traces whose answers are computed by
hand: each scenario is a few intervals and the exact figure the checker must print."""
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Hand-built traces of schema version 1 (store/schema_v1.sql): plain tables, and readers accept it.
SCHEMA = os.path.join(HERE, "..", "..", "store", "schema_v1.sql")
passed = failed = 0


def expect(what, condition):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {what}")


def trace(path, kernels=(), memcpys=(), streams=(), syncs=(), apis=()):
    """kernels: (process, stream, start, end, name[, channel]); memcpys: (stream, start, end,
    kind, src, bytes, correlation); apis: (name, correlation, start, end)."""
    db = sqlite3.connect(path)
    db.executescript(open(SCHEMA).read())
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    names = {}

    def intern(text):
        if text not in names:
            names[text] = db.execute("INSERT INTO strings(value) VALUES (?)", (text,)).lastrowid
        return names[text]

    for k in kernels:
        process, stream, start, end, name = k[:5]
        channel = k[5] if len(k) > 5 else None
        db.execute("INSERT INTO kernels(process_id, device_id, stream_id, start_ns, end_ns, name_id,"
                   " channel_id) VALUES (?, 0, ?, ?, ?, ?, ?)",
                   (process, stream, start, end, intern(name), channel))
    for stream, start, end, kind, src, size, correlation in memcpys:
        db.execute("INSERT INTO memcpys(process_id, device_id, stream_id, start_ns, end_ns, copy_kind,"
                   " src_kind, bytes, correlation_id) VALUES (1, 0, ?, ?, ?, ?, ?, ?, ?)",
                   (stream, start, end, kind, src, size, correlation))
    for process, stream, legacy, per_thread in streams:
        db.execute("INSERT INTO streams(process_id, context_id, stream_id, is_legacy_default,"
                   " is_per_thread_default) VALUES (?, 1, ?, ?, ?)", (process, stream, legacy, per_thread))
    for sync_type in syncs:
        db.execute("INSERT INTO synchronizations(process_id, sync_type, start_ns, end_ns)"
                   " VALUES (1, ?, 0, 1)", (sync_type,))
    for name, correlation, start, end in apis:
        db.execute("INSERT INTO api_calls(process_id, thread_id, api_domain, name_id, correlation_id,"
                   " start_ns, end_ns) VALUES (1, 1, 1, ?, ?, ?, ?)", (intern(name), correlation, start, end))
    db.commit()
    db.close()


def run(path, *args):
    result = subprocess.run([sys.executable, os.path.join(HERE, "check_workload.py"), path, *args],
                            capture_output=True, text=True)
    return result.returncode, result.stdout.strip()


SPIN = "_ZL14wl_spin_kernelPfxf"
with tempfile.TemporaryDirectory() as tmp:
    def db(name, **parts):
        path = os.path.join(tmp, name + ".db")
        trace(path, **parts)
        return path

    full = db("full", kernels=[(1, 1, 0, 1000, SPIN), (1, 2, 10, 1000, SPIN), (1, 3, 20, 1010, SPIN)])
    rc, out = run(full, "overlap", "--kernel", "spin", "--min", "0.9")
    # streams busy 1000 + 990 + 990 = 2980, union 1010, longest 1000: (2980-1010)/(2980-1000)
    expect("three overlapped streams pass", rc == 0 and out.startswith("PASS overlap 0.99 of possible"))

    serial = db("serial", kernels=[(1, 1, 0, 100, SPIN), (1, 2, 100, 200, SPIN), (1, 1, 300, 400, SPIN),
                                   (1, 2, 400, 500, SPIN)])
    rc, out = run(serial, "overlap", "--min", "0.9")
    expect("serial streams fail a minimum", rc == 1 and out.startswith("FAIL overlap 0.00"))
    rc, out = run(serial, "overlap", "--max", "0.05")
    expect("serial streams pass a maximum", rc == 0)

    half = db("half", kernels=[(1, 1, 0, 100, SPIN), (1, 2, 50, 150, SPIN)])
    expect("half overlap is 0.50", run(half, "overlap")[1].startswith("PASS overlap 0.50"))

    two_processes = db("procs", kernels=[(1, 1, 0, 100, SPIN), (2, 2, 0, 100, SPIN)])
    rc, out = run(two_processes, "overlap")
    expect("streams of different processes are not compared", rc == 2)

    filtered = db("filtered", kernels=[(1, 1, 0, 100, SPIN), (1, 2, 0, 100, "other"),
                                       (1, 3, 200, 300, SPIN)])
    expect("the name filter keeps spin kernels only",
           run(filtered, "overlap", "--kernel", "spin")[1].startswith("PASS overlap 0.00"))

    # 4 streams x 2 kernels of 100 on 2 channels, depth first: each channel runs 0..300.
    queued = db("queued", kernels=[(1, 1, 0, 100, SPIN, 0), (1, 1, 100, 200, SPIN, 0),
                                   (1, 3, 100, 200, SPIN, 0), (1, 3, 200, 300, SPIN, 0),
                                   (1, 2, 0, 100, SPIN, 1), (1, 2, 100, 200, SPIN, 1),
                                   (1, 4, 100, 200, SPIN, 1), (1, 4, 200, 300, SPIN, 1)])
    rc, out = run(queued, "makespan", "--min", "1.4", "--channels", "2")
    expect("shared queues: span 1.50 x on 2 channels", rc == 0 and "1.50 x" in out and "2 channels" in out)
    expect("channel count must match", run(queued, "makespan", "--channels", "4")[0] == 1)

    sparse = db("sparse", kernels=[(1, 1 + i % 2, i * 10, i * 10 + 2, "tiny_add") for i in range(10)])
    rc, out = run(sparse, "busy", "--max", "0.5")
    # busy 20 of a span of 92
    expect("launch-bound busy fraction 0.22", rc == 0 and "busy 0.22" in out)

    pageable = db("pageable", kernels=[(1, 2, 1000, 1500, SPIN)],
                  memcpys=[(1, 0, 1000, 1, 1, 1 << 25, 7)], apis=[("cudaMemcpyAsync", 7, 0, 990)])
    rc, out = run(pageable, "copy-kernel", "--max", "0.2", "--src-kind", "1", "--min-host-held", "0.5")
    expect("pageable copy: no overlap, host held 0.99", rc == 0 and "overlap 0.00" in out and "0.99 x" in out)
    expect("pageable copy is not pinned", run(pageable, "copy-kernel", "--src-kind", "2")[0] == 1)

    pinned = db("pinned", kernels=[(1, 2, 10, 510, SPIN)], memcpys=[(1, 0, 600, 1, 2, 1 << 25, 7)])
    rc, out = run(pinned, "copy-kernel", "--min", "0.8", "--src-kind", "2")
    expect("pinned copy overlaps fully", rc == 0 and "overlap 1.00" in out)

    same = db("same", memcpys=[(1, 0, 100, 1, 2, 1 << 25, 1), (1, 200, 300, 1, 2, 1 << 25, 2),
                               (2, 300, 400, 1, 2, 1 << 25, 3)])
    rc, out = run(same, "copy-pair", "--min", "1.6")
    expect("serialized pair takes 2.00 x", rc == 0 and "2.00 x" in out and "overlapped 0.00" in out)
    shared = db("shared", memcpys=[(1, 0, 100, 1, 2, 1 << 25, 1), (1, 200, 390, 1, 2, 1 << 25, 2),
                                   (2, 205, 400, 2, 2, 1 << 25, 3)])
    rc, out = run(shared, "copy-pair", "--max", "1.4")
    expect("bandwidth-shared pair still fails the opposite-direction bound", rc == 1 and "2.00 x" in out)

    gathers = db("gathers", kernels=[(1, 1, 0, 50, "ncclDevKernel_AllGather_RING_LL"),
                                     (1, 2, 50, 100, "ncclDevKernel_AllGather_RING_LL"),
                                     (1, 1, 100, 110, SPIN), (2, 1, 0, 60, "ncclDevKernel_AllGather_RING_LL"),
                                     (2, 2, 60, 100, "ncclDevKernel_AllGather_RING_LL")])
    rc, out = run(gathers, "nccl", "--op", "AllGather", "--min-count", "4", "--max", "0.05")
    expect("4 serialized all_gathers", rc == 0 and "4 NCCL AllGather kernels in 2 processes" in out)

    ddp = db("ddp", kernels=[(1, 1, 0, 100, "gemm"), (1, 1, 100, 101, "bucket_ready_probe"),
                             (1, 1, 101, 300, "gemm"), (1, 2, 111, 211, "ncclDevKernel_AllReduce_Sum_f32"),
                             (1, 1, 300, 301, "bucket_ready_probe"),
                             (1, 2, 401, 501, "ncclDevKernel_AllReduce")])
    rc, out = run(ddp, "comm-overlap", "--min", "0.4")
    expect("half the NCCL time overlapped", rc == 0 and "overlapped by compute 0.50" in out)
    rc, out = run(ddp, "comm-overlap", "--comm", "f32", "--min", "0.5")
    expect("--comm counts the f32 all-reduce alone (fully overlapped)",
           rc == 0 and "overlapped by compute 1.00 of 0.00 ms" in out)
    late = db("late", kernels=[(1, 1, 100, 101, "bucket_ready_probe"),
                               (1, 3, 500, 510, "ncclDevKernel_AllReduce_Sum_f64"),
                               (1, 2, 1101, 1200, "ncclDevKernel_AllReduce_Sum_f32")])
    rc, out = run(late, "nccl-delay", "--comm", "f32", "--baseline", ddp, "--min-ratio", "2")
    # delays: late 1000 ns; baseline median of 10 and 100 = 55 ns, floored at 1 us
    expect("NCCL delay vs baseline floored at 1 us", rc == 1 and "median 1.0 us" in out)
    rc, out = run(late, "nccl-delay", "--baseline", ddp)
    expect("without --comm the f64 kernel pairs first", "median 0.4 us" in out)

    marked = db("marked", kernels=[(1, 7, 0, 10, SPIN)], streams=[(1, 7, 1, 0)])
    expect("legacy stream marked", run(marked, "stream-kind", "--kernel", "spin")[0] == 0)
    expect("not per-thread", run(marked, "stream-kind", "--kernel", "spin", "--kind", "per-thread")[0] == 1)

    waits = db("waits", syncs=[2, 2, 3], apis=[("cudaStreamSynchronize", 1, 0, 5)])
    expect("two wait-event records", run(waits, "sync", "--type", "2", "--min-count", "2")[0] == 0)
    expect("not three", run(waits, "sync", "--type", "2", "--min-count", "3")[0] == 1)
    expect("API calls by name", run(waits, "sync", "--api", "cudaStreamSynchronize")[0] == 0)

    # ddp --layers 4 --size 2 --buckets 2: buckets of 2 layers x 2x2 weights + 1 probe = 9 floats, 36 bytes
    buckets = db("buckets")
    conn = sqlite3.connect(buckets)
    for size, kernel in ((36, 1), (36, 2), (8, None)):
        conn.execute("INSERT INTO collectives(process_id, op, bytes, dtype, algorithm, communicator, kernel_rowid,"
                     " detail_source) VALUES (1, 'AllReduce', ?, ?, 'RING', 'c0ffee', ?, 2)",
                     (size, "f32" if kernel else "f64", kernel))
    conn.commit()
    rc, out = run(buckets, "nccl-bytes", "--layers", "4", "--size", "2", "--buckets", "2")
    expect("bucket bytes from the plugin", rc == 0 and "2 all-reduces of [36] bytes" in out)
    expect("other bucket sizes fail", run(buckets, "nccl-bytes", "--layers", "4", "--size", "2", "--buckets", "1")[0] == 1)
    conn = sqlite3.connect(buckets)
    conn.execute("UPDATE collectives SET kernel_rowid = NULL WHERE kernel_rowid = 2")
    conn.commit()
    expect("an unlinked all-reduce fails", run(buckets, "nccl-bytes", "--layers", "4", "--size", "2", "--buckets", "2")[0] == 1)

    rc, out = run(os.path.join(tmp, "missing.db"), "overlap")
    expect("a missing trace is an input error", rc == 2 and out.startswith("FAIL"))
    empty = db("empty")
    expect("no kernels is an input error", run(empty, "overlap")[0] == 2)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
