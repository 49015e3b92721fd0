#!/usr/bin/env python3
# The chrome-json export (ntkl convert --to chrome-json) against the Trace
# Event Format's schema (docs/schema/trace-event-format.schema.json,
# written from the format's published document) with python3-jsonschema,
# and its CPU tracks against the context switches `ntkl dump --switches`
# prints: one slice per interval between two switches of a CPU whose old
# thread is not the idle thread, of the same length.
#
#   scripts/test_chrome_json.py NTKL FILE.etl...
#
# One PASS/FAIL line per check; exit 1 if one failed.
import json
import re
import os
import subprocess
import sys
import tempfile

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


def switches(ntkl, etl):
    """Expected slices from dump --switches: (cpu, tid, start, dur) in us."""
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
    want = []
    for cpu, v in per_cpu.items():
        v.sort(key=lambda x: x[0])  # stable: file order among equal times
        for (t1, _), (t2, old) in zip(v, v[1:]):
            if old:
                want.append((cpu, old, (t1 - t0) / freq * 1e6, (t2 - t1) / freq * 1e6))
    return sorted(want)


def program_events(ntkl, etl, name, events):
    """The programs' own events: one per EVENT_HEADER record, on named tracks."""
    dump = subprocess.run([ntkl, "dump", etl], capture_output=True, text=True).stdout
    want = sum(int(line.split()[0]) for line in dump.splitlines()
               if re.match(r"^\s*\d+\s+EVENT_HEADER\d\d\s", line))
    got = [e for e in events if e.get("cat") == "event"]
    result(len(got) == want, f"{name} one event per program event ({want})",
           f"{len(got)} events, dump counts {want}")
    if not got:
        return
    named = {(e["pid"], e["tid"]) for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tracks = {(e["pid"], e["tid"]) for e in got}
    result(tracks <= named, f"{name} every program event's thread named ({len(tracks)})",
           f"unnamed {sorted(tracks - named)[:5]}")


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
    for etl in files:
        name = os.path.basename(etl)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.json")
            r = subprocess.run([ntkl, "convert", "--to", "chrome-json", "--samples", etl,
                                "-o", out], capture_output=True, text=True)
            if r.returncode:
                result(False, f"{name} converts", r.stderr.strip())
                continue
            with open(out) as f:
                doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        result(not errors, f"{name} valid against the schema",
               errors and f"{len(errors)} errors, first at {list(errors[0].path)}: {errors[0].message}")
        events = doc["traceEvents"]
        cpu_pid = 1000000000
        program_events(ntkl, etl, name, events)
        got = sorted((e["tid"] - cpu_pid, e["args"]["tid"], e["ts"], e["dur"])
                     for e in events if e["ph"] == "X" and e["pid"] == cpu_pid)
        want = switches(ntkl, etl)
        if not want:
            # a file without context switches (a libntkl file): no slices at all
            result(not [e for e in events if e["ph"] == "X"],
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
                            for e in events if e["ph"] == "X" and e["pid"] != cpu_pid)
        result(on_threads == sorted((c, t, ts, d) for c, t, ts, d in got),
               f"{name} the same intervals on the threads' tracks",
               f"{len(on_threads)} thread slices for {len(got)} CPU slices")
        thread_names = {(e["pid"], e["tid"]) for e in events
                        if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] != cpu_pid}
        process_names = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
        tracks = {(e["pid"], e["tid"]) for e in events if e["ph"] == "X" and e["pid"] != cpu_pid}
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
