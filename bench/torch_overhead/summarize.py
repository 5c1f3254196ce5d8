"""Summarizes bench/torch_overhead/run.sh's results.tsv: per job and variant the median steps/s,
the spread (min-max), the ratios of medians to plain and to the floor, and the trace size per GPU
activity and the dropped records of the recording variants."""
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
sizes = defaultdict(list)
dropped = defaultdict(int)
for line in open(sys.argv[1]):
    job, variant, _round, rate, size, activities, drops = line.rstrip("\n").split("\t")
    if rate != "nan":
        runs[job, variant].append(float(rate))
    if size != "-" and activities not in ("-", "0"):
        sizes[job, variant].append(int(size) / int(activities))
    if drops != "-":
        dropped[job, variant] += int(drops)

jobs = sorted({job for job, _ in runs}, key=lambda job: ["mlp", "resnet50", "gpt2", "seed004"].index(job) if job in ("mlp", "resnet50", "gpt2", "seed004") else 9)
order = ["plain", "floor", "record", "record-nosample", "record-all", "record-noapi", "record-nolaunch",
         "record-discard", "profiler"]
print(f"{'job':9} {'variant':16} {'n':>2} {'steps/s':>9} {'spread':>17} {'/plain':>7} {'/floor':>7} {'B/activity':>10} {'dropped':>7}")
order += sorted({variant for _, variant in runs} - set(order))
for job in jobs:
    plain = statistics.median(runs[job, "plain"]) if runs[job, "plain"] else None
    floor = statistics.median(runs[job, "floor"]) if runs[job, "floor"] else None
    for variant in order:
        values = runs.get((job, variant))
        if not values:
            continue
        median = statistics.median(values)
        spread = f"{min(values):.2f}-{max(values):.2f}"
        to_plain = f"{median / plain:.3f}" if plain else "-"
        to_floor = f"{median / floor:.3f}" if floor else "-"
        size = f"{statistics.median(sizes[job, variant]):.0f}" if sizes.get((job, variant)) else "-"
        drops = str(dropped[job, variant]) if (job, variant) in dropped else "-"
        print(f"{job:9} {variant:16} {len(values):>2} {median:>9.2f} {spread:>17} {to_plain:>7} {to_floor:>7} {size:>10} {drops:>7}")
