// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_fileio_test: FileIo events (FILE_IO, FILE_IO_INIT, FILENAME) of a
 * workload of known size, checked against what the workload itself did
 * (its own count of calls and bytes: it is the strace of itself):
 *
 *   create "data", write NCHUNK chunks of CHUNK bytes, fsync, drop its
 *   pages (the first read pass goes to the disk), read it back twice
 *   with pread (the second pass from the page cache), once with preadv,
 *   close, rename to "data2", unlink, list the directory; and read 100
 *   bytes of "pre-open", a file opened before the logger started, whose
 *   name only the start rundown gives. "pre-map" is mapped (its fd
 *   closed) before the start: the rundown names mapped files too.
 *
 * Checked: the Write and Read records of "data" (count, IoSize sum,
 * offsets); each pairs with the OperationEnd of its IrpPtr, which moved
 * IoSize bytes with STATUS_SUCCESS; every FileObject and FileKey of every
 * FileIo record in the trace has a name record, and the workload's have
 * the right paths; Flush, Cleanup, Close, Rename, Delete, DirEnum are
 * there; the checker accepts the file; nothing is lost; the thread's
 * Write and Read records as many as its write, pread64 and preadv calls
 * the syscall tracepoints count (tracefs, when the kernel has them).
 * The rundown alone, on every kernel. Without the three flags, no FileIo
 * record.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest fileio"
#define CHUNK		4096
#define NCHUNK		16
#define PRE_READ	100
#define MAX_RECS	65536
#define MAX_NAMES	65536

#define FILEIO_FLAGS	(EVENT_TRACE_FLAG_FILE_IO | EVENT_TRACE_FLAG_FILE_IO_INIT | \
			 EVENT_TRACE_FLAG_DISK_FILE_IO)

struct op {
	uint16_t hook;
	int64_t time;
	uint64_t irp, file_object, file_key, offset, extra;
	uint32_t ttid, size, status;
	char name[PATH_MAX];		/* Create's OpenPath */
	int paired;			/* OperationEnds seen for it */
	uint64_t moved;
	uint32_t end_status;
};

struct name {
	uint16_t hook;
	int64_t time;
	uint64_t key;
	char path[PATH_MAX];
};

struct view {
	struct op *ops;
	struct name *names;
	unsigned int nops, nnames, fileio_records;
	struct capture_verdict verdict;
	uint64_t lost;
};

