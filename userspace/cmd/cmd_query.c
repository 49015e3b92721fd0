// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl query NAME    every property and counter of one logger
 * ntkl list          one line per logger
 *
 * As `xperf -loggers NAME` and `logman query -ets`. Where the events go
 * (the background writer and its file) comes from the writer's state file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"

void cmd_query_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl query NAME\n"
		"\n"
		"Print every setting and counter of the logger NAME: mode, clock,\n"
		"buffers, trace flags and group masks by name, events lost, buffers\n"
		"written, and the file its writer writes.\n"
		"\n"
		"Exit status: 0 OK, 1 failed (no such logger), 2 usage error.\n");
}

void cmd_list_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl list\n"
		"\n"
		"One line per running logger: id, name, status, mode, buffer size,\n"
		"buffers in use, buffers written, events lost, trace flags, file.\n"
		"\n"
		"Exit status: 0 OK, 1 failed, 2 usage error.\n");
}

/* The writer's state for a logger, if it has one. */
static void find_sink(const struct ntkl_properties *p, struct ntkl_writer_state *st,
		      struct ntkl_sink *sink)
{
	char path[PATH_MAX];

	ntkl_state_path(path, sizeof(path), p->logger_id, p->instance_guid);
	sink->writer = ntkl_state_read(path, st) ? NULL : st;
	sink->busy = sink->writer && ntkl_state_busy(path);
}

int cmd_query(int argc, char **argv)
{
	struct ntkl_writer_state st;
	struct ntkl_properties p;
	struct ntkl_sink sink;
	int status, fd;

	if (cmd_on_logger(argc, argv, &cmd_logger_ops[CMD_QUERY], &p, &status))
		return status;
	find_sink(&p, &st, &sink);
	ntkl_show_props(stdout, &p, &sink);
	fd = ntkl_open();
	if (fd >= 0) {
		stackwalk_show(stdout, fd, NULL, p.logger_id);
		close(fd);
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "list", .op = NTKL_OP_LIST };
	struct ntkl_properties *props;
	struct ntkl_writer_state *states;
	struct ntkl_sink *sinks;
	uint32_t count;
	int fd, ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cmd_list_usage(stdout);
		return 0;
	}
	if (argc != 1) {
		return cmd_usage_error("list", cmd_list_usage, "no arguments, please ('%s')",
				       argv[1]);
	}
	fd = ntkl_open_device("list");
	if (fd < 0)
		return 1;
	ret = ntkl_list(fd, &props, &count);
	close(fd);
	if (ret) {
		ntkl_error_print(stderr, &ctx, "cannot list the loggers", ret);
		return 1;
	}
	if (!count) {
		printf("No logger is running.\n");
		return 0;
	}
	states = calloc(count, sizeof(*states));
	sinks = calloc(count, sizeof(*sinks));
	if (!states || !sinks) {
		fprintf(stderr, "ntkl list: out of memory\n");
		free(states);
		free(sinks);
		free(props);
		return 1;
	}
	for (uint32_t i = 0; i < count; i++)
		find_sink(&props[i], &states[i], &sinks[i]);
	ntkl_show_list(stdout, props, sinks, count);
	free(states);
	free(sinks);
	free(props);
	return 0;
}
