// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl record [-on FLAGS] [options] -o FILE.etl -- COMMAND [ARGS...]
 *
 * Trace one command, start to end, in one go: start a logger named
 * "ntkl record <pid>", become its reader, run COMMAND, and write the
 * buffers to FILE as they come. When COMMAND exits: stop the logger,
 * drain it, patch the header, and exit with COMMAND's status. SIGINT or
 * SIGTERM ends the trace early the same clean way (exit status 130).
 *
 * One loop waits for everything: ppoll() on the bound descriptor with
 * SIGCHLD, SIGINT and SIGTERM blocked outside it, so a signal can never
 * slip in between a check and the wait.
 */
#define _GNU_SOURCE	/* ppoll, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_output.h"
#include "ctl/ntkl_control.h"
#include "etl/etl.h"

#define RECORD_OPTS	(NTKL_OPT_ON | NTKL_OPT_BUFFERSIZE | NTKL_OPT_MINBUFFERS | \
			 NTKL_OPT_MAXBUFFERS | NTKL_OPT_CLOCK | NTKL_OPT_FLUSHTIMER | \
			 NTKL_OPT_FILE | NTKL_OPT_OUTPUT | NTKL_OPT_SETPROFINT | \
			 NTKL_OPT_COMPRESS | NTKL_OPT_STACKWALK | NTKL_OPT_PROFILE | \
			 NTKL_OPT_STACKCACHING | NTKL_OPT_NOSTACKCACHING | NTKL_OPT_NOUNWIND)
#define PROGRESS_MS	250
#define RATE_MS		1000	/* the event rate is over the last second or more */
#define EXIT_INTERRUPTED 130

void cmd_record_usage(FILE *out)
{
	fprintf(out,
		"usage: ntkl record [-on FLAGS] [options] -o FILE.etl -- COMMAND [ARGS...]\n"
		"\n"
		"Trace COMMAND from start to end into FILE.etl, then exit with its\n"
		"status. On a terminal (or with --progress) a progress line shows the\n"
		"time so far, events and their rate, bytes, buffers and events lost;\n"
		"it moves on a quiet workload too, as the logger's buffers are then\n"
		"flushed every second (-flushtimer 1, unless -flushtimer is given).\n"
		"Ctrl-C (SIGINT) or SIGTERM ends the trace early,\n"
		"with a complete file (exit status 130). The logger belongs to this\n"
		"command: if it is killed, the module stops the logger, and FILE.etl\n"
		"holds every buffer written so far (its header is kept up to date).\n"
		"\n"
		"  -on FLAGS          what to record, names joined with '+' (default\n"
		"                     PROC_THREAD):\n");
	ntkl_flags_help(out, "      ");
	fprintf(out,
		"  -profile NAME      a named set of -on FLAGS and -stackwalk HOOKS, as\n"
		"                     WPR's profiles (an -on or -stackwalk given too\n"
		"                     replaces that half):\n");
	ntkl_profiles_help(out, "      ");
	fprintf(out,
		"  -o FILE.etl        the file to write (-f works too; default ntkl.etl);\n"
		"                     one there already is kept as FILE.etl.old (an\n"
		"                     older .old is replaced), as perf record's\n"
		"                     perf.data.old, and a line says so\n"
		"  --progress         the progress line even when stderr is not a\n"
		"                     terminal (one line a second); --no-progress: none\n"
		"  --symbols DIR      then write the PDB files that name its stacks'\n"
		"                     functions in WPA into DIR (ntkl symbols -o DIR)\n"
		"  -buffersize KB     buffer size, %u..%u KB (default %u)\n"
		"  -minbuffers N, -maxbuffers N, -clock qpc|system|cycle,\n"
		"  -flushtimer S, -setprofint N, -stackwalk HOOKS, -stackcaching,\n"
		"  -nostackcaching,\n"
		"  -nounwind,\n"
		"  -compress          as for ntkl start\n"
		"\n"
		"Exit status: COMMAND's (128+N if signal N killed it), 127 if it\n"
		"could not run, 130 if interrupted, 1 if tracing (or --symbols) failed,\n"
		"2 usage error.\n",
		NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB, NTKL_DEFAULT_BUFFER_KB);
}

static int usage_error(const char *fmt, const char *arg)
{
	return cmd_usage_error("record", cmd_record_usage, fmt, arg);
}

