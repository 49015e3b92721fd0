#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The console driver of scripts/native-test --secure-boot: it reads
# qemu's first serial port (a socket) and writes all it reads to RAW_LOG
# (the raw stream: OVMF's VT100 text screens, then Linux's console), and
# drives shim's MOK manager when it shows: a key within its countdown,
# then Enroll MOK, Continue (past "View key 0"), Yes, the password,
# Reboot. Menus start on their first item (shim's MokManager.c: "Continue
# boot" before "Enroll MOK"; "View key 0" before "Continue"; "No" before
# "Yes"), so each choice is one Down and Enter. What it did, when, on
# stdout; its outcome, one line, in STATUS_FILE.
#
# usage: native_test_mok.py SOCKET RAW_LOG STATUS_FILE PASSWORD FIRST_TIMEOUT_S

import re, socket, sys, threading, time

sock_path, raw_path, status_path, password, first_timeout = sys.argv[1:6]
t0 = time.monotonic()
DOWN, ENTER = b'\x1b[B', b'\r'
# VT100 control sequences: stripped before matching the screen's text
ESC = re.compile(rb'\x1b(?:\[[0-?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])')

def say(msg):
    print('%6.1f s  %s' % (time.monotonic() - t0, msg), flush=True)

def outcome(line):
    with open(status_path, 'w') as f:
        f.write(line + '\n')
    say(line)

class Console:
    """The serial console: a thread reads it all the time, into the raw
    log and a window that expect() matches. It must never stop reading:
    qemu writes the socket a byte at a time, and what does not fit in
    the socket's few hundred bytes for long is dropped."""

    WINDOW = 32768

    def __init__(self, sock, raw):
        self.sock, self.raw = sock, raw
        self.data = b''     # the last WINDOW bytes or so
        self.start = 0      # the offset of data[0] in the stream
        self.total = 0      # bytes read so far
        self.mark = 0       # matching starts here: after the last match
        self.eof = False
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self.read_all, daemon=True)
        self.reader.start()

    def read_all(self):
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b''
            if data:
                self.raw.write(data)
                self.raw.flush()
            with self.cond:
                if not data:
                    self.eof = True
                else:
                    self.data += data
                    self.total += len(data)
                    if len(self.data) > 2 * self.WINDOW:
                        self.start += len(self.data) - self.WINDOW
                        self.data = self.data[-self.WINDOW:]
                self.cond.notify_all()
            if not data:
                return

    def screen(self):
        """The text since the last match (escape sequences out), and the
        stream's offset it ends at."""
        with self.cond:
            data = self.data[max(self.mark - self.start, 0):]
            end = self.total
        return ESC.sub(b'', data).decode('latin-1'), end

    def expect(self, pattern, timeout, fail=None):
        """Wait for pattern on the screen; None at fail, EOF or timeout."""
        deadline = time.monotonic() + timeout
        while True:
            text, end = self.screen()
            if re.search(pattern, text, re.S):
                self.mark = end
                return text
            if fail and re.search(fail, text, re.S):
                return None
            with self.cond:
                left = deadline - time.monotonic()
                if self.eof or left <= 0:
                    return None
                if self.total == end:
                    self.cond.wait(min(left, 1))

    def settle(self, quiet=0.5, most=5):
        """Until the screen stops changing: a key sent before a menu
        reads its keys may be lost."""
        end = time.monotonic() + most
        with self.cond:
            while time.monotonic() < end and not self.eof:
                seen = self.total
                self.cond.wait(quiet)
                if self.total == seen:
                    return

    def press(self, keys, what):
        self.settle()
        say('press ' + what)
        for k in keys:
            self.sock.sendall(k)
            time.sleep(0.3)

def connect():
    for _ in range(600):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sock_path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    outcome('fail: cannot connect to the console socket ' + sock_path)
    sys.exit(1)

def drive(con):
    say("waiting for shim's MOK manager (after the guest's first part)")
    if not con.expect(r'Press any key to perform MOK management', float(first_timeout)):
        outcome("fail: shim's MOK manager did not show (the guest did not reboot into it)")
        return
    # its countdown runs: a key now, unsettled
    con.sock.sendall(b' ')
    say('screen: the countdown; press a key (space)')
    bad = r"doesn't match|Password limit|Failed|[Ee]rror"
    steps = [
        (r'Perform MOK management.*Enroll MOK', [DOWN, ENTER], 'Down, Enter: Enroll MOK'),
        (r'\[Enroll MOK\].*View key 0.*Continue', [DOWN, ENTER], 'Down, Enter: Continue'),
        (r'Enroll the key\(s\)\?.*Yes', [DOWN, ENTER], 'Down, Enter: Yes'),
        (r'Password:', [c.encode() for c in password] + [ENTER], 'the password, Enter'),
        (r'Perform MOK management.*Reboot', [ENTER], 'Enter: Reboot'),
    ]
    for pattern, keys, what in steps:
        if not con.expect(pattern, 120, fail=bad):
            why = re.search(bad, con.screen()[0])
            outcome('fail: the MOK manager did not show /%s/%s' % (
                pattern, ' but: ' + why.group(0) if why else ' within 120 s'))
            return
        say('screen: ' + pattern)
        con.press(keys, what)
    outcome('ok: Enroll MOK, Continue, Yes, the password, Reboot')
    # the next boot: the MOK manager again means the enrollment did not take
    text = con.expect(r'Press any key to perform MOK management|Linux version', 900)
    if text and 'Press any key' in text:
        outcome('fail: the MOK manager showed again at the next boot')

with open(raw_path, 'ab') as raw:
    con = Console(connect(), raw)
    drive(con)
    # the rest of the run, logged by the reader
    con.reader.join()
say('console closed')
