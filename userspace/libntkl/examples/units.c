// SPDX-License-Identifier: GPL-2.0
/*
 * libntkl's example: N threads each do units of work and log a
 * UnitBegin / UnitEnd event pair around each one (opcode Start / Stop,
 * fields unit and thread) to a private logger's ETL file.
 *
 *   units [-o FILE.etl] [-t THREADS] [-n UNITS] [-w WORK_US] [-c] [-b KB]
 *
 * -c writes the file compressed, -b sets the buffer size. In the middle of each unit its thread
 * blocks once, on a pipe that a waker thread writes only once the kernel
 * has switched the thread out (its voluntary_ctxt_switches in
 * /proc/self/task/TID/status went up since it began to wait): so the
 * thread is switched out and back in within every unit, even where a
 * short sleep could return without blocking (a timer already expired when
 * a busy host delays the guest). Its state letter is not enough: a thread
 * shows 'S' from the moment it prepares to wait, and a wake-up before it
 * reaches schedule() leaves it running with no switch at all. The selftest (selftests/ntkl_libntkl_test.c) runs it
 * under `ntkl record -on CSWITCH+PROC_THREAD` and checks each unit against
 * the kernel's context switches.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libntkl.h"

/* {6e746b6c-756e-6974-7300-000000000001}, as files store it */
static const uint8_t units_guid[16] = {
	0x6c, 0x6b, 0x74, 0x6e, 0x6e, 0x75, 0x74, 0x69,
	0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

struct worker {
	pthread_t thread;
	uint32_t index;
	int pipe[2];
	_Atomic pid_t waiting;		/* its tid while it waits for the waker */
	_Atomic long switches;		/* its voluntary switches before it waited */
};

static struct ntkl_um_provider *prov;
static _Atomic int done;
static struct ntkl_um_schema begin_schema, end_schema;
static int units = 20, work_us = 2000;

static void busy(int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* The thread's voluntary context switches so far, or -1. */
static long voluntary_switches(pid_t tid)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	return p ? strtol(p + sizeof("\nvoluntary_ctxt_switches:") - 1, NULL, 10) : -1;
}

/* Wake each worker once it blocked in read() on its pipe. */
static void *waker(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&done)) {
		for (struct worker *x = w; x->pipe[1] != -1; x++) {
			pid_t tid = atomic_load(&x->waiting);

			if (tid && voluntary_switches(tid) > atomic_load(&x->switches)) {
				atomic_store(&x->waiting, 0);
				if (write(x->pipe[1], "", 1) != 1)
					perror("units: waking a worker");
			}
		}
		usleep(100);
	}
	return NULL;
}

static void block_once(struct worker *w)
{
	pid_t tid = gettid();
	char c;

	atomic_store(&w->switches, voluntary_switches(tid));
	atomic_store(&w->waiting, tid);
	if (read(w->pipe[0], &c, 1) != 1)
		perror("units: waiting for the waker");
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	uint32_t thread = w->index;
	struct ntkl_um_descriptor begin = { .id = 1, .level = 4, .opcode = 1 /* Start */ };
	struct ntkl_um_descriptor end = { .id = 2, .level = 4, .opcode = 2 /* Stop */ };

	for (uint32_t u = 0; u < (uint32_t)units; u++) {
		struct ntkl_um_field f[] = {
			{ "unit", NTKL_UM_UINT32, &u, 4 },
			{ "thread", NTKL_UM_UINT32, &thread, 4 },
		};

		ntkl_um_write(prov, &begin, &begin_schema, f, 2);
		busy(work_us / 2);
		block_once(w);
		busy(work_us / 2);
		ntkl_um_write(prov, &end, &end_schema, f, 2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ntkl_um_properties props = { .size = sizeof(props) };
	struct ntkl_um_logger *lg;
	const char *file = "units.etl";
	int threads = 4, opt, i;
	static struct worker w[65];
	pthread_t wk;

	while ((opt = getopt(argc, argv, "o:t:n:w:cb:")) != -1) {
		switch (opt) {
		case 'o': file = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'n': units = atoi(optarg); break;
		case 'w': work_us = atoi(optarg); break;
		case 'c': props.log_file_mode |= NTKL_UM_MODE_COMPRESSED; break;
		case 'b': props.buffer_size_kb = (uint32_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: units [-o FILE.etl] [-t THREADS] [-n UNITS] [-w WORK_US] [-c] [-b KB]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "units: -t %d: give 1..64 threads\n", threads);
		return 2;
	}
	struct ntkl_um_field fields[] = {
		{ "unit", NTKL_UM_UINT32, NULL, 0 }, { "thread", NTKL_UM_UINT32, NULL, 0 },
	};
	if (ntkl_um_start(&lg, "units", file, &props) ||
	    ntkl_um_register(lg, "ntkl-units", units_guid, 0, 0, &prov) ||
	    ntkl_um_schema(&begin_schema, "UnitBegin", fields, 2) ||
	    ntkl_um_schema(&end_schema, "UnitEnd", fields, 2)) {
		fprintf(stderr, "units: %s\n", ntkl_um_last_error());
		return 1;
	}
	for (i = 0; i < threads; i++) {
		w[i].index = (uint32_t)i;
		if (pipe(w[i].pipe)) {
			perror("units: pipe");
			return 1;
		}
	}
	w[threads].pipe[1] = -1;	/* the end of the list */
	pthread_create(&wk, NULL, waker, w);
	for (i = 0; i < threads; i++)
		pthread_create(&w[i].thread, NULL, worker, &w[i]);
	for (i = 0; i < threads; i++)
		pthread_join(w[i].thread, NULL);
	atomic_store(&done, 1);
	pthread_join(wk, NULL);
	ntkl_um_unregister(prov);
	if (ntkl_um_stop(lg, &props)) {
		fprintf(stderr, "units: %s\n", ntkl_um_last_error());
		return 1;
	}
	printf("units: %d units on %d threads: %llu events in %llu buffers, %llu lost, %s\n",
	       units, threads, (unsigned long long)props.events_written,
	       (unsigned long long)props.buffers_written,
	       (unsigned long long)props.events_lost, file);
	return 0;
}
