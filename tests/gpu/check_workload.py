#!/usr/bin/env python3
"""check_workload.py: asserts a reference workload's documented outcome (workloads/README.md)
straight from the intervals an overlapscope recording holds (docs/trace-format.md), independent
of the analyzer. Prints one line, "PASS <figure>" or "FAIL <figure>: <why>", and exits 0 or 1;
an unreadable trace or a bad argument prints one line and exits 2.

usage: check_workload.py DB CHECK [options]   (check_workload.py --help lists the checks)
"""
import argparse
import re
import sqlite3
import statistics
import sys

NCCL = re.compile(r"nccl", re.IGNORECASE)


class InputError(Exception):
    pass


# ---- intervals ---------------------------------------------------------------------------------

def merge(intervals):
    """Sorted, disjoint union of (start, end) pairs."""
    merged = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def length(merged):
    return sum(end - start for start, end in merged)


def intersect(a, b):
    """Length of the intersection of two merged interval lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def overlap_terms(by_stream):
    """(sum of per-stream busy, union busy, longest stream busy) for {stream: [(s, e)]}."""
    busy = {s: length(merge(iv)) for s, iv in by_stream.items()}
    union = length(merge([i for iv in by_stream.values() for i in iv]))
    return sum(busy.values()), union, max(busy.values(), default=0)


# ---- trace access ------------------------------------------------------------------------------

def open_trace(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as error:
        raise InputError(f"cannot read '{path}': {error}")
    return db


def kernels(db, pattern=None, exclude=None):
    """Kernel rows as dicts, name-filtered by regular expressions (search, case-insensitive)."""
    rows = db.execute(
        "SELECT k.process_id, k.device_id, k.stream_id, k.start_ns, k.end_ns, k.channel_id,"
        " k.correlation_id, s.value FROM kernels k JOIN strings s ON s.id = k.name_id"
        " ORDER BY k.start_ns").fetchall()
    keys = ("process", "device", "stream", "start", "end", "channel", "correlation", "name")
    out = [dict(zip(keys, row)) for row in rows]
    if pattern:
        out = [k for k in out if re.search(pattern, k["name"], re.IGNORECASE)]
    if exclude:
        out = [k for k in out if not re.search(exclude, k["name"], re.IGNORECASE)]
    return out


def group(rows, key):
    groups = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


def per_stream(rows):
    return {k: [(r["start"], r["end"]) for r in v]
            for k, v in group(rows, lambda r: r["stream"]).items()}


def require(rows, what, minimum=1):
    if len(rows) < minimum:
        raise InputError(f"the trace holds {len(rows)} {what} (need {minimum})")
    return rows


# ---- checks: each returns (passed, figure text) ------------------------------------------------

def bounds(value, args):
    ok = True
    if args.min is not None and value < args.min:
        ok = False
    if args.max is not None and value > args.max:
        ok = False
    want = []
    if args.min is not None:
        want.append(f">= {args.min:g}")
    if args.max is not None:
        want.append(f"<= {args.max:g}")
    return ok, " and ".join(want) or "any"


def check_overlap(db, args):
    """Achieved over possible overlap of kernels on different streams of one device:
    (sum of stream busy - union) / (sum of stream busy - longest stream busy). 1: everything that
    could run side by side did; 0: one after another."""
    rows = require(kernels(db, args.kernel, args.exclude), "matching kernels", 2)
    total_sum = total_union = total_max = 0
    streams = 0
    for _, device_rows in group(rows, lambda r: (r["process"], r["device"])).items():
        s, u, m = overlap_terms(per_stream(device_rows))
        total_sum, total_union, total_max = total_sum + s, total_union + u, total_max + m
        streams = max(streams, len(per_stream(device_rows)))
    if streams < 2:
        raise InputError(f"the matching kernels ran on {streams} stream (need 2 or more)")
    ratio = (total_sum - total_union) / (total_sum - total_max) if total_sum > total_max else 0.0
    ok, want = bounds(ratio, args)
    return ok, (f"overlap {ratio:.2f} of possible ({len(rows)} kernels, {streams} streams, "
                f"busy {total_union / 1e6:.2f} ms of {total_sum / 1e6:.2f} ms stream time; want {want})")


def check_makespan(db, args):
    """Union busy time over the longest stream's busy time (1.0: the streams hid each other), and
    the distinct hardware channels (CUPTI channelID) the streams used."""
    rows = require(kernels(db, args.kernel, args.exclude), "matching kernels", 2)
    ratios, channels, streams = [], set(), set()
    for _, device_rows in group(rows, lambda r: (r["process"], r["device"])).items():
        _, union, longest = overlap_terms(per_stream(device_rows))
        ratios.append(union / longest if longest else 0.0)
        channels |= {(r["process"], r["channel"]) for r in device_rows if r["channel"] is not None}
        streams |= {(r["process"], r["stream"]) for r in device_rows}
    ratio = max(ratios)
    ok, want = bounds(ratio, args)
    figure = (f"busy span {ratio:.2f} x the longest stream ({len(streams)} streams on "
              f"{len(channels)} channels; want {want}")
    if args.channels is not None:
        figure += f", {args.channels} channels"
        ok = ok and len(channels) == args.channels
    return ok, figure + ")"


def check_busy(db, args):
    """Fraction of the kernels' span the device was executing any matching kernel."""
    rows = require(kernels(db, args.kernel, args.exclude), "matching kernels", 2)
    fractions = []
    for _, device_rows in group(rows, lambda r: (r["process"], r["device"])).items():
        span = max(r["end"] for r in device_rows) - min(r["start"] for r in device_rows)
        busy = length(merge([(r["start"], r["end"]) for r in device_rows]))
        fractions.append(busy / span if span else 1.0)
    fraction = max(fractions)
    durations = [r["end"] - r["start"] for r in rows]
    starts = sorted(r["start"] for r in rows)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    ok, want = bounds(fraction, args)
    return ok, (f"GPU busy {fraction:.2f} of the span ({len(rows)} kernels, median kernel "
                f"{statistics.median(durations) / 1e3:.1f} us, median launch-to-launch "
                f"{statistics.median(gaps) / 1e3:.1f} us; want {want})")


