// SPDX-License-Identifier: GPL-2.0
/*
 * Providers and EventWrite. An event is an EVENT_HEADER record (header
 * type EVENT_HEADER64, 0x50 bytes) as the Windows samples hold them:
 * Flags EXTENDED_INFO | PRIVATE_SESSION, then extended data items, then
 * the payload. The items are the ones a TraceLogging event carries in the
 * TraceLoggingTester sample: PROV_TRAITS (u16 size, the provider's name,
 * NUL) and EVENT_SCHEMA_TL (u16 size, u8 tags 0, the event's name, NUL,
 * then per field its name, NUL, and its TlgIn type byte). Each item is
 * its 8-byte header and its data padded to 8; Linkage 1 says another
 * item follows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "um_internal.h"
#include "uapi/ntkl_etw.h"

NTKL_UM_API int ntkl_um_register(struct ntkl_um_logger *lg, const char *provider_name,
				 const uint8_t guid[16], uint8_t level,
				 uint64_t keyword_mask, struct ntkl_um_provider **out)
{
	struct ntkl_um_provider *p;
	size_t n;

	if (!out) {
		um_set_error("ntkl_um_register: out is NULL: pass the address of a provider pointer");
		return -EINVAL;
	}
	*out = NULL;
	if (!lg || !provider_name || !guid) {
		um_set_error("ntkl_um_register: %s is NULL: pass a started logger, a name and a 16-byte GUID",
			     !lg ? "the logger" : !provider_name ? "the provider name" : "the GUID");
		return -EINVAL;
	}
	n = strlen(provider_name);
	if (!n || n >= NTKL_UM_NAME_MAX) {
		um_set_error("ntkl_um_register: provider name \"%.80s\" is %zu bytes: give 1..%d",
			     provider_name, n, NTKL_UM_NAME_MAX - 1);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		um_set_error("ntkl_um_register: out of memory");
		return -ENOMEM;
	}
	p->lg = lg;
	memcpy(p->guid, guid, 16);
	p->level = level;
	p->keyword_mask = keyword_mask;
	p->traits_len = (uint16_t)(2 + n + 1);
	memcpy(p->traits, &p->traits_len, 2);
	memcpy(p->traits + 2, provider_name, n + 1);
	/* the file names the provider's binary (lost and counted if full) */
	um_binary_record(lg, guid, __builtin_return_address(0));
	*out = p;
	return 0;
}

NTKL_UM_API void ntkl_um_unregister(struct ntkl_um_provider *p)
{
	free(p);
}

static int put_str(struct ntkl_um_schema *s, size_t *pos, const char *str)
{
	size_t n = strlen(str) + 1;

	if (*pos + n > sizeof(s->blob))
		return -1;
	memcpy(s->blob + *pos, str, n);
	*pos += n;
	return 0;
}

NTKL_UM_API int ntkl_um_schema(struct ntkl_um_schema *s, const char *name,
			       const struct ntkl_um_field *fields, unsigned int nfields)
{
	size_t pos = 3;
	unsigned int i;

	if (!s || !name || (nfields && !fields)) {
		um_set_error("ntkl_um_schema: %s is NULL", !s ? "the schema" :
			     !name ? "the event name" : "fields");
		return -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	if (put_str(s, &pos, name))
		goto too_long;
	for (i = 0; i < nfields; i++) {
		uint8_t t = (uint8_t)fields[i].type;

		if (!fields[i].name || t < NTKL_UM_UTF16STRING || t > NTKL_UM_HEXINT64) {
			um_set_error("ntkl_um_schema: field %u of %s has %s: give a name and an NTKL_UM_* type",
				     i, name, !fields[i].name ? "no name" : "an unknown type");
			return -EINVAL;
		}
		if (put_str(s, &pos, fields[i].name) || pos + 1 > sizeof(s->blob))
			goto too_long;
		s->blob[pos++] = t;
	}
	s->len = (uint16_t)pos;
	memcpy(s->blob, &s->len, 2);	/* the blob's size, itself included */
	s->blob[2] = 0;			/* no event tags */
	return 0;
too_long:
	um_set_error("ntkl_um_schema: the names of %.80s and its fields exceed %zu bytes: shorten them",
		     name, sizeof(s->blob));
	return -ENAMETOOLONG;
}

static __thread uint32_t um_tid;

static uint32_t this_tid(void)
{
	if (!um_tid)
		um_tid = (uint32_t)gettid();
	return um_tid;
}

static uint8_t *put_item(uint8_t *p, uint16_t type, const void *data, uint16_t len, bool more)
{
	struct etw_event_header_ext_item item = {
		.offset = (uint16_t)(sizeof(item) + UM_ALIGN8(len)),
		.ext_type = type,
		.linkage = more ? ETW_EXT_ITEM_LINKAGE_MORE : 0,
		.data_size = len,
	};

	memcpy(p, &item, sizeof(item));
	memcpy(p + sizeof(item), data, len);
	memset(p + sizeof(item) + len, 0, UM_ALIGN8(len) - len);
	return p + item.offset;
}

/* BLOCKING_MODE: wait for a buffer instead of losing the event. */
static int reserve_blocking(struct ntkl_um_logger *lg, uint32_t len, uint8_t **at,
			    uint64_t *ts)
{
	int i;

	pthread_mutex_lock(&lg->wait_lock);
	atomic_fetch_add(&lg->blocked, 1);
	while ((i = um_reserve(lg, len, at, ts)) < 0 && !atomic_load(&lg->stopping)) {
		struct timespec t;

		/* every buffer taken: have the thread write the partly filled ones */
		um_close_all(lg);
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 10000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&lg->wait_cond, &lg->wait_lock, &t);
	}
	atomic_fetch_sub(&lg->blocked, 1);
	pthread_mutex_unlock(&lg->wait_lock);
	return i;
}

