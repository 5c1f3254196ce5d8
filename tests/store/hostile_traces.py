#!/usr/bin/env python3
"""Hostile-trace property test (issue 20, Must 5): a reader trusts nothing in a file.

Scenario: copies of small golden traces (tests/data/gpu) in which one column of one table holds an
extreme value in every row, or one table is replaced by a view (also a recursive one that never
ends), carries a trigger, or is missing. Every reading command (info, report, report --json,
check, render, export, diff) runs on them under a time limit.

Verdict, for every run: exit status 0, 1 or 2 (never a signal: 128+N, never the time limit: 124);
on exit 2 exactly one line on stderr and it names the file; no AddressSanitizer or
UndefinedBehaviorSanitizer report; peak memory under MAX_RSS_BYTES.

What it covers, by default (about 1,200 runs, a minute under ASan on 2 cores): every column of every
table of the first trace with three of VALUES (shifted from column to column, so every value meets
every table), every column of the second trace, and of the first rewritten as schema version 2 by
`merge` (its compact tables: kernel_runs, kernel_shapes, api_call_runs, api_functions), with one;
every structural case on every table of the three; and every TEXT column but meta's holding a long text
in four scripts, drawn by render, which must succeed (issue 33, M1). The commands include merge with a
sound trace (issue 33, M3/M4), and with itself, which must be refused (M3). Every run has a umask and its
input a mode, in rotation (022 and 0600, 077 and 0644, 022 and 0644): a file it writes must be no more
readable than both allow (M2), and no unfinished `.partial-` file may stay. The cache of a Kineto
trace whose kept identity (`cache_identity`, `cache_of`) holds each value, or which is cut short, must
never be read as the input's: the command imports again and succeeds (H1). Each such file runs one command (two for the first trace's structural cases), chosen
by rotating through COMMANDS in a fixed order: deterministic, the same runs every time, and every
command meets every table. The full cross product (2 traces x ~175 columns x 9 values x 7 commands,
about 27,000 runs) is too slow for CI: HOSTILE_FULL=1 runs it. HOSTILE_ONLY=table limits the run to
one table while debugging.
"""
import concurrent.futures
import itertools
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading

from hostile_mutate import drop_not_null

