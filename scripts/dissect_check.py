#!/usr/bin/env python3
"""ntkl's captures through an independent reader: fox-it's dissect.etl.

    dissect_check.py DIR [SAMPLE.etl ...]

DIR holds the captures scripts/test_dissect makes in the test VM, each of
a workload with a known answer (issue 47's acceptance):

    faults.etl    eventmix faults 16384: a 64 MiB anonymous mapping, each
                  page written once, then unmapped (ALL_FAULTS, VIRT_ALLOC)
    tcp.etl       eventmix tcp 2560: 10 MiB in 4 KiB writes over a
                  loopback TCP connection, read by a second thread
                  (NETWORKTRACE)
    tcp6.etl      eventmix tcp6 2560: the same over ::1
    sendfile.etl  busybox cat of a 16 MiB file to /dev/null, which reads
                  it by sendfile(2) (FILE_IO, FILE_IO_INIT, FILENAME)
    syscalls.etl  eventmix syscalls 20000: that many getppid() (SYSCALL)
    general.etl   ntkl record -profile general of eventmix tcp

dissect.etl decodes each record by the kernel MOF classes' templates it
ships (its manifests), with nothing of ntkl's, and this script finds the
known answers in what it decodes. Two checks of every capture besides:

  - every record of a kind dissect has a template for decodes, but the
    kinds dissect cannot decode in Windows' own files either: SystemConfig
    (its AnsiString type is missing) and StackWalk Stack (a fixed-length
    template for a variable number of frames);
  - where a Windows sample (SAMPLE.etl) has records of the same kind and
    version, ours fit dissect's template as Windows' do: no byte more or
    less than it reads (or the same bytes more: Windows' TcpIp records
    carry a connid twice as wide as dissect's), or, where Windows' own
    records run past it by varying lengths (a thread's name after Thread
    v3's fields), never short of it.

Where dissect's template and the layout that TraceEvent and Windows'
samples give disagree, the check reads what both agree on (dissect
decodes win:SizeT as 4 bytes: VirtualAlloc's RegionSize is its low half,
and the fields after it shift; docs/testing.md).

One PASS/FAIL line per check; exit 1 if one failed.
"""
import collections
import os
import sys

from dissect.etl.etl import ETL

PAGE = 4096
FAULT_PAGES = 16384
TCP_BYTES = 2560 * 4096
SENDFILE_BYTES = 16 << 20
SENDFILE_NAME = "/tmp/sendfile.dat"
SYSCALLS = 20000

SYSCONFIG_GROUP = 0x0B
STACKWALK_STACK = 0x1820

failed = False


def report(ok, what):
    global failed
    print(("PASS: dissect " if ok else "FAIL: dissect ") + what)
    if not ok:
        failed = True


class Rec:
    """One record as dissect decoded it: its kind, header and fields."""

    __slots__ = ("symbol", "hook", "version", "payload_len", "template_len",
                 "fields", "header", "error")

    def __init__(self, rec):
        h = rec.header
        self.hook = getattr(h, "hook_id", None)
        self.version = getattr(h, "version", None)
        self.symbol = None
        self.fields = {}
        self.header = {}
        self.template_len = None
        self.error = None
        try:
            self.payload_len = len(h.payload)
            ev = rec.event
            self.header = h.additional_header_fields()
        except Exception as e:  # dissect's own failure, reported per kind
            self.error = f"{type(e).__name__}: {e}"
            return
        self.symbol = ev.symbol()
        if ev._struct is not None:
            # the struct's own mapping (dissect's event_values() wants an
            # older dissect.cstruct's)
            self.fields = dict(ev._struct.__values__)
            self.template_len = len(ev._struct.dumps())


def read(path):
    with open(path, "rb") as f:
        return [Rec(r) for r in ETL(f)]


def kind(r):
    return f"{r.symbol or hex(r.hook or 0)} v{r.version}"


def check_decodes(name, recs):
    """Every record of a kind with a template decodes."""
    bad = collections.Counter()
    for r in recs:
        if r.error is None:
            continue
        if r.hook is not None and (r.hook >> 8 == SYSCONFIG_GROUP or r.hook == STACKWALK_STACK):
            continue
        bad[(hex(r.hook or 0), r.version, r.error[:60])] += 1
    n = sum(1 for r in recs if r.template_len is not None)
    report(not bad, f"{name}: {len(recs)} records read, {n} decoded by a template"
           + ("" if not bad else "; not decoded: " +
              ", ".join(f"{v} of {k[0]} v{k[1]} ({k[2]})" for k, v in bad.most_common(5))))


def fits(recs):
    """Per kind with a template: the set of payload bytes past it (negative: short)."""
    out = collections.defaultdict(set)
    for r in recs:
        if r.template_len is not None:
            out[(r.symbol, r.version)].add(r.payload_len - r.template_len)
    return out


def check_fit(name, recs, windows):
    ours = fits(recs)
    shared = sorted(k for k in ours if k in windows)
    bad = []
    for k in shared:
        w, o = windows[k], ours[k]
        if len(w) == 1:
            ok = o == w
        else:
            ok = min(o) >= 0
        if not ok:
            bad.append(f"{k[0]} v{k[1]}: ours {sorted(o)[:4]} bytes past the template, "
                       f"Windows' {sorted(w)[:4]}")
    report(not bad, f"{name}: {len(shared)} kinds that Windows' samples have fit dissect's "
           "templates as Windows' records do" + ("" if not bad else ": " + "; ".join(bad)))


