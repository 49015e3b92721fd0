#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ntkl-bench: the guest side of scripts/bench (run by scripts/vm-run in the
# test VM, busybox sh). What does recording context switches cost?
#
#   ntkl-bench [ROUNDS [REPS [PINGPONG_TRIPS [THREADS STEPS [MAX_TRIPS
#              [SECTIONS [DEST]]]]]]]
#
# SECTIONS: which of switch (the rounds and the max rate), profile, peers,
# spin, um (libntkl), storage (file operations and disk I/O) and events
# (issue 47's producers: system calls, page faults, TCP) to
# run, comma-separated (default all).
# DEST: where every recorder writes its files: tmpfs (default: /tmp),
# disk (vm-run's /scratch, ext4 on a virtio disk, where a user's trace
# goes), direct (the same disk, ntkl's writer with direct I/O:
# NTKL_DIRECT_IO=1) or xfs (/scratch made xfs: the disk, and the peers
# section's files shared block for block, reflinked).
#
# Each round runs the same workloads (pingpong pinned to CPU 1, then
# threadmix, REPS times each) under each recorder in turn, starting with
# the next one each round, so that slow drifts of the host and the order
# hit every recorder alike:
#
#   none       no tracing
#   cswitch    ntkl start -on CSWITCH (a CSwitch event per switch)
#   compact    ntkl start -on COMPACT_CSWITCH (CompCS batches)
#   cswstack   ntkl start -on CSWITCH -stackwalk CSwitch (each CSwitch
#              followed by the new thread's stack: the cost of a stack;
#              its user frames walked by the binaries' unwind tables)
#   cswstackwarm the same, the tables warm: a stopped process of each
#              workload's file (hold) keeps its table made while the runs'
#              processes come and go, so even the first run pays only its
#              process's map and its walks, not its file's table
#              (cswstack: the logger makes a file's table as it first
#              meets it, in the first run after its start)
#   cswstackfp the same with -nounwind: user frames by frame pointers
#              alone (pingpong and threadmix are built as Debian builds,
#              -O2 without frame pointers, static, libc's code too, so
#              this is what the tables add and what they give: whole
#              user stacks against a frame or two)
#   tracecmd   trace-cmd record -C mono -e sched:sched_switch
#   perfswg    perf record -a -g -e sched:sched_switch (a kernel and user
#              callchain per switch: cswstack's peer; only when the guest
#              has perf, vm-run NTKL_VM_PERF=1)
#
# ntkl writes with its background writer and trace-cmd with its per-CPU
# readers, both into DEST, both with default buffers. Then, per
# recorder, a pingpong pinned to every CPU at once: the highest switch rate
# these workloads reach, to count lost events.
#
# Output, one fact per line, each a JSON object whose "kind" says what it
# is, for scripts/bench_stats.py to tabulate (emit below makes them: a
# KEY=VALUE word is "KEY": VALUE, a number when it is one; the word
# without = of a workload's summary line is "workload"). Below, a kind
# and its fields:
#   header text        the kernel, CPUs, clock source and parameters
#   switch_run round mode rep workload ... ns ctxt   one workload run
#   switch_totals round mode switches evbytes filebytes rawbytes lost
#                      [uwhole uearly unomap ufp]
#                      what a recorder kept over a round (round "max":
#                      over the max-rate runs); u*: a stack walking
#                      logger's user stacks (ntkl query's User Stacks,
#                      every process's): whole, ended early, of them
#                      for want of the process's map, walked by frame
#                      pointers (-nounwind)
#   max_rate_run mode workload ... ns   one CPU's pingpong of the max rate
#   lockbench, contend: spin locks (see the spin lock section below)
#   profile_run, profile_samples, profile_max: the sampled profile, ntkl
#     PROFILE with and without stacks (by unwind tables, by frame
#     pointers), perf record without a call graph, with -g and with
#     --call-graph dwarf, on pingpong and on Debian's gzip; and every CPU
#     busy at once (see the profile section)
#   peer_run, peer_lost, bpf_count: peers and scale (1, 8, 64 CSWITCH and
#     COMPACT loggers; one logger whose file fanout writes again into 7 or
#     63 more files; perf record and trace-cmd, one and 8 at once; an
#     empty sched_switch probe; a BPF counter; see the peers section)
#   libntkl: libntkl's cost per event (see the libntkl section below)
#   storage_run, storage_records: the cost per file operation and per disk
#     I/O, ntkl FileIo and DiskIo against trace-cmd's syscall and block
#     events (see the storage section)
#   events_run, events_records: the cost per event of the SYSCALL,
#     ALL_FAULTS+VIRT_ALLOC and NETWORKTRACE producers against
#     trace-cmd on the same tracepoints (see the events section)
#   note text          a remark (a row that cannot be measured here)
#   done               the last line: every section ran
# evbytes: ntkl, the switch records' bytes (ntkl dump --stats); rawbytes:
# trace-cmd, its per-CPU data before compression. switches: in the file
# (ntkl dump --stats; trace-cmd: entries + read events of its CPU stats).
#
# busybox sh, which runs this in the VM, has local, as dash has (this
# directive, before the first command, covers the whole file):
# shellcheck disable=SC3043
set -eu

rounds=${1:-5}
reps=${2:-6}
trips=${3:-4000}
threads=${4:-6}
steps=${5:-300}
max_trips=${6:-10000}
# which sections to run, comma-separated (scripts/bench --only)
sections=${7:-switch,profile,peers,spin,um,storage,events}
dest=${8:-tmpfs}

T=/sys/kernel/tracing
case $dest in
disk|direct|xfs)
	[ -n "${NTKL_SCRATCH:-}" ] ||
		{ echo "ntkl-bench: no /scratch disk (scripts/vm-run makes one with mkfs.ext4 or mkfs.xfs, packages e2fsprogs, xfsprogs): install it, or run with the tmpfs destination" >&2; exit 1; }
	W=$NTKL_SCRATCH/ntkl-bench
	fs=$(awk -v m="$NTKL_SCRATCH" '$2 == m { print $3 }' /proc/mounts)
	[ "$dest" != direct ] || export NTKL_DIRECT_IO=1
	;;
tmpfs) W=/tmp/ntkl-bench fs=tmpfs ;;
*) echo "ntkl-bench: destination '$dest': tmpfs, disk, direct or xfs" >&2; exit 2 ;;
esac
LOGGER=ntkl-bench
MODES="none cswitch compact tracecmd cswstack cswstackwarm cswstackfp"
mkdir -p "$W"

want() {
	case ",$sections," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

die() {
	echo "ntkl-bench: $*" >&2
	exit 1
}

# emit KIND WORD...: one JSON object on a line, {"kind": KIND, ...}: a
# KEY=VALUE word is "KEY": VALUE (a number when VALUE is a decimal one,
# else a string); a word without = (a workload's name, the first word of
# its summary line) is "workload": WORD. The words are split at blanks
# and newlines, so a WORD may be a whole summary line.
emit() {
	local kind="$1"

	shift
	EMIT_KIND=$kind EMIT_WORDS="$*" awk "$json_awk"'
	BEGIN {
		out = "{\"kind\": " str(ENVIRON["EMIT_KIND"])
		n = split(ENVIRON["EMIT_WORDS"], w)
		for (i = 1; i <= n; i++) {
			eq = index(w[i], "=")
			if (eq > 1)
				out = out ", " str(substr(w[i], 1, eq - 1)) ": " val(substr(w[i], eq + 1))
			else
				out = out ", \"workload\": " str(w[i])
		}
		print out "}"
	}'
}

# emit_text KIND TEXT: {"kind": KIND, "text": TEXT}
emit_text() {
	EMIT_KIND=$1 EMIT_TEXT=$2 awk "$json_awk"'
	BEGIN { print "{\"kind\": " str(ENVIRON["EMIT_KIND"]) ", \"text\": " str(ENVIRON["EMIT_TEXT"]) "}" }'
}

# emit's awk functions: a JSON string (backslash, quote and control
# characters escaped; ENVIRON, not -v, so awk reads no escapes in it) and
# a JSON value
json_awk='
function str(s,    i, c, out) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\" c
		else if (c == "\n")
			out = out "\\n"
		else if (c == "\t")
			out = out "\\t"
		else if (c < " ")
			out = out " "
		else
			out = out c
	}
	return "\"" out "\""
}
function val(v) {
	return v ~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/ ? v : str(v)
}
'

