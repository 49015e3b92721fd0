/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 to the UTF-16LE strings ETW payloads carry. Own code because the
 * kernel's utf8s_to_utf16s() needs CONFIG_NLS, which small kernels lack.
 */
#ifndef _NTKL_UTF16_H
#define _NTKL_UTF16_H

#include <linux/string.h>
#include <linux/types.h>

/* UTF-16 code units src needs, without the NUL. */
size_t ntkl_utf16_len(const char *src, size_t max);
/* Write src as UTF-16LE plus a NUL at dst; returns bytes written. */
size_t ntkl_put_utf16(u8 *dst, const char *src, size_t max);

#endif /* _NTKL_UTF16_H */