def memcpys(db, copy_kind=None):
    sql = ("SELECT m.process_id, m.device_id, m.stream_id, m.start_ns, m.end_ns, m.copy_kind,"
           " m.src_kind, m.dst_kind, m.bytes, m.correlation_id FROM memcpys m")
    keys = ("process", "device", "stream", "start", "end", "kind", "src", "dst", "bytes",
            "correlation")
    rows = [dict(zip(keys, r)) for r in db.execute(sql + " ORDER BY m.start_ns")]
    return [r for r in rows if copy_kind is None or r["kind"] == copy_kind]


def api_duration(db, process, correlation):
    row = db.execute("SELECT end_ns - start_ns FROM api_calls WHERE process_id = ? AND"
                     " correlation_id = ? AND api_domain = 1", (process, correlation)).fetchone()
    return row[0] if row else None


def check_copy_kernel(db, args):
    """H2D copies beside kernels: the copies' memory kind, how much of the shorter side ran
    alongside the other, and how long the host was held in the copy call."""
    copies = require([c for c in memcpys(db, 1) if c["bytes"] >= args.min_bytes],
                     "large host-to-device copies")
    rows = require(kernels(db, args.kernel, args.exclude), "matching kernels")
    copy_busy = merge([(c["start"], c["end"]) for c in copies])
    kernel_busy = merge([(k["start"], k["end"]) for k in rows])
    shorter = min(length(copy_busy), length(kernel_busy))
    ratio = intersect(copy_busy, kernel_busy) / shorter if shorter else 0.0
    kinds = sorted({c["src"] for c in copies})
    held = [api_duration(db, c["process"], c["correlation"]) / (c["end"] - c["start"])
            for c in copies if c["end"] > c["start"]
            and api_duration(db, c["process"], c["correlation"]) is not None]
    ok, want = bounds(ratio, args)
    figure = f"copy/kernel overlap {ratio:.2f} (want {want}), src_kind {kinds}"
    if args.src_kind is not None:
        ok = ok and kinds == [args.src_kind]
        figure += f" (want [{args.src_kind}])"
    if held:
        figure += f", host held in the copy call {statistics.median(held):.2f} x its duration"
        if args.min_host_held is not None:
            ok = ok and statistics.median(held) >= args.min_host_held
            figure += f" (want >= {args.min_host_held:g})"
    elif args.min_host_held is not None:
        ok = False
        figure += ", no API record for the copies"
    return ok, figure


