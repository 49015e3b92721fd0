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
	struct ntkl_properties p;
	int status;

	if (cmd_on_logger(argc, argv, &cmd_logger_ops[CMD_FLUSH], &p, &status))
		return status;
	printf("Logger %s (id %u) flushed: %" PRIu64 " buffers written, %" PRIu64
	       " events lost so far.\n", p.logger_name, p.logger_id,
	       (uint64_t)p.buffers_written, (uint64_t)p.events_lost);
	return 0;
}
