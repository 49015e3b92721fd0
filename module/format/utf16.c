// SPDX-License-Identifier: GPL-2.0
/*
 * UTF-8 to UTF-16LE for names in ETW payloads. Only the Basic Multilingual
 * Plane is decoded; anything else (4-byte sequences, broken bytes) becomes
 * U+FFFD so a name from a task's comm can never produce invalid output.
 */
#include "utf16.h"

/* Decode one character at s (at most n bytes); *used gets its length. */
static u16 next_char(const u8 *s, size_t n, size_t *used)
{
	if (s[0] < 0x80) {
		*used = 1;
		return s[0];
	}
	if ((s[0] & 0xE0) == 0xC0 && n >= 2 && (s[1] & 0xC0) == 0x80) {
		*used = 2;
		return (s[0] & 0x1F) << 6 | (s[1] & 0x3F);
	}
	if ((s[0] & 0xF0) == 0xE0 && n >= 3 && (s[1] & 0xC0) == 0x80 &&
	    (s[2] & 0xC0) == 0x80) {
		*used = 3;
		return (s[0] & 0x0F) << 12 | (s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	}
	*used = 1;
	return 0xFFFD;
}

size_t ntkl_utf16_len(const char *src, size_t max)
{
	const u8 *s = (const u8 *)src;
	size_t n = strnlen(src, max), used, units = 0;

	while (n) {
		next_char(s, n, &used);
		s += used;
		n -= used;
		units++;
	}
	return units;
}

size_t ntkl_put_utf16(u8 *dst, const char *src, size_t max)
{
	const u8 *s = (const u8 *)src;
	size_t n = strnlen(src, max), used;
	u8 *p = dst;
	u16 c;

	while (n) {
		c = next_char(s, n, &used);
		s += used;
		n -= used;
		*p++ = c;
		*p++ = c >> 8;
	}
	*p++ = 0;
	*p++ = 0;
	return p - dst;
}
