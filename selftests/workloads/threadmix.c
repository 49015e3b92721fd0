// SPDX-License-Identifier: GPL-2.0
/*
 * threadmix [-q] [-s SEED] T N: T threads each take the same N steps, so
 * the amount of work is fixed while the scheduler decides the rest. Step k
 * is, for every thread, one of:
 *
 *   a token lap over a futex: thread i waits for its turn, passes it on to
 *     thread i + 1 (FUTEX_WAIT / FUTEX_WAKE), the last one back to thread 0
 *   a token lap over a mutex and one condition variable per thread
 *   a sleep of 0 to 2 ms (a different length per thread)
 *   three sched_yield() calls
 *   a busy loop of 0 to 1 ms of the thread's CPU time, which wakers preempt
 *
 * so a trace sees voluntary switches for several wait reasons, idle CPUs
 * and preemptions. The choice of step and the lengths come from SEED only.
 * Prints one summary line (wl_report) unless -q.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl_util.h"

#define MAX_THREADS	64

enum step { STEP_FUTEX_LAP, STEP_COND_LAP, STEP_SLEEP, STEP_YIELD, STEP_BUSY, NR_STEPS };

static unsigned int nthreads;
static unsigned long nsteps;
static uint64_t seed = 1;

/* turn[i] = lap + 1: thread i has the token of that lap */
static _Atomic uint32_t turn[MAX_THREADS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv[MAX_THREADS];

/* A well-mixed 64-bit hash (splitmix64's finalizer). */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static enum step step_kind(unsigned long k)
{
	return mix(seed ^ mix(k)) % NR_STEPS;
}

/* A per-thread length: 0..max_us microseconds. */
static unsigned int step_us(unsigned long k, unsigned int id, unsigned int max_us)
{
	return mix(seed ^ mix(k * MAX_THREADS + id + 1)) % (max_us + 1);
}

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void futex_wait_for(_Atomic uint32_t *word, uint32_t want)
{
	uint32_t v;

	while ((v = atomic_load(word)) != want)
		futex(word, FUTEX_WAIT_PRIVATE, v);
}

static void futex_set(_Atomic uint32_t *word, uint32_t val)
{
	atomic_store(word, val);
	futex(word, FUTEX_WAKE_PRIVATE, 1);
}

/*
 * One lap of the token: thread 0 starts it and waits until it comes back,
 * so that every wait of a lap is woken by the same mechanism (the next lap
 * may use the other one).
 */
static void futex_lap(unsigned int id, uint32_t lap)
{
	unsigned int next = (id + 1) % nthreads;

	if (id)
		futex_wait_for(&turn[id], lap + 1);
	futex_set(&turn[next], lap + 1);
	if (!id)
		futex_wait_for(&turn[0], lap + 1);
}

static void cond_wait_for(unsigned int id, uint32_t want)
{
	while (atomic_load(&turn[id]) != want)
		pthread_cond_wait(&cv[id], &lock);
}

static void cond_lap(unsigned int id, uint32_t lap)
{
	unsigned int next = (id + 1) % nthreads;

	pthread_mutex_lock(&lock);
	if (id)
		cond_wait_for(id, lap + 1);
	atomic_store(&turn[next], lap + 1);
	pthread_cond_signal(&cv[next]);
	if (!id)
		cond_wait_for(0, lap + 1);
	pthread_mutex_unlock(&lock);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void busy(unsigned int us)
{
	uint64_t end = thread_cpu_ns() + us * 1000ull;
	volatile unsigned int x = 0;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 200; i++)
			x += i;
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	uint32_t lap = 0;
	struct timespec ts;
	unsigned long k;
	unsigned int us;

	for (k = 0; k < nsteps; k++) {
		switch (step_kind(k)) {
		case STEP_FUTEX_LAP:
			futex_lap(id, lap++);
			break;
		case STEP_COND_LAP:
			cond_lap(id, lap++);
			break;
		case STEP_SLEEP:
			us = step_us(k, id, 2000);
			ts.tv_sec = 0;
			ts.tv_nsec = us * 1000l;
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
			break;
		case STEP_YIELD:
			sched_yield();
			sched_yield();
			sched_yield();
			break;
		default:
			busy(step_us(k, id, 1000));
			break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	uint64_t t0, ns, ctxt0;
	int opt, quiet = 0;
	struct rusage ru;
	char params[64];
	unsigned int i;

	while ((opt = getopt(argc, argv, "qs:")) != -1) {
		switch (opt) {
		case 'q':
			quiet = 1;
			break;
		case 's':
			seed = wl_arg("threadmix", optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	nthreads = wl_arg("threadmix", argv[optind]);
	nsteps = wl_arg("threadmix", argv[optind + 1]);
	if (nthreads < 2 || nthreads > MAX_THREADS) {
		fprintf(stderr, "threadmix: 2 to %d threads\n", MAX_THREADS);
		return 2;
	}
	for (i = 0; i < nthreads; i++)
		pthread_cond_init(&cv[i], NULL);

	ctxt0 = wl_ctxt();
	t0 = wl_now_ns();
	for (i = 0; i < nthreads; i++) {
		errno = pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
		if (errno) {
			perror("threadmix: pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	ns = wl_now_ns() - t0;
	ctxt0 = wl_ctxt() - ctxt0;
	getrusage(RUSAGE_SELF, &ru);
	if (!quiet) {
		snprintf(params, sizeof(params), "threads=%u steps=%lu seed=%lu",
			 nthreads, nsteps, (unsigned long)seed);
		wl_report("threadmix", params, ns, &ru, ctxt0);
	}
	return 0;
usage:
	fprintf(stderr, "usage: threadmix [-q] [-s SEED] THREADS STEPS\n");
	return 2;
}