def pid_of(recs, image):
    """The process that ran image (its last Process Start: exec after fork)."""
    pids = [r.fields.get("ProcessId") for r in recs if r.symbol == "Process/Start" and
            r.fields.get("ImageFileName") in (image.encode(), image)]
    return pids[-1] if pids else None


def check_faults(recs):
    pid = pid_of(recs, "eventmix")
    size = FAULT_PAGES * PAGE
    # RegionSize is a SizeT: dissect reads its low 4 bytes, enough for 64 MiB
    allocs = [r for r in recs if r.symbol == "PageFault/VirtualAlloc" and
              r.fields.get("RegionSize") == size]
    frees = [r for r in recs if r.symbol == "PageFault/VirtualFree" and
             r.fields.get("RegionSize") == size]
    report(len(allocs) == 1 and len(frees) == 1 and pid is not None and
           allocs[0].fields["BaseAddress"] == frees[0].fields["BaseAddress"],
           f"faults.etl: one VirtualAlloc and one VirtualFree of the 64 MiB region "
           f"(found {len(allocs)} and {len(frees)}; eventmix's process {pid})")
    if not allocs:
        return
    base = allocs[0].fields["BaseAddress"]
    pages = collections.Counter()
    other = 0
    for r in recs:
        if r.symbol != "PageFault/DemandZeroFault":
            continue
        a = r.fields["VirtualAddress"]
        if base <= a < base + size:
            pages[(a - base) // PAGE] += 1
            if r.header.get("ProcessId") != pid:
                other += 1
    report(len(pages) == FAULT_PAGES and max(pages.values()) == 1 and not other,
           f"faults.etl: a DemandZeroFault on each of the region's {FAULT_PAGES} pages, "
           f"once, by eventmix (pages {len(pages)}, most faults on one page "
           f"{max(pages.values()) if pages else 0}, by another process {other})")


def check_tcp(name, recs, v6):
    pid = pid_of(recs, "eventmix")
    ipv = "IPV6" if v6 else "IPV4"

    def by_eventmix(event):
        # IPv4's events have a second name in dissect's older template
        names = (f"TcpIp/{event}{ipv}",) if v6 else (f"TcpIp/{event}IPV4", f"TcpIp/{event}")
        return [r for r in recs if r.symbol in names and r.fields.get("PID") == pid]

    sent = sum(r.fields["size"] for r in by_eventmix("Send"))
    received = sum(r.fields["size"] for r in by_eventmix("Recv"))
    connects, accepts = len(by_eventmix("Connect")), len(by_eventmix("Accept"))
    report(pid is not None and sent == TCP_BYTES and received == TCP_BYTES,
           f"{name}: eventmix's TcpIp Send{ipv} and Recv{ipv} sizes add up to {TCP_BYTES} "
           f"bytes each (sent {sent}, received {received}; process {pid})")
    report(connects == 1 and accepts == 1,
           f"{name}: one Connect{ipv} and one Accept{ipv} by eventmix "
           f"(found {connects} and {accepts})")


def check_sendfile(recs):
    keys = {r.fields["FileObject"] for r in recs
            if r.symbol in ("FileIo/FileCreate", "FileIo/FileRundown") and
            r.fields.get("FileName") == SENDFILE_NAME}
    irps = {r.fields["IrpPtr"] for r in recs
            if r.symbol == "FileIo/Read" and r.fields.get("FileKey") in keys}
    moved = sum(r.fields["ExtraInfo"] for r in recs
                if r.symbol == "FileIo/OperationEnd" and r.fields.get("IrpPtr") in irps)
    report(keys and moved == SENDFILE_BYTES,
           f"sendfile.etl: the FileIo Reads of {SENDFILE_NAME} (by FileKey, its FileCreate's) "
           f"end having moved {SENDFILE_BYTES} bytes (found {len(irps)} reads, {moved} bytes)")


def check_syscalls(recs):
    enters = collections.Counter(r.fields["SysCallAddress"] for r in recs
                                 if r.symbol == "PerfInfo/SysClEnter")
    exits = sum(1 for r in recs if r.symbol == "PerfInfo/SysClExit")
    top = enters.most_common(1)[0][1] if enters else 0
    report(top >= SYSCALLS and exits >= SYSCALLS,
           f"syscalls.etl: at least {SYSCALLS} SysClEnter of one routine (getppid's) and "
           f"as many SysClExit (found {top} and {exits})")


def main():
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    d = sys.argv[1]
    windows = collections.defaultdict(set)
    samples = [s for s in sys.argv[2:] if os.path.exists(s)]
    for s in samples:
        for k, v in fits(read(s)).items():
            windows[k] |= v
    checks = {"faults.etl": check_faults,
              "tcp.etl": lambda recs: check_tcp("tcp.etl", recs, False),
              "tcp6.etl": lambda recs: check_tcp("tcp6.etl", recs, True),
              "sendfile.etl": check_sendfile, "syscalls.etl": check_syscalls,
              "general.etl": None}
    for name, check in checks.items():
        path = os.path.join(d, name)
        if not os.path.exists(path):
            report(False, f"{name}: not captured")
            continue
        recs = read(path)
        check_decodes(name, recs)
        if samples:
            check_fit(name, recs, windows)
        if check:
            check(recs)
    if not samples:
        print("SKIP: dissect template fit against Windows' records: no Windows sample "
              "(../shared/etl-samples) beside this clone")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
