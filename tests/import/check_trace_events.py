#!/usr/bin/env python3
"""check_trace_events.py: checks a Chrome trace-event JSON file against the Trace Event Format's
rules that viewers (Perfetto, chrome://tracing) depend on, as `overlapscope export` must follow them.

The format: "Trace Event Format" (Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU);
how Perfetto reads it: https://perfetto.dev/docs/getting-started/other-formats (JSON) and its JSON
importer, which keeps one stack of slices per thread and drops what does not nest.

Checked:
  - the file is valid JSON (strict UTF-8), an object with a traceEvents list (or a bare list);
  - every event has a phase; ts and dur are finite numbers >= 0;
  - every X slice nests properly within its (pid, tid) track: two slices of one track are either
    disjoint or one inside the other (a partial overlap is an error);
  - B/E events balance per track, in time order, names matching when the E names one;
  - flows (s, t, f sharing cat, name and id): exactly one s and one f per id, steps in between,
    points in time order, each inside an X slice of its own track (for an f without "bp":"e", a
    slice starting at or after it); flow v2 (bind_id with flow_out / flow_in) pairs up;
  - every pid used has a process_name and every (pid, tid) a thread_name metadata event (global
    instants, "s":"g", excepted);
  - no displayTimeUnit: Perfetto reads it as the unit of every ts (its JSON tokenizer,
    MaybeParseDisplayTimeUnit) while chrome://tracing only displays in it, so a file that has one
    shows times 1000 times apart in the two viewers.

Usage: check_trace_events.py FILE.json...   (exit 0 when every file passes, 1 otherwise; one line
per problem, at most --max-errors per file). As a module: check(document) returns the list.
Times are compared in integer nanoseconds, parsed exactly from the decimal text.
"""
import argparse
import bisect
import decimal
import json
import sys
from collections import defaultdict


def _nanoseconds(value):
    """ts/dur (microseconds: a Decimal as load() parses them, an int, or a float) as integer
    nanoseconds, or None when not a finite number."""
    kind = type(value)
    if kind is decimal.Decimal:
        return int(value.scaleb(3).to_integral_value()) if value.is_finite() else None
    if kind is int:
        return value * 1000
    if kind is float:  # a document built in Python rather than read by load()
        return _nanoseconds(decimal.Decimal(repr(value)))
    return None


def load(path):
    """The parsed document, numbers as Decimal (exact); raises ValueError when not valid JSON."""
    with open(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8")  # strict: invalid UTF-8 is an error, as for any JSON reader

    def reject_constant(name):
        raise ValueError("not JSON: %s" % name)

    return json.loads(text, parse_float=decimal.Decimal, parse_constant=reject_constant)


def _events(document, errors):
    if isinstance(document, list):
        return document
    if isinstance(document, dict) and isinstance(document.get("traceEvents"), list):
        return document["traceEvents"]
    errors.append("no traceEvents list")
    return []


def _where(event):
    return "%s %r (pid %s tid %s ts %s)" % (event.get("ph"), event.get("name"), event.get("pid"),
                                              event.get("tid"), event.get("ts"))


def _check_times(events, errors):
    """ts/dur present where needed, finite, non-negative. Returns the events that have sane times."""
    good = []
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("ph"), str):
            errors.append("an event without a phase: %r" % (event,))
            continue
        if event["ph"] == "M":
            continue
        ts = _nanoseconds(event.get("ts"))
        if ts is None or ts < 0:
            errors.append("bad ts (a finite number >= 0 is required): %s" % _where(event))
            continue
        if event["ph"] == "X":
            dur = _nanoseconds(event.get("dur"))
            if dur is None or dur < 0:
                errors.append("bad dur (a finite number >= 0 is required): %s" % _where(event))
                continue
        good.append(event)
    return good


def _slices_by_track(events):
    """(pid, tid) -> sorted list of (start_ns, end_ns, event) for X events."""
    tracks = defaultdict(list)
    for event in events:
        if event["ph"] == "X":
            start = _nanoseconds(event["ts"])
            tracks[(event.get("pid"), event.get("tid"))].append((start, start + _nanoseconds(event["dur"]), event))
    for slices in tracks.values():
        slices.sort(key=lambda item: (item[0], -item[1]))
    return tracks


def _check_nesting(tracks, errors):
    for track, slices in tracks.items():
        stack = []
        for start, end, event in slices:
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                errors.append("partial overlap on track pid %s tid %s: %s [%d, %d] ns crosses the end of %r [.., %d]"
                              % (track[0], track[1], event.get("name"), start, end, stack[-1][1].get("name"),
                                 stack[-1][0]))
                continue
            stack.append((end, event))


def _check_begin_end(events, errors):
    stacks = defaultdict(list)
    ordered = sorted((e for e in events if e["ph"] in ("B", "E")), key=lambda e: _nanoseconds(e["ts"]))
    for event in ordered:
        track = (event.get("pid"), event.get("tid"))
        if event["ph"] == "B":
            stacks[track].append(event)
        elif not stacks[track]:
            errors.append("E without an open B: %s" % _where(event))
        else:
            begin = stacks[track].pop()
            if event.get("name") not in (None, begin.get("name")):
                errors.append("E %r closes B %r: %s" % (event.get("name"), begin.get("name"), _where(event)))
    for track, open_events in stacks.items():
        for event in open_events:
            errors.append("B never ended: %s" % _where(event))


