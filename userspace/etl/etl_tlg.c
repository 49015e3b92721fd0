// SPDX-License-Identifier: GPL-2.0
/*
 * TraceLogging payloads decoded from their EVENT_SCHEMA_TL item. See
 * etl_tlg.h.
 */
#include <inttypes.h>
#include <string.h>

#include "etl_decode.h"
#include "etl_tlg.h"
#include "etl_utf16.h"
#include "uapi/ntkl_etw.h"

/* TlgIn_t (the values the files carry) */
enum {
	TLG_UNICODESTRING = 1, TLG_ANSISTRING, TLG_INT8, TLG_UINT8, TLG_INT16, TLG_UINT16,
	TLG_INT32, TLG_UINT32, TLG_INT64, TLG_UINT64, TLG_FLOAT, TLG_DOUBLE, TLG_BOOL32,
	TLG_BINARY, TLG_GUID, TLG_POINTER, TLG_FILETIME, TLG_SYSTEMTIME, TLG_SID,
	TLG_HEXINT32, TLG_HEXINT64, TLG_COUNTEDSTRING, TLG_COUNTEDANSISTRING, TLG_STRUCT,
	TLG_COUNTEDBINARY,
};

#define TLG_IN_CHAIN	0x80
#define TLG_IN_CCOUNT	0x20
#define TLG_IN_VCOUNT	0x40
#define TLG_IN_COUNTS	0x60
#define TLG_OUT_BOOLEAN	3

struct cursor {
	const uint8_t *p;
	uint32_t pos, len;
};

/* The schema item's data, or NULL. */
static const uint8_t *find_item(const uint8_t *ext, uint32_t ext_len, uint16_t type,
			       uint32_t *len)
{
	struct etw_event_header_ext_item item;
	uint32_t pos = 0;

	while (ext && ext_len - pos >= sizeof(item)) {
		memcpy(&item, ext + pos, sizeof(item));
		if (item.ext_type == type &&
		    item.data_size >= 3 && item.data_size <= ext_len - pos - sizeof(item)) {
			*len = item.data_size;
			return ext + pos + sizeof(item);
		}
		if (item.offset < sizeof(item) || item.offset > ext_len - pos)
			break;
		pos += item.offset;
	}
	return NULL;
}

static const uint8_t *find_schema(const uint8_t *ext, uint32_t ext_len, uint32_t *len)
{
	return find_item(ext, ext_len, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL, len);
}

/* A NUL-terminated name at the cursor: the string, or NULL. */
static const char *take_name(struct cursor *c)
{
	const uint8_t *nul = memchr(c->p + c->pos, 0, c->len - c->pos);
	const char *s = (const char *)c->p + c->pos;

	if (!nul)
		return NULL;
	c->pos = (uint32_t)(nul - c->p) + 1;
	return s;
}

/* Skip tag bytes: each with 0x80 says another follows. */
static bool skip_tags(struct cursor *c)
{
	while (c->pos < c->len)
		if (!(c->p[c->pos++] & 0x80))
			return true;
	return false;
}

static bool take(struct cursor *c, void *v, uint32_t n)
{
	if (c->len - c->pos < n)
		return false;
	memcpy(v, c->p + c->pos, n);
	c->pos += n;
	return true;
}