static void utf16_to_ascii(const uint8_t *p, size_t len, char *out, size_t out_len)
{
	size_t i;

	for (i = 0; i + 1 < len / 2 + 1 && i < out_len - 1 && 2 * i + 1 < len && p[2 * i]; i++)
		out[i] = (char)p[2 * i];
	out[i] = 0;
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct view *v = ctx;
	const uint8_t *p;
	struct op *o;

	if (!r || r->kind != ETL_KIND_KERNEL || ETW_HOOK_GROUP(r->hook_id) != ETW_GROUP_FILE)
		return;
	v->fileio_records++;
	p = r->payload;
	switch (r->hook_id) {
	case ETW_EVENT_FILEIO_NAME_HOOK:
	case ETW_EVENT_FILEIO_FILE_CREATE_HOOK:
	case ETW_EVENT_FILEIO_FILE_DELETE_HOOK:
	case ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK: {
		struct name *n;

		if (v->nnames == MAX_NAMES || r->payload_len < sizeof(struct etw_fileio_name) + 2)
			return;
		n = &v->names[v->nnames++];
		n->hook = r->hook_id;
		n->time = r->timestamp;
		memcpy(&n->key, p, 8);
		utf16_to_ascii(p + 8, r->payload_len - 8, n->path, sizeof(n->path));
		return;
	}
	}
	if (v->nops == MAX_RECS)
		return;
	o = &v->ops[v->nops++];
	memset(o, 0, sizeof(*o));
	o->hook = r->hook_id;
	o->time = r->timestamp;
	switch (r->hook_id) {
	case ETW_EVENT_FILEIO_CREATE_HOOK: {
		const struct etw_fileio_create *c = (const void *)p;

		o->irp = c->irp_ptr;
		o->file_object = c->file_object;
		o->ttid = c->ttid;
		utf16_to_ascii(p + sizeof(*c), r->payload_len - sizeof(*c), o->name,
			       sizeof(o->name));
		break;
	}
	case ETW_EVENT_FILEIO_CLEANUP_HOOK:
	case ETW_EVENT_FILEIO_CLOSE_HOOK:
	case ETW_EVENT_FILEIO_FLUSH_HOOK: {
		const struct etw_fileio_simple_op *s = (const void *)p;

		o->irp = s->irp_ptr;
		o->file_object = s->file_object;
		o->file_key = s->file_key;
		o->ttid = s->ttid;
		break;
	}
	case ETW_EVENT_FILEIO_READ_HOOK:
	case ETW_EVENT_FILEIO_WRITE_HOOK: {
		struct etw_fileio_read_write rw;

		memcpy(&rw, p, ETW_FILEIO_READ_WRITE_SIZE);
		o->irp = rw.irp_ptr;
		o->file_object = rw.file_object;
		o->file_key = rw.file_key;
		o->ttid = rw.ttid;
		o->offset = rw.offset;
		o->size = rw.io_size;
		break;
	}
	case ETW_EVENT_FILEIO_SET_INFO_HOOK:
	case ETW_EVENT_FILEIO_DELETE_HOOK:
	case ETW_EVENT_FILEIO_RENAME_HOOK: {
		const struct etw_fileio_info *in = (const void *)p;

		o->irp = in->irp_ptr;
		o->file_object = in->file_object;
		o->file_key = in->file_key;
		o->ttid = in->ttid;
		o->extra = in->extra_info;
		break;
	}
	case ETW_EVENT_FILEIO_DIR_ENUM_HOOK: {
		const struct etw_fileio_dir_enum *d = (const void *)p;

		o->irp = d->irp_ptr;
		o->file_object = d->file_object;
		o->file_key = d->file_key;
		o->ttid = d->ttid;
		utf16_to_ascii(p + sizeof(*d), r->payload_len - sizeof(*d), o->name,
			       sizeof(o->name));
		break;
	}
	case ETW_EVENT_FILEIO_OP_END_HOOK: {
		struct etw_fileio_op_end e;

		memcpy(&e, p, ETW_FILEIO_OP_END_SIZE);
		o->irp = e.irp_ptr;
		o->extra = e.extra_info;
		o->status = e.nt_status;
		break;
	}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * Pair each operation with the OperationEnd of its IrpPtr that follows it
 * (an IrpPtr is a kretprobe instance: reused once its call returned).
 */
static void pair_ends(struct view *v)
{
	unsigned int i, j;

	qsort(v->ops, v->nops, sizeof(*v->ops), by_time);
	for (i = 0; i < v->nops; i++) {
		struct op *e = &v->ops[i];

		if (e->hook != ETW_EVENT_FILEIO_OP_END_HOOK)
			continue;
		for (j = i; j-- > 0;) {
			struct op *o = &v->ops[j];

			if (o->irp != e->irp || o->hook == ETW_EVENT_FILEIO_OP_END_HOOK)
				continue;
			if (!o->paired) {
				o->paired++;
				o->moved = e->extra;
				o->end_status = e->status;
			}
			break;
		}
	}
}

/* The last name of key at or before time t (a rundown's name counts at any time). */
static const struct name *name_of(const struct view *v, uint64_t key, int64_t t)
{
	const struct name *best = NULL;
	unsigned int i;

	for (i = 0; i < v->nnames; i++) {
		const struct name *n = &v->names[i];

		if (n->key != key)
			continue;
		if (n->hook == ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK && !best)
			best = n;
		if (n->time <= t && (!best || best->time <= n->time))
			best = n;
	}
	if (!best)
		for (i = 0; i < v->nnames; i++)
			if (v->names[i].key == key)
				return &v->names[i];
	return best;
}

static bool has_name(const struct view *v, uint16_t hook, uint64_t key, const char *path)
{
	unsigned int i;

	for (i = 0; i < v->nnames; i++)
		if (v->names[i].hook == hook && v->names[i].key == key &&
		    (!path || !strcmp(v->names[i].path, path)))
			return true;
	return false;
}

struct workload {
	char dir[PATH_MAX];
	int pre_fd;
	void *pre_map;
	uint32_t tid;
	int errors;
	unsigned int listed;
};

static void workload(void *arg)
{
	struct workload *w = arg;
	char buf[CHUNK * 2], pre[PRE_READ];
	struct iovec iov[2] = { { buf, CHUNK }, { buf + CHUNK, CHUNK } };
	struct dirent *de;
	unsigned int i, pass;
	DIR *d;
	int fd, err;

	memset(buf, 'x', sizeof(buf));
	fd = open("data", O_CREAT | O_RDWR | O_TRUNC, 0644);
	w->errors += fd < 0;
	for (i = 0; i < NCHUNK; i++)
		w->errors += write(fd, buf, CHUNK) != CHUNK;
	w->errors += fsync(fd) != 0;
	/*
	 * the first pass from the disk, the second from the page cache (a
	 * kernel without fadvise, the debug one, reads both from the cache)
	 */
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	w->errors += err && err != ENOSYS;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < NCHUNK; i++)
			w->errors += pread(fd, buf, CHUNK, (off_t)i * CHUNK) != CHUNK;
	w->errors += preadv(fd, iov, 2, 0) != 2 * CHUNK;
	w->errors += close(fd) != 0;
	w->errors += rename("data", "data2") != 0;
	w->errors += unlink("data2") != 0;
	d = opendir(".");
	w->errors += !d;
	while (d && (de = readdir(d)))
		w->listed++;
	if (d)
		closedir(d);
	w->errors += pread(w->pre_fd, pre, PRE_READ, 0) != PRE_READ;
}

static int make_file(const char *path, size_t size)
{
	char buf[4096];
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	size_t done;

	if (fd < 0)
		return -1;
	memset(buf, 'p', sizeof(buf));
	for (done = 0; done < size; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return close(fd), -1;
	return fd;
}

static int record(struct __test_metadata *_metadata, int ctl, int reader, uint32_t flags,
		  void (*body)(void *), void *arg, struct view *v)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	int ret;

	props_init(&p, LOGGER, flags);
	p.buffer_size_kb = 1024;
	if (ntkl_ctl(ctl, NTKL_IOC_START, &p) || ntkl_bind_id(reader, p.logger_id))
		return -1;
	if (body)
		body(arg);
	if (ntkl_stop_name(ctl, LOGGER) ||
	    capture_drain(reader, p.buffer_size_kb * 1024, &c, 0) ||
	    ntkl_ctl(reader, NTKL_IOC_QUERY, &final))
		return -1;
	capture_patch(&c, &final);
	memset(v, 0, sizeof(*v));
	v->ops = calloc(MAX_RECS, sizeof(*v->ops));
	v->names = calloc(MAX_NAMES, sizeof(*v->names));
	if (!v->ops || !v->names)
		return -1;
	v->lost = final.events_lost;
	ret = capture_walk(&c, view_record, v, &v->verdict);
	capture_free(&c);
	pair_ends(v);
	return ret;
}

static void view_free(struct view *v)
{
	free(v->ops);
	free(v->names);
}

/* Does this kernel let ntkl probe the VFS? (The debug kernel has no kprobes.) */
static bool kernel_has_kprobes(void)
{
	return !system("grep -qw register_kretprobe /proc/kallsyms");
}

/*
 * Kprobes kept on their breakpoints (0) or optimized to jumps (1); -1 if
 * the kernel cannot say. A breakpoint runs the handlers as an NMI: on a
 * kernel whose kprobes do not ride on ftrace (the debug one), the
 * workload is seen that way until the optimizer has run, which once lost
 * the thread of a DirEnum; with optimization off, every run sees it so.
 */
#define KPROBE_OPT	"/proc/sys/debug/kprobes-optimization"
static int kprobe_optimization(int set)
{
	int old = -1;
	FILE *f = fopen(KPROBE_OPT, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	fclose(f);
	if (set >= 0 && old >= 0) {
		f = fopen(KPROBE_OPT, "w");
		if (!f || fprintf(f, "%d\n", set) < 0)
			old = -1;
		if (f && fclose(f))
			old = -1;
	}
	return old;
}

/*
 * The independent count: the kernel's own syscall tracepoints (tracefs),
 * filtered to the workload's thread, for the calls that read or write
 * (switched by a shell, whose writes are not this thread's).
 */
#define TRACEFS		"/sys/kernel/tracing"
static const char *const syscall_events[] = {
	"sys_enter_write", "sys_enter_pread64", "sys_enter_preadv", "sys_enter_preadv2",
};

static bool tracefs_syscalls(void)
{
	return !access(TRACEFS "/events/syscalls/sys_enter_pread64/enable", W_OK);
}

/* Filter each event to tid and switch them on (on) or off, from a shell. */
static int tracefs_set(uint32_t tid, bool on)
{
	unsigned int i;
	int ret = 0;

	if (on)
		ret |= sh(NULL, 0, "echo 0 > " TRACEFS "/tracing_on; echo > " TRACEFS "/trace");
	for (i = 0; i < ARRAY_SIZE(syscall_events); i++) {
		if (on)
			ret |= sh(NULL, 0, "echo 'common_pid == %u' > " TRACEFS
				  "/events/syscalls/%s/filter", tid, syscall_events[i]);
		ret |= sh(NULL, 0, "echo %d > " TRACEFS "/events/syscalls/%s/enable", on,
			  syscall_events[i]);
	}
	ret |= sh(NULL, 0, "echo %d > " TRACEFS "/tracing_on", on);
	return ret;
}

/* The calls of each event in the trace: writes, and reads (pread64, preadv). */
static int tracefs_count(unsigned int *writes, unsigned int *reads)
{
	FILE *f = fopen(TRACEFS "/trace", "r");
	char line[512];

	*writes = *reads = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		*writes += !!strstr(line, "sys_write(");
		*reads += strstr(line, "sys_pread64(") || strstr(line, "sys_preadv(") ||
			  strstr(line, "sys_preadv2(");
	}
	fclose(f);
	return 0;
}

NTKL_READER_FIXTURE(fileio);

TEST_F_TIMEOUT(fileio, workload_as_it_was, 300)
{
	char data[PATH_MAX + 8], data2[PATH_MAX + 8], pre[PATH_MAX + 16], premap[PATH_MAX + 16];
	const char *base = getenv("NTKL_SCRATCH");
	uint64_t fobj = 0, fkey = 0, dir_fobj = 0, wbytes = 0, rbytes = 0;
	unsigned int i, writes = 0, reads = 0, unpaired = 0, unnamed = 0, cache_pass = 0;
	unsigned int flushes = 0, cleanups = 0, closes = 0, renames = 0, deletes = 0, dirs = 0;
	uint64_t offsets_w = 0, pre_fobj = 0;
	int64_t t_open = 0, t_close = INT64_MAX;
	struct workload w = { 0 };
	unsigned int tc_writes = 0, tc_reads = 0, tid_writes = 0, tid_reads = 0;
	bool mapped = false, use_tracefs;
	struct view v;
	int map_fd, optimized;

	if (!kernel_has_kprobes())
		SKIP(return, "this kernel has no kretprobes: ntkl cannot see the VFS");
	snprintf(w.dir, sizeof(w.dir), "%s/ntkl-fileio.%d", base && *base ? base : "/tmp",
		 getpid());
	ASSERT_EQ(0, mkdir(w.dir, 0755));
	ASSERT_EQ(0, chdir(w.dir));
	snprintf(data, sizeof(data), "%s/data", w.dir);
	snprintf(data2, sizeof(data2), "%s/data2", w.dir);
	snprintf(pre, sizeof(pre), "%s/pre-open", w.dir);
	snprintf(premap, sizeof(premap), "%s/pre-map", w.dir);
	w.pre_fd = make_file(pre, 4096);
	ASSERT_GE(w.pre_fd, 0);
	map_fd = make_file(premap, 8192);
	ASSERT_GE(map_fd, 0);
	w.pre_map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, map_fd, 0);
	ASSERT_NE(MAP_FAILED, w.pre_map);
	close(map_fd);
	w.tid = (uint32_t)syscall(SYS_gettid);

	/* outside the syscall tracepoints' window: its writes are this thread's */
	optimized = kprobe_optimization(0);
	use_tracefs = tracefs_syscalls();
	if (use_tracefs)
		ASSERT_EQ(0, tracefs_set(w.tid, true));
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, FILEIO_FLAGS, workload, &w, &v));
	if (use_tracefs) {
		EXPECT_EQ(0, tracefs_set(w.tid, false));
		EXPECT_EQ(0, tracefs_count(&tc_writes, &tc_reads));
	}
	if (optimized >= 0)
		kprobe_optimization(optimized);
	EXPECT_EQ(0, w.errors);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);

	/* "data": its Create by this thread, the FileObject and its FileKey */
	for (i = 0; i < v.nops; i++)
		if (v.ops[i].hook == ETW_EVENT_FILEIO_CREATE_HOOK && v.ops[i].ttid == w.tid &&
		    !strcmp(v.ops[i].name, data)) {
			fobj = v.ops[i].file_object;
			t_open = v.ops[i].time;
		}
	ASSERT_NE(0, fobj) TH_LOG("no Create of %s", data);
	/* its life: a struct file freed may come back at the same address */
	for (i = 0; i < v.nops; i++)
		if (v.ops[i].hook == ETW_EVENT_FILEIO_CLOSE_HOOK && v.ops[i].file_object == fobj &&
		    v.ops[i].time >= t_open && v.ops[i].time < t_close)
			t_close = v.ops[i].time;
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_NAME_HOOK, fobj, data));

	for (i = 0; i < v.nops; i++) {
		const struct op *o = &v.ops[i];

		if (o->hook == ETW_EVENT_FILEIO_OP_END_HOOK)
			continue;
		/* every operation of the trace, whoever did it */
		if (!o->paired && o->ttid == w.tid)
			unpaired += o->hook == ETW_EVENT_FILEIO_READ_HOOK ||
				    o->hook == ETW_EVENT_FILEIO_WRITE_HOOK;
		/*
		 * Another process's Cleanup or Close may end a file it opened
		 * before the start and had already taken out of its descriptor
		 * table when the rundown walked it (its last reference dropped
		 * later): no record names that one. Any other operation must
		 * have its name.
		 */
		if (o->file_object && !name_of(&v, o->file_object, o->time) && o->ttid != w.tid &&
		    (o->hook == ETW_EVENT_FILEIO_CLOSE_HOOK ||
		     o->hook == ETW_EVENT_FILEIO_CLEANUP_HOOK)) {
			TH_LOG("thread %u's hook 0x%x of FileObject 0x%llx: a file the rundown did not see",
			       o->ttid, o->hook, (unsigned long long)o->file_object);
		} else if (o->file_object && !name_of(&v, o->file_object, o->time)) {
			if (!unnamed++)
				TH_LOG("FileObject 0x%llx of hook 0x%x (thread %u) has no name",
				       (unsigned long long)o->file_object, o->hook, o->ttid);
		}
		if (o->file_key && !name_of(&v, o->file_key, o->time)) {
			if (!unnamed++)
				TH_LOG("FileKey 0x%llx of hook 0x%x (thread %u) has no name",
				       (unsigned long long)o->file_key, o->hook, o->ttid);
		}
		if (o->hook == ETW_EVENT_FILEIO_DIR_ENUM_HOOK && o->ttid == w.tid) {
			dirs++;
			dir_fobj = o->file_object;
			/* getdents lists every entry: Windows' pattern "*" */
			EXPECT_STREQ("*", o->name);
		}
		if (o->file_object != fobj || o->time < t_open || o->time > t_close)
			continue;
		fkey = o->file_key ? o->file_key : fkey;
		switch (o->hook) {
		case ETW_EVENT_FILEIO_WRITE_HOOK:
			writes++;
			wbytes += o->size;
			offsets_w |= 1ull << (o->offset / CHUNK);
			EXPECT_EQ(o->size, o->moved);
			EXPECT_EQ(ETW_STATUS_SUCCESS, o->end_status);
			break;
		case ETW_EVENT_FILEIO_READ_HOOK:
			reads++;
			rbytes += o->size;
			/* the second pass of pread: served by the page cache */
			cache_pass += reads > NCHUNK && reads <= 2 * NCHUNK;
			EXPECT_EQ(o->size, o->moved);
			EXPECT_EQ(ETW_STATUS_SUCCESS, o->end_status);
			break;
		case ETW_EVENT_FILEIO_FLUSH_HOOK:
			flushes++;
			EXPECT_EQ(1, o->paired);
			break;
		case ETW_EVENT_FILEIO_CLEANUP_HOOK:
			cleanups++;
			break;
		case ETW_EVENT_FILEIO_CLOSE_HOOK:
			closes++;
			break;
		}
	}
	/* the rename and unlink of its FileKey */
	for (i = 0; i < v.nops; i++) {
		renames += v.ops[i].hook == ETW_EVENT_FILEIO_RENAME_HOOK && v.ops[i].file_key == fkey;
		deletes += v.ops[i].hook == ETW_EVENT_FILEIO_DELETE_HOOK && v.ops[i].file_key == fkey;
	}

	EXPECT_EQ(NCHUNK, writes);
	EXPECT_EQ((uint64_t)NCHUNK * CHUNK, wbytes);
	EXPECT_EQ((1ull << NCHUNK) - 1, offsets_w);
	EXPECT_EQ(2 * NCHUNK + 1, reads);
	EXPECT_EQ((uint64_t)2 * NCHUNK * CHUNK + 2 * CHUNK, rbytes);
	EXPECT_EQ(NCHUNK, cache_pass);
	EXPECT_EQ(0, unpaired);
	EXPECT_EQ(0, unnamed);
	EXPECT_EQ(1, flushes);
	EXPECT_EQ(1, cleanups);
	EXPECT_EQ(1, closes);
	EXPECT_NE(0, fkey);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_FILE_CREATE_HOOK, fkey, data));
	EXPECT_EQ(1, renames);
	EXPECT_EQ(1, deletes);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_NAME_HOOK, fkey, data))
		TH_LOG("no Name of the FileKey by its old path %s", data);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_NAME_HOOK, fkey, data2))
		TH_LOG("no Name of the FileKey by its new path %s", data2);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_FILE_DELETE_HOOK, fkey, data2));
	/* the listing's DirEnum, by this thread, and its directory's name */
	EXPECT_LE(1, dirs) TH_LOG("no DirEnum of %s by this thread", w.dir);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_NAME_HOOK, dir_fobj, w.dir));

	/* this thread's reads and writes, as the syscall tracepoints saw them */
	for (i = 0; i < v.nops; i++) {
		tid_writes += v.ops[i].hook == ETW_EVENT_FILEIO_WRITE_HOOK && v.ops[i].ttid == w.tid;
		tid_reads += v.ops[i].hook == ETW_EVENT_FILEIO_READ_HOOK && v.ops[i].ttid == w.tid;
	}
	EXPECT_EQ(NCHUNK, tid_writes);
	EXPECT_EQ(2 * NCHUNK + 2, tid_reads);
	if (use_tracefs) {
		EXPECT_EQ(tc_writes, tid_writes);
		EXPECT_EQ(tc_reads, tid_reads);
		TH_LOG("syscall tracepoints: %u writes, %u reads; ntkl: %u Write, %u Read",
		       tc_writes, tc_reads, tid_writes, tid_reads);
	} else {
		TH_LOG("no syscall tracepoints: the workload's own counts only");
	}

	/* the file opened before the start: named by the rundown alone */
	for (i = 0; i < v.nops; i++)
		if (v.ops[i].hook == ETW_EVENT_FILEIO_READ_HOOK && v.ops[i].ttid == w.tid &&
		    v.ops[i].size == PRE_READ)
			pre_fobj = v.ops[i].file_object;
	EXPECT_NE(0, pre_fobj);
	EXPECT_TRUE(has_name(&v, ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK, pre_fobj, pre));
	EXPECT_FALSE(has_name(&v, ETW_EVENT_FILEIO_NAME_HOOK, pre_fobj, NULL));
	/* the file only mapped: in the rundown too */
	for (i = 0; i < v.nnames; i++)
		mapped |= v.names[i].hook == ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK &&
			  !strcmp(v.names[i].path, premap);
	EXPECT_TRUE(mapped) TH_LOG("no FileRundown of %s", premap);
	TH_LOG("%u FileIo records: %u operations and ends, %u names", v.fileio_records, v.nops,
	       v.nnames);
	view_free(&v);
	munmap(w.pre_map, 8192);
	close(w.pre_fd);
	unlink(pre);
	unlink(premap);
	EXPECT_EQ(0, chdir("/"));
	rmdir(w.dir);
}

