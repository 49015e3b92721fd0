// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl start NAME [-on FLAGS] [options] -f FILE.etl
 * ntkl start NAME [-on FLAGS] [options] -buffering
 *
 * Starts a logger, as `xperf -start NAME -on FLAGS -f FILE`. A file
 * logger gets a background writer: a child process, detached from the
 * terminal, that is the logger's reader and drains it into FILE until the
 * logger stops, then patches the header. The writer is bound before this
 * command returns, so no buffer is missed, and its state file (ntkl_state.h)
 * lets `ntkl stop` wait for the file to be complete.
 */
#define _GNU_SOURCE	/* ppoll, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_output.h"
#include "ctl/ntkl_control.h"

#define START_OPTS	(NTKL_OPT_ON | NTKL_OPT_BUFFERSIZE | NTKL_OPT_MINBUFFERS | \
			 NTKL_OPT_MAXBUFFERS | NTKL_OPT_CLOCK | NTKL_OPT_BUFFERING | \
			 NTKL_OPT_FLUSHTIMER | NTKL_OPT_FILE | NTKL_OPT_SETPROFINT | \
			 NTKL_OPT_OWNED | NTKL_OPT_COMPRESS | NTKL_OPT_STACKWALK | \
			 NTKL_OPT_PROFILE | NTKL_OPT_STACKCACHING | NTKL_OPT_NOSTACKCACHING | \
			 NTKL_OPT_NOUNWIND)

/*
 * -stackwalk's names, from the event list's NTKL_STACKWALK lines
 * (ntkl_stackwalk_names()), wrapped under indent: a stack event added
 * there is in the help, the man page and the bash completion (which
 * reads them here) with no line of its own.
 */
static void stackwalk_help(FILE *out, const char *indent)
{
	size_t width = 74 - strlen(indent), col = 0;
	char names[512];
	const char *p = names;

	ntkl_stackwalk_names(names, sizeof(names), false);
	while (*p) {
		size_t n = strcspn(p, " ");

		if (col && col + 1 + n > width) {
			fputc('\n', out);
			col = 0;
		}
		if (col) {
			fputc(' ', out);
			col++;
		} else {
			fputs(indent, out);
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n + strspn(p + n, " ");
	}
	if (col)
		fputc('\n', out);
}

void cmd_start_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl start NAME [-on FLAGS] [options] -f FILE.etl\n"
		"       ntkl start NAME [-on FLAGS] [options] -buffering\n"
		"\n"
		"Start the logger NAME. With -f, a background writer drains it into\n"
		"FILE.etl until `ntkl stop NAME`. With -buffering, events stay in memory\n"
		"(a flight recorder, the oldest buffers overwritten) until `ntkl save`.\n"
		"\n"
		"  -on FLAGS          what to record, names joined with '+' (default\n"
		"                     PROC_THREAD), case does not matter:\n");
	ntkl_flags_help(out, "      ");
	fprintf(out,
		"  -profile NAME      a named set of -on FLAGS and -stackwalk HOOKS, as\n"
		"                     WPR's profiles (an -on or -stackwalk given too\n"
		"                     replaces that half):\n");
	ntkl_profiles_help(out, "      ");
	fprintf(out,
		"  -buffersize KB     buffer size, %u..%u KB (default %u)\n"
		"  -minbuffers N      at least N buffers (default and minimum: 2 per CPU)\n"
		"  -maxbuffers N      at most N buffers (default 8 per CPU, 32 with\n"
		"                     -stackwalk or SYSCALL, up to %u)\n"
		"  -clock C           qpc (default), system or cycle\n"
		"  -flushtimer S      hand buffers to the writer at least every S seconds\n"
		"  -setprofint N      PROFILE's interval, 100 ns units (kernel-wide, as\n"
		"                     ntkl profile-interval N; default 10000 = 1 ms)\n"
		"  -stackwalk HOOKS   record the stacks of these events, names joined\n"
		"                     with '+' as xperf's, or hook ids (0x0524):\n",
		NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB, NTKL_DEFAULT_BUFFER_KB,
		NTKL_MAX_BUFFERS);
	stackwalk_help(out, "                     ");
	fprintf(out,
		"  -stackcaching      write each stack as references to keys\n"
		"                     (StackKeyKernel, StackKeyUser) and each key's\n"
		"                     frames once (KeyDelete, KeyRundown), as Windows'\n"
		"                     stack caching: repeated stacks cost a fraction\n"
		"                     (the default with -stackwalk)\n"
		"  -nostackcaching    write every stack whole (Stack), for readers that\n"
		"                     do not resolve keys\n"
		"  -nounwind          walk user stacks by frame pointers alone, not by\n"
		"                     the binaries' unwind tables (.eh_frame)\n"
		"  -buffering         keep events in memory only (no -f)\n"
		"  -compress          write FILE compressed, as WPR and PerfView save\n"
		"                     traces (COMPRESSED_MODE, [MS-XCA] LZ77 per buffer)\n"
		"  -owned             the logger belongs to its background writer: it\n"
		"                     stops when the writer dies (killed, OOM), not\n"
		"                     only on ntkl stop (NTKL_MODE_OWNED; needs -f)\n"
		"  -f FILE.etl        the file to write\n"
		"\n"
		"Exit status: 0 started, 1 failed, 2 usage error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	return cmd_usage_error("start", cmd_start_usage, fmt, arg);
}

