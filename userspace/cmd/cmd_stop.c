// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl stop NAME
 *
 * Stops a logger (as `xperf -stop NAME`), then waits for its background
 * writer to drain the last buffers and patch the header, so that the file
 * is complete when this returns. Prints the final counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl/ntkl_control.h"

/* Draining is quick; a writer this slow is stuck. */
#define WRITER_TIMEOUT_MS	(10 * 60 * 1000)
#define WRITER_PATIENCE_MS	1000

void cmd_stop_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl stop NAME\n"
		"\n"
		"Stop the logger NAME. If `ntkl start -f FILE` started it, wait until\n"
		"its writer has written the last buffers and completed FILE, then\n"
		"print the final counters. A -buffering logger's events are dropped:\n"
		"`ntkl save NAME FILE.etl` first to keep them.\n"
		"\n"
		"Exit status: 0 stopped (and the file complete), 1 failed, 2 usage error.\n");
}

static void say_waiting(void *ctx)
{
	const struct ntkl_writer_state *st = ctx;

	fprintf(stderr, "ntkl stop: waiting for the writer (pid %ld) to complete %s...\n",
		st->pid, st->file);
}

#define LINE(label, fmt, ...)	printf("%-22s: " fmt "\n", label, ##__VA_ARGS__)

/* The counters of a logger without a background writer. */
static void print_stopped(const struct ntkl_properties *p)
{
	LINE("Events Lost", "%" PRIu64, (uint64_t)p->events_lost);
	LINE("Buffers Written", "%" PRIu64, (uint64_t)p->buffers_written);
	LINE("Log Buffers Lost", "%" PRIu64, (uint64_t)p->log_buffers_lost);
	if (p->log_file_mode & NTKL_MODE_BUFFERING)
		LINE("Log Filename", "none (buffering mode: its buffers are dropped)");
	else if (p->readers)
		LINE("Log Filename", "none here: its reader (ntkl record or ntkl save) completes its file");
	else
		LINE("Log Filename", "none: the logger had no reader");
}

/*
 * Buffers the logger closed that its file never got (the writer died or
 * failed first): with the events it could not buffer, what the trace
 * lacks. sequence_number counts closed buffers; the file's count
 * includes its header buffer.
 */
static void print_not_written(const struct ntkl_properties *p, uint64_t in_file)
{
	uint64_t closed = p->sequence_number + 1;

	LINE("Buffers Not Written", "%" PRIu64 " (closed by the logger, not in the file)",
	     closed > in_file ? closed - in_file : 0);
}

/* The writer's outcome; 0 if the file is complete. */
static int print_written(const struct ntkl_writer_state *st, const struct ntkl_properties *p)
{
	bool done = !strcmp(st->state, "done");
	struct stat sb;

	/* a failed writer's count stopped with it: the logger's is the whole */
	LINE("Events Lost", "%" PRIu64, done ? st->events_lost : (uint64_t)p->events_lost);
	LINE("Buffers Written", "%" PRIu64 " (in the file, header buffer included)",
	     st->buffers);
	LINE("Log Buffers Lost", "%" PRIu64, st->buffers_lost);
	if (!done)
		print_not_written(p, st->buffers);
	LINE("Events", "%" PRIu64, st->events);
	if (stat(st->file, &sb) == 0)
		LINE("Log Filename", "%s (%lld bytes)", st->file, (long long)sb.st_size);
	else
		LINE("Log Filename", "%s", st->file);
	if (!done) {
		fprintf(stderr, "ntkl stop: the writer of %s failed: %s\n", st->file,
			st->error[0] ? st->error : "it exited without saying why");
		return 1;
	}
	return 0;
}

/*
 * The writer died without a word (SIGKILL, out of memory): its file has
 * no patched header, maybe half a buffer at the end. Complete it here, as
 * `ntkl dump --repair` would (EndTime its last buffer's time, not now),
 * so it reads, and say that events after its death are gone. Returns 1.
 */
static int complete_for_dead_writer(const struct ntkl_writer_state *st,
				    const struct ntkl_properties *p)
{
	char err[PATH_MAX + 128];
	uint64_t buffers;

	fprintf(stderr, "ntkl stop: the writer (pid %ld) of %s died before the logger stopped: the file lacks what came after\n",
		st->pid, st->file);
	if (ntkl_file_complete(st->file, p, &buffers, err, sizeof(err))) {
		fprintf(stderr, "ntkl stop: cannot complete %s: %s\n", st->file, err);
		return 1;
	}
	LINE("Events Lost", "%" PRIu64, (uint64_t)p->events_lost);
	LINE("Buffers Written", "%" PRIu64 " (in the file, header buffer included)",
	     buffers);
	print_not_written(p, buffers);
	LINE("Log Filename", "%s (completed by ntkl stop)", st->file);
	return 1;
}

int cmd_stop(int argc, char **argv)
{
	struct ntkl_writer_state st;
	struct ntkl_properties p;
	char path[PATH_MAX];
	int ret;

	if (cmd_on_logger(argc, argv, &cmd_logger_ops[CMD_STOP], &p, &ret))
		return ret;
	printf("Logger %s (id %u) stopped.\n", p.logger_name, p.logger_id);

	ntkl_state_path(path, sizeof(path), p.logger_id, p.instance_guid);
	ntkl_state_read(path, &st);
	/*
	 * Tell the writer our STOP returned, so every buffer is closed now
	 * (see wait_for_stop() in cmd_start.c). Only while it holds its lock:
	 * then the pid is surely still the writer's.
	 */
	if (st.pid > 0 && ntkl_state_busy(path))
		kill((pid_t)st.pid, SIGUSR1);
	ret = ntkl_state_wait(path, WRITER_TIMEOUT_MS, WRITER_PATIENCE_MS, say_waiting, &st);
	if (ret == -ENOENT) {
		print_stopped(&p);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "ntkl stop: the writer (pid %ld) of %s did not finish: %s; the file may be incomplete\n",
			st.pid, st.file, strerror(-ret));
		return 1;
	}
	ret = ntkl_state_read(path, &st);
	if (ret) {
		fprintf(stderr, "ntkl stop: cannot read the writer's state %s: %s\n",
			path, strerror(-ret));
		return 1;
	}
	if (!strcmp(st.state, "writing"))
		ret = complete_for_dead_writer(&st, &p);
	else
		ret = print_written(&st, &p);
	unlink(path);
	return ret;
}