/*
 * The rundown alone (FILENAME, nothing done meanwhile), on every kernel,
 * kretprobes or not: a file open before the start and a file only mapped
 * are named at start and at stop, by FileObject and by FileKey.
 */
TEST_F(fileio, rundown_names_open_and_mapped_files)
{
	char dir[PATH_MAX], pre[PATH_MAX + 16], premap[PATH_MAX + 16];
	unsigned int i, pre_names = 0, map_names = 0;
	struct view v;
	void *map;
	int fd, map_fd;

	snprintf(dir, sizeof(dir), "/tmp/ntkl-fileio-rundown.%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	snprintf(pre, sizeof(pre), "%s/pre-open", dir);
	snprintf(premap, sizeof(premap), "%s/pre-map", dir);
	fd = make_file(pre, 4096);
	ASSERT_GE(fd, 0);
	map_fd = make_file(premap, 8192);
	ASSERT_GE(map_fd, 0);
	map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, map_fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	close(map_fd);

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_DISK_FILE_IO,
			    NULL, NULL, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);
	for (i = 0; i < v.nnames; i++) {
		if (v.names[i].hook != ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK)
			continue;
		pre_names += !strcmp(v.names[i].path, pre);
		map_names += !strcmp(v.names[i].path, premap);
	}
	/* its FileObject and its FileKey, at start and at stop */
	EXPECT_EQ(4, pre_names);
	EXPECT_EQ(4, map_names);
	/* no operation without FILE_IO_INIT and FILE_IO */
	EXPECT_EQ(0, v.nops);
	view_free(&v);
	munmap(map, 8192);
	close(fd);
	unlink(pre);
	unlink(premap);
	rmdir(dir);
}

