/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing one ETW record into a logger's per-CPU buffer: reserve, fill the
 * kernel record header (SYSTEM64 or PERFINFO64), write the payload, commit.
 */
#ifndef _NTKL_RECORD_H
#define _NTKL_RECORD_H

#include "ntkl.h"

struct ntkl_record {
	struct ntkl_buffer *buf;
	unsigned int size;
};

/*
 * Reserve a record of header + payload bytes and fill the header; returns
 * where the payload goes, or NULL if the event is lost (and counted).
 * Preemption must be off until ntkl_record_end().
 */
u8 *ntkl_record_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
		      u8 header_type, u16 hook, u16 version, size_t payload);
/* The same, stamped with a time the caller read (see ntkl_reserve_at()). */
u8 *ntkl_record_begin_at(struct ntkl_logger *lg, struct ntkl_record *rec,
			 u8 header_type, u16 hook, u16 version, size_t payload,
			 u64 clock);
void ntkl_record_end(struct ntkl_record *rec);

#endif /* _NTKL_RECORD_H */