# trace-cmd may only get SIGINT once it catches it (a background job of a
# non-interactive shell starts with SIGINT ignored) and has turned the
# event on: its "Hit Ctrl^C" line only reaches a file when it exits.
# tc_ready PID EVENT [DIR] (EVENT as under events/, e.g. sched/sched_switch;
# DIR the tracing directory of trace-cmd's instance, if it has one)
catches_sigint() {
	local cgt last

	cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) || return 1
	last=${cgt#"${cgt%?}"}
	case $last in
	2|3|6|7|a|b|e|f) ;;
	*) return 1 ;;
	esac
}

tc_ready() {
	local d="${3:-$T}"

	catches_sigint "$1" &&
		[ "$(cat "$d/tracing_on" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$d/events/$2/enable" 2>/dev/null)" = 1 ]
}

# tc_start [N]: trace-cmd recording sched_switch into $W/tc.dat (tc_pid);
# with N, N of them at once, as N sessions: each on an ftrace instance of
# its own (-B ntkl-bench-I) into a file of its own ($W/tcI.dat; tc_pids).
tc_start() {
	local i=1 n="${1:-}" j pid

	if [ -z "$n" ]; then
		rm -f "$W/tc.dat"
		trace-cmd record -C mono -e sched:sched_switch -o "$W/tc.dat" > "$W/tc.log" 2>&1 &
		tc_pid=$!
		tc_wait "$tc_pid" "$T" "$W/tc.log"
		return
	fi
	tc_pids=
	while [ $i -le "$n" ]; do
		rm -f "$W/tc$i.dat"
		trace-cmd record -C mono -B "ntkl-bench-$i" -e sched:sched_switch \
			-o "$W/tc$i.dat" > "$W/tc$i.log" 2>&1 &
		tc_pids="$tc_pids $!"
		i=$((i + 1))
	done
	j=1
	for pid in $tc_pids; do
		tc_wait "$pid" "$T/instances/ntkl-bench-$j" "$W/tc$j.log"
		j=$((j + 1))
	done
}

# tc_wait PID DIR LOG: until trace-cmd PID records sched_switch in DIR
tc_wait() {
	local i=0

	until tc_ready "$1" sched/sched_switch "$2"; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "trace-cmd record did not start: $(cat "$3")"
		kill -0 "$1" 2>/dev/null || die "trace-cmd record died: $(cat "$3")"
		sleep 0.1
	done
}

# The F line of a trace-cmd run: its CPU statistics count what the ring
# buffer took (entries left + read) and lost (overrun, dropped).
tc_stop() {
	kill -INT "$tc_pid"
	wait "$tc_pid" || die "trace-cmd record failed: $(cat "$W/tc.log")"
	tc_stats "$W/tc.dat" "$W/tc.log"
}

# tc_stop for tc_start N: sets tc_lost, what the N lost together.
tc_stop_n() {
	local j=1 pid

	# shellcheck disable=SC2086 # tc_pids is a list of PIDs: one argument each
	kill -INT $tc_pids
	tc_lost=0
	for pid in $tc_pids; do
		wait "$pid" || die "trace-cmd record $j failed: $(cat "$W/tc$j.log")"
		tc_stats "$W/tc$j.dat" "$W/tc$j.log" > "$W/f"
		tc_lost=$((tc_lost + $(sed -n 's/.*lost=\([0-9]*\).*/\1/p' "$W/f")))
		rm -f "$W/tc$j.dat"
		j=$((j + 1))
	done
}

# tc_stats DAT LOG: the F line of one trace-cmd file
tc_stats() {
	trace-cmd report --stat -i "$1" 2>&1 | awk -v file="$(wc -c < "$1")" \
		-v raw="$(sed -n 's/.*(\([0-9]*\) uncompressed).*/\1/p' "$2" |
			awk '{ s += $1 } END { print s + 0 }')" '
		/^entries:/ || /^read events:/ { n += $NF }
		/^overrun:/ || /^commit overrun:/ || /^dropped events:/ { lost += $NF }
		/^CPU:/ { cpus++ }
		END {
			if (!cpus)
				exit 1
			printf "switches=%d evbytes=0 filebytes=%d rawbytes=%d lost=%d\n",
				n, file, raw, lost
		}' || die "no CPU statistics in trace-cmd report --stat"
}

ntkl_start() {
	rm -f "$W/ntkl.etl"
	ntkl start "$LOGGER" -on "$@" -f "$W/ntkl.etl" > /dev/null
}

# The F line of an ntkl run, from ntkl stop's counters and the "total" row
# of ntkl dump --stats (the CSwitch or the CompCS table, whichever is used).
ntkl_stop() {
	local lost

	lost=$(ntkl stop "$LOGGER" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
	[ -n "$lost" ] || die "ntkl stop printed no Events Lost"
	ntkl dump --stats "$W/ntkl.etl" | awk -v file="$(wc -c < "$W/ntkl.etl")" -v lost="$lost" '
		$1 == "total" && $2 > 0 { n += $2; b += $4 }
		END { printf "switches=%d evbytes=%d filebytes=%d rawbytes=0 lost=%d\n", n, b, file, lost }'
}

# How the running logger's user stacks ended, from ntkl query's "User
# Stacks" counts (every stack it walked, of every process):
# "uwhole=N uearly=N unomap=N ufp=N": whole, ended early, of those for
# want of the process's map (made by a worker as a process is first met:
# its first stacks end there), and walked by frame pointers (-nounwind)
ustacks() {
	ntkl query "$LOGGER" 2>/dev/null | awk '
		/^User Stacks/ && / whole/ {
			sub(/^[^:]*: */, "")
			n = split($0, part, /[,;] */)
			for (i = 1; i <= n; i++) {
				v = part[i] + 0
				if (part[i] ~ / whole/)
					w = v
				else if (part[i] ~ /ended early/)
					e = v
				else if (part[i] ~ /map not made/)
					m = v
				else if (part[i] ~ /by frame pointers/)
					f = v
			}
		}
		END { printf "uwhole=%d uearly=%d unomap=%d ufp=%d\n", w, e, m, f }'
}

# hold WORKLOAD...: for the warm modes, a process of each workload's
# files (its program; gzip's libc.so.6 and ld.so too) that the running
# logger meets (it runs 20 ms on CPU 2, switching or sampled) and that
# then stops: its map keeps those files' tables made while the runs'
# processes come and go, as long-lived processes keep libc's on a real
# machine (in this VM nothing else maps them: busybox is static). The
# worker's time to make them (libc's: about 220 ms in the TCG VM) passes
# before the runs start. held_u: the logger's ustacks then (its stops
# before the runs: ustacks_runs leaves them out). unhold ends them.
held=
held_u=
hold() {
	local wl

	for wl in "$@"; do
		case $wl in
		pingpong) pingpong -c 2 -q 1000000000 & ;;
		threadmix) taskset -c 2 threadmix -q 2 100000000 & ;;
		gzip) taskset -c 2 /debian/gzip -c /dev/zero > /dev/null & ;;
		esac
		held="$held $!"
	done
	sleep 0.02
	# shellcheck disable=SC2086 # held is a list of PIDs: one argument each
	kill -STOP $held
	sleep 1
	held_u=$(ustacks)
}

