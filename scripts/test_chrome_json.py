#!/usr/bin/env python3
# The chrome-json export (ntkl convert --to chrome-json) against the Trace
# Event Format's schema (docs/schema/trace-event-format.schema.json,
# written from the format's published document) with python3-jsonschema,
# and its CPU tracks against the context switches `ntkl dump --switches`
# prints: one slice per interval between two switches of a CPU whose old
# thread is not the idle thread, of the same length; times that viewers'
# double arithmetic cannot make overlap; one time origin (the trace's start)
# with and without --samples.
#
#   scripts/test_chrome_json.py NTKL FILE.etl...
#
# Programs' start/stop events are checked against a pairing of their own
# from `ntkl dump --events`. The Windows samples (the TraceLogging one as
# make test extracts it under build/samples, PerfView's from ../shared)
# are added when present, else one SKIP line. The pairing's rules (tasks
# apart, nesting, stops without starts, threads apart) on a file written
# here through libntkl.so.0 (beside NTKL) with ctypes.
#
# One PASS/FAIL line per check; exit 1 if one failed.
import json
import re
import os
import subprocess
import sys
import tempfile
import time

try:
    import jsonschema
except ImportError:
    print("FAIL: chrome-json schema check: python3-jsonschema is missing "
          "(scripts/install-deps, or apt-get install python3-jsonschema)")
    sys.exit(1)

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failed = False


def result(ok, what, why=""):
    global failed
    if ok:
        print(f"PASS: chrome-json {what}")
    else:
        failed = True
        print(f"FAIL: chrome-json {what}: {why}")


def start_clock(ntkl, etl):
    """The trace's start: the Header event's clock value, as dump prints it."""
    dump = subprocess.run([ntkl, "dump", etl], check=True, capture_output=True,
                          text=True).stdout
    m = re.search(r"^StartClock:\s+(-?\d+)", dump, re.M)
    return int(m.group(1)) if m else None


