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
import bisect
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
        self.nprocs = 0
        for line in out.splitlines():
            m = REC.match(line)
            if m:
                rest = m.group(6)
                hook = re.match(r'^\S+ \(0x([0-9a-f]{4}) ', rest)
                self.records.append({
                    "buf": int(m.group(1)), "cpu": int(m.group(2)),
                    "time": int(m.group(3)), "name": rest.split(" (")[0],
                    "fields": {}, "hook": int(hook.group(1), 16) if hook else None})
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
            if line.startswith("NumberOfProcessors:"):
                self.nprocs = int(line.split()[1])
        self.switches.sort(key=lambda s: (s["cpu"], s["time"]))

    def window(self, widen=True):
        """The collection: the first and last time of a kernel record of
        activity (not of the header group 0x00, SystemConfig 0x0B, a
        Process, Thread or Image DCStart/DCEnd (type 3, 4), KernelBase
        0x1421, KeyRundown 0x1824; no classic or provider event), else of
        every data record; widened to the switches'."""
        def activity(r):
            h = r["hook"]
            if h is None or (h >> 8) in (0x00, 0x0B) or h in (0x1421, 0x1824):
                return False
            return not ((h >> 8) in (0x03, 0x05, 0x14) and (h & 0xFF) in (3, 4))
        data = [r for r in self.records if r["buf"] > 0]
        times = [r["time"] for r in data if activity(r)] or [r["time"] for r in data]
        if widen:
            times += [s["time"] for s in self.switches]
        return min(times), max(times)

    def span(self):
        """The file: every data record's time, and the switches'."""
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


def first_at_or_after(times, t):
    """The first of the sorted times at or after t, or None."""
    i = bisect.bisect_left(times, t)
    return times[i] if i < len(times) else None


def waits_and_ready(tr):
    """WPA's Waits by reason, and the ready latencies (us), from the records."""
    ins, ready = {}, {}
    for s in tr.switches:
        if s["new"] is not None:
            ins.setdefault(s["new"], []).append(s["time"])
    for r in tr.records:
        if r.get("layout") == "ReadyThread":
            ready.setdefault(int(r["fields"]["TThreadId"]), []).append(r["time"])
    for v in list(ins.values()) + list(ready.values()):
        v.sort()
    waits = {}
    for s in tr.switches:
        if s["old"] == 0 or s["state"] != "Waiting":
            continue
        count, timed, total = waits.get(s["reason"], (0, 0, 0))
        nxt = first_at_or_after(ins.get(s["old"], []), s["time"] + 1)
        rdy = first_at_or_after(ready.get(s["old"], []), s["time"])
        end = rdy if rdy is not None and (nxt is None or rdy <= nxt) else nxt
        if end is not None:
            timed += 1
            total += (end - s["time"]) / tr.freq
        waits[s["reason"]] = (count + 1, timed, total)
    lat = []
    for tid, times in ready.items():
        for t in times:
            nxt = first_at_or_after(ins.get(tid, []), t)
            if nxt is not None:
                lat.append((nxt - t) / tr.freq * 1e6)
    lat.sort()
    return waits, lat


def close(a, b, tol):
    return abs(a - b) <= tol


def check_file(ntkl, path):
    name = os.path.basename(path)
    tr = Trace(ntkl, path)
    rep = json.loads(subprocess.run([ntkl, "report", "--json", path], check=True,
                                    capture_output=True, text=True).stdout)
    text = subprocess.run([ntkl, "report", path], check=True, capture_output=True,
                          text=True).stdout
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
    check_waits_ready(name, tr, rep, text)
    check_duration(name, tr, rep, text, first, last)
    check_rate(ntkl, path, name, tr, rep, first, last)
    check_sampled(name, tr, rep, text)
    check_filters(ntkl, path, name, tr, first, last)
    check_idle(name, tr, rep, cpus, first, last)


