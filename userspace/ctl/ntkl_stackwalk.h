/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -stackwalk HOOKS: the events whose stacks a logger records (xperf's
 * -stackwalk, TraceSetInformation's TraceStackTracingInfo), as names
 * joined with '+' (xperf's, from the event list's NTKL_STACKWALK lines;
 * case-insensitive) or hook ids (0x0524), none for no stacks, and the
 * ioctls that set and get a logger's list (uapi/ntkl.h, NTKL_IOC_SET_STACK_TRACING).
 */
#ifndef NTKL_STACKWALK_H
#define NTKL_STACKWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/ntkl.h"

struct ntkl_stackwalk {
	uint32_t count;
	uint16_t hooks[NTKL_STACK_HOOKS_MAX];
};

/*
 * Parse "Profile+CSwitch+0x0532" into sw (appending; a hook given twice is
 * kept once). Names must be known; a number is passed on as it is (the
 * module says EINVAL for a hook it cannot walk). 0, or -1 with err.
 */
int ntkl_stackwalk_parse(const char *s, struct ntkl_stackwalk *sw, char *err, size_t err_size);

/* xperf's name of a hook ntkl walks; NULL for any other. */
const char *ntkl_stackwalk_name(uint16_t hook);

/* "CSwitch, ..., and Profile" (with their hooks if hooks): the names of -stackwalk */
void ntkl_stackwalk_names(char *out, size_t size, bool hooks);

/* "Profile+CSwitch" (hex for hooks without a name), "none" if empty. */
void ntkl_stackwalk_format(const uint16_t *hooks, uint32_t count, char *out, size_t size);

/*
 * The ioctls, on a logger named name (or id if name is NULL or ""): 0 or
 * -errno. GET gives the truncated stacks and, if user_stops is not NULL,
 * how the user parts of its stacks ended (enum ntkl_user_stop; zeros from
 * a module before ABI 7).
 */
int ntkl_set_stack_tracing(int fd, const char *name, uint32_t id,
			   const struct ntkl_stackwalk *sw);
int ntkl_get_stack_tracing(int fd, const char *name, uint32_t id,
			   struct ntkl_stackwalk *sw, uint64_t *truncated,
			   uint64_t user_stops[NTKL_USTOP_COUNT]);

#endif /* NTKL_STACKWALK_H */
