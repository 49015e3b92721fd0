// SPDX-License-Identifier: GPL-2.0
/*
 * -stackwalk on ntkl start, record and update: the logger's list of
 * hooks whose events carry their stacks (NTKL_IOC_SET_STACK_TRACING), and
 * the line ntkl query shows for it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* Another user's logger: the one-line error naming its owner. */
static void not_owner(int fd, const char *cmd, const char *logger, uint32_t id)
{
	struct ntkl_properties cur;
	struct ntkl_error_ctx ctx = {
		.cmd = cmd, .op = NTKL_OP_UPDATE, .logger = logger, .current = &cur,
	};
	char what[NTKL_NAME_MAX + 64];

	ntkl_props_init(&cur, logger);
	cur.logger_id = logger ? 0 : id;
	if (ntkl_query(fd, &cur))
		ctx.current = NULL;
	else
		ctx.logger = cur.logger_name;
	snprintf(what, sizeof(what), "-stackwalk: cannot change logger %s", ctx.logger);
	ntkl_error_print(stderr, &ctx, what, -EACCES);
}

int stackwalk_apply(int fd, const char *cmd, const char *logger, uint32_t id,
		    const struct ntkl_stackwalk *sw)
{
	char hooks[512], names[512];
	int ret = ntkl_set_stack_tracing(fd, logger, id, sw);

	if (!ret)
		return 0;
	ntkl_stackwalk_format(sw->hooks, sw->count, hooks, sizeof(hooks));
	ntkl_stackwalk_names(names, sizeof(names), true);
	if (ret == -EINVAL)
		fprintf(stderr, "ntkl %s: cannot walk the stacks of %s: ntkl walks %s\n", cmd, hooks,
			names);
	else if (ret == -EACCES)
		not_owner(fd, cmd, logger, id);
	else if (ret == -ENOTTY)
		fprintf(stderr, "ntkl %s: -stackwalk: the loaded ntkl module cannot walk stacks (ntkl version)\n",
			cmd);
	else
		fprintf(stderr, "ntkl %s: -stackwalk %s: %s\n", cmd, hooks, strerror(-ret));
	return 1;
}

void stackwalk_show(FILE *out, int fd, const char *logger, uint32_t id)
{
	uint64_t truncated, stops[NTKL_USTOP_COUNT];
	struct ntkl_stackwalk sw;
	char hooks[512];

	if (ntkl_get_stack_tracing(fd, logger, id, &sw, &truncated, stops))
		return;		/* an older module: no stack walking to show */
	ntkl_stackwalk_format(sw.hooks, sw.count, hooks, sizeof(hooks));
	fprintf(out, "%-22s: %s\n", "Stack Walk", hooks);
	if (!sw.count)
		return;
	fprintf(out, "%-22s: %llu\n", "Stacks Truncated", (unsigned long long)truncated);
	user_stops_show(out, "User Stacks           : ", stops);
}

/*
 * How the user parts of a logger's stacks ended, so that a user knows why
 * a stack is short: "1200 whole, 14 ended early: 9 no unwind data, ...".
 */
void user_stops_show(FILE *out, const char *lead, const uint64_t stops[NTKL_USTOP_COUNT])
{
	static const char *const why[NTKL_USTOP_COUNT] = {
		[NTKL_USTOP_NO_MAP] = "process map not made yet",
		[NTKL_USTOP_NO_DATA] = "no unwind data nor frame pointer",
		[NTKL_USTOP_BAD_READ] = "stack unreadable",
		[NTKL_USTOP_LIMIT] = "frame cap",
	};
	unsigned long long early = 0;
	unsigned int i;

	for (i = NTKL_USTOP_NO_MAP; i <= NTKL_USTOP_LIMIT; i++)
		early += stops[i];
	if (!early && !stops[NTKL_USTOP_END] && !stops[NTKL_USTOP_FRAME_POINTER])
		return;
	fprintf(out, "%s%llu whole, %llu ended early", lead,
		(unsigned long long)stops[NTKL_USTOP_END], early);
	for (i = NTKL_USTOP_NO_MAP; i <= NTKL_USTOP_LIMIT; i++)
		if (stops[i])
			fprintf(out, ", %llu %s", (unsigned long long)stops[i], why[i]);
	if (stops[NTKL_USTOP_FRAME_POINTER])
		fprintf(out, "; %llu by frame pointers (-nounwind)",
			(unsigned long long)stops[NTKL_USTOP_FRAME_POINTER]);
	fputc('\n', out);
}