NTKL_UM_API int ntkl_um_write(struct ntkl_um_provider *p, const struct ntkl_um_descriptor *d,
			      const struct ntkl_um_schema *s, const struct ntkl_um_field *fields,
			      unsigned int nfields)
{
	struct ntkl_um_logger *lg;
	struct event_header h;
	uint32_t payload = 0, size, len;
	uint64_t ts;
	unsigned int i;
	uint8_t *at, *q;
	int idx;

	if (!p || !d || (nfields && !fields)) {
		um_set_error("ntkl_um_write: %s is NULL", !p ? "the provider" :
			     !d ? "the descriptor" : "fields");
		return -EINVAL;
	}
	if ((p->level && d->level > p->level) ||
	    (p->keyword_mask && d->keyword && !(d->keyword & p->keyword_mask)))
		return 0;	/* not enabled for it: EventWrite does nothing */
	lg = p->lg;
	for (i = 0; i < nfields; i++)
		payload += fields[i].size;
	size = (uint32_t)sizeof(h) + 8 + UM_ALIGN8(p->traits_len) +
	       (s ? 8 + UM_ALIGN8(s->len) : 0) + payload;
	len = UM_ALIGN8(size);
	if (size > UINT16_MAX || len > lg->pool.size - UM_BUF_HDR) {
		um_set_error("ntkl_um_write: a %u-byte event does not fit a record (64 KiB) or a %u-byte buffer: make it smaller or raise buffer_size_kb",
			     size, lg->pool.size);
		return -EMSGSIZE;
	}
	idx = um_reserve(lg, len, &at, &ts);
	if (idx < 0 && (lg->mode & NTKL_UM_MODE_BLOCKING))
		idx = reserve_blocking(lg, len, &at, &ts);
	if (idx < 0) {
		atomic_fetch_add_explicit(&lg->events_lost, 1, memory_order_relaxed);
		return -ENOSPC;
	}
	memset(&h, 0, sizeof(h));
	h.size = (uint16_t)size;
	h.header_type = ETW_HEADER_TYPE_EVENT_HEADER64;
	h.marker_flags = ETW_HEADER_FLAGS;
	h.flags = EVENT_HEADER_FLAG_EXTENDED_INFO | EVENT_HEADER_FLAG_PRIVATE_SESSION;
	h.thread_id = this_tid();
	h.process_id = lg->pid;
	h.timestamp = (int64_t)ts;
	memcpy(h.provider_id, p->guid, 16);
	h.descriptor.id = d->id;
	h.descriptor.version = d->version;
	h.descriptor.channel = d->channel;
	h.descriptor.level = d->level;
	h.descriptor.opcode = d->opcode;
	h.descriptor.task = d->task;
	h.descriptor.keyword = d->keyword;
	memcpy(at, &h, sizeof(h));
	q = put_item(at + sizeof(h), EVENT_HEADER_EXT_TYPE_PROV_TRAITS, p->traits,
		     p->traits_len, s != NULL);
	if (s)
		q = put_item(q, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL, s->blob, s->len, false);
	for (i = 0; i < nfields; i++) {
		memcpy(q, fields[i].data, fields[i].size);
		q += fields[i].size;
	}
	um_commit(lg, idx, len);
	return 0;
}