OVERLAPSCOPE = os.environ["OVERLAPSCOPE"]
DATA = os.environ.get("OVERLAPSCOPE_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "data"))
TRACES = ["copy_pinned.db", "collector_smoke.db"]  # 1 process / 2 processes with 4 devices; small
TIME_LIMIT_S = 60  # a run under ASan takes under a second; a hang takes forever
MAX_RSS_BYTES = 1536 << 20  # ASan's shadow memory included
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
VALUES = [
    ("NULL", None),
    ("0", 0),
    ("-1", -1),
    ("INT64_MIN", INT64_MIN),
    ("INT64_MAX", INT64_MAX),
    ("REAL", 1.5e300),
    ("TEXT", "abc"),
    ("huge string", "x" * (1 << 20)),
    ("non-UTF-8", b"\xff\xfe\x1b[31m\x00tail"),  # bound as a blob, turned into TEXT below
]
COMMANDS = [
    ("info", lambda f, d: ["info", f]),
    ("report", lambda f, d: ["report", f]),
    ("report --json", lambda f, d: ["report", "--json", f]),
    ("check", lambda f, d: ["check", "--min", "comm_overlap=0", "--max", "lost_ms=1e9", f]),
    ("render", lambda f, d: ["render", f, "-o", os.path.join(d, "out.png")]),
    ("export", lambda f, d: ["export", f, "--chrome", os.path.join(d, "out.json")]),
    ("diff", lambda f, d: ["diff", f, os.path.join(DATA, "gpu", "copy_pinned.db")]),
    # a hostile rank merged with a sound one (issue 33, M3/M4: merge trusted what it read)
    ("merge", lambda f, d: ["merge", f, os.path.join(DATA, "gpu", "copy_pinned.db"), "-o",
                            os.path.join(d, "out.db"), "--force"]),
    # the same file twice, whatever it holds, is refused (issue 33, M3)
    ("merge twice", lambda f, d: ["merge", f, f, "-o", os.path.join(d, "out.db"), "--force"]),
]
# (umask, the input's mode) in rotation: an output is never more readable than either allows (M2).
MODES = [(0o022, 0o600), (0o077, 0o644), (0o022, 0o644)]
KINETO_TRACE = "begin_end_pairs.json"  # small and sound: its cache is made hostile (issue 33, H1)
# Text of any length and script (issue 33, M1: a title of 254+ bytes cut an ellipsis mid-character
# and `render` failed): every TEXT column of every table holds it in turn, and render must draw the
# picture (exit 0), not merely fail cleanly.
LONG_TEXT = "Grüße, 漢字とかな, emoji 🙂🚀, combining e\u0301 " * 12  # about 600 bytes, 4 scripts
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")

failures = []
runs = [0]
peak_rss = [0]  # KiB: RUSAGE_CHILDREN keeps the largest child so far
lock = threading.Lock()


def output_mode_problem(path, scratch, umask):
    """Why a file the run wrote is more readable than the umask and its input allow, or an
    unfinished one stayed; None when neither."""
    allowed = ~umask & os.stat(path).st_mode & 0o077
    for name in os.listdir(scratch):
        if ".partial-" in name:
            return "an unfinished %s left behind" % name
        if name in ("out.png", "out.json", "out.db") or name.endswith(".overlapscope.db"):
            mode = os.stat(os.path.join(scratch, name)).st_mode & 0o777
            if mode & 0o077 & ~allowed:
                return "%s is %o under umask %03o from a %o input" % (name, mode, umask, os.stat(path).st_mode & 0o777)
    return None


def run_command(label, path, command, scratch, must_succeed=False, must_reimport=False):
    for leftover in ("out.png", "out.json", "out.db"):
        try:
            os.unlink(os.path.join(scratch, leftover))
        except FileNotFoundError:
            pass
    with lock:
        umask, input_mode = MODES[runs[0] % len(MODES)]
    os.chmod(path, input_mode)
    argv = ["sh", "-c", 'umask %03o && exec "$@"' % umask, "sh", OVERLAPSCOPE] + command[1](path, scratch)
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, stderr = process.communicate(timeout=TIME_LIMIT_S)
        rc = process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
        rc = 124
    text = stderr.decode("utf-8", "replace")
    lines = [line for line in text.split("\n") if line]
    problem = None
    if rc not in (0, 1, 2):
        problem = "exit status %d" % rc
    elif any(mark in text for mark in SANITIZER_MARKS):
        problem = "sanitizer report"
    elif rc == 2 and (len(lines) != 1 or path not in lines[0]):
        problem = "exit 2 without one line naming the file"
    elif must_succeed and rc != 0:
        problem = "exit status %d where the trace is sound but for its long text or its cache" % rc
    elif must_reimport and ("unchanged since" in text or "imported" not in text):
        problem = "a cache not made from its input was read"
    elif command[0] == "merge twice" and (rc != 2 or "is the same file as" not in text):
        problem = "the same file merged twice (exit %d)" % rc
    else:
        problem = output_mode_problem(path, scratch, umask)
    with lock:
        runs[0] += 1
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not problem and usage.ru_maxrss * 1024 > MAX_RSS_BYTES >= peak_rss[0] * 1024:
            problem = "peak memory %d MiB" % (usage.ru_maxrss // 1024)  # the first run past the bound
        peak_rss[0] = usage.ru_maxrss
        if problem:
            failures.append("%s: overlapscope %s: %s; stderr: %s" % (label, command[0], problem, text[-600:]))
            print("FAILED: " + failures[-1], flush=True)  # as found: a full run takes long


def connect(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.text_factory = bytes
    return db


def schema_tables(path):
    db = connect(path)
    rows = db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").fetchall()
    tables = {}
    for (name,) in rows:
        name = name.decode()
        tables[name] = [c[1].decode() for c in db.execute("PRAGMA table_info(%s)" % name).fetchall()]
    db.close()
    return tables


def mutate_column(source, target, table, column, value):
    shutil.copy(source, target)
    drop_not_null(target, table)
    db = connect(target)  # reopened: the edited schema is read afresh
    expression = "CAST(? AS TEXT)" if isinstance(value, bytes) else "?"
    stored = True
    try:
        db.execute('UPDATE "%s" SET "%s" = %s' % (table, column, expression), (value,))
    except sqlite3.Error:
        try:  # a key column: one row only
            db.execute('UPDATE "%s" SET "%s" = %s WHERE rowid = (SELECT MIN(rowid) FROM "%s")'
                       % (table, column, expression, table), (value,))
        except sqlite3.Error:
            stored = False  # not storable (TEXT in an INTEGER PRIMARY KEY): no file can hold it
    db.close()
    return stored


STRUCTURAL = [
    ("a view in place of the table",
     lambda t, cols: ['ALTER TABLE "%s" RENAME TO hostile_old' % t,
                      'CREATE VIEW "%s" AS SELECT * FROM hostile_old' % t]),
    ("a recursive view that never ends",
     lambda t, cols: ['ALTER TABLE "%s" RENAME TO hostile_old' % t,
                      'CREATE VIEW "%s" AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) '
                      'SELECT %s FROM r, hostile_old' % (t, ", ".join('hostile_old."%s"' % c for c in cols))]),
    ("a trigger on the table",
     lambda t, cols: ['CREATE TRIGGER hostile AFTER INSERT ON "%s" BEGIN SELECT 1; END' % t]),
    ("the table missing", lambda t, cols: ['DROP TABLE "%s"' % t]),
]


def structural_file(source, target, table, columns, statements):
    shutil.copy(source, target)
    db = connect(target)
    for statement in statements(table, columns):
        db.execute(statement)
    db.close()
    return True


def text_columns(path, table):
    db = connect(path)
    rows = db.execute("PRAGMA table_info(%s)" % table).fetchall()
    db.close()
    return [c[1].decode() for c in rows if c[2].decode().upper() == "TEXT"]


def long_text_jobs(trace, only):
    """(label, make, commands, must_succeed) per TEXT column of the trace: render with LONG_TEXT."""
    source = os.path.join(DATA, "gpu", trace)
    render = next(c for c in COMMANDS if c[0] == "render")
    for table in sorted(schema_tables(source)):
        if (only and table != only) or table == "meta":  # meta's texts are the file's identity
            continue
        for column in text_columns(source, table):
            make = lambda target, t=table, c=column: mutate_column(source, target, t, c, LONG_TEXT)
            yield "%s, %s.%s = long text" % (trace, table, column), make, [render], True


def hostile_cache(target, meta_key, value, cut_to):
    """target: a copy of KINETO_TRACE beside its cache (made by `info`), whose meta_key holds value,
    or cut to cut_to bytes."""
    shutil.copy(os.path.join(DATA, "kineto", KINETO_TRACE), target)
    cache = target + ".overlapscope.db"
    subprocess.run([OVERLAPSCOPE, "info", target], capture_output=True, check=True)
    os.chmod(cache, 0o600)  # a cache left as it is (not ours) is then never wider than the input's modes
    if cut_to is not None:
        os.truncate(cache, cut_to)
        return True
    db = connect(cache)
    expression = "CAST(? AS TEXT)" if isinstance(value, bytes) else "?"
    db.execute("UPDATE meta SET value = %s WHERE key = ?" % expression, (value, meta_key))
    db.close()
    return True


def cache_jobs(only):
    """(label, make, commands, must_succeed, must_reimport) per hostile cache of a sound Kineto trace:
    its identity and its name of the input each hold every value, or the cache is cut short."""
    if only and only != "cache":
        return
    report = next(c for c in COMMANDS if c[0] == "report")
    for key in ("cache_identity", "cache_of"):
        for value_name, value in VALUES:
            make = lambda target, k=key, v=value: hostile_cache(target, k, v, None)
            yield "%s's cache, meta %s = %s" % (KINETO_TRACE, key, value_name), make, [report], True, True
    for cut_to in (0, 100, 4096, 8192):
        make = lambda target, c=cut_to: hostile_cache(target, None, None, c)
        yield "%s's cache cut to %d bytes" % (KINETO_TRACE, cut_to), make, [report], True, True


def jobs_of(trace, first_trace, full, only, rotation):
    """(label, make(target) -> bool, commands, must_succeed) for one trace."""
    source = os.path.join(DATA, "gpu", trace)
    for table, columns in sorted(schema_tables(source).items()):
        if only and table != only:
            continue
        for number, (case, statements) in enumerate(STRUCTURAL):
            # Each table is refused as a whole by the store, the same for every command: two
            # commands per case on the first trace, one on the second, rotating.
            count = len(COMMANDS) if full else 2 if first_trace else 1
            chosen = [COMMANDS[next(rotation) % len(COMMANDS)] for _ in range(count)]
            make = lambda target, t=table, c=columns, st=statements: structural_file(source, target, t, c, st)
            yield "%s, %s: %s" % (trace, table, case), make, chosen, False
        for column_number, column in enumerate(columns):
            for value_number, (value_name, value) in enumerate(VALUES):
                # Every column gets three of the values on the first trace and one on the second,
                # shifted from column to column so that every value meets every table.
                if not full and (value_number + column_number) % (3 if first_trace else 9) != (0 if first_trace else 4):
                    continue
                chosen = COMMANDS if full else [COMMANDS[next(rotation) % len(COMMANDS)]]
                make = lambda target, t=table, c=column, v=value: mutate_column(source, target, t, c, v)
                yield "%s, %s.%s = %s" % (trace, table, column, value_name), make, chosen, False


def run_job(job, scratch_root, worker_dirs):
    label, make, chosen, must_succeed = job[:4]
    must_reimport = job[4] if len(job) > 4 else False
    scratch = worker_dirs.setdefault(threading.get_ident(), tempfile.mkdtemp(dir=scratch_root))
    target = os.path.join(scratch, "hostile.json" if len(job) > 4 else "hostile.db")
    if make(target):
        for command in chosen:
            run_command(label, target, command, scratch, must_succeed, must_reimport)
    for name in (target, target + ".overlapscope.db"):
        if os.path.exists(name):
            os.unlink(name)


def main():
    full = os.environ.get("HOSTILE_FULL") == "1"
    only = os.environ.get("HOSTILE_ONLY")
    scratch_root = tempfile.mkdtemp(prefix="overlapscope-hostile-")
    rotation = itertools.count()
    # The goldens are schema version 1; merge writes version 2 (an absolute path: os.path.join keeps it).
    version_2 = os.path.join(scratch_root, "copy_pinned_v2.db")
    subprocess.run([OVERLAPSCOPE, "merge", os.path.join(DATA, "gpu", TRACES[0]), "-o", version_2],
                   capture_output=True, check=True)
    traces = TRACES + [version_2]
    jobs = [job for number, trace in enumerate(traces) for job in jobs_of(trace, number == 0, full, only, rotation)]
    jobs += list(long_text_jobs(TRACES[0], only))
    jobs += list(cache_jobs(only))
    worker_dirs = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            for result in pool.map(lambda job: run_job(job, scratch_root, worker_dirs), jobs):
                pass
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)
    print("%d runs, %d failed" % (runs[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
