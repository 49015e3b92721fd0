// SPDX-License-Identifier: GPL-2.0
/*
 * Image identities (ImageID, DbgID_RSDS, DbgID_NONE before each Image
 * record): the checker's pairing rule on files laid out as ntkl writes
 * them and as they go wrong, and the decoder's reading of them. The
 * Windows samples (test_samples.c) show the rule's other side: xperf's
 * merge, with ImageID/FileVersion records, is not held to it.
 */
#include "test.h"
#include "etl_synth.h"
#include "etl/etl_check.h"
#include "etl/etl_decode.h"
#include "etl/etl_reader.h"

#define KBASE	0xffffffff81000000ULL
#define UBASE	0x7f0012340000ULL

/* A classic record of the image identity class. */
static void put_classic(struct synth *s, uint8_t type, int64_t time, uint32_t pid,
			const void *payload, uint32_t len)
{
	struct event_trace_header h = {
		.size = (uint16_t)(sizeof(h) + len),
		.header_type = ETW_HEADER_TYPE_FULL_HEADER64,
		.marker_flags = ETW_HEADER_FLAGS,
		.type = type,
		.version = 2,
		.process_id = pid,
		.timestamp = time,
		.guid = ETW_IMAGE_ID_GUID,
	};

	synth_raw(s, &h, sizeof(h), payload, len);
}

/* What a bad file gets wrong; each a way of breaking the pairing. */
enum fault { OK, NO_IDENTITY, WRONG_BASE, WRONG_TIME, DBGID_ALONE, FILE_VERSION };

/*
 * ImageID, DbgID_RSDS, Image for the kernel, then the same for a user
 * file with DbgID_NONE, at time 2000 and 3000: broken as fault says.
 */
static uint8_t *image_file(enum fault fault, size_t *size)
{
	struct {
		struct etw_image_id id;
		uint8_t name[8];	/* "t.so" UTF-16 */
	} id = { { KBASE, 0x100000, 0, 0 }, { 't', 0, '.', 0, 's', 0, 'o', 0 } };
	struct {
		struct etw_dbgid_rsds d;
		char pdb[8];
	} rsds = { { .image_base = KBASE, .age = 1 }, "t.pdb" };
	struct {
		struct etw_image_v3 img;
		uint8_t name[2];
	} img = { { .image_base = KBASE, .image_size = 0x100000 }, { 0 } };
	uint8_t none[ETW_DBGID_NONE_SIZE] = { 0 };
	uint64_t ubase = UBASE;
	uint32_t upid = 42;
	struct synth s;

	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	if (fault == FILE_VERSION)
		put_classic(&s, 0x40, 1500, 0, "", 1);
	memcpy(rsds.d.guid, "0123456789abcdef", 16);
	put_classic(&s, 0, 2000, 0, &id, sizeof(id));
	put_classic(&s, 36, 2000, 0, &rsds, sizeof(rsds));
	synth_system_record(&s, ETW_EVENT_IMAGE_DC_START_HOOK, 3, 2000, &img, sizeof(img));

	id.id.image_base = img.img.image_base = UBASE;
	id.id.process_id = img.img.process_id = upid;
	memcpy(none, &ubase, 8);
	memcpy(none + 8, &upid, 4);
	if (fault == WRONG_BASE)
		img.img.image_base = UBASE + 0x1000;
	if (fault != NO_IDENTITY && fault != DBGID_ALONE)
		put_classic(&s, 0, 3000, upid, &id, sizeof(id));
	if (fault != NO_IDENTITY)
		put_classic(&s, 0x20, 3000, upid, none, sizeof(none));
	synth_system_record(&s, ETW_EVENT_IMAGE_DC_START_HOOK, 3,
			    fault == WRONG_TIME ? 3001 : 3000, &img, sizeof(img));
	return synth_end(&s, size);
}

static unsigned long violations(const uint8_t *img, size_t size, char *first, size_t len)
{
	struct etl_error err;
	struct etl_file f;
	unsigned long n;

	first[0] = 0;
	if (etl_open_memory(&f, "ids", img, size, &err)) {
		snprintf(first, len, "%s", err.msg);
		return 1000;
	}
	n = etl_check(&f, false, NULL, NULL, NULL);
	etl_close(&f);
	return n;
}

static void test_pairing(void)
{
	static const struct {
		const char *name;
		enum fault fault;
		unsigned long violations;
	} cases[] = {
		{ "paired_as_ntkl_writes", OK, 0 },
		{ "an_image_without_identity_after_one_with", NO_IDENTITY, 1 },
		{ "an_image_that_is_not_its_identitys", WRONG_BASE, 1 },
		{ "an_image_at_another_time", WRONG_TIME, 1 },
		{ "a_dbgid_with_no_imageid_before_it", DBGID_ALONE, 1 },
		{ "xperf_merges_are_not_held_to_it", FILE_VERSION, 0 },
	};
	char first[512];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t size;
		uint8_t *img;

		test_begin("%s", cases[i].name);
		img = image_file(cases[i].fault, &size);
		CHECK(img != NULL);
		if (img)
			CHECK_EQ(violations(img, size, first, sizeof(first)),
				 cases[i].violations);
		free(img);
		test_end();
	}
}

/* dump --events names and decodes them from the one event list. */
static void test_decode(void)
{
	char *text = NULL;
	size_t size, len = 0;
	uint8_t *img = image_file(OK, &size);
	FILE *out = open_memstream(&text, &len);
	struct etl_record_cursor rc;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record r;
	struct etl_error err;
	struct etl_file f;

	test_begin("decoded_by_the_event_list");
	CHECK(img && out && !etl_open_memory(&f, "ids", img, size, &err));
	if (img && out) {
		etl_buffers_begin(&f, &bc);
		while (etl_next_buffer(&f, &bc, &b, &err) == 1) {
			etl_records_begin(&b, &rc);
			while (etl_next_record(&b, &rc, &r, &err) == 1)
				if (r.kind == ETL_KIND_CLASSIC)
					CHECK(etl_decode_record(out, "", &f, &r));
		}
		etl_buffers_end(&bc);
		etl_close(&f);
		fclose(out);
		CHECK(strstr(text, "ImageID: ImageBase=0xffffffff81000000 ImageSize=0x100000"));
		CHECK(strstr(text, "GuidSig={33323130-3534-3736-3839-616263646566} Age=1 PdbFileName=\"t.pdb\""));
		CHECK(strstr(text, "DbgID_NONE: ImageBase=0x7f0012340000 ProcessId=42"));
	}
	free(text);
	free(img);
	test_end();
}

int main(void)
{
	test_pairing();
	test_decode();
	return test_exit();
}
