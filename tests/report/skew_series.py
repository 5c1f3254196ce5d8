#!/usr/bin/env python3
"""Arrival skew on real ranks (issue 18). workloads/ddp.cu with --skew-us N: every rank's host
waits for its forward pass and spins 100 us, rank 1 N us more, before backward, every step. For
each golden folder that holds the series (ddp: N = 0, ddp_skew_500: 500, ddp_skew: 2000):

  truth    each collective instance's arrival difference read straight from the trace: the two
           ranks' NCCL kernels of one (communicator, sequence number), the later start minus the
           earlier (both ranks of one host: one clock). The report's skew_ns of that instance (a
           difference of the kernels' durations, which needs no common clock) must equal it
           within 5 us (the ends differ by 1-2 us) and name the same rank as the last to arrive;
           a skew under 10 us the report counts as none (ACCOUNTING_SKEW_MIN_NS);
  N        the report's per-collective skew, steps 2 on (step 0: NCCL's set-up and rank 0's
           verification work; step 1 begins with a cudaDeviceSynchronize): rank 1 the straggler
           and the rank rank 0 waits for, the median within 10% of N plus the ranks' own lag, the
           N = 0 trace's median (the ranks are not otherwise equal: on 2x H200, 2026-11-28, rank 0
           arrived 136-181 us late at every collective of the unskewed run, so rank 1 delayed by N
           arrives that much less late: N = 500 read 343-445 us over three runs, N = 2000
           1978-2158); with N = 0, every rank's exposed skew under 2% of its median step in every
           such step (near zero: rank 1 waited 190-210 us a 23 ms step for rank 0).
Prints each instance's figures. Usage: skew_series.py OVERLAPSCOPE FOLDER... (exit 1 on a miss,
77 when no folder holds the series)."""
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys

SERIES = [("ddp", 0), ("ddp_skew_500", 500), ("ddp_skew", 2000)]
SHARE, ZERO_SHARE, EXACT_NS, NONE_NS, FIRST_STEP = 0.10, 0.02, 5000, 10000, 2


def arrivals(path):
    """{(communicator, sequence): {rank: kernel start}} from the trace itself."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for communicator, sequence, rank, start in db.execute(
            "SELECT c.communicator, c.sequence_number, p.rank, k.start_ns FROM collectives c"
            " JOIN processes p ON p.process_id = c.process_id JOIN kernels k ON k.rowid = c.kernel_rowid"
            " WHERE c.sequence_number IS NOT NULL AND p.rank IS NOT NULL"):
        out.setdefault((communicator, sequence), {})[rank] = start
    first_step = db.execute("SELECT MIN(n.start_ns) FROM nvtx n JOIN strings s ON s.id = n.message_id"
                            " WHERE s.value = ?", (f"step {FIRST_STEP}",)).fetchone()[0]
    db.close()
    return out, first_step


def check(overlapscope, path, skew_us, lag_us):
    out = subprocess.run([overlapscope, "report", "--json", path], capture_output=True, text=True)
    if out.returncode != 0:
        return [f"report rc {out.returncode}: {out.stderr.strip()}"], ""
    report = json.loads(out.stdout)
    truth, first_step = arrivals(path)
    problems, timed = [], []
    for instance in report["collective_instances"]:
        starts = truth.get((instance["communicator"], instance["instance"]))
        if not starts or len(starts) != 2:
            problems.append(f"instance {instance['instance']}: not in the trace on both ranks")
            continue
        late = max(starts, key=starts.get)
        raw = max(starts.values()) - min(starts.values())
        counted = raw if raw >= NONE_NS else 0
        if abs(instance["skew_ns"] - counted) > EXACT_NS or (counted and instance["last"]["rank"] != late):
            problems.append(f"instance {instance['instance']}: skew {instance['skew_ns']} ns, rank "
                            f"{instance['last']['rank']} last; the trace: {raw} ns, rank {late}")
        if first_step is not None and min(starts.values()) >= first_step:
            timed.append(instance["skew_ns"] / 1e3)
    straggler = (report.get("straggler") or {}).get("rank")
    skew_of = lambda st: sum(c["ns"] for c in st["exposed_communication"]["causes"] if c["cause"] == "skew") / 1e3
    later = [st for st in report["step_accounting"] if st["step"] >= FIRST_STEP]
    steps = [st for st in later if st["rank"] == 0]
    waited = {c["label"] for st in steps for c in st["exposed_communication"]["causes"] if c["cause"] == "skew"}
    exposed = [skew_of(st) for st in steps]
    step_us = statistics.median((st["end_ns"] - st["start_ns"]) / 1e3 for st in report["steps"]
                                if st["number"] >= FIRST_STEP) if report["steps"] else 0
    median = statistics.median(timed) if timed else float("nan")
    if not timed:
        problems.append("no collective after step 2 starts")
    elif skew_us == 0:
        worst = max((skew_of(st) for st in later), default=0)
        if worst > ZERO_SHARE * step_us:
            problems.append(f"a rank's exposed skew in a step {worst:.0f} us, over {ZERO_SHARE:.0%} of {step_us:.0f} us")
    else:
        if abs(median - skew_us) > SHARE * skew_us + lag_us:
            problems.append(f"median skew {median:.0f} us, not within {SHARE:.0%} of {skew_us} us "
                            f"plus the ranks' own lag, {lag_us:.0f} us")
        if straggler != 1 or waited != {"rank 1"}:
            problems.append(f"straggler rank {straggler}, rank 0 waited for {sorted(waited)}")
    summary = (f"N = {skew_us} us: per collective from step {FIRST_STEP} median {median:.0f} us "
               f"({min(timed, default=0):.0f}-{max(timed, default=0):.0f}, {len(timed)} collectives), "
               f"each equal to the trace's arrival difference; rank 0's exposed skew per step "
               f"{', '.join(f'{x:.0f}' for x in exposed)} us (median step {step_us:.0f} us); straggler rank {straggler}")
    return problems, summary, median


def main():
    overlapscope, folders = sys.argv[1], sys.argv[2:]
    checked = failed = 0
    for folder in folders:
        if not all(os.path.exists(os.path.join(folder, name + ".db")) for name, _ in SERIES):
            continue
        print(f"== {folder}")
        lag_us = 0.0  # the N = 0 run's median skew, read first
        for name, skew_us in SERIES:
            problems, summary, median = check(overlapscope, os.path.join(folder, name + ".db"), skew_us, lag_us)
            if skew_us == 0 and not math.isnan(median):
                lag_us = median
            print(f"{'FAIL' if problems else 'ok  '} {name}: {summary}")
            for problem in problems:
                print(f"     {problem}")
            checked += 1
            failed += bool(problems)
    if not checked:
        print("skipped: no folder holds the skew series")
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
