// SPDX-License-Identifier: GPL-2.0
/*
 * An ETL file as one writer makes it: created and locked, appended to in
 * whole buffers, its header buffer completed and patched, its last buffer
 * marked, and a file whose writer died made whole. See etl_file.h.
 */
#define _GNU_SOURCE	/* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etl/etl_reader.h"
#include "etl/etl_repair.h"
#include "etl/etl_utf16.h"
#include "etl_file.h"
#include "ntkl_state.h"

/* Bytes of the NUL-terminated UTF-16 string at p (terminator in), or 0. */
static size_t utf16_bytes(const uint8_t *p, size_t max)
{
	size_t i;

	for (i = 0; i + 1 < max; i += 2)
		if (!p[i] && !p[i + 1])
			return i + 2;
	return 0;
}

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

int etl_header_complete(uint8_t *buf, size_t size, const char *log_file_name,
			const struct etw_time_zone_information *tz,
			char *err, size_t err_size)
{
	struct wmi_buffer_header bh;
	struct system_trace_header ev;
	uint8_t name16[2 * PATH_MAX + 2];
	size_t strings, logger_bytes, file_bytes, old_file_bytes;
	size_t old_end, new_end, filled, new_size;

	if (size < ETL_HEADER_PATCH_BYTES) {
		snprintf(err, err_size, "a %zu-byte buffer holds no header", size);
		return -1;
	}
	memcpy(&bh, buf, sizeof(bh));
	memcpy(&ev, buf + ETL_HEADER_EVENT_OFFSET, sizeof(ev));
	filled = bh.saved_offset;
	if (((ev.marker >> 16) & 0xFF) != ETW_HEADER_TYPE_SYSTEM64 ||
	    ev.hook_id != ETW_EVENT_HEADER_HOOK || ev.size < ETL_HEADER_PATCH_BYTES - ETL_HEADER_EVENT_OFFSET ||
	    filled > size || ETL_HEADER_EVENT_OFFSET + ALIGN8(ev.size) > filled) {
		snprintf(err, err_size,
			 "buffer 0 does not start with the Header event (marker 0x%08x, hook 0x%04x, size 0x%x)",
			 ev.marker, ev.hook_id, ev.size);
		return -1;
	}
	if (tz) {
		struct trace_logfile_header h;

		memcpy(&h, buf + ETL_LOGFILE_HEADER_OFFSET, sizeof(h));
		h.time_zone = *tz;
		memcpy(buf + ETL_LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	}
	if (!log_file_name)
		return 0;
	strings = ETL_HEADER_PATCH_BYTES;
	old_end = ETL_HEADER_EVENT_OFFSET + ev.size;
	logger_bytes = utf16_bytes(buf + strings, old_end - strings);
	old_file_bytes = logger_bytes ? utf16_bytes(buf + strings + logger_bytes,
						    old_end - strings - logger_bytes) : 0;
	if (!old_file_bytes) {
		snprintf(err, err_size, "the Header event's names are not terminated");
		return -1;
	}
	file_bytes = etl_utf8_to_utf16(log_file_name, name16, sizeof(name16));
	if (!file_bytes) {
		snprintf(err, err_size, "the file name is too long for the Header event");
		return -1;
	}
	new_size = strings + logger_bytes + file_bytes - ETL_HEADER_EVENT_OFFSET;
	old_end = ETL_HEADER_EVENT_OFFSET + ALIGN8(ev.size);
	new_end = ETL_HEADER_EVENT_OFFSET + ALIGN8(new_size);
	if (new_size > UINT16_MAX || filled - old_end + new_end > size) {
		snprintf(err, err_size, "the file name does not fit in the header buffer");
		return -1;
	}
	/* the records after the Header event move with its end */
	memmove(buf + new_end, buf + old_end, filled - old_end);
	memcpy(buf + strings + logger_bytes, name16, file_bytes);
	memset(buf + strings + logger_bytes + file_bytes, 0,
	       new_end - (strings + logger_bytes + file_bytes));
	ev.size = (uint16_t)new_size;
	memcpy(buf + ETL_HEADER_EVENT_OFFSET, &ev, sizeof(ev));
	filled = filled - old_end + new_end;
	memset(buf + filled, ETW_BUFFER_FILL_BYTE, size - filled);
	bh.saved_offset = (uint32_t)filled;
	bh.current_offset = (uint32_t)filled;
	bh.offset = (uint32_t)filled;
	memcpy(buf, &bh, sizeof(bh));
	return 0;
}

int etl_mark_last_buffer_fd(int fd, uint64_t last, char *err, size_t err_size)
{
	off_t at = (off_t)last + (off_t)offsetof(struct wmi_buffer_header, buffer_flag);
	uint16_t flag;

	if (!last)
		return 0;	/* the header buffer alone carries it already */
	if (pread(fd, &flag, sizeof(flag), at) != (ssize_t)sizeof(flag)) {
		snprintf(err, err_size, "reading the last buffer back: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	flag |= ETW_BUFFER_FLAG_FLUSH_MARKER;
	if (pwrite(fd, &flag, sizeof(flag), at) != (ssize_t)sizeof(flag)) {
		snprintf(err, err_size, "marking the last buffer: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}

int64_t etl_filetime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ETW_FILETIME_UNIX_EPOCH + (int64_t)ts.tv_sec * ETW_FILETIME_PER_SECOND +
	       ts.tv_nsec / 100;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void etl_header_patch_init(struct etl_header_patch *patch, uint64_t buffers,
			   const struct ntkl_properties *final)
{
	memset(patch, 0, sizeof(*patch));
	patch->end_time = etl_filetime_now();
	patch->buffers_written = clamp32(buffers);
	if (final) {
		patch->events_lost = clamp32(final->events_lost);
		patch->buffers_lost = clamp32(final->log_buffers_lost);
	}
}

int etl_header_patch_mem(uint8_t *data, size_t len,
			 const struct etl_header_patch *patch,
			 char *err, size_t err_size)
{
	struct system_trace_header ev;
	struct trace_logfile_header h;

	if (len < ETL_HEADER_PATCH_BYTES) {
		snprintf(err, err_size, "the file is %zu bytes, too short for a header buffer",
			 len);
		return -1;
	}
	memcpy(&ev, data + ETL_HEADER_EVENT_OFFSET, sizeof(ev));
	if (((ev.marker >> 16) & 0xFF) != ETW_HEADER_TYPE_SYSTEM64 ||
	    ev.hook_id != ETW_EVENT_HEADER_HOOK ||
	    ev.size < sizeof(ev) + sizeof(h)) {
		snprintf(err, err_size,
			 "buffer 0 does not start with the Header event (marker 0x%08x, hook 0x%04x, size 0x%x)",
			 ev.marker, ev.hook_id, ev.size);
		return -1;
	}
	memcpy(&h, data + ETL_LOGFILE_HEADER_OFFSET, sizeof(h));
	h.end_time = patch->end_time;
	h.buffers_written = patch->buffers_written;
	h.events_lost = patch->events_lost;
	h.buffers_lost = patch->buffers_lost;
	memcpy(data + ETL_LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	return 0;
}

int etl_header_patch_fd(int fd, const struct etl_header_patch *patch,
			char *err, size_t err_size)
{
	uint8_t head[ETL_HEADER_PATCH_BYTES];
	ssize_t n;

	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		int e = errno;

		snprintf(err, err_size, "reading the header buffer back: %s", strerror(e));
		return -e;
	}
	if (etl_header_patch_mem(head, (size_t)n, patch, err, err_size))
		return -EINVAL;
	n = pwrite(fd, head + ETL_LOGFILE_HEADER_OFFSET,
		   sizeof(head) - ETL_LOGFILE_HEADER_OFFSET, ETL_LOGFILE_HEADER_OFFSET);
	if (n < 0) {
		int e = errno;

		snprintf(err, err_size, "patching the header: %s", strerror(e));
		return -e;
	}
	if ((size_t)n != sizeof(head) - ETL_LOGFILE_HEADER_OFFSET) {
		snprintf(err, err_size, "patching the header: short write");
		return -EIO;
	}
	return 0;
}

int ntkl_file_complete(const char *path, const struct ntkl_properties *final,
		      uint64_t *buffers, char *err, size_t err_size)
{
	struct wmi_buffer_header bh;
	struct etl_header_patch patch;
	struct etl_repair r;
	struct etl_error e;
	struct stat st;
	void *map;
	int fd, ret = 0;

	*buffers = 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_size, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0 || pread(fd, &bh, sizeof(bh), 0) != (ssize_t)sizeof(bh)) {
		snprintf(err, err_size, "%s: no header buffer to complete", path);
		ret = -EINVAL;
		goto out;
	}
	/* buffer 0, the header buffer, is never compressed: a sane size or no ETL file */
	if (bh.buffer_size < ETL_HEADER_PATCH_BYTES || bh.buffer_size > NTKL_MAX_BUFFER_KB * 1024) {
		snprintf(err, err_size, "%s: buffer 0 has BufferSize 0x%x: not an ntkl file",
			 path, bh.buffer_size);
		ret = -EINVAL;
		goto out;
	}
	/*
	 * The whole buffers and the latest one's time, as `ntkl dump
	 * --repair` finds them (etl_repair.h): buffer by buffer, each by its
	 * own BufferSize (a compressed one's is its own).
	 */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(err, err_size, "%s: cannot map: %s", path, strerror(-ret));
		goto out;
	}
	ret = etl_repair_plan(map, (uint64_t)st.st_size, &r, &e);
	munmap(map, (size_t)st.st_size);
	if (ret) {
		snprintf(err, err_size, "%s: %s", path, e.msg);
		ret = -EINVAL;
		goto out;
	}
	if (r.whole < (uint64_t)st.st_size && ftruncate(fd, (off_t)r.whole) < 0) {
		ret = -errno;
		snprintf(err, err_size, "%s: cannot cut the partial buffer off: %s", path,
			 strerror(-ret));
		goto out;
	}
	etl_header_patch_init(&patch, r.buffers, final);
	/* the trace ends with its last buffer, not when ntkl stop came by (else now) */
	if (r.has_buffers_end_time)
		patch.end_time = r.buffers_end_time;
	ret = etl_header_patch_fd(fd, &patch, err, err_size);
	if (!ret)
		ret = etl_mark_last_buffer_fd(fd, r.last, err, err_size);
	if (!ret && fsync(fd) < 0 && errno != EINVAL && errno != EROFS) {
		ret = -errno;
		snprintf(err, err_size, "%s: fsync: %s", path, strerror(-ret));
	}
	if (!ret)
		*buffers = r.buffers;
out:
	close(fd);
	return ret;
}

/* take_lock(): path names another file than fd by now; open it again */
#define REPLACED	(-EAGAIN)
/* how often a file replaced under us is opened again before giving up */
#define OPEN_TRIES	16

/*
 * Take the writer's lock on fd, the file at path: 0; -EEXIST with the
 * reason in err (naming the file name) while another ntkl writer holds
 * it; REPLACED if path no longer names fd's file once the lock is ours (a
 * writer that replaces its file, ntkl_output_commit(), did so since our
 * open(): the lock is then on a file nobody will read); else -errno.
 */
static int take_lock(int fd, const char *path, const char *name, char *err, size_t err_size)
{
	struct ntkl_writer_state other;
	struct stat mine, now;
	int e;

	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		if (e != EWOULDBLOCK) {
			snprintf(err, err_size, "cannot lock %s: %s", name, strerror(e));
			return -e;
		}
		if (!ntkl_state_find_file(path, &other))
			snprintf(err, err_size,
				 "%s is being written by logger %s (writer pid %ld): ERROR_ALREADY_EXISTS: choose another file, or ntkl stop %s first",
				 name, other.logger, other.pid, other.logger);
		else
			snprintf(err, err_size,
				 "%s is being written by another ntkl command (record or save): ERROR_ALREADY_EXISTS: choose another file",
				 name);
		return -EEXIST;
	}
	if (!fstat(fd, &mine) && (stat(path, &now) ? errno == ENOENT :
				  now.st_dev != mine.st_dev || now.st_ino != mine.st_ino)) {
		flock(fd, LOCK_UN);
		snprintf(err, err_size,
			 "%s is being replaced by another writer as it is opened: ERROR_ALREADY_EXISTS: choose another file",
			 name);
		return REPLACED;
	}
	return 0;
}

int ntkl_output_create(const char *path, char *err, size_t err_size)
{
	struct stat st;
	int fd, e, tries = 0;

again:
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	/* a device or FIFO is no ETL file: refused before anything is written to it */
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, err_size, "%s is not a regular file: give a file name", path);
		return -EINVAL;
	}
	e = take_lock(fd, path, path, err, err_size);
	if (e) {
		close(fd);
		if (e == REPLACED && ++tries < OPEN_TRIES)
			goto again;
		return e == REPLACED ? -EEXIST : e;
	}
	if (ftruncate(fd, 0) < 0) {
		e = errno;
		close(fd);
		snprintf(err, err_size, "cannot empty %s: %s", path, strerror(e));
		return -e;
	}
	return fd;
}

/* A file at path: o->target, its st, and old_fd open and locked on it. 0 or -errno said. */
static int hold_old(struct ntkl_output_new *o, const char *path, struct stat *st,
		    char *err, size_t err_size)
{
	int e;

	if (lstat(path, st)) {
		e = errno;
		if (e == ENOENT)
			return REPLACED;	/* removed since: create it */
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	/* a symlink is followed: its target is the file replaced, the link stays */
	if (!realpath(path, o->target)) {
		e = errno;
		if (e == ENOENT && S_ISLNK(st->st_mode)) {
			snprintf(err, err_size,
				 "%s is a symlink to a file that does not exist: give the file itself",
				 path);
			return -EINVAL;
		}
		if (e == ENOENT)
			return REPLACED;
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	/* a device or FIFO is no ETL file: refused before it is opened */
	if (!stat(o->target, st) && !S_ISREG(st->st_mode)) {
		snprintf(err, err_size, "%s is not a regular file: give a file name", path);
		return -EINVAL;
	}
	/* for writing, as a file written in place is: a file the caller may not write stays */
	o->old_fd = open(o->target, O_RDWR | O_CLOEXEC);
	if (o->old_fd < 0) {
		e = errno;
		if (e == ENOENT)
			return REPLACED;
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(o->old_fd, st) || !S_ISREG(st->st_mode)) {
		snprintf(err, err_size, "%s is not a regular file: give a file name", path);
		return -EINVAL;
	}
	return take_lock(o->old_fd, o->target, path, err, err_size);
}

int ntkl_output_begin(struct ntkl_output_new *o, const char *path, char *err, size_t err_size)
{
	struct stat st;
	int e, tries = 0;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->old_fd = -1;
	if (strlen(path) >= sizeof(o->target)) {
		snprintf(err, err_size, "cannot create %.64s...: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
again:
	/* none there: a new file, this call's, written where it lies */
	o->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (o->fd >= 0) {
		if (!realpath(path, o->target))
			snprintf(o->target, sizeof(o->target), "%s", path);
		e = take_lock(o->fd, path, path, err, err_size);
		if (e) {
			/* another writer has it now (or removed it): not ours to remove */
			close(o->fd);
			o->fd = -1;
			if (e == REPLACED && ++tries < OPEN_TRIES)
				goto again;
			return e == REPLACED ? -EEXIST : e;
		}
		o->created = true;
		return 0;
	}
	e = errno;
	if (e != EEXIST) {
		snprintf(err, err_size, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	/* one there: held, and left as it is until the commit */
	e = hold_old(o, path, &st, err, err_size);
	if (e) {
		if (o->old_fd >= 0)
			close(o->old_fd);
		o->old_fd = -1;
		if (e == REPLACED && ++tries < OPEN_TRIES)
			goto again;
		return e == REPLACED ? -EEXIST : e;
	}
	/* the new file beside it, locked before anyone can know its name, with its owner and permissions */
	snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", o->target);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		e = errno;
		o->tmp[0] = '\0';
		ntkl_output_abort(o);
		snprintf(err, err_size, "cannot create a file beside %s: %s", path, strerror(e));
		return -e;
	}
	if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(o->fd, st.st_uid, st.st_gid)) {
		/* not ours to give (not root): the new file is the caller's */
	}
	if (fchmod(o->fd, st.st_mode & 07777) || flock(o->fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		ntkl_output_abort(o);
		snprintf(err, err_size, "cannot create a file beside %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int ntkl_output_commit(struct ntkl_output_new *o, char *err, size_t err_size)
{
	struct stat was, now;
	int e;

	if (o->created) {
		o->created = false;	/* it has its name: the writer's from now on */
		return 0;
	}
	/* the file there is still the one held: nothing else is replaced */
	if (fstat(o->old_fd, &was) || stat(o->target, &now) ||
	    was.st_dev != now.st_dev || was.st_ino != now.st_ino) {
		snprintf(err, err_size,
			 "%s was replaced or removed by another program meanwhile: it is left as it is",
			 o->target);
		return -EBUSY;
	}
	if (rename(o->tmp, o->target)) {
		e = errno;
		snprintf(err, err_size, "cannot replace %s: %s", o->target, strerror(e));
		return -e;
	}
	o->tmp[0] = '\0';
	close(o->old_fd);
	o->old_fd = -1;
	return 0;
}

void ntkl_output_abort(struct ntkl_output_new *o)
{
	struct stat mine, now;

	if (o->fd >= 0) {
		/* a file this call created, still at its name: removed; anything else stays */
		if (o->created && !fstat(o->fd, &mine) && !stat(o->target, &now) &&
		    mine.st_dev == now.st_dev && mine.st_ino == now.st_ino)
			unlink(o->target);
		if (o->tmp[0])
			unlink(o->tmp);
		close(o->fd);
	}
	if (o->old_fd >= 0)
		close(o->old_fd);
	o->fd = -1;
	o->old_fd = -1;
	o->created = false;
	o->tmp[0] = '\0';
}