/* Without FILE_IO, FILE_IO_INIT and FILENAME: no FileIo record at all. */
TEST_F(fileio, none_without_its_flags)
{
	struct workload w = { 0 };
	struct view v;

	snprintf(w.dir, sizeof(w.dir), "/tmp/ntkl-fileio-none.%d", getpid());
	ASSERT_EQ(0, mkdir(w.dir, 0755));
	ASSERT_EQ(0, chdir(w.dir));
	w.pre_fd = make_file("pre-open", 4096);
	ASSERT_GE(w.pre_fd, 0);
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader,
			    EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, workload, &w, &v));
	EXPECT_EQ(0, v.fileio_records);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	view_free(&v);
	close(w.pre_fd);
	unlink("pre-open");
	EXPECT_EQ(0, chdir("/"));
	rmdir(w.dir);
}

/*
 * sendfile, copy_file_range and splice of a file of BIG bytes, each from
 * an open of "src" of its own into a file of its own: each copy gives
 * Reads of its open of "src" and Writes of its destination whose
 * OperationEnds moved BIG bytes each way, once (no path counted twice),
 * at offsets that follow one another from 0.
 */
#define BIG		(16u << 20)
#define SPLICE_CHUNK	(64u << 10)

enum copy_kind { BY_SENDFILE, BY_COPY_FILE_RANGE, BY_SPLICE, NKINDS };