def check_copy_pair(db, args):
    """Copies come in threes (one alone, then two at once): the pair's busy time over the solo
    copy's, and how much the pair's two copies overlapped each other."""
    copies = [c for c in memcpys(db) if c["bytes"] >= args.min_bytes and c["kind"] in (1, 2)]
    require(copies, "large copies", 3)
    ratios, overlaps = [], []
    for i in range(0, len(copies) - 2, 3):
        solo, a, b = copies[i:i + 3]
        pair = merge([(a["start"], a["end"]), (b["start"], b["end"])])
        ratios.append(length(pair) / (solo["end"] - solo["start"]))
        shorter = min(a["end"] - a["start"], b["end"] - b["start"])
        overlaps.append(intersect(merge([(a["start"], a["end"])]), merge([(b["start"], b["end"])]))
                        / shorter if shorter else 0)
    ratio = statistics.median(ratios)
    ok, want = bounds(ratio, args)
    return ok, (f"pair takes {ratio:.2f} x the solo copy (want {want}); the two copies overlapped "
                f"{statistics.median(overlaps):.2f} of the shorter ({len(ratios)} pairs)")


def check_nccl(db, args):
    """NCCL kernels: how many, of which operation, and whether the ones on different streams of
    one process ever ran at the same time."""
    rows = [k for k in kernels(db, "nccl") if not args.op or re.search(args.op, k["name"], re.I)]
    processes = len({k["process"] for k in rows})
    figure = f"{len(rows)} NCCL {args.op or ''} kernels in {processes} processes"
    ok = len(rows) >= (args.min_count or 0)
    if args.min_count is not None:
        figure += f" (want >= {args.min_count})"
    if args.max_count is not None:
        ok = ok and len(rows) <= args.max_count
        figure += f" (want <= {args.max_count})"
    if args.max is not None or args.min is not None:
        total_sum = total_union = total_max = 0
        for _, process_rows in group(rows, lambda r: r["process"]).items():
            s, u, m = overlap_terms(per_stream(process_rows))
            total_sum, total_union, total_max = total_sum + s, total_union + u, total_max + m
        ratio = (total_sum - total_union) / (total_sum - total_max) if total_sum > total_max else 0.0
        good, want = bounds(ratio, args)
        ok = ok and good
        figure += f"; overlap across streams {ratio:.2f} (want {want})"
    return ok, figure


def comm_overlap(db, comm_pattern="nccl"):
    """NCCL kernel time (of kernels whose name matches comm_pattern) and how much of it compute
    kernels ran beside, summed over (process, device)."""
    all_rows = kernels(db)
    overlapped = total = 0
    for _, rows in group(all_rows, lambda r: (r["process"], r["device"])).items():
        comm = merge([(r["start"], r["end"]) for r in rows
                      if NCCL.search(r["name"]) and re.search(comm_pattern, r["name"])])
        compute = merge([(r["start"], r["end"]) for r in rows if not NCCL.search(r["name"])])
        overlapped += intersect(comm, compute)
        total += length(comm)
    return overlapped, total


def check_comm_overlap(db, args):
    """Fraction of NCCL kernel time (--comm: of matching kernels only) during which compute kernels
    ran on the same device."""
    overlapped, total = comm_overlap(db, args.comm)
    if total == 0:
        raise InputError("the trace holds no NCCL kernels")
    ratio = overlapped / total
    ok, want = bounds(ratio, args)
    return ok, f"NCCL time overlapped by compute {ratio:.2f} of {total / 1e6:.2f} ms (want {want})"


