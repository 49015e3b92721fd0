#!/bin/bash
# The steps of scripts/native-test, in the guest.
set -u
in=$1 res=$2
# what both modes share, beside this file on the disk ntkl-in
# shellcheck source=scripts/native-test.d/helpers.sh
. "$in/helpers.sh"

phase booted
guest_facts

phase clone
clone_bundle

capture_and_check /root/native.etl
cp /var/log/apt/history.log "$res/apt-history.log" 2>/dev/null
dpkg-query -W -f='${Package} ${Version}\n' > "$res/packages-after.txt"
df -h / > "$res/df.txt"
ls -l /root/ntkl/build/ko/*/ntkl.ko > "$res/ko.txt" 2>&1

# Not the verdict: README's command as it is (where: auto), once more with
# ntkl.ko loaded already: it should record here again, and quickly.
phase again
logged "$res/again.log" status_of "$res/again.status" scripts/capture -o /root/again.etl
lsmod > "$res/lsmod.txt"

# Another ntkl.ko (another clone's: a different srcversion) loaded and in
# use: capture records with it and says so; once it is not in use,
# capture unloads it and loads this clone's.
phase other-build
rm -rf /root/other
cp -a /root/ntkl /root/other
echo 'MODULE_INFO(ntkl_native_test, "another clone");' >> /root/other/module/control/device.c
logged "$res/other-build.log" status_of "$res/other-build.status" \
	env MAKEFLAGS="-j$(nproc)" /root/other/scripts/build-module "$(uname -r)"
phase other-in-use
rmmod ntkl 2>/dev/null
insmod "/root/other/build/ko/$(uname -r)/ntkl.ko" 2> "$res/other-insmod.err"
cat /sys/module/ntkl/srcversion > "$res/other-srcversion" 2>/dev/null
# shellcheck disable=SC2217 # sleep reads nothing: the open /dev/ntkl is the point
sleep 3600 < /dev/ntkl &	# holds ntkl.ko: rmmod says it is in use
holder=$!
logged "$res/other-in-use.log" status_of "$res/other-in-use.status" scripts/capture -o /root/other-in-use.etl
kill $holder
wait $holder 2>/dev/null
phase other-unused
logged "$res/other-unused.log" status_of "$res/other-unused.status" scripts/capture -o /root/other-unused.etl
cat /sys/module/ntkl/srcversion > "$res/after-srcversion" 2>/dev/null
modinfo -F srcversion "build/ko/$(uname -r)/ntkl.ko" > "$res/this-srcversion" 2>&1

# A kernel that loads only signed modules (as Secure Boot makes it; here
# module.sig_enforce, which can be turned on while running): --native
# with no key says how to make one; with a key the kernel does not trust
# (not enrolled: this guest has no UEFI), capture signs ntkl.ko with it
# and says the key wants enrolling.
phase signed-no-key
rmmod ntkl 2>/dev/null
rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
echo 1 > /sys/module/module/parameters/sig_enforce
logged "$res/signed-no-key.log" status_of "$res/signed-no-key.status" scripts/capture --native -o /root/signed.etl
phase signed-key
logged "$res/module-key-create.log" status_of "$res/module-key-create.status" scripts/module-key create
logged "$res/signed-key.log" status_of "$res/signed-key.status" scripts/capture --native -o /root/signed.etl
modinfo -F signer "build/ko/$(uname -r)/ntkl-signed.ko" > "$res/signer" 2>&1
scripts/module-key > "$res/module-key-status" 2>&1

# Not the verdict: does --native fail with a clear line where the module
# cannot be loaded? (ntkl out, module loading off until the next boot.)
phase negative
if grep -qw '^ntkl' "$res/lsmod.txt"; then
	rmmod ntkl 2> "$res/negative-rmmod.err" || echo "rmmod ntkl failed" >> "$res/negative-rmmod.err"
fi
echo 1 > /proc/sys/kernel/modules_disabled
logged "$res/negative.log" status_of "$res/negative.status" scripts/capture --native -o /root/negative.etl

# the kernel's log to the end: ntkl's load, both captures and its unload
dmesg > "$res/dmesg.txt"
phase finished
