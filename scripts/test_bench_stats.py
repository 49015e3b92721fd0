#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench_stats.py, one "PASS: bench-stats <case>" or
"FAIL: bench-stats <case>: why" line per case (scripts/check counts them).

The golden case: scripts/testdata/bench_raw.txt is a raw output of the
form ntkl-bench prints (one JSON object a line), and bench_table.txt the
table the former awk statistics of scripts/bench printed for it, so the
figures make bench prints did not change when they moved here, nor when
the raw lines became JSON; its storage lines are a real storage section's
(one round of one run), and the table's storage part what
storage_table first printed for them. The producer case runs
ntkl-bench's own emit function and reads what it prints."""
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_stats  # noqa: E402
import check_lines  # noqa: E402


def raw(*lines):
    return bench_stats.Raw(lines)


def j(kind, **fields):
    """One raw line: a JSON object of this kind and these fields."""
    return json.dumps(dict(kind=kind, **fields))


def run(kind, mode, ns, ctxt=None, workload="pingpong", rnd=1, rep=1):
    """One workload run's line (switch_run, profile_run, peer_run)."""
    fields = dict(round=rnd, mode=mode, rep=rep, workload=workload, ns=ns)
    if ctxt is not None:
        fields["ctxt"] = ctxt
    return j(kind, **fields)


class Statistics(unittest.TestCase):
    def test_min_median_odd_even(self):
        self.assertEqual(bench_stats.min_median([5, 1, 3]), (1, 3))
        self.assertEqual(bench_stats.min_median([4, 1, 3, 2]), (1, 2.5))
        self.assertEqual(bench_stats.min_median([]), (0, 0))

    def test_lower_median_is_a_measured_value(self):
        self.assertEqual(bench_stats.min_lower_median([4, 1, 3, 2]), (1, 2))
        self.assertEqual(bench_stats.min_lower_median([7]), (7, 7))

    def test_ratio(self):
        self.assertEqual(bench_stats.ratio(1, 4), "0.25")
        self.assertEqual(bench_stats.ratio(1, 0), "n/a")
        self.assertEqual(bench_stats.ratio(1, -3), "n/a")

    def test_number(self):
        self.assertEqual(bench_stats.number(12), 12)
        self.assertEqual(bench_stats.number(1.5), 1.5)
        self.assertEqual(bench_stats.number("12"), 12)
        self.assertEqual(bench_stats.number("1.5"), 1.5)
        self.assertEqual(bench_stats.number(None), 0)
        self.assertEqual(bench_stats.number(True), 0)
        self.assertEqual(bench_stats.number("x"), 0)

    def test_record(self):
        self.assertEqual(bench_stats.record('{"kind": "done"}\n'), {"kind": "done"})
        # what is not a JSON object: a message mixed in, a line cut short
        self.assertIsNone(bench_stats.record("ntkl-bench: trace-cmd died\n"))
        self.assertIsNone(bench_stats.record('{"kind": "switch_run", "ns": 1'))
        self.assertIsNone(bench_stats.record("[1, 2]"))
        self.assertIsNone(bench_stats.record(""))


class Parsing(unittest.TestCase):
    def test_runs_totals_and_max_rate(self):
        r = raw(j("header", text="k, 4 CPUs"),
                run("switch_run", "none", 100, 10),
                "a message mixed in",
                run("switch_run", "none", 120, 12, rep=2),
                j("switch_totals", round=1, mode="cswitch", switches=10, evbytes=400,
                  filebytes=500, rawbytes=0, lost=1),
                j("switch_totals", round=2, mode="cswitch", switches=20, evbytes=800,
                  filebytes=900, rawbytes=0, lost=2),
                j("max_rate_run", mode="compact", workload="pingpong", cpu=0, ns=5),
                j("max_rate_run", mode="compact", workload="pingpong", cpu=1, ns=9),
                j("switch_totals", round="max", mode="compact", switches=7, lost=3),
                j("a_kind_not_known", mode="none", ns=1),
                j("done"))
        self.assertEqual(r.header, "k, 4 CPUs")
        self.assertEqual(r.workloads, ["pingpong"])
        self.assertEqual(r.runs["pingpong", "none", "ns"], [100, 120])
        self.assertEqual(r.totals["cswitch"]["switches"], 30)
        self.assertEqual(r.totals["cswitch"]["lost"], 3)
        self.assertEqual(r.max_ns["compact"], 9)
        self.assertEqual(r.max_rate["compact"], {"switches": 7, "lost": 3})


def lock(mode, ns, records):
    """One ntkl_lockbench run of 100 contentions."""
    return j("lockbench", round=1, mode=mode, rounds=100, ns=ns, records=records, lost=0)


BENCH_SH = os.path.join(HERE, "..", "selftests", "workloads", "ntkl-bench.sh")


