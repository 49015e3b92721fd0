#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's tables, from the raw output ntkl-bench prints in the guest.

    scripts/bench_stats.py RAW.txt

The raw output is one JSON object a line, whose "kind" says what it is
(selftests/workloads/ntkl-bench.sh prints them and says what each
measures); a line that is not a JSON object (a message mixed in) is
skipped, and so is a kind this script does not know:
  header           text: the kernel, CPUs, clock source and parameters
  switch_run       round, mode, rep, workload, ns, ctxt, ...: one run
  switch_totals    round (a number, or "max": the max-rate runs), mode,
                   switches, evbytes, filebytes, rawbytes, lost, [uwhole,
                   uearly, unomap, ufp: a stack walking logger's user
                   stacks, whole, ended early, of them for want of the
                   process's map, walked by frame pointers (-nounwind)]
  max_rate_run     mode, workload, ns, ...: one CPU's max-rate pingpong
  lockbench        round, mode, rounds, ns, records, lost: ntkl_lockbench
  contend          round, mode, workload, ns, records, lost, ...
  profile_run      round, mode, rep, workload, ns, ...: profile runs
  profile_samples  round, [mode], [workload], samples, [lost, allsamples,
                   filebytes, uwhole, uearly, unomap, ufp]: samples in the
                   workload (pinned to CPU 1; no workload: pingpong) over
                   the round's runs of recorder mode (no mode: profile),
                   every sample in the file and its bytes, what it lost,
                   its user stacks (as switch_totals')
  profile_max      mode, workload, samples, allsamples, filebytes, lost,
                   [u...]: the same over one run of the workload pinned
                   to each CPU at once (the highest rate)
  libntkl          round, mode (none, um, umc), events, ns, cpu, lost,
                   bytes: libntkl-bench, one writer pinned to CPU 1
  peer_run         round, mode, rep, workload, ns, ctxt, ...: peers and
                   scale
  peer_lost        round, mode, lost: what that recorder lost in the round
  bpf_count        round, switches, ctxt: the BPF counter's count over the
                   round and the /proc/stat ctxt delta meanwhile
  storage_run      round, mode, rep, workload, io (file: buffered; nullblk,
                   direct: O_DIRECT on null_blk, on the virtio disk), ops,
                   cpu, cpuns, [soak, busyns], ns, ...:
                   one fileops run; busyns (direct runs): its wall time
                   less its soaker's instructions, the work the guest did
  storage_records  round, mode, io, ops, events, lost, filebytes, [reads,
                   writes, inits, ends]: what the recorder kept over the
                   round's runs of ops operations in all (ntkl: its FileIo
                   or DiskIo records, of them Read, Write, ReadInit +
                   WriteInit and OperationEnd; trace-cmd: its events)
  events_run       round, mode (none, ntkl, tracecmd), rep, workload
                   (eventmix), family (syscalls, faults, tcp), ops,
                   cpu, cpuns, ns, ...: one eventmix run of ops events' worth
  events_records   round, mode, family, ops, events, lost, filebytes: what the
                   recorder kept over the round's runs (ntkl: its records of
                   the kind's events; trace-cmd: its events)
  note, done       a remark; the end of a run that finished

Figures are min and median over runs; a recorder's cost is what it adds
to the untraced runs, per switch (or per contention), and its ratio to
trace-cmd's. scripts/test_bench_stats.py checks each rule.
"""
import json
import sys

# The kinds of raw record, as the module docstring says (a kind not here is
# skipped: scripts/test_bench_stats.py checks ntkl-bench prints no other).
KINDS = ("header", "switch_run", "switch_totals", "max_rate_run", "lockbench", "contend",
         "profile_run", "profile_samples", "profile_max", "libntkl", "peer_run", "peer_lost",
         "bpf_count", "storage_run", "storage_records", "events_run", "events_records",
         "note", "done")
MODES = ("none", "cswitch", "compact", "tracecmd")
# Recorders tabulated only when the raw output has them.
OPTIONAL_MODES = ("cswstack", "cswstackwarm", "cswstackfp", "perfswg")
# The recorders whose losses the target "nothing lost" is about.
NTKL_MODES = ("cswitch", "compact", "cswstack", "cswstackwarm", "cswstackfp")
# CSWITCH with stacks: by tables (made as each run's processes start; warm:
# already made), by frame pointers (-nounwind); the lines of each
STACK_MODES = (("cswstack", "cost per CSwitch stack", "CSWITCH+stacks"),
               ("cswstackwarm", "  the same, warm", "CSWITCH+stacks, warm"),
               ("cswstackfp", "  the same, -nounwind", "CSWITCH+stacks -nounwind"))
# their ratio to perf -g's, the label of each
STACK_VS = {"cswstack": "CSWITCH+stacks vs perf -g", "cswstackwarm": "  warm, vs perf -g",
            "cswstackfp": "  -nounwind, vs perf -g"}
NAMES = {
    "none": "no tracing",
    "cswitch": "ntkl CSWITCH",
    "compact": "ntkl COMPACT_CSWITCH",
    "tracecmd": "trace-cmd sched_switch",
    "cswstack": "ntkl CSWITCH+stacks",
    "cswstackwarm": "CSWITCH+stacks, warm",
    "cswstackfp": "CSWITCH+stacks -nounwind",
    "perfswg": "perf sched_switch -g",
}
# A stack walking logger's user stacks (switch_totals, profile_samples):
# whole, ended early, of them for want of the process's map, walked by
# frame pointers alone (-nounwind).
USTACKS = ("uwhole", "uearly", "unomap", "ufp")
SPIN_MODES = ("none", "spinlock", "tracecmd", "tracecmdT")
SPIN_NAMES = {
    "none": "no tracing",
    "spinlock": "ntkl SPINLOCK",
    "tracecmd": "trace-cmd lock events",
    "tracecmdT": "trace-cmd lock events -T",
}
# Peers and scale (peer_run records): pingpong pinned to CPU 1.
K_MODES = ("none", "probe", "bpf", "ntkl1", "ntkl8", "ntkl64", "buf1", "buf8", "buf64",
           "comp1", "comp8", "comp64", "files0", "files7", "files63", "clone0", "clone7",
           "clone63", "tracecmd", "tracecmd8", "perf", "perf8")
K_NAMES = {
    "none": "no tracing",
    "probe": "empty sched_switch probe",
    "bpf": "BPF counter (raw tracepoint)",
    "ntkl1": "ntkl CSWITCH, 1 logger",
    "ntkl8": "ntkl CSWITCH, 8 loggers",
    "ntkl64": "ntkl CSWITCH, 64 loggers",
    "buf1": "  the same, no writer, 1",
    "buf8": "  the same, no writer, 8",
    "buf64": "  the same, no writer, 64",
    "comp1": "ntkl COMPACT, 1 logger",
    "comp8": "ntkl COMPACT, 8 loggers",
    "comp64": "ntkl COMPACT, 64 loggers",
    "files0": "CSWITCH, 1, its file followed",
    "files7": "  and copied to 7 more files",
    "files63": "  and copied to 63 more files",
    "clone0": "CSWITCH, 1, followed to share",
    "clone7": "  and reflinked to 7 more files",
    "clone63": "  and reflinked to 63 more files",
    "tracecmd": "trace-cmd sched_switch",
    "tracecmd8": "trace-cmd, 8 at once",
    "perf": "perf record sched_switch",
    "perf8": "perf record, 8 at once",
}
# The peers at a scale of ntkl's: n sessions of a peer against n loggers.
K_PEER_SCALE = (("ntkl8", "tracecmd8"), ("ntkl8", "perf8"))
# The sampled profile (profile_run, profile_samples and profile_max
# records): each workload pinned to CPU 1 (pingpong; gzip: Debian's).
PROF_MODES = ("profile", "profstack", "profstackwarm", "profstackfp", "perf", "perfg",
              "perfdwarf")
PROF_NAMES = {
    "profile": "ntkl PROFILE",
    "profstack": "ntkl PROFILE+stacks",
    "profstackwarm": "ntkl PROFILE+stacks, warm",
    "profstackfp": "ntkl PROFILE+stacks -nounwind",
    "perf": "perf record",
    "perfg": "perf record -g",
    "perfdwarf": "perf record --call-graph dwarf",
}
# The same in the ratios' labels
PROF_SHORT = {
    "profile": "PROFILE",
    "profstack": "PROFILE+stacks",
    "profstackwarm": "PROFILE+stacks, warm",
    "profstackfp": "PROFILE+stacks -nounwind",
    "perf": "perf",
    "perfg": "perf -g",
    "perfdwarf": "perf dwarf",
}
# The recorders whose losses the profile's "nothing lost" is about.
PROF_NTKL = ("profile", "profstack", "profstackwarm", "profstackfp")
PROF_WL_NAMES = {
    "pingpong": "pingpong (static, no frame pointers, libc's code inside: samples mostly\n"
                "in the kernel, under libc's read or write and main)",
    "gzip": "Debian's gzip -9 (its own build: no frame pointers, libc.so.6): samples\n"
            "in user code, 5 to 8 user frames",
}
# ntkl's cost per sample over perf's, at comparable information: no
# stack; stacks by frame pointers (ntkl's by tables too); whole stacks
PROF_PAIRS = (("profile", "perf"), ("profstack", "perfg"), ("profstackwarm", "perfg"),
              ("profstackfp", "perfg"), ("profstack", "perfdwarf"), ("profstackwarm", "perfdwarf"))
# Storage (storage_run and storage_records): fileops pinned to CPU 1, per
# workload (io) its recorders, in table order, the trace-cmd one last.
ST_MODES = {"file": ("none", "fileio", "syscalls"), "nullblk": ("none", "diskio", "block"),
            "direct": ("none", "diskio", "block")}
ST_NAMES = {
    "none": "no tracing",
    "fileio": "ntkl FILE_IO+INIT+FILENAME",
    "syscalls": "trace-cmd pread/pwrite sys",
    "diskio": "ntkl DISK_IO+DISK_IO_INIT",
    "block": "trace-cmd block_rq_*",
}
# Events (events_run and events_records): eventmix pinned to CPU 1, per
# kind of event what makes one, ntkl's flags and trace-cmd's tracepoints.
EV_KINDS = {
    "syscalls": ("getppid() calls", "ntkl SYSCALL", "trace-cmd raw_syscalls"),
    "faults": ("pages written in a new anonymous mapping", "ntkl ALL_FAULTS+VIRT_ALLOC",
               "trace-cmd page_fault_user"),
    "tcp": ("4 KiB writes over loopback TCP, read by a second thread", "ntkl NETWORKTRACE",
            "trace-cmd sock send/recv"),
}
EV_MODES = ("none", "ntkl", "tracecmd")
# What a run's time is: the direct runs' wall time is mostly -icount's
# jumps over idle time, their busy time (busyns) the work.
ST_TIME = {"file": "ns", "nullblk": "ns", "direct": "busyns"}
# Issue 14's scaling targets: n loggers cost at most this many times one
# logger of the same kind (the mode its "1" row).
K_SCALE_LIMIT = {"ntkl8": 2, "ntkl64": 6, "comp8": 2, "comp64": 6}


def k_one(mode):
    """The one-session mode a scaling mode is measured against: ntkl8 ->
    ntkl1, comp64 -> comp1, tracecmd8 -> tracecmd; None for a mode that is
    not a session count."""
    for kind, one in (("ntkl", "ntkl1"), ("comp", "comp1"), ("tracecmd", "tracecmd"),
                      ("perf", "perf")):
        if mode.startswith(kind) and mode[len(kind):].isdigit():
            return one
    return None


def number(value):
    """A field's value as a number (a JSON number as it is, a string read
    as one); anything else reads as 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return float(value)
        except (TypeError, ValueError):
            return 0