def check_idle(name, tr, rep, cpus, first, last):
    """The idle section: per CPU the idle thread's time (the counted time
    less the busy), the switches out of idle in the window (wakeups), the
    idle periods whole in it (median: the upper one, and the longest), and
    the threads each wakeup switched to, by count."""
    idle = rep["idle"]
    touches = any(s["old"] == 0 or s["new"] == 0 for s in tr.switches)
    result(idle["any"] == touches, f"{name}: idle: a section when a switch touches an idle thread",
           f"report {idle['any']}, independent {touches}")
    if not touches:
        return
    by_cpu = {}
    for s in tr.switches:
        by_cpu.setdefault(s["cpu"], []).append(s)
    want, wakers = [], {}
    for cpu in sorted(by_cpu):
        v = by_cpu[cpu]
        periods, wakeups = [], 0
        for i, s in enumerate(v):
            if s["old"] != 0 or not first <= s["time"] <= last:
                continue
            wakeups += 1
            wakers[s["new"]] = wakers.get(s["new"], 0) + 1
            if i and v[i - 1]["time"] >= first:
                periods.append(s["time"] - v[i - 1]["time"])
        periods.sort()
        span, busy = cpus.get(cpu, (0, 0))
        want.append((cpu, (span - busy) / tr.freq, wakeups, len(periods),
                     periods[len(periods) // 2] / tr.freq * 1e3 if periods else 0.0,
                     periods[-1] / tr.freq * 1e3 if periods else 0.0))
    got = [(c["cpu"], c["idle_s"], c["wakeups"], c["periods"], c["median_ms"], c["max_ms"])
           for c in idle["cpus"]]
    ok = len(got) == len(want) and all(
        g[0] == w[0] and g[2:4] == w[2:4] and close(g[1], w[1], 2e-6) and
        close(g[4], w[4], 2e-3) and close(g[5], w[5], 2e-3) for g, w in zip(got, want))
    result(ok, f"{name}: idle: per CPU idle time, wakeups, periods, median and longest",
           f"report {got[:4]}, independent {want[:4]}")
    got_w = {w["tid"]: w["wakeups"] for w in idle["wakers"]}
    result(got_w == wakers and idle["wakeups"] == sum(wakers.values()),
           f"{name}: idle: the {len(wakers)} threads the CPUs woke for, by count",
           f"report {sorted(got_w.items(), key=str)[:6]}, independent {sorted(wakers.items(), key=str)[:6]}")


def check_waits_ready(name, tr, rep, text):
    """Item 6: waits by count with their time; ready latency null when none."""
    waits, lat = waits_and_ready(tr)
    got = [(w["reason"], w["count"], w["timed"], w["total_s"]) for w in rep["wait_reasons"]]
    counts = [w[1] for w in got]
    result(counts == sorted(counts, reverse=True), f"{name}: wait reasons most first",
           f"{got}")
    ok = len(got) == len(waits) and all(
        g[0] in waits and waits[g[0]][:2] == (g[1], g[2]) and close(waits[g[0]][2], g[3], 2e-7)
        for g in got)
    result(ok, f"{name}: wait reasons' counts and wait times ({len(waits)} reasons)",
           f"report {got}, independent {waits}")
    for w in rep["wait_reasons"]:
        want = w["total_s"] / w["timed"] * 1e6 if w["timed"] else None
        if (want is None) != (w["mean_us"] is None) or (want and not close(want, w["mean_us"], 0.002)):
            result(False, f"{name}: mean wait of {w['reason']}", f"{w}")
    result(rep["ready_measured"] == len(lat), f"{name}: ready latencies measured",
           f"report {rep['ready_measured']}, independent {len(lat)}")
    keys = ["ready_p50_us", "ready_p90_us", "ready_p99_us", "ready_max_us"]
    if lat:
        n = len(lat)
        want = [lat[n // 2], lat[n * 9 // 10], lat[n * 99 // 100], lat[-1]]
        ok = all(rep[k] is not None and close(rep[k], v, 0.002) for k, v in zip(keys, want))
    else:
        want = [None] * 4
        ok = all(rep[k] is None for k in keys) and "Ready latency (ReadyThread to switch in): none" in text
    result(ok, f"{name}: ready latency percentiles ({'none measured: null, none' if not lat else len(lat)})",
           f"report {[rep[k] for k in keys]}, independent {want}")


def check_duration(name, tr, rep, text, first, last):
    """Item 2: the duration is the collection's, and says so; rates over it."""
    dur = (last - first) / tr.freq
    a, b = tr.span()
    ok = (rep["clock_first"], rep["clock_last"]) == (first, last) and \
        close(rep["duration_s"], dur, 2e-6) and close(rep["trace_s"], (b - a) / tr.freq, 2e-6)
    result(ok, f"{name}: duration of the collection ({dur:.6f} s of {(b - a) / tr.freq:.6f} s)",
           f"report {rep['clock_first']}..{rep['clock_last']} {rep['duration_s']} s "
           f"(file {rep['trace_s']}), independent {first}..{last} {dur} s")
    result(f"{dur:.3f} s of collection" in text.splitlines()[0],
           f"{name}: the text says what the duration is of", text.splitlines()[0])
    if dur > 0:
        result(close(rep["switches_per_s"], len(tr.switches) / dur, 0.002),
               f"{name}: switches per second over the collection",
               f"report {rep['switches_per_s']}, independent {len(tr.switches) / dur}")


def check_rate(ntkl, path, name, tr, rep, first, last):
    """Item 4: the achieved sample rate per CPU beside the requested one."""
    samples = [r for r in tr.records if r.get("layout") == "SampledProfile"]
    if not samples:
        result(rep["samples"] == 0 and rep["samples_per_cpu_s"] is None,
               f"{name}: no samples, no rate", f"{rep['samples']} {rep['samples_per_cpu_s']}")
        return
    interval = None
    for hook in ("PerfInfo/CollectionStart", "PerfInfo/SetInterval"):
        for r in tr.records:
            if r["name"].endswith(hook) and r["fields"].get("Source") == "0":
                interval = int(r["fields"]["NewInterval"])
                break
        if interval:
            break
    cpus = max(tr.nprocs, 1 + max(r["cpu"] for r in samples))
    want = len(samples) / cpus / ((last - first) / tr.freq)
    req = 1e7 / interval if interval else None
    ok = rep["samples"] == len(samples) and rep["sample_cpus"] == cpus and \
        close(rep["samples_per_cpu_s"], want, 0.002) and \
        (req is None and rep["requested_per_cpu_s"] is None or close(rep["requested_per_cpu_s"], req, 0.002))
    result(ok, f"{name}: samples per CPU per second, achieved {want:.1f} and requested {req}",
           f"report {rep['samples']} samples on {rep['sample_cpus']} CPUs, {rep['samples_per_cpu_s']} "
           f"of {rep['requested_per_cpu_s']}; independent {len(samples)} on {cpus}, {want} of {req}")
    # dump --stats: the same over the activity records' span (no switches)
    stats = subprocess.run([ntkl, "dump", "--stats", path], check=True, capture_output=True,
                           text=True).stdout
    a, b = tr.window(widen=False)
    want = len(samples) / cpus / ((b - a) / tr.freq)
    line = f"Rate: {want:.1f} samples per CPU per second achieved ({cpus} CPUs"
    if req:
        line2 = f"{req:.1f} requested: {100 * want / req:.1f}%"
    else:
        line2 = "the interval requested is not in the file"
    ok = any(x.startswith(line) and x.endswith(line2) for x in stats.splitlines())
    result(ok, f"{name}: dump --stats gives the achieved and requested rate",
           f"want '{line} ... {line2}' in {[x for x in stats.splitlines() if x.startswith('Rate')]}")


def check_sampled(name, tr, rep, text):
    """Item 3: CPU by process, thread and image from the samples, named as
    from SampledProfile; with no switches, no empty tables."""
    samples = [r for r in tr.records if r.get("layout") == "SampledProfile"]
    if not tr.switches:
        result("Processes by CPU time (context switches, top 10):\n  none: no context switches" in text,
               f"{name}: no switches: one line says so, not an empty table", text[:300])
    if not samples:
        result(not rep["processes_sampled"] and "Processes by samples" not in text,
               f"{name}: no samples, no sampled tables", "")
        return
    # a thread's process: its latest Thread event (Start, End, DCStart, DCEnd) in time
    owner = {0: (0, 0)}
    for r in tr.records:
        f = r["fields"]
        if r.get("layout") == "Thread" and "TThreadId" in f and "ProcessId" in f:
            tid = int(f["TThreadId"])
            if tid and (tid not in owner or r["time"] >= owner[tid][0]):
                owner[tid] = (r["time"], int(f["ProcessId"]))
    by_tid, by_pid, cpu, idle = {}, {}, {}, {}
    for r in samples:
        tid = int(r["fields"]["ThreadId"])
        pid = owner[tid][1] if tid in owner else None
        by_tid[tid] = by_tid.get(tid, 0) + 1
        by_pid[pid] = by_pid.get(pid, 0) + 1
        cpu[r["cpu"]] = cpu.get(r["cpu"], 0) + 1
        idle[r["cpu"]] = idle.get(r["cpu"], 0) + (tid == 0)
    got_t = {t["tid"]: (t["pid"], t["samples"]) for t in rep["threads_sampled"]}
    want_t = {t: (owner[t][1] if t in owner else None, n) for t, n in by_tid.items()}
    result(got_t == want_t, f"{name}: samples of each of {len(want_t)} threads, and their process",
           f"differ: {[(t, got_t.get(t), want_t.get(t)) for t in set(got_t) | set(want_t) if got_t.get(t) != want_t.get(t)][:5]}")
    got_p = {p["pid"]: p["samples"] for p in rep["processes_sampled"]}
    result(got_p == by_pid, f"{name}: samples of each of {len(by_pid)} processes",
           f"report {sorted(got_p.items())[:8]}, independent {sorted(by_pid.items(), key=str)[:8]}")
    counts = [p["samples"] for p in rep["processes_sampled"]]
    result(counts == sorted(counts, reverse=True), f"{name}: processes by samples, most first", "")
    want_b = [round(100.0 * (cpu.get(c, 0) - idle.get(c, 0)) / cpu[c], 3) if cpu.get(c) else 0.0
              for c in range(1 + max(cpu))]
    result(len(want_b) == len(rep["busy_pct_sampled"]) and
           all(close(a, b, 0.0015) for a, b in zip(want_b, rep["busy_pct_sampled"])),
           f"{name}: busy % per CPU from the samples not idle", f"report {rep['busy_pct_sampled']}, independent {want_b}")
    result(sum(i["samples"] for i in rep["images_sampled"]) == len(samples),
           f"{name}: every sample in the images table (\"?\": no image)", "")
    titles = ["Processes by samples (SampledProfile", "Threads by samples (SampledProfile",
              "Images by samples (SampledProfile"]
    if tr.switches:
        titles += ["Processes by CPU time (context switches", "Threads by CPU time (context switches"]
    missing = [t for t in titles if t not in text]
    result(not missing, f"{name}: each table says its source, both where both exist", f"missing {missing}")


def run_json(ntkl, path, *opts):
    return json.loads(subprocess.run([ntkl, "report", "--json", *opts, path], check=True,
                                     capture_output=True, text=True).stdout)


def check_filters(ntkl, path, name, tr, first, last):
    """Item 7: --time, --pid, --tid, --comm, --top, --sort; bad values."""
    samples = [r for r in tr.records if r.get("layout") == "SampledProfile"]
    if not tr.switches and not samples:
        return
    # --time: the middle half of the collection, from its (unwidened) start
    origin, end = tr.window(widen=False)
    coll = (end - origin) / tr.freq
    a_s, b_s = round(coll / 4, 6), round(coll * 3 / 4, 6)
    rep = run_json(ntkl, path, "--time", f"{a_s},{b_s}")
    a = max(first, origin + int(a_s * tr.freq))
    b = min(last, origin + int(b_s * tr.freq))
    cpus, threads = busy_and_threads(tr, a, b)
    want = [round(100.0 * cpus[c][1] / cpus[c][0], 3) if c in cpus and cpus[c][0] else None
            for c in range(len(rep["busy_pct"]))]
    nsw = sum(1 for s in tr.switches if a <= s["time"] <= b)
    nsm = sum(1 for r in samples if a <= r["time"] <= b)
    ok = close(rep["duration_s"], (b - a) / tr.freq, 2e-6) and rep["switches"] == nsw and \
        rep["samples"] == nsm and all(
            (g is None) == (w is None) and (g is None or close(g, w, 0.0015))
            for g, w in zip(rep["busy_pct"], want))
    want_t = {t: v / tr.freq for t, v in threads.items() if t}
    got_t = {t["tid"]: t["cpu_s"] for t in rep["threads"]}
    ok = ok and set(got_t) == set(want_t) and all(close(got_t[t], want_t[t], 2e-6) for t in got_t)
    result(ok, f"{name}: --time {a_s},{b_s}: duration, busy %, switches, samples, CPU time in the window",
           f"report {rep['duration_s']} s, busy {rep['busy_pct']}, {rep['switches']} switches, "
           f"{rep['samples']} samples; independent {(b - a) / tr.freq} s, busy {want}, {nsw}, {nsm}")
    # --pid, --tid, --comm: only that process's rows
    full = run_json(ntkl, path)
    rows = [t for t in full["threads"] + full["threads_sampled"] if t["pid"] not in (None, 0)]
    if rows:
        t0 = rows[0]
        for opt, val, keep in (("--pid", t0["pid"], lambda t: t["pid"] == t0["pid"]),
                               ("--tid", t0["tid"], lambda t: t["tid"] == t0["tid"])):
            rep = run_json(ntkl, path, opt, str(val))
            want = sorted(t["tid"] for t in full["threads"] if keep(t))
            got = sorted(t["tid"] for t in rep["threads"])
            want_s = sorted(t["tid"] for t in full["threads_sampled"] if keep(t))
            got_s = sorted(t["tid"] for t in rep["threads_sampled"])
            result(got == want and got_s == want_s and rep["busy_pct"] == full["busy_pct"],
                   f"{name}: {opt} {val}: those threads' rows only, the CPUs' whole",
                   f"threads {got} vs {want}, sampled {got_s} vs {want_s}")
        comm = next((t["name"] for t in full["threads"] + full["threads_sampled"] if t["name"]), None)
        if comm:
            rep = run_json(ntkl, path, "--comm", comm)
            procs = {p["pid"]: p["name"] for p in full["processes"] + full["processes_sampled"]}
            bad = [t for t in rep["threads"] + rep["threads_sampled"]
                   if t["name"] != comm and procs.get(t["pid"]) != comm]
            result(not bad and (rep["threads"] or rep["threads_sampled"]),
                   f"{name}: --comm {comm}: threads of that name or process only", f"{bad[:3]}")
    # --top, --sort
    text = subprocess.run([ntkl, "report", "--top", "2", "--sort", "pid", path], check=True,
                          capture_output=True, text=True).stdout
    rep = run_json(ntkl, path, "--sort", "pid")
    pids = [p["pid"] for p in rep["processes"]]
    spids = [p["pid"] for p in rep["processes_sampled"]]
    tables = [t for t in text.split("\n\n") if "(context switches, first 2 by pid)" in t
              or "first 2 by pid)" in t]
    ok = pids == sorted(pids) and spids == sorted(spids, key=lambda p: (p is None, p)) and tables and \
        all(len(t.strip().splitlines()) <= 4 for t in tables if "none:" not in t)
    result(ok, f"{name}: --sort pid orders by pid, --top 2 prints 2 rows a table",
           f"pids {pids[:6]}, sampled {spids[:6]}, tables {[t[:60] for t in tables]}")
    stats = subprocess.run([ntkl, "dump", "--stats", "--top", "1", path], check=True,
                           capture_output=True, text=True).stdout
    if samples:
        block = stats.split("Processes by samples (top 1):\n")[1].split("\n\n")[0]
        result(len(block.splitlines()) == 2, f"{name}: dump --stats --top 1: one row", block)


def check_bad_values(ntkl, path):
    """Item 7: a bad value is one line on stderr and exit 2, for both commands."""
    for cmd in (["report"], ["dump", "--stats"]):
        for opt, val in (("--pid", "x"), ("--tid", "-1"), ("--time", "3"), ("--time", "2,1"),
                         ("--top", "0"), ("--sort", "size"), ("--comm", "")):
            p = subprocess.run([ntkl, *cmd, opt, val, path], capture_output=True, text=True)
            lines = p.stderr.splitlines()
            result(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"ntkl {cmd[0]}: {opt} ")
                   and not p.stdout, f"{' '.join(cmd)} {opt} '{val}': one line, exit 2",
                   f"exit {p.returncode}, stderr {lines}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ntkl = sys.argv[1]
    check_bad_values(ntkl, sys.argv[2])
    for path in sys.argv[2:]:
        if not os.path.exists(path):
            print(f"SKIP: report-numbers {os.path.basename(path)}: {path} is absent "
                  "(the Windows samples are in ../shared/etl-samples beside the clone)")
            continue
        check_file(ntkl, path)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
