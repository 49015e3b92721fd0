// SPDX-License-Identifier: GPL-2.0
/*
 * etl_tlg.c: TraceLogging payloads decoded from their EVENT_SCHEMA_TL
 * item, on schemas built here byte by byte from the encoding (u16 size,
 * tags, event name, then per field name, InType[, OutType], [count]),
 * short payloads, schemas the decoder cannot follow and schemas that
 * would print without end included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl/etl_tlg.h"
#include "uapi/ntkl_etw.h"

/* An ext-item chain holding one schema item of len bytes at meta. */
static size_t items(uint8_t *out, const void *meta, uint16_t len)
{
	struct etw_event_header_ext_item it = {
		.offset = (uint16_t)(8 + ((len + 7) & ~7)), .ext_type = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL,
		.linkage = 0, .data_size = len,
	};

	memcpy(out, &it, sizeof(it));
	memcpy(out + 8, meta, len);
	memset(out + 8 + len, 0, it.offset - 8 - len);
	return it.offset;
}

static char *decode(const void *meta, uint16_t mlen, const void *payload, uint32_t plen,
		    bool *ret)
{
	uint8_t ext[600];
	size_t n = items(ext, meta, mlen);
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	uint8_t *pl = malloc(plen ? plen : 1);

	memcpy(pl, payload, plen);
	*ret = etl_tlg_decode(f, "  ", ext, (uint32_t)n, pl, plen);
	fclose(f);
	free(pl);
	return text;
}

#define META(...)	((const uint8_t[]){ __VA_ARGS__ })

int main(void)
{
	bool ret;
	char *t;

	test_begin("scalars_and_strings");
	{
		/* "Ev": a (INT32), s (ANSISTRING), b (UINT8 out BOOLEAN) */
		const uint8_t m[] = { 0, 0, 0, 'E', 'v', 0, 'a', 0, 7, 's', 0, 2, 'b', 0, 0x84, 3 };
		uint8_t mm[sizeof(m)];
		const uint8_t p[] = { 0xfe, 0xff, 0xff, 0xff, 'h', 'i', 0, 1 };

		memcpy(mm, m, sizeof(m));
		mm[0] = sizeof(m);
		t = decode(mm, sizeof(mm), p, sizeof(p), &ret);
		CHECK(ret);
		CHECK_STR(t, "  Ev: a=-2 s=\"hi\" b=true\n");
		free(t);
	}
	test_end();

	test_begin("arrays_and_structs");
	{
		/* n: UINT16 variable count; st: STRUCT of 2 fields x, y (UINT8); c: INT8[2] constant */
		const uint8_t m[] = { 0, 0, 0, 'E', 0, 'n', 0, 0x40 | 6, 's', 't', 0, 0x80 | 24, 2,
				      'x', 0, 4, 'y', 0, 4, 'c', 0, 0x20 | 3, 2, 0 };
		uint8_t mm[sizeof(m)];
		const uint8_t p[] = { 2, 0, 5, 0, 6, 0, 1, 2, 0xff, 7 };

		memcpy(mm, m, sizeof(m));
		mm[0] = sizeof(m);
		t = decode(mm, sizeof(mm), p, sizeof(p), &ret);
		CHECK_STR(t, "  E: n=[5,6] st={ x=1 y=2} c=[-1,7]\n");
		free(t);
	}
	test_end();

	test_begin("short_payload_and_bad_schema");
	{
		const uint8_t m[] = { 12, 0, 0, 'E', 0, 'a', 0, 9, 'b', 0, 9, 0 };
		const uint8_t p[] = { 1, 0, 0, 0, 0, 0, 0, 0, 2, 0 };
		/* custom-serialized (InType 0x60) and a field name never ended */
		const uint8_t bad[] = { 9, 0, 0, 'E', 0, 'a', 0, 0x60 | 1, 0 };
		const uint8_t open_name[] = { 7, 0, 0, 'E', 0, 'a', 'b' };

		t = decode(m, sizeof(m), p, sizeof(p), &ret);
		CHECK_STR(t, "  E: a=1 b= (payload ends)\n");
		free(t);
		t = decode(bad, sizeof(bad), p, sizeof(p), &ret);
		CHECK_STR(t, "  E: (schema not followed)\n");
		free(t);
		t = decode(open_name, sizeof(open_name), p, sizeof(p), &ret);
		CHECK_STR(t, "  E: (schema not followed)\n");
		free(t);
		/* no schema item: nothing printed, false */
		{
			char *text = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&text, &len);

			CHECK(!etl_tlg_decode(f, "", NULL, 0, p, sizeof(p)));
			fclose(f);
			CHECK_STR(text, "");
			free(text);
		}
	}
	test_end();

	test_begin("nested_empty_structs_bounded");
	{
		/*
		 * a: 65535 structs of b: 65535 structs of c: 65535 structs of
		 * no field. No payload is read, so only the bound on values
		 * printed ends it (without it: 65535^3 elements).
		 */
		const uint8_t m[] = { 24, 0, 0, 'E', 0,
				      'a', 0, 0x80 | 0x20 | 24, 1, 0xff, 0xff,
				      'b', 0, 0x80 | 0x20 | 24, 1, 0xff, 0xff,
				      'c', 0, 0x80 | 0x20 | 24, 0, 0xff, 0xff, 0 };
		const char *tail = " (more than 4096 values: the rest not shown)\n";

		t = decode(m, sizeof(m), "", 0, &ret);
		CHECK(ret);
		CHECK(t && strlen(t) > strlen(tail) &&
		      !strcmp(t + strlen(t) - strlen(tail), tail));
		free(t);
	}
	test_end();
	return test_exit();
}
