#!/usr/bin/env python3
"""check_export_waits.py REPORT.json EXPORT.json CAUSE...: the waits of `overlapscope report --json`
are in `overlapscope export` of the same trace, as the export promises (docs/overlapscope-export.md):
each one a slice on its device's waits track named by its cause's title, at the report's times
(both files share time zero), with the lost time and the evidence in args, and a flow from the
blocking op's slice through the wait's slice to the waiting op's slice. CAUSE...: the cause tags
the report must hold, one per wait, so that the check cannot pass on an empty report."""
import decimal
import sys

import check_trace_events


def ns(value):
    return int(decimal.Decimal(value) * 1000)


def main():
    report_path, export_path, expected = sys.argv[1], sys.argv[2], sorted(sys.argv[3:])
    import json
    with open(report_path) as handle:
        report = json.load(handle)
    export = check_trace_events.load(export_path)
    problems = check_trace_events.check(export)
    causes = sorted(wait["cause"] for wait in report["waits"])
    if causes != expected:
        problems.append("the report's waits are %s, expected %s" % (causes, expected))
    if export["otherData"]["origin_ns"] != report["origin_ns"]:
        problems.append("time zero %s is not the report's %s" % (export["otherData"]["origin_ns"], report["origin_ns"]))
    titles = {cause["cause"]: cause["title"] for cause in report["causes"]}
    events = export["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    flows = {}
    for event in events:
        if event["ph"] in ("s", "t", "f") and event.get("cat") == "wait":
            flows.setdefault(event["id"], {})[event["ph"]] = event

    def within(point, start_ns, end_ns):
        return start_ns <= ns(point["ts"]) <= end_ns

    for wait in report["waits"]:
        label = "wait %s at %d ns" % (wait["cause"], wait["wait_start_ns"])
        matches = [e for e in slices if e["cat"] == "wait" and e["args"]["cause"] == wait["cause"]
                   and ns(e["ts"]) == wait["wait_start_ns"]
                   and ns(e["ts"]) + ns(e["dur"]) == wait["wait_end_ns"]]
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
        arrows = [f for f in flows.values() if "t" in f and (f["t"]["pid"], f["t"]["tid"]) == (event["pid"], event["tid"])
                  and within(f["t"], ns(event["ts"]), ns(event["ts"]) + ns(event["dur"]))]
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


if __name__ == "__main__":
    sys.exit(main())
