# shellcheck shell=bash
# What the guest's steps of scripts/native-test share (run.sh and
# secure-boot.sh source it, beside them on the disk ntkl-in): the
# helpers, the guest's facts and its network, the clone, the trace's
# check. The script that sources it sets in (the unpacked input) and res
# (where results go) first.
# shellcheck disable=SC2154 # in and res: set by the script that sources this
live=/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null && live=/dev/ttyS1
# on the console, and in order with the output on the live port
phase() {
	echo "$(date +%s) $*" >> "$res/phases"
	echo "NTKL-NATIVE-PHASE $*" > /dev/console
	echo "NTKL-NATIVE-PHASE $*" > "$live"
}
# each line of $1's output into $2 and $2.timed (its guest time in
# seconds first) and live to the host
logged() {
	local log=$1 line
	shift
	: > "$log"
	: > "$log.timed"
	"$@" 2>&1 | while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line" >> "$log"
		printf '%(%s)T %s\n' -1 "$line" >> "$log.timed"
		printf '%s\n' "$line" > "$live"
	done
}
status_of() {
	local file=$1
	shift
	"$@"
	echo $? > "$file"
}
# the kernel, the network, the packages; then a wait for DNS (apt needs it)
guest_facts() {
	local i=0
	uname -r > "$res/kver"
	ip -brief addr > "$res/net.txt" 2>&1
	cp /etc/apt/sources.list "$res/sources.list"
	dpkg-query -W -f='${Package} ${Version}\n' > "$res/packages-before.txt"
	while ! getent hosts deb.debian.org > /dev/null && [ $i -lt 60 ]; do
		sleep 2
		i=$((i + 1))
	done
	getent hosts deb.debian.org > /dev/null || echo "no DNS: deb.debian.org does not resolve" > "$res/network-failed"
}
clone_bundle() {
	logged "$res/clone.log" status_of "$res/clone.status" git clone -b main "$in/ntkl.bundle" /root/ntkl
	git -C /root/ntkl log -1 --format='%H %s' > "$res/commit" 2>&1
}
# dump --check and report on the trace $1, its context switches
check_trace() {
	local ntkl=/root/ntkl/build/userspace/ntkl
	if [ -x $ntkl ] && [ -f "$1" ]; then
		logged "$res/check.log" status_of "$res/check.status" $ntkl dump --check "$1"
		logged "$res/report.log" status_of "$res/report.status" $ntkl report "$1"
		$ntkl dump --switches "$1" 2> "$res/switches.err" | grep -vc '^#' > "$res/switches"
		$ntkl version > "$res/version.txt" 2>&1
	fi
}
# the capture phase (scripts/capture --native -o $1, from the clone) and
# the check phase of its trace, its copy kept in $res
capture_and_check() {
	phase capture
	cd /root/ntkl || exit 1
	start=$(date +%s)
	logged "$res/capture.log" status_of "$res/capture.status" scripts/capture --native -o "$1"
	echo $(($(date +%s) - start)) > "$res/capture.seconds"
	cp "$1" "$res/$(basename "$1")" 2>/dev/null
	phase check
	check_trace "$1"
	lsmod > "$res/lsmod.txt"
}