def record(line):
    """The JSON object of a raw line, or None for a line that is not one."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def min_median(values):
    """(min, median) of values, the median of an even count the mean of the
    middle two; (0, 0) for none."""
    if not values:
        return 0, 0
    v = sorted(values)
    n = len(v)
    if n % 2:
        return v[0], v[n // 2]
    return v[0], (v[n // 2 - 1] + v[n // 2]) / 2


def min_lower_median(values):
    """(min, lower median): the spin lock tables' choice, a value measured."""
    v = sorted(values)
    return v[0], v[(len(v) + 1) // 2 - 1]


def ratio(a, b):
    return "%.2f" % (a / b) if b > 0 else "n/a"


class Raw:
    """The facts of one raw output."""

    def __init__(self, lines):
        self.header = ""
        self.workloads = []            # in order of first appearance
        self.runs = {}                 # (workload, mode, "ns"|"ctxt") -> [values]
        self.round_ns = {}             # (workload, mode, round) -> [ns]
        self.rep_ns = {}               # (kind, workload, mode, round) -> [(rep, ns)]
        self.totals = {}               # mode -> {switches, evbytes, ...}
        self.max_ns = {}               # mode -> longest max-rate run, ns
        self.max_rate = {}             # mode -> {switches, lost}
        self.spin = {}                 # (kind, mode) -> [(ns, records)]
        self.spin_lost = {}            # (kind, mode) -> lost events
        self.lockbench_rounds = None
        self.prof_workloads = []       # in order of first appearance
        self.prof = {}                 # (workload, mode) -> [ns] of the profile runs
        self.prof_samples = {}         # (workload, mode) -> profile_samples' fields, summed
        self.prof_max = {}             # (workload, mode) -> profile_max's fields
        self.um = {}                   # mode -> [(ns, cpu, events, lost, bytes)]
        self.k_runs = {}               # (mode, "ns"|"ctxt") -> [values] of peer runs
        self.k_lost = {}               # mode -> events lost, peer_lost summed
        self.bpf_count = [0, 0]        # bpf_count: [switches counted, ctxt delta]
        self.st_runs = {}              # (io, mode, "ns"|"busyns"|"cpuns") -> [values]
        self.st_ops = {}               # io -> operations per run
        self.st_rec = {}               # (io, mode) -> storage_records' fields, summed
        self.ev_kinds = []             # in order of first appearance
        self.ev_runs = {}              # (kind, mode) -> [ns]
        self.ev_ops = {}               # kind -> operations per run
        self.ev_rec = {}               # (kind, mode) -> events_records' fields, summed
        for line in lines:
            kv = record(line)
            if kv is not None:
                self.take(kv)

    def take(self, kv):
        """One raw record: kv, a JSON object with its "kind"."""
        kind = kv.get("kind")
        mode = kv.get("mode")
        if kind == "header":
            self.header = kv.get("text", "")
        elif kind == "switch_run":
            wl = kv.get("workload", "")
            if wl not in self.workloads:
                self.workloads.append(wl)
            for what in ("ns", "ctxt"):
                self.runs.setdefault((wl, mode, what), []).append(number(kv.get(what)))
            self.round_ns.setdefault((wl, mode, kv.get("round")), []).append(number(kv.get("ns")))
            self.rep_ns.setdefault((kind, wl, mode, kv.get("round")), []).append(
                (number(kv.get("rep")), number(kv.get("ns"))))
        elif kind == "switch_totals" and kv.get("round") == "max":
            self.max_rate[mode] = {
                "switches": number(kv.get("switches")), "lost": number(kv.get("lost"))}
        elif kind == "switch_totals":
            t = self.totals.setdefault(mode, {})
            for what in ("switches", "evbytes", "filebytes", "rawbytes", "lost") + USTACKS:
                t[what] = t.get(what, 0) + number(kv.get(what))
        elif kind == "max_rate_run":
            self.max_ns[mode] = max(self.max_ns.get(mode, 0), number(kv.get("ns")))
        elif kind == "profile_run":
            wl = kv.get("workload", "pingpong")
            if wl not in self.prof_workloads:
                self.prof_workloads.append(wl)
            self.prof.setdefault((wl, mode), []).append(number(kv.get("ns")))
            self.rep_ns.setdefault((kind, wl, mode, kv.get("round")), []).append(
                (number(kv.get("rep")), number(kv.get("ns"))))
        elif kind == "libntkl":
            self.um.setdefault(mode, []).append(tuple(
                number(kv.get(k)) for k in ("ns", "cpu", "events", "lost", "bytes")))
        elif kind == "peer_run":
            for what in ("ns", "ctxt"):
                self.k_runs.setdefault((mode, what), []).append(number(kv.get(what)))
        elif kind == "peer_lost":
            self.k_lost[mode] = self.k_lost.get(mode, 0) + number(kv.get("lost"))
        elif kind == "bpf_count":
            self.bpf_count[0] += number(kv.get("switches"))
            self.bpf_count[1] += number(kv.get("ctxt"))
        elif kind == "storage_run":
            io = kv.get("io", "")
            self.st_ops.setdefault(io, number(kv.get("ops")))
            for what in ("ns", "busyns", "cpuns"):
                if what in kv:
                    self.st_runs.setdefault((io, mode, what), []).append(number(kv[what]))
        elif kind == "storage_records":
            t = self.st_rec.setdefault((kv.get("io", ""), mode), {})
            for what in ("ops", "events", "lost", "filebytes", "reads", "writes", "inits",
                         "ends"):
                t[what] = t.get(what, 0) + number(kv.get(what))
        elif kind == "events_run":
            k = kv.get("family", "")
            if k not in self.ev_kinds:
                self.ev_kinds.append(k)
            self.ev_ops.setdefault(k, number(kv.get("ops")))
            self.ev_runs.setdefault((k, mode), []).append(number(kv.get("ns")))
        elif kind == "events_records":
            t = self.ev_rec.setdefault((kv.get("family", ""), mode), {})
            for what in ("ops", "events", "lost", "filebytes"):
                t[what] = t.get(what, 0) + number(kv.get(what))
        elif kind in ("profile_samples", "profile_max"):
            key = (kv.get("workload", "pingpong"), kv.get("mode", "profile"))
            t = (self.prof_samples if kind == "profile_samples" else self.prof_max).setdefault(
                key, {})
            for what in ("samples", "allsamples", "filebytes", "lost") + USTACKS:
                t[what] = t.get(what, 0) + number(kv.get(what))
        elif kind in ("lockbench", "contend"):
            key = (kind, kv.get("mode", ""))
            self.spin.setdefault(key, []).append((number(kv.get("ns")), number(kv.get("records"))))
            self.spin_lost[key] = self.spin_lost.get(key, 0) + number(kv.get("lost"))
            if "rounds" in kv:
                self.lockbench_rounds = number(kv["rounds"])


def round_ratios(raw, wl, mode, peer):
    """mode's added cost over peer's, from each round's medians (a round's
    none, mode and peer runs: the spread of the ratio between rounds)."""
    out = []
    for (w, m, r), ns in sorted(raw.round_ns.items(), key=lambda kv: str(kv[0][2])):
        if w != wl or m != "none":
            continue
        base = min_median(ns)[1]
        a = min_median(raw.round_ns.get((wl, mode, r), []))[1] - base
        b = min_median(raw.round_ns.get((wl, peer, r), []))[1] - base
        if raw.round_ns.get((wl, mode, r)) and raw.round_ns.get((wl, peer, r)) and b > 0:
            out.append(a / b)
    return out


def ustacks_line(t):
    """How a stack walking logger's user stacks ended (USTACKS summed in
    t): "N whole, N ended early (N: no map yet)", or "N by frame pointers"
    (-nounwind); "" for a logger without them."""
    parts = []
    walked = t.get("uwhole", 0) + t.get("uearly", 0)
    if walked:
        parts.append("%d whole (%.1f%%), %d ended early (%d: the process's map not made yet)"
                     % (t.get("uwhole", 0), 100.0 * t.get("uwhole", 0) / walked,
                        t.get("uearly", 0), t.get("unomap", 0)))
    if t.get("ufp", 0):
        parts.append("%d by frame pointers" % t["ufp"])
    return "; ".join(parts)


def first_runs(raw, kind, wl, mode):
    """The first run of each start of a recorder over the median of that
    start's other runs, ns, one a round: what the start's first processes
    pay once (a stack walking logger's tables, made as it first meets each
    file; a logger's start); [] without runs numbered from 1."""
    out = []
    for (k, w, m, _), runs in sorted(raw.rep_ns.items(), key=lambda kv: str(kv[0][3])):
        if (k, w, m) != (kind, wl, mode):
            continue
        first = [ns for r, ns in runs if r == 1]
        rest = [ns for r, ns in runs if r > 1]
        if len(first) == 1 and rest:
            out.append(first[0] - min_median(rest)[1])
    return out


def first_runs_lines(raw, kind, wl, modes):
    """first_runs of each of modes ((mode, name)), in ms: a line each
    under a heading; [] for none."""
    out = []
    for m, name in modes:
        f = first_runs(raw, kind, wl, m)
        if f:
            out.append("    %-30s %s" % (name, " ".join("%6.1f" % (ns / 1e6) for ns in f)))
    return ["  the first run of each start over its others' median, ms, a round:"] + out \
        if out else []


def added(raw, wl, m):
    """(min, median) ns recorder m adds per switch of workload wl: its runs'
    time against the untraced runs', over the untraced runs' switches."""
    base_min, base_med = min_median(raw.runs.get((wl, "none", "ns"), []))
    nsw = min_median(raw.runs.get((wl, "none", "ctxt"), []))[1]
    smin, smed = min_median(raw.runs.get((wl, m, "ns"), []))
    return (smin - base_min) / nsw, (smed - base_med) / nsw


# The switch path's goals (issue 48): its added cost against trace-cmd's at
# the median, in every boot.
BOOT_GOALS = (("cswitch", "CSWITCH", 0.20), ("compact", "COMPACT_CSWITCH", 0.10))


def boots_table(raws):
    """Several boots' context switch rows side by side, and their spread:
    a boot's figures compare with each other, and the boots show how far
    they move from one boot to the next."""
    out = []
    p = out.append
    n = len(raws)
    p("Context switches in %d boots (ns added per switch, min | median, and the" % n)
    p("median's ratio to trace-cmd's; spread: the boots' medians, lowest to highest)")
    wls = [wl for wl in raws[0].workloads if all(wl in r.workloads for r in raws)]
    goals = []
    for wl in wls:
        p("")
        p(wl)
        p("  %-24s %s %s" % ("recorder", " ".join("%20s" % ("boot %d" % (i + 1))
                                                    for i in range(n)), "spread"))
        tc = [added(r, wl, "tracecmd")[1] for r in raws]
        noise = []
        for r in raws:
            base_min, base_med = min_median(r.runs.get((wl, "none", "ns"), []))
            nsw = min_median(r.runs.get((wl, "none", "ctxt"), []))[1]
            noise.append((base_med - base_min) / nsw)
        for m in ("cswitch", "compact", "tracecmd"):
            cells, meds, ratios = [], [], []
            for r, t in zip(raws, tc):
                a_min, a_med = added(r, wl, m)
                ratios.append(a_med / t if t > 0 else None)
                meds.append(a_med)
                cells.append("%5.0f | %5.0f %6s" % (a_min, a_med, ratio(a_med, t)))
            lo, hi = min(meds), max(meds)
            p("  %-24s %s %.0f..%.0f (%s)" %
              (NAMES[m], " ".join("%20s" % c for c in cells), lo, hi,
               "%+.0f%%" % (100 * (hi - lo) / lo) if lo > 0 else "n/a"))
            for key, short, limit in BOOT_GOALS:
                if key != m:
                    continue
                what = "%s: %s <= %.2fx trace-cmd, every boot" % (wl, short, limit)
                if any(x is None for x in ratios):
                    goals.append("  %-60s %s" % (what, "unknown: trace-cmd added no measurable cost"))
                elif any(t < nz for t, nz in zip(tc, noise)):
                    goals.append("  %-60s unknown: within noise" % what)
                else:
                    goals.append("  %-60s %s (worst %.2f; boots %s)" %
                                 (what, "met" if max(ratios) <= limit else "NOT met", max(ratios),
                                  " ".join("%.2f" % x for x in ratios)))
    p("")
    p("Goals (the median against trace-cmd's)")
    out.extend(goals)
    return "\n".join(out) + "\n"


def switch_table(raw):
    """The context switch tables: cost per switch, bytes, max rate, targets."""
    out = []
    p = out.append
    p("ntkl bench: " + raw.header)
    if not raw.workloads:
        return "\n".join(out) + "\n"     # the switch section was not run
    p("")
    p("Cost per context switch (min | median over all runs; switches per run:")
    p("/proc/stat ctxt delta over the run, all CPUs, median of the untraced runs)")
    noise, tc_min, ok_min, ok_med, r_min, r_med = {}, {}, {}, {}, {}, {}
    modes = MODES + tuple(m for m in OPTIONAL_MODES
                          if any((wl, m, "ns") in raw.runs for wl in raw.workloads))
    for wl in raw.workloads:
        base_min, base_med = min_median(raw.runs.get((wl, "none", "ns"), []))
        nsw = min_median(raw.runs.get((wl, "none", "ctxt"), []))[1]
        add_min, add_med, wall, ctx = {}, {}, {}, {}
        for m in modes:
            add_min[m], add_med[m] = added(raw, wl, m)
            wall[m] = min_median(raw.runs.get((wl, m, "ns"), []))
            ctx[m] = min_median(raw.runs.get((wl, m, "ctxt"), []))[1]
        noise[wl] = (base_med - base_min) / nsw
        p("")
        p("%s (%d switches per run; untraced runs spread by %.0f ns per switch," %
          (wl, int(nsw), noise[wl]))
        p("  median - min: less than that added is noise)")
        p("  %-24s %21s %10s %22s %16s" %
          ("recorder", "wall ms min | med", "ctxt med", "added ns/sw min | med", "vs trace-cmd"))
        for m in modes:
            if m == "none":
                p("  %-24s %10.1f | %8.1f %10d %22s %16s" %
                  (NAMES[m], wall[m][0] / 1e6, wall[m][1] / 1e6, int(ctx[m]), "-", "-"))
            else:
                p("  %-24s %10.1f | %8.1f %10d %10.0f | %9.0f %7s | %6s" %
                  (NAMES[m], wall[m][0] / 1e6, wall[m][1] / 1e6, int(ctx[m]),
                   add_min[m], add_med[m], ratio(add_min[m], add_min["tracecmd"]),
                   ratio(add_med[m], add_med["tracecmd"])))
        # each switch of a CSWITCH -stackwalk CSwitch logger has a stack
        for m, label, _ in STACK_MODES:
            if m in modes:
                p("  %-24s %21s %10s %10.0f | %9.0f" %
                  (label, "", "", add_min[m] - add_min["cswitch"],
                   add_med[m] - add_med["cswitch"]))
        for m, label in (("cswstack", "  the tables, per stack"),
                         ("cswstackwarm", "  warm tables, per stack")):
            if m in modes and "cswstackfp" in modes:
                # the same stacks walked by frame pointers: what the tables add
                p("  %-24s %21s %10s %10.0f | %9.0f" %
                  (label, "", "", add_min[m] - add_min["cswstackfp"],
                   add_med[m] - add_med["cswstackfp"]))
        for m, _, _ in STACK_MODES:
            if m in modes and "perfswg" in modes:
                p("  %-24s %21s %10s %22s %7s | %6s" %
                  (STACK_VS[m], "", "", "", ratio(add_min[m], add_min["perfswg"]),
                   ratio(add_med[m], add_med["perfswg"])))
        if any(m in modes for m, _, _ in STACK_MODES):
            # a stack walking logger makes the tables of the files it meets
            out.extend(first_runs_lines(raw, "switch_run", wl, [
                (m, NAMES[m]) for m in ("cswitch",) + tuple(k for k, _, _ in STACK_MODES)
                if m in modes]))
        spread = round_ratios(raw, wl, "cswitch", "tracecmd")
        if spread and add_min["tracecmd"] >= noise[wl]:
            p("  %-24s %s (each round's medians)" %
              ("CSWITCH/trace-cmd, rounds", " ".join("%.2f" % r for r in spread)))
        tc_min[wl] = add_min["tracecmd"]
        for m in ("cswitch", "compact"):
            ok_min[wl, m] = add_min["tracecmd"] > 0
            ok_med[wl, m] = add_med["tracecmd"] > 0
            r_min[wl, m] = add_min[m] / add_min["tracecmd"] if ok_min[wl, m] else 0
            r_med[wl, m] = add_med[m] / add_med["tracecmd"] if ok_med[wl, m] else 0

    def total(m, what):
        return raw.totals.get(m, {}).get(what, 0)

    p("")
    p("Bytes per switch and events lost (default buffers)")
    p("  %-24s %10s %12s %12s %12s %14s" %
      ("recorder", "switches", "records B/sw", "file B/sw", "lost", "lost max-rate"))
    for m in modes[1:]:
        sw = total(m, "switches")
        rec_bytes = total(m, "rawbytes" if m == "tracecmd" else "evbytes")
        rec = "%.2f" % (rec_bytes / sw) if sw else "n/a"
        p("  %-24s %10d %12s %12.2f %12d %14d" %
          (NAMES[m], sw, rec, total(m, "filebytes") / sw if sw else 0, total(m, "lost"),
           raw.max_rate.get(m, {}).get("lost", 0)))
    p("  (trace-cmd: records = its ring-buffer pages before compression; file = the")
    p("  compressed .dat, kallsyms and event formats included)")
    for m in modes[1:]:
        line = ustacks_line(raw.totals.get(m, {}))
        if line:
            p("  %s, user stacks: %s" % (NAMES[m], line))
    p("")
    p("Max rate: one pinned pingpong per CPU at once")
    for m in modes[1:]:
        sw = raw.max_rate.get(m, {}).get("switches", 0)
        ns = raw.max_ns.get(m, 0)
        p("  %-24s %8d switches in %6.2f s = %6.0f switches/s, %d lost" %
          (NAMES[m], sw, ns / 1e9, sw / (ns / 1e9) if ns else 0,
           raw.max_rate.get(m, {}).get("lost", 0)))
    p("")
    p('Targets (cost ratios from the fastest runs; from the medians after "median")')

    def target(what, wl, m, limit):
        med = "%.2f" % r_med[wl, m] if ok_med[wl, m] else "n/a"
        if not ok_min[wl, m]:
            p("  %-52s %s" % (what, "unknown: trace-cmd added no measurable cost"))
        elif tc_min[wl] < noise[wl]:
            p("  %-52s unknown: within noise (%.2f; median %s)" % (what, r_min[wl, m], med))
        else:
            p("  %-52s %s (%.2f; median %s)" %
              (what, "met" if r_min[wl, m] <= limit else "NOT met", r_min[wl, m], med))

    for wl in raw.workloads:
        target(wl + ": COMPACT_CSWITCH adds <= 1/4 of trace-cmd", wl, "compact", 0.25)
        target(wl + ": CSWITCH adds <= 1/2 of trace-cmd", wl, "cswitch", 0.5)
        for m, _, short in STACK_MODES[:2]:
            if not (m in modes and "perfswg" in modes and
                    (wl, m, "ns") in raw.runs and (wl, "perfswg", "ns") in raw.runs):
                continue
            base_min, base_med = min_median(raw.runs[(wl, "none", "ns")])
            stk, prf = (min_median(raw.runs[(wl, k, "ns")]) for k in (m, "perfswg"))
            ok = prf[0] > base_min and prf[1] > base_med
            r_lo = (stk[0] - base_min) / (prf[0] - base_min) if ok else 0
            r_md = (stk[1] - base_med) / (prf[1] - base_med) if ok else 0
            p("  %-52s %s" % ("%s: %s adds <= 1/2 of perf -g" % (wl, short),
                              "%s (%.2f; median %.2f)" % ("met" if r_lo <= 0.5 else "NOT met",
                                                         r_lo, r_md)
                              if ok else "unknown: perf -g added no measurable cost"))
    sw = total("compact", "switches")
    cb = total("compact", "evbytes") / sw if sw else -1
    p("  %-52s %s (%.2f)" %
      ("CompCS <= 5 bytes per switch", "met" if 0 <= cb <= 5 else "NOT met", cb))
    lost = sum(total(m, "lost") + raw.max_rate.get(m, {}).get("lost", 0)
               for m in modes[1:] if m in NTKL_MODES)
    p("  %-52s %s (%d)" % ("ntkl lost nothing with default buffers", "met" if lost == 0 else "NOT met",
                           lost))
    return "\n".join(out) + "\n"


def spin_table(raw):
    """The spin lock tables: lockbench's cost per contention, and contend's runs."""
    out = []
    p = out.append
    rounds = raw.lockbench_rounds
    added_med = {}
    if raw.spin.get(("lockbench", "none")) and rounds:
        t_min, t_med, r_med = {}, {}, {}
        for m in SPIN_MODES:
            runs = raw.spin.get(("lockbench", m))
            if runs:
                t_min[m], t_med[m] = min_lower_median([ns for ns, _ in runs])
                r_med[m] = min_lower_median([rec for _, rec in runs])[1]
        p("")
        p("Spin locks, fixed contention: ntkl_lockbench, %d rounds of exactly one" % rounds)
        p("traced contention each (a helper module: CPU 0 holds a spin lock while")
        p("CPUs 1 and 2 take it; the second queues)")
        p("  %-24s %10s | %-10s %8s %16s | %-7s %14s %6s" %
          ("recorder", "ms min", "med", "records", "added ns/cont min", "med", "vs trace-cmd",
           "lost"))
        for m in SPIN_MODES:
            if m not in t_min:
                continue
            if m == "none":
                p("  %-24s %10.1f | %-10.1f %8s %16s   %-7s %14s %6s" %
                  (SPIN_NAMES[m], t_min[m] / 1e6, t_med[m] / 1e6, "-", "-", "", "-", "-"))
                continue
            a_min = (t_min[m] - t_min["none"]) / rounds
            added_med[m] = (t_med[m] - t_med["none"]) / rounds
            line = "  %-24s %10.1f | %-10.1f %8d %16.0f | %-7.0f" % (
                SPIN_NAMES[m], t_min[m] / 1e6, t_med[m] / 1e6, r_med[m], a_min, added_med[m])
            if m == "tracecmd" or "tracecmd" not in t_min:
                line += " %14s" % "-"
            else:
                line += " %6.2f | %5.2f" % (
                    a_min / ((t_min["tracecmd"] - t_min["none"]) / rounds),
                    added_med[m] / ((t_med["tracecmd"] - t_med["none"]) / rounds))
            line += " %6d" % raw.spin_lost.get(("lockbench", m), 0)
            p(line)
        if "spinlock" in added_med and "tracecmd" in t_min:
            a_min = (t_min["spinlock"] - t_min["none"]) / rounds
            tc = (t_min["tracecmd"] - t_min["none"]) / rounds
            if tc > 0:
                p("  %-52s %s (%.2f)" % ("target: SPINLOCK adds <= 0.6x trace-cmd lock events",
                                          "met" if a_min / tc <= 0.6 else "NOT met", a_min / tc))
    if not raw.spin.get(("contend", "none")):
        return "\n".join(out) + "\n" if out else ""
    p("")
    p("Spin locks: contend (8 threads x 2000 steps), the selftest workload")
    p("  %-24s %10s | %-10s %12s %8s" % ("recorder", "ms min", "med", "records med", "lost"))
    records, untraced = {}, 0
    for m in SPIN_MODES:
        runs = raw.spin.get(("contend", m))
        if not runs:
            continue
        t_min, t_med = min_lower_median([ns for ns, _ in runs])
        records[m] = min_lower_median([rec for _, rec in runs])[1]
        p("  %-24s %10.1f | %-10.1f %12s %8d" %
          (SPIN_NAMES[m], t_min / 1e6, t_med / 1e6, "-" if m == "none" else records[m],
           raw.spin_lost.get(("contend", m), 0)))
        if m == "none":
            untraced = t_med
    p("  (its contentions, and so its time, vary a thousandfold between runs;")
    if "spinlock" in added_med and untraced > 0:
        rec = records.get("spinlock", 0)
        p("  at the fixed-contention cost, the median %d records of the SPINLOCK" % rec)
        p("  logger add %.2f ms, %.2f%% of the untraced median)" %
          (rec * added_med["spinlock"] / 1e6, 100 * rec * added_med["spinlock"] / untraced))
    else:
        p("  the fixed-contention table above gives the cost per contention)")
    return "\n".join(out) + "\n"


def profile_table(raw):
    """The cost of a sample: what each sampling recorder at 8.2 kHz adds to
    each workload pinned to CPU 1, over the samples it took in it; the
    bytes of a sample; ntkl's cost per sample over perf's; what the unwind
    tables add a sample (stacks by them less stacks by frame pointers);
    the losses at the highest rate; the targets."""
    wls = [wl for wl in raw.prof_workloads if raw.prof.get((wl, "none"))
           and any(raw.prof.get((wl, m)) for m in PROF_MODES)]
    if not wls:
        return ""
    out = [
        "",
        "Sampled profile: each workload pinned to CPU 1, untraced and under each",
        "recorder sampling every CPU at 8.2 kHz (ntkl: -setprofint 1221, +stacks:",
        "-stackwalk Profile, user frames by the binaries' unwind tables; -nounwind:",
        "by frame pointers; perf: -a -e cpu-clock -c 122100, a software clock: no",
        "PMU under TCG; -g: by frame pointers; dwarf: 8 KB of user stack a sample)",
    ]
    targets = []
    for wl in wls:
        base_min, base_med = min_median(raw.prof[(wl, "none")])
        out += ["", PROF_WL_NAMES.get(wl, wl),
                "  %-30s %21s %12s %22s %10s %8s" % (
                    "recorder", "wall ms min | med", "samples/run", "ns/sample min | med",
                    "B/sample", "lost"),
                "  %-30s %10.1f | %8.1f %12s %22s %10s %8s" %
                ("no tracing", base_min / 1e6, base_med / 1e6, "-", "-", "-", "-")]
        cost = {}
        for m in PROF_MODES:
            runs = raw.prof.get((wl, m))
            if not runs:
                continue
            t = raw.prof_samples.get((wl, m), {})
            r_min, r_med = min_median(runs)
            per_run = t.get("samples", 0) / len(runs)
            if per_run > 0:
                cost[m] = ((r_min - base_min) / per_run, (r_med - base_med) / per_run)
                each = "%10.0f | %9.0f" % cost[m]
            else:
                each = "%22s" % "no samples"
            nbytes = "%.0f" % (t["filebytes"] / t["allsamples"]) if t.get("allsamples") else "-"
            out.append("  %-30s %10.1f | %8.1f %12.0f %22s %10s %8d" %
                       (PROF_NAMES[m], r_min / 1e6, r_med / 1e6, per_run, each, nbytes,
                        t.get("lost", 0)))
        out.append("  (samples/run: those that hit %s; a sample's cost: the time added per" % wl)
        out.append("  run over them; B/sample: the file's bytes over every sample in it, all CPUs)")
        for ntkl, perf in PROF_PAIRS:
            if ntkl in cost and perf in cost:
                out.append("  %-62s %s | %s" % (
                    "%s vs %s, per sample (min | med)" % (PROF_SHORT[ntkl], PROF_SHORT[perf]),
                    ratio(cost[ntkl][0], cost[perf][0]), ratio(cost[ntkl][1], cost[perf][1])))
        for m, what in (("profstack", "the tables"), ("profstackwarm", "warm tables")):
            if m in cost and "profstackfp" in cost:
                out.append("  %-62s %.0f | %.0f" % (
                    "%s, per sample (less -nounwind's, min | med)" % what,
                    cost[m][0] - cost["profstackfp"][0], cost[m][1] - cost["profstackfp"][1]))
        lines = first_runs_lines(raw, "profile_run", wl,
                                 [(m, PROF_NAMES[m]) for m in PROF_NTKL if m in cost])
        if lines:
            out += lines
            out.append("  (a start's first processes pay its start; with stacks by tables, the")
            out.append("  tables of the files it meets, which later processes find made)")
        for m in PROF_NTKL:
            line = ustacks_line(raw.prof_samples.get((wl, m), {}))
            if line:
                out.append("  %s, user stacks: %s" % (PROF_NAMES[m], line))
        for m in ("profstack", "profstackwarm"):
            if m in cost and "perfg" in cost and cost["perfg"][1] > 0:
                r = cost[m][1] / cost["perfg"][1]
                targets.append("  %-62s %s (%.2f; min %s)" % (
                    "%s: %s per sample <= perf -g's (median)" % (wl, PROF_SHORT[m]),
                    "met" if r <= 1 else "NOT met", r, ratio(cost[m][0], cost["perfg"][0])))
    if raw.prof_max:
        out += ["",
                "Max rate: one of the workload pinned to each CPU at once, every CPU sampled",
                "at 8.2 kHz, default buffers",
                "  %-30s %-10s %10s %12s %10s %8s" % (
                    "recorder", "workload", "samples", "in workload", "B/sample", "lost")]
        for (wl, m), t in sorted(raw.prof_max.items(),
                                 key=lambda kv: (kv[0][0], PROF_MODES.index(kv[0][1])
                                                 if kv[0][1] in PROF_MODES else 99)):
            nbytes = "%.0f" % (t["filebytes"] / t["allsamples"]) if t.get("allsamples") else "-"
            out.append("  %-30s %-10s %10d %12d %10s %8d" % (
                PROF_NAMES.get(m, m), wl, t.get("allsamples", 0), t.get("samples", 0), nbytes,
                t.get("lost", 0)))
            line = ustacks_line(t)
            if line:
                out.append("    user stacks: %s" % line)
    lost = sum(t.get("lost", 0) for src in (raw.prof_samples, raw.prof_max)
               for (wl, m), t in src.items() if m in PROF_NTKL)
    targets.append("  %-62s %s (%d)" % (
        "ntkl PROFILE lost nothing with default buffers" + (
            " (and max rate)" if raw.prof_max else ""), "met" if lost == 0 else "NOT met", lost))
    out += ["", "Targets (sampled profile)"] + targets
    return "\n".join(out) + "\n"


UM_NAMES = {"um": "libntkl", "umc": "libntkl compressed"}


def kernel_event_cost(raw, wl="pingpong"):
    """An uncompressed kernel logger's cost per event: what ntkl CSWITCH
    adds to pingpong per switch (one CSwitch event each), (min, median);
    None without those runs."""
    base = raw.runs.get((wl, "none", "ns"), [])
    runs = raw.runs.get((wl, "cswitch", "ns"), [])
    nsw = min_median(raw.runs.get((wl, "none", "ctxt"), []))[1] if base else 0
    if not base or not runs or not nsw:
        return None
    base_min, base_med = min_median(base)
    c_min, c_med = min_median(runs)
    return ((c_min - base_min) / nsw, (c_med - base_med) / nsw)


def libntkl_table(raw):
    """libntkl's cost per event: the writer's time (its fast path) and
    the process's CPU time (the logger thread's writing and compressing
    too) over the untraced loop's, per event, beside a kernel logger's."""
    if not raw.um.get("none") or not any(raw.um.get(m) for m in UM_NAMES):
        return ""
    events = raw.um["none"][0][2]
    ns_min, ns_med = min_median([r[0] for r in raw.um["none"]])
    cpu_min, cpu_med = min_median([r[1] for r in raw.um["none"]])
    out = [
        "",
        "libntkl: one writer pinned to CPU 1, %d events of two UINT32 fields with a" % events,
        "TraceLogging schema, per event over the same loop without a logger",
        "  %-24s %22s %22s %10s %8s" %
        ("recorder", "writer ns/ev min | med", "CPU ns/ev min | med", "B/event", "lost"),
    ]
    for m, name in UM_NAMES.items():
        runs = raw.um.get(m)
        if not runs:
            continue
        w_min, w_med = min_median([r[0] for r in runs])
        c_min, c_med = min_median([r[1] for r in runs])
        out.append("  %-24s %10.0f | %9.0f %10.0f | %9.0f %10.1f %8d" %
                   (name, (w_min - ns_min) / events, (w_med - ns_med) / events,
                    (c_min - cpu_min) / events, (c_med - cpu_med) / events,
                    runs[0][4] / events, sum(r[3] for r in runs)))
    k = kernel_event_cost(raw)
    if k:
        out.append("  %-24s %10.0f | %9.0f   (added per CSwitch event, pingpong)" %
                   ("ntkl CSWITCH (kernel)", k[0], k[1]))
    return "\n".join(out) + "\n"


def scale_table(raw):
    """Peers and scale: what an empty probe, a BPF counter, 1, 8 and 64
    CSWITCH loggers, trace-cmd and perf record add to pingpong pinned to
    CPU 1; the ratios to trace-cmd's runs of this section, or without them
    (an older raw output) to trace-cmd's cost in the switch table."""
    if not raw.k_runs.get(("none", "ns")):
        return ""
    base_min, base_med = min_median(raw.k_runs[("none", "ns")])
    nsw = min_median(raw.k_runs.get(("none", "ctxt"), []))[1]
    if not nsw:
        return ""
    tc = raw.runs.get(("pingpong", "tracecmd", "ns"))
    tc_min = tc_med = 0
    own_tc = bool(raw.k_runs.get(("tracecmd", "ns")))
    if own_tc:
        tc_min = (min_median(raw.k_runs[("tracecmd", "ns")])[0] - base_min) / nsw
        tc_med = (min_median(raw.k_runs[("tracecmd", "ns")])[1] - base_med) / nsw
    elif tc and raw.runs.get(("pingpong", "none", "ns")):
        tb_min, tb_med = min_median(raw.runs[("pingpong", "none", "ns")])
        tnsw = min_median(raw.runs.get(("pingpong", "none", "ctxt"), []))[1] or 1
        tc_min = (min_median(tc)[0] - tb_min) / tnsw
        tc_med = (min_median(tc)[1] - tb_med) / tnsw
    out = [
        "",
        "Peers and scale: pingpong pinned to CPU 1 (%d switches per run); trace-cmd's" % nsw,
        "cost is %s" % ("from this table's runs" if own_tc else "the pingpong table's"),
        "  %-30s %22s %16s %16s %8s" % ("recorder", "added ns/sw min | med", "vs 1 session",
                                        "vs trace-cmd", "lost"),
    ]
    added = {}
    for m in K_MODES:
        runs = raw.k_runs.get((m, "ns"))
        if not runs or m == "none":
            continue
        r_min, r_med = min_median(runs)
        added[m] = ((r_min - base_min) / nsw, (r_med - base_med) / nsw)
    for m in K_MODES[1:]:
        if m not in added:
            continue
        a_min, a_med = added[m]
        one_mode = k_one(m)
        one = added.get(one_mode, (0, 0))
        vs_one = "%s | %s" % (ratio(a_min, one[0]), ratio(a_med, one[1])) \
            if one_mode and m != one_mode else "-"
        vs_tc = "%s | %s" % (ratio(a_min, tc_min), ratio(a_med, tc_med))
        out.append("  %-30s %10.0f | %9.0f %16s %16s %8d" %
                   (K_NAMES[m], a_min, a_med, vs_one, vs_tc, raw.k_lost.get(m, 0)))
    out += cost_split(added)
    out += files_floor(added)
    if raw.bpf_count[1]:
        out.append("  (the BPF counter counted %d switches; /proc/stat ctxt meanwhile %d: %s)" %
                   (raw.bpf_count[0], raw.bpf_count[1], ratio(*raw.bpf_count)))
    for ours, peer in K_PEER_SCALE:
        if ours in added and peer in added:
            out.append("  %-52s %s | %s" % (
                "%s against %s (min | med)" % (K_NAMES[ours][len("ntkl "):], K_NAMES[peer]),
                ratio(added[ours][0], added[peer][0]), ratio(added[ours][1], added[peer][1])))
    for m, limit in K_SCALE_LIMIT.items():
        one_mode = k_one(m)
        if m in added and added.get(one_mode, (0, 0))[1] > 0:
            r = added[m][1] / added[one_mode][1]
            kind = K_NAMES[m][len("ntkl "):].split(",")[0]
            out.append("  %-52s %s (%.2f)" % (
                "target: %s %s loggers <= %dx one (median)" % (
                    m[len(one_mode) - 1:], kind, limit),
                "met" if r <= limit else "NOT met", r))
    return "\n".join(out) + "\n"


def cost_split(added):
    """Where a CSWITCH logger's cost goes: its record (the no-writer runs)
    and its writer (the difference), for one logger and per further one."""
    if not all(m in added for m in ("ntkl1", "buf1")):
        return []

    def pair(f):
        return "%.0f | %.0f" % (f(0), f(1))
    out = ["  where it goes, min | med: 1 logger: its record %s, its writer %s" % (
        pair(lambda i: added["buf1"][i]),
        pair(lambda i: added["ntkl1"][i] - added["buf1"][i]))]
    for n in (8, 64):
        full, bare = "ntkl%d" % n, "buf%d" % n
        if full in added and bare in added:
            out.append("    each of %d loggers beyond the first: its record %s, "
                       "its writer %s" % (
                           n, pair(lambda i: (added[bare][i] - added["buf1"][i]) / (n - 1)),
                           pair(lambda i: (added[full][i] - added[bare][i]) / n)))
    return out


def files_floor(added):
    """The floor of many CSWITCH loggers, each writing a file of its own:
    what a further file of one logger's bytes costs with no recording done
    for it (fanout's runs: 7 or 63 more files against none), and so the
    least 8 and 64 loggers can cost against one, however cheap the rest.
    Where the files were reflinked instead (xfs), what n loggers sharing
    one stream and their files' blocks would cost. Medians only: fanout
    follows the file a chunk at a time, so some runs have none of its work
    and the minimum says nothing of it. Work fanout has not caught up with
    when a run ends is missed too (with 63 files copied it falls behind),
    so a floor may be higher than it says, not lower. (fanout's own CPU
    time is no better measure: under -icount with 4 vCPUs taking turns,
    a task's CPU time grows with the other vCPUs' instructions too.)"""
    out = []
    for kind, what, so in (
            ("files", "copied", "so %d loggers with files cost >= %s x one"),
            ("clone", "reflinked", "so %d loggers sharing them would cost ~ %s x one")):
        none = kind + "0"
        if not all(m in added for m in ("ntkl1", none)):
            continue
        for n in (8, 64):
            more = "%s%d" % (kind, n - 1)
            if more not in added:
                continue
            each = (added[more][1] - added[none][1]) / (n - 1)
            one = added["ntkl1"][1]
            out.append("  floor (med): each of %d more files %s %.0f a switch, " % (
                n - 1, what, each) + so % (n, ratio(one + (n - 1) * each, one)))
    return out


def storage_table(raw):
    """The cost of a file operation and of a disk I/O: what each recorder
    adds to fileops pinned to CPU 1, per operation, and its ratio to
    trace-cmd's; the records each kept per operation, what it lost, and
    whether ntkl's Read records are the operations done."""
    out = []
    for io, modes in ST_MODES.items():
        what = ST_TIME[io]
        base = raw.st_runs.get((io, "none", what))
        ops = raw.st_ops.get(io, 0)
        if not base or not ops:
            continue
        base_min, base_med = min_median(base)
        ours, peer = modes[1], modes[2]
        if io == "file":
            out += ["",
                    "Storage, file operations: fileops pinned to CPU 1, %d 4 KiB preads and" % ops,
                    "pwrites a run (alternating) of a file in the page cache, no disk under them",
                    "  %-28s %21s %22s %16s %10s %8s" % (
                        "recorder", "wall ms min | med", "added ns/op min | med",
                        "vs trace-cmd", "events/op", "lost")]
        elif io == "nullblk":
            out += ["",
                    "Storage, block requests: fileops pinned to CPU 1, %d O_DIRECT 4 KiB reads"
                    % ops,
                    "a run of /dev/nullb0 (null_blk, irqmode=0: each request completes where it",
                    "is issued, in the guest; no emulated disk's time in the runs)",
                    "  %-28s %21s %22s %16s %10s %8s" % (
                        "recorder", "wall ms min | med", "added ns/io min | med",
                        "vs trace-cmd", "events/io", "lost")]
        else:
            out += ["",
                    "Storage, disk I/O: fileops pinned to CPU 1, %d O_DIRECT 4 KiB reads a run"
                    % ops,
                    "on /scratch (virtio), each one block request; busy = wall time less a",
                    "soaker's instructions (the guest's work; wall time under -icount is",
                    "mostly jumps over idle time while the emulated disk works)",
                    "  %-28s %21s %22s %16s %10s %8s" % (
                        "recorder", "busy ms min | med", "added ns/io min | med",
                        "vs trace-cmd", "events/io", "lost")]
        added = {}
        for m in modes[1:]:
            runs = raw.st_runs.get((io, m, what))
            if runs:
                r_min, r_med = min_median(runs)
                added[m] = ((r_min - base_min) / ops, (r_med - base_med) / ops)
        for m in modes:
            runs = raw.st_runs.get((io, m, what))
            if not runs:
                continue
            r_min, r_med = min_median(runs)
            if m == "none":
                out.append("  %-28s %10.1f | %8.1f %22s %16s %10s %8s" %
                           (ST_NAMES[m], r_min / 1e6, r_med / 1e6, "-", "-", "-", "-"))
                continue
            rec = raw.st_rec.get((io, m), {})
            per = "%.2f" % (rec["events"] / rec["ops"]) if rec.get("ops") else "n/a"
            vs = "-" if m == peer or peer not in added else "%s | %s" % (
                ratio(added[m][0], added[peer][0]), ratio(added[m][1], added[peer][1]))
            out.append("  %-28s %10.1f | %8.1f %10.0f | %9.0f %16s %10s %8d" %
                       (ST_NAMES[m], r_min / 1e6, r_med / 1e6, added[m][0], added[m][1], vs,
                        per, rec.get("lost", 0)))
        noise = (base_med - base_min) / ops
        within = [ST_NAMES[m] for m in modes[1:] if m in added and added[m][1] < noise]
        out.append("  (untraced runs spread by %.0f ns per %s, median - min: less than" %
                   (noise, "operation" if io == "file" else "I/O"))
        out.append("  that added is noise%s)" % (
            "; within it, at the median: " + ", ".join(within) if within else ""))
        rec = raw.st_rec.get((io, ours))
        if rec and rec.get("ops"):
            if io == "file":
                out.append("  ntkl's FileIo records over %d operations: Read %d, Write %d, "
                           "OperationEnd %d, %d in all" % (rec["ops"], rec.get("reads", 0),
                                                          rec.get("writes", 0),
                                                          rec.get("ends", 0), rec["events"]))
                out.append("  (beyond fileops': other processes', the logger's own writer's)")
            else:
                match = "= the reads done" if rec.get("reads") == rec["ops"] else \
                    "NOT the reads done"
                out.append("  ntkl's DiskIo records over %d reads: Read %d (%s), Write %d, "
                           "Init %d" % (rec["ops"], rec.get("reads", 0), match,
                                        rec.get("writes", 0), rec.get("inits", 0)))
                out.append("  (Write: the file system's own, the journal's)")
    return "\n".join(out) + "\n" if out else ""


def events_table(raw):
    """The cost per event of issue 47's producers: what each recorder adds
    to eventmix pinned to CPU 1, per operation and per event it kept, and
    ntkl's ratio to trace-cmd's per operation (the same work recorded)."""
    out = []
    for k in raw.ev_kinds:
        what, ntkl_name, tc_name = EV_KINDS.get(k, (k, "ntkl", "trace-cmd"))
        names = {"none": "no tracing", "ntkl": ntkl_name, "tracecmd": tc_name}
        base = raw.ev_runs.get((k, "none"))
        ops = raw.ev_ops.get(k, 0)
        if not base or not ops:
            continue
        base_min, base_med = min_median(base)
        out += ["",
                "Events, %s: eventmix pinned to CPU 1, %d %s a run" % (k, ops, what),
                "  %-28s %21s %22s %16s %10s %10s %8s" % (
                    "recorder", "wall ms min | med", "added ns/op min | med", "vs trace-cmd",
                    "events/op", "ns/event", "lost")]
        added = {}
        for m in EV_MODES[1:]:
            runs = raw.ev_runs.get((k, m))
            if runs:
                r_min, r_med = min_median(runs)
                added[m] = ((r_min - base_min) / ops, (r_med - base_med) / ops)
        for m in EV_MODES:
            runs = raw.ev_runs.get((k, m))
            if not runs:
                continue
            r_min, r_med = min_median(runs)
            if m == "none":
                out.append("  %-28s %10.1f | %8.1f %22s %16s %10s %10s %8s" %
                           (names[m], r_min / 1e6, r_med / 1e6, "-", "-", "-", "-", "-"))
                continue
            rec = raw.ev_rec.get((k, m), {})
            per = rec["events"] / rec["ops"] if rec.get("ops") else 0
            per_event = "%.0f" % (added[m][1] / per) if per else "n/a"
            vs = "-" if m == "tracecmd" or "tracecmd" not in added else "%s | %s" % (
                ratio(added[m][0], added["tracecmd"][0]),
                ratio(added[m][1], added["tracecmd"][1]))
            out.append("  %-28s %10.1f | %8.1f %10.0f | %9.0f %16s %10s %10s %8d" %
                       (names[m], r_min / 1e6, r_med / 1e6, added[m][0], added[m][1], vs,
                        "%.2f" % per if rec.get("ops") else "n/a", per_event,
                        rec.get("lost", 0)))
        noise = (base_med - base_min) / ops
        out.append("  (untraced runs spread by %.0f ns per operation, median - min; "
                   "ns/event: the median added over the events kept per operation)" % noise)
    return "\n".join(out) + "\n" if out else ""


def lost_line(raw):
    """One line: which recorders lost events, anywhere in the boot."""
    lost = {}

    def add(name, n):
        if n:
            lost[name] = lost.get(name, 0) + n
    for m, t in raw.totals.items():
        add(NAMES.get(m, m), t.get("lost", 0))
    for m, t in raw.max_rate.items():
        add(NAMES.get(m, m) + " (max rate)", t.get("lost", 0))
    for (kind, m), n in raw.spin_lost.items():
        add(SPIN_NAMES.get(m, m) + " (%s)" % kind, n)
    for m, n in raw.k_lost.items():
        add(K_NAMES.get(m, m), n)
    for what, src in (("profile", raw.prof_samples), ("profile max rate", raw.prof_max)):
        for (wl, m), t in src.items():
            add(PROF_NAMES.get(m, m) + " (%s, %s)" % (what, wl), t.get("lost", 0))
    for (io, m), t in raw.st_rec.items():
        add(ST_NAMES.get(m, m) + " (storage)", t.get("lost", 0))
    for (k, m), t in raw.ev_rec.items():
        add("%s (events, %s)" % ("ntkl" if m == "ntkl" else m, k), t.get("lost", 0))
    if not lost:
        return "\nEvents lost: none, by any recorder\n"
    return "\nEvents lost: " + ", ".join("%s %d" % kv for kv in sorted(lost.items())) + "\n"


def main(argv):
    if len(argv) > 3 and argv[1] == "--boots":
        raws = []
        for path in argv[2:]:
            with open(path, encoding="utf-8", errors="replace") as f:
                raws.append(Raw(f))
        sys.stdout.write(boots_table(raws))
        return 0
    if len(argv) != 2:
        sys.stderr.write("usage: bench_stats.py RAW.txt | --boots RAW.txt RAW.txt...\n")
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        raw = Raw(f)
    sys.stdout.write(switch_table(raw))
    sys.stdout.write(spin_table(raw))
    sys.stdout.write(profile_table(raw))
    sys.stdout.write(libntkl_table(raw))
    sys.stdout.write(scale_table(raw))
    sys.stdout.write(storage_table(raw))
    sys.stdout.write(events_table(raw))
    sys.stdout.write(lost_line(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
