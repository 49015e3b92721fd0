// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl update NAME [-on FLAGS] [-flushtimer S] [-maxbuffers N]
 *
 * Change a running logger, as `xperf -update`/ControlTrace UPDATE: the
 * trace flags (replaced, not added to), the flush timer, fewer buffers.
 * What is not given stays: the module takes the whole group mask, so the
 * current one is read first and sent back unchanged without -on.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"

#define UPDATE_OPTS	(NTKL_OPT_ON | NTKL_OPT_FLUSHTIMER | NTKL_OPT_MAXBUFFERS | \
			 NTKL_OPT_STACKWALK)

void cmd_update_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl update NAME [-on FLAGS] [-flushtimer S] [-maxbuffers N]\n"
		"       [-stackwalk HOOKS]\n"
		"\n"
		"Change a running logger. What is not given stays as it is.\n"
		"\n"
		"  -on FLAGS       the new trace flags, replacing the old ones:\n");
	ntkl_flags_help(out, "      ");
	fprintf(out,
		"  -flushtimer S   hand buffers to the reader at least every S seconds\n"
		"                  (1..%u; a timer cannot be turned off)\n"
		"  -maxbuffers N   accepted only as it is: the buffers are allocated at start\n"
		"  -stackwalk HOOKS  the events whose stacks are recorded, replacing the\n"
		"                  list (as ntkl start; -stackwalk none records none)\n"
		"\n"
		"Exit status: 0 updated, 1 failed, 2 usage error.\n",
		NTKL_MAX_FLUSH_TIMER);
}

static int usage_error(const char *fmt, const char *arg)
{
	return cmd_usage_error("update", cmd_update_usage, fmt, arg);
}

int cmd_update(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "update" };
	struct ntkl_logger_opts o = { 0 };
	struct ntkl_properties cur, p, asked;
	const char *name = NULL;
	char err[512], what[NTKL_NAME_MAX + 64];
	int fd, ret, i = 1;

	while (i < argc) {
		ret = ntkl_opts_take(argc, argv, &i, UPDATE_OPTS, &o, err, sizeof(err));
		if (ret < 0)
			return usage_error("%s", err);
		if (ret > 0)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_update_usage(stdout);
			return 0;
		}
		if (ntkl_opts_is_option(argv[i]))
			return usage_error("unknown option '%s' (update takes -on, -flushtimer, -maxbuffers, -stackwalk)",
					   argv[i]);
		if (name)
			return usage_error("one logger name only: '%s' is one too many", argv[i]);
		name = argv[i++];
	}
	if (!name)
		return usage_error("%s", "missing the logger NAME");
	if (strlen(name) >= NTKL_NAME_MAX)
		return usage_error("logger names are 1..127 bytes: '%s'", name);
	if (!o.seen)
		return usage_error("%s", "nothing to change: give -on, -flushtimer, -maxbuffers or -stackwalk");
	/* for the ioctl 0 means "leave it": say so rather than do nothing */
	if ((o.seen & NTKL_OPT_FLUSHTIMER) && !o.flush_timer)
		return usage_error("%s", "-flushtimer 0: a flush timer cannot be turned off, only changed (1..3600)");
	if ((o.seen & NTKL_OPT_MAXBUFFERS) && !o.maximum_buffers)
		return usage_error("%s", "-maxbuffers 0: give the new maximum");

	fd = ntkl_open_device("update");
	if (fd < 0)
		return 1;
	ctx.logger = name;
	ntkl_props_init(&cur, name);
	ret = ntkl_query(fd, &cur);
	if (ret) {
		ctx.op = NTKL_OP_QUERY;
		snprintf(what, sizeof(what), "cannot query logger %s", name);
		ntkl_error_print(stderr, &ctx, what, ret);
		close(fd);
		return 1;
	}

	ntkl_props_init(&p, name);
	if (o.seen & NTKL_OPT_ON) {
		p.enable_flags = o.flags.enable_flags;
		memcpy(p.group_masks, o.flags.group_masks, sizeof(p.group_masks));
	} else {
		p.enable_flags = cur.enable_flags;
		memcpy(p.group_masks, cur.group_masks, sizeof(p.group_masks));
	}
	p.flush_timer = o.flush_timer;
	p.maximum_buffers = o.maximum_buffers;
	asked = p;
	if ((o.seen & NTKL_OPT_STACKWALK) &&
	    stackwalk_apply(fd, "update", name, 0, &o.stackwalk)) {
		close(fd);
		return 1;
	}
	ret = ntkl_update(fd, &p);
	close(fd);
	if (ret) {
		ctx.op = NTKL_OP_UPDATE;
		ctx.asked = &asked;
		ctx.current = &cur;
		snprintf(what, sizeof(what), "cannot update logger %s", name);
		ntkl_error_print(stderr, &ctx, what, ret);
		return 1;
	}
	ntkl_show_settings(stdout, &p);
	ntkl_show_absent(stderr, "update", &p);
	return 0;
}
