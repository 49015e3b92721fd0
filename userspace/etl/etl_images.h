/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The images (code files) of an ETL file, the addresses they cover and
 * their identities, as WPA and TraceEvent resolve addresses: from the
 * Image DCStart, DCEnd, Load and UnLoad events (0x1403, 0x1404, 0x140A,
 * 0x1402, version 3, and version 2, which has the same layout).
 * Each image is its process's (ProcessId) or, with ProcessId 0, the
 * kernel's: a kernel address (top bit set) is looked up among those, a
 * user address among its process's. An image seen twice (DCStart and
 * DCEnd, Load and UnLoad) is one entry, the time of its first record
 * kept: of the images of a process that hold an address (a forked child
 * lists its parent's, then an exec loads its own where they may lie), the
 * one loaded last before the address's time is the one there.
 *
 * Its identity is KernelTraceControl's DbgID record (class b3e675d7-...,
 * DbgID_RSDS: GUID, age, PDB name; DbgID_NONE: none) written just before
 * the Image record in its CPU's buffers, with the same ImageBase,
 * ProcessId and time (the module writes ImageID, DbgID, Image together;
 * docs/symbols.md).
 *
 * Records are fed one at a time (etl_images_add(), so a reader that
 * walks the file for more than images walks it once; etl_model.h), then
 * etl_images_finish() sorts and merges them.
 */
#ifndef NTKL_ETL_IMAGES_H
#define NTKL_ETL_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl_reader.h"

struct etl_image {
	uint64_t base, size;
	uint32_t pid;			/* 0: a kernel image */
	char name[96];			/* the FileName's last component, UTF-8 */
	char *path;			/* the FileName, UTF-8 */
	int64_t first_time;		/* its first Image record's (Load, DCStart) */
	bool has_rsds;			/* a DbgID_RSDS record names its PDB */
	bool has_none;			/* a DbgID_NONE record: no identity */
	uint8_t guid[16];		/* as stored (Windows byte order) */
	uint32_t age;
	char pdb_name[256];
};

struct etl_image_pending;

struct etl_images {
	struct etl_image *v;		/* sorted by pid, then base (after finish) */
	size_t n;
	unsigned long rsds_records, none_records;
	size_t cap;
	struct etl_image_pending *pend;	/* per CPU: a DbgID record waiting for its Image */
};

/* Take r if it is an Image or DbgID record. 0, or -1 out of memory. */
int etl_images_add(struct etl_images *m, const struct etl_record *r);

/* Sort the images and merge an image's records into one entry. */
void etl_images_finish(struct etl_images *m);

/*
 * The image holding addr for process pid at time (kernel images for a
 * kernel address); INT64_MAX: the one loaded last. NULL if none.
 */
const struct etl_image *etl_images_find(const struct etl_images *m, uint32_t pid, uint64_t addr,
					int64_t time);

void etl_images_free(struct etl_images *m);

#endif /* NTKL_ETL_IMAGES_H */