unhold() {
	local p

	[ -n "$held" ] || return 0
	# shellcheck disable=SC2086 # held is a list of PIDs: one argument each
	kill -KILL $held
	for p in $held; do
		wait "$p" 2>/dev/null || true
	done
	held=
	held_u=
}

# ustacks_runs: ustacks, less what the logger counted before the runs
# (held_u: a warm mode's holding processes' stacks)
ustacks_runs() {
	echo "$(ustacks) $held_u" | awk '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (seen[kv[1]]++) {
				v[kv[1]] -= kv[2]
			} else {
				order[++n] = kv[1]
				v[kv[1]] = kv[2]
			}
		}
		out = ""
		for (i = 1; i <= n; i++)
			out = out (i > 1 ? " " : "") order[i] "=" v[order[i]]
		print out
	}'
}

start() {
	case $1 in
	none) ;;
	cswitch) ntkl_start CSWITCH ;;
	compact) ntkl_start COMPACT_CSWITCH ;;
	cswstack) ntkl_start CSWITCH -stackwalk CSwitch ;;
	cswstackwarm)
		ntkl_start CSWITCH -stackwalk CSwitch
		hold pingpong threadmix
		;;
	cswstackfp) ntkl_start CSWITCH -stackwalk CSwitch -nounwind ;;
	tracecmd) tc_start ;;
	perfswg) perf_start -a -g -e sched:sched_switch ;;
	esac
}

# Prints what the recorder kept (nothing for none).
stop() {
	local u

	case $1 in
	none) ;;
	cswitch|compact) ntkl_stop ;;
	cswstack|cswstackwarm|cswstackfp)
		u=$(ustacks_runs)
		echo "$(ntkl_stop) $u"
		unhold
		;;
	tracecmd) tc_stop ;;
	perfswg) perf_stop_switches ;;
	esac
}

# perf record ARGS into $W/perf.data in the background (perf_pid); its
# handler is set before it opens the events: wait for the file too.
perf_start() {
	perf_start_one "" "$@"
	perf_pid=$perf_last
	sleep 1
}

# perf_start_one TAG ARGS: perf record ARGS into $W/perfTAG.data (perf_last)
perf_start_one() {
	local i=0 tag="$1"

	shift
	rm -f "$W/perf$tag.data"
	perf record "$@" -o "$W/perf$tag.data" > "$W/perf$tag.log" 2>&1 &
	perf_last=$!
	until catches_sigint "$perf_last" && [ -s "$W/perf$tag.data" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "perf record did not start: $(cat "$W/perf$tag.log")"
		kill -0 "$perf_last" 2>/dev/null || die "perf record died: $(cat "$W/perf$tag.log")"
		sleep 0.1
	done
}

# Stops perf_start's perf; sets perf_lost (its LOST and LOST_SAMPLES records).
perf_stop() {
	kill -INT "$perf_pid"
	perf_wait "$perf_pid" ""
}

# perf_wait PID TAG: once perf record PID is stopped, sets perf_lost to what
# it lost. Not in a subshell: perf is this shell's child.
perf_wait() {
	# it exits with SIGINT's status once it has written the file
	wait "$1" || grep -q 'perf record: Captured' "$W/perf$2.log" ||
		die "perf record failed: $(cat "$W/perf$2.log")"
	perf_lost=$(perf report -i "$W/perf$2.data" --stats 2>/dev/null |
		    awk -F: '/LOST/ { split($2, a, " "); s += a[1] } END { print s + 0 }')
}

# The F line of perf_start's perf of sched_switch, as ntkl_stop's: its
# samples (a switch each; --stats prints the count twice, once with its
# share), its file as the records' bytes, what it lost.
perf_stop_switches() {
	local n

	perf_stop
	n=$(perf report -i "$W/perf.data" --stats 2>/dev/null |
	    awk -F: '/^ *SAMPLE events/ { split($2, a, " "); n = a[1]; exit } END { print n + 0 }')
	echo "switches=$n evbytes=$(wc -c < "$W/perf.data") filebytes=$(wc -c < "$W/perf.data") rawbytes=0 lost=$perf_lost"
	rm -f "$W/perf.data"
}

# Leftovers of an earlier run would skew everything.
ntkl stop "$LOGGER" > /dev/null 2>&1 || true

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
emit_text header "$(uname -r), $(nproc) CPUs, clocksource $cs, rounds=$rounds reps=$reps trips=$trips threads=$threads steps=$steps max_trips=$max_trips, files on $dest ($fs)"
# Each round starts with the next recorder: none of them always runs first.
rotate() {
	local n="$1"

	shift
	while [ "$n" -gt 0 ]; do
		set -- "$@" "$1"
		shift
		n=$((n - 1))
	done
	echo "$@"
}

if want switch; then
	! command -v perf > /dev/null || MODES="$MODES perfswg"
	r=1
	while [ $r -le "$rounds" ]; do
		# shellcheck disable=SC2086 # MODES is a list of words: one argument each
		order=$(rotate $(((r - 1) % $(echo "$MODES" | wc -w))) $MODES)
		for m in $order; do
			start "$m"
			: > "$W/w"
			i=1
			while [ $i -le "$reps" ]; do
				w=$(pingpong -c 1 "$trips")
				emit switch_run "round=$r" "mode=$m" "rep=$i" "$w" >> "$W/w"
				w=$(threadmix "$threads" "$steps")
				emit switch_run "round=$r" "mode=$m" "rep=$i" "$w" >> "$W/w"
				i=$((i + 1))
			done
			# not in $(...): only this shell may wait for trace-cmd
			stop "$m" > "$W/f"
			cat "$W/w"
			[ ! -s "$W/f" ] || emit switch_totals "round=$r" "mode=$m" "$(cat "$W/f")"
		done
		r=$((r + 1))
	done

	# The highest rate: one pinned pingpong per CPU, all at once.
	# shellcheck disable=SC2086 # MODES is a list of words: one argument each
	for m in $(echo $MODES | sed 's/^none //'); do
		start "$m"
		pids=
		c=0
		while [ $c -lt "$(nproc)" ]; do
			pingpong -c $c "$max_trips" > "$W/max.$c" &
			pids="$pids $!"
			c=$((c + 1))
		done
		for p in $pids; do
			wait "$p" || die "pingpong failed"
		done
		stop "$m" > "$W/f"
		for f in "$W"/max.*; do
			emit max_rate_run "mode=$m" "$(cat "$f")"
		done
		emit switch_totals round=max "mode=$m" "$(cat "$W/f")"
	done
fi
# The sampled profile: two workloads pinned to CPU 1, each under each of
# these recorders in turn (starting with the next one each round),
# rounds times, all sampling every CPU at 8.2 kHz:
#   none        no tracing
#   profile     ntkl PROFILE -setprofint 1221 (xperf's highest rate), with
#               PROC_THREAD (a few events per run) to name the samples
#   profstack   the same with -stackwalk Profile (a stack per sample, its
#               user frames walked by the binaries' unwind tables)
#   profstackwarm the same, the tables warm (as cswstackwarm: a stopped
#               process of the workload's files, hold, keeps their tables)
#   profstackfp the same with -nounwind (user frames by frame pointers
#               alone, as before issue 45): what the tables add a sample
#   perf        perf record -a -e cpu-clock -c 122100 (a software clock: the
#               guest has no PMU under TCG; a fixed period of 122.1 us, as
#               ntkl's: -F 8200 lets perf adjust it, and it samples more)
#   perfg       the same with -g (a call graph per sample, by frame pointers)
#   perfdwarf   the same with --call-graph dwarf (a copy of 8 KB of the
#               user stack and the registers per sample, unwound later by
#               perf report: whole stacks without frame pointers)
# (the perf modes only when the guest has perf: vm-run NTKL_VM_PERF=1)
# The workloads, both built without frame pointers, so that only the
# tables (or perf's copies) make their user stacks whole:
#   pingpong    pingpong -c 1 TRIPS (static, -O2 as Debian builds, libc's
#               code inside): samples mostly in the kernel, its switches
#               and pipe I/O, under a user stack of libc's read or write
#               and main
#   gzip        Debian's own gzip -9 (/debian/gzip, vm-run's copy of the
#               host's: -O2 without frame pointers, against libc.so.6)
#               compressing GZ_LINES lines of seq's output (the same bytes
#               every run) to /dev/null, pinned with taskset -c 1: samples
#               in user code under 5 to 8 user frames; timed by the shell
#               ($EPOCHREALTIME, microseconds)
# Each workload's REPS runs are under one start of the recorder, so its
# samples, bytes and losses are that workload's:
#   profile_run round=R mode=M rep=N <workload's summary line: ns=T>
#   profile_samples round=R mode=M workload=W samples=N allsamples=N
#           filebytes=N lost=N [uwhole uearly unomap ufp]
#                         samples that hit W on CPU 1 over the round's runs
#                         (ntkl: dump --stats --all's "Processes by
#                         samples" rows named W: pingpong has 2 per run, more
#                         than the 10 rows of --stats; perf: perf script's
#                         comm and CPU fields), every sample in the file (all
#                         CPUs, idle ones included) and its bytes (bytes a
#                         sample: filebytes / allsamples), events the
#                         recorder lost, and ntkl's user stacks (ustacks)
# Then the highest rate: per recorder, one gzip pinned to each CPU at once
# (every CPU in user code: every sample with a whole user stack to walk,
# or to copy), its losses at default buffers:
#   profile_max mode=M workload=gzip samples=N allsamples=N filebytes=N
#           lost=N [u...]   as profile_samples, samples on every CPU
PMODES="none profile profstack profstackwarm profstackfp"
GZ_LINES=${GZ_LINES:-30000}

# prof_start MODE WORKLOAD: perf is this shell's child (perf_pid)
prof_start() {
	case $1 in
	profile) ntkl_start PROC_THREAD+PROFILE -setprofint 1221 ;;
	profstack) ntkl_start PROC_THREAD+PROFILE -setprofint 1221 -stackwalk Profile ;;
	profstackwarm)
		ntkl_start PROC_THREAD+PROFILE -setprofint 1221 -stackwalk Profile
		hold "$2"
		;;
	profstackfp)
		ntkl_start PROC_THREAD+PROFILE -setprofint 1221 -stackwalk Profile -nounwind
		;;
	perf) perf_start -a -e cpu-clock -c 122100 ;;
	perfg) perf_start -a -g -e cpu-clock -c 122100 ;;
	perfdwarf) perf_start -a --call-graph dwarf -e cpu-clock -c 122100 ;;
	esac
}

