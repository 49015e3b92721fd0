// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel addresses leave the kernel only for readers that could read them
 * from /proc/kallsyms; every other reader gets the value %p prints, the
 * kernel's own keyed hash. Which fields are kernel addresses is said once,
 * in each layout's field list (ETW_FIELD_KADDR in uapi/ntkl_events.h), so
 * a new event's addresses are hidden without code here (redact_walk.h).
 */
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ntkl.h"
#include "format/redact.h"
#include "format/events.h"
#include "format/redact_walk.h"

/*
 * May this reader see kernel addresses? The rule of /proc/kallsyms: it
 * needs CAP_SYSLOG, and kptr_restrict must allow it, which %pK applies in
 * the reader's context (it prints zeros when kptr_restrict forbids).
 */
bool ntkl_reader_sees_addresses(void)
{
	static const int probe;
	char buf[24];

	if (!has_capability_noaudit(current, CAP_SYSLOG))
		return false;
	snprintf(buf, sizeof(buf), "%pK", &probe);
	return strspn(buf, "0") != strlen(buf);
}

/* The value %p prints for an address: the kernel's own keyed hash. */
static u64 hashed(u64 addr)
{
	char buf[24];
	u64 v;

	snprintf(buf, sizeof(buf), "%p", (void *)(unsigned long)addr);
	return kstrtou64(buf, 16, &v) ? 0 : v;
}

/* Replace the kernel addresses in a buffer's records by their hashes. */
static void redact_addresses(u8 *data, u32 filled)
{
	ntkl_redact_walk(data, filled, hashed);
}

/*
 * The transport hands each buffer to this before a reader that may not
 * see kernel addresses gets it (ntkl_hold_buffer(), raw false).
 */
void ntkl_redact_register(void)
{
	ntkl_buffers_set_reader_hook(redact_addresses);
}