/* Undo a start that cannot go on: the logger would run with no reader. */
static void stop_again(int fd, const struct ntkl_properties *started)
{
	struct ntkl_properties p;

	ntkl_props_init(&p, started->logger_name);
	if (ntkl_stop(fd, &p))
		fprintf(stderr, "ntkl start: logger %s is still running: ntkl stop %s\n",
			started->logger_name, started->logger_name);
}

/* ---------------------------------------------------------------------- */
/* The background writer                                                   */
/* ---------------------------------------------------------------------- */

static volatile sig_atomic_t writer_terminated, stop_returned;

static void on_signal(int sig)
{
	if (sig == SIGTERM)
		writer_terminated = 1;
	else
		stop_returned = 1;
}

/*
 * The module's read() can say "end of data" before the STOP ioctl has
 * closed the last buffers: it marks the logger stopped first, then waits
 * for an RCU grace period, then flushes (module/control/logger.c stop_locked()).
 * Buffers closed by that flush come after our end of data. So at the end,
 * wait until ntkl stop says its STOP returned (SIGUSR1), or a while if
 * someone else stopped the logger, and read again.
 */
#define STOP_WAIT_MS	2000

static void wait_for_stop(const sigset_t *during_wait)
{
	struct timespec ts = { STOP_WAIT_MS / 1000, (STOP_WAIT_MS % 1000) * 1000000L };

	while (!stop_returned && !writer_terminated)
		if (ppoll(NULL, 0, &ts, during_wait) == 0)
			break;		/* timed out */
}

/*
 * The child: read buffers until the logger stops, then patch the header
 * and record the outcome in the state file. SIGTERM ends it early with a
 * consistent (shorter) file.
 */
static int run_writer(int in_fd, int out_fd, int state_fd, int ready_fd,
		      uint32_t buffer_size, bool compress, struct ntkl_writer_state *st)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct ntkl_properties final;
	struct ntkl_writer w;
	sigset_t block, during_poll;
	int ret;

	/* taken in ppoll only, so none slips in between a check and the wait */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &during_poll);
	sigdelset(&during_poll, SIGTERM);
	sigdelset(&during_poll, SIGUSR1);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);

	ret = ntkl_writer_init(&w, in_fd, out_fd, buffer_size);
	w.path = st->file;
	if (!ret && compress)
		ret = ntkl_writer_compress(&w);
	st->pid = getpid();
	snprintf(st->state, sizeof(st->state), "writing");
	if (ret)
		snprintf(st->error, sizeof(st->error), "%s", w.error);
	ntkl_state_write(state_fd, st);
	/* ntkl start may return now: we are bound, locked and described */
	if (write(ready_fd, ret ? "0" : "1", 1) < 0)
		ret = ret ? ret : -errno;
	close(ready_fd);
	if (ret)
		return 1;

	for (;;) {
		struct pollfd pfd = { .fd = in_fd, .events = POLLIN };
		int n = ppoll(&pfd, 1, NULL, &during_poll);

		if (writer_terminated) {
			snprintf(w.error, sizeof(w.error),
				 "the writer got SIGTERM before the logger stopped: the file ends early");
			ret = -EINTR;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(w.error, sizeof(w.error), "poll: %s", strerror(errno));
			break;
		}
		ret = ntkl_writer_step(&w);
		if (ret <= 0)
			break;
	}
	if (ret == 0)
		wait_for_stop(&during_poll);

	ret = ntkl_writer_end(&w, ret, &final);
	st->buffers = w.buffers;
	st->bytes = w.bytes;
	st->events = w.events;
	st->events_lost = final.events_lost;
	st->buffers_lost = final.log_buffers_lost;
	snprintf(st->state, sizeof(st->state), ret ? "failed" : "done");
	snprintf(st->error, sizeof(st->error), "%s", ret ? w.error : "");
	ntkl_state_write(state_fd, st);
	ntkl_writer_free(&w);
	return ret ? 1 : 0;
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Close every descriptor but stdio and keep[]: a daemon that held its
 * caller's pipes open would keep `$(ntkl start ...)` or `| tee` waiting.
 */
