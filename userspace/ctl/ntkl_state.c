// SPDX-License-Identifier: GPL-2.0
/*
 * Background writer state files. See ntkl_state.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ntkl_state.h"

const char *ntkl_run_dir(void)
{
	const char *dir = getenv("NTKL_RUN_DIR");

	return dir && *dir ? dir : "/run/ntkl";
}

const char *ntkl_state_path(char *buf, size_t size, uint32_t logger_id,
			    const uint8_t guid[16])
{
	char hex[33];

	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", guid[i]);
	snprintf(buf, size, "%s/%u-%s.pid", ntkl_run_dir(), logger_id, hex);
	return buf;
}

/*
 * The run directory holds every tracing user's writers' states: sticky
 * and writable by the device's group (as udev/ntkl-tmpfiles.conf makes it
 * at boot), so each user leaves its state there and none removes
 * another's. Only for a directory this call created.
 */
static void share_run_dir(const char *dir)
{
	struct stat dev;

	if (stat(NTKL_DEVICE_PATH, &dev) == 0 && chown(dir, (uid_t)-1, dev.st_gid) < 0)
		return;		/* not root: the group stays ours; others cannot write */
	chmod(dir, 01775);
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path)
{
	char dir[PATH_MAX];

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (!strcmp(dir, ntkl_run_dir()))
				share_run_dir(dir);
		} else if (errno != EEXIST) {
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

int ntkl_state_create(const char *path)
{
	int fd, ret;

	ret = make_parent_dirs(path);
	if (ret)
		return ret;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* no one else may hold it: the GUID makes the name unique */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int ntkl_state_write(int fd, const struct ntkl_writer_state *s)
{
	char text[PATH_MAX + 1024];
	int len;
	ssize_t n;

	len = snprintf(text, sizeof(text),
		       "pid=%ld\nlogger=%s\nfile=%s\nstate=%s\nbuffers=%" PRIu64
		       "\nbytes=%" PRIu64 "\nevents=%" PRIu64 "\nevents_lost=%" PRIu64
		       "\nbuffers_lost=%" PRIu64 "\nerror=%s\n",
		       s->pid, s->logger, s->file, s->state, s->buffers, s->bytes,
		       s->events, s->events_lost, s->buffers_lost, s->error);
	if (len < 0 || (size_t)len >= sizeof(text))
		return -ENAMETOOLONG;
	if (ftruncate(fd, 0) < 0)
		return -errno;
	n = pwrite(fd, text, (size_t)len, 0);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

/* Copy the rest of a "key=value" line into dst (size bytes). */
static void copy_value(char *dst, size_t size, const char *value)
{
	snprintf(dst, size, "%s", value);
}

int ntkl_state_read(const char *path, struct ntkl_writer_state *s)
{
	char line[PATH_MAX + 64];
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '='), *v;

		line[strcspn(line, "\n")] = '\0';
		if (!eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(line, "pid"))
			s->pid = strtol(v, NULL, 10);
		else if (!strcmp(line, "logger"))
			copy_value(s->logger, sizeof(s->logger), v);
		else if (!strcmp(line, "file"))
			copy_value(s->file, sizeof(s->file), v);
		else if (!strcmp(line, "state"))
			copy_value(s->state, sizeof(s->state), v);
		else if (!strcmp(line, "buffers"))
			s->buffers = strtoull(v, NULL, 10);
		else if (!strcmp(line, "bytes"))
			s->bytes = strtoull(v, NULL, 10);
		else if (!strcmp(line, "events"))
			s->events = strtoull(v, NULL, 10);
		else if (!strcmp(line, "events_lost"))
			s->events_lost = strtoull(v, NULL, 10);
		else if (!strcmp(line, "buffers_lost"))
			s->buffers_lost = strtoull(v, NULL, 10);
		else if (!strcmp(line, "error"))
			copy_value(s->error, sizeof(s->error), v);
	}
	fclose(f);
	return 0;
}

bool ntkl_state_busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool busy;

	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ntkl_state_wait(const char *path, int timeout_ms, int waiting_ms,
		    void (*waiting)(void *ctx), void *ctx)
{
	long long start = now_ms();
	bool said = false;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* polled rather than blocking, to time out and to say we wait */
	while (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		long long waited = now_ms() - start;

		if (errno != EWOULDBLOCK && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (timeout_ms >= 0 && waited >= timeout_ms) {
			ret = -ETIMEDOUT;
			break;
		}
		if (!said && waiting && waited >= waiting_ms) {
			waiting(ctx);
			said = true;
		}
		usleep(20 * 1000);
	}
	close(fd);
	return ret;
}

int ntkl_state_find_file(const char *file, struct ntkl_writer_state *s)
{
	char real[PATH_MAX], path[PATH_MAX + 256];
	DIR *dir = opendir(ntkl_run_dir());
	struct dirent *de;
	int ret = -ENOENT;

	if (!dir || !realpath(file, real)) {
		if (dir)
			closedir(dir);
		return -ENOENT;
	}
	while (ret && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".pid"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ntkl_run_dir(), de->d_name);
		if (ntkl_state_busy(path) && !ntkl_state_read(path, s) && !strcmp(s->file, real))
			ret = 0;
	}
	closedir(dir);
	return ret;
}