/*
 * As perf record keeps perf.data.old: a FILE that holds something (not
 * empty) is renamed FILE.old (an older FILE.old is replaced) and a line
 * says so, for the default ntkl.etl and any -o alike. A symlink's target
 * is kept as TARGET.old and the link stays (it then names the new file).
 * A FILE another logger is writing (locked) is left as it is, for
 * ntkl_output_create() to refuse. Called once the logger runs, so that a
 * record that fails before (no module) leaves FILE where it was.
 * Returns 0, or -1 after a line saying why FILE cannot be kept.
 */
static int keep_old(const char *file)
{
	char *target = NULL, *old = NULL;
	const char *base = file;
	struct stat st;
	int fd, ret = 0;

	if (lstat(file, &st))
		return 0;		/* nothing there, nothing to keep */
	if (S_ISLNK(st.st_mode)) {
		target = realpath(file, NULL);
		if (!target)
			return 0;	/* a dangling link: the new file is its target */
		base = target;
	}
	if (stat(base, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		goto out;
	fd = open(base, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;		/* ntkl_output_create() says why */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		if (asprintf(&old, "%s.old", base) < 0) {
			old = NULL;
			fprintf(stderr, "ntkl record: out of memory\n");
			ret = -1;
		} else if (rename(base, old)) {
			fprintf(stderr, "ntkl record: cannot keep the old %s as %s: %s: move it away, or choose another -o\n",
				base, old, strerror(errno));
			ret = -1;
		} else {
			fprintf(stderr, "ntkl record: kept the old %s as %s\n", base, old);
		}
	}
	close(fd);
out:
	free(old);
	free(target);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Signals                                                                 */
/* ---------------------------------------------------------------------- */

static volatile sig_atomic_t child_changed, interrupted;
static volatile pid_t child_pid;

static void on_sigchld(int sig)
{
	(void)sig;
	child_changed = 1;
}

static void on_interrupt(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	interrupted = sig;
	/*
	 * A terminal's Ctrl-C reaches COMMAND (same process group) anyway;
	 * a signal sent to us alone (kill) is passed on so COMMAND ends too.
	 */
	if (info && (info->si_code == SI_USER || info->si_code == SI_QUEUE) &&
	    child_pid > 0)
		kill(child_pid, sig);
}

/*
 * The signals we change, and what they did before, for COMMAND to get
 * back. The first three are handled (in ppoll only); SIGPIPE is ignored,
 * so that a closed stderr cannot kill us before the file is complete.
 */
static const int our_signals[] = { SIGCHLD, SIGINT, SIGTERM, SIGPIPE };
#define NSIGNALS	(sizeof(our_signals) / sizeof(our_signals[0]))

struct signal_state {
	sigset_t orig_mask;		/* before we blocked ours */
	sigset_t wait_mask;		/* in ppoll: ours let through */
	struct sigaction orig[NSIGNALS];
};

/*
 * Block our signals and install handlers. A signal ignored when we
 * started stays ignored, as shells expect: a background
 * `ntkl record ... &` is not meant to see Ctrl-C.
 */
static void setup_signals(struct signal_state *s)
{
	struct sigaction chld = { .sa_handler = on_sigchld };
	struct sigaction intr = { .sa_sigaction = on_interrupt, .sa_flags = SA_SIGINFO };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &s->orig_mask);
	s->wait_mask = s->orig_mask;
	for (size_t i = 0; i < NSIGNALS; i++) {
		int sig = our_signals[i];

		sigdelset(&s->wait_mask, sig);
		sigaction(sig, NULL, &s->orig[i]);
		if (sig == SIGPIPE)
			sigaction(sig, &ign, NULL);
		else if (sig == SIGCHLD)
			sigaction(sig, &chld, NULL);
		else if (s->orig[i].sa_handler != SIG_IGN)
			sigaction(sig, &intr, NULL);
	}
}

/* In COMMAND's child: the signal state we were started with. */
static void restore_signals(const struct signal_state *s)
{
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaction(our_signals[i], &s->orig[i], NULL);
	sigprocmask(SIG_SETMASK, &s->orig_mask, NULL);
}

/* ---------------------------------------------------------------------- */
/* COMMAND                                                                 */
/* ---------------------------------------------------------------------- */

/*
 * Fork and exec COMMAND with our original signal state. Returns its pid,
 * or -1 if it could not run (*exec_errno says why; the child is reaped).
 */
static pid_t run_command(char **cmd, const struct signal_state *sigs, int *exec_errno)
{
	int report[2], err = 0;
	pid_t pid;
	ssize_t n;

	*exec_errno = 0;
	if (pipe2(report, O_CLOEXEC) < 0) {
		*exec_errno = errno;
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		*exec_errno = errno;
		close(report[0]);
		close(report[1]);
		return -1;
	}
	if (pid == 0) {
		restore_signals(sigs);
		close(report[0]);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(report[1]);
	/* EOF: exec worked (the pipe closed on exec); else its errno */
	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(err)) {
		*exec_errno = err;
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Collect COMMAND if it ended: true with *status its wait status. */
static bool reap(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, WNOHANG);
	while (r < 0 && errno == EINTR);
	return r == pid;
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* ---------------------------------------------------------------------- */
/* Progress                                                                */
/* ---------------------------------------------------------------------- */

struct recording {
	struct ntkl_writer w;
	struct ntkl_properties props;	/* as started */
	int ctl_fd, in_fd, out_fd;
	const char *file;
	const char *symbols;		/* --symbols DIR, or NULL */
	bool progress;			/* stderr is a terminal, or --progress */
	bool progress_tty;		/* redraw one line (else a line a second) */
	bool progress_shown;
	uint64_t events_lost;		/* last QUERY */
	uint64_t user_stops[NTKL_USTOP_COUNT];	/* how its user stacks ended, at stop */
	long long started_ms;
	long long rate_ms;		/* when rate_events was taken */
	uint64_t rate_events;
	double rate;			/* events per second, over the last RATE_MS or more */
	long long printed_ms;		/* the last line printed (not on a terminal) */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void show_progress(struct recording *r)
{
	struct ntkl_properties q;
	long long now = now_ms();

	if (!r->progress)
		return;
	if (now - r->rate_ms >= RATE_MS) {
		r->rate = (double)(r->w.events - r->rate_events) * 1000.0 / (double)(now - r->rate_ms);
		r->rate_ms = now;
		r->rate_events = r->w.events;
	}
	if (!r->progress_tty && now - r->printed_ms < RATE_MS)
		return;
	if (!ntkl_query_bound(r->in_fd, &q))
		r->events_lost = q.events_lost;
	fprintf(stderr, "%sntkl record: %.1f s, %" PRIu64 " events (%.0f/s), %.1f MB, %" PRIu64
		" buffers, %" PRIu64 " lost%s", r->progress_tty ? "\r\033[K" : "",
		(double)(now - r->started_ms) / 1000.0, r->w.events, r->rate,
		(double)r->w.bytes / 1e6, r->w.buffers, r->events_lost,
		r->progress_tty ? "" : "\n");
	r->printed_ms = now;
	r->progress_shown = r->progress_tty;
}

static void clear_progress(struct recording *r)
{
	if (r->progress_shown)
		fprintf(stderr, "\r\033[K");
	r->progress_shown = false;
}

/* ---------------------------------------------------------------------- */

/* Stop our logger; someone may have done it already (ntkl stop). */
static void stop_logger(struct recording *r)
{
	struct ntkl_error_ctx ctx = {
		.cmd = "record", .op = NTKL_OP_STOP, .logger = r->props.logger_name,
	};
	struct ntkl_stackwalk sw;
	struct ntkl_properties p;
	uint64_t truncated;
	int ret;

	/* the counts die with the logger: read them first (none: all zero) */
	if (ntkl_get_stack_tracing(r->ctl_fd, NULL, r->props.logger_id, &sw, &truncated,
				   r->user_stops))
		memset(r->user_stops, 0, sizeof(r->user_stops));
	ntkl_props_init(&p, NULL);
	p.logger_id = r->props.logger_id;
	ret = ntkl_stop(r->ctl_fd, &p);
	if (ret && ret != -ENOENT)
		ntkl_error_print(stderr, &ctx, "cannot stop the logger", ret);
}

/*
 * The records of FILE's header buffer (the Header event and those the
 * module puts beside it): the writer counts the data buffers' alone, and
 * ntkl report counts every record of the file; with these the summary
 * says the same number. 0 if the file cannot be read.
 */
static uint64_t header_records(const char *file)
{
	struct etl_cursor c;
	struct etl_error err;
	struct etl_buffer b;
	struct etl_file f;
	uint64_t n = 0;

	if (etl_open(&f, file, &err))
		return 0;
	etl_buffers_begin(&f, &c);
	if (etl_next_buffer(&f, &c, &b, &err) == 1 && b.index == 0)
		n = etl_count_records(&b);
	etl_buffers_end(&c);
	etl_close(&f);
	return n;
}

/*
 * After the logger stopped: drain, patch, close, summarise. error is the
 * recording's first failure, if any: the file then keeps the buffers
 * written so far. 0 if FILE is complete.
 */
static int finish(struct recording *r, int error)
{
	struct ntkl_properties final;
	int ret;

	ret = ntkl_writer_end(&r->w, error, &final);
	clear_progress(r);
	if (close(r->out_fd) < 0 && !ret) {
		ret = -errno;
		snprintf(r->w.error, sizeof(r->w.error), "%s", strerror(-ret));
	}
	if (ret) {
		fprintf(stderr, "ntkl record: %s: %s\n", r->file, r->w.error);
		return ret;
	}
	/* the numbers, and the words, of ntkl report's and dump's "Events:" line */
	fprintf(stderr, "ntkl record: wrote %s: %" PRIu64 " events in %" PRIu64
		" buffers (%.1f MB), %" PRIu64 " events lost, %" PRIu64 " buffers lost\n",
		r->file, r->w.events + header_records(r->file), r->w.buffers,
		(double)r->w.bytes / 1e6, (uint64_t)final.events_lost,
		(uint64_t)final.log_buffers_lost);
	user_stops_show(stderr, "ntkl record: user stacks: ", r->user_stops);
	return 0;
}

/*
 * Read buffers until COMMAND ends, a signal interrupts, or the logger
 * stops under us. Returns 0 or -errno (reading or writing failed).
 */
static int record_loop(struct recording *r, pid_t pid, const sigset_t *wait_mask,
		       bool *exited, int *status, bool *ended)
{
	long long next = now_ms() + PROGRESS_MS;

	while (!*exited && !interrupted) {
		struct pollfd pfd = { .fd = r->in_fd, .events = POLLIN };
		struct timespec ts, *timeout = NULL;
		int n, ret;

		if (r->progress && !*ended) {
			long long left = next - now_ms();

			if (left < 0)
				left = 0;
			ts.tv_sec = left / 1000;
			ts.tv_nsec = (left % 1000) * 1000000;
			timeout = &ts;
		}
		/* at the end of data the fd stays readable: wait for signals only */
		n = ppoll(&pfd, *ended ? 0 : 1, timeout, wait_mask);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			snprintf(r->w.error, sizeof(r->w.error), "poll: %s", strerror(-ret));
			return ret;
		}
		if (child_changed) {
			child_changed = 0;
			*exited = reap(pid, status);
		}
		if (n > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP))) {
			ret = ntkl_writer_step(&r->w);
			if (ret < 0)
				return ret;
			if (ret == 0 && !*ended) {
				*ended = true;
				clear_progress(r);
				fprintf(stderr, "ntkl record: the logger was stopped (ntkl stop?); waiting for the command to end\n");
			}
		}
		if (r->progress && !*ended && now_ms() >= next) {
			show_progress(r);
			next = now_ms() + PROGRESS_MS;
		}
	}
	return 0;
}

static int record(struct recording *r, char **cmd)
{
	struct signal_state sigs;
	bool exited = false, ended = false, symbols_failed = false;
	int status = 0, exec_errno, ret;
	pid_t pid;

	setup_signals(&sigs);
	pid = run_command(cmd, &sigs, &exec_errno);
	if (pid < 0) {
		fprintf(stderr, "ntkl record: cannot run %s: %s\n", cmd[0], strerror(exec_errno));
		stop_logger(r);
		finish(r, 0);
		return 127;
	}
	child_pid = pid;

	ret = record_loop(r, pid, &sigs.wait_mask, &exited, &status, &ended);
	stop_logger(r);
	if (finish(r, ret))
		return 1;
	/* now, while the traced files are as they ran: the PDBs WPA names frames from */
	if (r->symbols && cmd_symbols_write(r->file, r->symbols))
		symbols_failed = true;
	if (interrupted) {
		fprintf(stderr, "ntkl record: interrupted by %s\n",
			interrupted == SIGINT ? "SIGINT" : "SIGTERM");
		if (!exited)
			exited = reap(pid, &status);
		return EXIT_INTERRUPTED;
	}
	return symbols_failed ? 1 : exit_status_of(status);
}

int cmd_record(int argc, char **argv)
{
	struct ntkl_error_ctx ctx = { .cmd = "record", .op = NTKL_OP_START };
	struct ntkl_logger_opts o = { 0 };
	struct ntkl_properties asked;
	struct recording r;
	char err[512], name[NTKL_NAME_MAX], what[PATH_MAX + 256];
	char **cmd = NULL, *symbols = NULL;
	int ret, i = 1, progress = -1;	/* -1: on a terminal */

	while (i < argc) {
		ret = ntkl_opts_take(argc, argv, &i, RECORD_OPTS, &o, err, sizeof(err));
		if (ret < 0)
			return usage_error("%s", err);
		if (ret > 0)
			continue;
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_record_usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--symbols")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return usage_error("%s", "--symbols needs a DIR (the symbol store to write)");
			symbols = argv[i + 1];
			i += 2;
			continue;
		}
		if (!strcmp(argv[i], "--progress") || !strcmp(argv[i], "--no-progress")) {
			progress = argv[i][2] == 'p';
			i++;
			continue;
		}
		if (ntkl_opts_is_option(argv[i]))
			return usage_error("unknown option '%s'", argv[i]);
		break;		/* COMMAND starts here */
	}
	if (i < argc)
		cmd = argv + i;
	if (!o.file)
		o.file = "ntkl.etl";	/* as perf.data and trace.dat */
	if (!cmd)
		return usage_error("%s", "missing the COMMAND to trace (after --)");
	if (ntkl_opts_check(&o, err, sizeof(err)))
		return usage_error("%s", err);
	/* the file's checks before the module's: a device or "-" is no capture file */
	if (cmd_output_check_only("record", o.file))
		return 1;
	if (!(o.seen & NTKL_OPT_ON))
		o.flags.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;

	memset(&r, 0, sizeof(r));
	r.file = o.file;
	r.symbols = symbols;
	r.progress_tty = isatty(2);
	r.progress = progress < 0 ? r.progress_tty : progress;
	r.started_ms = r.rate_ms = now_ms();
	r.ctl_fd = ntkl_open_device("record");
	if (r.ctl_fd < 0)
		return 1;
	if (o.seen & NTKL_OPT_SETPROFINT) {
		ret = profile_interval_apply(r.ctl_fd, "record", o.profile_interval);
		if (ret) {
			close(r.ctl_fd);
			return ret;
		}
	}
	snprintf(name, sizeof(name), "ntkl record %d", (int)getpid());
	ntkl_props_init(&r.props, name);
	ntkl_opts_to_props(&o, &r.props);
	/* a quiet workload fills no buffer for long: flush, so the line moves */
	if (r.progress && !(o.seen & NTKL_OPT_FLUSHTIMER))
		r.props.flush_timer = 1;
	/* the logger ends with this process, however it ends (kill -9 too) */
	r.props.log_file_mode |= NTKL_MODE_OWNED;
	asked = r.props;
	ret = ntkl_start(r.ctl_fd, &r.props);
	if (ret) {
		ctx.logger = name;
		ctx.asked = &asked;
		snprintf(what, sizeof(what), "cannot start logger '%s'", name);
		ntkl_error_print(stderr, &ctx, what, ret);
		close(r.ctl_fd);
		return 1;
	}
	if ((o.seen & NTKL_OPT_STACKWALK) &&
	    stackwalk_apply(r.ctl_fd, "record", NULL, r.props.logger_id, &o.stackwalk)) {
		ntkl_stop(r.ctl_fd, &r.props);
		close(r.ctl_fd);
		return 1;
	}
	ntkl_show_absent(stderr, "record", &r.props);

	r.in_fd = ntkl_open();
	ret = r.in_fd < 0 ? r.in_fd : ntkl_bind(r.in_fd, NULL, r.props.logger_id);
	if (ret) {
		ctx.op = NTKL_OP_BIND;
		snprintf(what, sizeof(what), "cannot read logger '%s'", name);
		ntkl_error_print(stderr, &ctx, what, ret);
		goto stop;
	}
	if (keep_old(o.file))
		goto stop;
	r.out_fd = ntkl_output_create(o.file, what, sizeof(what));
	if (r.out_fd < 0) {
		fprintf(stderr, "ntkl record: %s\n", what);
		goto stop;
	}
	ret = ntkl_writer_init(&r.w, r.in_fd, r.out_fd, r.props.buffer_size_kb * 1024);
	r.w.path = o.file;
	if (!ret && o.compress)
		ret = ntkl_writer_compress(&r.w);
	if (ret) {
		fprintf(stderr, "ntkl record: %s\n", r.w.error);
		close(r.out_fd);
		goto stop;
	}
	ret = record(&r, cmd);
	ntkl_writer_free(&r.w);
	close(r.in_fd);
	close(r.ctl_fd);
	return ret;

stop:
	stop_logger(&r);
	if (r.in_fd >= 0)
		close(r.in_fd);
	close(r.ctl_fd);
	return 1;
}
