#!/bin/bash
# ntkl-native-test: run by ntkl-native-test.service (scripts/native-test).
# Unpack the steps (run.sh, helpers.sh and the bundle) from the disk whose
# serial is ntkl-in, run them as root in a login environment, write
# /root/native-test/out as a tar to the disk ntkl-out, power off.
set -u
in=/dev/disk/by-id/virtio-ntkl-in
out=/dev/disk/by-id/virtio-ntkl-out
dir=/root/native-test
say() { echo "NTKL-NATIVE: $*" > /dev/console; }
i=0
while { [ ! -b $in ] || [ ! -b $out ]; } && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
if [ ! -b $in ] || [ ! -b $out ]; then
	say "NO-DISKS"
	systemctl poweroff --no-block
	exit 1
fi
rm -rf $dir
mkdir -p $dir/in $dir/out
if tar -xf $in -C $dir/in; then
	env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=vt220 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -l $dir/in/run.sh $dir/in $dir/out < /dev/null > $dir/out/run.log 2>&1
	echo $? > $dir/out/run.status
else
	say "CANNOT-UNPACK"
fi
if (cd $dir && tar -cf - out) > $out && sync; then
	say "SAVED"
else
	say "SAVE-FAILED"
fi
systemctl poweroff --no-block
