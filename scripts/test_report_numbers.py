#!/usr/bin/env python3
"""ntkl report's numbers against an independent computation.

    scripts/test_report_numbers.py NTKL FILE.etl...

Each file is decoded with `ntkl dump --events` (the records, their times,
CPUs and decoded fields, and the "switch ..." line of every context
switch), and this script works the numbers out again from those lines
alone, with its own code, by the rules docs/usage.md gives for ntkl
report; then it compares them with `ntkl report --json` (and the text
report where the question is what it prints). One PASS or FAIL line per
file and check; exit 1 if one failed. A file that is absent (the Windows
samples in a clone without ../shared) is one SKIP line saying so.
"""
import json
import os
import re
import subprocess
import sys

REC = re.compile(r'^\[buf (\d+) cpu (\d+) \+0x[0-9a-f]+\] (-?\d+)(?: \([^)]*\))?'
                 r'(?: pid (\d+) tid (\d+))? (.*)$')
SWITCH = re.compile(r'^    switch cpu=(\d+) time=(-?\d+) old=(\d+) new=(\d+|-) state=(\S+) '
                    r'reason=(\S+) prio=\S+ wait=\S+$')
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')

failed = False


def result(ok, what, why=""):
    global failed
    if ok:
        print(f"PASS: report-numbers {what}")
    else:
        failed = True
        print(f"FAIL: report-numbers {what}: {why}")


class Trace:
    """The records and switches of `ntkl dump --events`, nothing of the report's."""

    def __init__(self, ntkl, path):
        out = subprocess.run([ntkl, "dump", "--events", path], check=True,
                             capture_output=True, text=True, errors="replace").stdout
        self.records = []       # dicts: buf, cpu, time, name, fields
        self.switches = []      # dicts: cpu, time, old, new, state, reason
        self.freq = 1e7
        for line in out.splitlines():
            m = REC.match(line)
            if m:
                rest = m.group(6)
                self.records.append({
                    "buf": int(m.group(1)), "cpu": int(m.group(2)),
                    "time": int(m.group(3)), "name": rest.split(" (")[0],
                    "fields": {}, "kind": rest.split(" ")[0]})
                continue
            m = SWITCH.match(line)
            if m:
                self.switches.append({
                    "cpu": int(m.group(1)), "time": int(m.group(2)), "old": int(m.group(3)),
                    "new": None if m.group(4) == "-" else int(m.group(4)),
                    "state": m.group(5), "reason": m.group(6)})
                continue
            if line.startswith("    ") and self.records and ": " in line:
                label, _, rest = line.strip().partition(": ")
                if " " not in label:
                    self.records[-1]["fields"].update(
                        {k: v.strip('"') for k, v in FIELD.findall(rest)})
                    self.records[-1].setdefault("layout", label)
            if line.startswith("PerfFreq:"):
                self.freq = float(line.split()[1])
        head = subprocess.run([ntkl, "dump", path], check=True, capture_output=True,
                              text=True, errors="replace").stdout
        for line in head.splitlines():
            if line.startswith("PerfFreq:"):
                self.freq = float(line.split()[1]) or 1e7
        self.switches.sort(key=lambda s: (s["cpu"], s["time"]))

    def window(self):
        """The trace: its data records' first and last time, and the switches'."""
        times = [r["time"] for r in self.records if r["buf"] > 0]
        times += [s["time"] for s in self.switches]
        return min(times), max(times)


def busy_and_threads(tr, first, last):
    """Per CPU (busy ticks, counted ticks) and per thread ticks, over [first, last]."""
    cpus, threads = {}, {}

    def run(cpu, tid, a, b):
        a, b = max(a, first), min(b, last)
        if b <= a:
            return
        span, busy = cpus.get(cpu, (0, 0))
        cpus[cpu] = (span + b - a, busy + (b - a if tid else 0))
        threads[tid] = threads.get(tid, 0) + b - a

    by_cpu = {}
    for s in tr.switches:
        by_cpu.setdefault(s["cpu"], []).append(s)
    for cpu, v in by_cpu.items():
        run(cpu, v[0]["old"], first, v[0]["time"])
        for p, s in zip(v, v[1:]):
            run(cpu, s["old"], p["time"], s["time"])
        if v[-1]["new"] is not None:
            run(cpu, v[-1]["new"], v[-1]["time"], last)
    return cpus, threads


def close(a, b, tol):
    return abs(a - b) <= tol


def check_file(ntkl, path):
    name = os.path.basename(path)
    tr = Trace(ntkl, path)
    rep = json.loads(subprocess.run([ntkl, "report", "--json", path], check=True,
                                    capture_output=True, text=True).stdout)
    first, last = tr.window()
    cpus, threads = busy_and_threads(tr, first, last)

    # 1. busy % per CPU over the whole trace
    want = []
    for c in range(len(rep["busy_pct"])):
        span, busy = cpus.get(c, (0, 0))
        want.append(round(100.0 * busy / span, 3) if span else None)
    got = rep["busy_pct"]
    ok = len(got) == len(want) and all(
        (g is None and w is None) or (g is not None and w is not None and close(g, w, 0.0015))
        for g, w in zip(got, want))
    result(ok, f"{name}: busy % per CPU over the trace", f"report {got}, independent {want}")
    # an idle CPU reads idle: every sample of it in the idle thread (seed
    # ntkl-full-4k.etl's CPU 3 once read 39 %)
    samples = {}
    for r in tr.records:
        if r.get("layout") == "SampledProfile":
            n, idle = samples.get(r["cpu"], (0, 0))
            samples[r["cpu"]] = (n + 1, idle + (r["fields"]["ThreadId"] == "0"))
    for c, (n, idle) in sorted(samples.items()):
        if n >= 20 and idle == n and c < len(got) and got[c] is not None:
            result(got[c] < 5, f"{name}: CPU {c}, all {n} samples idle, reads idle",
                   f"busy {got[c]} %")
    result(rep["switches"] == len(tr.switches), f"{name}: context switches",
           f"report {rep['switches']}, independent {len(tr.switches)}")
    want_t = {t: v / tr.freq for t, v in threads.items() if t}
    got_t = {t["tid"]: t["cpu_s"] for t in rep["threads"]}
    bad = [(t, got_t.get(t), v) for t, v in want_t.items() if not close(got_t.get(t, -1), v, 2e-6)]
    result(not bad and len(got_t) == len(want_t), f"{name}: CPU time of each of {len(want_t)} threads",
           f"tid, report, independent: {bad[:5]}; {len(got_t)} vs {len(want_t)} threads")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ntkl = sys.argv[1]
    for path in sys.argv[2:]:
        if not os.path.exists(path):
            print(f"SKIP: report-numbers {os.path.basename(path)}: {path} is absent "
                  "(the Windows samples are in ../shared/etl-samples beside the clone)")
            continue
        check_file(ntkl, path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