class Producer(unittest.TestCase):
    """ntkl-bench's emit and emit_text, run as the guest runs them."""

    def functions(self):
        """The shell text of emit, emit_text and json_awk in ntkl-bench.sh."""
        with open(BENCH_SH, encoding="utf-8") as f:
            text = f.read()
        start = text.index("\nemit() {")
        end = text.index("\n'\n", text.index("\njson_awk='")) + 3
        return text[start:end]

    def emit(self, script):
        shell = ["busybox", "sh"] if subprocess.call(
            ["sh", "-c", "command -v busybox >/dev/null"]) == 0 else ["sh"]
        return subprocess.run(shell + ["-c", self.functions() + "\n" + script],
                              capture_output=True, text=True, check=True).stdout

    def test_emit_is_json(self):
        out = self.emit('emit switch_run round=1 mode=none rep=1 '
                        '"pingpong rounds=4000 cpu=1 ns=16500141 ctxt=8019"\n'
                        'emit switch_totals round=max mode=compact "switches=7 lost=0"\n'
                        'emit profile_samples round=2 mode=perf "samples=012 lost=-1 x=1.5 y=a\\"b"\n'
                        'emit_text header "6.1, 4 CPUs, \\"tab\there\\" \\\\"\n'
                        'emit "done"\n')
        lines = out.splitlines()
        self.assertEqual(len(lines), 5)
        recs = [json.loads(line) for line in lines]
        self.assertEqual(recs[0], {"kind": "switch_run", "round": 1, "mode": "none", "rep": 1,
                                   "workload": "pingpong", "rounds": 4000, "cpu": 1,
                                   "ns": 16500141, "ctxt": 8019})
        self.assertEqual(recs[1]["round"], "max")
        # not a JSON number (a leading 0): a string
        self.assertEqual(recs[2], {"kind": "profile_samples", "round": 2, "mode": "perf",
                                   "samples": "012", "lost": -1, "x": 1.5, "y": 'a"b'})
        self.assertEqual(recs[3], {"kind": "header", "text": '6.1, 4 CPUs, "tab\there" \\'})
        self.assertEqual(recs[4], {"kind": "done"})
        r = raw(*lines)
        self.assertEqual(r.runs["pingpong", "none", "ns"], [16500141])
        self.assertEqual(r.header, '6.1, 4 CPUs, "tab\there" \\')

    def test_every_kind_known(self):
        with open(BENCH_SH, encoding="utf-8") as f:
            text = f.read()
        code = "\n".join(line for line in text.splitlines()
                         if not line.lstrip().startswith("#"))
        kinds = set(re.findall(r'\bemit(?:_text)? +"?([a-z_]+)', code))
        self.assertIn("switch_run", kinds)
        self.assertEqual(kinds - set(bench_stats.KINDS), set())
        self.assertEqual(set(bench_stats.KINDS) - kinds, set())


