// SPDX-License-Identifier: GPL-2.0
/*
 * fanout [-c] SRC N PREFIX: follow the file SRC as a logger's writer
 * appends to it and write every byte again into N files of its own
 * (PREFIX1 .. PREFIXN), in whole 64 KB writes as the writer makes them;
 * with -c, share each whole 64 KB of SRC with them instead (FICLONERANGE,
 * at the same offsets: a file system with reflink, as xfs). Prints "ready"
 * once it follows, and on SIGTERM or SIGINT puts what is left, then prints
 * "fanout bytes=B files=N".
 *
 * make bench's floor for many loggers: what a further file of the same
 * bytes costs when nothing else is done for it (no probe, no record, no
 * buffer), the part of a further logger that no recording design removes
 * while each session writes a file of its own; and, with -c, what it
 * would cost if sessions shared their buffers and the blocks of their
 * files. With N = 0 it only follows, so that runs with N and with 0
 * differ by the N files alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/fs.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl_util.h"

#define CHUNK	(64 * 1024)

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void put_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("fanout: write");
		}
		p += n;
		len -= (size_t)n;
	}
}

static void put_chunk(const int *out, unsigned long n, const char *buf, size_t len)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		put_all(out[i], buf, len);
}

/* Clone SRC's bytes from *done on, whole chunks (and the rest if all): 1 if any. */
static int clone_new(int in, const int *out, unsigned long n, uint64_t *done, int all)
{
	struct stat st;
	unsigned long i;
	uint64_t len;

	if (fstat(in, &st) < 0)
		die("fanout: fstat");
	len = (uint64_t)st.st_size > *done ? (uint64_t)st.st_size - *done : 0;
	if (!all)
		len -= len % CHUNK;
	if (!len)
		return 0;
	for (i = 0; i < n; i++) {
		struct file_clone_range r = {
			.src_fd = in, .src_offset = *done, .dest_offset = *done,
			/* 0: to SRC's end, which need not be a whole block */
			.src_length = all ? 0 : len,
		};

		if (ioctl(out[i], FICLONERANGE, &r) < 0)
			die("fanout: FICLONERANGE (a file system with reflink, as xfs?)");
	}
	*done += len;
	return 1;
}

/* Read what SRC has gained, writing each whole chunk to every file: 1 if any. */
static int copy_new(int in, const int *out, unsigned long n, char *buf, size_t *have,
		    uint64_t *done)
{
	ssize_t got = read(in, buf + *have, CHUNK - *have);

	if (got < 0)
		die("fanout: read");
	if (!got)
		return 0;
	*have += (size_t)got;
	*done += (uint64_t)got;
	if (*have == CHUNK) {
		put_chunk(out, n, buf, *have);
		*have = 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static char buf[CHUNK];
	int clone = argc > 1 && !strcmp(argv[1], "-c");
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t stops, waiting;
	unsigned long n, i;
	uint64_t bytes = 0;
	size_t have = 0;
	struct pollfd pfd = { .events = POLLIN };
	char ev[4096];
	int in, watch;
	int *out;

	argv += clone;
	argc -= clone;
	if (argc != 4) {
		fprintf(stderr, "usage: fanout [-c] SRC N PREFIX\n");
		return 2;
	}
	n = wl_arg("fanout", argv[2]);
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		die("fanout: calloc");
	in = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (in < 0)
		die(argv[1]);
	for (i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s%lu", argv[3], i + 1);
		out[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out[i] < 0)
			die(path);
	}
	watch = inotify_init1(IN_CLOEXEC);
	if (watch < 0 || inotify_add_watch(watch, argv[1], IN_MODIFY) < 0)
		die("fanout: inotify");
	pfd.fd = watch;
	/*
	 * The stop signals are let in only while waiting (ppoll), so that one
	 * cannot come between seeing "not stopping" and starting to wait.
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigprocmask(SIG_BLOCK, &stops, &waiting);
	sigdelset(&waiting, SIGTERM);
	sigdelset(&waiting, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);

	for (;;) {
		if (clone ? clone_new(in, out, n, &bytes, 0) :
			    copy_new(in, out, n, buf, &have, &bytes))
			continue;
		/* at the end of what is written: the rest once asked to stop */
		if (stopping)
			break;
		/* wait for the writer's next write, or a signal */
		if (ppoll(&pfd, 1, NULL, &waiting) < 0) {
			if (errno != EINTR)
				die("fanout: ppoll");
			continue;
		}
		if (read(watch, ev, sizeof(ev)) < 0)
			die("fanout: inotify read");
	}
	if (clone)
		clone_new(in, out, n, &bytes, 1);
	else
		put_chunk(out, n, buf, have);
	printf("fanout bytes=%llu files=%lu\n", (unsigned long long)bytes, n);
	return 0;
}
