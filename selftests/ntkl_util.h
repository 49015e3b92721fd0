/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ntkl selftests: control ioctls that return -errno,
 * properties with defaults, draining a bound reader into memory, small
 * workloads that make process and thread events, and what several tests
 * ask of Linux (a tracefs file, whether trace-cmd records, own text).
 */
#ifndef NTKL_UTIL_H
#define NTKL_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../uapi/ntkl.h"
#include "../uapi/ntkl_etw.h"

static inline int ntkl_open(void)
{
	return open(NTKL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

/* An ioctl's result: 0, or -errno. */
static inline int ntkl_ctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline void props_init(struct ntkl_properties *p, const char *name,
			      uint32_t enable_flags)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	snprintf(p->logger_name, sizeof(p->logger_name), "%s", name);
	p->enable_flags = enable_flags;
}

/* Properties that select a logger by name, for STOP/QUERY/FLUSH/UPDATE. */
static inline void props_select(struct ntkl_properties *p, const char *name)
{
	props_init(p, name, 0);
}

static inline int ntkl_stop_name(int fd, const char *name)
{
	struct ntkl_properties p;

	props_select(&p, name);
	return ntkl_ctl(fd, NTKL_IOC_STOP, &p);
}

/*
 * Stop every running logger: a fixture's teardown, so that a test that
 * failed half way leaves nothing running into the next one. Returns how
 * many it stopped, or -errno if it could not list them.
 */
static inline int ntkl_stop_every_logger(int fd)
{
	struct ntkl_properties props[NTKL_MAX_LOGGERS], p;
	struct ntkl_list l = {
		.size = sizeof(l),
		.count = NTKL_MAX_LOGGERS,
		.props_size = sizeof(struct ntkl_properties),
		.props = (uintptr_t)props,
	};
	unsigned int i;

	if (ioctl(fd, NTKL_IOC_LIST, &l))
		return -errno;
	for (i = 0; i < l.count; i++) {
		memset(&p, 0, sizeof(p));
		p.size = sizeof(p);
		p.logger_id = props[i].logger_id;
		ioctl(fd, NTKL_IOC_STOP, &p);
	}
	return l.count;
}

static inline int ntkl_bind_id(int fd, uint32_t id)
{
	struct ntkl_bind b = { .size = sizeof(b), .logger_id = id };

	return ntkl_ctl(fd, NTKL_IOC_BIND, &b);
}

/* A whole capture in memory, buffer 0 (the header buffer) first. */
struct capture {
	uint8_t *data;
	size_t size;
	unsigned int buffers;
	size_t buffer_size;
};

/*
 * Read buffers from a bound fd until end of data (or max_buffers); each
 * read() must return exactly one buffer. Returns 0 or -errno.
 */
static inline int capture_drain(int fd, size_t buffer_size, struct capture *c,
				unsigned int max_buffers)
{
	c->buffer_size = buffer_size;
	while (!max_buffers || c->buffers < max_buffers) {
		uint8_t *grown = realloc(c->data, c->size + buffer_size);
		ssize_t n;

		if (!grown)
			return -ENOMEM;
		c->data = grown;
		n = read(fd, c->data + c->size, buffer_size);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		if ((size_t)n != buffer_size)
			return -EIO;
		c->size += n;
		c->buffers++;
	}
	return 0;
}

static inline void capture_free(struct capture *c)
{
	free(c->data);
	memset(c, 0, sizeof(*c));
}

/* The header buffer's TRACE_LOGFILE_HEADER (after Header's SYSTEM64 header). */
static inline struct trace_logfile_header *capture_logfile_header(struct capture *c)
{
	return (struct trace_logfile_header *)(c->data + sizeof(struct wmi_buffer_header) +
					       sizeof(struct system_trace_header));
}

/* What ntkl stop does to a file: the counters only known at the end. */
static inline void capture_patch(struct capture *c, const struct ntkl_properties *final)
{
	struct trace_logfile_header *h = capture_logfile_header(c);

	h->buffers_written = c->buffers;
	h->events_lost = final->events_lost;
	h->buffers_lost = final->log_buffers_lost;
}

static inline int capture_write(const struct capture *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(c->data, 1, c->size, f) == c->size;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

/* Fork and exec path (argv[0] = its name) count times; wait for all. */
static inline void run_execs(const char *path, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execl(path, strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
			      (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/* Write text to a sysfs, procfs or tracefs file: 0 or -errno. */
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -EIO;
}

/* rmmod, without busybox: 0 or -errno. */
static inline int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* insmod path, without busybox: 0 or -errno. */
static inline int load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* insmod path, then wait (2 s at most) for its device: 0 or -errno. */
static inline int load_module_wait(const char *path)
{
	int ret = load_module(path), i;

	for (i = 0; !ret && i < 200 && access(NTKL_DEVICE_PATH, F_OK); i++)
		usleep(10 * 1000);
	return ret;
}

/*
 * The kernel log from now on: /dev/kmsg positioned at its end, or -1.
 * kmsg_bad_since() reads what arrived since and counts the records that
 * report a kernel bug (the words vm-run looks for), the first in first.
 */
static inline int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int kmsg_bad_since(int fd, char *first, size_t first_len)
{
	static const char * const bad_words[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "KASAN", "lockdep",
		"UBSAN:", "possible recursive locking", "INFO: ",
	};
	char rec[8192];
	int bad = 0;
	ssize_t n;
	size_t i;

	first[0] = 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten while we read: go on */
		if (n <= 0)
			break;		/* EAGAIN: no more records */
		rec[n] = 0;
		for (i = 0; i < sizeof(bad_words) / sizeof(*bad_words); i++) {
			if (!strstr(rec, bad_words[i]))
				continue;
			if (!bad++) {
				n = strnlen(rec, first_len - 1);
				memcpy(first, rec, n);
				first[n] = 0;
			}
			break;
		}
	}
	return bad;
}

/*
 * A fixture of a control descriptor and a reader descriptor, whose
 * teardown stops every logger (ntkl_stop_every_logger()). Use it after
 * including kselftest_harness.h: NTKL_READER_FIXTURE(name).
 */
#define NTKL_READER_FIXTURE(name)					\
	FIXTURE(name) {							\
		int ctl;						\
		int reader;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->ctl = ntkl_open();				\
		ASSERT_GE(self->ctl, 0);				\
		self->reader = ntkl_open();				\
		ASSERT_GE(self->reader, 0);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		ntkl_stop_every_logger(self->ctl);			\
		close(self->reader);					\
		close(self->ctl);					\
	}

/* The first line of a file holds text (tracefs files: "1", "[mono]"). */
static inline bool file_has(const char *path, const char *text)
{
	char buf[512] = "";
	FILE *f = fopen(path, "r");
	bool has;

	if (!f)
		return false;
	has = fgets(buf, sizeof(buf), f) && strstr(buf, text);
	fclose(f);
	return has;
}

/* The signals a process catches (SigCgt in /proc/PID/status). */
static inline uint64_t sig_caught(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask;
}

/*
 * trace-cmd record (pid) is recording: it catches SIGINT (a SIGINT before
 * that would kill it, or never stop it), tracing is on and so is the event
 * (a path under events/, "sched/sched_switch"). Its "Hit Ctrl^C" line is
 * no use: its stdout is a file, so that line shows only when it exits.
 */
static inline bool trace_cmd_recording(pid_t pid, const char *event)
{
	char enable[160];

	snprintf(enable, sizeof(enable), "/sys/kernel/tracing/events/%s/enable", event);
	return (sig_caught(pid) & (1ull << (SIGINT - 1))) &&
	       file_has("/sys/kernel/tracing/tracing_on", "1") && file_has(enable, "1");
}

/* This program's text: the r-xp mapping of its own file. */
static inline int own_text(uint64_t *lo, uint64_t *hi)
{
	char exe[256], line[512], path[256];
	unsigned long long a, b;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = -1;

	if (n <= 0 || !maps) {
		if (maps)
			fclose(maps);
		return -1;
	}
	exe[n] = 0;
	while (fgets(line, sizeof(line), maps)) {
		char perms[8];

		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255s", &a, &b, perms, path) < 3)
			continue;
		if (!strcmp(perms, "r-xp") && !strcmp(path, exe)) {
			*lo = a;
			*hi = b;
			found = 0;
			break;
		}
	}
	fclose(maps);
	return found;
}

/*
 * Run a shell command line (stderr merged into stdout): its exit status
 * (128 + signal if killed), its first size - 1 bytes of output in out
 * (NULL: none kept). The rest is read too, or the command dies of SIGPIPE.
 */
__attribute__((format(printf, 3, 4), unused))
static int sh(char *out, size_t size, const char *fmt, ...)
{
	char cmd[2048], sink[4096];
	va_list ap;
	FILE *p;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (out) {
		size_t n = fread(out, 1, size - 1, p);

		out[n] = 0;
	}
	while (fread(sink, 1, sizeof(sink), p) > 0)
		;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* NTKL_UTIL_H */
