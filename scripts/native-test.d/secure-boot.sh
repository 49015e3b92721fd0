#!/bin/bash
# The steps of scripts/native-test --secure-boot, in the guest.
set -u
in=$1 out=$2
state=/root/sb-test
res=$state/res
mkdir -p "$res"
# what both modes share, beside this file on the disk ntkl-in
# shellcheck source=scripts/native-test.d/helpers.sh
. "$in/helpers.sh"
password=$(cat "$in/mok-password")

# what Secure Boot and lockdown look like from here, at each boot ($1)
sb_facts() {
	cat /sys/kernel/security/lockdown > "$res/lockdown-$1" 2>&1
	cat /sys/module/module/parameters/sig_enforce > "$res/sig-enforce-$1" 2>&1
	mokutil --sb-state > "$res/sb-state-$1" 2>&1
	dmesg | grep -iE 'x\.509|secure ?boot|lockdown|MokList' > "$res/certs-$1.txt"
}

case $(cat $state/part 2>/dev/null) in
'')
	# 1. No key yet: capture says so; module-key create makes one and asks
	# shim to enroll it at the next boot
	echo enroll > $state/part
	phase booted
	guest_facts
	phase clone
	clone_bundle
	cd /root/ntkl || exit 1
	phase sb-nokey
	logged "$res/sb-nokey.log" status_of "$res/sb-nokey.status" scripts/capture --native -o /root/sb-nokey.etl
	# mokutil: capture's install-deps --native installed it
	sb_facts 1
	phase module-key-create
	rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	# the password twice on standard input (a pipe, not a terminal)
	# shellcheck disable=SC2016 # $1: the inner sh's argument
	logged "$res/module-key-create.log" status_of "$res/module-key-create.status" \
		sh -c 'printf "%s\n%s\n" "$1" "$1" | scripts/module-key create' sh "$password"
	mokutil --list-new > "$res/mok-new.txt" 2>&1
	if grep -q '^module-key: reboot now' "$res/module-key-create.log"; then
		phase reboot
		sync
		# the service is stopped (killed) on the way down
		systemctl reboot --no-block
		sleep infinity
	fi
	;;
enroll)
	# 2. After the MOK manager: the key enrolled, capture signs ntkl.ko
	# with it and records
	echo after > $state/part
	phase rebooted
	uname -r > "$res/kver-2"
	sb_facts 2
	mokutil --list-enrolled > "$res/mok-enrolled.txt" 2>&1
	mokutil --list-new > "$res/mok-new-2.txt" 2>&1
	cd /root/ntkl || exit 1
	scripts/module-key > "$res/module-key-status" 2>&1
	capture_and_check /root/sb.etl
	modinfo -F signer "build/ko/$(uname -r)/ntkl-signed.ko" > "$res/signer" 2>&1
	# README's other way in: make install signs the installed ntkl.ko,
	# which modprobe must then load
	phase install
	rmmod ntkl 2> "$res/install-rmmod.err"
	logged "$res/install.log" status_of "$res/install.status" make install
	# shellcheck disable=SC2016 # expanded by the inner sh, after modprobe
	logged "$res/modprobe.log" status_of "$res/modprobe.status" \
		sh -c 'modprobe ntkl && echo "modprobe ntkl: loaded, srcversion $(cat /sys/module/ntkl/srcversion)"'
	modinfo -F signer "/lib/modules/$(uname -r)/extra/ntkl.ko" > "$res/installed-signer" 2>&1
	dmesg > "$res/dmesg.txt"
	phase finished
	;;
*)
	# a boot after part 2 began (a panic's reboot, say): it does not run twice
	phase rebooted-again
	echo "the guest booted again during part 2" > "$res/rebooted-again"
	dmesg > "$res/dmesg-again.txt"
	;;
esac
cp -a "$res/." "$out/"
