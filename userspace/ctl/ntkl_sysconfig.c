// SPDX-License-Identifier: GPL-2.0
/*
 * SystemConfig PhyDisk and LogDisk from /sys/block and the mount table.
 * See ntkl_sysconfig.h.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ntkl_sysconfig.h"
#include "uapi/ntkl_events.h"

#define MAX_DISKS	64
#define MAX_PARTS	(MAX_DISKS * 16)

struct part {
	char dev[16];			/* "major:minor" */
	int disk;			/* index in disks[] */
	uint32_t disk_number;		/* the disk's DiskNumber: its diskseq */
	uint32_t number;		/* 0: the whole disk */
	uint64_t start, bytes;
};

struct sysconfig {
	const char *root;		/* $NTKL_SYSCONFIG_ROOT or "" */
	struct part parts[MAX_PARTS];	/* the disks themselves too */
	unsigned int nparts, ndisks;
	char root_dev[16];		/* the root filesystem's "major:minor" */
	uint8_t *buf;
	uint32_t size, pos;
	int64_t time;
	unsigned int records;
};

/* The first line of root + path, without its newline; "" if unreadable. */
static void read_line(const struct sysconfig *sc, const char *path, char *out, size_t size)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", sc->root, path);
	out[0] = 0;
	f = fopen(full, "r");
	if (!f)
		return;
	if (fgets(out, (int)size, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static uint64_t read_u64(const struct sysconfig *sc, const char *path)
{
	char line[64];

	read_line(sc, path, line, sizeof(line));
	return strtoull(line, NULL, 10);
}

static bool exists(const struct sysconfig *sc, const char *path)
{
	char full[512];

	snprintf(full, sizeof(full), "%s%s", sc->root, path);
	return access(full, F_OK) == 0;
}

/* ASCII into a UTF-16 array of n units, NUL-terminated, cut to fit. */
static void put_wstr(__u16 *dst, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i]; i++)
		dst[i] = (unsigned char)s[i];
	dst[i] = 0;
}

/* Room for a SYSTEM64 record of len payload bytes: its payload, or NULL. */
static uint8_t *record(struct sysconfig *sc, uint16_t hook, uint32_t len)
{
	struct system_trace_header h = {
		.marker = ETW_MARKER_SYSTEM64(2),
		.size = (uint16_t)(sizeof(h) + len),
		.hook_id = hook,
		.thread_id = (uint32_t)syscall(SYS_gettid),
		.process_id = (uint32_t)getpid(),
		.system_time = sc->time,
	};
	uint32_t need = (uint32_t)((sizeof(h) + len + ETW_RECORD_ALIGN - 1) &
				   ~(size_t)(ETW_RECORD_ALIGN - 1));
	uint8_t *p;

	if (sc->pos + need > sc->size)
		return NULL;
	p = sc->buf + sc->pos;
	memset(p, 0, need);
	memcpy(p, &h, sizeof(h));
	sc->pos += need;
	sc->records++;
	return p + sizeof(h);
}

