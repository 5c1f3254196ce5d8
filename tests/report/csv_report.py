"""report --csv against report --json (issue 34): every figure of every table equal.

Usage: csv_report.py [--hostile NAME] CSV JSON [CSV JSON ...]. Reads each CSV with Python's csv module (RFC 4180), splits it
into its documents at the empty lines, and checks each one's header, its rows' table and every
field against the JSON's same key (docs/overlapscope-report.md, "CSV"). NAME: a string that must
come back whole as the first device's name. Prints what differs and exits 1 when anything does."""
import csv
import io
import json
import sys

ORDER = ["devices", "streams", "causes", "idle", "exposed_communication", "what_if", "summary"]
problems = []


def blocks(path):
    with open(path, newline="", encoding="utf-8") as f:
        data = f.read()
    # RFC 4180: every line ends with CRLF; a bare LF or CR only inside a quoted field.
    if not data.endswith("\r\n"):
        problems.append("the last line is not ended by CRLF")
    out, current = [], []
    for row in csv.reader(io.StringIO(data, newline="")):
        if not row:
            out.append(current)
            current = []
        else:
            current.append(row)
    out.append(current)
    return out


class Derived(float):
    """A ratio the JSON does not hold, computed here from its integers: the CSV's is written to
    the JSON's precision (15 significant digits), so it is compared within that."""


def same(where, text, value):
    """The CSV's text against the JSON's value: empty is null, true/false booleans, numbers exact."""
    if value is None:
        ok = text == ""
    elif isinstance(value, Derived):
        ok = text != "" and abs(float(text) - value) <= 1e-14 * max(1.0, abs(value))
    elif isinstance(value, bool):
        ok = text == ("true" if value else "false")
    elif isinstance(value, (int, float)):
        ok = text != "" and float(text) == value
    else:
        ok = text == value
    if not ok:
        problems.append(f"{where}: CSV {text!r}, JSON {value!r}")


def lookup(obj, column):
    for part in column.split("."):
        obj = obj[part]
    return obj


def ratio(part, whole):
    return Derived(part / whole) if whole > 0 else None


def device_value(device, column):
    if column == "busy_ratio":
        return ratio(device["busy_ns"], device["span_ns"])
    if column == "comm_overlap":
        return ratio(device["compute_communication_overlap_ns"], device["communication_ns"])
    return lookup(device, column)


def compare(name, rows, expected, value=lookup):
    header = rows[0]
    if header[0] != "table":
        problems.append(f"{name}: header starts with {header[0]!r}")
    if len(rows) - 1 != len(expected):
        problems.append(f"{name}: {len(rows) - 1} rows, JSON {len(expected)}")
    for i, (row, item) in enumerate(zip(rows[1:], expected)):
        if len(row) != len(header) or row[0] != name:
            problems.append(f"{name} row {i}: {len(row)} fields of {len(header)}, table {row[0]!r}")
            continue
        for column, text in zip(header[1:], row[1:]):
            same(f"{name} row {i} {column}", text, value(item, column))


def accounting(doc, key):
    """The JSON's idle or exposed-communication causes in the CSV's columns, grouped by device and
    step (the CSV lists them in the analysis's order)."""
    groups = {}
    for d in doc["devices"]:
        groups[(d["rank"], d["pid"], d["device_id"], None)] = (d, d[key]["causes"])
    for s in doc["step_accounting"]:
        device = next(d for d in doc["devices"] if (d["rank"], d["pid"], d["device_id"]) == (s["rank"], s["pid"], s["device_id"]))
        groups[(s["rank"], s["pid"], s["device_id"], s["step"])] = (device, s[key]["causes"])
    return groups


def compare_accounting(name, rows, doc):
    header, expected = rows[0], accounting(doc, name)
    seen = {}
    for row in rows[1:]:
        r = dict(zip(header, row))
        step = int(r["step"]) if r["step"] else None
        seen.setdefault((int(r["rank"]), int(r["pid"]), int(r["device_id"]), step), []).append(r)
    total = sum(len(causes) for _, causes in expected.values())
    if len(rows) - 1 != total:
        problems.append(f"{name}: {len(rows) - 1} rows, JSON {total}")
    for group, (device, causes) in expected.items():
        got = seen.get(group, [])
        if len(got) != len(causes):
            problems.append(f"{name} {group}: {len(got)} rows, JSON {len(causes)}")
        for r, cause in zip(got, causes):
            for column in header[1:]:
                if column == "step":
                    continue
                value = device[column] if column in ("rank", "pid", "process_id", "device_id", "process") else cause[column]
                same(f"{name} {group} {cause['cause']} {column}", r[column], value)


def check(csv_path, json_path, hostile):
    del problems[:]
    doc = json.load(open(json_path, encoding="utf-8"))
    found = blocks(csv_path)
    if len(found) != len(ORDER):
        problems.append(f"{len(found)} documents, not {len(ORDER)}")
    tables = dict(zip(ORDER, found))
    for name in ORDER:
        if name not in tables or not tables[name]:
            problems.append(f"no {name} document")
    if not problems:
        compare("devices", tables["devices"], doc["devices"], device_value)
        compare("streams", tables["streams"], doc["streams"])
        compare("causes", tables["causes"], doc["causes"])
        compare_accounting("idle", tables["idle"], doc)
        compare_accounting("exposed_communication", tables["exposed_communication"], doc)
        compare("what_if", tables["what_if"], doc["what_if"])
        summary = [{"name": k, "value": v, "unmeasured": doc["unmeasured"].get(k)} for k, v in doc["summary"].items()]
        header = tables["summary"][0]
        rows = [[r[0]] + [r[i] for i in range(1, len(header)) if header[i] != "unit"] for r in tables["summary"]]
        compare("summary", rows, summary)
        devices = tables["devices"]
        if hostile is not None and devices[1][devices[0].index("name")] != hostile:
            problems.append(f"hostile device name not read back whole: {devices[1]!r}")
    for p in problems[:20]:
        print(f"{csv_path}: {p}")
    return not problems


def main():
    args, hostile = sys.argv[1:], None
    if args[:1] == ["--hostile"]:
        hostile, args = args[1], args[2:]
    results = [check(args[i], args[i + 1], hostile) for i in range(0, len(args), 2)]
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
