#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest instructions per kernel function, from scripts/insn-profile's
windows (the qemu plugin's "address length executions" lines) and the
guest's /proc/kallsyms.

  insn_profile.py --kallsyms FILE [--per N] [--top N] WINDOW...

A block counts for the function whose symbol is the nearest at or below
its address (a module's as "name [module]"); user-space blocks count as
[user]. With one window, its busiest functions; with several, each
window's column and its difference from the first (the baseline, say a
run with nothing recording), ordered by the largest difference. --per N
divides every figure by N (the context switches a window made, say)."""
import argparse
import bisect
import collections
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


def fmt(v):
    return "{:,.1f}".format(v) if v != int(v) else "{:,}".format(int(v))


def report(windows, per=1, top=30):
    """The table's lines: a header, a total row, then a row per function."""
    names = ["w%d" % i for i in range(len(windows))]
    cols = [names[0]]
    for n in names[1:]:
        cols += [n, n + "-w0"]
    out = ["%-44s %s" % ("function", " ".join("%12s" % c for c in cols))]

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
    ap.add_argument("windows", nargs="+")
    a = ap.parse_args(argv)
    if a.per <= 0:
        ap.error("--per must be above 0")
    with open(a.kallsyms) as f:
        symbols = Symbols(f)
    windows = []
    for path in a.windows:
        with open(path) as f:
            windows.append(window(f, symbols))
    print("\n".join(report(windows, a.per, a.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