# gz_run CPU: Debian's gzip -9 of $W/gz.in pinned to CPU, timed; prints
# its summary line as the workloads print theirs
gz_run() {
	local a b

	# shellcheck disable=SC3028 # busybox sh has EPOCHREALTIME (checked where gzip is chosen)
	a=$EPOCHREALTIME
	taskset -c "$1" /debian/gzip -9 -c "$W/gz.in" > /dev/null || die "gzip -9 failed"
	# shellcheck disable=SC3028 # as above
	b=$EPOCHREALTIME
	# seconds.microseconds, 6 digits after the point: microseconds
	# once the point is gone
	echo "gzip lines=$GZ_LINES cpu=$1 ns=$(((${b%.*}${b#*.} - ${a%.*}${a#*.}) * 1000))"
}

# prof_run WORKLOAD CPU: one run, its summary line
prof_run() {
	case $1 in
	pingpong) pingpong -c "$2" "$trips" ;;
	gzip) gz_run "$2" ;;
	esac
}

# SAMPLE records of perf.data (--stats prints the count twice, once with
# its share)
perf_samples() {
	perf report -i "$W/perf.data" --stats 2>/dev/null |
		awk -F: '/^ *SAMPLE events/ { split($2, a, " "); n = a[1]; exit } END { print n + 0 }'
}

# prof_stop MODE WORKLOAD [CPU]: sets prof_result to "samples=N
# allsamples=N filebytes=N lost=N" (and ntkl's stacks' ustacks): samples
# are those in WORKLOAD (on CPU, if given). Not in a subshell: perf.
prof_stop() {
	local lost u=

	case $1 in
	profile|profstack|profstackwarm|profstackfp)
		[ "$1" = profile ] || u=$(ustacks_runs)
		lost=$(ntkl stop "$LOGGER" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
		unhold
		[ -n "$lost" ] || die "ntkl stop printed no Events Lost"
		prof_result="$(ntkl dump --stats --all "$W/ntkl.etl" | awk -v wl="$2" '
			/^SampledProfile \(/ { all = $3 }
			/^Processes by samples/ { f = 1; next }
			/^$/ { f = 0 }
			f && $NF == wl { n += $2 }
			END { printf "samples=%d allsamples=%d", n, all }') filebytes=$(wc -c < "$W/ntkl.etl") lost=$lost $u"
		rm -f "$W/ntkl.etl"
		;;
	perf|perfg|perfdwarf)
		perf_stop
		prof_result="$(perf script -i "$W/perf.data" -F comm,cpu 2>/dev/null |
			awk -v wl="$2" -v cpu="${3:-}" '
			$1 == wl && (cpu == "" || $2 == sprintf("[%03d]", cpu)) { n++ }
			END { printf "samples=%d", n }') allsamples=$(perf_samples) filebytes=$(wc -c < "$W/perf.data") lost=$perf_lost"
		rm -f "$W/perf.data"
		;;
	esac
}

if want profile; then
	! command -v perf > /dev/null || PMODES="$PMODES perf perfg perfdwarf"
	pwls=pingpong
	# shellcheck disable=SC3028 # busybox sh has it; a shell without it: no gzip rows
	if [ -x /debian/gzip ] && [ -n "${EPOCHREALTIME:-}" ]; then
		seq 1 "$GZ_LINES" > "$W/gz.in"
		pwls="$pwls gzip"
	else
		emit_text note "profile: no /debian/gzip (scripts/vm-run copies the host's /usr/bin/gzip) or no EPOCHREALTIME in this shell to time it: no gzip rows"
	fi
	r=1
	while [ $r -le "$rounds" ]; do
		# shellcheck disable=SC2086 # PMODES is a list of words: one argument each
		order=$(rotate $(((r - 1) % $(echo "$PMODES" | wc -w))) $PMODES)
		for wl in $pwls; do
			for m in $order; do
				prof_start "$m" "$wl"
				: > "$W/w"
				i=1
				while [ $i -le "$reps" ]; do
					emit profile_run "round=$r" "mode=$m" "rep=$i" "$(prof_run "$wl" 1)" >> "$W/w"
					i=$((i + 1))
				done
				[ "$m" = none ] || prof_stop "$m" "$wl" 1
				cat "$W/w"
				[ "$m" = none ] ||
					emit profile_samples "round=$r" "mode=$m" "workload=$wl" "$prof_result"
			done
		done
		r=$((r + 1))
	done
	case " $pwls " in
	*" gzip "*)
		# shellcheck disable=SC2086 # PMODES is a list of words: one argument each
		for m in $(echo $PMODES | sed 's/^none //'); do
			prof_start "$m" gzip
			pids=
			c=0
			while [ $c -lt "$(nproc)" ]; do
				gz_run $c > "$W/max.$c" &
				pids="$pids $!"
				c=$((c + 1))
			done
			for p in $pids; do
				wait "$p" || die "gzip failed"
			done
			prof_stop "$m" gzip
			emit profile_max "mode=$m" workload=gzip "$prof_result"
		done
		rm -f "$W"/max.*
		;;
	esac
	rm -f "$W/gz.in"
	ntkl profile-interval -default > /dev/null
