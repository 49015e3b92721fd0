#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest instructions per kernel function, from scripts/insn-profile's
windows (the qemu plugin's "address length executions" lines) and the
guest's /proc/kallsyms.

  insn_profile.py --kallsyms FILE [--per N] [--top N]
                  [--inside FUNC --disassembly FILE] WINDOW...

A block counts for the function whose symbol is the nearest at or below
its address (a module's as "name [module]"); user-space blocks count as
[user]. With one window, its busiest functions; with several, each
window's column and its difference from the first (the baseline, say a
run with nothing recording), ordered by the largest difference. --per N
divides every figure by N (the context switches a window made, say).

--inside FUNC takes one function apart: its instructions per source
function inlined into it (the probe's clock, its reservation, its record),
read from FILE, FUNC's disassembly with line numbers (objdump -d -l
--no-show-raw-insn --disassemble=FUNC of its object), and by the same
columns. An instruction counts for the innermost function objdump names
for it; FUNC's own lines (its prologue, tests, epilogue) as FUNC."""
import argparse
import bisect
import collections
import re
import sys

USER = "[user]"
KERNEL_START = 0xffff800000000000


class Symbols:
    """Text symbols of a /proc/kallsyms, for address lookups."""

    def __init__(self, lines):
        syms = []
        for line in lines:
            f = line.split()
            if len(f) < 3 or f[1] not in "tTwW":
                continue
            name = f[2] + (" " + f[3] if len(f) > 3 else "")
            syms.append((int(f[0], 16), name))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, addr):
        if addr < KERNEL_START:
            return USER
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else "[unknown kernel]"


def window(lines, symbols):
    """Instructions per function of one window file."""
    per = collections.Counter()
    for line in lines:
        if not line.strip():
            continue
        try:
            addr, insns, execs = (int(v, b) for v, b in zip(line.split(), (16, 10, 10), strict=True))
        except ValueError:
            raise ValueError("not a window line: %r" % line) from None
        per[symbols.name(addr)] += insns * execs
    return per


def disassembly(lines):
    """FUNC's instructions from objdump -d -l output: {offset from the
    function's start: the innermost function inlined there}, in order."""
    func_re = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
    inline_re = re.compile(r"^([A-Za-z_][\w.]*)\(\):$")
    insn_re = re.compile(r"^\s+([0-9a-f]+):\s")
    start = None
    where = None
    insns = {}
    for line in lines:
        line = line.rstrip("\n")
        m = func_re.match(line)
        if m:
            if start is not None:
                break           # one function only: the first
            start = int(m.group(1), 16)
            where = m.group(2)
            continue
        if start is None:
            continue
        m = inline_re.match(line)
        if m:
            where = m.group(1)
            continue
        m = insn_re.match(line)
        if m:
            insns[int(m.group(1), 16) - start] = where
    if start is None:
        raise ValueError("no function in the disassembly")
    return insns


def inside(lines, symbols, func, insns):
    """Instructions of one window per function inlined into func."""
    starts = [a for a, n in zip(symbols.addrs, symbols.names) if n.split()[0] == func]
    if not starts:
        raise ValueError("%s is not in kallsyms" % func)
    start = starts[-1]                    # a module's, which follows the kernel's
    i = symbols.addrs.index(start)
    end = symbols.addrs[i + 1] if i + 1 < len(symbols.addrs) else start + max(insns) + 1
    offsets = sorted(insns)
    per = collections.Counter()
    for line in lines:
        if not line.strip():
            continue
        addr, n, execs = (int(v, b) for v, b in zip(line.split(), (16, 10, 10)))
        if not start <= addr < end:
            continue
        k = bisect.bisect_left(offsets, addr - start)
        if k + n > len(offsets) or offsets[k] != addr - start:
            raise ValueError("a block at %s+%#x is not on an instruction of the disassembly"
                             " (the object is not the one the guest ran?)" % (func, addr - start))
        for off in offsets[k:k + n]:
            per[insns[off]] += execs
    return per


def fmt(v):
    return "{:,.1f}".format(v) if v != int(v) else "{:,}".format(int(v))


def report(windows, per=1, top=30, title="function"):
    """The table's lines: a header, a total row, then a row per function."""
    names = ["w%d" % i for i in range(len(windows))]
    cols = [names[0]]
    for n in names[1:]:
        cols += [n, n + "-w0"]
    out = ["%-44s %s" % (title, " ".join("%12s" % c for c in cols))]

    def row(label, values):
        cells = [values[0]]
        for v in values[1:]:
            cells += [v, v - values[0]]
        return "%-44s %s" % (label[:44], " ".join("%12s" % fmt(round(c / per, 1))
                                                 for c in cells))

    out.append(row("total", [sum(w.values()) for w in windows]))
    funcs = set().union(*windows)
    if len(windows) == 1:
        key = lambda f: -windows[0][f]  # noqa: E731
    else:
        key = lambda f: -max(abs(w[f] - windows[0][f]) for w in windows[1:])  # noqa: E731
    for f in sorted(funcs, key=lambda f: (key(f), f))[:top]:
        out.append(row(f, [w[f] for w in windows]))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kallsyms", required=True)
    ap.add_argument("--per", type=float, default=1)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--inside", metavar="FUNC")
    ap.add_argument("--disassembly", metavar="FILE")
    ap.add_argument("windows", nargs="+")
    a = ap.parse_args(argv)
    if a.per <= 0:
        ap.error("--per must be above 0")
    if bool(a.inside) != bool(a.disassembly):
        ap.error("--inside and --disassembly go together")
    with open(a.kallsyms) as f:
        symbols = Symbols(f)
    windows = []
    for path in a.windows:
        with open(path) as f:
            windows.append(window(f, symbols))
    print("\n".join(report(windows, a.per, a.top)))
    if a.inside:
        with open(a.disassembly) as f:
            insns = disassembly(f)
        parts = []
        for path in a.windows:
            with open(path) as f:
                parts.append(inside(f, symbols, a.inside, insns))
        print()
        print("\n".join(report(parts, a.per, a.top, "inside " + a.inside)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
