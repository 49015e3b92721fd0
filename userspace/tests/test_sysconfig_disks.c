// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_sysconfig_disks() on a fake /sys and /proc ($NTKL_SYSCONFIG_ROOT):
 * a SCSI disk with one partition holding the root filesystem, a virtio
 * disk without partitions, a loop device (left out). PhyDisk and LogDisk
 * must carry what the files say, in Windows' v2 layouts.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "ctl/ntkl_sysconfig.h"
#include "uapi/ntkl_events.h"

static char root[256];

static void put(const char *path, const char *text)
{
	char full[512], dir[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(dir, sizeof(dir), "mkdir -p \"$(dirname '%s')\"", full);
	if (system(dir))
		test_fail("mkdir for %s", path);
	f = fopen(full, "w");
	if (!f) {
		test_fail("cannot write %s", full);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *path, const char *target)
{
	char full[512], dir[1200];

	snprintf(full, sizeof(full), "%s%s", root, path);
	/* the link's directory and, as in sysfs, what it points to */
	snprintf(dir, sizeof(dir), "d=\"$(dirname '%s')\"; mkdir -p \"$d\" \"$d/%s\"", full,
		 target);
	if (system(dir) || symlink(target, full))
		test_fail("symlink %s", path);
}

static void fake_machine(void)
{
	snprintf(root, sizeof(root), "%s/ntkl-test-sysconfig-%d",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	link_to("/sys/block/sda/device", "../../../devices/pci0000:00/host0/target0:0:1/0:0:1:0");
	put("/sys/block/sda/dev", "8:0\n");
	put("/sys/block/sda/size", "2097152\n");
	put("/sys/block/sda/queue/logical_block_size", "4096\n");
	put("/sys/block/sda/queue/write_cache", "write through\n");
	put("/sys/block/sda/device/vendor", "ATA     \n");
	put("/sys/block/sda/device/model", "FAKEDISK        \n");
	put("/sys/block/sda/sda1/partition", "1\n");
	put("/sys/block/sda/sda1/dev", "8:1\n");
	put("/sys/block/sda/sda1/start", "2048\n");
	put("/sys/block/sda/sda1/size", "1000000\n");
	link_to("/sys/block/vdb/device", "../../../devices/pci0000:00/virtio3");
	link_to("/sys/block/vdb/device/driver", "../../../bus/virtio/drivers/virtio_blk");
	put("/sys/block/vdb/dev", "254:16\n");
	put("/sys/block/vdb/size", "409600\n");
	put("/sys/block/vdb/queue/write_cache", "write back\n");
	put("/sys/block/loop0/dev", "7:0\n");
	link_to("/sys/block/loop0/device", "../../x");
	put("/proc/self/mountinfo",
	    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
	    "23 22 0:21 / /proc rw - proc proc rw\n");
}

int main(void)
{
	static uint8_t buf[65536];
	struct wmi_buffer_header tmpl = { .buffer_size = sizeof(buf), .buffer_flag = 0x20 };
	struct etw_config_phydisk pd[2];
	struct etw_config_logdisk ld;
	const struct system_trace_header *h;
	struct wmi_buffer_header bh;
	uint32_t pos = sizeof(bh);
	char cmd[300];

	test_begin("fake_machine_disks");
	fake_machine();
	setenv("NTKL_SYSCONFIG_ROOT", root, 1);
	CHECK_EQ(ntkl_sysconfig_disks(buf, sizeof(buf), &tmpl, 7, 12345), 3);
	memcpy(&bh, buf, sizeof(bh));
	CHECK_EQ(bh.sequence_number, 7);
	CHECK(bh.buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER);
	for (int i = 0; i < 2; i++) {
		h = (const void *)(buf + pos);
		CHECK_EQ(h->hook_id, ETW_EVENT_CONFIG_PHYSICALDISK_HOOK);
		CHECK_EQ(h->marker, ETW_MARKER_SYSTEM64(2));
		CHECK_EQ(h->system_time, 12345);
		memcpy(&pd[i], buf + pos + sizeof(*h), sizeof(pd[i]));
		pos += (h->size + 7u) & ~7u;
	}
	/* readdir order is the file system's: find each disk by its size */
	if (pd[0].cylinders != 2097152ull * 512 / (512 * 63 * 255)) {
		struct etw_config_phydisk t = pd[0];

		pd[0] = pd[1];
		pd[1] = t;
	}
	CHECK_EQ(pd[0].bytes_per_sector, 4096);
	CHECK_EQ(pd[0].scsi_target, 1);
	CHECK_EQ(pd[0].partition_count, 1);
	CHECK_EQ(pd[0].write_cache_enabled, 0);
	CHECK_EQ(pd[0].manufacturer[0], 'A');
	CHECK_EQ(pd[0].manufacturer[4], 'F');
	CHECK_EQ(pd[0].manufacturer[12], 0);	/* "ATA FAKEDISK", padding cut */
	CHECK_EQ(pd[0].boot_drive_letter[0], '/');
	CHECK_EQ(pd[1].bytes_per_sector, 512);
	CHECK_EQ(pd[1].write_cache_enabled, 1);
	CHECK_EQ(pd[1].manufacturer[0], 'v');	/* virtio_blk */
	CHECK_EQ(pd[1].boot_drive_letter[0], 0);
	h = (const void *)(buf + pos);
	CHECK_EQ(h->hook_id, ETW_EVENT_CONFIG_LOGICALDISK_HOOK);
	memcpy(&ld, buf + pos + sizeof(*h), sizeof(ld));
	CHECK_EQ(ld.start_offset, 2048ull * 512);
	CHECK_EQ(ld.partition_size, 1000000ull * 512);
	CHECK_EQ(ld.disk_number, pd[0].disk_number);
	CHECK_EQ(ld.size, 112);
	CHECK_EQ(ld.partition_number, 1);
	CHECK_EQ(ld.drive_letter_string[0], '/');
	CHECK_EQ(ld.file_system[0], 'e');
	CHECK(ld.total_number_of_clusters > 0);
	CHECK_EQ(bh.saved_offset, pos + ((h->size + 7u) & ~7u));
	test_end();

	test_begin("no_disk_no_buffer");
	setenv("NTKL_SYSCONFIG_ROOT", "/nonexistent-ntkl-root", 1);
	CHECK_EQ(ntkl_sysconfig_disks(buf, sizeof(buf), &tmpl, 7, 12345), 0);
	test_end();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		return 1;
	return test_exit();
}
