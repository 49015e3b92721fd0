// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_fault_test: faults during a capture (issue 12, item 5).
 *
 *  - kill -9 of the background writer of `ntkl start -f` (not -owned): the
 *    logger runs on, another reader can bind, `ntkl stop` says the writer
 *    died and completes the file, which passes `ntkl dump --check`
 *    (kill -9 of `ntkl record` and of an -owned writer: ntkl_cli_test's
 *    killed_record_leaves_no_logger);
 *  - kill -9 of a real-time reader (a BIND'd fd): the logger runs on, a new
 *    reader binds and gets every buffer the first did not;
 *  - CPU hotplug (cpu1..3 offline and online) under every event kind:
 *    each logger's writer stops cleanly, every buffer closed is in the
 *    file, the file passes the strict checks;
 *  - a full disk (a 1 MB tmpfs) under `ntkl start -f`: the writer stops
 *    with one clear line, the logger counts what was not written, and
 *    the file reads up to its last whole buffer;
 *  - memory allocation failures (failslab, fail_page_alloc; the debug
 *    kernel has them) during START and UPDATE: a clean errno, no leak
 *    (kmemleak, which vm-run reads after the tests).
 * The kernel log must stay clean (vm-run fails the run otherwise).
 */
#define _GNU_SOURCE
#include <sys/mount.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

/* The number after "label" in text (ntkl query / stop output), or -1. */
static long long field(const char *text, const char *label)
{
	const char *p = strstr(text, label);

	if (!p)
		return -1;
	p = strchr(p, ':');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

/* Print text as TAP comment lines ("# " each). */
static void print_commented(const char *title, const char *text)
{
	const char *p = text, *nl;

	printf("# %s\n", title);
	for (; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		printf("#   %.*s\n", (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

static void sleep_ms(long ms)
{
	usleep(ms * 1000);
}

static int cpus_online(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* cpu1..cpuN-1 offline and back, rounds times; how many transitions worked. */
static int hotplug_rounds(int rounds)
{
	int r, cpu, n = sysconf(_SC_NPROCESSORS_CONF), done = 0;
	char path[80];

	for (r = 0; r < rounds; r++) {
		for (cpu = 1; cpu < n; cpu++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
			done += !write_file(path, "0");
			sleep_ms(30);
		}
		for (cpu = 1; cpu < n; cpu++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
			done += !write_file(path, "1");
			sleep_ms(30);
		}
	}
	return done;
}

/* Whatever a failed case left: every CPU back online. */
static void cpus_all_online(void)
{
	int cpu, n = sysconf(_SC_NPROCESSORS_CONF);
	char path[80];

	for (cpu = 1; cpu < n; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		write_file(path, "1");
	}
}

FIXTURE(fault) {
	int ctl;
	int kmsg;
};

FIXTURE_SETUP(fault)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->kmsg = kmsg_open_at_end();
}

FIXTURE_TEARDOWN(fault)
{
	char first[512];
	int bad;

	ntkl_stop_every_logger(self->ctl);
	cpus_all_online();
	if (self->kmsg >= 0) {
		bad = kmsg_bad_since(self->kmsg, first, sizeof(first));
		if (bad)
			TH_LOG("%d kernel log lines report bugs, first: %s", bad, first);
		EXPECT_EQ(0, bad);
		close(self->kmsg);
	}
	close(self->ctl);
}

#define FAULT_TEST(name)	TEST_F_TIMEOUT(fault, name, 600)

/*
 * The background writer of `ntkl start -f` (not -owned) killed: the
 * logger goes on (a writer is a reader like any other), a new reader can
 * bind it, and `ntkl stop` completes the file and says what happened.
 */
FAULT_TEST(kill_start_writer)
{
	struct ntkl_bind b = { .size = sizeof(b), .logger_name = "fw" };
	char out[16384], why[512];
	struct ntkl_properties q;
	int pid, fd;

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl start fw -on CSWITCH+PROC_THREAD -flushtimer 1 -f /tmp/fw.etl"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl query fw | sed -n 's/.*writer pid \\([0-9]*\\).*/\\1/p'"));
	pid = atoi(out);
	ASSERT_GT(pid, 0);
	sh(NULL, 0, "threadmix -q 4 200; sleep 2");	/* the writer writes a few */
	ASSERT_EQ(0, kill(pid, SIGKILL));
	/* its descriptors close as it dies: on a loaded debug kernel, seconds */
	for (int waited = 0; waited < 20000; waited += 100) {
		props_select(&q, "fw");
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
		if (!q.readers)
			break;
		sleep_ms(100);
	}
	EXPECT_EQ(NTKL_STATUS_RUNNING, q.logger_status);
	EXPECT_EQ(0, q.readers);
	/* the reader's place is free again */
	fd = ntkl_open();
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ntkl_ctl(fd, NTKL_IOC_BIND, &b));
	close(fd);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl list | grep -q 'writer gone'")) TH_LOG("%s", out);
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl stop fw"));
	EXPECT_NE(NULL, strstr(out, "died before the logger stopped")) TH_LOG("%s", out);
	print_commented("kill -9 of start -f's writer: ntkl stop says:", out);
	EXPECT_EQ(0, sh(why, sizeof(why), "ntkl dump --check /tmp/fw.etl")) TH_LOG("%s", why);
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/fw.etl | grep -q Thread/CSwitch"));
}

/* A reader process that counts the buffers it read on a pipe, one byte each. */
static pid_t spawn_reader(const char *name, size_t buffer_size, int *count_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct ntkl_bind b = { .size = sizeof(b) };
		char *buf = malloc(buffer_size);
		int fd = ntkl_open();

		snprintf(b.logger_name, sizeof(b.logger_name), "%s", name);
		close(p[0]);
		if (!buf || fd < 0 || ntkl_ctl(fd, NTKL_IOC_BIND, &b))
			_exit(1);
		while (read(fd, buf, buffer_size) == (ssize_t)buffer_size)
			if (write(p[1], "b", 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	*count_fd = p[0];
	return pid;
}

/*
 * kill -9 of a real-time reader: the logger goes on; a new reader binds
 * and gets, after its own header buffer, every buffer the first did not
 * read (the logger keeps them while no one reads, or counts the events
 * it could not keep).
 */
FAULT_TEST(kill_reader)
{
	struct ntkl_properties p, q, final;
	struct drain_job job = { 0 };
	pthread_t th;
	int count_fd, n, first = 0;
	char bytes[4096];
	pid_t pid;

	props_init(&p, "fault reader", EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_PROCESS);
	p.flush_timer = 1;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	pid = spawn_reader("fault reader", p.buffer_size_kb * 1024, &count_fd);
	ASSERT_GT(pid, 0);
	sh(NULL, 0, "threadmix -q 4 300");
	sleep_ms(1500);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	waitpid(pid, NULL, 0);
	while ((n = read(count_fd, bytes, sizeof(bytes))) > 0)
		first += n;
	close(count_fd);
	EXPECT_GE(first, 2) TH_LOG("the first reader read %d buffers", first);

	props_select(&q, "fault reader");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(NTKL_STATUS_RUNNING, q.logger_status);
	EXPECT_EQ(0, q.readers);
	sh(NULL, 0, "threadmix -q 4 200");

	job.fd = ntkl_open();
	job.size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, ntkl_bind_id(job.fd, p.logger_id));
	ASSERT_EQ(0, pthread_create(&th, NULL, drain_thread, &job));
	sh(NULL, 0, "threadmix -q 4 200");
	props_select(&final, "fault reader");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &final));
	pthread_join(th, NULL);
	ASSERT_EQ(0, job.ret);
	/*
	 * The kernel's count: every buffer it closed went to one of the two
	 * readers, each of which also read a header buffer. The first
	 * reader's own count may miss the one it read as it was killed.
	 */
	props_init(&q, "", 0);
	ASSERT_EQ(0, ntkl_ctl(job.fd, NTKL_IOC_QUERY, &q));
	printf("# kill -9 of a reader: it read %d buffers, the next %u; the logger closed %llu, wrote %llu, lost %llu events\n",
	       first, job.c.buffers, (unsigned long long)q.sequence_number,
	       (unsigned long long)q.buffers_written, (unsigned long long)q.events_lost);
	EXPECT_EQ(q.sequence_number + 2, q.buffers_written);
	EXPECT_LE(q.buffers_written - job.c.buffers - first, 1);
	close(job.fd);
	capture_free(&job.c);
}

/* Every event kind, as `ntkl start -on` names it (and stacks). */
static const char *const kinds[] = {
	"CSWITCH", "COMPACT_CSWITCH", "DISPATCHER", "SPINLOCK", "PROFILE",
	"DPC+INTERRUPT", "PROC_THREAD", "LOADER", "CSWITCH -stackwalk CSwitch", "HARD_FAULTS",
	"SYSCALL", "ALL_FAULTS+VIRT_ALLOC", "MEMINFO_WS", "NETWORKTRACE",
};

/*
 * Hotplug under every event kind, one logger each, all at once: CPUs go
 * offline and online while threadmix and contend run. Then each writer
 * must finish cleanly (ntkl stop exits 0), with every buffer its logger
 * closed in the file, and the file must pass the strict checks.
 */
FAULT_TEST(hotplug_every_kind)
{
	const int nk = sizeof(kinds) / sizeof(kinds[0]);
	long long closed[16], lost[16];
	char out[16384], why[4096];
	int k, moves;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU that can go offline");
	for (k = 0; k < nk; k++) {
		ASSERT_EQ(0, sh(out, sizeof(out),
				"ntkl start hp%d -on %s -flushtimer 1 -f /tmp/hp%d.etl", k,
				kinds[k], k))
			TH_LOG("%s: %s", kinds[k], out);
	}
	sh(NULL, 0, "threadmix -q 4 100000 >/dev/null & echo $! > /tmp/hp.pids; "
	   "contend 4 100000 >/dev/null & echo $! >> /tmp/hp.pids");
	moves = hotplug_rounds(3);
	sh(NULL, 0, "kill $(cat /tmp/hp.pids); wait; true");
	EXPECT_EQ(cpus_online(), sysconf(_SC_NPROCESSORS_CONF));
	EXPECT_GT(moves, 0);
	for (k = 0; k < nk; k++) {
		char name[16];

		snprintf(name, sizeof(name), "hp%d", k);
		ASSERT_EQ(0, sh(out, sizeof(out), "ntkl query %s", name));
		closed[k] = field(out, "Buffers Closed");
		lost[k] = field(out, "Events Lost");
		EXPECT_EQ(0, sh(out, sizeof(out), "ntkl stop %s", name))
			TH_LOG("%s: %s", kinds[k], out);
		/* the file holds every buffer closed by the query, and the header */
		EXPECT_GE(field(out, "Buffers Written"), closed[k] + 1)
			TH_LOG("%s: %s", kinds[k], out);
		snprintf(name, sizeof(name), "/tmp/hp%d.etl", k);
		EXPECT_EQ(0, sh(why, sizeof(why), "ntkl dump --check %s", name))
			TH_LOG("%s: %s", kinds[k], why);
		printf("# hotplug (%d CPU moves) under %s: %lld buffers closed, %lld written, %lld events lost (counted)\n",
		       moves, kinds[k], closed[k], field(out, "Buffers Written"), lost[k]);
	}
}

/*
 * A full disk under `ntkl start -f`: the writer stops with one clear
 * line, ntkl stop reports it and what the logger could not write, and
 * the file reads up to its last whole buffer.
 */
FAULT_TEST(full_disk)
{
	char out[16384], why[4096];
	int i;

	mkdir("/tmp/full", 0755);
	umount("/tmp/full");
	ASSERT_EQ(0, mount("tmpfs", "/tmp/full", "tmpfs", 0, "size=1m"))
		TH_LOG("mount tmpfs: %s", strerror(errno));
	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl start full -on CSWITCH+PROC_THREAD -flushtimer 1 -f /tmp/full/f.etl"))
		TH_LOG("%s", out);
	for (i = 0; i < 60; i++) {
		sh(NULL, 0, "threadmix -q 4 300");
		if (!sh(out, sizeof(out), "ntkl query full | grep -q 'No space left'"))
			break;
	}
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl query full")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "No space left on device")) TH_LOG("%s", out);
	sh(NULL, 0, "threadmix -q 4 300");
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl stop full"));
	print_commented("full disk: ntkl stop says:", out);
	EXPECT_NE(NULL, strstr(out, "No space left on device")) TH_LOG("%s", out);
	/* what the logger closed and no file got is counted, not silent */
	EXPECT_GT(field(out, "Buffers Not Written"), 0) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(why, sizeof(why), "ntkl dump --repair /tmp/full/f.etl")) TH_LOG("%s", why);
	EXPECT_EQ(0, sh(why, sizeof(why), "ntkl dump --check /tmp/full/f.etl")) TH_LOG("%s", why);
	umount("/tmp/full");
}

/* --- memory allocation failures ------------------------------------------ */

#define DBGFS	"/sys/kernel/debug"

/*
 * The attributes inject_setup() sets: fail only us, quietly, and (the
 * last three, which not every directory has) GFP_KERNEL allocations of
 * any order too, which are what START makes.
 */
static const char *const inject_settings[][2] = {
	{ "probability", "100" }, { "times", "0" }, { "verbose", "0" },
	{ "task-filter", "Y" }, { "space", "0" }, { "interval", "1" },
	{ "ignore-gfp-wait", "N" }, { "ignore-gfp-highmem", "N" }, { "min-order", "0" },
};
#define N_INJECT	(sizeof(inject_settings) / sizeof(inject_settings[0]))
#define N_INJECT_NEEDED	6

/* What they were, to put back: a later test's fail-nth counts by them. */
struct inject_saved {
	char v[N_INJECT][32];
};

static void read_attr(const char *path, char *v, size_t size)
{
	FILE *f = fopen(path, "r");

	v[0] = '\0';
	if (f && fgets(v, (int)size, f))
		v[strcspn(v, "\n")] = '\0';
	if (f)
		fclose(f);
}

static int inject_setup(const char *dir, struct inject_saved *saved)
{
	char path[160];
	unsigned int i;

	for (i = 0; i < N_INJECT; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, inject_settings[i][0]);
		read_attr(path, saved->v[i], sizeof(saved->v[i]));
		if (write_file(path, inject_settings[i][1]) && i < N_INJECT_NEEDED)
			return -1;
	}
	return 0;
}