static void close_other_fds(int *keep, int n)
{
	unsigned int from = 3;

	qsort(keep, (size_t)n, sizeof(*keep), by_value);
	for (int i = 0; i <= n; i++) {
		unsigned int to = i < n ? (unsigned int)keep[i] : ~0U;

		if (to > from && close_range(from, to - 1, 0) < 0) {
			/* before Linux 5.9: one by one, as far as anyone goes */
			for (unsigned int fd = from; fd < to && fd < 65536; fd++)
				close((int)fd);
		}
		if (i < n && (unsigned int)keep[i] >= from)
			from = (unsigned int)keep[i] + 1;
	}
}

/*
 * Fork the writer; returns its pid once it is running, or -1 after
 * printing why not.
 */
static pid_t spawn_writer(int in_fd, int out_fd, int state_fd, int own_fd,
			  uint32_t buffer_size, bool compress, struct ntkl_writer_state *st)
{
	int ready[2];
	char ok = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(ready, O_CLOEXEC) < 0) {
		fprintf(stderr, "ntkl start: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ntkl start: cannot fork the writer: %s\n", strerror(errno));
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	if (pid == 0) {
		/* own_fd (-owned): the logger lives as long as the writer holds it */
		int keep[] = { in_fd, out_fd, state_fd, ready[1], own_fd };

		close_other_fds(keep, own_fd >= 0 ? 5 : 4);
		setsid();
		detach_stdio();
		if (chdir("/") < 0)
			_exit(1);
		_exit(run_writer(in_fd, out_fd, state_fd, ready[1], buffer_size, compress, st));
	}
	close(ready[1]);
	do
		n = read(ready[0], &ok, 1);
	while (n < 0 && errno == EINTR);
	close(ready[0]);
	if (n != 1 || ok != '1') {
		fprintf(stderr, "ntkl start: the background writer (pid %d) failed to start\n",
			(int)pid);
		return -1;
	}
	return pid;
}

/* ---------------------------------------------------------------------- */

/*
 * Descriptors 0-2 open (on /dev/null if they were closed), so that none
 * of ours gets a stdio number and is lost when the writer detaches.
 */
static void ensure_stdio(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= 2);
	if (fd > 2)
		close(fd);
}

/* Open FILE and the writer's side; 0, or 1 after stopping the logger. */
static int start_writer(int fd, const struct ntkl_properties *p, const char *file,
			bool compress)
{
	struct ntkl_error_ctx ctx = {
		.cmd = "start", .op = NTKL_OP_BIND, .logger = p->logger_name,
	};
	struct ntkl_writer_state st;
	char state_path[PATH_MAX], what[PATH_MAX + 256];
	int out_fd = -1, in_fd = -1, state_fd = -1, ret;
	pid_t pid;

	out_fd = ntkl_output_create(file, what, sizeof(what));
	if (out_fd < 0) {
		fprintf(stderr, "ntkl start: %s\n", what);
		goto fail;
	}
	in_fd = ntkl_open();
	ret = in_fd < 0 ? in_fd : ntkl_bind(in_fd, NULL, p->logger_id);
	if (ret) {
		snprintf(what, sizeof(what), "cannot read logger %s", p->logger_name);
		ntkl_error_print(stderr, &ctx, what, ret);
		goto fail;
	}
	ntkl_state_path(state_path, sizeof(state_path), p->logger_id, p->instance_guid);
	state_fd = ntkl_state_create(state_path);
	if (state_fd < 0) {
		if (state_fd == -EACCES)
			fprintf(stderr, "ntkl start: cannot create the writer's state file %s: %s: its directory must be writable by the group of /dev/ntkl, as make install's tmpfiles rule makes it at boot (sudo systemd-tmpfiles --create ntkl.conf)\n",
				state_path, strerror(-state_fd));
		else
			fprintf(stderr, "ntkl start: cannot create the writer's state file %s: %s\n",
				state_path, strerror(-state_fd));
		goto fail;
	}

	memset(&st, 0, sizeof(st));
	snprintf(st.logger, sizeof(st.logger), "%s", p->logger_name);
	if (!realpath(file, st.file))
		snprintf(st.file, sizeof(st.file), "%s", file);
	pid = spawn_writer(in_fd, out_fd, state_fd,
			   p->log_file_mode & NTKL_MODE_OWNED ? fd : -1,
			   p->buffer_size_kb * 1024, compress, &st);
	if (pid < 0) {
		unlink(state_path);
		goto fail;
	}
	/* the writer holds these now (and the state file's lock) */
	close(out_fd);
	close(in_fd);
	close(state_fd);

	ntkl_show_settings(stdout, p);
	printf("%-22s: %s (writer pid %d)\n", "Log Filename", st.file, (int)pid);
	printf("ntkl stop %s ends the trace and completes the file.\n", p->logger_name);
	return 0;

fail:
	if (state_fd >= 0)
		close(state_fd);
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	stop_again(fd, p);
	return 1;
}