/* One value of base type t at the payload cursor; false if it ends first. */
static bool print_value(FILE *out, struct cursor *pl, uint8_t t, uint8_t out_type)
{
	union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
		int64_t i64; uint64_t u64; float f; double d; uint8_t b[16]; } v;
	char buf[64];
	uint16_t n;
	size_t used;

	switch (t) {
	case TLG_UNICODESTRING: {
		char s[512];

		etl_utf16_to_utf8(pl->p + pl->pos, pl->len - pl->pos, s, sizeof(s), &used);
		pl->pos += (uint32_t)used;
		fputc('"', out);
		etl_print_escaped(out, s, sizeof(s), false);
		fputc('"', out);
		return true;
	}
	case TLG_ANSISTRING: {
		const uint8_t *nul = memchr(pl->p + pl->pos, 0, pl->len - pl->pos);
		uint32_t l = nul ? (uint32_t)(nul - pl->p) - pl->pos : pl->len - pl->pos;

		fputc('"', out);
		etl_print_escaped(out, (const char *)pl->p + pl->pos, l, false);
		fputc('"', out);
		pl->pos += l + (nul ? 1 : 0);
		return nul != NULL;
	}
	case TLG_INT8:
		if (!take(pl, &v, 1))
			return false;
		fprintf(out, "%d", v.i8);
		return true;
	case TLG_UINT8:
		if (!take(pl, &v, 1))
			return false;
		if (out_type == TLG_OUT_BOOLEAN)
			fputs(v.u8 ? "true" : "false", out);
		else
			fprintf(out, "%u", v.u8);
		return true;
	case TLG_INT16:
		if (!take(pl, &v, 2))
			return false;
		fprintf(out, "%d", v.i16);
		return true;
	case TLG_UINT16:
		if (!take(pl, &v, 2))
			return false;
		fprintf(out, "%u", v.u16);
		return true;
	case TLG_INT32:
		if (!take(pl, &v, 4))
			return false;
		fprintf(out, "%" PRId32, v.i32);
		return true;
	case TLG_UINT32:
		if (!take(pl, &v, 4))
			return false;
		fprintf(out, "%" PRIu32, v.u32);
		return true;
	case TLG_HEXINT32:
		if (!take(pl, &v, 4))
			return false;
		fprintf(out, "0x%" PRIx32, v.u32);
		return true;
	case TLG_BOOL32:
		if (!take(pl, &v, 4))
			return false;
		fputs(v.u32 ? "true" : "false", out);
		return true;
	case TLG_INT64:
		if (!take(pl, &v, 8))
			return false;
		fprintf(out, "%" PRId64, v.i64);
		return true;
	case TLG_UINT64:
		if (!take(pl, &v, 8))
			return false;
		fprintf(out, "%" PRIu64, v.u64);
		return true;
	case TLG_HEXINT64:
	case TLG_POINTER:
		if (!take(pl, &v, 8))
			return false;
		fprintf(out, "0x%" PRIx64, v.u64);
		return true;
	case TLG_FLOAT:
		if (!take(pl, &v, 4))
			return false;
		fprintf(out, "%g", (double)v.f);
		return true;
	case TLG_DOUBLE:
		if (!take(pl, &v, 8))
			return false;
		fprintf(out, "%g", v.d);
		return true;
	case TLG_FILETIME:
		if (!take(pl, &v, 8))
			return false;
		fprintf(out, "%s", etl_filetime_str(v.i64, buf, sizeof(buf)));
		return true;
	case TLG_GUID:
		if (!take(pl, &v, 16))
			return false;
		fprintf(out, "%s", etl_guid_str(v.b, buf, sizeof(buf)));
		return true;
	case TLG_SYSTEMTIME:
		if (!take(pl, &v, 16))
			return false;
		fprintf(out, "%04u-%02u-%02u", v.b[0] | v.b[1] << 8, v.b[2] | v.b[3] << 8,
			v.b[6] | v.b[7] << 8);
		return true;
	case TLG_SID: {
		uint32_t sl;

		if (pl->len - pl->pos < 8)
			return false;
		if (!etl_sid_to_string(pl->p + pl->pos, pl->len - pl->pos, buf, sizeof(buf), &sl))
			return false;
		pl->pos += sl;
		fputs(buf, out);
		return true;
	}
	case TLG_BINARY:
	case TLG_COUNTEDBINARY:
	case TLG_COUNTEDSTRING:
	case TLG_COUNTEDANSISTRING:
		if (!take(pl, &n, 2) || pl->len - pl->pos < n)
			return false;
		if (t == TLG_COUNTEDANSISTRING) {
			fputc('"', out);
			etl_print_escaped(out, (const char *)pl->p + pl->pos, n, false);
			fputc('"', out);
		} else if (t == TLG_COUNTEDSTRING) {
			char s[512];

			etl_utf16_to_utf8(pl->p + pl->pos, n, s, sizeof(s), NULL);
			fputc('"', out);
			etl_print_escaped(out, s, sizeof(s), false);
			fputc('"', out);
		} else {
			fputs("0x", out);
			for (uint16_t i = 0; i < n; i++)
				fprintf(out, "%02x", pl->p[pl->pos + i]);
		}
		pl->pos += n;
		return true;
	default:
		fprintf(out, "(type %u)", t);
		return false;
	}
}

/*
 * Values printed of one event at most. Elements of a struct without fields
 * take no payload, so nested arrays of them would otherwise print up to
 * 65535^9 empty structs from a few bytes of a corrupt schema.
 */
#define TLG_MAX_VALUES	4096

