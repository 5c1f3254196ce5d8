#!/usr/bin/env python3
"""A small deterministic hostile-value sweep of the Kineto importer: kineto_hostile.py's TRACE with
one field at a time replaced by a value no profiler writes (int64 and double edges, JSON tokens that
are no numbers, wrong types, NULs, lone surrogates, invalid UTF-8, long and control-laden text), plus
the file cut, gzipped, concatenated and wrapped. Every mutant is imported; each distinct trace that
imports is then reported (--json), exported (--chrome, checked by check_trace_events.py) and drawn.

The verdict per mutant is the product's rule (docs/overlapscope-import.md):
- the import succeeds, or it fails with exit 2 and one line `overlapscope: import: FILE: ...`;
- nothing crashes or trips a sanitizer (CI runs this under ASan and UBSan);
- an optional number field given a value it cannot read (another type, text that is no number)
  leaves an import-skipped warning in the trace;
- what imports, reports (exit 0, no negative duration), exports a valid Chrome trace and draws (or
  fails in one line: a trace of no GPU activity has no picture).

The full exploratory sweep (12,000 mutants) found the bugs kineto_hostile.py keeps; this one, a few
hundred mutants, keeps the rule; KINETO_SWEEP_FULL=1 sweeps every field with every value (about
8,000 mutants, half an hour under ASan on two cores). Usage: kineto_sweep.py WORK_DIR (OVERLAPSCOPE
names the binary)."""
import decimal
import gzip
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_trace_events  # noqa: E402
from kineto_hostile import KERNEL, NCCL, OVERLAPSCOPE, SYNC, trace  # noqa: E402

MEMCPY = 9
NUMBERS = ["9.3e18", "-9.3e18", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e308",
           "-0", "1e999999999", "1e-999999999", "9007199254740993", "-1", "0.4999", "2305843009213694"]
NOT_JSON = ["NaN", "Infinity", "-Infinity", "01", "+1", "0x10"]
WRONG_TYPES = ['"abc"', '""', "true", "[]", "[1,2,3]", "{}", '{"a":[[[]]]}']
TEXTS = ['"a\\u0000b"', '"\\ud800"', '"\\udc00x"', b'"\xff\xfe"', b'"\xed\xa0\x80"', '"\\u001b]0;x\\u0007"',
         '"' + "n" * 70000 + '"', '"stream 99999999999999999999"']
# (where, values): where is ("event", index, key), ("args", index, key), ("device", key),
# ("distributedInfo", key) or ("top", key).
FIELDS = [
    (("event", KERNEL, "ts"), NUMBERS + NOT_JSON + WRONG_TYPES[:3]),
    (("event", KERNEL, "dur"), NUMBERS + WRONG_TYPES[:3]),
    (("event", KERNEL, "name"), TEXTS + WRONG_TYPES),
    (("event", KERNEL, "pid"), NUMBERS[:6] + WRONG_TYPES[:4] + TEXTS[:3]),
    (("event", KERNEL, "tid"), TEXTS[-1:] + WRONG_TYPES[:3]),
    (("event", KERNEL, "cat"), TEXTS[:4] + WRONG_TYPES[:3]),
    (("event", KERNEL, "ph"), ['"B"', '"E"', '"i"'] + WRONG_TYPES[:2]),
    (("args", KERNEL, "device"), NUMBERS[:6] + WRONG_TYPES[:5]),
    (("args", KERNEL, "stream"), NUMBERS[:6] + WRONG_TYPES[:5]),
    (("args", KERNEL, "grid"), ["[1e308, -1, null]", "[9223372036854775807, 2, 2]", '"8,16,5"', "{}"]),
    (("args", MEMCPY, "bytes"), NUMBERS[:7] + WRONG_TYPES[:4]),
    (("event", MEMCPY, "name"), ['"Memcpy ( -> )"', '"Memcpy HtoD (Pinned -> "', '"("', '"Memcpy DtoH (x -> y)"']),
    (("args", NCCL, "In msg nelems"), NUMBERS[:7] + WRONG_TYPES[:4]),
    (("args", NCCL, "Group size"), ["0", "-5", "9223372036854775807"] + WRONG_TYPES[:3]),
    (("args", NCCL, "dtype"), TEXTS[:4] + WRONG_TYPES[:3]),
    (("args", NCCL, "Collective name"), TEXTS[:4] + WRONG_TYPES[:3]),
    (("args", NCCL, "Process Group Ranks"), ['"[0, 99999999999999999999999, 1]"', '"[-1, 0]"', "[0, 1]", "[[0]]"]),
    (("args", SYNC, "wait_on_cuda_event_id"), NUMBERS[:6] + WRONG_TYPES[:3]),
    (("args", SYNC, "correlation"), NUMBERS[:6]),
    (("args", SYNC, "cuda_sync_kind"), TEXTS[:3] + WRONG_TYPES[:3]),
    (("device", "numSms"), NUMBERS[:6] + WRONG_TYPES[:3]),
    (("device", "warpSize"), ["0", "-32", "1025"] + WRONG_TYPES[:2]),
    (("device", "id"), NUMBERS[:4] + WRONG_TYPES[:3]),
    (("device", "name"), TEXTS[:5] + WRONG_TYPES[:2]),
    (("distributedInfo", "rank"), NUMBERS[:6] + WRONG_TYPES[:3]),
    (("top", "baseTimeNanoseconds"), NUMBERS[:7] + WRONG_TYPES[:3]),
    (("top", "deviceProperties"), WRONG_TYPES),
    (("top", "distributedInfo"), WRONG_TYPES[:4]),
]