fi

# Peers and scale: pingpong pinned to CPU 1 under no tracing, 1, 8 and 64
# ntkl CSWITCH loggers at once (each with its own file and writer), the
# same with no writer (-buffering: the record alone, what the writer
# costs is the difference), 1, 8 and 64 COMPACT_CSWITCH loggers with
# files (about a tenth of CSWITCH's bytes for each writer: what many
# loggers cost when the bytes are few), and perf record -a -e
# sched:sched_switch, alternating, rounds times, reps runs each:
#   K round=R mode=none|ntkl1|ntkl8|ntkl64|buf1|buf8|buf64|comp1|comp8|comp64|perf|... rep=N <pingpong's summary>
#   KF round=R mode=M lost=N    events the recorder lost over the round
# and the floor of many loggers: one CSWITCH logger whose file fanout
# follows and writes again into 0, 7 or 63 more files (files0, files7,
# files63): what further files of the same bytes cost with no recording
# done for them, against which the 8 and 64 logger rows are measured. On
# xfs, the same with the files sharing the logger's blocks (fanout -c:
# clone0, clone7, clone63), what they would cost if loggers shared one
# stream of buffers and the blocks of their files.
KMODES="none ntkl1 ntkl8 ntkl64 buf1 buf8 buf64 comp1 comp8 comp64 files0 files7 files63 perf"
[ "$dest" != xfs ] || KMODES="$KMODES clone0 clone7 clone63"

# k_flags MODE: the flags of MODE's loggers (CSWITCH or COMPACT_CSWITCH)
k_flags() {
	case $1 in
	comp*) echo COMPACT_CSWITCH ;;
	*) echo CSWITCH ;;
	esac
}

# wait_ready NAME PID OUT LOG: until helper NAME (PID) prints "ready" in
# OUT; if it dies or takes a minute, die with its LOG
wait_ready() {
	local i=0

	until grep -qs '^ready' "$3"; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "$1 did not start: $(cat "$4")"
		kill -0 "$2" 2>/dev/null || die "$1 died: $(cat "$4")"
		sleep 0.1
	done
}

k_start() {
	local i=1 n

	case $1 in
	ntkl* | comp*)
		n=${1#ntkl}
		n=${n#comp}
		while [ $i -le "$n" ]; do
			rm -f "$W/k$i.etl"
			ntkl start "$LOGGER-$i" -on "$(k_flags "$1")" -f "$W/k$i.etl" > /dev/null ||
				die "cannot start logger $i of $n"
			i=$((i + 1))
		done
		;;
	buf*)
		n=${1#buf}
		while [ $i -le "$n" ]; do
			ntkl start "$LOGGER-$i" -on CSWITCH -buffering > /dev/null ||
				die "cannot start buffering logger $i of $n"
			i=$((i + 1))
		done
		;;
	files* | clone*)
		rm -f "$W/k1.etl" "$W"/fan*
		ntkl start "$LOGGER-1" -on CSWITCH -f "$W/k1.etl" > /dev/null ||
			die "cannot start the logger fanout follows"
		case $1 in
		files*) fanout "$W/k1.etl" "${1#files}" "$W/fan" > "$W/fanout.out" 2>&1 & ;;
		*) fanout -c "$W/k1.etl" "${1#clone}" "$W/fan" > "$W/fanout.out" 2>&1 & ;;
		esac
		fan_pid=$!
		wait_ready fanout "$fan_pid" "$W/fanout.out" "$W/fanout.out"
		;;
	perf)
		perf_start -a -e sched:sched_switch
		;;
	perf[0-9]*)
		n=${1#perf}
		perf_pids=
		while [ $i -le "$n" ]; do
			perf_start_one "$i" -a -e sched:sched_switch
			perf_pids="$perf_pids $perf_last"
			i=$((i + 1))
		done
		sleep 1
		;;
	esac
}

# Sets k_lost: what the recorder lost (ntkl: Events Lost; perf: its LOST
# and LOST_SAMPLES records). Not in a subshell: perf is this shell's child.
k_stop() {
	local i=1 n l

	k_lost=0
	case $1 in
	buf*)
		# a flight recorder overwrites its oldest buffers: nothing is lost
		n=${1#buf}
		while [ $i -le "$n" ]; do
			ntkl stop "$LOGGER-$i" > /dev/null || die "cannot stop buffering logger $i"
			i=$((i + 1))
		done
		;;
	files* | clone*)
		kill -TERM "$fan_pid"
		wait "$fan_pid" || die "fanout failed: $(cat "$W/fanout.out")"
		l=$(ntkl stop "$LOGGER-1" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
		k_lost=${l:-0}
		rm -f "$W/k1.etl" "$W"/fan*
		;;
	ntkl* | comp*)
		n=${1#ntkl}
		n=${n#comp}
		while [ $i -le "$n" ]; do
			l=$(ntkl stop "$LOGGER-$i" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
			k_lost=$((k_lost + ${l:-0}))
			rm -f "$W/k$i.etl"
			i=$((i + 1))
		done
		;;
	perf)
		perf_stop
		k_lost=$perf_lost
		;;
	perf[0-9]*)
		# shellcheck disable=SC2086 # perf_pids is a list of PIDs: one argument each
		kill -INT $perf_pids
		for l in $perf_pids; do
			perf_wait "$l" "$i"
			k_lost=$((k_lost + perf_lost))
			rm -f "$W/perf$i.data"
			i=$((i + 1))
		done
		;;
	esac
}

# The floor of the peers: two more K modes, in the same rotation:
#   probe   ntkl_emptyprobe.ko loaded: a probe doing nothing on sched_switch
#   tracecmd  trace-cmd record -e sched:sched_switch (as in the switch
#           section): the peers' ratios from this section's own runs
#   bpf     bpfcount: a BPF program on the raw sched_switch tracepoint that
#           adds one to a per-CPU counter
#   KB round=R switches=N ctxt=M   what bpfcount counted over the round,
#                                  and the /proc/stat ctxt delta meanwhile
# and the peers at ntkl's 8-logger scale, 8 sessions each recording
# sched_switch into a file of its own:
#   tracecmd8  8 trace-cmd records, each on an ftrace instance of its own
#   perf8      8 perf record -a -e sched:sched_switch
# (64 trace-cmds would need 256 readers and 360 MB of ring buffers at
# trace-cmd's default size in the 1 GB guest: no 64 row for the peers.)
KMODES="$KMODES probe bpf tracecmd tracecmd8 perf8"
# bpffs is registered iff the kernel has the bpf() system call
grep -qw bpf /proc/filesystems || {
	emit_text note "peers: this kernel has no bpf() (CONFIG_BPF_SYSCALL): no BPF counter row"
	KMODES=$(echo "$KMODES" | sed 's/ bpf//')
}

