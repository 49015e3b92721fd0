/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-16LE (Windows wide strings, as ETW logs them) to UTF-8, and back.
 */
#ifndef NTKL_ETL_UTF16_H
#define NTKL_ETL_UTF16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Convert the NUL-terminated UTF-16LE string at src, reading at most
 * src_len bytes, into dst (dst_size > 0). dst is always NUL-terminated and
 * truncated on a code point boundary if it is too small. Unpaired
 * surrogates become U+FFFD. *used (if not NULL) gets the bytes of src the
 * string took, terminator included, or src_len if there was none.
 * Returns true if the terminator was found.
 */
bool etl_utf16_to_utf8(const uint8_t *src, size_t src_len, char *dst,
		     size_t dst_size, size_t *used);

/* Same into a malloc'ed string big enough for all of it; NULL if out of memory. */
char *etl_utf16_to_utf8_alloc(const uint8_t *src, size_t src_len, size_t *used,
			    bool *terminated);

/*
 * UTF-8 to NUL-terminated UTF-16LE in dst (at most max bytes); invalid
 * sequences become U+FFFD. Returns the bytes written, terminator
 * included, or 0 if they do not fit.
 */
size_t etl_utf8_to_utf16(const char *src, uint8_t *dst, size_t max);

#endif /* NTKL_ETL_UTF16_H */
