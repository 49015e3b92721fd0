/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel addresses in records, hashed for most readers (redact.c): who
 * may see them, and the reader hook that hashes them, handed to the
 * transport at load.
 */
#ifndef _NTKL_FORMAT_REDACT_H
#define _NTKL_FORMAT_REDACT_H

#include <linux/types.h>

bool ntkl_reader_sees_addresses(void);
void ntkl_redact_register(void);

#endif /* _NTKL_FORMAT_REDACT_H */
