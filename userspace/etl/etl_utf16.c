// SPDX-License-Identifier: GPL-2.0
/*
 * UTF-16LE to UTF-8.
 */
#include <stdlib.h>

#include "etl_utf16.h"

#define REPLACEMENT_CHAR	0xFFFD

/* Encode cp into out (room for 4 bytes); returns the bytes written. */
static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * The next code point at src[*pos]; advances *pos. Returns false at the
 * terminator (then *pos is past it) or when fewer than 2 bytes are left.
 */
static bool next_code_point(const uint8_t *src, size_t src_len, size_t *pos,
			    uint32_t *cp, bool *terminated)
{
	uint32_t unit, low;

	if (src_len - *pos < 2) {
		*pos = src_len;
		return false;
	}
	unit = (uint32_t)(src[*pos] | src[*pos + 1] << 8);
	*pos += 2;
	if (unit == 0) {
		*terminated = true;
		return false;
	}
	if (unit >= 0xD800 && unit <= 0xDBFF && src_len - *pos >= 2) {
		low = (uint32_t)(src[*pos] | src[*pos + 1] << 8);
		if (low >= 0xDC00 && low <= 0xDFFF) {
			*pos += 2;
			*cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
			return true;
		}
	}
	if (unit >= 0xD800 && unit <= 0xDFFF)
		unit = REPLACEMENT_CHAR;
	*cp = unit;
	return true;
}

bool etl_utf16_to_utf8(const uint8_t *src, size_t src_len, char *dst,
		     size_t dst_size, size_t *used)
{
	bool terminated = false, full = false;
	size_t pos = 0, out = 0, n;
	uint32_t cp;
	char tmp[4];

	while (next_code_point(src, src_len, &pos, &cp, &terminated)) {
		if (full)
			continue;	/* keep going to find the terminator */
		n = put_utf8(cp, tmp);
		if (out + n + 1 > dst_size) {
			full = true;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			dst[out++] = tmp[i];
	}
	dst[out] = '\0';
	if (used)
		*used = pos;
	return terminated;
}

char *etl_utf16_to_utf8_alloc(const uint8_t *src, size_t src_len, size_t *used,
			    bool *terminated)
{
	/* Each UTF-16 unit becomes at most 3 bytes of UTF-8. */
	size_t size = src_len / 2 * 3 + 1;
	char *dst = malloc(size);
	bool t;

	if (!dst)
		return NULL;
	t = etl_utf16_to_utf8(src, src_len, dst, size, used);
	if (terminated)
		*terminated = t;
	return dst;
}

size_t etl_utf8_to_utf16(const char *src, uint8_t *dst, size_t max)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t n = 0;

	for (;;) {
		uint32_t c = *p;
		int more = 0;
		uint16_t units[2];
		int nu = 1, i;

		if (c == 0)
			break;
		if (c >= 0xF0 && c < 0xF8) {
			c &= 0x07;
			more = 3;
		} else if (c >= 0xE0) {
			c &= 0x0F;
			more = 2;
		} else if (c >= 0xC0) {
			c &= 0x1F;
			more = 1;
		} else if (c >= 0x80) {
			c = 0xFFFD;	/* a stray continuation byte */
		}
		p++;
		for (i = 0; i < more; i++, p++) {
			if ((*p & 0xC0) != 0x80) {
				c = 0xFFFD;
				break;
			}
			c = c << 6 | (*p & 0x3F);
		}
		if (c > 0x10FFFF || (c >= 0xD800 && c < 0xE000))
			c = 0xFFFD;
		if (c >= 0x10000) {
			units[0] = (uint16_t)(0xD800 | ((c - 0x10000) >> 10));
			units[1] = (uint16_t)(0xDC00 | ((c - 0x10000) & 0x3FF));
			nu = 2;
		} else {
			units[0] = (uint16_t)c;
		}
		for (i = 0; i < nu; i++) {
			if (n + 4 > max)
				return 0;
			dst[n++] = units[i] & 0xFF;
			dst[n++] = units[i] >> 8;
		}
	}
	if (n + 2 > max)
		return 0;
	dst[n++] = 0;
	dst[n++] = 0;
	return n;
}
