/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The images (code files) of an ETL file and the addresses they cover, as
 * WPA and TraceEvent resolve addresses: from the Image DCStart, DCEnd,
 * Load and UnLoad events (0x1403, 0x1404, 0x140A, 0x1402, version 3, and
 * version 2, which has the same layout).
 * Each image is its process's (ProcessId) or, with ProcessId 0, the
 * kernel's: a kernel address (top bit set) is looked up among those, a
 * user address among its process's. An image seen twice (DCStart and
 * DCEnd, Load and UnLoad) is one entry; lifetimes are not kept, so an
 * address range a process reused for another file resolves to either.
 */
#ifndef NTKL_ETL_IMAGES_H
#define NTKL_ETL_IMAGES_H

#include <stddef.h>
#include <stdint.h>

#include "etl_reader.h"

struct etl_image {
	uint64_t base, size;
	uint32_t pid;			/* 0: a kernel image */
	char name[96];			/* the FileName's last component, UTF-8 */
};

struct etl_images {
	struct etl_image *v;		/* sorted by pid, then base */
	size_t n;
};

/* Read f's images into m. 0, or -1 with err set; etl_images_free() either way. */
int etl_images_read(const struct etl_file *f, struct etl_images *m, struct etl_error *err);

/* The image holding addr for process pid (kernel images for a kernel address); NULL if none. */
const struct etl_image *etl_images_find(const struct etl_images *m, uint32_t pid, uint64_t addr);

void etl_images_free(struct etl_images *m);

#endif /* NTKL_ETL_IMAGES_H */