static const char *const copy_names[NKINDS] = { "sendfile", "copy_file_range", "splice" };
static const char *const copy_dst[NKINDS] = { "dst-sendfile", "dst-cfr", "dst-splice" };

struct copies {
	char dir[PATH_MAX];
	uint32_t tid;
	int errors;
	size_t moved[NKINDS];
};

static size_t copy_once(enum copy_kind k, int in, int out)
{
	loff_t off_in = 0, off_out = 0;
	size_t done = 0;
	int pfd[2];
	ssize_t n, m;

	if (k == BY_SPLICE && pipe(pfd))
		return 0;
	while (done < BIG) {
		switch (k) {
		case BY_SENDFILE:
			n = sendfile(out, in, &off_in, BIG - done);
			break;
		case BY_COPY_FILE_RANGE:
			n = copy_file_range(in, &off_in, out, &off_out, BIG - done, 0);
			break;
		default:
			n = splice(in, &off_in, pfd[1], NULL, SPLICE_CHUNK, 0);
			for (m = 0; n > 0 && m < n;) {
				ssize_t w = splice(pfd[0], NULL, out, &off_out, n - m, 0);

				if (w <= 0)
					break;
				m += w;
			}
			n = n > 0 && m != n ? -1 : n;
			break;
		}
		if (n <= 0)
			break;
		done += n;
	}
	if (k == BY_SPLICE) {
		close(pfd[0]);
		close(pfd[1]);
	}
	return done;
}

static void copies_workload(void *arg)
{
	struct copies *c = arg;
	unsigned int k;
	int in, out;

	for (k = 0; k < NKINDS; k++) {
		in = open("src", O_RDONLY);
		out = open(copy_dst[k], O_CREAT | O_WRONLY | O_TRUNC, 0644);
		c->errors += in < 0 || out < 0;
		c->moved[k] = copy_once(k, in, out);
		close(in);
		close(out);
	}
}

/* An open's life: a struct file freed may come back at the same address. */
struct life {
	uint64_t fobj;
	int64_t from, to;
};

/* This thread's n-th open of path (FileObject 0: none), from its Create to its Close. */
static struct life created(const struct view *v, uint32_t tid, const char *path, unsigned int nth)
{
	struct life l = { 0, 0, INT64_MAX };
	unsigned int i;

	for (i = 0; i < v->nops && !l.fobj; i++)
		if (v->ops[i].hook == ETW_EVENT_FILEIO_CREATE_HOOK && v->ops[i].ttid == tid &&
		    !strcmp(v->ops[i].name, path) && !nth--) {
			l.fobj = v->ops[i].file_object;
			l.from = v->ops[i].time;
		}
	for (; i < v->nops && l.fobj; i++)
		if (v->ops[i].hook == ETW_EVENT_FILEIO_CLOSE_HOOK &&
		    v->ops[i].file_object == l.fobj) {
			l.to = v->ops[i].time;
			break;
		}
	return l;
}

/*
 * The bytes hook's records of fobj moved (their OperationEnds' ExtraInfo),
 * each paired with STATUS_SUCCESS and at the offset the one before it
 * ended at, from 0; *bad counts those that were not.
 */
static uint64_t moved_by(struct __test_metadata *_metadata, const struct view *v, uint16_t hook,
			 struct life l, unsigned int *count, unsigned int *bad)
{
	uint64_t sum = 0;
	unsigned int i;

	*count = 0;
	for (i = 0; i < v->nops; i++) {
		const struct op *o = &v->ops[i];

		if (o->hook != hook || o->file_object != l.fobj || o->time < l.from ||
		    o->time > l.to)
			continue;
		(*count)++;
		if (o->paired != 1 || o->end_status != ETW_STATUS_SUCCESS || o->offset != sum ||
		    o->moved > o->size) {
			if (!(*bad)++)
				TH_LOG("hook 0x%x at %llu of %u bytes: paired %d, status 0x%x, "
				       "moved %llu, after %llu", hook,
				       (unsigned long long)o->offset, o->size, o->paired,
				       o->end_status, (unsigned long long)o->moved,
				       (unsigned long long)sum);
		}
		sum += o->moved;
	}
	return sum;
}