# kp_start MODE: the floor's modes, else k_start's
kp_start() {
	case $1 in
	probe)
		insmod /lib/modules/ntkl_emptyprobe.ko || die "cannot load ntkl_emptyprobe.ko"
		;;
	bpf)
		# else the wait below can find the last round's "ready" before
		# this bpfcount's shell has truncated the file, and runs start
		# before the program is attached
		rm -f "$W/bpf.out"
		bpfcount > "$W/bpf.out" 2> "$W/bpf.log" &
		bpf_pid=$!
		wait_ready bpfcount "$bpf_pid" "$W/bpf.out" "$W/bpf.log"
		;;
	tracecmd) tc_start ;;
	tracecmd[0-9]*) tc_start "${1#tracecmd}" ;;
	*) k_start "$1" ;;
	esac
}

# kp_stop MODE: sets k_lost (0 for probe and bpf, which keep nothing that
# could be lost; trace-cmd's from its CPU statistics); bpf prints its KB line.
kp_stop() {
	case $1 in
	probe)
		rmmod ntkl_emptyprobe || die "cannot unload ntkl_emptyprobe"
		k_lost=0
		;;
	bpf)
		kill -TERM "$bpf_pid"
		wait "$bpf_pid" || die "bpfcount failed: $(cat "$W/bpf.log")"
		emit bpf_count "round=$r" "$(sed -n 's/^bpfcount //p' "$W/bpf.out")"
		k_lost=0
		;;
	tracecmd)
		tc_stop > "$W/f"
		k_lost=$(sed -n 's/.*lost=\([0-9]*\).*/\1/p' "$W/f")
		;;
	tracecmd[0-9]*)
		tc_stop_n
		k_lost=$tc_lost
		;;
	*) k_stop "$1" ;;
	esac
}

if want peers; then
	command -v perf > /dev/null ||
		KMODES=$(for m in $KMODES; do case $m in perf*) ;; *) echo "$m" ;; esac; done)
	r=1
	while [ $r -le "$rounds" ]; do
		# shellcheck disable=SC2086 # KMODES is a list of words: one argument each
		order=$(rotate $(((r - 1) % $(echo "$KMODES" | wc -w))) $KMODES)
		for m in $order; do
			kp_start "$m"
			i=1
			while [ $i -le "$reps" ]; do
				emit peer_run "round=$r" "mode=$m" "rep=$i" "$(pingpong -c 1 "$trips")"
				i=$((i + 1))
			done
			kp_stop "$m"
			emit peer_lost "round=$r" "mode=$m" "lost=$k_lost"
		done
		r=$((r + 1))
	done
fi

# Spin locks: under no tracing, an ntkl SPINLOCK logger, and trace-cmd
# recording lock:contention_begin/end, without and with -T (a stack per
# event: the information of CallerAddress and more), alternating, rounds times, two
# workloads:
#   - ntkl_lockbench (a helper module): LB_ROUNDS rounds of exactly one
#     traced contention each, so a recorder's cost per contention shows;
#   - contend, spin_threads x spin_steps: the selftest's kind of workload,
#     whose contentions vary from run to run.
#   L round=R mode=M rounds=N ns=T records=N lost=N
#   S round=R mode=M <contend's summary> records=N lost=N
spin_threads=8
spin_steps=2000
LB_ROUNDS=2000

spin_start() {
	local i=0

	case $1 in
	spinlock)
		rm -f "$W/spin.etl"
		ntkl start "$LOGGER" -on SPINLOCK -maxbuffers 256 -f "$W/spin.etl" > /dev/null
		;;
	tracecmd|tracecmdT)
		rm -f "$W/tcl.dat"
		# tracecmdT: with -T, a kernel stack per event
		# shellcheck disable=SC2046 # -T or no argument at all, not an empty one
		trace-cmd record -C mono $([ "$1" = tracecmdT ] && echo -T) \
			-e lock:contention_begin -e lock:contention_end \
			-o "$W/tcl.dat" > "$W/tcl.log" 2>&1 &
		tc_pid=$!
		until tc_ready "$tc_pid" lock/contention_begin; do
			i=$((i + 1))
			[ $i -lt 600 ] || die "trace-cmd record (lock) did not start"
			sleep 0.1
		done
		;;
	esac
}

# Sets spin_result to "records=N lost=N": spin lock records (trace-cmd:
# spinning contentions). Not in a subshell: trace-cmd is this shell's child.
spin_stop() {
	local records=0 lost=0

	case $1 in
	spinlock)
		lost=$(ntkl stop "$LOGGER" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
		records=$(ntkl dump "$W/spin.etl" | awk '$4 == "0x0529" { print $1 }')
		;;
	tracecmd|tracecmdT)
		kill -INT "$tc_pid"
		wait "$tc_pid" || die "trace-cmd record (lock) failed"
		records=$(trace-cmd report -i "$W/tcl.dat" 2>/dev/null |
			  grep -c 'contention_begin:.*flags=SPIN[|)]' || true)
		;;
	esac
	spin_result="records=${records:-0} lost=${lost:-0}"
}

if want spin; then
	insmod /lib/modules/ntkl_lockbench.ko || die "cannot load ntkl_lockbench.ko"
	r=1
	while [ $r -le "$rounds" ]; do
		for m in $(rotate $(((r - 1) % 4)) none spinlock tracecmd tracecmdT); do
			spin_start "$m"
			echo "$LB_ROUNDS" > /proc/ntkl_lockbench || die "ntkl_lockbench failed"
			w=$(cat /proc/ntkl_lockbench)
			spin_stop "$m"
			emit lockbench "round=$r" "mode=$m" "$w" "$spin_result"
			spin_start "$m"
			w=$(contend "$spin_threads" "$spin_steps")
			spin_stop "$m"
			emit contend "round=$r" "mode=$m" "$w" "$spin_result"
		done
		r=$((r + 1))
	done
	rmmod ntkl_lockbench
fi
# libntkl: libntkl-bench's writer pinned to CPU 1 writes UM_EVENTS events
# with no logger, through a private logger, and through a compressed one,
# alternating, rounds times (no kernel logger runs meanwhile):
#   U round=R mode=none|um|umc events=N ns=T cpu=C lost=N bytes=B
if want um; then
	UM_EVENTS=${UM_EVENTS:-200000}
	r=1
	while [ $r -le "$rounds" ]; do
		for m in $(rotate $(((r - 1) % 3)) none um umc); do
			u=$(libntkl-bench -m "$m" -n "$UM_EVENTS" -o "$W/um.etl") ||
				die "libntkl-bench -m $m failed"
			emit libntkl "round=$r" "mode=$m" "$u"
		done
		r=$((r + 1))
	done