/*
 * Put the directory's attributes back as they were (probability before
 * times, as they were set). Left as inject_setup() set them, a later
 * test's START through /proc/thread-self/fail-nth met every GFP_KERNEL
 * allocation (ntkl_memory_test: 2,949 points on the debug kernel where it
 * meets 13), and took minutes.
 */
static void inject_restore(const char *dir, const struct inject_saved *saved)
{
	char path[160];
	unsigned int i;

	for (i = 0; i < N_INJECT; i++) {
		if (!saved->v[i][0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, inject_settings[i][0]);
		write_file(path, saved->v[i]);
	}
}

/* Fail one allocation, the interval-th from now that passes the filters. */
static void inject_one(const char *dir, int interval)
{
	char path[160], v[16];

	snprintf(path, sizeof(path), "%s/interval", dir);
	snprintf(v, sizeof(v), "%d", interval);
	write_file(path, v);
	snprintf(path, sizeof(path), "%s/times", dir);
	write_file(path, "1");
}

static void inject_off(const char *dir)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/times", dir);
	write_file(path, "0");
}

/*
 * START and UPDATE with one allocation failing, at every position from the first to the 40th:
 * each returns 0 or ENOMEM, the table is as before, and (vm-run's scan)
 * kmemleak finds nothing of ntkl's.
 */
