// SPDX-License-Identifier: GPL-2.0
/*
 * unwind [-q] [-w MS] MODE [MS]: code whose user stacks only an unwinder that reads
 * the binary's own unwind tables (.eh_frame) can walk whole. It is built
 * as Debian builds its programs (-O2 -g, no frame pointers, libc's own
 * code without them either: selftests/Makefile), once static
 * (unwind-static) and once against the system's libc (unwind-dynamic),
 * and ntkl_unwind_test checks how many sampled and CSwitch stacks reach
 * main or the thread's start routine. Each mode runs for MS milliseconds
 * (default 1000):
 *
 *   hot       main -> run_hot -> level1 -> level2 -> level3 -> hot_leaf,
 *             the leaf a busy loop: the plain case
 *   qsort     libc's qsort sorting arrays with compare_ints, a function
 *             of this program: the hot path is libc's code calling back
 *   usleep    a thread (sleeper_main -> nap_once) blocked in usleep over
 *             and over while main waits in pthread_join: its CSwitch
 *             stacks must go up through libc to the thread's function
 *             and start_thread
 *   condwait  a thread (waiter_main -> wait_for_signal) blocking in
 *             pthread_cond_wait, woken by another (signaller_main)
 *   dlopen    libunwind_dl.so (unwind_dl.c, beside this program) opened
 *             with dlopen and its function called in a loop from
 *             call_library: its frames exist only once it is loaded
 *             (unwind-dynamic only: the static build says so and exits 3)
 *   signal    SIGALRM every 2 ms (setitimer) interrupts interrupted_work;
 *             the handler on_alarm spends 1 ms of it in handler_work
 *             (half the time), so a sampled stack in it goes through the
 *             signal frame (__restore_rt) to the interrupted code
 *   all       each of the above in turn, MS each (scripts/capture's
 *             workload: a trace with named user stacks of every kind)
 *
 * Each busy loop is its own function's (hot_leaf, compare_ints,
 * unwind_dl_leaf, handler_work, interrupted_work), so a sample's IP alone
 * says which case it is in. The functions named above are noipa (no inlining, cloning or
 * interprocedural tricks), so each is a frame of its own under its own
 * name, and each call is followed by work of the caller's (sink), so no
 * call becomes a tail jump that would take the caller off the stack.
 * Inside them the compiler does what -O2 does.
 *
 * It prints "unwind: MODE thread TID NAME" for each thread it starts, so
 * a test can pick that thread's stacks (ntkl convert --to folded --tid),
 * unless -q (scripts/capture's run), and exits 0, or 2 on a usage error.
 *
 * -w MS first spends MS milliseconds busy in warm_up(), called from main:
 * a process's first stacks end early until the module has made its map
 * and its files' unwind tables (docs/design.md, "User stacks"), which on
 * the slow debug kernel took a tenth of a 3 s run; the test leaves
 * warm_up()'s samples out and measures the walk itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NOIPA	__attribute__((noipa))

/* What the callers add to after each call: no call is a tail call. */
static volatile uint64_t sink;

static uint64_t deadline_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool time_left(void)
{
	return now_ns() < deadline_ns;
}

/* -w: busy in main's callee until the deadline */
static NOIPA void warm_up(void)
{
	while (time_left())
		sink++;
}

/* hot: four frames of the program's own above the leaf. */
static NOIPA uint64_t hot_leaf(uint64_t x)
{
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static NOIPA uint64_t level3(uint64_t x)
{
	uint64_t r = hot_leaf(x + 3);

	sink += r;
	return r;
}

static NOIPA uint64_t level2(uint64_t x)
{
	uint64_t r = level3(x + 2);

	sink += r;
	return r;
}

static NOIPA uint64_t level1(uint64_t x)
{
	uint64_t r = level2(x + 1);

	sink += r;
	return r;
}

static NOIPA void run_hot(void)
{
	uint64_t x = 88172645463325252ull;

	while (time_left())
		x = level1(x);
	sink += x;
}

/* qsort: libc's sort calling back into the program. */
#define SORT_N	4096

static NOIPA int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static NOIPA void fill_array(int *v, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 1);
	}
}

static NOIPA void run_qsort(void)
{
	static int v[SORT_N];
	uint32_t seed = 1;

	while (time_left()) {
		fill_array(v, SORT_N, seed++);
		qsort(v, SORT_N, sizeof(*v), compare_ints);
		sink += (uint64_t)v[SORT_N / 2];
	}
}

/* usleep: a thread that blocks in libc from a function of its own. */
static NOIPA void nap_once(void)
{
	usleep(500);
	sink++;
}

static bool quiet;

static void say_thread(const char *mode, const char *name)
{
	if (quiet)
		return;
	printf("unwind: %s thread %d %s\n", mode, gettid(), name);
	fflush(stdout);
}

static NOIPA void *sleeper_main(void *arg)
{
	(void)arg;
	say_thread("usleep", "sleeper_main");
	while (time_left())
		nap_once();
	sink++;
	return NULL;
}

static NOIPA void run_usleep(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, sleeper_main, NULL)) {
		fprintf(stderr, "unwind: cannot start a thread\n");
		exit(1);
	}
	pthread_join(t, NULL);
	sink++;
}

/* condwait: a thread blocking in pthread_cond_wait, woken by another. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static unsigned long signals;	/* under lock */
static bool stopping;		/* under lock */

/* Wait for the next signal after seen; false once the signaller stopped. */
static NOIPA bool wait_for_signal(unsigned long *seen)
{
	bool more;

	pthread_mutex_lock(&lock);
	while (signals == *seen && !stopping)
		pthread_cond_wait(&wake, &lock);
	*seen = signals;
	more = !stopping;
	pthread_mutex_unlock(&lock);
	sink++;
	return more;
}