/* Disks with a device (not loop, ram, zram), and their partitions. */
static void find_disks(struct sysconfig *sc)
{
	char path[512], dir[300];
	struct dirent *de, *pe;
	DIR *d, *pd;

	snprintf(dir, sizeof(dir), "%s/sys/block", sc->root);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && sc->ndisks < MAX_DISKS) {
		struct part *disk;

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "loop", 4) ||
		    !strncmp(de->d_name, "ram", 3) || !strncmp(de->d_name, "zram", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/device", de->d_name);
		if (!exists(sc, path) || sc->nparts >= MAX_PARTS)
			continue;
		disk = &sc->parts[sc->nparts++];
		memset(disk, 0, sizeof(*disk));
		disk->disk = (int)sc->ndisks++;
		/* the module's DiskIo records name a disk by its diskseq too */
		snprintf(path, sizeof(path), "/sys/block/%s/diskseq", de->d_name);
		disk->disk_number = (uint32_t)read_u64(sc, path);
		if (!disk->disk_number)
			disk->disk_number = (uint32_t)disk->disk;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		read_line(sc, path, disk->dev, sizeof(disk->dev));
		snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
		disk->bytes = read_u64(sc, path) * 512;
		/* its partitions: the entries with a "partition" file */
		snprintf(path, sizeof(path), "%s/sys/block/%s", sc->root, de->d_name);
		pd = opendir(path);
		while (pd && (pe = readdir(pd)) && sc->nparts < MAX_PARTS) {
			struct part *p = &sc->parts[sc->nparts];
			char base[300];

			snprintf(base, sizeof(base), "/sys/block/%.64s/%.64s", de->d_name, pe->d_name);
			snprintf(path, sizeof(path), "%s/partition", base);
			if (pe->d_name[0] == '.' || !exists(sc, path))
				continue;
			memset(p, 0, sizeof(*p));
			p->disk = disk->disk;
			p->disk_number = disk->disk_number;
			p->number = (uint32_t)read_u64(sc, path);
			snprintf(path, sizeof(path), "%s/dev", base);
			read_line(sc, path, p->dev, sizeof(p->dev));
			snprintf(path, sizeof(path), "%s/start", base);
			p->start = read_u64(sc, path) * 512;
			snprintf(path, sizeof(path), "%s/size", base);
			p->bytes = read_u64(sc, path) * 512;
			sc->nparts++;
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
}

/* The whole disk of index i, its /sys/block name in name. */
static const struct part *disk_of(const struct sysconfig *sc, int i)
{
	for (unsigned int k = 0; k < sc->nparts; k++)
		if (sc->parts[k].disk == i && !sc->parts[k].number)
			return &sc->parts[k];
	return NULL;
}

/* The /sys/block name of a disk, found again by its "major:minor". */
static bool disk_name(const struct sysconfig *sc, const struct part *disk, char *name,
		      size_t size)
{
	char dir[300], path[512], dev[16];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/block", sc->root);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/block/%.64s/dev", de->d_name);
		read_line(sc, path, dev, sizeof(dev));
		if (de->d_name[0] != '.' && !strcmp(dev, disk->dev)) {
			snprintf(name, size, "%.64s", de->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* sysfs pads a SCSI vendor and model with spaces */
static void trim(char *s)
{
	for (size_t k = strlen(s); k > 0 && s[k - 1] == ' '; k--)
		s[k - 1] = 0;
}

static void write_phydisk(struct sysconfig *sc, const struct part *disk)
{
	struct etw_config_phydisk pd = { 0 };
	char name[128], path[512], vendor[64], model[128], text[256], link[512];
	unsigned int h, c, t, l;
	uint8_t *p;
	ssize_t n;

	if (!disk_name(sc, disk, name, sizeof(name)))
		return;
	pd.disk_number = disk->disk_number;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/logical_block_size", name);
	pd.bytes_per_sector = (uint32_t)read_u64(sc, path);
	if (!pd.bytes_per_sector)
		pd.bytes_per_sector = 512;
	pd.sectors_per_track = 63;
	pd.tracks_per_cylinder = 255;
	pd.cylinders = disk->bytes / (512ull * 63 * 255);
	/* a SCSI disk's device is named host:channel:target:lun */
	snprintf(path, sizeof(path), "%s/sys/block/%s/device", sc->root, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		const char *last;

		link[n] = 0;
		last = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (sscanf(last, "%u:%u:%u:%u", &h, &c, &t, &l) == 4) {
			pd.scsi_port = h;
			pd.scsi_path = c;
			pd.scsi_target = t;
			pd.scsi_lun = l;
		}
	}
	snprintf(path, sizeof(path), "/sys/block/%s/device/vendor", name);
	read_line(sc, path, vendor, sizeof(vendor));
	snprintf(path, sizeof(path), "/sys/block/%s/device/model", name);
	read_line(sc, path, model, sizeof(model));
	trim(vendor);
	trim(model);
	if (model[0]) {
		snprintf(text, sizeof(text), "%s%s%s", vendor, vendor[0] ? " " : "", model);
	} else {
		/* a virtio disk has no model: its driver's name */
		snprintf(path, sizeof(path), "%s/sys/block/%s/device/driver", sc->root, name);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		snprintf(text, sizeof(text), "%s", n > 0 && strrchr(link, '/') ?
			 strrchr(link, '/') + 1 : name);
	}
	put_wstr(pd.manufacturer, 256, text);
	for (unsigned int k = 0; k < sc->nparts; k++)
		pd.partition_count += sc->parts[k].disk == disk->disk && sc->parts[k].number;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache", name);
	read_line(sc, path, text, sizeof(text));
	pd.write_cache_enabled = strstr(text, "back") != NULL;
	for (unsigned int k = 0; k < sc->nparts; k++)
		if (sc->parts[k].disk == disk->disk && sc->root_dev[0] &&
		    !strcmp(sc->parts[k].dev, sc->root_dev))
			put_wstr(pd.boot_drive_letter, 3, "/");
	p = record(sc, ETW_EVENT_CONFIG_PHYSICALDISK_HOOK, sizeof(pd));
	if (p)
		memcpy(p, &pd, sizeof(pd));
}

/* One mountinfo line: its device, mount point and type. */
static bool parse_mount(char *line, char **dev, char **mnt, char **type)
{
	char *save = NULL, *f[6], *dash;
	int i;

	dash = strstr(line, " - ");
	if (!dash)
		return false;
	*dash = 0;
	for (i = 0; i < 5; i++) {
		f[i] = strtok_r(i ? NULL : line, " ", &save);
		if (!f[i])
			return false;
	}
	*dev = f[2];
	*mnt = f[4];
	*type = strtok_r(dash + 3, " ", &save);
	return *type != NULL;
}

/* The mount table, under sc->root (a test's fake /proc), or NULL. */
static FILE *open_mountinfo(const struct sysconfig *sc)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", sc->root);
	return fopen(path, "r");
}

static void write_logdisks(struct sysconfig *sc)
{
	FILE *f = open_mountinfo(sc);
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct etw_config_logdisk ld = { 0 };
		char *dev, *mnt, *type;
		const struct part *part = NULL, *disk;
		struct statfs st;
		char sysmnt[512];
		uint8_t *p;

		line[strcspn(line, "\n")] = 0;
		if (!parse_mount(line, &dev, &mnt, &type))
			continue;
		for (unsigned int k = 0; k < sc->nparts && !part; k++)
			if (!strcmp(sc->parts[k].dev, dev))
				part = &sc->parts[k];
		disk = part ? disk_of(sc, part->disk) : NULL;
		snprintf(sysmnt, sizeof(sysmnt), "%s%s", sc->root, mnt);
		if (!part || !disk || statfs(sysmnt, &st))
			continue;
		ld.start_offset = part->start;
		ld.partition_size = part->bytes;
		ld.disk_number = part->disk_number;
		ld.size = sizeof(ld);
		ld.drive_type = 1;
		put_wstr(ld.drive_letter_string, 4, strcmp(mnt, "/") ? "" : "/");
		ld.partition_number = part->number;
		ld.bytes_per_sector = 512;
		ld.sectors_per_cluster = (uint32_t)(st.f_frsize / 512);
		ld.number_of_free_clusters = (int64_t)st.f_bavail;
		ld.total_number_of_clusters = (int64_t)st.f_blocks;
		put_wstr(ld.file_system, 16, type);
		p = record(sc, ETW_EVENT_CONFIG_LOGICALDISK_HOOK, sizeof(ld));
		if (p)
			memcpy(p, &ld, sizeof(ld));
	}
	fclose(f);
}

/* The root filesystem's "major:minor", from the mount table. */
static void find_root(struct sysconfig *sc)
{
	FILE *f = open_mountinfo(sc);
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *dev, *mnt, *type;

		if (parse_mount(line, &dev, &mnt, &type) && !strcmp(mnt, "/"))
			snprintf(sc->root_dev, sizeof(sc->root_dev), "%s", dev);
	}
	fclose(f);
}