FAULT_TEST(allocation_failures)
{
	static const char *const dirs[] = { DBGFS "/failslab", DBGFS "/fail_page_alloc" };
	struct inject_saved saved[2];
	unsigned long tries = 0, enomem = 0, other = 0;
	char first_other[128] = "", out[8192];
	unsigned int d;
	int k;

	mount("debugfs", DBGFS, "debugfs", 0, NULL);
	if (access(DBGFS "/failslab/times", W_OK) && access(DBGFS "/fail_page_alloc/times", W_OK))
		SKIP(return, "no failslab or fail_page_alloc (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS: the debug kernel has them)");
	ASSERT_EQ(0, write_file("/proc/thread-self/make-it-fail", "0"));
	for (d = 0; d < 2; d++) {
		if (access(dirs[d], W_OK))
			continue;
		if (inject_setup(dirs[d], &saved[d])) {
			inject_restore(dirs[d], &saved[d]);
			continue;
		}
		for (k = 1; k <= 40; k++) {
			struct ntkl_properties p, u;
			int ret, ret2;

			props_init(&p, "fault alloc", EVENT_TRACE_FLAG_CSWITCH);
			p.buffer_size_kb = 16;
			inject_one(dirs[d], k);
			write_file("/proc/thread-self/make-it-fail", "1");
			ret = ntkl_ctl(self->ctl, NTKL_IOC_START, &p);
			write_file("/proc/thread-self/make-it-fail", "0");
			inject_off(dirs[d]);
			tries++;
			enomem += ret == -ENOMEM;
			if (ret && ret != -ENOMEM && !other++)
				snprintf(first_other, sizeof(first_other), "%s START #%d: %s",
					 dirs[d], k, strerror(-ret));
			if (ret) {
				/* nothing half made: the name is free */
				props_select(&u, "fault alloc");
				EXPECT_EQ(-ENOENT, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &u));
				continue;
			}
			props_select(&u, "fault alloc");
			u.enable_flags = EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER |
					 EVENT_TRACE_FLAG_PROFILE |
					 EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS;
			inject_one(dirs[d], k);
			write_file("/proc/thread-self/make-it-fail", "1");
			ret2 = ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &u);
			write_file("/proc/thread-self/make-it-fail", "0");
			inject_off(dirs[d]);
			tries++;
			enomem += ret2 == -ENOMEM;
			if (ret2 && ret2 != -ENOMEM && ret2 != -EOPNOTSUPP && !other++)
				snprintf(first_other, sizeof(first_other), "%s UPDATE #%d: %s",
					 dirs[d], k, strerror(-ret2));
			EXPECT_EQ(0, ntkl_stop_name(self->ctl, "fault alloc"));
		}
		inject_restore(dirs[d], &saved[d]);
	}
	printf("# allocation failures: %lu START/UPDATE calls with one failing allocation, %lu ENOMEM\n",
	       tries, enomem);
	EXPECT_EQ(0, other) TH_LOG("%s", first_other);
	EXPECT_GT(enomem, 0);
	/* a logger works afterwards */
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl record -on CSWITCH -o /tmp/fa.etl -- threadmix -q 2 50"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl dump --check /tmp/fa.etl")) TH_LOG("%s", out);
	/*
	 * Leaks: vm-run scans kmemleak (debug kernel) after the tests and
	 * fails the run on any object allocated by ntkl: scanning here too
	 * would only repeat it, slowly.
	 */
}

TEST_HARNESS_MAIN