def nccl_delays(db, ready_pattern, comm_pattern, count):
    """Per process: the i-th NCCL kernel's start minus the end of the i-th 'ready' kernel."""
    delays = []
    for _, rows in group(kernels(db), lambda r: r["process"]).items():
        ready = [r for r in rows if re.search(ready_pattern, r["name"])][:count or None]
        comm = [r for r in rows if NCCL.search(r["name"]) and re.search(comm_pattern, r["name"])]
        comm = comm[:len(ready)]
        delays += [c["start"] - r["end"] for r, c in zip(ready, comm)]
    return delays


def check_nccl_delay(db, args):
    """Median time from a bucket becoming ready (end of its probe kernel) to its NCCL kernel's
    start, optionally compared with a baseline recording."""
    delays = nccl_delays(db, args.ready, args.comm, args.count)
    if not delays:
        raise InputError("no NCCL kernels paired with ready kernels")
    median = statistics.median(delays)
    ok, want = bounds(median / 1e3, args)
    figure = f"NCCL start delay median {median / 1e3:.1f} us over {len(delays)} (want {want} us)"
    if args.baseline:
        base = nccl_delays(open_trace(args.baseline), args.ready, args.comm, args.count)
        if not base:
            raise InputError(f"no NCCL kernels paired with ready kernels in '{args.baseline}'")
        base_median = statistics.median(base)
        figure += f", baseline {base_median / 1e3:.1f} us"
        if args.min_ratio is not None:
            ok = ok and median >= args.min_ratio * max(base_median, 1000)
            figure += f" (want >= {args.min_ratio:g} x max(baseline, 1 us))"
    return ok, figure


def check_stream_kind(db, args):
    """The kernels matching --kernel include some on a legacy (or per-thread) default stream,
    as the streams table marks them."""
    rows = require(kernels(db, args.kernel, args.exclude), "matching kernels")
    column = "is_legacy_default" if args.kind == "legacy" else "is_per_thread_default"
    marked = {(p, s) for p, s in db.execute(
        f"SELECT process_id, stream_id FROM streams WHERE {column} = 1")}
    hits = [r for r in rows if (r["process"], r["stream"]) in marked]
    return len(hits) > 0, (f"{len(hits)} of {len(rows)} kernels on a stream marked "
                           f"{args.kind} default ({len(marked)} such streams)")


def check_sync(db, args):
    """Synchronization records of one CUPTI type (2 stream wait event, 3 stream synchronize, 4
    context synchronize) and/or runtime API calls of one name."""
    figure, ok = [], True
    if args.type is not None:
        count = db.execute("SELECT count(*) FROM synchronizations WHERE sync_type = ?",
                           (args.type,)).fetchone()[0]
        ok = ok and count >= args.min_count
        figure.append(f"{count} synchronization records of type {args.type}")
    if args.api:
        count = db.execute("SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id"
                           " WHERE s.value LIKE ?", (args.api + "%",)).fetchone()[0]
        ok = ok and count >= args.min_count
        figure.append(f"{count} {args.api} calls")
    return ok, ", ".join(figure) + f" (want >= {args.min_count} each)"


def ddp_bucket_bytes(layers, size, buckets):
    """The byte size of each gradient bucket of workloads/ddp.cu: its layers' size x size f32
    weights plus one probe float (bucket b holds layers from the last, as ddp.cu splits them)."""
    sizes = []
    for b in range(buckets):
        last = layers - 1 - b * layers // buckets
        first = layers - (b + 1) * layers // buckets
        sizes.append(4 * ((last - first + 1) * size * size + 1))
    return sizes


