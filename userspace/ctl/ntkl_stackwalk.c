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

#include "etl/etl_events.h"
#include "ntkl_stackwalk.h"

/* The hook of a walked event (the event list's NTKL_STACKWALK lines). */
static uint16_t walk_hook(unsigned int walk)
{
	return etw_events[ntkl_stackwalks[walk].event].hook_id;
}

const char *ntkl_stackwalk_name(uint16_t hook)
{
	for (unsigned int i = 0; i < NTKL_WALK_COUNT; i++)
		if (walk_hook(i) == hook)
			return ntkl_stackwalks[i].name;
	return NULL;
}

void ntkl_stackwalk_names(char *out, size_t size, bool hooks)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < NTKL_WALK_COUNT && used < size; i++) {
		const char *sep = !i ? "" : i + 1 == NTKL_WALK_COUNT ? " and " : ", ";
		int n = hooks ? snprintf(out + used, size - used, "%s%s (0x%04x)", sep,
					 ntkl_stackwalks[i].name, walk_hook(i)) :
				snprintf(out + used, size - used, "%s%s", sep,
					 ntkl_stackwalks[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
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
	char buf[64], names[256], *end;
	unsigned long v;

	if (!len || len >= sizeof(buf)) {
		snprintf(err, err_size, "empty or overlong name");
		return -1;
	}
	memcpy(buf, tok, len);
	buf[len] = '\0';
	if (!strcasecmp(buf, "none"))
		return 0;
	for (unsigned int i = 0; i < NTKL_WALK_COUNT; i++)
		if (!strcasecmp(buf, ntkl_stackwalks[i].name))
			return add_hook(sw, walk_hook(i), err, err_size);
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (buf[0] >= '0' && buf[0] <= '9' && !*end && !errno && v <= UINT16_MAX)
		return add_hook(sw, (uint16_t)v, err, err_size);
	ntkl_stackwalk_names(names, sizeof(names), false);
	snprintf(err, err_size, "unknown stack walk event '%s': %s, none or a hook id such as 0x0524",
		 buf, names);
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
			   struct ntkl_stackwalk *sw, uint64_t *truncated,
			   uint64_t user_stops[NTKL_USTOP_COUNT])
{
	struct ntkl_stack_tracing st;

	select_logger(&st, name, id);
	st.count = NTKL_STACK_HOOKS_MAX;
	st.hooks = (uint64_t)(uintptr_t)sw->hooks;
	if (ioctl(fd, NTKL_IOC_GET_STACK_TRACING, &st))
		return -errno;
	sw->count = st.count;
	*truncated = st.stacks_truncated;
	if (user_stops)		/* zero from a module before ABI 7 */
		memcpy(user_stops, st.user_stops, sizeof(st.user_stops));
	return 0;
}