class Tables(unittest.TestCase):
    def workload(self, tracecmd_ns):
        lines = [j("header", text="k")]
        for m, ns in (("none", [1000, 1500]), ("cswitch", [1100, 1600]),
                      ("compact", [1050, 1550]), ("tracecmd", tracecmd_ns)):
            for i, t in enumerate(ns):
                lines.append(run("switch_run", m, t, 10, workload="wl", rep=i))
        return raw(*lines)

    def test_added_cost_and_ratio(self):
        text = bench_stats.switch_table(self.workload([3000, 3500]))
        # (1100 - 1000) / 10 = 10 ns added; trace-cmd (3000 - 1000) / 10 = 200
        self.assertIn("ntkl CSWITCH", text)
        self.assertIn("0.05 |   0.05", text)
        self.assertIn("wl: CSWITCH adds <= 1/2 of trace-cmd                 met (0.05; median 0.05)",
                      text)

    def test_stack_cost(self):
        r = self.workload([3000, 3500])
        r2 = raw(run("switch_run", "cswstack", 1400, 10, workload="wl", rep=0),
                 run("switch_run", "cswstack", 1900, 10, workload="wl", rep=1))
        for k, v in r2.runs.items():
            r.runs.setdefault(k, []).extend(v)
        text = bench_stats.switch_table(r)
        # CSWITCH adds 10 ns per switch, with stacks 40: 30 per stack
        self.assertIn("ntkl CSWITCH+stacks", text)
        self.assertIn("cost per CSwitch stack", text)
        self.assertRegex(text, r"cost per CSwitch stack +30 \| +30")

    def test_stack_against_perf_g(self):
        lines = [j("header", text="k")]
        for m, ns in (("none", [1000, 1500]), ("cswitch", [1100, 1600]),
                      ("compact", [1050, 1550]), ("tracecmd", [3000, 3500]),
                      ("cswstack", [1400, 1900]), ("perfswg", [2000, 2500])):
            for i, t in enumerate(ns):
                lines.append(run("switch_run", m, t, 10, workload="wl", rep=i))
        lines.append(j("switch_totals", round=1, mode="perfswg", switches=20, evbytes=4000,
                       filebytes=4000, rawbytes=0, lost=7))
        text = bench_stats.switch_table(raw(*lines))
        # stacks add 40 ns a switch, perf -g 100: 0.40
        self.assertIn("perf sched_switch -g", text)
        self.assertRegex(text, r"CSWITCH\+stacks vs perf -g +0\.40 \| +0\.40")
        self.assertRegex(text, r"wl: CSWITCH\+stacks adds <= 1/2 of perf -g +met \(0\.40; median 0\.40\)")
        # perf's losses are its own, not ntkl's
        self.assertRegex(text, r"ntkl lost nothing with default buffers +met \(0\)")

    def test_round_spread(self):
        lines = [j("header", text="k")]
        for rnd, tc in ((1, 2000), (2, 3000)):
            for m, ns in (("none", 1000), ("cswitch", 1250), ("compact", 1100),
                          ("tracecmd", tc)):
                lines.append(run("switch_run", m, ns, 10, workload="wl", rnd=rnd))
        text = bench_stats.switch_table(raw(*lines))
        # round 1: 250 / 1000, round 2: 250 / 2000
        self.assertIn("CSWITCH/trace-cmd, rounds 0.25 0.12 (each round's medians)", text)

    def test_boots_side_by_side(self):
        def boot(cswitch, tracecmd):
            lines = [j("header", text="k")]
            for m, ns in (("none", [1000, 1010]), ("cswitch", cswitch),
                          ("compact", [1040, 1050]), ("tracecmd", tracecmd)):
                for i, t in enumerate(ns):
                    lines.append(run("switch_run", m, t, 10, workload="wl", rep=i))
            return raw(*lines)

        # boot 1: CSWITCH adds (1145 - 1005) / 10 = 14 at the median, trace-cmd
        # (1995 - 1005) / 10 = 99: 0.14; boot 2: 19 against 99: 0.19; COMPACT 4
        text = bench_stats.boots_table([boot([1140, 1150], [1990, 2000]),
                                        boot([1190, 1200], [1990, 2000])])
        self.assertIn("Context switches in 2 boots", text)
        self.assertRegex(text, r"ntkl CSWITCH +14 \| +14 +0\.14 +19 \| +19 +0\.19 14\.\.19 \(\+36%\)")
        self.assertRegex(text, r"wl: CSWITCH <= 0\.20x trace-cmd, every boot +met "
                               r"\(worst 0\.19; boots 0\.14 0\.19\)")
        self.assertRegex(text, r"wl: COMPACT_CSWITCH <= 0\.10x trace-cmd, every boot +met")
        text = bench_stats.boots_table([boot([1140, 1150], [1990, 2000]),
                                        boot([1290, 1300], [1990, 2000])])
        self.assertRegex(text, r"wl: CSWITCH <= 0\.20x trace-cmd, every boot +NOT met \(worst 0\.29")
        # trace-cmd within the untraced runs' spread: no verdict
        text = bench_stats.boots_table([boot([1140, 1150], [1000, 1012])] * 2)
        self.assertIn("unknown: within noise", text)

    def test_within_noise(self):
        # untraced spread (1500 - 1000) / 10 = 50 ns; trace-cmd adds 20: noise
        text = bench_stats.switch_table(self.workload([1200, 1700]))
        self.assertIn("unknown: within noise", text)

    def test_no_trace_cmd_cost(self):
        text = bench_stats.switch_table(self.workload([1000, 1500]))
        self.assertIn("unknown: trace-cmd added no measurable cost", text)

    def test_spin_per_contention(self):
        r = raw(lock("none", 1000000, 0), lock("spinlock", 1200000, 100),
                lock("tracecmd", 1100000, 100))
        text = bench_stats.spin_table(r)
        # 200,000 ns over 100 contentions: 2000 ns each, twice trace-cmd's 1000
        self.assertIn("2000 | 2000      2.00 |  2.00", text)
        self.assertNotIn("contend", text)

    def test_sample_cost(self):
        r = raw(run("profile_run", "none", 1000000),
                run("profile_run", "none", 1000000, rep=2),
                run("profile_run", "profile", 1100000),
                run("profile_run", "profile", 1100000, rep=2),
                j("profile_samples", round=1, samples=40))
        text = bench_stats.profile_table(r)
        # 100,000 ns more per run, 20 samples a run: 5000 ns a sample;
        # profile_samples without a mode are ntkl PROFILE's
        self.assertRegex(text, r"ntkl PROFILE +1\.1 \| +1\.1 +20 +5000 \| +5000 +- +0")
        self.assertNotIn("vs perf", text)
        self.assertEqual(bench_stats.profile_table(raw(j("note", text="nothing"))), "")

    def test_sample_cost_against_perf(self):
        lines = [run("profile_run", "none", 1000000)]
        # (mode, ns per run, samples on CPU 1 over the round's 2 runs, lost)
        for m, ns, samples, lost in (("profile", 1100000, 40, 0),
                                     ("profstack", 1400000, 40, 0),
                                     ("perf", 1200000, 40, 0),
                                     ("perfg", 1800000, 32, 5)):
            lines += [run("profile_run", m, ns, rep=i) for i in (1, 2)]
            lines.append(j("profile_samples", round=1, mode=m, samples=samples, lost=lost))
        r = raw(*lines)
        text = bench_stats.profile_table(r)
        # perf: 200,000 ns over 20 samples; -g: 800,000 over 16
        self.assertRegex(text, r"ntkl PROFILE\+stacks +1\.4 \| +1\.4 +20 +20000 \| +20000 +- +0")
        self.assertRegex(text, r"perf record +1\.2 \| +1\.2 +20 +10000 \| +10000 +- +0")
        self.assertRegex(text, r"perf record -g +1\.8 \| +1\.8 +16 +50000 \| +50000 +- +5")
        self.assertRegex(text, r"  PROFILE vs perf, per sample .* 0\.50 \| 0\.50")
        self.assertRegex(text, r"  PROFILE\+stacks vs perf -g, .* 0\.40 \| 0\.40")
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: perf record -g (profile, pingpong) 5\n")
        self.assertRegex(text, r"pingpong: PROFILE\+stacks per sample <= perf -g's \(median\) +"
                               r"met \(0\.40; min 0\.40\)")
        self.assertRegex(text, r"ntkl PROFILE lost nothing with default buffers +met \(0\)")

    def test_sample_cost_unwound(self):
        """Two workloads, stacks by tables and by frame pointers, perf's
        dwarf call graph: a sample's cost and bytes, what the tables add,
        how the user stacks ended, the highest rate's losses, the targets."""
        lines = []
        for wl in ("pingpong", "gzip"):
            lines.append(run("profile_run", "none", 1000000, workload=wl))
            # (mode, ns per run, samples in wl over the round's 2 runs, lost,
            # every sample in the file, its bytes, user stacks)
            for m, ns, samples, lost, alls, nbytes, ust in (
                    ("profstack", 1400000, 40, 0, 100, 20000,
                     dict(uwhole=90, uearly=10, unomap=8, ufp=0)),
                    ("profstackwarm", 1340000, 40, 0, 100, 20000,
                     dict(uwhole=99, uearly=1, unomap=1, ufp=0)),
                    ("profstackfp", 1300000, 40, 0, 100, 15000,
                     dict(uwhole=0, uearly=0, unomap=0, ufp=100)),
                    ("perfg", 1800000, 40, 0, 100, 30000, {}),
                    ("perfdwarf", 2600000, 40, 3, 100, 500000, {})):
                lines += [run("profile_run", m, ns, workload=wl, rep=i) for i in (1, 2)]
                lines.append(j("profile_samples", round=1, mode=m, workload=wl,
                               samples=samples, allsamples=alls, filebytes=nbytes, lost=lost,
                               **ust))
        lines += [j("profile_max", mode="profstack", workload="gzip", samples=390,
                    allsamples=400, filebytes=80000, lost=2, uwhole=390, uearly=0, unomap=0,
                    ufp=0),
                  j("profile_max", mode="perfdwarf", workload="gzip", samples=380,
                    allsamples=400, filebytes=3200000, lost=9)]
        r = raw(*lines)
        text = bench_stats.profile_table(r)
        self.assertLess(text.index("pingpong (static"), text.index("Debian's gzip -9"))
        # 400,000 ns over 20 samples; 20,000 bytes over 100 samples
        self.assertRegex(text, r"ntkl PROFILE\+stacks +1\.4 \| +1\.4 +20 +20000 \| +20000 +200 +0")
        self.assertRegex(text, r"ntkl PROFILE\+stacks -nounwind +1\.3 \| +1\.3 +20 "
                               r"+15000 \| +15000 +150 +0")
        self.assertRegex(text, r"perf record --call-graph dwarf +2\.6 \| +2\.6 +20 "
                               r"+80000 \| +80000 +5000 +3")
        self.assertRegex(text, r"  PROFILE\+stacks vs perf dwarf, "
                               r"per sample \(min \| med\) +0\.25 \| 0\.25")
        self.assertRegex(text, r"  PROFILE\+stacks -nounwind vs perf -g, .* 0\.38 \| 0\.38")
        # perf -g: 800,000 over 20 samples, 40,000 a sample
        # 20,000 a sample with tables, 15,000 by frame pointers
        self.assertRegex(text, r"the tables, per sample \(less -nounwind's, min \| med\) "
                               r"+5000 \| 5000")
        # warm: 340,000 over 20 samples, 17,000 a sample: 2,000 more than -nounwind
        self.assertRegex(text, r"ntkl PROFILE\+stacks, warm +1\.3 \| +1\.3 +20 "
                               r"+17000 \| +17000 +200 +0")
        self.assertRegex(text, r"warm tables, per sample \(less -nounwind's, min \| med\) "
                               r"+2000 \| 2000")
        self.assertRegex(text, r"  PROFILE\+stacks, warm vs perf -g, .* 0\.42 \| 0\.42")
        self.assertRegex(text, r"gzip: PROFILE\+stacks, warm per sample <= perf -g's \(median\) +"
                               r"met \(0\.42; min 0\.42\)")
        self.assertIn("ntkl PROFILE+stacks, user stacks: 90 whole (90.0%), 10 ended early "
                      "(8: the process's map not made yet)", text)
        self.assertIn("ntkl PROFILE+stacks -nounwind, user stacks: 100 by frame pointers", text)
        self.assertRegex(text, r"gzip: PROFILE\+stacks per sample <= perf -g's \(median\) +"
                               r"met \(0\.50; min 0\.50\)")
        # the highest rate: 80,000 bytes over 400 samples; ntkl's 2 lost
        self.assertRegex(text, r"ntkl PROFILE\+stacks +gzip +400 +390 +200 +2")
        self.assertRegex(text, r"perf record --call-graph dwarf +gzip +400 +380 +8000 +9")
        self.assertLess(text.index("Max rate"), text.index("perf record --call-graph dwarf gzip"))
        self.assertRegex(text, r"ntkl PROFILE lost nothing with default buffers \(and max rate\) +"
                               r"NOT met \(2\)")
        lost = bench_stats.lost_line(r)
        self.assertIn("ntkl PROFILE+stacks (profile max rate, gzip) 2", lost)
        self.assertIn("perf record --call-graph dwarf (profile, gzip) 3", lost)
        self.assertIn("perf record --call-graph dwarf (profile max rate, gzip) 9", lost)

    def test_first_runs(self):
        """A start's first run over its other runs' median, a round each."""
        lines = [run("profile_run", "none", 1000000)]
        for rnd, first in ((1, 9000000), (2, 3000000)):
            lines += [run("profile_run", "profstack", ns, rnd=rnd, rep=i)
                      for i, ns in ((1, first), (2, 2000000), (3, 1000000), (4, 1500000))]
        lines.append(j("profile_samples", round=1, mode="profstack", samples=40))
        r = raw(*lines)
        # round 1: 9 ms over the median 1.5 ms; round 2: 3 over 1.5
        self.assertEqual(bench_stats.first_runs(r, "profile_run", "pingpong", "profstack"),
                         [7500000, 1500000])
        self.assertEqual(bench_stats.first_runs(r, "profile_run", "pingpong", "profile"), [])
        self.assertRegex(bench_stats.profile_table(r),
                         r"first run of each start .*\n +ntkl PROFILE\+stacks +7\.5 +1\.5\n")
        # no stack walking logger in the switch table: no such lines
        self.assertNotIn("first run", bench_stats.switch_table(
            raw(run("switch_run", "none", 1000, 10), run("switch_run", "cswitch", 1100, 10),
                run("switch_run", "tracecmd", 1200, 10), run("switch_run", "compact", 1050, 10))))

    def test_stack_unwound_and_frame_pointers(self):
        """CSwitch stacks by tables and by frame pointers (-nounwind): the
        tables' cost per stack, how the user stacks ended, the losses."""
        lines = [j("header", text="k")]
        for m, ns in (("none", [1000, 1500]), ("cswitch", [1100, 1600]),
                      ("compact", [1050, 1550]), ("tracecmd", [3000, 3500]),
                      ("cswstack", [1400, 1900]), ("cswstackwarm", [1350, 1850]),
                      ("cswstackfp", [1300, 1800]), ("perfswg", [2000, 2500])):
            for i, t in enumerate(ns):
                lines.append(run("switch_run", m, t, 10, workload="wl", rep=i))
        lines += [j("switch_totals", round=1, mode="cswstack", switches=20, evbytes=1600,
                    filebytes=2000, rawbytes=0, lost=0, uwhole=30, uearly=10, unomap=4, ufp=0),
                  j("switch_totals", round=1, mode="cswstackfp", switches=20, evbytes=1500,
                    filebytes=1900, rawbytes=0, lost=0, uwhole=0, uearly=0, unomap=0, ufp=40),
                  j("switch_totals", round="max", mode="cswstackfp", switches=50, lost=4)]
        text = bench_stats.switch_table(raw(*lines))
        # stacks by tables add 30 a switch, by frame pointers 20: the tables 10
        self.assertRegex(text, r"CSWITCH\+stacks -nounwind +0\.0 \| +0\.0 +10 +30 \| +30 ")
        self.assertRegex(text, r"cost per CSwitch stack +30 \| +30")
        self.assertRegex(text, r"  the same, -nounwind +20 \| +20")
        self.assertRegex(text, r"  the tables, per stack +10 \| +10")
        # warm: 35 a switch, 5 more than by frame pointers
        self.assertRegex(text, r"  the same, warm +25 \| +25")
        self.assertRegex(text, r"  warm tables, per stack +5 \| +5")
        self.assertRegex(text, r"  warm, vs perf -g +0\.35 \| +0\.35")
        self.assertRegex(text, r"  -nounwind, vs perf -g +0\.30 \| +0\.30")
        self.assertRegex(text, r"wl: CSWITCH\+stacks adds <= 1/2 of perf -g +met \(0\.40; "
                               r"median 0\.40\)")
        self.assertRegex(text, r"wl: CSWITCH\+stacks, warm adds <= 1/2 of perf -g +met \(0\.35; "
                               r"median 0\.35\)")
        self.assertIn("ntkl CSWITCH+stacks, user stacks: 30 whole (75.0%), 10 ended early "
                      "(4: the process's map not made yet)", text)
        self.assertIn("CSWITCH+stacks -nounwind, user stacks: 40 by frame pointers", text)
        # a -nounwind logger's stops by table too (a walk's "no map")
        r = raw(j("switch_totals", round=1, mode="cswstackfp", switches=20, uearly=2, unomap=2,
                  ufp=38))
        self.assertEqual(bench_stats.ustacks_line(r.totals["cswstackfp"]),
                         "0 whole (0.0%), 2 ended early (2: the process's map not made yet); "
                         "38 by frame pointers")
        self.assertEqual(bench_stats.ustacks_line({}), "")
        # -nounwind's losses are ntkl's too
        self.assertRegex(text, r"ntkl lost nothing with default buffers +NOT met \(4\)")

    def test_libntkl_cost(self):
        def um(rnd, mode, ns, cpu, lost, nbytes):
            return j("libntkl", round=rnd, mode=mode, events=1000, ns=ns, cpu=cpu, lost=lost,
                     bytes=nbytes)
        r = raw(um(1, "none", 10000, 20000, 0, 0),
                um(1, "um", 60000, 120000, 0, 144000),
                um(2, "um", 70000, 140000, 0, 144000),
                um(1, "umc", 80000, 420000, 2, 9000),
                run("switch_run", "none", 1000000, 1000),
                run("switch_run", "cswitch", 1300000, 1000))
        text = bench_stats.libntkl_table(r)
        # (60000 - 10000) / 1000 = 50 ns per event on the writer at the min,
        # the median of 60000 and 70000 their mean: 55; CPU 100 and 110
        self.assertRegex(text, r"libntkl +50 \| +55 +100 \| +110 +144\.0 +0")
        self.assertRegex(text, r"libntkl compressed +70 \| +70 +400 \| +400 +9\.0 +2")
        # the kernel logger: 300,000 ns over 1000 switches
        self.assertRegex(text, r"ntkl CSWITCH \(kernel\) +300 \| +300")
        self.assertEqual(bench_stats.libntkl_table(raw()), "")
        self.assertEqual(bench_stats.kernel_event_cost(raw()), None)

    def test_spin_target_and_stacks(self):
        r = raw(lock("none", 1000000, 0), lock("spinlock", 1050000, 100),
                lock("tracecmd", 1100000, 100), lock("tracecmdT", 2000000, 100))
        text = bench_stats.spin_table(r)
        # 500 ns a contention against trace-cmd's 1000: 0.5, within 0.6
        self.assertIn("SPINLOCK adds <= 0.6x trace-cmd lock events  met (0.50)", text)
        # -T: 10,000 ns a contention, 10x trace-cmd without
        self.assertRegex(text, r"trace-cmd lock events -T .* 10000 \| 10000 +10.00 \| 10.00")

    def test_scale(self):
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250), ("ntkl64", 1700),
                      ("perf", 1300), ("probe", 1005), ("bpf", 1020)):
            lines.append(run("peer_run", m, ns, 10))
            lines.append(j("peer_lost", round=1, mode=m, lost=3 if m == "perf" else 0))
        for m, ns in (("none", 1000), ("tracecmd", 1500)):
            lines.append(run("switch_run", m, ns, 10))
        r = raw(*lines)
        text = bench_stats.scale_table(r)
        # one logger adds 10 ns a switch, 8 add 25 (2.5x), 64 add 70 (7x)
        self.assertRegex(text, r"8 loggers +25 \| +25 +2.50 \| 2.50 +0.50 \| 0.50 +0")
        self.assertIn("target: 8 CSWITCH loggers <= 2x one (median)         NOT met (2.50)", text)
        self.assertIn("target: 64 CSWITCH loggers <= 6x one (median)        NOT met (7.00)", text)
        self.assertNotIn("COMPACT", text)
        self.assertRegex(text, r"perf record sched_switch +30 \| +30 +- +0.60 \| 0.60 +3")
        # the floor: 0.5 ns and 2 ns a switch, against trace-cmd's 50
        self.assertRegex(text, r"empty sched_switch probe +0 \| +0 +- +0.01 \| 0.01 +0")
        self.assertRegex(text, r"BPF counter \(raw tracepoint\) +2 \| +2 +- +0.04 \| 0.04 +0")
        self.assertLess(text.index("empty sched_switch probe"),
                        text.index("ntkl CSWITCH, 1 logger"))
        self.assertNotIn("BPF counter counted", text)
        r = raw(*(lines + [j("bpf_count", round=1, switches=990, ctxt=1000),
                           j("bpf_count", round=2, switches=1000, ctxt=1000)]))
        self.assertIn("the BPF counter counted 1990 switches; /proc/stat ctxt meanwhile 2000: "
                      "0.99)", bench_stats.scale_table(r))
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: perf record sched_switch 3\n")
        self.assertIn("cost is the pingpong table's", bench_stats.scale_table(r))
        # with trace-cmd runs of its own, the ratios are to those
        r = raw(*(lines + [run("peer_run", "tracecmd", 1200, 10),
                           j("peer_lost", round=1, mode="tracecmd", lost=2)]))
        text = bench_stats.scale_table(r)
        self.assertIn("cost is from this table's runs", text)
        self.assertRegex(text, r"trace-cmd sched_switch +20 \| +20 +- +1.00 \| 1.00 +2")
        self.assertRegex(text, r"perf record sched_switch +30 \| +30 +- +1.50 \| 1.50 +3")
        self.assertIn("trace-cmd sched_switch 2", bench_stats.lost_line(r))
        self.assertEqual(bench_stats.scale_table(raw()), "")
        self.assertIn("none, by any recorder", bench_stats.lost_line(raw()))

    def test_scale_peers(self):
        """8 trace-cmds and 8 perf records, against one of each and 8 loggers."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250), ("tracecmd", 1200),
                      ("tracecmd8", 2600), ("perf", 1300), ("perf8", 3400)):
            lines.append(run("peer_run", m, ns, 10))
        lines.append(j("peer_lost", round=1, mode="tracecmd8", lost=7))
        r = raw(*lines)
        text = bench_stats.scale_table(r)
        # 8 trace-cmds add 160 a switch: 8x one; perf 240 against 30
        self.assertRegex(text, r"trace-cmd, 8 at once +160 \| +160 +8.00 \| 8.00 +8.00 \| 8.00 +7")
        self.assertRegex(text, r"perf record, 8 at once +240 \| +240 +8.00 \| 8.00 +12.00 \| 12.00")
        # 8 loggers add 25: 0.16 of 8 trace-cmds, 0.10 of 8 perf records
        self.assertRegex(text, r"CSWITCH, 8 loggers against trace-cmd, 8 at once \(min \| med\) +"
                               r"0.16 \| 0.16")
        self.assertRegex(text, r"CSWITCH, 8 loggers against perf record, 8 at once \(min \| med\) +"
                               r"0.10 \| 0.10")
        self.assertIn("trace-cmd, 8 at once 7", bench_stats.lost_line(r))
        # without the peers' 8-session runs, no such line
        self.assertNotIn("at once", bench_stats.scale_table(raw(*lines[:4])))

    def test_files_floor(self):
        """The floor of many loggers: fanout's further files against one logger."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("files0", 1120), ("files7", 1190),
                      ("files63", 1750)):
            lines.append(run("peer_run", m, ns, 10))
        text = bench_stats.scale_table(raw(*lines))
        self.assertRegex(text, r"  and copied to 7 more files +19 \| +19 +- ")
        # 7 more files add 7 a switch, 1 each: 8 loggers >= (10 + 7) / 10 one;
        # 63 add 63: 64 loggers >= (10 + 63) / 10
        self.assertIn("floor (med): each of 7 more files copied 1 a switch, "
                      "so 8 loggers with files cost >= 1.70 x one", text)
        self.assertIn("each of 63 more files copied 1 a switch, "
                      "so 64 loggers with files cost >= 7.30 x one", text)
        self.assertNotIn("reflinked", text)
        # without the followed file's own runs, no floor
        self.assertNotIn("floor", bench_stats.scale_table(raw(*(lines[:2] + lines[3:]))))
        # files that share the logger's blocks (xfs): 7 more add 14, 2 each
        lines += [run("peer_run", m, ns, 10) for m, ns in (("clone0", 1105), ("clone7", 1245))]
        text = bench_stats.scale_table(raw(*lines))
        self.assertRegex(text, r"  and reflinked to 7 more files +24 \| +24 +- ")
        self.assertIn("floor (med): each of 7 more files reflinked 2 a switch, "
                      "so 8 loggers sharing them would cost ~ 2.40 x one", text)

    def test_scale_compact(self):
        """COMPACT loggers are measured against one COMPACT logger."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250),
                      ("comp1", 1050), ("comp8", 1090), ("comp64", 1400)):
            lines.append(run("peer_run", m, ns, 10))
        text = bench_stats.scale_table(raw(*lines))
        # one COMPACT logger adds 5 ns a switch, 8 add 9 (1.8x), 64 add 40 (8x)
        self.assertRegex(text, r"ntkl COMPACT, 1 logger +5 \| +5 +- ")
        self.assertRegex(text, r"ntkl COMPACT, 8 loggers +9 \| +9 +1.80 \| 1.80 ")
        self.assertRegex(text, r"ntkl COMPACT, 64 loggers +40 \| +40 +8.00 \| 8.00 ")
        self.assertIn("target: 8 COMPACT loggers <= 2x one (median)         met (1.80)", text)
        self.assertIn("target: 64 COMPACT loggers <= 6x one (median)        NOT met (8.00)",
                      text)
        # CSWITCH's own: 25 over 10, not over COMPACT's 5
        self.assertIn("target: 8 CSWITCH loggers <= 2x one (median)         NOT met (2.50)", text)
        self.assertLess(text.index("COMPACT, 64 loggers"), text.index("target: 8 CSWITCH"))

    def test_scale_split(self):
        """Record and writer apart: the no-writer (-buffering) runs."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1440), ("ntkl64", 3900),
                      ("buf1", 1060), ("buf8", 1200), ("buf64", 1690)):
            lines.append(run("peer_run", m, ns, 10))
        text = bench_stats.scale_table(raw(*lines))
        # 1 logger: 6 its record, 4 its writer; 8: (20 - 6) / 7 and (44 - 20) / 8;
        # 64: (69 - 6) / 63 and (290 - 69) / 64
        self.assertIn("1 logger: its record 6 | 6, its writer 4 | 4", text)
        self.assertIn("each of 8 loggers beyond the first: its record 2 | 2, its writer 3 | 3",
                      text)
        self.assertIn("each of 64 loggers beyond the first: its record 1 | 1, "
                      "its writer 3 | 3", text)
        self.assertRegex(text, r"the same, no writer, 8 +20 \| +20 +- ")
        # no no-writer runs (an older raw output): no split
        self.assertNotIn("where it goes", bench_stats.scale_table(raw(*lines[:3])))

    def test_storage(self):
        """The cost per file operation and per block request, ntkl against
        trace-cmd, and the check of ntkl's Read records."""
        def st(io, mode, ns, rep=1, **extra):
            return j("storage_run", round=1, mode=mode, rep=rep, workload="fileops", io=io,
                     ops=100, cpu=1, ns=ns, **extra)

        def rec(io, mode, ops=200, **extra):
            return j("storage_records", round=1, mode=mode, io=io, ops=ops, **extra)
        lines = [st("file", "none", 100000), st("file", "none", 110000, rep=2),
                 st("file", "fileio", 150000), st("file", "fileio", 160000, rep=2),
                 st("file", "syscalls", 200000), st("file", "syscalls", 210000, rep=2),
                 rec("file", "none", events=0, lost=0),
                 rec("file", "fileio", events=410, lost=0, reads=100, writes=100, ends=200),
                 rec("file", "syscalls", events=400, lost=3),
                 st("nullblk", "none", 50000), st("nullblk", "diskio", 60000),
                 st("nullblk", "block", 80000),
                 rec("nullblk", "diskio", ops=100, events=200, lost=0, reads=100, inits=100),
                 rec("nullblk", "block", ops=100, events=200, lost=0),
                 # the direct runs' time is busyns, not their wall time
                 st("direct", "none", 9000000, busyns=70000),
                 st("direct", "diskio", 9000000, busyns=72000),
                 st("direct", "block", 9000000, busyns=71000),
                 rec("direct", "diskio", ops=100, events=204, lost=0, reads=99, writes=2,
                     inits=102)]
        r = raw(*lines)
        text = bench_stats.storage_table(r)
        # file: 50,000 ns over 100 operations, against trace-cmd's 100,000
        self.assertRegex(text, r"ntkl FILE_IO\+INIT\+FILENAME +[0-9.]+ \| +[0-9.]+ +500 \| +500 +"
                               r"0\.50 \| 0\.50 +2\.05 +0")
        self.assertRegex(text, r"trace-cmd pread/pwrite sys +[0-9.]+ \| +[0-9.]+ +"
                               r"1000 \| +1000 +- +2\.00 +3")
        self.assertIn("untraced runs spread by 50 ns per operation", text)
        self.assertIn("Read 100, Write 100, OperationEnd 200, 410 in all", text)
        # null_blk: 100 ns a request against 300
        self.assertRegex(text, r"ntkl DISK_IO\+DISK_IO_INIT +[0-9.]+ \| +[0-9.]+ +100 \| +100 +"
                               r"0\.33 \| 0\.33 +2\.00 +0")
        self.assertIn("DiskIo records over 100 reads: Read 100 (= the reads done)", text)
        # the virtio disk: busy 20 and 10 ns a request
        self.assertRegex(text, r"busy ms min \| med")
        self.assertRegex(text, r"ntkl DISK_IO\+DISK_IO_INIT +[0-9.]+ \| +[0-9.]+ +20 \| +20 +"
                               r"2\.00 \| 2\.00 +2\.04 +0")
        self.assertIn("Read 99 (NOT the reads done), Write 2, Init 102", text)
        self.assertLess(text.index("null_blk"), text.index("virtio"))
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: trace-cmd pread/pwrite sys (storage) 3\n")
        self.assertEqual(bench_stats.storage_table(raw(j("note", text="nothing"))), "")

    def test_events(self):
        """The cost per event of a producer, ntkl against trace-cmd: per
        operation, per event kept, and what each lost."""
        def ev(mode, ns, rep=1):
            return j("events_run", round=1, mode=mode, rep=rep, workload="eventmix",
                     family="syscalls", ops=1000, cpu=1, ns=ns)

        def rec(mode, **extra):
            return j("events_records", round=1, mode=mode, family="syscalls", ops=2000, **extra)
        lines = [ev("none", 1000000), ev("none", 1100000, rep=2),
                 ev("ntkl", 1200000), ev("ntkl", 1300000, rep=2),
                 ev("tracecmd", 1800000), ev("tracecmd", 1900000, rep=2),
                 rec("none", events=0, lost=0), rec("ntkl", events=4000, lost=0),
                 rec("tracecmd", events=4000, lost=7)]
        r = raw(*lines)
        text = bench_stats.events_table(r)
        self.assertIn("Events, syscalls: eventmix pinned to CPU 1, 1000 getppid() calls a run",
                      text)
        # 200 ns an operation against 800: 0.25; two events an operation, 100 ns each
        self.assertRegex(text, r"ntkl SYSCALL +1\.2 \| +1\.2 +200 \| +200 +0\.25 \| 0\.25 +"
                               r"2\.00 +100 +0")
        self.assertRegex(text, r"trace-cmd raw_syscalls +1\.8 \| +1\.9 +800 \| +800 +- +"
                               r"2\.00 +400 +7")
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: tracecmd (events, syscalls) 7\n")
        self.assertEqual(bench_stats.events_table(raw(j("note", text="nothing"))), "")

    def test_golden(self):
        with open(os.path.join(HERE, "testdata", "bench_raw.txt")) as f:
            r = bench_stats.Raw(f)
        with open(os.path.join(HERE, "testdata", "bench_table.txt")) as f:
            want = f.read()
        got = bench_stats.switch_table(r) + bench_stats.spin_table(r) + \
            bench_stats.storage_table(r)
        self.assertEqual(got, want)


if __name__ == "__main__":
    check_lines.run("bench-stats", __name__)
