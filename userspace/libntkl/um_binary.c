// SPDX-License-Identifier: GPL-2.0
/*
 * The providers enabled for a session, recorded as ETL files record them
 * from Windows 8 on: an EventTrace ProviderBinaryPath event (0x0043,
 * version 2: GuidCount, the GUIDs, BinaryPath in UTF-16) naming the binary
 * that provides them, which is where a reader looks for their manifests
 * (seed 003: the logger's ProviderBinaryList; layout in
 * uapi/ntkl_event_list.h). The binary is the program or shared library
 * that called ntkl_um_register(). Each (binary, provider) pair is
 * written once per logger, when it is first registered, as an event of
 * the logger's buffers: it lands before the provider's own events. It is
 * the logger's record, not the program's event: events_written leaves
 * it out, and events_lost counts it only if no buffer had room.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "um_internal.h"
#include "etl/etl_events.h"
#include "etl/etl_utf16.h"
#include "uapi/ntkl_etw.h"

/*
 * The path of the binary holding code address caller: dladdr() names a
 * shared library by the path it was loaded from; for the program itself
 * glibc gives argv[0], which may be relative, so /proc/self/exe then.
 */
static void binary_path(const void *caller, char *path, size_t size)
{
	Dl_info info;
	ssize_t n;

	if (dladdr(caller, &info) && info.dli_fname && info.dli_fname[0] &&
	    strcmp(info.dli_fname, program_invocation_name) != 0 &&
	    realpath(info.dli_fname, path))
		return;
	n = readlink("/proc/self/exe", path, size - 1);
	if (n < 0)
		n = 0;
	path[n] = '\0';
}

/* Seen before on this logger? If not, remember it (false if no room). */
static bool seen(struct ntkl_um_logger *lg, const uint8_t guid[16], uint32_t path_hash)
{
	unsigned int i;

	for (i = 0; i < lg->nr_binaries; i++)
		if (lg->binaries[i].path_hash == path_hash &&
		    !memcmp(lg->binaries[i].guid, guid, 16))
			return true;
	if (lg->nr_binaries < UM_MAX_BINARIES) {
		memcpy(lg->binaries[i].guid, guid, 16);
		lg->binaries[i].path_hash = path_hash;
		lg->nr_binaries++;
	}
	return false;
}

/* FNV-1a: enough to tell a program's few binaries apart. */
static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

int um_binary_record(struct ntkl_um_logger *lg, const uint8_t guid[16], const void *caller)
{
	struct system_trace_header h;
	char path[PATH_MAX];
	uint8_t path16[2 * PATH_MAX + 2];
	struct etw_provider_binary_path fixed = { .guid_count = 1 };
	size_t path_bytes;
	uint32_t size, len;
	uint64_t ts;
	uint8_t *at;
	bool again;
	int idx;

	binary_path(caller, path, sizeof(path));
	pthread_mutex_lock(&lg->wait_lock);
	again = seen(lg, guid, hash_str(path));
	pthread_mutex_unlock(&lg->wait_lock);
	if (again)
		return 0;
	path_bytes = etl_utf8_to_utf16(path, path16, sizeof(path16));
	if (!path_bytes)
		path_bytes = etl_utf8_to_utf16("", path16, sizeof(path16));
	size = (uint32_t)(sizeof(h) + sizeof(fixed) + 16 + path_bytes);
	len = UM_ALIGN8(size);
	if (size > UINT16_MAX || len > lg->pool.size - UM_BUF_HDR)
		return -EMSGSIZE;
	idx = um_reserve(lg, len, &at, &ts);
	if (idx < 0) {
		atomic_fetch_add_explicit(&lg->events_lost, 1, memory_order_relaxed);
		return -ENOSPC;
	}
	memset(&h, 0, sizeof(h));
	h.marker = ETW_MARKER_SYSTEM64(etw_events[ETW_EVENT_PROVIDER_BINARY_PATH].version);
	h.size = (uint16_t)size;
	h.hook_id = ETW_EVENT_PROVIDER_BINARY_PATH_HOOK;
	h.thread_id = (uint32_t)gettid();
	h.process_id = lg->pid;
	h.system_time = (int64_t)ts;
	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), &fixed, sizeof(fixed));
	memcpy(at + sizeof(h) + sizeof(fixed), guid, 16);
	memcpy(at + sizeof(h) + sizeof(fixed) + 16, path16, path_bytes);
	memset(at + size, 0, len - size);
	um_commit_own(lg, idx, len);
	return 0;
}
