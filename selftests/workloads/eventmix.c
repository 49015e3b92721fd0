// SPDX-License-Identifier: GPL-2.0
/*
 * eventmix: a known number of one kind of kernel event, for make bench's
 * events section (scripts/bench --only events): what recording each of
 * issue 47's producers costs per event, against trace-cmd recording the
 * tracepoints the same events show on.
 *
 *   eventmix [-c CPU] KIND N
 *
 *   syscalls  N getppid() calls: a SysClEnter and a SysClExit each
 *   faults    an anonymous mapping of N pages (no huge pages), each page
 *             written once, then unmapped: N demand-zero faults and a
 *             VirtualAlloc and a VirtualFree
 *   tcp       N writes of 4 KiB over a loopback TCP connection, read by a
 *             second thread on the same CPU: a TcpIp Send and Recv each
 *             (the connection is made before the clock starts)
 *   tcp6      the same over IPv6 (::1): TcpIp SendIPV6 and RecvIPV6
 *
 * It runs pinned to CPU (default 1) and prints one line for
 * scripts/bench (wl_report()): kind, ops=N, cpu, cpuns (its CPU time) and
 * the wall time of the N operations alone.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl_util.h"

#define CHUNK	4096

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int cpu = 1;

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("eventmix: sched_setaffinity");
}

static void syscalls(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void faults(unsigned long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		die("eventmix: mmap");
	/* one fault a page, not one a 2 MiB huge page */
	if (madvise(p, n * page, MADV_NOHUGEPAGE))
		die("eventmix: madvise");
	for (unsigned long i = 0; i < n; i++)
		p[i * page] = 1;
	if (munmap(p, n * page))
		die("eventmix: munmap");
}

struct tcp_reader {
	int fd;
	unsigned long bytes;
};

static void *read_all(void *arg)
{
	struct tcp_reader *r = arg;
	char buf[CHUNK];
	unsigned long got = 0;
	ssize_t k;

	pin();
	while (got < r->bytes) {
		k = read(r->fd, buf, sizeof(buf));
		if (k <= 0)
			die("eventmix: read");
		got += k;
	}
	return NULL;
}

/*
 * a connected pair on 127.0.0.1 (or ::1): *out the connecting end, *in
 * the accepted one
 */
static void tcp_pair(bool v6, int *out, int *in)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr *a = v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
	socklen_t len = v6 ? sizeof(a6) : sizeof(a4);
	int l = socket(a->sa_family, SOCK_STREAM, 0);

	if (l < 0 || bind(l, a, len) || listen(l, 1) || getsockname(l, a, &len))
		die("eventmix: listen");
	*out = socket(a->sa_family, SOCK_STREAM, 0);
	if (*out < 0 || connect(*out, a, len))
		die("eventmix: connect");
	*in = accept(l, NULL, NULL);
	if (*in < 0)
		die("eventmix: accept");
	close(l);
}

static int tcp_out, tcp_in;

static void tcp(unsigned long n)
{
	struct tcp_reader r = { .fd = tcp_in, .bytes = n * CHUNK };
	char buf[CHUNK] = { 0 };
	pthread_t th;

	if (pthread_create(&th, NULL, read_all, &r))
		die("eventmix: pthread_create");
	for (unsigned long i = 0; i < n; i++)
		if (write(tcp_out, buf, sizeof(buf)) != sizeof(buf))
			die("eventmix: write");
	pthread_join(th, NULL);
}

static const struct {
	const char *name;
	void (*run)(unsigned long n);
} kinds[] = {
	{ "syscalls", syscalls },
	{ "faults", faults },
	{ "tcp", tcp },
	{ "tcp6", tcp },
};

int main(int argc, char **argv)
{
	uint64_t t0, ns, c0, ctxt0;
	struct rusage self;
	char params[128];
	unsigned long n;
	size_t k;
	int opt;

	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c')
			goto usage;
		cpu = (int)wl_arg("eventmix", optarg);
	}
	if (argc - optind != 2)
		goto usage;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(argv[optind], kinds[k].name))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		goto usage;
	n = wl_arg("eventmix", argv[optind + 1]);
	pin();
	if (kinds[k].run == tcp)
		tcp_pair(!strcmp(kinds[k].name, "tcp6"), &tcp_out, &tcp_in);

	ctxt0 = wl_ctxt();
	c0 = cpu_ns();
	t0 = wl_now_ns();
	kinds[k].run(n);
	ns = wl_now_ns() - t0;
	c0 = cpu_ns() - c0;
	ctxt0 = wl_ctxt() - ctxt0;
	getrusage(RUSAGE_SELF, &self);
	snprintf(params, sizeof(params), "family=%s ops=%lu cpu=%d cpuns=%lu", kinds[k].name, n,
		 cpu, (unsigned long)c0);
	wl_report("eventmix", params, ns, &self, ctxt0);
	return 0;
usage:
	fprintf(stderr, "usage: eventmix [-c CPU] syscalls|faults|tcp|tcp6 N\n");
	return 2;
}