TEST_F_TIMEOUT(fileio, sendfile_splice_copy_known_sizes, 600)
{
	char src[PATH_MAX + 8], path[PATH_MAX + 32];
	const char *base = getenv("NTKL_SCRATCH");
	struct copies c = { 0 };
	unsigned int k, nr, nw, bad = 0;
	struct life in_obj, out_obj;
	uint64_t rd, wr;
	struct view v;
	int fd;

	if (!kernel_has_kprobes())
		SKIP(return, "this kernel has no kretprobes: ntkl cannot see the VFS");
	snprintf(c.dir, sizeof(c.dir), "%s/ntkl-fileio-copy.%d", base && *base ? base : "/tmp",
		 getpid());
	ASSERT_EQ(0, mkdir(c.dir, 0755));
	ASSERT_EQ(0, chdir(c.dir));
	snprintf(src, sizeof(src), "%s/src", c.dir);
	fd = make_file(src, BIG);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	c.tid = (uint32_t)syscall(SYS_gettid);

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, FILEIO_FLAGS, copies_workload, &c,
			    &v));
	EXPECT_EQ(0, c.errors);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);

	for (k = 0; k < NKINDS; k++) {
		EXPECT_EQ(BIG, c.moved[k]) TH_LOG("%s moved %zu bytes", copy_names[k], c.moved[k]);
		in_obj = created(&v, c.tid, src, k);
		snprintf(path, sizeof(path), "%s/%s", c.dir, copy_dst[k]);
		out_obj = created(&v, c.tid, path, 0);
		ASSERT_NE(0, in_obj.fobj) TH_LOG("no Create of %s for %s", src, copy_names[k]);
		ASSERT_NE(0, out_obj.fobj) TH_LOG("no Create of %s", path);
		rd = moved_by(_metadata, &v, ETW_EVENT_FILEIO_READ_HOOK, in_obj, &nr, &bad);
		wr = moved_by(_metadata, &v, ETW_EVENT_FILEIO_WRITE_HOOK, out_obj, &nw, &bad);
		TH_LOG("%s: %u Read of %llu bytes, %u Write of %llu bytes", copy_names[k], nr,
		       (unsigned long long)rd, nw, (unsigned long long)wr);
		EXPECT_EQ(BIG, rd) TH_LOG("%s: the Reads of src", copy_names[k]);
		EXPECT_EQ(BIG, wr) TH_LOG("%s: the Writes of %s", copy_names[k], copy_dst[k]);
		/* nothing the other way */
		EXPECT_EQ(0, moved_by(_metadata, &v, ETW_EVENT_FILEIO_WRITE_HOOK, in_obj, &nw, &bad));
		EXPECT_EQ(0, moved_by(_metadata, &v, ETW_EVENT_FILEIO_READ_HOOK, out_obj, &nr, &bad));
	}
	EXPECT_EQ(0, bad);
	view_free(&v);
	unlink(src);
	for (k = 0; k < NKINDS; k++)
		unlink(copy_dst[k]);
	EXPECT_EQ(0, chdir("/"));
	rmdir(c.dir);
}

/*
 * AIO: "src" (BIG bytes) read by io_submit in AIO_CHUNK requests, one in
 * flight at a time, then written so into "dst-aio" (O_DIRECT where the
 * file system has it: completed later, elsewhere), and the last chunk
 * read again by a vectored request: the Reads of the open of "src" and the
 * Writes of "dst-aio" moved BIG bytes each (and the vectored one its two
 * iovecs), each paired with the completion's OperationEnd (IrpPtr: the
 * request), at offsets that follow one another from 0.
 */
#define AIO_CHUNK	(1u << 20)

struct aio_work {
	int errors;
	bool direct;
	size_t read, written, readv;
};

static int aio_one(aio_context_t ctx, int fd, uint16_t op, void *buf, uint64_t len,
		   uint64_t off)
{
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev;

	cb.aio_fildes = fd;
	cb.aio_lio_opcode = op;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1 ||
	    syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
		return -1;
	return (int)ev.res;
}

static void aio_workload(void *arg)
{
	struct aio_work *a = arg;
	aio_context_t ctx = 0;
	/* page aligned, as O_DIRECT wants */
	char *buf = aligned_alloc(4096, BIG);
	struct iovec iov[2];
	unsigned int i;
	int in, out, r;

	in = open("src", O_RDONLY);
	/* direct where the file system can: completed later, elsewhere */
	out = open("dst-aio", O_CREAT | O_WRONLY | O_TRUNC | O_DIRECT, 0644);
	a->direct = out >= 0;
	if (out < 0)
		out = open("dst-aio", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (!buf || in < 0 || out < 0 || syscall(SYS_io_setup, 4, &ctx)) {
		a->errors++;
		goto out;
	}
	for (i = 0; i < BIG / AIO_CHUNK; i++) {
		r = aio_one(ctx, in, IOCB_CMD_PREAD, buf + i * AIO_CHUNK, AIO_CHUNK,
			    (uint64_t)i * AIO_CHUNK);
		a->read += r > 0 ? r : 0;
	}
	for (i = 0; i < BIG / AIO_CHUNK; i++) {
		r = aio_one(ctx, out, IOCB_CMD_PWRITE, buf + i * AIO_CHUNK, AIO_CHUNK,
			    (uint64_t)i * AIO_CHUNK);
		a->written += r > 0 ? r : 0;
	}
	iov[0] = (struct iovec){ buf, AIO_CHUNK / 2 };
	iov[1] = (struct iovec){ buf + AIO_CHUNK / 2, AIO_CHUNK / 2 };
	r = aio_one(ctx, in, IOCB_CMD_PREADV, iov, 2, BIG);
	a->readv = r;		/* at the end of the file: 0 */
	syscall(SYS_io_destroy, ctx);
out:
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

TEST_F_TIMEOUT(fileio, aio_known_sizes, 600)
{
	char src[PATH_MAX + 8], dst[PATH_MAX + 16], dir[PATH_MAX];
	const char *base = getenv("NTKL_SCRATCH");
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct aio_work a = { 0 };
	aio_context_t ctx = 0;
	struct life in_obj, out_obj;
	unsigned int i, nr, nw, bad = 0, vec = 0;
	uint64_t rd, wr;
	struct view v;
	int fd;

	if (!kernel_has_kprobes())
		SKIP(return, "this kernel has no kretprobes: ntkl cannot see the VFS");
	if (syscall(SYS_io_setup, 1, &ctx) && errno == ENOSYS)
		SKIP(return, "this kernel has no AIO (CONFIG_AIO)");
	syscall(SYS_io_destroy, ctx);
	snprintf(dir, sizeof(dir), "%s/ntkl-fileio-aio.%d", base && *base ? base : "/tmp",
		 getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, chdir(dir));
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst-aio", dir);
	fd = make_file(src, BIG);
	ASSERT_GE(fd, 0);
	close(fd);

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, FILEIO_FLAGS, aio_workload, &a,
			    &v));
	EXPECT_EQ(0, a.errors);
	EXPECT_EQ(BIG, a.read);
	EXPECT_EQ(BIG, a.written);
	EXPECT_EQ(0, a.readv);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);
	in_obj = created(&v, tid, src, 0);
	out_obj = created(&v, tid, dst, 0);
	ASSERT_NE(0, in_obj.fobj);
	ASSERT_NE(0, out_obj.fobj);
	/* the vectored read: at BIG, the sum of its iovecs, 0 bytes moved */
	for (i = 0; i < v.nops; i++)
		if (v.ops[i].hook == ETW_EVENT_FILEIO_READ_HOOK &&
		    v.ops[i].file_object == in_obj.fobj && v.ops[i].offset == BIG &&
		    v.ops[i].time >= in_obj.from && v.ops[i].time <= in_obj.to) {
			vec++;
			EXPECT_EQ(AIO_CHUNK, v.ops[i].size);
			EXPECT_EQ(1, v.ops[i].paired);
			EXPECT_EQ(0, v.ops[i].moved);
		}
	EXPECT_EQ(1, vec);
	rd = moved_by(_metadata, &v, ETW_EVENT_FILEIO_READ_HOOK, in_obj, &nr, &bad);
	wr = moved_by(_metadata, &v, ETW_EVENT_FILEIO_WRITE_HOOK, out_obj, &nw, &bad);
	TH_LOG("aio: %u Read of %llu bytes, %u Write of %llu bytes%s", nr,
	       (unsigned long long)rd, nw, (unsigned long long)wr, a.direct ? " (direct)" : "");
	EXPECT_EQ(BIG, rd);
	EXPECT_EQ(BIG, wr);
	EXPECT_EQ(BIG / AIO_CHUNK + 1, nr);
	EXPECT_EQ(BIG / AIO_CHUNK, nw);
	EXPECT_EQ(0, bad);
	view_free(&v);
	unlink(src);
	unlink(dst);
	EXPECT_EQ(0, chdir("/"));
	rmdir(dir);
}

