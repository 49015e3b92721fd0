// SPDX-License-Identifier: GPL-2.0
/*
 * What a command may write, and how it writes it so that a failure or a
 * kill never leaves half a file or removes anything else. The rules are
 * in cmd_output.h.
 */
#define _GNU_SOURCE	/* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_output.h"

/*
 * The temporary file being written, for the signal handler: a fixed
 * buffer, because the handler may only call async-signal-safe functions
 * (unlink), and one command writes one file at a time.
 */
static char pending_tmp[PATH_MAX + 16];
static volatile sig_atomic_t have_pending_tmp;

bool cmd_stdout_error_said;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGNALS	(sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static void remove_tmp_and_die(int sig)
{
	if (have_pending_tmp)
		unlink(pending_tmp);
	/* die of the signal as if never caught: the shell sees why */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_fatal_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* what a non-regular file is, for "OUT is a ..." */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* one line on stderr, "ntkl CMD: ...": returns 1, the exit status */
static int refuse(const struct cmd_output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int refuse(const struct cmd_output *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ntkl %s: ", o->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* 1 (said) if the file st is one of the inputs */
static int refuse_input(const struct cmd_output *o, const struct stat *st,
			char *const ins[], int nins)
{
	struct stat in;

	for (int i = 0; i < nins; i++) {
		if (stat(ins[i], &in) || in.st_dev != st->st_dev || in.st_ino != st->st_ino)
			continue;
		if (o->to_stdout)
			return refuse(o, "standard output is %s, an input file: redirect it elsewhere",
				      ins[i]);
		return refuse(o, "%s is the input file %s (the same file): write to another file",
			      o->path, ins[i]);
	}
	return 0;
}

int cmd_output_check(struct cmd_output *o, const char *cmd, const char *path,
		     enum cmd_output_kind kind, char *const ins[], int nins)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->path = path;
	if (!strcmp(path, "-")) {
		if (kind == CMD_OUTPUT_CAPTURE)
			return refuse(o, "-: a capture is written in place, not to standard output: give a file name");
		o->to_stdout = true;
		return !fstat(STDOUT_FILENO, &st) ? refuse_input(o, &st, ins, nins) : 0;
	}
	if (!*path)
		return refuse(o, "an empty output file name: give a file name");
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return refuse(o, "%s: %s", path, strerror(errno));
		o->target = strdup(path);	/* a new file */
		return o->target ? 0 : refuse(o, "out of memory");
	}
	if (S_ISLNK(st.st_mode)) {
		/* write the file the link names; the link itself stays */
		o->target = realpath(path, NULL);
		if (!o->target || stat(o->target, &st))
			return refuse(o, "%s is a symlink to a file that does not exist: give the file itself",
				      path);
	} else {
		o->target = strdup(path);
		if (!o->target)
			return refuse(o, "out of memory");
	}
	if (!S_ISREG(st.st_mode))
		return refuse(o, "%s is %s, not a regular file: give a file name", path,
			      file_kind(st.st_mode));
	if (strlen(o->target) > PATH_MAX)
		return refuse(o, "%s: the path is too long", path);
	o->exists = true;
	o->mode = st.st_mode & 07777;
	return refuse_input(o, &st, ins, nins);
}

int cmd_output_check_only(const char *cmd, const char *path)
{
	struct cmd_output o;
	int ret = cmd_output_check(&o, cmd, path, CMD_OUTPUT_CAPTURE, NULL, 0);

	cmd_output_free(&o);
	return ret;
}

/* The temporary file is no longer ours to remove (renamed or removed). */
static void forget_tmp(struct cmd_output *o)
{
	sigset_t old;

	block_fatal_signals(&old);
	have_pending_tmp = 0;
	for (size_t i = 0; i < NSIGNALS; i++)
		signal(fatal_signals[i], SIG_DFL);
	/* a signal that came meanwhile ends the process now, with nothing left behind */
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(o->tmp);
	o->tmp = NULL;
}

/*
 * An unnamed file in the target's directory (O_TMPFILE): a process killed
 * even by SIGKILL leaves nothing of it. It gets a name only at commit.
 * -1 where the file system or a missing /proc cannot do it.
 */
static int open_unnamed(const struct cmd_output *o)
{
	char *dir = strdup(o->target);
	int fd = -1;

	if (dir && access("/proc/self/fd", X_OK) == 0)
		fd = open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, o->mode);
	free(dir);
	return fd;
}

/* A named temporary file OUT.XXXXXX, removed by SIGINT, SIGTERM, SIGHUP. */
static int open_named(struct cmd_output *o)
{
	struct sigaction sa;
	sigset_t old;
	int fd, e;

	o->tmp = malloc(strlen(o->target) + 8);
	if (!o->tmp) {
		errno = ENOMEM;
		return -1;
	}
	sprintf(o->tmp, "%s.XXXXXX", o->target);
	/* no signal between creating the file and knowing its name */
	block_fatal_signals(&old);
	fd = mkstemp(o->tmp);
	e = errno;
	if (fd >= 0) {
		strcpy(pending_tmp, o->tmp);
		have_pending_tmp = 1;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = remove_tmp_and_die;
		for (size_t i = 0; i < NSIGNALS; i++)
			sigaction(fatal_signals[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
	}
	return fd;
}

int cmd_output_begin(struct cmd_output *o)
{
	mode_t mask;
	int fd, e;

	if (o->to_stdout) {
		o->fp = stdout;
		return 0;
	}
	/* the permissions OUT has, or a new file's */
	if (!o->exists) {
		mask = umask(0);
		umask(mask);
		o->mode = 0666 & ~mask;
	}
	fd = open_unnamed(o);
	o->unnamed = fd >= 0;
	if (fd < 0)
		fd = open_named(o);
	if (fd < 0)
		return refuse(o, "cannot create a file beside %s: %s", o->path, strerror(errno));
	o->fp = fdopen(fd, "w");
	if (!o->fp || fchmod(fd, o->mode)) {
		e = errno;
		if (!o->fp)
			close(fd);
		cmd_output_abort(o);
		return refuse(o, "cannot write %s: %s", o->path, strerror(e));
	}
	return 0;
}

/*
 * Give the unnamed file at fd the target's name: linked under a free
 * name beside it, then renamed over it, with SIGINT, SIGTERM and SIGHUP
 * held off in between. 0 or an errno.
 */
static int name_unnamed(struct cmd_output *o, int fd)
{
	char self[64], *tmp = malloc(strlen(o->target) + 16);
	unsigned int salt = (unsigned int)getpid() * 2654435761u;
	sigset_t old;
	int e = EEXIST;

	if (!tmp)
		return ENOMEM;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	block_fatal_signals(&old);
	for (unsigned int i = 0; i < 100 && e == EEXIST; i++) {
		sprintf(tmp, "%s.%06x", o->target, (salt + i * 40503u) & 0xFFFFFF);
		e = linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) ? errno : 0;
	}
	if (!e && rename(tmp, o->target)) {
		e = errno;
		unlink(tmp);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return e;
}

int cmd_output_commit(struct cmd_output *o)
{
	int e = 0;

	if (o->to_stdout) {
		o->fp = NULL;
		if (fflush(stdout) || ferror(stdout)) {
			cmd_stdout_error_said = true;
			return refuse(o, "write error on standard output: %s",
				      strerror(errno ? errno : EIO));
		}
		return 0;
	}
	if (fflush(o->fp) || ferror(o->fp) || fsync(fileno(o->fp)))
		e = errno ? errno : EIO;
	if (!e && o->unnamed)
		e = name_unnamed(o, fileno(o->fp));
	if (fclose(o->fp) && !e)
		e = errno;
	o->fp = NULL;
	if (!e && !o->unnamed && rename(o->tmp, o->target))
		e = errno;
	if (e) {
		cmd_output_abort(o);
		return refuse(o, "cannot write %s: %s", o->path, strerror(e));
	}
	if (o->tmp)
		forget_tmp(o);
	return 0;
}

void cmd_output_abort(struct cmd_output *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	o->fp = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		forget_tmp(o);
	}
}

void cmd_output_free(struct cmd_output *o)
{
	cmd_output_abort(o);
	free(o->target);
	o->target = NULL;
}

int cmd_output_write_whole(struct cmd_output *o, const uint8_t *data, size_t size)
{
	if (cmd_output_begin(o))
		return 1;
	if (size && fwrite(data, 1, size, o->fp) != size) {
		int e = errno ? errno : EIO;

		cmd_output_abort(o);
		cmd_stdout_error_said = o->to_stdout;
		return refuse(o, "cannot write %s: %s", o->to_stdout ? "standard output" : o->path,
			      strerror(e));
	}
	return cmd_output_commit(o);
}