def check_nccl_bytes(db, args):
    """ddp's f32 all-reduces, from NCCL's profiler plugin: their byte sizes are the buckets',
    each linked to an NCCL kernel, with algorithm and communicator."""
    rows = db.execute("SELECT bytes, algorithm, communicator, kernel_rowid FROM collectives"
                      " WHERE op = 'AllReduce' AND dtype = 'f32' AND detail_source = 2").fetchall()
    require(rows, "plugin AllReduce f32 collectives")
    want = sorted(set(ddp_bucket_bytes(args.layers, args.size, args.buckets)))
    seen = sorted({r[0] for r in rows})
    complete = all(r[1] and r[2] and r[3] is not None for r in rows)
    return seen == want and complete, (f"{len(rows)} all-reduces of {seen} bytes (want {want}),"
                                       f" {'all' if complete else 'not all'} with algorithm, communicator, kernel")


CHECKS = {
    "overlap": check_overlap,
    "makespan": check_makespan,
    "busy": check_busy,
    "copy-kernel": check_copy_kernel,
    "copy-pair": check_copy_pair,
    "nccl": check_nccl,
    "comm-overlap": check_comm_overlap,
    "nccl-delay": check_nccl_delay,
    "stream-kind": check_stream_kind,
    "sync": check_sync,
    "nccl-bytes": check_nccl_bytes,
}


def parse(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="checks: " + "; ".join(f"{n}: {f.__doc__.split(chr(10))[0]}" for n, f in CHECKS.items()))
    parser.add_argument("db")
    parser.add_argument("check", choices=sorted(CHECKS))
    parser.add_argument("--kernel", help="regular expression kernel names must match")
    parser.add_argument("--exclude", help="regular expression kernel names must not match")
    parser.add_argument("--min", type=float)
    parser.add_argument("--max", type=float)
    parser.add_argument("--channels", type=int, help="makespan: distinct channels expected")
    parser.add_argument("--src-kind", type=int, help="copy-kernel: expected memcpy src_kind")
    parser.add_argument("--min-host-held", type=float,
                        help="copy-kernel: API call duration over copy duration, at least")
    parser.add_argument("--min-bytes", type=int, default=1 << 20, help="copies smaller are ignored")
    parser.add_argument("--op", help="nccl: operation in the kernel name (AllGather, AllReduce)")
    parser.add_argument("--min-count", type=int, default=None)
    parser.add_argument("--max-count", type=int, default=None)
    parser.add_argument("--ready", default="bucket_ready_probe",
                        help="nccl-delay: kernel whose end makes the next NCCL kernel ready")
    parser.add_argument("--comm", default="nccl",
                        help="nccl-delay: NCCL kernels paired with the ready kernels; comm-overlap: NCCL"
                             " kernels counted (a name regex)")
    parser.add_argument("--count", type=int, default=0, help="nccl-delay: first N pairs only")
    parser.add_argument("--baseline", help="nccl-delay: recording to compare with")
    parser.add_argument("--min-ratio", type=float, help="nccl-delay: at least this x baseline")
    parser.add_argument("--layers", type=int, default=8, help="nccl-bytes: ddp's --layers")
    parser.add_argument("--size", type=int, default=1024, help="nccl-bytes: ddp's --size")
    parser.add_argument("--buckets", type=int, default=4, help="nccl-bytes: ddp's --buckets")
    parser.add_argument("--kind", choices=("legacy", "per-thread"), default="legacy")
    parser.add_argument("--type", type=int, help="sync: CUPTI synchronization type")
    parser.add_argument("--api", help="sync: runtime API name prefix")
    args = parser.parse_args(argv)
    if args.check == "sync" and args.min_count is None:
        args.min_count = 1
    return args


def main(argv):
    try:
        args = parse(argv)
        ok, figure = CHECKS[args.check](open_trace(args.db), args)
    except InputError as error:
        print(f"check_workload: {error}", file=sys.stderr)
        print(f"FAIL {error}")
        return 2
    except sqlite3.Error as error:
        print(f"check_workload: '{argv[0]}': {error}", file=sys.stderr)
        print(f"FAIL {error}")
        return 2
    print(("PASS " if ok else "FAIL ") + figure)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