def switches(ntkl, etl):
    """Expected slices from dump --switches: (cpu, tid, start, dur) in us,
    start from the trace's start (the Header event's clock)."""
    out = subprocess.run([ntkl, "dump", "--switches", etl], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    freq = float(out[0].split("freq=")[1])
    rows = [line.split() for line in out[1:] if line and not line.startswith("#")]
    per_cpu = {}
    for cpu, time, old, _new in rows:
        per_cpu.setdefault(int(cpu), []).append((int(time), int(old)))
    if not per_cpu:
        return []
    t0 = min(t for v in per_cpu.values() for t, _ in v)
    start = start_clock(ntkl, etl)
    if start and start > 0:
        t0 = min(t0, start)
    want = []
    for cpu, v in per_cpu.items():
        v.sort(key=lambda x: x[0])  # stable: file order among equal times
        for (t1, _), (t2, old) in zip(v, v[1:]):
            if old:
                want.append((cpu, old, (t1 - t0) / freq * 1e6, (t2 - t1) / freq * 1e6))
    return sorted(want)


EVENT_LINE = re.compile(r"^\[buf \d+ cpu \d+ \+0x[0-9a-f]+\] (-?\d+) .* tid (\d+) provider (\S+) "
                        r"id \d+ opcode (\d+) task (\d+) ")


def expected_spans(ntkl, etl):
    """Start/stop pairs from dump --events: a stop (opcode 2) ends the latest
    start (1) still open on its thread with the same provider and task;
    starts opened after it stay unpaired. (tid, start, stop) raw clocks."""
    out = subprocess.run([ntkl, "dump", "--events", etl], check=True,
                         capture_output=True, text=True).stdout
    per_tid = {}
    for n, line in enumerate(out.splitlines()):
        m = EVENT_LINE.match(line)
        if m:
            t, tid, prov, op, task = m.groups()
            per_tid.setdefault(int(tid), []).append((int(t), n, prov, int(op), int(task)))
    spans = []
    for tid, v in per_tid.items():
        v.sort()
        open_ = []
        for t, _, prov, op, task in v:
            if op == 1:
                open_.append((t, prov, task))
            elif op == 2:
                for j in range(len(open_) - 1, -1, -1):
                    if open_[j][1:] == (prov, task):
                        spans.append((tid, open_[j][0], t))
                        del open_[j:]
                        break
    return sorted(spans)


def program_events(ntkl, etl, name, doc):
    """The programs' own events: one per EVENT_HEADER record, on named tracks;
    a start and its stop one X event, no B/E left."""
    events = doc["traceEvents"]
    dump = subprocess.run([ntkl, "dump", etl], capture_output=True, text=True).stdout
    want = sum(int(line.split()[0]) for line in dump.splitlines()
               if re.match(r"^\s*\d+\s+EVENT_HEADER\d\d\s", line))
    got = [e for e in events if e.get("cat") == "event"]
    records = sum(2 if e["ph"] == "X" else 1 for e in got)
    result(records == want, f"{name} one event per program event ({want})",
           f"{records} events (X counted twice), dump counts {want}")
    if not want:
        return
    begin_end = [e for e in got if e["ph"] in ("B", "E")]
    result(not begin_end, f"{name} no B/E program events (a start and its stop are one X)",
           f"{len(begin_end)}, e.g. {begin_end[:1]}")
    origin = doc["otherData"].get("origin_clock")
    freq = doc["otherData"].get("clock_freq")
    if origin is None or not freq:
        result(False, f"{name} otherData gives the time origin", "no origin_clock or clock_freq")
        return
    spans = expected_spans(ntkl, etl)
    xs = sorted((e["tid"], e["ts"], e["dur"]) for e in got if e["ph"] == "X")
    exp = [(tid, (a - origin) / freq * 1e6, (b - a) / freq * 1e6) for tid, a, b in spans]
    same = len(xs) == len(exp) and all(
        g[0] == w[0] and abs(g[1] - w[1]) < 0.002 and abs(g[2] - w[2]) < 0.002
        for g, w in zip(xs, exp))
    result(same, f"{name} each start paired with its stop by thread, provider and task "
           f"({len(exp)} pairs, {want - 2 * len(exp)} instants)",
           f"{len(xs)} X events, {len(exp)} expected; first differing "
           f"{next(((g, w) for g, w in zip(xs, exp) if g != w), None)}")
    if not got:
        return
    named = {(e["pid"], e["tid"]) for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tracks = {(e["pid"], e["tid"]) for e in got}
    result(tracks <= named, f"{name} every program event's thread named ({len(tracks)})",
           f"unnamed {sorted(tracks - named)[:5]}")


def nesting(name, events):
    """Every track's X events nest or follow each other in double arithmetic
    (Python's floats are IEEE doubles, as JavaScript's numbers): a slice
    that ends where the next begins must not overlap it by a rounding
    error, or a viewer nests the next inside it (speedscope's staircase).
    And every time is a multiple of 2^-10 us, so ts + dur is exact."""
    tracks = {}
    for e in events:
        if e["ph"] == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    bad = []
    inexact = [e for e in events if "ts" in e and not (
        float(e["ts"] * 1024).is_integer() and float(e.get("dur", 0) * 1024).is_integer())]
    for key, v in tracks.items():
        v.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in v:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"]:
                bad.append((key, stack[-1]["ts"], stack[-1]["dur"], e["ts"]))
            stack.append(e)
    n = sum(len(v) for v in tracks.values())
    result(not bad, f"{name} slices nest or touch without overlap in doubles ({n})",
           f"{len(bad)} overlaps, first (track, ts, dur, next ts): {bad[:1]}")
    result(not inexact, f"{name} every time a multiple of 2^-10 us",
           f"{len(inexact)} not, e.g. {inexact[:1]}")


def export(ntkl, etl, *flags):
    """The chrome-json export of etl (with flags) as a document, or the error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        r = subprocess.run([ntkl, "convert", "--to", "chrome-json", *flags, etl,
                            "-o", out], capture_output=True, text=True)
        if r.returncode:
            return None, r.stderr.strip()
        with open(out) as f:
            return json.load(f), None


def one_origin(name, doc, plain):
    """Exports with and without --samples share time 0: their slices and
    program events at the same times."""
    def timed(d):
        return sorted((e["ph"], e["pid"], e["tid"], e["ts"], e.get("dur", 0))
                      for e in d["traceEvents"] if "ts" in e and e.get("cat") != "sample")
    a, b = timed(doc), timed(plain)
    same = a == b and doc["otherData"].get("origin_clock") == plain["otherData"].get("origin_clock")
    result(same, f"{name} one time origin with and without --samples ({len(a)} events)",
           f"origin {doc['otherData'].get('origin_clock')} vs "
           f"{plain['otherData'].get('origin_clock')}; first differing "
           f"{next(((x, y) for x, y in zip(a, b) if x != y), None)}")


def shapes(events):
    """One event of each shape: what the schema's rules can tell apart."""
    def kind(v):
        return sorted((k, type(x).__name__) for k, x in v.items()) if isinstance(v, dict) \
            else type(v).__name__
    seen = {}
    for e in events:
        key = (e.get("ph"), e.get("cat"), e.get("s"), e["name"] if e.get("ph") == "M" else None,
               repr(sorted((k, repr(kind(v))) for k, v in e.items())))
        seen.setdefault(key, e)
    return seen


def pairing_cases(ntkl, tmp):
    """A file written here with libntkl (ctypes) whose starts and stops
    test the pairing's rules: tasks apart, a start left open inside a
    closed pair, a stop with no start, nested pairs of one task, a stop on
    another thread than its start. None if libntkl is not built."""
    import ctypes
    import threading
    lib_path = os.path.join(os.path.dirname(os.path.abspath(ntkl)), "libntkl.so.0")
    if not os.path.exists(lib_path):
        return None
    lib = ctypes.CDLL(lib_path)

    class Desc(ctypes.Structure):
        _fields_ = [("id", ctypes.c_uint16), ("version", ctypes.c_uint8),
                    ("channel", ctypes.c_uint8), ("level", ctypes.c_uint8),
                    ("opcode", ctypes.c_uint8), ("task", ctypes.c_uint16),
                    ("keyword", ctypes.c_uint64)]

    class Schema(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("blob", ctypes.c_uint8 * 510)]

    lg, prov = ctypes.c_void_p(), ctypes.c_void_p()
    path = os.path.join(tmp, "pairs.etl")
    guid = (ctypes.c_uint8 * 16)(*range(1, 17))
    if lib.ntkl_um_start(ctypes.byref(lg), b"pairs", path.encode(), None) or \
            lib.ntkl_um_register(lg, b"ntkl-pairs", guid, 0, ctypes.c_uint64(0),
                                 ctypes.byref(prov)):
        lib.ntkl_um_last_error.restype = ctypes.c_char_p
        raise RuntimeError(lib.ntkl_um_last_error().decode())
    ids = {}

    def write(name, opcode, task):
        sch = Schema()
        lib.ntkl_um_schema(ctypes.byref(sch), name.encode(), None, 0)
        d = Desc(id=ids.setdefault(name, len(ids) + 1), level=4, opcode=opcode, task=task)
        lib.ntkl_um_write(prov, ctypes.byref(d), ctypes.byref(sch), None, 0)
        time.sleep(0.001)

    write("A", 1, 1)
    write("B", 1, 2)        # open inside A when A stops: unpaired
    write("A-stop", 2, 1)
    write("B-stop", 2, 2)   # its start was dropped: an instant
    write("orphan", 2, 3)   # no start at all
    write("C", 1, 4)
    write("D", 1, 4)
    write("D-stop", 2, 4)   # ends D, the latest open start of task 4
    write("C-stop", 2, 4)
    write("E", 1, 5)        # its stop is on another thread
    t = threading.Thread(target=write, args=("E-stop", 2, 5))
    t.start()
    t.join()
    lib.ntkl_um_unregister(prov)
    lib.ntkl_um_stop(lg, None)
    return path


def check_pairing_cases(ntkl):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            etl = pairing_cases(ntkl, tmp)
        except (OSError, RuntimeError) as e:
            result(False, "pairing cases written with libntkl", str(e))
            return
        if not etl:
            print("SKIP: chrome-json pairing cases: libntkl.so.0 not built beside ntkl (make -C userspace)")
            return
        doc, why = export(ntkl, etl)
    if why:
        result(False, "pairing cases convert", why)
        return
    ev = [e for e in doc["traceEvents"] if e.get("cat") == "event"]
    xs = sorted((e["ts"], e["name"], e["args"].get("end")) for e in ev if e["ph"] == "X")
    inst = sorted(e["name"] for e in ev if e["ph"] == "i")
    want_x = [("A", "A-stop"), ("C", "C-stop"), ("D", "D-stop")]
    want_i = sorted(["B", "B-stop", "orphan", "E", "E-stop"])
    result([x[1:] for x in xs] == want_x and inst == want_i,
           "pairing: by task, an open start inside a closed pair, a stop without a start, "
           "nested pairs of one task, a stop on another thread",
           f"X {[x[1:] for x in xs]} (want {want_x}), instants {inst} (want {want_i})")
    nesting("pairing cases", doc["traceEvents"])


def main():
    ntkl, files = sys.argv[1], sys.argv[2:]
    with open(os.path.join(top, "docs/schema/trace-event-format.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    # the schema must bite: a slice without its duration, a bad instant scope
    bad = {"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "pid": 0, "tid": 0}]}
    bad2 = {"traceEvents": [{"ph": "i", "name": "a", "ts": 1, "s": "x"}]}
    result(not validator.is_valid(bad) and not validator.is_valid(bad2),
           "schema rejects a slice without dur and an instant with scope x",
           "the schema accepted a broken document")
    windows = [os.path.join(top, "build/samples/TraceLoggingTester.etl"),
               os.path.join(top, "../shared/etl-samples/perfview__net.4.5.2.x64.etl")]
    check_pairing_cases(ntkl)
    for w in windows:
        if os.path.exists(w):
            files.append(w)
        else:
            print(f"SKIP: chrome-json {os.path.basename(w)}: not here (make -C userspace "
                  "test extracts the TraceLogging sample from ../shared/etl-samples)")
    for etl in files:
        name = os.path.basename(etl)
        doc, why = export(ntkl, etl, "--samples")
        plain, why2 = export(ntkl, etl)
        if why or why2:
            result(False, f"{name} converts", why or why2)
            continue
        checked = doc
        if len(doc["traceEvents"]) > 20000:
            # python3-jsonschema takes a minute over 150,000 events: one event
            # of each shape (phase, category, metadata name, keys and the
            # types of their values) instead, and every time checked apart
            checked = dict(doc, traceEvents=list(shapes(doc["traceEvents"]).values()))
            negative = [e for e in doc["traceEvents"] if e.get("ts", 0) < 0 or e.get("dur", 0) < 0]
            result(not negative, f"{name} no negative time", f"{len(negative)}, e.g. {negative[:1]}")
        errors = sorted(validator.iter_errors(checked), key=lambda e: list(e.path))
        result(not errors, f"{name} valid against the schema"
               + ("" if checked is doc else f" ({len(checked['traceEvents'])} event shapes)"),
               errors and f"{len(errors)} errors, first at {list(errors[0].path)}: {errors[0].message}")
        events = doc["traceEvents"]
        cpu_pid = 1000000000
        program_events(ntkl, etl, name, doc)
        nesting(name, events)
        one_origin(name, doc, plain)
        got = sorted((e["tid"] - cpu_pid, e["args"]["tid"], e["ts"], e["dur"])
                     for e in events if e["ph"] == "X" and e["pid"] == cpu_pid)
        want = switches(ntkl, etl)
        if not want:
            # a file without context switches (a libntkl file): no slices at all
            result(not [e for e in events if e["ph"] == "X" and e["cat"] != "event"],
                   f"{name} has no context switches, so no slices",
                   "slices from a file without switches")
            continue
        same = len(got) == len(want) and all(
            g[:2] == w[:2] and abs(g[2] - w[2]) < 0.002 and abs(g[3] - w[3]) < 0.002
            for g, w in zip(got, want))
        result(same and len(got) > 0, f"{name} one slice per non-idle switch interval ({len(want)})",
               f"{len(got)} slices, {len(want)} expected; first differing: "
               f"{next(((g, w) for g, w in zip(got, want) if g != w), None)}")
        # the same intervals on each thread's own track, named by metadata
        on_threads = sorted((int(e["name"].split()[1]), e["tid"], e["ts"], e["dur"])
                            for e in events if e["ph"] == "X" and e["cat"] == "thread")
        result(on_threads == sorted((c, t, ts, d) for c, t, ts, d in got),
               f"{name} the same intervals on the threads' tracks",
               f"{len(on_threads)} thread slices for {len(got)} CPU slices")
        thread_names = {(e["pid"], e["tid"]) for e in events
                        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] != cpu_pid}
        process_names = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
        tracks = {(e["pid"], e["tid"]) for e in events if e["ph"] == "X" and e["cat"] == "thread"}
        result(tracks == thread_names and {p for p, _ in tracks} <= process_names,
               f"{name} every thread track and its process named ({len(tracks)} threads)",
               f"unnamed threads {sorted(tracks - thread_names)[:5]}, "
               f"processes {sorted({p for p, _ in tracks} - process_names)[:5]}")
        dump = subprocess.run([ntkl, "dump", etl], check=True, capture_output=True,
                              text=True).stdout
        want_samples = sum(int(line.split()[0]) for line in dump.splitlines()
                           if line.rstrip().endswith("0x0f2e PerfInfo/SampleProf"))
        got_samples = sum(1 for e in events if e["ph"] == "i" and e["cat"] == "sample")
        result(got_samples == want_samples, f"{name} one instant per sample ({want_samples})",
               f"{got_samples} instants, dump counts {want_samples} samples")
        cpus = {e["tid"] for e in events if e["ph"] == "X" and e["pid"] == cpu_pid}
        named = {e["tid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == cpu_pid}
        result(cpus and all(named.get(c) == f"CPU {c - cpu_pid}" for c in cpus),
               f"{name} every CPU track named", f"tracks {sorted(cpus)}, names {named}")
        unnamed = [e for e in events if e["ph"] == "X" and e["pid"] == cpu_pid
                   and "thread" not in e["args"]]
        result(not unnamed, f"{name} every slice's thread named from the rundown",
               f"{len(unnamed)} unnamed, e.g. {unnamed[:1]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