fi
# Storage (issue 36): what recording costs per file operation and per
# disk I/O. fileops pinned to CPU 1, REPS runs per recorder, the recorders
# alternating, rounds times, two workloads:
#   file    FILE_OPS 4 KiB preads and pwrites, alternating, of a 1 MiB
#           file already in the page cache (on /scratch when there is one,
#           else in /tmp): no disk under them. Recorders: none; ntkl
#           FILE_IO+FILE_IO_INIT+FILENAME (fileio: a FileIo Read or Write
#           and an OperationEnd per operation); trace-cmd recording the
#           syscall tracepoints syscalls:sys_enter/sys_exit_pread64 and
#           _pwrite64 (syscalls: two events per operation too; the
#           raw_syscalls sys_enter/sys_exit of every call where the kernel
#           has no per-call tracepoints)
#   direct  DISK_IOS O_DIRECT 4 KiB preads of a 16 MiB file on /scratch,
#           each one block request. Recorders: none; ntkl
#           DISK_IO+DISK_IO_INIT (diskio: a DiskIo ReadInit and a Read per
#           I/O); trace-cmd block:block_rq_issue and block:block_rq_complete
#           (block). Without a /scratch disk: a note, and no such rows.
#           With fileops' soaker on the last CPU (-S): while every vCPU
#           waits for the emulated disk, -icount's clock jumps to the next
#           timer, so these runs' wall time is mostly jumps; the soaker
#           keeps one vCPU busy, and busyns (wall time less the soaker's
#           instructions) is the work the guest did; but how much work
#           varies with the host's pace (timer ticks, whether fileops
#           sleeps before its read completes), by more than the recorders'
#           cost, so:
#   nullblk DISK_IOS O_DIRECT 4 KiB preads of /dev/nullb0, null_blk loaded
#           with irqmode=0: each a block request that completes where it
#           is issued, in the guest, with no emulated disk (vm-run ships
#           the module): the recorders' cost per request alone, under the
#           same recorders (no soaker; its wall time is all work).
#           Without null_blk: a note, and no such rows.
#   storage_run round mode rep workload io ops cpu cpuns [soak busyns] ns ...
#                      one run (io: file, nullblk or direct; soak, busyns:
#                      the direct runs)
#   storage_records round mode io ops events lost filebytes [reads writes
#           inits ends]   what the recorder kept over the round's REPS
#           runs of ops operations in all: ntkl, its records of the family
#           (FileIo or DiskIo: dump --stats' Events by name), of them the
#           Read and Write records, ReadInit+WriteInit and FileIo
#           OperationEnd; trace-cmd, the events of its CPU statistics
# The recorders write into DEST as everywhere: with DEST disk, their own
# writes are block requests on /scratch too.
FILE_OPS=${FILE_OPS:-20000}
DISK_IOS=${DISK_IOS:-2000}

# st_start IO MODE
st_start() {
	case $2 in
	fileio) ntkl_start FILE_IO+FILE_IO_INIT+FILENAME ;;
	diskio) ntkl_start DISK_IO+DISK_IO_INIT ;;
	syscalls) st_tc_start "$st_sys_events" ;;
	block) st_tc_start "-e block:block_rq_issue -e block:block_rq_complete" ;;
	esac
}

# st_tc_start "-e EVENT...": trace-cmd recording those events into
# $W/tc.dat (tc_pid; tc_stop stops it), once the first is on
st_tc_start() {
	local i=0 first

	first=$(echo "$1" | awk '{ sub(":", "/", $2); print $2 }')
	rm -f "$W/tc.dat"
	# shellcheck disable=SC2086 # a list of -e EVENT: one argument each
	trace-cmd record -C mono $1 -o "$W/tc.dat" > "$W/tc.log" 2>&1 &
	tc_pid=$!
	until tc_ready "$tc_pid" "$first"; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "trace-cmd record ($1) did not start: $(cat "$W/tc.log")"
		kill -0 "$tc_pid" 2>/dev/null || die "trace-cmd record ($1) died: $(cat "$W/tc.log")"
		sleep 0.1
	done
}

# st_stop IO MODE: prints "events=N lost=N filebytes=N", and for ntkl
# "reads=N writes=N inits=N ends=N" too (the hooks: DiskIo 0x010a Read,
# 0x010b Write, 0x010c/d ReadInit/WriteInit; FileIo 0x0443 Read, 0x0444
# Write, 0x044c OperationEnd; the family all of 0x01xx or 0x04xx)
st_stop() {
	local lost

	case $2 in
	none) echo "events=0 lost=0 filebytes=0" ;;
	syscalls|block)
		# not in a pipeline: only this shell may wait for trace-cmd
		tc_stop > "$W/tcf"
		sed 's/switches=/events=/; s/ evbytes=[0-9]*//; s/ rawbytes=[0-9]*//' "$W/tcf"
		;;
	*)
		lost=$(ntkl stop "$LOGGER" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
		[ -n "$lost" ] || die "ntkl stop printed no Events Lost"
		ntkl dump --stats "$W/ntkl.etl" | awk -v file="$(wc -c < "$W/ntkl.etl")" \
			-v lost="$lost" -v io="$1" '
			/^Events by name/ { f = 1; next }
			f && $2 == "total," { f = 0 }
			f && $1 ~ /^[0-9]+$/ && $2 ~ /^0x/ { n[$2] += $1 }
			END {
				fam = io == "file" ? "0x04" : "0x01"
				for (id in n)
					if (substr(id, 1, 4) == fam)
						ev += n[id]
				if (io == "file") {
					r = n["0x0443"]; w = n["0x0444"]; i = 0; e = n["0x044c"]
				} else {
					r = n["0x010a"]; w = n["0x010b"]
					i = n["0x010c"] + n["0x010d"]; e = 0
				}
				printf "events=%d lost=%d filebytes=%d reads=%d writes=%d inits=%d ends=%d\n",
					ev, lost, file, r, w, i, e
			}'
		;;
	esac
}

if want storage; then
	st_dir=${NTKL_SCRATCH:+$NTKL_SCRATCH/ntkl-bench-storage}
	mkdir -p "${st_dir:=$W}"
	if [ -d "$T/events/syscalls/sys_enter_pread64" ]; then
		st_sys_events="-e syscalls:sys_enter_pread64 -e syscalls:sys_exit_pread64 -e syscalls:sys_enter_pwrite64 -e syscalls:sys_exit_pwrite64"
	else
		st_sys_events="-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit"
		emit_text note "storage: this kernel has no syscalls: tracepoints (CONFIG_FTRACE_SYSCALLS): trace-cmd records raw_syscalls, every system call"
	fi
	# the files made (and the direct one written to disk) before any
	# recorder runs: no round records their making
	fileops -c 1 "$st_dir/file.dat" 0 > /dev/null || die "fileops cannot make its file"
	st_ios="file"
	if [ -f /lib/modules/extra/null_blk.ko ]; then
		# configfs may be built in
		[ ! -f /lib/modules/extra/configfs.ko ] || insmod /lib/modules/extra/configfs.ko 2>/dev/null || true
		insmod /lib/modules/extra/null_blk.ko nr_devices=1 queue_mode=2 irqmode=0 gb=1 bs=4096 ||
			die "cannot load null_blk"
		i=0
		until [ -b /dev/nullb0 ] || [ $i -ge 50 ]; do
			mdev -s 2>/dev/null || true
			sleep 0.1
			i=$((i + 1))
		done
		[ -b /dev/nullb0 ] || die "null_blk loaded, but no /dev/nullb0"
		ln -sf /dev/nullb0 "$st_dir/nullblk.dat"
		st_ios="$st_ios nullblk"
	else
		emit_text note "storage: no null_blk module: no rows of a disk that completes in the guest"
	fi
	if [ -n "${NTKL_SCRATCH:-}" ]; then
		fileops -c 1 -d "$st_dir/direct.dat" 0 > /dev/null ||
			die "fileops cannot make its O_DIRECT file"
		st_ios="$st_ios direct"
	else
		emit_text note "storage: no /scratch disk (scripts/vm-run makes one with mkfs.ext4): no disk I/O rows"
	fi
	# the soaker's CPU: the last one, never fileops' CPU 1
	st_soak=$(($(nproc) - 1))
	[ "$st_soak" != 1 ] || st_soak=0
	r=1
	while [ $r -le "$rounds" ]; do
		for io in $st_ios; do
			case $io in
			file) modes="none fileio syscalls" n=$FILE_OPS d= ;;
			nullblk) modes="none diskio block" n=$DISK_IOS d=-d ;;
			*) modes="none diskio block" n=$DISK_IOS d="-d -S $st_soak" ;;
			esac
			# shellcheck disable=SC2086 # modes is a list of words: one argument each
			for m in $(rotate $(((r - 1) % 3)) $modes); do
				st_start "$io" "$m"
				: > "$W/w"
				i=1
				while [ $i -le "$reps" ]; do
					# shellcheck disable=SC2086 # d: options or nothing at all
					w=$(fileops -c 1 $d "$st_dir/$io.dat" "$n") || die "fileops $d failed"
					# io= names the workload: direct or nullblk for -d
					w=$(echo "$w" | sed "s/ io=[a-z]* / io=$io /")
					emit storage_run "round=$r" "mode=$m" "rep=$i" "$w" >> "$W/w"
					i=$((i + 1))
				done
				# not in $(...): only this shell may wait for trace-cmd
				st_stop "$io" "$m" > "$W/f"
				# the file rows' dirty pages on disk now, not in the
				# disk rows' time
				[ "$io" != file ] || sync
				cat "$W/w"
				emit storage_records "round=$r" "mode=$m" "io=$io" \
					"ops=$((reps * n))" "$(cat "$W/f")"
			done
		done
		r=$((r + 1))
	done
	rm -rf "${st_dir:?}/file.dat" "$st_dir/direct.dat" "$st_dir/nullblk.dat"
	[ ! -b /dev/nullb0 ] || rmmod null_blk || die "cannot unload null_blk"
