// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl flush NAME
 *
 * Close the logger's current buffers so its reader gets them now, as
 * `xperf -flush NAME`: a file logger's file then holds every event so far.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"

void cmd_flush_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl flush NAME\n"
		"\n"
		"Hand the logger's partly filled buffers to its reader now (its\n"
		"background writer appends them to the file).\n"
		"\n"
		"Exit status: 0 flushed, 1 failed, 2 usage error.\n");
}

int cmd_flush(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "flush", .op = NTKL_OP_FLUSH };
	struct ntkl_properties p;
	char what[NTKL_NAME_MAX + 64];
	int fd, ret;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cmd_flush_usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-' || strlen(argv[1]) >= NTKL_NAME_MAX) {
		fprintf(stderr, "ntkl flush: %s\n", argc < 2 ? "missing the logger NAME" :
			argc > 2 ? "one logger NAME only" :
			argv[1][0] == '-' ? "unknown option" : "logger names are 1..127 bytes");
		cmd_flush_usage(stderr);
		return EXIT_USAGE;
	}
	fd = ntkl_open_device("flush");
	if (fd < 0)
		return 1;
	ntkl_props_init(&p, argv[1]);
	ret = ntkl_flush(fd, &p);
	close(fd);
	if (ret) {
		ctx.logger = argv[1];
		snprintf(what, sizeof(what), "cannot flush logger %s", argv[1]);
		ntkl_error_print(stderr, &ctx, what, ret);
		return 1;
	}
	printf("Logger %s (id %u) flushed: %" PRIu64 " buffers written, %" PRIu64
	       " events lost so far.\n", p.logger_name, p.logger_id,
	       (uint64_t)p.buffers_written, (uint64_t)p.events_lost);
	return 0;
}
