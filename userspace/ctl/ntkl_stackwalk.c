// SPDX-License-Identifier: GPL-2.0
/*
 * -stackwalk: names and hook ids, and the stack tracing ioctls. See
 * ntkl_stackwalk.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>

#include "ntkl_stackwalk.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* xperf -stackwalk's names of the hooks ntkl can walk */
static const struct {
	const char *name;
	uint16_t hook;
} names[] = {
	{ "CSwitch", NTKL_STACK_HOOK_CSWITCH },
	{ "SpinLock", NTKL_STACK_HOOK_SPINLOCK },
	{ "ReadyThread", NTKL_STACK_HOOK_READY_THREAD },
	{ "Profile", NTKL_STACK_HOOK_PROFILE },
};

const char *ntkl_stackwalk_name(uint16_t hook)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].hook == hook)
			return names[i].name;
	return NULL;
}

static int add_hook(struct ntkl_stackwalk *sw, uint16_t hook, char *err, size_t err_size)
{
	for (uint32_t i = 0; i < sw->count; i++)
		if (sw->hooks[i] == hook)
			return 0;
	if (sw->count >= NTKL_STACK_HOOKS_MAX) {
		snprintf(err, err_size, "more than %d hooks", NTKL_STACK_HOOKS_MAX);
		return -1;
	}
	sw->hooks[sw->count++] = hook;
	return 0;
}

static int parse_one(const char *tok, size_t len, struct ntkl_stackwalk *sw, char *err,
		     size_t err_size)
{
	char buf[64], *end;
	unsigned long v;

	if (!len || len >= sizeof(buf)) {
		snprintf(err, err_size, "empty or overlong name");
		return -1;
	}
	memcpy(buf, tok, len);
	buf[len] = '\0';
	if (!strcasecmp(buf, "none"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(buf, names[i].name))
			return add_hook(sw, names[i].hook, err, err_size);
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (buf[0] >= '0' && buf[0] <= '9' && !*end && !errno && v <= UINT16_MAX)
		return add_hook(sw, (uint16_t)v, err, err_size);
	snprintf(err, err_size,
		 "unknown stack walk event '%s': Profile, CSwitch, ReadyThread, SpinLock, none or a hook id such as 0x0524",
		 buf);
	return -1;
}

int ntkl_stackwalk_parse(const char *s, struct ntkl_stackwalk *sw, char *err, size_t err_size)
{
	const char *p = s, *plus;

	do {
		plus = strchr(p, '+');
		if (parse_one(p, plus ? (size_t)(plus - p) : strlen(p), sw, err, err_size))
			return -1;
		p = plus + 1;
	} while (plus);
	return 0;
}

void ntkl_stackwalk_format(const uint16_t *hooks, uint32_t count, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	if (!count) {
		snprintf(out, size, "none");
		return;
	}
	for (uint32_t i = 0; i < count && used < size; i++) {
		const char *name = ntkl_stackwalk_name(hooks[i]);
		int n;

		n = name ? snprintf(out + used, size - used, "%s%s", i ? "+" : "", name) :
			   snprintf(out + used, size - used, "%s0x%04x", i ? "+" : "", hooks[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static void select_logger(struct ntkl_stack_tracing *st, const char *name, uint32_t id)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (name && *name)
		snprintf(st->logger_name, sizeof(st->logger_name), "%s", name);
	else
		st->logger_id = id;
}

int ntkl_set_stack_tracing(int fd, const char *name, uint32_t id,
			   const struct ntkl_stackwalk *sw)
{
	struct ntkl_stack_tracing st;

	select_logger(&st, name, id);
	st.count = sw->count;
	st.hooks = (uint64_t)(uintptr_t)sw->hooks;
	return ioctl(fd, NTKL_IOC_SET_STACK_TRACING, &st) ? -errno : 0;
}

int ntkl_get_stack_tracing(int fd, const char *name, uint32_t id,
			   struct ntkl_stackwalk *sw, uint64_t *truncated)
{
	struct ntkl_stack_tracing st;

	select_logger(&st, name, id);
	st.count = NTKL_STACK_HOOKS_MAX;
	st.hooks = (uint64_t)(uintptr_t)sw->hooks;
	if (ioctl(fd, NTKL_IOC_GET_STACK_TRACING, &st))
		return -errno;
	sw->count = st.count;
	*truncated = st.stacks_truncated;
	return 0;
}