def every_field():
    """KINETO_SWEEP_FULL=1: every field of every event (its args too), of the device and of
    distributedInfo, with every value: about 8,000 mutants."""
    document, values = trace(), NUMBERS + NOT_JSON + WRONG_TYPES + TEXTS
    fields = [(("device", key), values) for key in document["deviceProperties"][0]]
    fields += [(("distributedInfo", key), values) for key in document["distributedInfo"]]
    for index, event in enumerate(document["traceEvents"]):
        fields += [(("event", index, key), values) for key in event]
        fields += [(("args", index, key), values) for key in event.get("args", {})]
    return fields


if os.environ.get("KINETO_SWEEP_FULL") == "1":
    FIELDS = every_field() + FIELDS[-3:]
# Optional number fields: a value of another type must leave an import-skipped warning.
OPTIONAL_NUMBERS = {("args", KERNEL, "device"), ("args", MEMCPY, "bytes"), ("args", NCCL, "In msg nelems"),
                    ("args", NCCL, "Group size"), ("args", SYNC, "wait_on_cuda_event_id"), ("device", "numSms"),
                    ("distributedInfo", "rank")}
PLACEHOLDER = "\u2603 hostile \u2603"


def place(document, where, value):
    kind = where[0]
    target = {"event": lambda: document["traceEvents"][where[1]],
              "args": lambda: document["traceEvents"][where[1]]["args"],
              "device": lambda: document["deviceProperties"][0],
              "distributedInfo": lambda: document["distributedInfo"],
              "top": lambda: document}[kind]()
    target[where[-1]] = value


def with_raw(where, raw):
    """TRACE's JSON text with raw (JSON text of any validity) at where."""
    document = trace()
    place(document, where, PLACEHOLDER)
    text = json.dumps(document).encode()
    return text.replace(json.dumps(PLACEHOLDER).encode(), raw if isinstance(raw, bytes) else raw.encode())


