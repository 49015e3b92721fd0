// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl save NAME FILE.etl
 *
 * Write a snapshot of a buffering-mode logger (a flight recorder, `ntkl
 * start NAME -buffering`) to FILE, as `xperf -flush NAME -f FILE`. While
 * we read, the module pauses the logger (events meanwhile count as lost)
 * and read() returns 0 at the end of the snapshot; closing the descriptor
 * lets the logger record again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_output.h"
#include "ctl/ntkl_control.h"

void cmd_save_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl save NAME FILE.etl\n"
		"\n"
		"Write what the buffering-mode logger NAME (ntkl start NAME -buffering)\n"
		"holds to FILE.etl. The logger pauses while it is saved (events then\n"
		"count as lost) and goes on recording afterwards.\n"
		"\n"
		"Exit status: 0 saved, 1 failed, 2 usage error.\n");
}

#define LINE(label, fmt, ...)	printf("%-22s: " fmt "\n", label, ##__VA_ARGS__)

static int save(const struct ntkl_properties *p, const char *file)
{
	struct ntkl_error_ctx ctx = {
		.cmd = "save", .op = NTKL_OP_BIND, .logger = p->logger_name, .current = p,
	};
	struct ntkl_properties final;
	struct ntkl_writer w;
	char what[PATH_MAX + 256];
	int in_fd, out_fd, ret;

	in_fd = ntkl_open();
	ret = in_fd < 0 ? in_fd : ntkl_bind(in_fd, p->logger_name, 0);
	if (ret) {
		snprintf(what, sizeof(what), "cannot read logger %s", p->logger_name);
		ntkl_error_print(stderr, &ctx, what, ret);
		if (in_fd >= 0)
			close(in_fd);
		return 1;
	}
	out_fd = ntkl_output_create(file, what, sizeof(what));
	if (out_fd < 0) {
		fprintf(stderr, "ntkl save: %s\n", what);
		close(in_fd);
		return 1;
	}
	ret = ntkl_writer_init(&w, in_fd, out_fd, p->buffer_size_kb * 1024);
	w.path = file;
	if (!ret)
		ret = ntkl_writer_end(&w, 0, &final);
	if (ret)
		fprintf(stderr, "ntkl save: %s: %s\n", file, w.error);
	/* closing the reader lets the logger record again */
	close(in_fd);
	if (close(out_fd) < 0 && !ret) {
		ret = -errno;
		fprintf(stderr, "ntkl save: %s: %s\n", file, strerror(-ret));
	}
	if (!ret) {
		printf("Logger %s (id %u) saved.\n", p->logger_name, p->logger_id);
		LINE("Events Lost", "%" PRIu64 " (since start, the pause included)",
		     (uint64_t)final.events_lost);
		LINE("Buffers Written", "%" PRIu64 " (in the file, header buffer included)",
		     w.buffers);
		LINE("Events", "%" PRIu64, w.events);
		LINE("Log Filename", "%s (%" PRIu64 " bytes)", file, w.bytes);
	}
	ntkl_writer_free(&w);
	return ret ? 1 : 0;
}

int cmd_save(int argc, char **argv)
{
	struct ntkl_properties p;
	int status;

	/* the file's checks before the module's: a device or "-" is no capture file */
	if (argc == 3 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help") &&
	    cmd_output_check_only("save", argv[2]))
		return 1;
	if (cmd_on_logger(argc, argv, &cmd_logger_ops[CMD_SAVE], &p, &status))
		return status;
	/* a file logger's reader would wait for ever: only snapshots here */
	if (!(p.log_file_mode & NTKL_MODE_BUFFERING)) {
		fprintf(stderr, "ntkl save: logger %s is not in buffering mode: its events go to its reader (ntkl query %s); ntkl save is for loggers started with -buffering\n",
			argv[1], argv[1]);
		return 1;
	}
	return save(&p, argv[2]);
}
