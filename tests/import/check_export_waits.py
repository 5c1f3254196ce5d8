#!/usr/bin/env python3
"""check_export_waits.py REPORT.json EXPORT.json CAUSE...: the waits of `overlapscope report --json`
are in `overlapscope export` of the same trace, as the export promises (docs/overlapscope-export.md):
each one a slice on its device's waits track named by its cause's title, at the report's times
(both files share time zero), with the lost time and the evidence in args, and a flow from the
blocking op's slice through the wait's slice to the waiting op's slice. CAUSE...: the cause tags
the report must hold, one per wait, so that the check cannot pass on an empty report.
check_export_waits.py --pairs REPORT EXPORT [REPORT EXPORT...]: the same for several traces, each
against its own report's waits, in one process, for exports check_trace_events.py has passed."""
import bisect
import json
import sys

import check_trace_events


def ns(value):
    """Microseconds (a float here: exact to the nanosecond below 2^53 ns, 104 days) as nanoseconds."""
    return round(value * 1000)


def check_pair(report_path, export_path, expected, rules=True):
    """Prints the problems of one export against its report (and, rules, of the file against
    check_trace_events' rules); returns 1 when there are any."""
    with open(report_path) as handle:
        report = json.load(handle)
    with open(export_path) as handle:
        export = json.load(handle)
    problems = check_trace_events.check(export) if rules else []
    causes = sorted(wait["cause"] for wait in report["waits"])
    if expected is not None and causes != expected:
        problems.append("the report's waits are %s, expected %s" % (causes, expected))
    if export["otherData"]["origin_ns"] != report["origin_ns"]:
        problems.append("time zero %s is not the report's %s" % (export["otherData"]["origin_ns"], report["origin_ns"]))
    titles = {cause["cause"]: cause["title"] for cause in report["causes"]}
    events = export["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    wait_slices = {}  # (cause, start, end) -> the wait slices there
    flows = {}
    for event in events:
        if event["ph"] == "X" and event.get("cat") == "wait":
            start = ns(event["ts"])
            wait_slices.setdefault((event["args"]["cause"], start, start + ns(event["dur"])), []).append(event)
        elif event["ph"] in ("s", "t", "f") and event.get("cat") == "wait":
            flows.setdefault(event["id"], {})[event["ph"]] = event
    steps = {}  # (pid, tid) -> the times (ns) of the flows' step points on that waits track, sorted, and the flows
    for flow in flows.values():
        if "t" in flow:
            steps.setdefault((flow["t"]["pid"], flow["t"]["tid"]), []).append((ns(flow["t"]["ts"]), flow))
    for track, points in steps.items():
        points.sort(key=lambda item: item[0])
        steps[track] = ([time for time, _ in points], [flow for _, flow in points])

    def within(point, start_ns, end_ns):
        return start_ns <= ns(point["ts"]) <= end_ns

    for wait in report["waits"]:
        label = "wait %s at %d ns" % (wait["cause"], wait["wait_start_ns"])
        matches = wait_slices.get((wait["cause"], wait["wait_start_ns"], wait["wait_end_ns"]), [])
        if len(matches) != 1:
            problems.append("%s: %d slices at its times" % (label, len(matches)))
            continue
        event = matches[0]
        track = names.get((event["pid"], event["tid"]), "")
        if not track.startswith("GPU %d waits" % wait["device_id"]):
            problems.append("%s: on track %r" % (label, track))
        if event["name"] != titles[wait["cause"]]:
            problems.append("%s: named %r, not %r" % (label, event["name"], titles[wait["cause"]]))
        if event["args"]["lost_ns"] != wait["lost_ns"] or event["args"]["evidence"] != wait["evidence"]:
            problems.append("%s: args %r" % (label, event["args"]))
        times, track_flows = steps.get((event["pid"], event["tid"]), ([], []))
        arrows = track_flows[bisect.bisect_left(times, wait["wait_start_ns"]):
                             bisect.bisect_right(times, wait["wait_end_ns"])]
        if len(arrows) != 1:
            problems.append("%s: %d arrows through its slice" % (label, len(arrows)))
            continue
        for point, op in (("s", wait["blocking"]), ("f", wait["waiting"])):
            where = arrows[0][point]
            stream = "stream %d, GPU %d" % (op["stream_id"], wait["device_id"])
            if not names.get((where["pid"], where["tid"]), "").startswith(stream):
                problems.append("%s: arrow %s on %r, not %s" % (label, point, names.get((where["pid"], where["tid"])), stream))
            if not within(where, op["start_ns"], op["end_ns"]):
                problems.append("%s: arrow %s at %s, outside %s [%d, %d]" % (label, point, where["ts"], op["name"],
                                                                              op["start_ns"], op["end_ns"]))
    for line in problems:
        print("%s: %s" % (export_path, line))
    if not problems:
        print("%s: ok (%d waits, each a slice with its arrow)" % (export_path, len(report["waits"])))
    return 1 if problems else 0


def main():
    if sys.argv[1] == "--pairs":
        paths = sys.argv[2:]
        return max([check_pair(paths[i], paths[i + 1], None, rules=False) for i in range(0, len(paths), 2)] or [1])
    return check_pair(sys.argv[1], sys.argv[2], sorted(sys.argv[3:]))


if __name__ == "__main__":
    sys.exit(main())