fi
# ---------------------------------------------------------------------------
# Events: what each of issue 47's producers costs per event, against
# trace-cmd recording the tracepoints the same events show on. eventmix,
# pinned to CPU 1, makes a known number of one kind of event a run
# (EV_OPS of them, REPS runs a recorder a round), under each recorder in
# turn (none, ntkl, trace-cmd), starting with the next one each round:
#   syscalls  getppid(): ntkl SYSCALL (SysClEnter, SysClExit); trace-cmd
#             raw_syscalls:sys_enter and sys_exit
#   faults    a page written in a new anonymous mapping: ntkl
#             ALL_FAULTS+VIRT_ALLOC (a DemandZeroFault a page; a
#             VirtualAlloc and VirtualFree a run); trace-cmd
#             exceptions:page_fault_user
#   tcp       a 4 KiB write over loopback TCP, read by a second thread: ntkl
#             NETWORKTRACE (TcpIp Send, Recv); trace-cmd
#             sock:sock_send_length and sock_recv_length (6.3 and later;
#             on older kernels syscalls:sys_exit_write and sys_exit_read)
# (MEMINFO_WS writes a snapshot every half second, whatever the workload:
# it has no cost per event to measure; IDLE_STATES is not written,
# docs/linux-to-nt.md says why.)
# A kind whose ntkl flag or trace-cmd events this kernel lacks is a note.
#   events_run round mode rep workload family ops cpu cpuns ns ...  one run
#   events_records round mode family ops events lost filebytes   what the
#           recorder kept over the round: ntkl, its records of the kind's
#           events (dump --stats' Events by name, by EV_NAMES); trace-cmd,
#           the events of its CPU statistics
EV_KINDS=${EV_KINDS:-syscalls faults tcp}

# ev_conf KIND: ev_ops, ev_flags, ev_names (an awk regex of the names of
# ntkl's events of it), ev_tc (trace-cmd's -e list)
ev_conf() {
	case $1 in
	syscalls)
		ev_ops=20000 ev_flags=SYSCALL ev_names='^PerfInfo/SysCl'
		ev_tc="-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit"
		;;
	faults)
		ev_ops=10000 ev_flags=ALL_FAULTS+VIRT_ALLOC ev_names='^PageFault/'
		ev_tc="-e exceptions:page_fault_user"
		;;
	tcp)
		ev_ops=5000 ev_flags=NETWORKTRACE ev_names='^(TcpIp|UdpIp)/'
		if [ -d "$T/events/sock/sock_send_length" ]; then
			ev_tc="-e sock:sock_send_length -e sock:sock_recv_length"
		else
			ev_tc="-e syscalls:sys_exit_write -e syscalls:sys_exit_read"
		fi
		;;
	esac
}

# ev_stop KIND MODE: "events=N lost=N filebytes=N"
ev_stop() {
	local lost

	case $2 in
	none) echo "events=0 lost=0 filebytes=0" ;;
	tracecmd)
		tc_stop > "$W/tcf"
		sed 's/switches=/events=/; s/ evbytes=[0-9]*//; s/ rawbytes=[0-9]*//' "$W/tcf"
		;;
	ntkl)
		lost=$(ntkl stop "$LOGGER" | sed -n 's/^Events Lost *: *\([0-9]*\).*/\1/p')
		[ -n "$lost" ] || die "ntkl stop printed no Events Lost"
		ntkl dump --stats "$W/ntkl.etl" | awk -v file="$(wc -c < "$W/ntkl.etl")" \
			-v lost="$lost" -v names="$ev_names" '
			/^Events by name/ { f = 1; next }
			f && $2 == "total," { f = 0 }
			f && $1 ~ /^[0-9]+$/ && $3 ~ names { ev += $1 }
			END { printf "events=%d lost=%d filebytes=%d\n", ev, lost, file }'
		;;
	esac
}

if want events; then
	# the guest's loopback is down until someone brings it up
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null ||
		emit_text note "events: cannot bring the loopback interface up"
	for kind in $EV_KINDS; do
		ev_conf "$kind"
		if ! ntkl start "$LOGGER" -on "$ev_flags" -f "$W/ntkl.etl" > "$W/ev.log" 2>&1; then
			emit_text note "events: $kind: ntkl cannot record $ev_flags here: $(head -1 "$W/ev.log")"
			continue
		fi
		ntkl stop "$LOGGER" > /dev/null
		missing=
		for e in $ev_tc; do
			[ "$e" = -e ] || [ -d "$T/events/$(echo "$e" | tr : /)" ] || missing="$missing $e"
		done
		if [ -n "$missing" ]; then
			emit_text note "events: $kind: no tracepoint$missing in this kernel: no trace-cmd row"
			modes="none ntkl"
		else
			modes="none ntkl tracecmd"
		fi
		r=1
		while [ $r -le "$rounds" ]; do
			# shellcheck disable=SC2086 # modes is a list of words: one argument each
			for m in $(rotate $(((r - 1) % 3)) $modes); do
				case $m in
				ntkl) ntkl_start "$ev_flags" ;;
				tracecmd) st_tc_start "$ev_tc" ;;
				esac
				: > "$W/w"
				i=1
				while [ $i -le "$reps" ]; do
					w=$(eventmix -c 1 "$kind" "$ev_ops") || die "eventmix $kind failed"
					emit events_run "round=$r" "mode=$m" "rep=$i" "$w" >> "$W/w"
					i=$((i + 1))
				done
				# not in $(...): only this shell may wait for trace-cmd
				ev_stop "$kind" "$m" > "$W/f"
				cat "$W/w"
				emit events_records "round=$r" "mode=$m" "family=$kind" \
					"ops=$((reps * ev_ops))" "$(cat "$W/f")"
			done
			r=$((r + 1))
		done
	done
fi
emit "done"