int cmd_start(int argc, char **argv)
{
	struct ntkl_logger_opts o = { 0 };
	struct ntkl_properties p, asked;
	struct ntkl_error_ctx ctx = { .cmd = "start", .op = NTKL_OP_START };
	const char *name = NULL;
	char err[512], what[NTKL_NAME_MAX + 64];
	int fd, ret, i = 1;

	while (i < argc) {
		ret = ntkl_opts_take(argc, argv, &i, START_OPTS, &o, err, sizeof(err));
		if (ret < 0)
			return usage_error("%s", err);
		if (ret > 0)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_start_usage(stdout);
			return 0;
		}
		if (ntkl_opts_is_option(argv[i]))
			return usage_error("unknown option '%s'", argv[i]);
		if (name)
			return usage_error("one logger name only: '%s' is one too many", argv[i]);
		name = argv[i++];
	}
	if (!name)
		return usage_error("%s", "missing the logger NAME");
	if (!*name || strlen(name) >= NTKL_NAME_MAX)
		return usage_error("logger names are 1..127 bytes: '%s'", name);
	if (o.buffering && o.file)
		return usage_error("%s", "-buffering keeps events in memory: no -f (ntkl save NAME FILE writes them)");
	if (o.compress && o.buffering)
		return usage_error("%s", "-compress is for the file -f writes; ntkl save writes a -buffering logger's");
	if (o.owned && o.buffering)
		return usage_error("%s", "-owned gives the logger to its background writer: it needs -f FILE.etl, not -buffering");
	if (!o.buffering && !o.file)
		return usage_error("%s", "missing -f FILE.etl (or -buffering for a flight recorder)");
	if (ntkl_opts_check(&o, err, sizeof(err)))
		return usage_error("%s", err);
	/* the file's checks before the module's: a device or "-" is no capture file */
	if (o.file && cmd_output_check_only("start", o.file))
		return 1;
	if (!(o.seen & NTKL_OPT_ON))
		o.flags.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;

	ensure_stdio();
	fd = ntkl_open_device("start");
	if (fd < 0)
		return 1;
	if (o.seen & NTKL_OPT_SETPROFINT) {
		ret = profile_interval_apply(fd, "start", o.profile_interval);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	ntkl_props_init(&p, name);
	ntkl_opts_to_props(&o, &p);
	asked = p;
	ret = ntkl_start(fd, &p);
	if (ret) {
		ctx.logger = name;
		ctx.asked = &asked;
		snprintf(what, sizeof(what), "cannot start logger %s", name);
		ntkl_error_print(stderr, &ctx, what, ret);
		close(fd);
		return 1;
	}
	if ((o.seen & NTKL_OPT_STACKWALK) &&
	    stackwalk_apply(fd, "start", NULL, p.logger_id, &o.stackwalk)) {
		ntkl_stop(fd, &p);
		close(fd);
		return 1;
	}
	ntkl_show_absent(stderr, "start", &p);

	if (o.buffering) {
		ntkl_show_settings(stdout, &p);
		printf("%-22s: none: events stay in memory (ntkl save %s FILE.etl writes them)\n",
		       "Log Filename", name);
		ret = 0;
	} else {
		ret = start_writer(fd, &p, o.file, o.compress);
	}
	close(fd);
	return ret;
}
