#!/usr/bin/env python3
"""test_check_trace_events.py: check_trace_events.py must reject what viewers cannot show. Each
case is a small document with one known fault (or none) and the problem the checker must name."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_trace_events  # noqa: E402

NAMES = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "rank 0"}},
         {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "stream 7"}},
         {"ph": "M", "name": "thread_name", "pid": 1, "tid": 3, "args": {"name": "thread 9"}}]


def slice_(name, tid, ts, dur):
    return {"ph": "X", "name": name, "cat": "kernel", "pid": 1, "tid": tid, "ts": ts, "dur": dur}


def flow(phase, tid, ts, id_=1):
    event = {"ph": phase, "name": "launch", "cat": "ac2g", "id": id_, "pid": 1, "tid": tid, "ts": ts}
    if phase == "f":
        event["bp"] = "e"
    return event


GOOD = NAMES + [slice_("a", 2, 0, 10), slice_("nested", 2, 2, 3), slice_("after", 2, 10, 5),
                slice_("call", 3, 0, 1), flow("s", 3, 0.5), flow("f", 2, 12)]

CASES = [
    ("a valid document", GOOD, None),
    ("a partial overlap", GOOD + [slice_("crossing", 2, 8, 4)], "partial overlap on track pid 1 tid 2"),
    ("a flow without its end", GOOD + [flow("s", 3, 0.5, 2)], "a dangling flow"),
    ("a flow without its start", GOOD + [flow("f", 2, 12, 3)], "a dangling flow"),
    ("a flow end outside every slice", NAMES + [slice_("call", 3, 0, 1), slice_("a", 2, 0, 10), flow("s", 3, 0.5),
                                                flow("f", 2, 30)], "f point is in no slice"),
    ("a flow going back in time", NAMES + [slice_("call", 3, 0, 1), slice_("a", 2, 0, 10), flow("s", 3, 0.9),
                                           flow("f", 2, 0.5)], "not in time order"),
    ("a negative timestamp", GOOD + [slice_("early", 3, -1, 0.5)], "bad ts"),
    ("a duration that is not a number", GOOD + [slice_("nan", 3, 5, "x")], "bad dur"),
    ("a track without a name", GOOD + [slice_("orphan", 4, 0, 1)], "tid 4 has events but no thread_name"),
    ("a process without a name", GOOD + [dict(slice_("orphan", 2, 0, 1), pid=5)], "pid 5 has events but no process_name"),
    ("an unbalanced B", GOOD + [{"ph": "B", "name": "open", "pid": 1, "tid": 3, "ts": 5}], "B never ended"),
    ("a flow v2 without its end", GOOD + [dict(slice_("bound", 3, 2, 1), bind_id="0x1", flow_out=True)],
     "a dangling flow"),
]


def main():
    failures = 0
    problems = check_trace_events.check({"traceEvents": GOOD, "displayTimeUnit": "ns"})
    if not any("displayTimeUnit" in line for line in problems):
        print("FAILED: a displayTimeUnit was accepted: %s" % problems)
        failures += 1
    for title, events, expected in CASES:
        problems = check_trace_events.check({"traceEvents": events})
        if expected is None and problems:
            print("FAILED: %s: %s" % (title, problems))
            failures += 1
        elif expected is not None and not any(expected in line for line in problems):
            print("FAILED: %s: expected a problem saying %r, got %s" % (title, expected, problems))
            failures += 1
    # Files that are not JSON, or not UTF-8, are refused by the command line.
    for content in (b'{"traceEvents": [', b'{"traceEvents": [{"ph": "i", "name": "\xff", "ts": 0, "s": "g"}]}',
                    b'{"traceEvents": [{"ph": "X", "ts": NaN, "dur": 1}]}'):
        with tempfile.NamedTemporaryFile(suffix=".json") as handle:
            handle.write(content)
            handle.flush()
            sys.argv = ["check_trace_events.py", handle.name]
            if check_trace_events.main() != 1:
                print("FAILED: %r was accepted" % content)
                failures += 1
    print("%d cases, %d failed" % (len(CASES) + 3, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
