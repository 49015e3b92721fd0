// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong [-c CPU] [-q] N: two processes bounce one byte over a pair of
 * pipes N times. Each round trip is two context switches when both run on
 * one CPU (-c pins both there), which makes this the densest switch load
 * a pair of tasks can make. Prints one summary line (wl_report) unless -q.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_util.h"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void xwrite(int fd)
{
	char c = 0;

	while (write(fd, &c, 1) != 1)
		if (errno != EINTR)
			die("pingpong: write");
}

/* false at end of file: the other side is gone */
static int xread(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0)
		if (errno != EINTR)
			die("pingpong: read");
	return n == 1;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pingpong: sched_setaffinity");
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], opt, cpu = -1, quiet = 0, status;
	unsigned long n, i;
	struct rusage self, child;
	uint64_t t0, ns, ctxt0;
	char params[64];
	pid_t pid;

	while ((opt = getopt(argc, argv, "c:q")) != -1) {
		switch (opt) {
		case 'c':
			cpu = (int)wl_arg("pingpong", optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1)
		goto usage;
	n = wl_arg("pingpong", argv[optind]);

	pin(cpu);
	if (pipe(ping) || pipe(pong))
		die("pingpong: pipe");
	pid = fork();
	if (pid < 0)
		die("pingpong: fork");
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		while (xread(ping[0]))
			xwrite(pong[1]);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);

	/* one warm-up trip so that the child is running when the clock starts */
	xwrite(ping[1]);
	if (!xread(pong[0]))
		die("pingpong: child died");
	ctxt0 = wl_ctxt();
	t0 = wl_now_ns();
	for (i = 0; i < n; i++) {
		xwrite(ping[1]);
		if (!xread(pong[0]))
			die("pingpong: child died");
	}
	ns = wl_now_ns() - t0;
	ctxt0 = wl_ctxt() - ctxt0;

	close(ping[1]);
	if (wait4(pid, &status, 0, &child) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("pingpong: child failed");
	getrusage(RUSAGE_SELF, &self);
	self.ru_nvcsw += child.ru_nvcsw;
	self.ru_nivcsw += child.ru_nivcsw;
	if (!quiet) {
		snprintf(params, sizeof(params), "rounds=%lu cpu=%d", n, cpu);
		wl_report("pingpong", params, ns, &self, ctxt0);
	}
	return 0;
usage:
	fprintf(stderr, "usage: pingpong [-c CPU] [-q] ROUND_TRIPS\n");
	return 2;
}
