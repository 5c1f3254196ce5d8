#!/usr/bin/env python3
"""The five real Nsight Systems exports of ../shared/traces/nsys (nsys 2022.2 to 2025.5, from public
repositories; not in the repository, so CI skips this test), imported and checked against figures
read from each export with sqlite3:

  streams:  SELECT streamId, priority, flag FROM TARGET_INFO_CUDA_STREAM  (flag 3: the NULL stream;
            priority 4294967291 is CUPTI's -5)
  host:     SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'
  process:  SELECT name FROM PROCESSES WHERE pid = P, with META_DATA_CAPTURE's PROCESS_0:ARGUMENT_n
  syncs:    SELECT syncType, COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (2024.5 says 1 for its
            1312 cudaDeviceSynchronize records, 2025.5 says 4)
  polls:    OSRT_API rows named poll of the process lasting 10 us or more
  thread:   SELECT value FROM ThreadNames JOIN StringIds ON id = nameId WHERE globalTid = (P << 24) | P
  NVTX:     NVTX_EVENTS rows of eventType 34, 59, 60 with a text

Usage: nsys_real.py WORK_DIR (OVERLAPSCOPE names the binary; OVERLAPSCOPE_NSYS_TRACES the folder,
default ../shared/traces/nsys beside the repository). Exit 77 (skipped) when the folder is absent."""
import json
import os
import sqlite3
import subprocess
import sys

OVERLAPSCOPE = os.environ.get("OVERLAPSCOPE", "overlapscope")
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.environ.get("OVERLAPSCOPE_NSYS_TRACES",
                        os.path.join(HERE, "..", "..", "..", "shared", "traces", "nsys"))

# file: version, pid, host, command line, kernels, memcpys, memsets, NVTX ranges, streams
# (id, priority, flags) with the legacy one first, sync types, polls, GPU activity
EXPORTS = {
    "saxpy_mpi_perlmutter0": dict(
        version="2022.2", pid=1230493, host="nid001608", command="./saxpy-mpi-cuda", kernels=5, memcpys=15,
        memsets=0, nvtx=22, legacy=7, thread="MPI Rank 0", streams={7: (0, 3), 6: (0, 1), 8: (0, 2), 9: (0, 2), 10: (0, 2), 11: (0, 2),
                                              12: (-5, 1)}, syncs={}, polls=0),
    "cloverleaf_perlmutter": dict(
        version="2024.5", pid=1701896, host="nid008553",
        command="cuda-cloverleaf --in ../CloverLeaf-hip/InputDecks/clover_bm32_prof.in", kernels=1312, memcpys=279,
        memsets=0, nvtx=0, legacy=7, thread="cuda-cloverleaf",
        streams={7: (0, 3), 6: (0, 1), 8: (0, 2), 9: (0, 2), 10: (0, 2), 11: (0, 2), 12: (0, 2), 13: (0, 2), 14: (0, 2), 15: (-5, 1)},
        syncs={4: 1312}, polls=17),
    "uvmtorch_report1": dict(
        version="2025.3", pid=47339, host="synerg",
        command="python argumenterised_script.py --batch_size 1 --seq_len 1200 --model_name=EleutherAI/gpt-neo-2.7B"
        " --steps=6 --build_csv=1 --optimiser_offload=1", thread="python", kernels=0, memcpys=0, memsets=0, nvtx=0, legacy=7,
        streams={7: (0, 3), 6: (0, 1), 8: (0, 2), 9: (0, 2), 10: (0, 2), 11: (0, 2), 12: (-5, 1)}, syncs={},
        polls=28),
    "weatherbench_report1": dict(
        version="2025.5.1", pid=2568473, host="vengeance", command="./climate_train_unet --stream --max_batches 100", thread="climate_train_u",
        kernels=0, memcpys=0, memsets=1, nvtx=0, legacy=7,
        streams={**{s: (0, 2) for s in range(8, 29)}, 7: (0, 3), 6: (0, 1), 12: (-5, 1)}, syncs={}, polls=14),
    "sandbox_report1": dict(
        version="2025.5.2", pid=1246, host="DESKTOP-70MGH34", command="./vecAdd", thread="vecAdd", kernels=1, memcpys=3, memsets=0,
        nvtx=0, legacy=7, streams={7: (0, 3), 6: (0, 1), 8: (0, 2), 9: (0, 2), 10: (0, 2), 11: (0, 2), 12: (-5, 1)},
        syncs={4: 1}, polls=7),
}

