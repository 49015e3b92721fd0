#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench_stats.py, one "PASS: bench-stats <case>" or
"FAIL: bench-stats <case>: why" line per case (scripts/check counts them).

The golden case: scripts/testdata/bench_raw.txt is a raw output of the
form ntkl-bench prints, and bench_table.txt the table the former awk
statistics of scripts/bench printed for it, so the figures make bench
prints did not change when they moved here."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_stats  # noqa: E402
import check_lines  # noqa: E402


def raw(*lines):
    return bench_stats.Raw(lines)


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

    def test_fields(self):
        self.assertEqual(bench_stats.fields("W round=1 mode=none =x a=b=c"),
                         {"round": "1", "mode": "none", "a": "b=c"})
        self.assertEqual(bench_stats.number("12"), 12)
        self.assertEqual(bench_stats.number("1.5"), 1.5)
        self.assertEqual(bench_stats.number(None), 0)


class Parsing(unittest.TestCase):
    def test_runs_totals_and_max_rate(self):
        r = raw("# ntkl-bench: k, 4 CPUs",
                "W round=1 mode=none rep=1 pingpong ns=100 ctxt=10",
                "W round=1 mode=none rep=2 pingpong ns=120 ctxt=12",
                "F round=1 mode=cswitch switches=10 evbytes=400 filebytes=500 rawbytes=0 lost=1",
                "F round=2 mode=cswitch switches=20 evbytes=800 filebytes=900 rawbytes=0 lost=2",
                "X mode=compact pingpong ns=5 x pingpong ns=9",
                "F round=max mode=compact switches=7 lost=3",
                "# ntkl-bench: done")
        self.assertEqual(r.header, "k, 4 CPUs")
        self.assertEqual(r.workloads, ["pingpong"])
        self.assertEqual(r.runs["pingpong", "none", "ns"], [100, 120])
        self.assertEqual(r.totals["cswitch"]["switches"], 30)
        self.assertEqual(r.totals["cswitch"]["lost"], 3)
        self.assertEqual(r.max_ns["compact"], 9)
        self.assertEqual(r.max_rate["compact"], {"switches": 7, "lost": 3})