def _track_index(tracks):
    """(pid, tid) -> (starts, running maximum of ends) of its slices sorted by start, so that a
    point's enclosing slice is found by bisection."""
    index = {}
    for track, slices in tracks.items():
        starts, reach, furthest = [], [], -1
        for start, end, _ in slices:
            furthest = max(furthest, end)
            starts.append(start)
            reach.append(furthest)
        index[track] = (starts, reach)
    return index


def _inside(index, event, enclosing):
    """Whether the flow point lies in a slice of its track: inside one (enclosing), or for an f
    bound to the next slice, before the start of one."""
    ts = _nanoseconds(event["ts"])
    starts, reach = index.get((event.get("pid"), event.get("tid")), ([], []))
    if not enclosing:
        return bool(starts) and starts[-1] >= ts
    last = bisect.bisect_right(starts, ts) - 1
    return last >= 0 and reach[last] >= ts


def _check_flows(events, tracks, errors):
    index = _track_index(tracks)
    flows = defaultdict(lambda: {"s": [], "t": [], "f": []})
    for event in events:
        if event["ph"] in ("s", "t", "f"):
            if "id" not in event and "id2" not in event:
                errors.append("flow event without an id: %s" % _where(event))
                continue
            key = (event.get("cat"), event.get("name"), json.dumps(event.get("id", event.get("id2")), default=str))
            flows[key][event["ph"]].append(event)
    for key, points in flows.items():
        label = "flow %s %s id %s" % key
        if len(points["s"]) != 1 or len(points["f"]) != 1:
            errors.append("%s: %d start(s) and %d end(s), one of each is required (a dangling flow)"
                          % (label, len(points["s"]), len(points["f"])))
            continue
        chain = points["s"] + sorted(points["t"], key=lambda e: _nanoseconds(e["ts"])) + points["f"]
        times = [_nanoseconds(e["ts"]) for e in chain]
        if times != sorted(times):
            errors.append("%s: its points are not in time order (%s)" % (label, times))
        for event in chain:
            enclosing = event["ph"] != "f" or event.get("bp") == "e"
            if not _inside(index, event, enclosing):
                errors.append("%s: %s point is in no slice of its track: %s" % (label, event["ph"], _where(event)))
    bound = defaultdict(lambda: [0, 0])
    for event in events:
        if event["ph"] == "X" and "bind_id" in event:
            bound[str(event["bind_id"])][0] += bool(event.get("flow_out"))
            bound[str(event["bind_id"])][1] += bool(event.get("flow_in"))
    for bind_id, (outgoing, incoming) in bound.items():
        if outgoing == 0 or incoming == 0:
            errors.append("flow bind_id %s: %d flow_out and %d flow_in slices (a dangling flow)"
                          % (bind_id, outgoing, incoming))


def _check_names(all_events, events, errors):
    processes, threads = set(), set()
    for event in all_events:
        if isinstance(event, dict) and event.get("ph") == "M":
            args = event.get("args")
            named = isinstance(args, dict) and isinstance(args.get("name"), str)
            if event.get("name") == "process_name":
                if not named:
                    errors.append("process_name without args.name: pid %s" % event.get("pid"))
                processes.add(event.get("pid"))
            elif event.get("name") == "thread_name":
                if not named:
                    errors.append("thread_name without args.name: pid %s tid %s" % (event.get("pid"), event.get("tid")))
                threads.add((event.get("pid"), event.get("tid")))
    missing_processes, missing_threads = set(), set()
    for event in events:
        if event["ph"] == "i" and event.get("s") == "g":
            continue
        if event.get("pid") not in processes:
            missing_processes.add(event.get("pid"))
        if (event.get("pid"), event.get("tid")) not in threads:
            missing_threads.add((event.get("pid"), event.get("tid")))
    for pid in sorted(missing_processes, key=str):
        errors.append("pid %s has events but no process_name" % pid)
    for pid, tid in sorted(missing_threads, key=str):
        errors.append("pid %s tid %s has events but no thread_name" % (pid, tid))


def check(document):
    """The list of problems of a parsed document (empty when it follows every rule above)."""
    errors = []
    if isinstance(document, dict) and "displayTimeUnit" in document:
        errors.append("displayTimeUnit %r: Perfetto takes it as the unit of ts, chrome://tracing does not"
                      % document["displayTimeUnit"])
    all_events = _events(document, errors)
    events = _check_times(all_events, errors)
    tracks = _slices_by_track(events)
    _check_nesting(tracks, errors)
    _check_begin_end(events, errors)
    _check_flows(events, tracks, errors)
    _check_names(all_events, events, errors)
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--max-errors", type=int, default=20)
    arguments = parser.parse_args()
    failed = False
    for path in arguments.files:
        try:
            document = load(path)
        except (OSError, ValueError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            print("%s: not valid JSON: %s" % (path, error))
            failed = True
            continue
        errors = check(document)
        for line in errors[:arguments.max_errors]:
            print("%s: %s" % (path, line))
        if len(errors) > arguments.max_errors:
            print("%s: ... and %d more" % (path, len(errors) - arguments.max_errors))
        if errors:
            failed = True
        else:
            events = _events(document, [])
            print("%s: ok (%d events, %d slices on %d tracks, %d flow points)"
                  % (path, len(events), sum(1 for e in events if e.get("ph") == "X"),
                     len({(e.get("pid"), e.get("tid")) for e in events if e.get("ph") == "X"}),
                     sum(1 for e in events if e.get("ph") in ("s", "t", "f"))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
