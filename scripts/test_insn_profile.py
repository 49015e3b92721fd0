#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/insn-profile's parts, one "PASS: insn-profile
<case>" or "FAIL: insn-profile <case>: why" line per case (scripts/check
counts them): the report (scripts/insn_profile.py) on synthetic windows,
and the qemu plugin (scripts/insn_profile_plugin.c) compiled and checked
for the two symbols qemu looks for. Running it needs the test VM:
scripts/insn-profile's own example."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_lines  # noqa: E402
import insn_profile  # noqa: E402

KALLSYMS = """\
ffffffff81000000 T _stext
ffffffff81001000 T __schedule
ffffffff81002000 t psi_group_change
ffffffff81003000 D some_data
ffffffffc0001000 t ntkl_probe_sched_switch\t[ntkl]
ffffffffc0002000 t emit_batch\t[ntkl]
""".splitlines()


class Report(unittest.TestCase):
    def setUp(self):
        self.sym = insn_profile.Symbols(KALLSYMS)

    def test_attribution(self):
        self.assertEqual(self.sym.name(0xffffffff81001000), "__schedule")
        self.assertEqual(self.sym.name(0xffffffff81001fff), "__schedule")
        # data symbols do not end a function
        self.assertEqual(self.sym.name(0xffffffff81003010), "psi_group_change")
        self.assertEqual(self.sym.name(0xffffffffc0001040), "ntkl_probe_sched_switch [ntkl]")
        self.assertEqual(self.sym.name(0x401000), "[user]")
        self.assertEqual(self.sym.name(0xffff888000000000), "[unknown kernel]")

    def test_window_is_length_times_executions(self):
        w = insn_profile.window(["ffffffff81001000 10 3", "ffffffff81001040 2 5",
                                 "0000000000401000 4 1", ""], self.sym)
        self.assertEqual(w["__schedule"], 40)
        self.assertEqual(w["[user]"], 4)
        for bad in ("ffffffff81001000 10", "ffffffff81001000 ten 3", "a b c d"):
            with self.assertRaisesRegex(ValueError, "not a window line"):
                insn_profile.window([bad], self.sym)

    def test_report_differences_per_n(self):
        base = insn_profile.window(["ffffffff81001000 10 4"], self.sym)
        run = insn_profile.window(["ffffffff81001000 10 5", "ffffffffc0001000 20 2",
                                   "ffffffff81002000 1 2"], self.sym)
        lines = insn_profile.report([base, run], per=2, top=10)
        self.assertEqual(lines[0].split(), ["function", "w0", "w1", "w1-w0"])
        # (10 x 5 + 20 x 2 + 1 x 2) / 2 = 46 against 10 x 4 / 2 = 20
        self.assertEqual(lines[1].split(), ["total", "20", "46", "26"])
        # the largest difference first: the probe's 40 / 2, then __schedule's 10 / 2
        self.assertEqual(lines[2].split(), ["ntkl_probe_sched_switch", "[ntkl]", "0", "20", "20"])
        self.assertEqual(lines[3].split(), ["__schedule", "20", "25", "5"])
        self.assertEqual(len(insn_profile.report([base, run], top=1)), 3)

    def test_one_window_busiest_first(self):
        w = insn_profile.window(["ffffffff81001000 3 1", "ffffffff81002000 1 7"], self.sym)
        lines = insn_profile.report([w])
        self.assertEqual([ln.split()[0] for ln in lines[1:]],
                         ["total", "psi_group_change", "__schedule"])

    def test_per_must_be_positive(self):
        with tempfile.NamedTemporaryFile("w") as k, open(os.devnull, "w") as null:
            err, sys.stderr = sys.stderr, null
            try:
                with self.assertRaises(SystemExit):
                    insn_profile.main(["--kallsyms", k.name, "--per", "0", k.name])
            finally:
                sys.stderr = err


# objdump -d -l --no-show-raw-insn --disassemble=emit_batch, as it prints
# an inlined function's lines: its name, then its source lines
DISASSEMBLY = """\

ntkl.ko:     file format elf64-x86-64

Disassembly of section .text:

0000000000001000 <emit_batch>:
emit_batch():
/src/module/producers/cswitch.c:80
    1000:\tendbr64
    1004:\tpush   %rbx
ntkl_clock_qpc():
/src/module/transport/clock.h:67
    1005:\tmov    0x0(%rip),%edi        # 100b <emit_batch+0xb>
rdtsc():
/usr/src/linux/arch/x86/include/asm/msr.h:217
    100b:\trdtsc
emit_batch():
/src/module/producers/cswitch.c:90
    100d:\tpop    %rbx
    100e:\tret
""".splitlines()


class Inside(unittest.TestCase):
    def setUp(self):
        self.sym = insn_profile.Symbols(KALLSYMS)
        self.insns = insn_profile.disassembly(DISASSEMBLY)

    def test_innermost_function_per_instruction(self):
        self.assertEqual(self.insns, {0: "emit_batch", 4: "emit_batch", 5: "ntkl_clock_qpc",
                                      0xb: "rdtsc", 0xd: "emit_batch", 0xe: "emit_batch"})

    def test_blocks_counted_per_inlined_function(self):
        # emit_batch is at ffffffffc0002000 in KALLSYMS: a block of 3 from
        # its start run twice, one of 2 from +0xb once; __schedule's not at all
        w = ["ffffffffc0002000 3 2", "ffffffffc000200b 2 1", "ffffffff81001000 10 9"]
        per = insn_profile.inside(w, self.sym, "emit_batch", self.insns)
        self.assertEqual(per, {"emit_batch": 2 * 2 + 1, "ntkl_clock_qpc": 2, "rdtsc": 1})

    def test_a_block_off_the_disassembly_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "not on an instruction"):
            insn_profile.inside(["ffffffffc0002001 1 1"], self.sym, "emit_batch", self.insns)
        with self.assertRaisesRegex(ValueError, "not in kallsyms"):
            insn_profile.inside([], self.sym, "no_such_function", self.insns)
        with self.assertRaisesRegex(ValueError, "no function"):
            insn_profile.disassembly(["nothing here"])


class Plugin(unittest.TestCase):
    def test_builds_with_qemus_entry_points(self):
        cc = shutil.which("cc")
        if not cc:
            self.skipTest("no C compiler")
        with tempfile.TemporaryDirectory() as d:
            so = os.path.join(d, "plugin.so")
            subprocess.run([cc, "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", so,
                            os.path.join(HERE, "insn_profile_plugin.c")], check=True)
            syms = subprocess.run(["nm", "-D", "--defined-only", so], check=True,
                                  capture_output=True, text=True).stdout.split()
        self.assertIn("qemu_plugin_install", syms)
        self.assertIn("qemu_plugin_version", syms)


if __name__ == "__main__":
    check_lines.run("insn-profile", __name__)
