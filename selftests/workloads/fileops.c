// SPDX-License-Identifier: GPL-2.0
/*
 * fileops [-c CPU] [-d] [-S CPU] [-s FILE_KIB] FILE N: N 4 KiB file operations on
 * FILE, timed, for scripts/bench's storage section.
 *
 *   default  buffered: FILE (made FILE_KIB long, 1024 by default) is read
 *            whole first, so that every operation is a page-cache hit;
 *            then N operations alternate pread and pwrite of 4 KiB,
 *            walking the file block by block: the cost of a file
 *            operation with no disk under it.
 *   -d       direct: FILE opened with O_DIRECT (FILE_KIB long, 16384 by
 *            default, written and fsync'ed if shorter), then N preads of 4
 *            KiB walking it, each one block request to the disk: the
 *            cost of a disk I/O. Reads only: an O_DIRECT write also
 *            dirties the inode (its mtime), and the journal's writes
 *            would blur the one-request-per-operation count. FILE may be
 *            a block device (null_blk), read as it is.
 *
 * -c pins the process to CPU. Prints one summary line (wl_report) with
 * io=file|direct, ops=N, cpu, cpuns (the process's CPU time over the
 * operations, CLOCK_PROCESS_CPUTIME_ID), ns (wall time) and the context
 * switches.
 *
 * -S CPU: a soaker, a child pinned to CPU at SCHED_IDLE that runs a loop
 * of exactly two instructions (add one to a shared counter, jump back)
 * while the operations run; the line then has soak=N (its iterations)
 * and busyns = ns - 2 N. Under qemu -icount (scripts/bench) the guest's
 * clock counts the instructions of every vCPU, and moves on at once to the
 * next timer when they are all idle: a disk I/O's wall time is then
 * mostly such jumps, not work. With the soaker some vCPU always runs, so
 * no jump happens, and busyns is the instructions of everything but the
 * soaker: what the guest did for the operations (the interrupts and
 * completions on other CPUs included) and whatever else ran meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_util.h"

#define BLOCK 4096

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

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("fileops: sched_setaffinity");
}

/*
 * The soaker: a child on cpu at SCHED_IDLE adding one to *count forever,
 * two instructions an iteration (x86-64; elsewhere a C loop of more).
 * Returns once it runs.
 */
static pid_t soak_start(int cpu, volatile uint64_t **count)
{
	struct sched_param sp = { 0 };
	uint64_t *c;
	pid_t pid;

	c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("fileops: mmap");
	pid = fork();
	if (pid < 0)
		die("fileops: fork");
	if (pid == 0) {
		pin(cpu);
		if (sched_setscheduler(0, SCHED_IDLE, &sp))
			die("fileops: sched_setscheduler");
#ifdef __x86_64__
		asm volatile("1: addq $1, %0\n\tjmp 1b" : "+m"(*c));
#else
		for (;;)
			(*(volatile uint64_t *)c)++;
#endif
		_exit(0);
	}
	while (!*(volatile uint64_t *)c)
		sched_yield();
	*count = c;
	return pid;
}

/* FILE at least bytes long, its blocks written (not a hole) and on disk. */
static void fill(const char *path, off_t bytes, char *buf)
{
	struct stat st;
	off_t off;
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		die("fileops: open");
	if (fstat(fd, &st))
		die("fileops: fstat");
	/* a block device (null_blk) is as long as it is */
	if (!S_ISBLK(st.st_mode) && st.st_size < bytes) {
		memset(buf, 'x', BLOCK);
		for (off = 0; off < bytes; off += BLOCK)
			if (pwrite(fd, buf, BLOCK, off) != BLOCK)
				die("fileops: pwrite (fill)");
		if (fsync(fd))
			die("fileops: fsync");
	}
	close(fd);
}

int main(int argc, char **argv)
{
	int opt, cpu = -1, soak_cpu = -1, direct = 0, fd;
	unsigned long n, i, kib = 0, blocks;
	uint64_t t0, c0, s0 = 0, ns, cns, ctxt0, soaked = 0;
	volatile uint64_t *count = NULL;
	pid_t soaker = 0;
	struct rusage self;
	char params[160];
	char *buf;
	off_t off;

	while ((opt = getopt(argc, argv, "c:dS:s:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = (int)wl_arg("fileops", optarg);
			break;
		case 'd':
			direct = 1;
			break;
		case 's':
			kib = wl_arg("fileops", optarg);
			break;
		case 'S':
			soak_cpu = (int)wl_arg("fileops", optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	n = wl_arg("fileops", argv[optind + 1]);
	if (!kib)
		kib = direct ? 16384 : 1024;
	blocks = kib * 1024 / BLOCK;
	if (!blocks)
		goto usage;

	pin(cpu);
	/* O_DIRECT wants an aligned buffer */
	errno = posix_memalign((void **)&buf, BLOCK, BLOCK);
	if (errno)
		die("fileops: posix_memalign");
	fill(argv[optind], (off_t)blocks * BLOCK, buf);
	fd = open(argv[optind], O_RDWR | (direct ? O_DIRECT : 0));
	if (fd < 0)
		die("fileops: open");
	/* buffered: every block in the page cache before the clock starts */
	if (!direct)
		for (i = 0; i < blocks; i++)
			if (pread(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK)
				die("fileops: pread (warm)");

	if (soak_cpu >= 0)
		soaker = soak_start(soak_cpu, &count);
	ctxt0 = wl_ctxt();
	c0 = cpu_ns();
	if (count)
		s0 = *count;
	t0 = wl_now_ns();
	for (i = 0; i < n; i++) {
		off = (off_t)(i % blocks) * BLOCK;
		if (direct || !(i & 1)) {
			if (pread(fd, buf, BLOCK, off) != BLOCK)
				die("fileops: pread");
		} else if (pwrite(fd, buf, BLOCK, off) != BLOCK) {
			die("fileops: pwrite");
		}
	}
	ns = wl_now_ns() - t0;
	if (count)
		soaked = *count - s0;
	cns = cpu_ns() - c0;
	if (soaker) {
		kill(soaker, SIGKILL);
		waitpid(soaker, NULL, 0);
	}
	ctxt0 = wl_ctxt() - ctxt0;
	close(fd);
	getrusage(RUSAGE_SELF, &self);
	if (soaker)
		/* busyns: x86-64's two instructions an iteration, 1 ns each */
		snprintf(params, sizeof(params),
			 "io=%s ops=%lu cpu=%d cpuns=%lu soak=%lu busyns=%ld",
			 direct ? "direct" : "file", n, cpu, (unsigned long)cns,
			 (unsigned long)soaked, (long)ns - 2 * (long)soaked);
	else
		snprintf(params, sizeof(params), "io=%s ops=%lu cpu=%d cpuns=%lu",
			 direct ? "direct" : "file", n, cpu, (unsigned long)cns);
	wl_report("fileops", params, ns, &self, ctxt0);
	free(buf);
	return 0;
usage:
	fprintf(stderr, "usage: fileops [-c CPU] [-d] [-S CPU] [-s FILE_KIB] FILE OPERATIONS\n");
	return 2;
}
