#!/usr/bin/env bash
# What-if validation (issue 17): the golden workloads come in pairs, the cause and the program with
# the fix made. For each pair and each machine folder this prints the saving the replay predicts
# from the unfixed trace (`report --json`, what_if[fix].predicted_saving_ns), the saving measured
# (below), and the error, and asserts the issue's target: |predicted - measured| <= max(15% of
# measured, 50 us). The saturation trace has no fixed twin: its "all of the above" prediction must
# stay under 10% of its span (nothing to gain but the tails).
#
# Like with like: every workload repeats the same work in NVTX ranges "rep N" (workloads/README.md),
# and both figures are taken per rep with `report --range "rep N"`, summed over the reps. Measured:
# the device span of the rep in the unfixed trace minus that in the fixed one. Predicted: the
# what-if of the unfixed trace's rep (the replay holds the rep's operations only). The whole
# trace's span is not compared: its set-up, the syncs between reps that both programs keep, and its
# final pageable read-back (cudaMemcpy to malloc memory, 27-31 ms for 32 MiB in both copy traces,
# the most varying figure) are not the work the fix changes.
#
# Pairs that do not hold yet are listed in `known` with why; they are printed, not asserted.
set -u
[ -d "${OVERLAPSCOPE_TEST_DATA:?}/gpu" ] || { echo "skipped: no $OVERLAPSCOPE_TEST_DATA/gpu"; exit 77; }
os=${OVERLAPSCOPE:?}
python3 - "$os" "$OVERLAPSCOPE_TEST_DATA" <<'PY'
import json, sqlite3, subprocess, sys
os_bin, data = sys.argv[1], sys.argv[2]
# (unfixed, fixed, fix tag): the fix the analysis of the unfixed trace must propose.
pairs = [
    ("copy_pageable", "copy_pinned", "pin-host-buffer"),
    ("default_stream", "default_stream_nonblocking", "non-blocking-streams"),
    ("default_stream", "default_stream_ptds", "non-blocking-streams"),
    ("event_chain", "event_chain_nodeps", "remove-dependency"),
    ("host_sync_device-sync", "host_sync_none", "remove-host-sync"),
    ("host_sync_stream-sync", "host_sync_none", "remove-host-sync"),
    ("host_sync_free", "host_sync_none", "remove-host-sync"),
    ("many_streams_2", "many_streams_8", "more-connections"),
    ("pipeline_serial", "pipeline_pipelined", None),
]
known = {
    # One stream: no wait, so no cause, is proved; the fix (a second stream with an event-ordered
    # double buffer) is a change of design the replay does not invent.
    "pipeline_serial": "no cause proved on one stream: pipelining is a redesign, not a removed cause",
}

def report(name, *options):
    out = subprocess.run([os_bin, "report", f"{data}/{folder}/{name}.db", "--json", *options],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"report {name} {options}: rc {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)

def reps(name):
    db = sqlite3.connect(f"file:{data}/{folder}/{name}.db?mode=ro", uri=True)
    names = [row[0] for row in db.execute("SELECT DISTINCT s.value FROM nvtx n JOIN strings s ON s.id = n.message_id"
                                          " WHERE s.value LIKE 'rep %' ORDER BY 1")]
    db.close()
    return names

def per_rep(name, fix):
    """(span, predicted saving of fix) summed over the reps; the whole trace when it has none."""
    span = predicted = 0
    found = False
    for rep in reps(name) or [None]:
        r = report(name, "--range", rep) if rep else report(name)
        span += sum(d["span_ns"] for d in r["devices"])
        entry = next((w for w in r["what_if"] if w["fix"] == fix), None)
        found |= entry is not None
        predicted += entry["predicted_saving_ns"] if entry else 0
    return span, predicted, found

failed = 0
for folder in ("gpu", "gpu-h100"):
    import os
    if not os.path.isdir(f"{data}/{folder}"):
        continue
    print(f"== tests/data/{folder}")
    print(f"{'pair':52s} {'fix':22s} {'predicted':>10s} {'measured':>10s} {'error':>9s}  verdict")
    for unfixed, fixed, fix in pairs:
        if not os.path.exists(f"{data}/{folder}/{unfixed}.db") or not os.path.exists(f"{data}/{folder}/{fixed}.db"):
            continue
        span, predicted, found = per_rep(unfixed, fix)
        fixed_span = per_rep(fixed, fix)[0]
        measured = span - fixed_span
        by_design = fix == "remove-dependency"
        error = predicted - measured
        bound = max(0.15 * abs(measured), 50000)
        holds = (fix is None or found) and abs(error) <= bound
        if unfixed in known:
            verdict = "KNOWN: " + known[unfixed]
        elif holds:
            verdict = "ok" + (" (by design)" if by_design else "")
        else:
            verdict = f"FAILED (bound {bound / 1e6:.3f} ms)" + ("" if found or not fix else f": no {fix} prediction")
            failed += 1
        print(f"{unfixed + ' -> ' + fixed:52s} {fix or '-':22s} {predicted / 1e6:8.3f}ms {measured / 1e6:8.3f}ms"
              f" {error / 1e6:+7.3f}ms  {verdict}")
    r = report("streams_saturate")
    span = sum(d["span_ns"] for d in r["devices"])
    everything = sum(w["predicted_saving_ns"] for w in r["what_if"] if w["fix"] == "all")
    saturated = any(w["fix"] == "none-sm-saturated" for w in r["what_if"])
    holds = saturated and everything < 0.10 * span
    failed += not holds
    print(f"{'streams_saturate (SM saturation)':52s} {'all':22s} {everything / 1e6:8.3f}ms  span {span / 1e6:.3f}ms"
          f"  {'ok: < 10% of the span' if holds else 'FAILED: must say none-sm-saturated and predict < 10%'}")
    # The outputs a user reads: the text line and the Markdown section carry the JSON's figure, and
    # `check` reads the model's headroom (the sum of waits gave 1.1 ms on the saturated trace).
    r = report("copy_pageable")
    pin = next(w for w in r["what_if"] if w["fix"] == "pin-host-buffer")["predicted_saving_ns"]
    text = subprocess.run([os_bin, "report", f"{data}/{folder}/copy_pageable.db"], capture_output=True, text=True).stdout
    line = next((l for l in text.splitlines() if "if you pin the host buffer: -" in l), "")
    import re
    m = re.search(r": -([0-9.]+) ms \(-([0-9]+)%\)", line)
    if not m or abs(float(m.group(1)) * 1e6 - pin) > 0.01 * pin:
        failed += 1
        print(f"FAILED: text what-if line {line!r}, JSON says {pin} ns")
    markdown = subprocess.run([os_bin, "report", f"{data}/{folder}/copy_pageable.db", "--markdown"],
                              capture_output=True, text=True).stdout
    if "### What if" not in markdown or "- if you pin the host buffer: -" not in markdown:
        failed += 1
        print("FAILED: no what-if section in the Markdown report")
    check = subprocess.run([os_bin, "check", f"{data}/{folder}/streams_saturate.db", "--max", "headroom_ms=0"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        failed += 1
        print(f"FAILED: check --max headroom_ms=0 on streams_saturate: rc {check.returncode}: {check.stdout}{check.stderr}")
print(f"{failed} pair(s) or outputs off target")
sys.exit(1 if failed else 0)
PY