static NOIPA void *waiter_main(void *arg)
{
	unsigned long seen = 0;

	(void)arg;
	say_thread("condwait", "waiter_main");
	while (wait_for_signal(&seen))
		;
	sink++;
	return NULL;
}

static NOIPA void *signaller_main(void *arg)
{
	(void)arg;
	say_thread("condwait", "signaller_main");
	while (time_left()) {
		pthread_mutex_lock(&lock);
		signals++;
		pthread_cond_signal(&wake);
		pthread_mutex_unlock(&lock);
		usleep(500);
	}
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	sink++;
	return NULL;
}

static NOIPA void run_condwait(void)
{
	pthread_t w, s;

	stopping = false;
	if (pthread_create(&w, NULL, waiter_main, NULL) ||
	    pthread_create(&s, NULL, signaller_main, NULL)) {
		fprintf(stderr, "unwind: cannot start a thread\n");
		exit(1);
	}
	pthread_join(s, NULL);
	pthread_join(w, NULL);
	sink++;
}

/* dlopen: a library loaded while the program runs, called from its own code. */
#ifndef UNWIND_STATIC
typedef uint64_t (*dl_work_fn)(uint64_t x);

static NOIPA uint64_t call_library(dl_work_fn work, uint64_t x)
{
	uint64_t r = work(x);

	sink += r;
	return r;
}

/*
 * The library beside this program's own file: the same in the test VM
 * (/workloads) and in build/workloads, whatever the current directory.
 */
static void library_path(char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	exe[n > 0 ? n : 0] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(path, size, "%s/libunwind_dl.so", slash ? exe : ".");
}

static NOIPA void run_dlopen(void)
{
	char path[PATH_MAX + 32];
	uint64_t x = 1;
	dl_work_fn work;
	void *lib;

	library_path(path, sizeof(path));
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "unwind: dlopen: %s\n", dlerror());
		exit(1);
	}
	work = (dl_work_fn)dlsym(lib, "unwind_dl_work");
	if (!work) {
		fprintf(stderr, "unwind: dlsym unwind_dl_work: %s\n", dlerror());
		exit(1);
	}
	while (time_left())
		x = call_library(work, x);
	/* kept open: its Image stays in the trace until the process ends */
	sink += x;
}
#else
static NOIPA void run_dlopen(void)
{
	/* a static glibc program can dlopen only with the same glibc's
	 * shared libraries at run time: the dynamic build covers it */
	fprintf(stderr, "unwind: dlopen: not in the static build (use unwind-dynamic)\n");
	exit(3);
}
#endif

/*
 * signal: a handler with work of its own, interrupting the program's
 * loop. The work is timed, not counted: at a fixed count a slow guest
 * (TCG) would stay in the handler longer than the timer's period, the
 * next signal would always be pending at its return, and the
 * interrupted code would never run again.
 */
static NOIPA uint64_t handler_work(uint64_t x)
{
	uint64_t start = now_ns();

	while (now_ns() - start < 1000000u && time_left()) {
		for (int i = 0; i < 2000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			__asm__ volatile("" : "+r"(x));
		}
	}
	sink += x;
	return x;
}

static NOIPA void on_alarm(int sig)
{
	sink += handler_work((uint64_t)sig);
}

static NOIPA uint64_t interrupted_work(uint64_t x)
{
	for (int i = 0; i < 100000; i++) {
		x = x * 2862933555777941757ull + 3037000493ull;
		__asm__ volatile("" : "+r"(x));
	}
	sink += x;
	return x;
}

static NOIPA void run_signal(void)
{
	struct itimerval every = { { 0, 2000 }, { 0, 2000 } }, off = { 0 };
	struct sigaction sa = { 0 }, old;
	uint64_t x = 7;

	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &every, NULL);
	while (time_left())
		x = interrupted_work(x);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	sink += x;
}

static const struct mode {
	const char *name;
	void (*run)(void);
} modes[] = {
	{ "hot", run_hot },
	{ "qsort", run_qsort },
	{ "usleep", run_usleep },
	{ "condwait", run_condwait },
	{ "dlopen", run_dlopen },
	{ "signal", run_signal },
};

#define NR_MODES	(sizeof(modes) / sizeof(modes[0]))

static void usage(void)
{
	fprintf(stderr, "usage: unwind [-q] [-w MS] hot|qsort|usleep|condwait|dlopen|signal|all [MS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long ms = 1000, warm_ms = 0;
	bool all;
	char *end;
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quiet = true;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "-w")) {
		warm_ms = strtoul(argv[2], &end, 10);
		if (!*argv[2] || *end)
			usage();
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || argc > 3)
		usage();
	if (argc == 3) {
		ms = strtoul(argv[2], &end, 10);
		if (!*argv[2] || *end || !ms)
			usage();
	}
	all = !strcmp(argv[1], "all");
	if (warm_ms) {
		deadline_ns = now_ns() + warm_ms * 1000000u;
		warm_up();
		sink++;
	}
	for (i = 0; i < NR_MODES; i++) {
		if (!all && strcmp(argv[1], modes[i].name))
			continue;
#ifdef UNWIND_STATIC
		if (all && modes[i].run == run_dlopen)
			continue;
#endif
		deadline_ns = now_ns() + ms * 1000000u;
		modes[i].run();
		sink++;
		if (!all)
			break;
	}
	if (!all && i == NR_MODES)
		usage();
	return 0;
}