/*
 * io_uring (raw system calls, no liburing): "src" (BIG bytes, out of the
 * page cache) read by IORING_OP_READ in URING_CHUNK requests, URING_DEPTH
 * submitted at once, then written so into "dst-uring" with IORING_OP_WRITE
 * (a buffered write the file system may not do without blocking: issued
 * again from an io-wq worker). Each request is one Read or Write of
 * URING_CHUNK by this thread (its submitter), however often io_uring
 * issued it, paired with one OperationEnd of URING_CHUNK bytes.
 */
#define URING_CHUNK	(64u << 10)
#define URING_DEPTH	4

struct uring {
	int fd;
	unsigned int entries;
	struct io_uring_sqe *sqes;
	void *sq, *cq;
	size_t sq_len, cq_len, sqes_len;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static int uring_setup(struct uring *u, unsigned int entries)
{
	struct io_uring_params p = { 0 };

	memset(u, 0, sizeof(*u));
	u->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (u->fd < 0)
		return -1;
	u->entries = p.sq_entries;
	u->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	u->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	u->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		     IORING_OFF_SQ_RING);
	u->cq = mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		     IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       u->fd, IORING_OFF_SQES);
	if (u->sq == MAP_FAILED || u->cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_tail = (unsigned int *)((char *)u->sq + p.sq_off.tail);
	u->sq_mask = (unsigned int *)((char *)u->sq + p.sq_off.ring_mask);
	u->sq_array = (unsigned int *)((char *)u->sq + p.sq_off.array);
	u->cq_head = (unsigned int *)((char *)u->cq + p.cq_off.head);
	u->cq_tail = (unsigned int *)((char *)u->cq + p.cq_off.tail);
	u->cq_mask = (unsigned int *)((char *)u->cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)((char *)u->cq + p.cq_off.cqes);
	return 0;
}

static void uring_close(struct uring *u)
{
	if (u->sq && u->sq != MAP_FAILED)
		munmap(u->sq, u->sq_len);
	if (u->cq && u->cq != MAP_FAILED)
		munmap(u->cq, u->cq_len);
	if (u->sqes && u->sqes != MAP_FAILED)
		munmap(u->sqes, u->sqes_len);
	if (u->fd >= 0)
		close(u->fd);
}

/* n requests of op, chunk i from first; the bytes each moved added to *moved */
static int uring_batch(struct uring *u, uint8_t op, int fd, char *buf, unsigned int first,
		       unsigned int n, size_t *moved)
{
	unsigned int tail = *u->sq_tail, head, i;

	for (i = 0; i < n; i++, tail++) {
		unsigned int slot = tail & *u->sq_mask;
		struct io_uring_sqe *sqe = &u->sqes[slot];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = op;
		sqe->fd = fd;
		sqe->addr = (uint64_t)(uintptr_t)(buf + (size_t)(first + i) * URING_CHUNK);
		sqe->len = URING_CHUNK;
		sqe->off = (uint64_t)(first + i) * URING_CHUNK;
		sqe->user_data = first + i;
		u->sq_array[slot] = slot;
	}
	__atomic_store_n(u->sq_tail, tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0) != (long)n)
		return -1;
	head = *u->cq_head;
	for (i = 0; i < n; i++, head++) {
		const struct io_uring_cqe *cqe;

		while (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
			if (syscall(__NR_io_uring_enter, u->fd, 0, 1, IORING_ENTER_GETEVENTS,
				    NULL, 0) < 0)
				return -1;
		cqe = &u->cqes[head & *u->cq_mask];
		*moved += cqe->res > 0 ? cqe->res : 0;
	}
	__atomic_store_n(u->cq_head, head, __ATOMIC_RELEASE);
	return 0;
}

struct uring_work {
	int errors;
	size_t read, written;
};