/*
 * count fields of the schema (UINT32_MAX: to its end) with their values:
 * 0, 1 if the payload ended, -1 if the schema cannot be followed, 2 once
 * *left (the values still to print) runs out.
 */
static int print_fields(FILE *out, struct cursor *m, struct cursor *pl, uint32_t count,
			int depth, uint32_t *left)
{
	for (uint32_t f = 0; f < count && m->pos < m->len; f++) {
		const char *name = take_name(m);
		uint8_t in, out_type = 0;
		uint16_t n = 1;
		int ret = 0;

		if (!name || !take(m, &in, 1))
			return -1;
		if ((in & TLG_IN_CHAIN) && (!take(m, &out_type, 1) ||
					    ((out_type & 0x80) && !skip_tags(m))))
			return -1;
		if ((in & TLG_IN_COUNTS) == TLG_IN_CCOUNT && !take(m, &n, 2))
			return -1;
		if ((in & TLG_IN_COUNTS) == TLG_IN_COUNTS)
			return -1;	/* custom-serialized: not followed */
		fprintf(out, " %s=", name);
		if ((in & TLG_IN_COUNTS) == TLG_IN_VCOUNT && !take(pl, &n, 2))
			return 1;
		if (in & TLG_IN_COUNTS)
			fputc('[', out);
		for (uint16_t i = 0; i < n && !ret; i++) {
			if (!*left)
				return 2;
			--*left;
			if (i)
				fputc(',', out);
			if ((in & 0x1F) == TLG_STRUCT) {
				struct cursor save = *m;

				if (depth > 8)
					return -1;
				fputc('{', out);
				ret = print_fields(out, m, pl, out_type & 0x7F, depth + 1, left);
				fputc('}', out);
				if (i + 1 < n)
					*m = save;	/* each element has the same fields */
			} else if (!print_value(out, pl, in & 0x1F, out_type & 0x7F)) {
				ret = 1;
			}
		}
		if (in & TLG_IN_COUNTS)
			fputc(']', out);
		if (ret)
			return ret;
	}
	return 0;
}

bool etl_tlg_event_name(const uint8_t *ext, uint32_t ext_len, char *name, size_t size)
{
	uint32_t len;
	const uint8_t *s = find_schema(ext, ext_len, &len);
	struct cursor m = { s, 2, len };
	const char *n;

	if (!s || !skip_tags(&m) || !(n = take_name(&m)))
		return false;
	snprintf(name, size, "%s", n);
	return true;
}

bool etl_tlg_provider_name(const uint8_t *ext, uint32_t ext_len, char *name, size_t size)
{
	uint32_t len;
	const uint8_t *s = find_item(ext, ext_len, EVENT_HEADER_EXT_TYPE_PROV_TRAITS, &len);
	struct cursor m = { s, 2, len };
	const char *n;

	/* PROV_TRAITS: u16 size, the provider's name, NUL, then its traits */
	if (!s || !(n = take_name(&m)))
		return false;
	snprintf(name, size, "%s", n);
	return true;
}

bool etl_tlg_decode(FILE *out, const char *indent, const uint8_t *ext, uint32_t ext_len,
		    const uint8_t *payload, uint32_t len)
{
	uint32_t slen;
	const uint8_t *s = find_schema(ext, ext_len, &slen);
	struct cursor m = { s, 2, slen }, pl = { payload, 0, len };
	uint32_t left = TLG_MAX_VALUES;
	const char *name;
	int ret;

	if (!s)
		return false;
	/* the blob's own size first: trust the smaller */
	if (slen >= 2 && (uint32_t)(s[0] | s[1] << 8) < slen && (s[0] | s[1] << 8) >= 3)
		m.len = (uint32_t)(s[0] | s[1] << 8);
	if (!skip_tags(&m) || !(name = take_name(&m))) {
		fprintf(out, "%sTraceLogging: (schema without an event name)\n", indent);
		return true;
	}
	fprintf(out, "%s", indent);
	etl_print_escaped(out, name, strlen(name), false);
	fputc(':', out);
	ret = print_fields(out, &m, &pl, UINT32_MAX, 0, &left);
	if (ret == 2)
		fprintf(out, " (more than %d values: the rest not shown)", TLG_MAX_VALUES);
	else if (ret > 0)
		fputs(" (payload ends)", out);
	else if (ret < 0)
		fputs(" (schema not followed)", out);
	fputc('\n', out);
	return true;
}