class Tables(unittest.TestCase):
    def workload(self, tracecmd_ns):
        lines = ["# ntkl-bench: k"]
        for m, ns in (("none", [1000, 1500]), ("cswitch", [1100, 1600]),
                      ("compact", [1050, 1550]), ("tracecmd", tracecmd_ns)):
            for i, t in enumerate(ns):
                lines.append("W round=1 mode=%s rep=%d wl ns=%d ctxt=10" % (m, i, t))
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
        r2 = raw("W round=1 mode=cswstack rep=0 wl ns=1400 ctxt=10",
                 "W round=1 mode=cswstack rep=1 wl ns=1900 ctxt=10")
        for k, v in r2.runs.items():
            r.runs.setdefault(k, []).extend(v)
        text = bench_stats.switch_table(r)
        # CSWITCH adds 10 ns per switch, with stacks 40: 30 per stack
        self.assertIn("ntkl CSWITCH+stacks", text)
        self.assertIn("cost per CSwitch stack", text)
        self.assertRegex(text, r"cost per CSwitch stack +30 \| +30")

    def test_within_noise(self):
        # untraced spread (1500 - 1000) / 10 = 50 ns; trace-cmd adds 20: noise
        text = bench_stats.switch_table(self.workload([1200, 1700]))
        self.assertIn("unknown: within noise", text)

    def test_no_trace_cmd_cost(self):
        text = bench_stats.switch_table(self.workload([1000, 1500]))
        self.assertIn("unknown: trace-cmd added no measurable cost", text)

    def test_spin_per_contention(self):
        r = raw("L round=1 mode=none rounds=100 ns=1000000 records=0 lost=0",
                "L round=1 mode=spinlock rounds=100 ns=1200000 records=100 lost=0",
                "L round=1 mode=tracecmd rounds=100 ns=1100000 records=100 lost=0")
        text = bench_stats.spin_table(r)
        # 200,000 ns over 100 contentions: 2000 ns each, twice trace-cmd's 1000
        self.assertIn("2000 | 2000      2.00 |  2.00", text)
        self.assertNotIn("contend", text)

    def test_sample_cost(self):
        r = raw("P round=1 mode=none rep=1 pingpong ns=1000000",
                "P round=1 mode=none rep=2 pingpong ns=1000000",
                "P round=1 mode=profile rep=1 pingpong ns=1100000",
                "P round=1 mode=profile rep=2 pingpong ns=1100000",
                "Q round=1 samples=40")
        text = bench_stats.profile_table(r)
        # 100,000 ns more per run, 20 samples a run: 5000 ns a sample; a Q
        # line without a mode is ntkl PROFILE's
        self.assertRegex(text, r"ntkl PROFILE +1\.1 \| +1\.1 +20 +5000 \| +5000 +0")
        self.assertNotIn("vs perf", text)
        self.assertEqual(bench_stats.profile_table(raw("# nothing")), "")

    def test_sample_cost_against_perf(self):
        lines = ["P round=1 mode=none rep=1 pingpong ns=1000000"]
        # (mode, ns per run, samples on CPU 1 over the round's 2 runs, lost)
        for m, ns, samples, lost in (("profile", 1100000, 40, 0),
                                     ("profstack", 1400000, 40, 0),
                                     ("perf", 1200000, 40, 0),
                                     ("perfg", 1800000, 32, 5)):
            lines += ["P round=1 mode=%s rep=%d pingpong ns=%d" % (m, i, ns) for i in (1, 2)]
            lines.append("Q round=1 mode=%s samples=%d lost=%d" % (m, samples, lost))
        r = raw(*lines)
        text = bench_stats.profile_table(r)
        # perf: 200,000 ns over 20 samples; -g: 800,000 over 16
        self.assertRegex(text, r"ntkl PROFILE\+stacks +1\.4 \| +1\.4 +20 +20000 \| +20000 +0")
        self.assertRegex(text, r"perf record +1\.2 \| +1\.2 +20 +10000 \| +10000 +0")
        self.assertRegex(text, r"perf record -g +1\.8 \| +1\.8 +16 +50000 \| +50000 +5")
        self.assertRegex(text, r"ntkl PROFILE vs perf record, per sample .* 0\.50 \| 0\.50")
        self.assertRegex(text, r"ntkl PROFILE\+stacks vs perf record -g, .* 0\.40 \| 0\.40")
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: perf record -g (profile) 5\n")

    def test_libntkl_cost(self):
        r = raw("U round=1 mode=none events=1000 ns=10000 cpu=20000 lost=0 bytes=0",
                "U round=1 mode=um events=1000 ns=60000 cpu=120000 lost=0 bytes=144000",
                "U round=2 mode=um events=1000 ns=70000 cpu=140000 lost=0 bytes=144000",
                "U round=1 mode=umc events=1000 ns=80000 cpu=420000 lost=2 bytes=9000",
                "W round=1 mode=none rep=1 pingpong ns=1000000 ctxt=1000",
                "W round=1 mode=cswitch rep=1 pingpong ns=1300000 ctxt=1000")
        text = bench_stats.libntkl_table(r)
        # (60000 - 10000) / 1000 = 50 ns per event on the writer at the min,
        # the median of 60000 and 70000 their mean: 55; CPU 100 and 110
        self.assertRegex(text, r"libntkl +50 \| +55 +100 \| +110 +144\.0 +0")
        self.assertRegex(text, r"libntkl compressed +70 \| +70 +400 \| +400 +9\.0 +2")
        # the kernel logger: 300,000 ns over 1000 switches
        self.assertRegex(text, r"ntkl CSWITCH \(kernel\) +300 \| +300")
        self.assertEqual(bench_stats.libntkl_table(raw("# nothing")), "")
        self.assertEqual(bench_stats.kernel_event_cost(raw("# nothing")), None)
    def test_spin_target_and_stacks(self):
        r = raw("L round=1 mode=none rounds=100 ns=1000000 records=0 lost=0",
                "L round=1 mode=spinlock rounds=100 ns=1050000 records=100 lost=0",
                "L round=1 mode=tracecmd rounds=100 ns=1100000 records=100 lost=0",
                "L round=1 mode=tracecmdT rounds=100 ns=2000000 records=100 lost=0")
        text = bench_stats.spin_table(r)
        # 500 ns a contention against trace-cmd's 1000: 0.5, within 0.6
        self.assertIn("SPINLOCK adds <= 0.6x trace-cmd lock events  met (0.50)", text)
        # -T: 10,000 ns a contention, 10x trace-cmd without
        self.assertRegex(text, r"trace-cmd lock events -T .* 10000 \| 10000 +10.00 \| 10.00")

    def test_scale(self):
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250), ("ntkl64", 1700),
                      ("perf", 1300), ("probe", 1005), ("bpf", 1020)):
            lines.append("K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
            lines.append("KF round=1 mode=%s lost=%d" % (m, 3 if m == "perf" else 0))
        for m, ns in (("none", 1000), ("tracecmd", 1500)):
            lines.append("W round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
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
        r = raw(*(lines + ["KB round=1 switches=990 ctxt=1000",
                           "KB round=2 switches=1000 ctxt=1000"]))
        self.assertIn("the BPF counter counted 1990 switches; /proc/stat ctxt meanwhile 2000: "
                      "0.99)", bench_stats.scale_table(r))
        self.assertEqual(bench_stats.lost_line(r),
                         "\nEvents lost: perf record sched_switch 3\n")
        self.assertIn("cost is the pingpong table's", bench_stats.scale_table(r))
        # with trace-cmd runs of its own, the ratios are to those
        r = raw(*(lines + ["K round=1 mode=tracecmd rep=1 pingpong ns=1200 ctxt=10",
                           "KF round=1 mode=tracecmd lost=2"]))
        text = bench_stats.scale_table(r)
        self.assertIn("cost is from this table's runs", text)
        self.assertRegex(text, r"trace-cmd sched_switch +20 \| +20 +- +1.00 \| 1.00 +2")
        self.assertRegex(text, r"perf record sched_switch +30 \| +30 +- +1.50 \| 1.50 +3")
        self.assertIn("trace-cmd sched_switch 2", bench_stats.lost_line(r))
        self.assertEqual(bench_stats.scale_table(raw("# nothing")), "")
        self.assertIn("none, by any recorder", bench_stats.lost_line(raw("# nothing")))

    def test_scale_peers(self):
        """8 trace-cmds and 8 perf records, against one of each and 8 loggers."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250), ("tracecmd", 1200),
                      ("tracecmd8", 2600), ("perf", 1300), ("perf8", 3400)):
            lines.append("K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
        lines.append("KF round=1 mode=tracecmd8 lost=7")
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
            lines.append("K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
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
        lines += ["K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns)
                  for m, ns in (("clone0", 1105), ("clone7", 1245))]
        text = bench_stats.scale_table(raw(*lines))
        self.assertRegex(text, r"  and reflinked to 7 more files +24 \| +24 +- ")
        self.assertIn("floor (med): each of 7 more files reflinked 2 a switch, "
                      "so 8 loggers sharing them would cost ~ 2.40 x one", text)

    def test_scale_compact(self):
        """COMPACT loggers are measured against one COMPACT logger."""
        lines = []
        for m, ns in (("none", 1000), ("ntkl1", 1100), ("ntkl8", 1250),
                      ("comp1", 1050), ("comp8", 1090), ("comp64", 1400)):
            lines.append("K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
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
            lines.append("K round=1 mode=%s rep=1 pingpong ns=%d ctxt=10" % (m, ns))
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

    def test_golden(self):
        with open(os.path.join(HERE, "testdata", "bench_raw.txt")) as f:
            r = bench_stats.Raw(f)
        with open(os.path.join(HERE, "testdata", "bench_table.txt")) as f:
            want = f.read()
        got = bench_stats.switch_table(r) + bench_stats.spin_table(r)
        self.assertEqual(got, want)


if __name__ == "__main__":
    check_lines.run("bench-stats", __name__)
