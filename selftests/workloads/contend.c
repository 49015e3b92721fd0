// SPDX-License-Identifier: GPL-2.0
/*
 * contend T N: T threads fighting over kernel spin locks, N steps each: a
 * step opens, reads and closes a /proc file (the process's file table
 * lock) and passes a byte through one shared pipe (the pipe's locks).
 * Prints one summary line (wl_report); the run's spin lock contentions are
 * what tracefs's lock:contention_* or an ntkl SPINLOCK logger count.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wl_util.h"

static int pipefd[2];
static unsigned long steps;

static void *worker(void *arg)
{
	char buf[256];
	unsigned long i;

	for (i = 0; i < steps; i++) {
		int fd = open("/proc/self/stat", O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			exit(1);
		close(fd);
		if (write(pipefd[1], "x", 1) != 1 || read(pipefd[0], buf, 1) != 1)
			exit(1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long threads, i;
	uint64_t start, ctxt;
	struct rusage ru;
	pthread_t *t;
	char params[64];

	if (argc != 3) {
		fprintf(stderr, "usage: contend THREADS STEPS\n");
		return 2;
	}
	threads = wl_arg("contend", argv[1]);
	steps = wl_arg("contend", argv[2]);
	t = calloc(threads, sizeof(*t));
	if (!t || pipe(pipefd))
		return 1;
	ctxt = wl_ctxt();
	start = wl_now_ns();
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	snprintf(params, sizeof(params), "threads=%lu steps=%lu", threads, steps);
	wl_report("contend", params, wl_now_ns() - start, &ru, wl_ctxt() - ctxt);
	return 0;
}