unsigned int ntkl_sysconfig_disks(uint8_t *buf, uint32_t size,
				  const struct wmi_buffer_header *tmpl, int64_t seq,
				  int64_t time)
{
	static struct sysconfig sc;
	struct wmi_buffer_header bh = *tmpl;
	const char *root = getenv("NTKL_SYSCONFIG_ROOT");

	memset(&sc, 0, sizeof(sc));
	sc.root = root ? root : "";
	sc.buf = buf;
	sc.size = size;
	sc.pos = sizeof(bh);
	sc.time = time;
	if (size < sizeof(bh))
		return 0;
	find_root(&sc);
	find_disks(&sc);
	for (unsigned int i = 0; i < sc.ndisks; i++)
		if (disk_of(&sc, (int)i))
			write_phydisk(&sc, disk_of(&sc, (int)i));
	write_logdisks(&sc);
	if (!sc.records)
		return 0;
	memset(buf + sc.pos, ETW_BUFFER_FILL_BYTE, size - sc.pos);
	bh.buffer_size = size;
	bh.saved_offset = sc.pos;
	/* as the module closes a flushed buffer: a buffer's size past its end */
	bh.current_offset = sc.pos + size;
	bh.offset = sc.pos;
	bh.timestamp = time;
	bh.sequence_number = seq;
	bh.processor_index = 0;
	bh.buffer_type = ETW_BUFFER_TYPE_GENERIC;
	bh.buffer_flag = (uint16_t)((tmpl->buffer_flag & ~(ETW_BUFFER_FLAG_EVENTS_LOST |
							  ETW_BUFFER_FLAG_COMPRESSED)) |
				    ETW_BUFFER_FLAG_FLUSH_MARKER);
	memcpy(buf, &bh, sizeof(bh));
	return sc.records;
}
