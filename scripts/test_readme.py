#!/usr/bin/env python3
"""README's commands are real, and the docs' links lead somewhere.

    python3 scripts/test_readme.py [NTKL]     (default build/userspace/ntkl)

One PASS/FAIL line per check (make check's `readme` step); exit 1 if one
failed.

- README is at most 150 lines; its commands are in ```sh blocks (no
  indented code blocks, which this test would not see).
- Each line of those blocks (`a && b` is two commands) is run or checked:
  * `ntkl help|dump|report|convert|relog|merge ...` run with NTKL in a
    scratch folder; each .etl it reads that is not there yet is copied
    from userspace/fuzz/seeds/ (libntkl's for a name with "units" or
    "myapp", the compact one for "compact", else ntkl's full one);
  * the other ntkl commands need /dev/ntkl: they run with NTKL_DEVICE
    naming a device that is not there and pass if they fail to open it,
    so everything before (every option) parsed; what follows `--` is
    replaced by `true`;
  * `make [TARGET...]`: each TARGET is a rule of Makefile;
  * `scripts/X ...`: the script exists, and each option given is in its
    --help (or, for a script without --help, in its text);
  * `cc FILE $(pkg-config --cflags --libs libntkl) -o OUT`: FILE builds
    against the build's libntkl.
  `sudo` in front is dropped.
- Each command in README's inline code (`...`) that starts with ntkl,
  scripts/ or make names a real command, script, target and options (not
  run).
- docs/libntkl.md's C example builds, runs and writes the event that its
  `ntkl dump --events` line says.
- Each relative link of README.md and docs/*.md names a file that exists,
  and a heading of it for a #anchor.
- docs/architecture.md's map has a row for every folder of git ls-files.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NTKL = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                       else os.path.join(TOP, "build", "userspace", "ntkl"))
BUILD = os.path.dirname(NTKL)
SEEDS = os.path.join(TOP, "userspace", "fuzz", "seeds")
README = os.path.join(TOP, "README.md")
MAX_LINES = 150
# the ntkl commands that need no /dev/ntkl: run for real
LOCAL = {"help", "dump", "report", "convert", "relog", "merge", "symbols"}

failed = False


def result(ok, what, why=""):
    global failed
    if ok:
        print("PASS: readme " + what)
    else:
        failed = True
        print("FAIL: readme %s: %s" % (what, why))


def run(argv, cwd, env=None, timeout=120):
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, "", str(e)
    return (p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace"))


def one_line(text, n=300):
    text = " | ".join(line for line in text.splitlines() if line.strip())
    return text[:n]


def fenced_blocks(text):
    """(info string, [lines]) of each ``` block."""
    blocks, cur, info = [], None, None
    for line in text.splitlines():
        if line.startswith("```"):
            if cur is None:
                cur, info = [], line[3:].strip()
            else:
                blocks.append((info, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def outside_fences(text):
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        out.append("" if inside else line)
    return out


def commands(lines):
    """Split a block's lines into commands: continuations joined,
    comments dropped, `&&` splits."""
    joined, cur = [], ""
    for line in lines:
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        joined.append(cur + line)
        cur = ""
    for line in joined:
        line = line.replace("$(pkg-config --cflags --libs libntkl)", "@LIBNTKL@")
        lex = shlex.shlex(line, posix=True, punctuation_chars="&|;")
        lex.whitespace_split = True
        lex.commenters = "#"
        cmd = []
        for tok in lex:
            if tok == "&&":
                if cmd:
                    yield line, cmd
                cmd = []
            else:
                cmd.append(tok)
        if cmd:
            yield line, cmd


def ntkl_help(sub):
    rc, out, _ = run([NTKL, "help", sub], TOP)
    return out if rc == 0 else None


def options_of(argv):
    """The options (words starting with -) before a `--`."""
    opts = []
    for a in argv:
        if a == "--":
            break
        if a.startswith("-") and len(a) > 1:
            opts.append(a.split("=", 1)[0])
    return opts


def check_ntkl_static(argv, what):
    """The subcommand exists and each option is in its help."""
    if len(argv) < 2 or argv[1] in ("--version",):
        return result(True, what)
    sub = argv[1]
    if sub == "help":
        # ntkl help [CMD]: CMD must be a command (COMMAND stands for any)
        if len(argv) < 3 or argv[2].isupper():
            return result(True, what)
        sub = argv[2]
        argv = argv[:1] + argv[2:3]
    text = ntkl_help(sub)
    if text is None:
        return result(False, what, "ntkl has no command '%s'" % sub)
    missing = [o for o in options_of(argv[2:]) if o not in text]
    result(not missing, what, "not in `ntkl help %s`: %s" % (sub, " ".join(missing)))


def seed_for(name):
    low = name.lower()
    if "units" in low or "myapp" in low:
        return "libntkl-units-4k.etl"
    if "compact" in low:
        return "ntkl-compact-4k.etl"
    return "ntkl-full-4k.etl"


# BootTime in an uncompressed buffer 0: after the buffer header (0x48)
# and the Header event's (0x20), at 0xF8 of TRACE_LOGFILE_HEADER
BOOT_TIME_AT = 0x48 + 0x20 + 0xF8


def same_boot(paths):
    """README merges a capture and a libntkl file recorded together, in
    one boot; the seeds are of different boots, which merge refuses: give
    the later inputs the first's BootTime."""
    if len(paths) < 2:
        return
    with open(paths[0], "rb") as f:
        f.seek(BOOT_TIME_AT)
        boot = f.read(8)
    for p in paths[1:]:
        with open(p, "r+b") as f:
            f.seek(BOOT_TIME_AT)
            f.write(boot)


def run_ntkl(argv, what, tmp):
    sub = argv[1] if len(argv) > 1 else "help"
    args = list(argv[1:])
    env = dict(os.environ)
    env["NTKL_DEVICE"] = os.path.join(tmp, "no-such-device")
    env["NTKL_RUN_DIR"] = os.path.join(tmp, "run")
    if sub in LOCAL:
        # the files it reads: each .etl not after -o
        for i, a in enumerate(args):
            if a.endswith(".etl") and not (i and args[i - 1] == "-o"):
                path = os.path.join(tmp, a)
                if not os.path.exists(path):
                    shutil.copy(os.path.join(SEEDS, seed_for(a)), path)
        if sub == "merge":
            same_boot([os.path.join(tmp, a) for a in args if a.endswith(".etl")
                       and args[args.index(a) - 1] != "-o"])
        rc, out, err = run([NTKL] + args, tmp, env)
        return result(rc == 0, what, "exit %d: %s" % (rc, one_line(err or out)))
    if "--" in args:
        args = args[:args.index("--") + 1] + ["true"]
    rc, out, err = run([NTKL] + args, tmp, env)
    ok = rc == 1 and ("cannot open " + env["NTKL_DEVICE"]) in err
    result(ok, what, "exit %d (want 1, the device not found, after every option parsed): %s"
           % (rc, one_line(err)))


def make_targets():
    with open(os.path.join(TOP, "Makefile")) as f:
        return set(re.findall(r"^([A-Za-z0-9_.-]+):", f.read(), re.M))


def check_make(argv, what):
    targets = make_targets()
    bad = [a for a in argv[1:] if "=" not in a and not a.startswith("-") and a not in targets]
    flags = [a for a in argv[1:] if a.startswith("-")]
    if flags:
        return result(False, what, "make flags are not checked: %s" % " ".join(flags))
    result(not bad, what, "no such target in Makefile: %s" % " ".join(bad))


def check_script(argv, what):
    path = os.path.join(TOP, argv[0])
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return result(False, what, "%s is not an executable script" % argv[0])
    opts = options_of(argv[1:])
    # a subcommand word (scripts/module-key create) must be in the text too
    words = [a for a in argv[1:2] if re.match(r"^[a-z][a-z-]*$", a)]
    with open(path, errors="replace") as f:
        source = f.read()
    text = source
    if re.search(r"(^|[\s|(])--help\b", source):
        rc, out, err = run([path, "--help"], TOP, timeout=30)
        if rc == 0:
            text = out + err
    missing = [o for o in opts + words if not re.search(r"(^|[\s\[(|,`'])" + re.escape(o) + r"\b", text)]
    result(not missing, what, "not in %s's help: %s" % (argv[0], " ".join(missing)))


def check_cc(argv, what, tmp):
    lib = ["-I" + os.path.join(TOP, "userspace", "libntkl"),
           os.path.join(BUILD, "libntkl.a"), "-lpthread"]
    out = []
    for a in argv[1:]:
        if a == "@LIBNTKL@":
            out += lib
        elif os.path.exists(os.path.join(TOP, a)) and not os.path.isabs(a):
            out.append(os.path.join(TOP, a))
        else:
            out.append(a)
    if "@LIBNTKL@" not in argv:
        return result(False, what, "a cc line must use $(pkg-config --cflags --libs libntkl)")
    rc, o, err = run(["cc"] + out, tmp)
    result(rc == 0, what, "exit %d: %s" % (rc, one_line(err or o)))


def check_command(argv, what, tmp, static=False):
    if argv and argv[0] == "sudo":
        argv = argv[1:]
    if not argv:
        return result(False, what, "empty command")
    name = argv[0]
    if name in ("ntkl", "build/userspace/ntkl"):
        if static:
            return check_ntkl_static(argv, what)
        return run_ntkl(argv, what, tmp)
    if name == "make":
        return check_make(argv, what)
    if name.startswith("scripts/"):
        return check_script(argv, what)
    if name == "cc" and not static:
        return check_cc(argv, what, tmp)
    result(False, what, "a command this test does not know how to check "
           "(ntkl, make, scripts/..., cc): write it so, or teach scripts/test_readme.py")


def check_readme(tmp):
    with open(README) as f:
        text = f.read()
    n = len(text.splitlines())
    result(n <= MAX_LINES, "README is at most %d lines (%d)" % (MAX_LINES, n),
           "%d lines: move the detail to docs/" % n)
    indented = [i + 1 for i, line in enumerate(outside_fences(text))
                if line.startswith("    ") or line.startswith("\t")]
    result(not indented, "README's commands are all in ``` blocks",
           "indented lines %s: use a ```sh block" % indented[:5])
    ran = 0
    for info, lines in fenced_blocks(text):
        if info != "sh":
            result(False, "README's ``` blocks are sh", "a ```%s block" % info)
            continue
        for line, argv in commands(lines):
            shown = " ".join(argv).replace("@LIBNTKL@", "$(pkg-config --cflags --libs libntkl)")
            check_command(argv, "`%s`" % shown, tmp)
            ran += 1
    result(ran > 0, "README has commands (%d)" % ran, "no ```sh block found")
    # inline code that is a command: checked, not run
    spans = re.findall(r"`([^`\n]+)`", "\n".join(outside_fences(text)))
    for span in sorted(set(spans), key=spans.index):
        words = span.split()
        if words and words[0] == "sudo":
            words = words[1:]
        if not words:
            continue
        if words[0] == "ntkl" or words[0].startswith("scripts/") or \
                (words[0] == "make" and len(span.split()) > 1):
            try:
                argv = shlex.split(span)
            except ValueError:
                argv = span.split()
            check_command(argv, "inline `%s`" % span, tmp, static=True)


def check_libntkl_example(tmp):
    path = os.path.join(TOP, "docs", "libntkl.md")
    with open(path) as f:
        text = f.read()
    blocks = [b for info, b in fenced_blocks(text) if info == "c"]
    what = "docs/libntkl.md's C example builds and writes UnitBegin: unit=7"
    if not blocks:
        return result(False, what, "no ```c block")
    d = os.path.join(tmp, "libntkl-example")
    os.makedirs(d)
    with open(os.path.join(d, "myapp.c"), "w") as f:
        f.write("\n".join(blocks[0]) + "\n")
    rc, out, err = run(["cc", "-Wall", "-Werror", "myapp.c",
                        "-I" + os.path.join(TOP, "userspace", "libntkl"),
                        os.path.join(BUILD, "libntkl.a"), "-lpthread", "-o", "myapp"], d)
    if rc != 0:
        return result(False, what, "cc: " + one_line(err))
    rc, out, err = run(["./myapp"], d)
    if rc != 0:
        return result(False, what, "./myapp exit %d: %s" % (rc, one_line(err)))
    rc, out, err = run([NTKL, "dump", "--events", "myapp.etl"], d)
    result(rc == 0 and "UnitBegin: unit=7" in out, what,
           "ntkl dump --events exit %d, no 'UnitBegin: unit=7'" % rc)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    with open(path) as f:
        lines = outside_fences(f.read())
    for line in lines:
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        found.add(s if n == 0 else "%s-%d" % (s, n))
    return found


def check_links():
    docs = os.path.join(TOP, "docs")
    files = [README] + sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    bad, n = [], 0
    for path in files:
        with open(path) as f:
            text = "\n".join(outside_fences(f.read()))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            n += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            rel = os.path.relpath(path, TOP)
            if not os.path.exists(dest):
                bad.append("%s: %s (no such file)" % (rel, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append("%s: %s (no such heading)" % (rel, target))
    result(not bad and n > 0, "relative links of README and docs/ lead somewhere (%d)" % n,
           "; ".join(bad) or "no link found")


def check_map():
    what = "docs/architecture.md's map has every folder of the tree"
    if not os.path.isdir(os.path.join(TOP, ".git")) and not os.path.isfile(os.path.join(TOP, ".git")):
        print("SKIP: readme %s: not a git checkout" % what)
        return
    rc, out, err = run(["git", "-C", TOP, "ls-files"], TOP)
    if rc != 0:
        print("SKIP: readme %s: git ls-files failed: %s" % (what, one_line(err)))
        return
    folders = {os.path.dirname(p) or "." for p in out.splitlines()}
    with open(os.path.join(TOP, "docs", "architecture.md")) as f:
        text = f.read()
    # the rows of the map's own section, not of the page's other tables
    section = re.search(r"^## The map of the tree$(.*?)(?=^## )", text, re.M | re.S)
    text = section.group(1) if section else ""
    rows = {m.rstrip("/") or "." for m in re.findall(r"^\| `([^`]+)` \|", text, re.M)}
    missing = sorted(folders - rows)
    stale = sorted(rows - folders)
    result(not missing and not stale, what + " (%d)" % len(folders),
           "no row for %s; rows for no folder: %s" % (" ".join(missing) or "-", " ".join(stale) or "-"))


def main():
    if not os.access(NTKL, os.X_OK):
        print("FAIL: readme: %s is not built (make -C userspace BUILD=$PWD/build)" % NTKL)
        return 1
    tmp = tempfile.mkdtemp(prefix="ntkl-readme.")
    try:
        check_readme(tmp)
        check_libntkl_example(tmp)
        check_links()
        check_map()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