failures = []


def check(what, actual, expected):
    if actual != expected:
        failures.append(f"{what}: got {actual!r}, expected {expected!r}")


def main():
    if not os.path.isdir(TRACES):
        print(f"skipped: no real Nsight Systems exports in {TRACES} (set OVERLAPSCOPE_NSYS_TRACES)")
        return 77
    work = sys.argv[1]
    for name, want in EXPORTS.items():
        trace = os.path.join(work, name + ".db")
        result = subprocess.run([OVERLAPSCOPE, "import", "--force", "-o", trace,
                                 os.path.join(TRACES, name + ".sqlite")], capture_output=True, text=True)
        check(f"{name}: import ({result.stderr.strip()})", result.returncode, 0)
        if result.returncode != 0:
            continue
        db = sqlite3.connect(trace)
        one = lambda sql: db.execute(sql).fetchall()
        label = f"{name} (nsys {want['version']})"
        check(f"{label} process", one("SELECT pid, host, command_line FROM processes"),
              [(want["pid"], want["host"], want["command"])])
        check(f"{label} meta host", one("SELECT value FROM meta WHERE key = 'host'"), [(want["host"],)])
        check(f"{label} main thread's name", one("SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id"
                                                 f" WHERE t.thread_id = {want['pid']}"), [(want["thread"],)])
        for table in ("kernels", "memcpys", "memsets"):
            check(f"{label} {table}", one(f"SELECT COUNT(*) FROM {table}")[0][0], want[table])
        check(f"{label} NVTX", one("SELECT COUNT(*) FROM nvtx")[0][0], want["nvtx"])
        streams = {s: (p, f) for s, p, f in one("SELECT stream_id, priority, flags FROM streams")}
        check(f"{label} streams (priority, flags)", streams, want["streams"])
        check(f"{label} legacy default stream", one("SELECT stream_id FROM streams WHERE is_legacy_default = 1"),
              [(want["legacy"],)])
        check(f"{label} sync types", dict(one("SELECT sync_type, COUNT(*) FROM synchronizations GROUP BY 1")),
              want["syncs"])
        check(f"{label} polls kept", one("SELECT COUNT(*) FROM api_calls a JOIN strings s ON s.id = a.name_id"
                                         " WHERE a.api_domain = 3 AND s.value = 'poll'")[0][0], want["polls"])
        codes = [c for (c,) in one("SELECT DISTINCT code FROM warnings")]
        gpu = want["kernels"] + want["memcpys"] + want["memsets"] > 0
        check(f"{label} warned of no GPU activity", "import-no-gpu-activity" in codes, not gpu)
        check(f"{label} shared-queue not checkable",
              one("SELECT COUNT(*) FROM warnings WHERE code = 'cause-not-checkable' AND message LIKE 'shared-queue %'")
              [0][0], 1 if gpu else 0)
        check(f"{label} profiler overhead warned", "profiler-overhead" in codes, True)
        if not gpu:
            continue
        report = subprocess.run([OVERLAPSCOPE, "report", "--json", trace], capture_output=True, text=True)
        check(f"{label} report", report.returncode, 0)
        if report.returncode == 0:
            roles = {s["stream_id"]: (s["role"], s["legacy_default"]) for s in json.loads(report.stdout)["streams"]}
            legacy = roles.get(want["legacy"])
            check(f"{label} report: the NULL stream", legacy, ("default", True) if legacy else None)
    uvm = sqlite3.connect(os.path.join(work, "uvmtorch_report1.db"))
    check("uvmtorch: nsys's own reason", uvm.execute(
        "SELECT COUNT(*) FROM warnings WHERE message = 'nsys warning: CUDA profiling might have not been started"
        " correctly. (27 times)'").fetchall(), [(1,)])
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