def mutants():
    for where, values in FIELDS:
        for raw in values:
            shown = raw if isinstance(raw, str) else raw.decode("latin-1")
            yield f"{'.'.join(map(str, where))}={shown[:24]}", with_raw(where, raw), where, raw, ".json"
    text = json.dumps(trace()).encode()
    packed = gzip.compress(text)
    whole = [("bom", b"\xef\xbb\xbf" + text, ".json"), ("trailing data", text + b" x", ".json"),
             ("two documents", text + text, ".json"), ("no events", b'{"traceEvents": []}', ".json"),
             ("root array", json.dumps(trace()["traceEvents"]).encode(), ".json"),
             ("nesting 70", text[:-1] + b', "deep": ' + b"[" * 70 + b"]" * 70 + b"}", ".json"),
             ("gzip", packed, ".json.gz"), ("gzip members", gzip.compress(text[:99]) + gzip.compress(text[99:]), ".json.gz"),
             ("gzip empty", gzip.compress(b""), ".json.gz")]
    whole += [(f"cut at {cut}", text[:cut], ".json") for cut in (1, 57, len(text) // 3, len(text) - 1)]
    whole += [(f"gzip cut at {cut}", packed[:cut], ".json.gz") for cut in (10, len(packed) // 2, len(packed) - 4)]
    for label, data, suffix in whole:
        yield label, data, None, None, suffix


def run(*args):
    try:
        result = subprocess.run([OVERLAPSCOPE, *args], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return result.returncode, (result.stdout + result.stderr).decode("utf-8", "replace")


SANITIZER = ("runtime error:", "AddressSanitizer", "LeakSanitizer")
seen, seen_lock = set(), threading.Lock()


def negative_durations(report, path=""):
    """Durations (keys ending _ns or _ms, not positions on the time axis) below zero."""
    if isinstance(report, dict):
        return [p for key, value in report.items() for p in negative_durations(value, f"{path}.{key}")]
    if isinstance(report, list):
        return [p for i, value in enumerate(report) for p in negative_durations(value, f"{path}[{i}]")]
    key = path.rsplit(".", 1)[-1]
    positional = any(word in key for word in ("start", "end", "origin", "net", "saved", "offset"))
    if isinstance(report, (int, float)) and key.endswith(("_ns", "_ms")) and not positional and report < 0:
        return [f"{path}={report}"]
    return []


def trace_digest(db, name):
    """The imported rows (the input's name left out), to analyze each distinct trace once."""
    digest = hashlib.sha1()
    with sqlite3.connect(db) as connection:
        connection.text_factory = bytes
        tables = [t for (t,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                                   " AND name NOT IN ('meta', 'processes') ORDER BY 1")]
        for table in tables:
            for row in connection.execute(f'SELECT * FROM "{table.decode()}" ORDER BY 1'):
                digest.update(repr(row).replace(name, "TRACE").encode())
    return digest.hexdigest()


def verdict(job):
    """The ways this mutant breaks the rule (empty when it keeps it); its files are removed after."""
    index, (label, data, where, raw, suffix), work = job
    name = f"m{index}"
    path, db = os.path.join(work, name + suffix), os.path.join(work, name + ".db")
    try:
        return label, mutant_problems(name, path, db, data, where, raw)
    finally:
        for leftover in (path, db, db + ".out.json", db + ".png"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def mutant_problems(name, path, db, data, where, raw):
    with open(path, "wb") as f:
        f.write(data)
    code, output = run("import", "--force", "-o", db, path)
    problems = [f"sanitizer: {output[-600:]}"] if any(s in output for s in SANITIZER) else []
    if code not in (0, 2):
        problems.append(f"import exit {code}: {output[-300:]}")
    elif code == 2 and (output.count("\n") != 1 or not output.startswith(f"overlapscope: import: {path}: ")):
        problems.append(f"import error not one line naming the file: {output[:300]!r}")
    if code != 0 or problems:
        return problems
    with sqlite3.connect(db) as connection:
        warned = connection.execute("SELECT COUNT(*) FROM warnings WHERE code = 'import-skipped'").fetchone()[0]
    unreadable = not isinstance(raw, bytes) and raw is not None and (raw[0] in '"tf[{' or raw == "null")
    if where in OPTIONAL_NUMBERS and unreadable and not warned:
        problems.append("an unreadable optional number left no import-skipped warning")
    digest = trace_digest(db, name)
    with seen_lock:
        if digest in seen:
            return problems
        seen.add(digest)
    code, output = run("report", "--json", db)
    if code == 0:
        problems += [f"report: negative {p}" for p in negative_durations(json.loads(output))]
    elif code != 2 or output.count("\n") != 1 or any(s in output for s in SANITIZER):
        problems.append(f"report exit {code}: {output[-300:]}")
    exported = db + ".out.json"
    code, output = run("export", db, "--chrome", exported, "--force")
    if code == 0:
        with open(exported, "rb") as f:
            document = json.loads(f.read().decode("utf-8"), parse_float=decimal.Decimal)
        problems += [f"export: {p}" for p in check_trace_events.check(document)[:3]]
    elif code != 2 or output.count("\n") != 1 or any(s in output for s in SANITIZER):
        problems.append(f"export exit {code}: {output[-300:]}")
    code, output = run("render", db, "-o", db + ".png", "--force")
    if code not in (0, 2) or (code == 2 and output.count("\n") != 1) or any(s in output for s in SANITIZER):
        problems.append(f"render exit {code}: {output[-300:]}")
    return problems


def main():
    work = sys.argv[1]
    jobs = [(index, mutant, work) for index, mutant in enumerate(mutants())]
    failed = 0
    with ThreadPoolExecutor(2) as pool:
        for label, problems in pool.map(verdict, jobs):
            for problem in problems:
                print(f"FAILED: {label}: {problem}")
            failed += bool(problems)
    print(f"{len(jobs)} mutants, {len(seen)} distinct imported traces analyzed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