static void uring_workload(void *arg)
{
	struct uring_work *w = arg;
	char *buf = aligned_alloc(4096, BIG);
	struct uring u;
	unsigned int i;
	int in, out;

	in = open("src", O_RDONLY);
	out = open("dst-uring", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (!buf || in < 0 || out < 0 || uring_setup(&u, URING_DEPTH)) {
		w->errors++;
		goto out;
	}
	for (i = 0; i < BIG / URING_CHUNK; i += URING_DEPTH)
		if (uring_batch(&u, IORING_OP_READ, in, buf, i, URING_DEPTH, &w->read))
			w->errors++;
	for (i = 0; i < BIG / URING_CHUNK; i += URING_DEPTH)
		if (uring_batch(&u, IORING_OP_WRITE, out, buf, i, URING_DEPTH, &w->written))
			w->errors++;
	uring_close(&u);
out:
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* The Reads or Writes of one open, URING_CHUNK each, by tid: how many were not. */
static unsigned int uring_odd(struct __test_metadata *_metadata, const struct view *v,
			      uint16_t hook, struct life l, uint32_t tid)
{
	unsigned int i, odd = 0;

	for (i = 0; i < v->nops; i++) {
		const struct op *o = &v->ops[i];

		if (o->hook != hook || o->file_object != l.fobj || o->time < l.from ||
		    o->time > l.to)
			continue;
		if (o->size != URING_CHUNK || o->moved != URING_CHUNK || o->ttid != tid) {
			if (!odd++)
				TH_LOG("hook 0x%x at %llu: %u bytes, moved %llu, by %u",
				       hook, (unsigned long long)o->offset, o->size,
				       (unsigned long long)o->moved, o->ttid);
		}
	}
	return odd;
}

TEST_F_TIMEOUT(fileio, io_uring_known_sizes, 600)
{
	char src[PATH_MAX + 8], dst[PATH_MAX + 16], dir[PATH_MAX];
	const char *base = getenv("NTKL_SCRATCH");
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct uring_work w = { 0 };
	struct io_uring_params p = { 0 };
	struct life in_obj, out_obj;
	unsigned int nr, nw, bad = 0;
	uint64_t rd, wr;
	struct view v;
	int fd;

	if (!kernel_has_kprobes())
		SKIP(return, "this kernel has no kretprobes: ntkl cannot see the VFS");
	fd = (int)syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		SKIP(return, "this kernel has no io_uring (CONFIG_IO_URING, or io_uring_disabled)");
	ASSERT_GE(fd, 0);
	close(fd);
	snprintf(dir, sizeof(dir), "%s/ntkl-fileio-uring.%d", base && *base ? base : "/tmp",
		 getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, chdir(dir));
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst-uring", dir);
	fd = make_file(src, BIG);
	ASSERT_GE(fd, 0);
	/* out of the page cache: reads that wait for the disk, retried */
	ASSERT_EQ(0, fsync(fd));
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, FILEIO_FLAGS, uring_workload, &w,
			    &v));
	EXPECT_EQ(0, w.errors);
	EXPECT_EQ(BIG, w.read);
	EXPECT_EQ(BIG, w.written);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);
	in_obj = created(&v, tid, src, 0);
	out_obj = created(&v, tid, dst, 0);
	ASSERT_NE(0, in_obj.fobj);
	ASSERT_NE(0, out_obj.fobj);
	rd = moved_by(_metadata, &v, ETW_EVENT_FILEIO_READ_HOOK, in_obj, &nr, &bad);
	wr = moved_by(_metadata, &v, ETW_EVENT_FILEIO_WRITE_HOOK, out_obj, &nw, &bad);
	TH_LOG("io_uring: %u Read of %llu bytes, %u Write of %llu bytes", nr,
	       (unsigned long long)rd, nw, (unsigned long long)wr);
	EXPECT_EQ(BIG, rd);
	EXPECT_EQ(BIG, wr);
	EXPECT_EQ(BIG / URING_CHUNK, nr);
	EXPECT_EQ(BIG / URING_CHUNK, nw);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, uring_odd(_metadata, &v, ETW_EVENT_FILEIO_READ_HOOK, in_obj, tid));
	EXPECT_EQ(0, uring_odd(_metadata, &v, ETW_EVENT_FILEIO_WRITE_HOOK, out_obj, tid));
	view_free(&v);
	unlink(src);
	unlink(dst);
	EXPECT_EQ(0, chdir("/"));
	rmdir(dir);
}

/*
 * Opens of a name that is not there, absolute and relative: each a Create
 * of its path by this thread, FileObject 0, whose OperationEnd says
 * STATUS_OBJECT_NAME_NOT_FOUND; an open that succeeds, one Create whose
 * OperationEnd says STATUS_SUCCESS (vfs_open()'s, not a second).
 */
struct opens {
	char dir[PATH_MAX];
	int abs_errno, rel_errno, ok_fd;
};

static void opens_workload(void *arg)
{
	struct opens *o = arg;
	char missing[PATH_MAX + 16];
	int fd;

	snprintf(missing, sizeof(missing), "%s/missing", o->dir);
	errno = 0;
	fd = open(missing, O_RDONLY);
	o->abs_errno = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = open("missing-rel", O_RDONLY);
	o->rel_errno = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	o->ok_fd = open("there", O_RDONLY);
	if (o->ok_fd >= 0)
		close(o->ok_fd);
}

/* This thread's Creates of path: how many, and the OperationEnd status of each. */
static unsigned int creates_of(const struct view *v, uint32_t tid, const char *path,
			       uint32_t *status, uint64_t *fobj)
{
	unsigned int i, n = 0;

	for (i = 0; i < v->nops; i++) {
		const struct op *o = &v->ops[i];

		if (o->hook != ETW_EVENT_FILEIO_CREATE_HOOK || o->ttid != tid ||
		    strcmp(o->name, path))
			continue;
		n++;
		*status = o->paired == 1 ? o->end_status : 0xffffffffu;
		*fobj = o->file_object;
	}
	return n;
}

TEST_F(fileio, failed_open_has_create_and_status)
{
	char path[PATH_MAX + 32];
	struct opens o = { 0 };
	uint32_t tid = (uint32_t)syscall(SYS_gettid), status = 0;
	uint64_t fobj = 0;
	struct view v;
	int fd;

	if (!kernel_has_kprobes())
		SKIP(return, "this kernel has no kretprobes: ntkl cannot see the VFS");
	snprintf(o.dir, sizeof(o.dir), "/tmp/ntkl-fileio-open.%d", getpid());
	ASSERT_EQ(0, mkdir(o.dir, 0755));
	ASSERT_EQ(0, chdir(o.dir));
	fd = make_file("there", 4096);
	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, FILEIO_FLAGS, opens_workload, &o,
			    &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.lost);
	EXPECT_EQ(ENOENT, o.abs_errno);
	EXPECT_EQ(ENOENT, o.rel_errno);
	EXPECT_LE(0, o.ok_fd);

	snprintf(path, sizeof(path), "%s/missing", o.dir);
	EXPECT_EQ(1, creates_of(&v, tid, path, &status, &fobj)) TH_LOG("Creates of %s", path);
	EXPECT_EQ(ETW_STATUS_OBJECT_NAME_NOT_FOUND, status);
	EXPECT_EQ(0, fobj);
	snprintf(path, sizeof(path), "%s/missing-rel", o.dir);
	EXPECT_EQ(1, creates_of(&v, tid, path, &status, &fobj)) TH_LOG("Creates of %s", path);
	EXPECT_EQ(ETW_STATUS_OBJECT_NAME_NOT_FOUND, status);
	EXPECT_EQ(0, fobj);
	snprintf(path, sizeof(path), "%s/there", o.dir);
	EXPECT_EQ(1, creates_of(&v, tid, path, &status, &fobj)) TH_LOG("Creates of %s", path);
	EXPECT_EQ(ETW_STATUS_SUCCESS, status);
	EXPECT_NE(0, fobj);

	view_free(&v);
	unlink("there");
	EXPECT_EQ(0, chdir("/"));
	rmdir(o.dir);
}

TEST_HARNESS_MAIN
