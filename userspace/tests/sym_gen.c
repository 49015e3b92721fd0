// SPDX-License-Identifier: GPL-2.0
/*
 * sym_gen OUT.etl ITEM...: a small trace for scripts/test_symbols, as the
 * module writes one (docs/symbols.md): for each
 *
 *	image PATH BASE SIZE PID ID
 *
 * an ImageID, a DbgID record and an Image DCStart record, one after the
 * other at one time; ID is the GUID's 16 bytes in hex (a DbgID_RSDS
 * record, age 1, PdbFileName the path's last component + ".pdb"),
 * "none" (DbgID_NONE) or "-" (no ImageID or DbgID record: an older
 * trace). For each
 *
 *	frames PID ADDR,ADDR,...
 *
 * a StackWalk record of those addresses (hex). Numbers are hex.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_synth.h"
#include "etl/etl_utf16.h"

static const uint8_t image_id_guid[16] = {
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde,
};

static void classic(struct synth *s, uint8_t type, int64_t time, uint32_t pid,
		    const void *payload, uint32_t len)
{
	struct event_trace_header h = {
		.size = (uint16_t)(sizeof(h) + len),
		.header_type = ETW_HEADER_TYPE_FULL_HEADER64,
		.marker_flags = 0xC0,
		.type = type,
		.version = 2,
		.thread_id = UINT32_MAX,
		.process_id = pid,
		.timestamp = time,
	};

	memcpy(h.guid, image_id_guid, 16);
	s->last_time = time;
	synth_raw(s, &h, sizeof(h), payload, len);
}

static int image(struct synth *s, int64_t time, char **a)
{
	const char *path = a[0], *id = a[4], *slash = strrchr(path, '/');
	uint64_t base = strtoull(a[1], NULL, 16), size = strtoull(a[2], NULL, 16);
	uint32_t pid = (uint32_t)strtoul(a[3], NULL, 16);
	uint8_t buf[2048];
	size_t n;

	if (strcmp(id, "-")) {
		/* ImageID: ImageBase, ImageSize, ProcessId, TimeDateStamp, OriginalFileName */
		n = 0;
		memcpy(buf, &base, 8);
		memcpy(buf + 8, &size, 8);
		memcpy(buf + 16, &pid, 4);
		memset(buf + 20, 0, 4);
		n = 24 + etl_utf8_to_utf16(slash ? slash + 1 : path, buf + 24, sizeof(buf) - 24);
		classic(s, 0, time, pid, buf, (uint32_t)n);
	}
	if (!strcmp(id, "none")) {
		memcpy(buf, &base, 8);
		memcpy(buf + 8, &pid, 4);
		classic(s, 0x20, time, pid, buf, 12);
	} else if (strcmp(id, "-")) {
		uint32_t age = 1;

		if (strlen(id) != 32)
			return -1;
		memcpy(buf, &base, 8);
		memcpy(buf + 8, &pid, 4);
		for (int i = 0; i < 16; i++) {
			unsigned int b;

			if (sscanf(id + 2 * i, "%2x", &b) != 1)
				return -1;
			buf[12 + i] = (uint8_t)b;
		}
		memcpy(buf + 28, &age, 4);
		n = (size_t)snprintf((char *)buf + 32, sizeof(buf) - 32, "%s.pdb",
				     slash ? slash + 1 : path) + 33;
		classic(s, 36, time, pid, buf, (uint32_t)n);
	}
	struct etw_image_v3 img = { .image_base = base, .image_size = size, .process_id = pid };

	memcpy(buf, &img, sizeof(img));
	n = sizeof(img) + etl_utf8_to_utf16(path, buf + sizeof(img), sizeof(buf) - sizeof(img));
	synth_record(s, ETW_EVENT_IMAGE_DC_START_HOOK, 3, time, buf, (uint32_t)n);
	return 0;
}

static void frames(struct synth *s, int64_t time, char **a)
{
	uint8_t buf[16 + 8 * ETW_STACK_MAX_FRAMES];
	struct etw_stack_walk sw = {
		.event_time_stamp = time,
		.stack_process = (uint32_t)strtoul(a[0], NULL, 16),
		.stack_thread = 1,
	};
	size_t n = sizeof(sw);
	char *p = a[1];

	memcpy(buf, &sw, sizeof(sw));
	while (*p && n + 8 <= sizeof(buf)) {
		uint64_t addr = strtoull(p, &p, 16);

		memcpy(buf + n, &addr, 8);
		n += 8;
		if (*p == ',')
			p++;
	}
	synth_record(s, ETW_EVENT_STACK_WALK_HOOK, 2, time, buf, (uint32_t)n);
}

int main(int argc, char **argv)
{
	struct synth s;
	int64_t time = SYNTH_START_CLOCK + 10;
	uint8_t *img;
	size_t size;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: sym_gen OUT.etl [image PATH BASE SIZE PID ID | frames PID ADDRS]...\n");
		return 2;
	}
	synth_begin(&s, 65536, 1);
	synth_buffer(&s, 0);
	for (int i = 2; i < argc; time++) {
		if (!strcmp(argv[i], "image") && i + 5 < argc) {
			if (image(&s, time, argv + i + 1)) {
				fprintf(stderr, "sym_gen: bad ID '%s': 32 hex digits, none or -\n", argv[i + 5]);
				return 2;
			}
			i += 6;
		} else if (!strcmp(argv[i], "frames") && i + 2 < argc) {
			frames(&s, time, argv + i + 1);
			i += 3;
		} else {
			fprintf(stderr, "sym_gen: bad item '%s'\n", argv[i]);
			return 2;
		}
	}
	img = synth_end(&s, &size);
	if (!img) {
		fprintf(stderr, "sym_gen: the records do not fit one 64 KiB buffer\n");
		return 1;
	}
	f = fopen(argv[1], "wb");
	if (!f || fwrite(img, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "sym_gen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	free(img);
	return 0;
}
