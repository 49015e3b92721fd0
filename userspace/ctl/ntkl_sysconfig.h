/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SystemConfig PhyDisk (0x0B0B) and LogDisk (0x0B0C), v2 as Windows writes
 * them, which the module cannot write: the kernel gives modules neither
 * the list of block devices nor the mount table. The file's writer adds
 * them in one buffer of its own after the logger's last, as Windows writes
 * SystemConfig at the end of a trace (docs/linux-to-nt.md, "SystemConfig"):
 *
 *   PhyDisk   one per whole disk of /sys/block that has a device (not
 *             loop, ram or zram devices): its diskseq as DiskNumber
 *             (the number the module's DiskIo records give it; its
 *             index in that order where sysfs has no diskseq),
 *             logical block size, the conventional 255 heads x 63 sectors
 *             geometry with Cylinders from its size (as Windows reports a
 *             disk without a real geometry), the SCSI address from its
 *             device's name (host:channel:target:lun) where it is a SCSI
 *             disk, else 0, Manufacturer "vendor model" (or the driver's
 *             name), its partitions, its write cache, BootDriveLetter "/"
 *             for the disk of the root filesystem;
 *   LogDisk   one per mounted filesystem on such a disk or one of its
 *             partitions (/proc/self/mountinfo): offset and size of the
 *             partition, the disk's DiskNumber, DriveType 1 as Windows' fixed
 *             disks, DriveLetterString "/" for the root filesystem and
 *             empty otherwise (a mount point does not fit its 3
 *             characters), partition number, cluster size and the free
 *             and total clusters from statfs(), FileSystem the mount's
 *             type ("ext4").
 *
 * Paths start at $NTKL_SYSCONFIG_ROOT when it is set (the unit tests'
 * fake /sys and /proc).
 */
#ifndef NTKL_SYSCONFIG_H
#define NTKL_SYSCONFIG_H

#include <stdint.h>

#include "uapi/ntkl_etw.h"

/*
 * Fill buf (size bytes: one buffer) with the PhyDisk and LogDisk records,
 * stamped time, in a buffer whose header is tmpl's (a data buffer of the
 * same logger) with SequenceNumber seq, CPU 0 and the flush marker (the
 * file's last buffer). Returns the records written; 0 (no disk) leaves
 * buf unused.
 */
unsigned int ntkl_sysconfig_disks(uint8_t *buf, uint32_t size,
				  const struct wmi_buffer_header *tmpl, int64_t seq,
				  int64_t time);

#endif /* NTKL_SYSCONFIG_H */
