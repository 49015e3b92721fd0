// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands on one running logger (stop, query, flush, save)
 * share: `ntkl CMD NAME ...`, its help, its arguments, and one call to the
 * module on that logger with ntkl's one-line error and its fix.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

const struct cmd_logger_op cmd_logger_ops[] = {
	[CMD_STOP] = { "stop", cmd_stop_usage, 1, NULL, NTKL_OP_STOP, "stop", ntkl_stop },
	[CMD_QUERY] = { "query", cmd_query_usage, 1, NULL, NTKL_OP_QUERY, "query", ntkl_query },
	[CMD_FLUSH] = { "flush", cmd_flush_usage, 1, NULL, NTKL_OP_FLUSH, "flush", ntkl_flush },
	[CMD_SAVE] = { "save", cmd_save_usage, 2, "give the logger NAME and the FILE.etl",
		       NTKL_OP_QUERY, "query", ntkl_query },
};

static bool args_ok(const struct cmd_logger_op *op, int argc, char **argv)
{
	const char *msg = NULL;
	int i;

	if (argc != op->nargs + 1)
		msg = op->count_msg ? op->count_msg :
		      argc < 2 ? "missing the logger NAME" : "one logger NAME only";
	for (i = 1; !msg && i < argc; i++)
		if (argv[i][0] == '-') {
			cmd_usage_error(op->cmd, op->usage, "unknown option '%s'", argv[i]);
			return false;
		}
	if (!msg && strlen(argv[1]) >= NTKL_NAME_MAX)
		msg = "logger names are 1..127 bytes";
	if (!msg)
		return true;
	cmd_usage_error(op->cmd, op->usage, "%s", msg);
	return false;
}

int cmd_on_logger(int argc, char **argv, const struct cmd_logger_op *op,
		  struct ntkl_properties *p, int *status)
{
	struct ntkl_error_ctx ctx = { .cmd = op->cmd, .op = op->op, .logger = argv[1] };
	char what[NTKL_NAME_MAX + 64];
	int fd, ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		op->usage(stdout);
		*status = 0;
		return -1;
	}
	*status = EXIT_USAGE;
	if (!args_ok(op, argc, argv))
		return -1;
	*status = 1;
	fd = ntkl_open_device(op->cmd);
	if (fd < 0)
		return -1;
	ntkl_props_init(p, argv[1]);
	ret = op->call(fd, p);
	if (ret == -EACCES) {
		/* another user's logger: the error names its owner */
		ntkl_props_init(p, argv[1]);
		if (!ntkl_query(fd, p))
			ctx.current = p;
	}
	close(fd);
	if (!ret)
		return 0;
	snprintf(what, sizeof(what), "cannot %s logger %s", op->verb, argv[1]);
	ntkl_error_print(stderr, &ctx, what, ret);
	return -1;
}
