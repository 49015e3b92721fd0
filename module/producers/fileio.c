// SPDX-License-Identifier: GPL-2.0
/*
 * FileIo events (group 0x04): what each process does to which file, the
 * reads and writes the page cache serves too, for WPA's File I/O view.
 *
 *   FILENAME (EVENT_TRACE_FLAG_DISK_FILE_IO)  the names: Name keyed by a
 *             FileObject and FileCreate keyed by its FileKey at each open;
 *             Name of a FileKey renamed, FileDelete of one unlinked;
 *             FileRundown of every file open (an fd or a mapping) in every
 *             process, keyed by FileObject and by FileKey, at start and stop
 *   FILE_IO_INIT  the operations as they begin: Create, Read, Write,
 *             Cleanup, Close, Flush, SetInfo, Delete, Rename, DirEnum
 *   FILE_IO   their completions: OperationEnd, the status and (read,
 *             write) the bytes moved
 *
 * FileObject is the struct file (one per open), FileKey its inode (one per
 * file), IrpPtr the kretprobe instance of the call (one per operation in
 * flight); all three hashed for readers that may not see kernel addresses.
 *
 * Linux has no tracepoint in the VFS's read and write paths, and the
 * syscalls' tracepoints see no file. So the VFS functions are probed with
 * kretprobes (an entry handler writes the operation, the return handler
 * its OperationEnd): vfs_read, vfs_write, vfs_readv, vfs_writev (read(2),
 * pread64, readv, preadv and their writes, served by the page cache or
 * not), vfs_open, filp_flush (6.12; filp_close before: close(2) of an fd),
 * __fput (the last reference to a struct file gone), vfs_fsync_range,
 * notify_change, vfs_unlink, vfs_rename, iterate_dir; do_filp_open (an
 * open that failed); do_splice_direct, splice_file_range (6.8),
 * splice_file_to_pipe and do_splice (sendfile, copy_file_range, splice:
 * each path through one of them only); aio_read, aio_write and
 * aio_complete_rw (io_submit's requests); and io_uring's tracepoints
 * io_uring_submit_sqe (io_uring_submit_req from 6.3) and
 * io_uring_complete (its reads and writes, which pass through none of
 * these). They are registered while a
 * running logger takes FileIo events (attach, process context)
 * and unregistered when none does (detach), never per event; those of
 * the reads, writes and the rest only for FILE_IO_INIT or FILE_IO; a call
 * the kprobes machinery misses (an instance pool empty, a probe hit
 * inside another) is counted as a lost event (nmissed) for each logger
 * that takes FileIo (a tracepoint's probe misses nothing).
 * docs/linux-to-nt.md ("File I/O") says what is not seen: io_uring's
 * requests on registered files, kernel-internal reads.
 *
 * Only files a user reaches by a path are reported: regular files,
 * directories and block devices on a mount that is not the kernel's own
 * (pipes, sockets, anonymous inodes, memfds are not FileIo).
 *
 * Handlers run with preemption off and never sleep: a path is formed with
 * d_path() (or dentry_path_raw()) into one buffer per CPU (a kprobe
 * handler never runs inside another on its CPU), and nothing is
 * allocated. They take no lock of their own; the kernel's path walk
 * reads rename_lock and mount_lock as seqlocks, and only when a rename or
 * a mount change raced its first pass does it take their spinlocks for a
 * second (read_seqbegin_or_lock()), as any d_path() caller may. That is
 * safe here: a handler runs in the task that made the VFS call, at its
 * entry or return, where no one on this CPU holds either spinlock (the
 * probed functions may sleep, so none is called under one), and an entry
 * handler run as an NMI forms no path (fio_late()). On PREEMPT_RT a
 * spinlock sleeps and this would not hold; ntkl is not tested there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/aio_abi.h>
#include <linux/dcache.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/fdtable.h>
#include <linux/hash.h>
#include <linux/io_uring_types.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <trace/events/io_uring.h>

#include "control/fault.h"
#include "ntkl.h"
#include "format/ntstatus.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/ntsched.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"

/* Does any logger of the set take a FileIo event? */
static bool fio_any_on(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_FILEIO_NAME) ||
	       ntkl_event_on(lg, ETW_EVENT_FILEIO_CREATE) ||
	       ntkl_event_on(lg, ETW_EVENT_FILEIO_OP_END);
}

/* A file FileIo reports: one a user reaches by a path (see the top). */
static bool fio_inode_ok(const struct inode *inode)
{
	return inode && (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) ||
			 S_ISBLK(inode->i_mode));
}

static bool fio_file_ok(const struct file *file)
{
	return file && (file->f_mode & FMODE_OPENED) && file->f_path.mnt &&
	       !(file->f_path.mnt->mnt_flags & MNT_INTERNAL) && fio_inode_ok(file_inode(file));
}

static __always_inline u64 fio_key(const void *p)
{
	return (u64)(unsigned long)p;
}

/* ---------------------------------------------------------------------- */
/* Names                                                                   */
/* ---------------------------------------------------------------------- */

/* One name record: key, then the path as UTF-16 (units without the NUL). */
static void write_name(struct ntkl_logger *lg, enum etw_event_id id, u64 key, const char *path,
		       size_t units)
{
	struct etw_fileio_name *p;
	struct ntkl_record rec;

	p = ntkl_begin_FILEIO_NAME(lg, &rec, id, sizeof(*p) + (units + 1) * 2);
	if (!p)
		return;
	p->file_object = key;
	ntkl_put_utf16((u8 *)(p + 1), path, PATH_MAX);
	ntkl_record_end(&rec);
}

/* A path's text: d_path(), or the last part of the name if that fails. */
static const char *fio_path(const struct path *path, char *buf, size_t len)
{
	const char *s = d_path(path, buf, len);

	return IS_ERR(s) ? (const char *)path->dentry->d_name.name : s;
}

#ifdef CONFIG_KRETPROBES

/*
 * The thread doing the operation. Not in_task() ? ... : 0: a kprobe still
 * on its breakpoint (a kernel whose kprobes do not ride on ftrace, before
 * the optimizer has made the breakpoint a jump, or for good if it cannot)
 * runs its handler as an NMI, while the probed VFS call runs in a task,
 * always: there in_task() is false and the thread was written as 0.
 */
static __always_inline u32 fio_ttid(void)
{
	return task_pid_nr(current);
}

/*
 * The path of a dentry met without its mount (unlink, rename, a change of
 * attributes by path): through the caller's working directory's or root's
 * mount if the dentry's file system is theirs, else from its file
 * system's root (docs/linux-to-nt.md).
 */
static const char *fio_dentry_path(struct dentry *dentry, char *buf, size_t len)
{
	struct fs_struct *fs = current->fs;
	struct vfsmount *mnt = NULL;
	const char *s;

	if (fs && !(current->flags & PF_KTHREAD)) {
		struct vfsmount *pwd = READ_ONCE(fs->pwd.mnt), *root = READ_ONCE(fs->root.mnt);

		if (pwd && pwd->mnt_sb == dentry->d_sb)
			mnt = pwd;
		else if (root && root->mnt_sb == dentry->d_sb)
			mnt = root;
	}
	if (mnt) {
		struct path p = { .mnt = mnt, .dentry = dentry };

		s = d_path(&p, buf, len);
		/* named after its unlink (fio_late()): the name it had */
		if (!IS_ERR(s) && d_unlinked(dentry)) {
			size_t n = strlen(s), tail = strlen(" (deleted)");

			if (n > tail && !strcmp(s + n - tail, " (deleted)"))
				buf[s - buf + n - tail] = 0;
		}
	} else {
		s = dentry_path_raw(dentry, buf, len);
	}
	return IS_ERR(s) ? (const char *)dentry->d_name.name : s;
}

/*
 * Each handler's path buffer: a kprobe handler never nests on its CPU.
 * Allocated at load (a module's static per-CPU space is a few KiB).
 */
static char __percpu *fio_path_buf;

static __always_inline char *fio_buf(void)
{
	return this_cpu_ptr(fio_path_buf);
}

/* A name to every logger of the set that takes names. */
static void names_each(struct ntkl_logger **loggers, unsigned int n, enum etw_event_id id,
		       u64 key, const char *path)
{
	size_t units = 0;
	unsigned int i;
	bool measured = false;

	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], id))
			continue;
		if (!measured) {
			units = ntkl_utf16_len(path, PATH_MAX);
			measured = true;
		}
		write_name(loggers[i], id, key, path, units);
	}
}

/* ---------------------------------------------------------------------- */
/* The operations                                                          */
/* ---------------------------------------------------------------------- */

/* What an entry handler leaves its return handler. */
struct fio_data {
	union {
		struct file *file;
		struct dentry *dentry;
	};
	u64 file_key;
	bool read_bytes;	/* ExtraInfo: the bytes moved */
	bool second;		/* a Write after a Read, by fio_irp2(): its end too */
	u16 late_name;		/* 0, or the name record of dentry left to the return */
};

/*
 * A kprobe still on its breakpoint (a kernel whose kprobes do not ride on
 * ftrace, until the optimizer makes the breakpoint a jump, or for good
 * if it cannot) runs the entry handler as an NMI, though the VFS call is
 * a task's. d_path()'s seqlocks are not for an NMI (lockdep says so): an
 * entry handler running as one leaves a path to the return handler,
 * which runs in the task. The name then follows its operation.
 */
/* vfs_rename's: its old name, when formed at return (rename_entry()) */
struct fio_rename_data {
	struct fio_data d;
	struct dentry *old_parent;
	char old_name[NAME_MAX + 1];
};

static __always_inline bool fio_late(struct fio_data *d, struct dentry *dentry, u64 key,
				     enum etw_event_id id)
{
	if (!in_nmi())
		return false;
	d->dentry = dentry;
	d->file_key = key;
	d->late_name = id;
	return true;
}

static __always_inline u64 fio_irp(struct kretprobe_instance *ri)
{
	return fio_key(ri);
}

/*
 * The second operation of a call that does two (sendfile's Read of one
 * file and Write of another): an address inside the instance, unique as
 * the instance is.
 */
static __always_inline u64 fio_irp2(struct kretprobe_instance *ri)
{
	return fio_key((const u8 *)ri + 1);
}

/* An instance's data is not zeroed: each entry handler begins with this. */
static __always_inline struct fio_data *fio_data(struct kretprobe_instance *ri)
{
	struct fio_data *d = (void *)ri->data;

	d->read_bytes = false;
	d->second = false;
	d->late_name = 0;
	return d;
}

/*
 * The loggers of the operation's records: 0 if none. *end: does one take
 * its OperationEnd (else the return handler is skipped)?
 */
static __always_inline unsigned int fio_loggers(struct ntkl_logger ***loggers, bool *end)
{
	unsigned int i, n = ntkl_active_loggers(loggers);

	*end = false;
	for (i = 0; i < n; i++)
		if (ntkl_event_on((*loggers)[i], ETW_EVENT_FILEIO_OP_END))
			*end = true;
	return n;
}

/* The return handler of every operation: OperationEnd. */
static int op_end(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_data *d = (void *)ri->data;
	long ret = (long)regs_return_value(regs);
	struct etw_fileio_op_end e = {
		.irp_ptr = fio_irp(ri),
		.extra_info = d->read_bytes && ret > 0 ? ret : 0,
		.nt_status = ntkl_ntstatus(ret),
	};
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	if (d->late_name)
		names_each(loggers, n, d->late_name, d->file_key,
			   fio_dentry_path(d->dentry, fio_buf(), PATH_MAX));
	ntkl_record_each(loggers, n, ETW_EVENT_FILEIO_OP_END, &e, ETW_FILEIO_OP_END_SIZE);
	if (d->second) {
		e.irp_ptr = fio_irp2(ri);
		ntkl_record_each(loggers, n, ETW_EVENT_FILEIO_OP_END, &e, ETW_FILEIO_OP_END_SIZE);
	}
	return 0;
}

/* One Read or Write record of file, to each logger of the set. */
static void rw_record(struct ntkl_logger **loggers, unsigned int n, struct pt_regs *regs,
		      enum etw_event_id id, u64 irp, struct file *file, size_t count, u64 offset)
{
	struct etw_fileio_read_write p = { };

	p.offset = offset;
	p.irp_ptr = irp;
	p.file_object = fio_key(file);
	p.file_key = fio_key(file_inode(file));
	p.ttid = fio_ttid();
	p.io_size = (u32)min_t(size_t, count, U32_MAX);
	p.io_flags = file->f_flags & O_DIRECT ? 0x1 : 0;	/* IRP_NOCACHE */
	/*
	 * with the stack for -stackwalk FileRead, FileWrite: from the probed
	 * function's entry registers, so it begins at vfs_read() and its
	 * caller, not in the kprobe machinery that called this handler
	 */
	ntkl_record_each_walked(loggers, n, id, &p, ETW_FILEIO_READ_WRITE_SIZE,
				id == ETW_EVENT_FILEIO_READ ? NTKL_WALK_FILEIO_READ :
							      NTKL_WALK_FILEIO_WRITE, regs);
}

/* Read or Write at entry: file, count and the position the call names. */
static int rw_begin(struct kretprobe_instance *ri, struct pt_regs *regs, enum etw_event_id id,
		    struct file *file, size_t count, const loff_t *pos)
{
	struct fio_data *d = fio_data(ri);
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	if (!fio_file_ok(file))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	rw_record(loggers, n, regs, id, fio_irp(ri), file, count, pos ? (u64)*pos : 0);
	d->read_bytes = true;
	return end ? 0 : 1;
}

/* vfs_read(file, buf, count, pos), vfs_write(file, buf, count, pos) */
static int read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_READ, (void *)regs_get_kernel_argument(regs, 0),
			regs_get_kernel_argument(regs, 2),
			(void *)regs_get_kernel_argument(regs, 3));
}

static int write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_WRITE, (void *)regs_get_kernel_argument(regs, 0),
			regs_get_kernel_argument(regs, 2),
			(void *)regs_get_kernel_argument(regs, 3));
}

/*
 * vfs_readv(file, vec, vlen, pos, flags), vfs_writev(...): the size is
 * the sum of the user's iovecs, read without faulting (a page not present
 * leaves the rest uncounted).
 */
static size_t iov_sum(const struct iovec __user *vec, unsigned long vlen)
{
	struct iovec iov[8];
	size_t sum = 0;
	unsigned long i, k, chunk;

	vlen = min_t(unsigned long, vlen, UIO_MAXIOV);
	for (i = 0; i < vlen; i += chunk) {
		chunk = min_t(unsigned long, vlen - i, ARRAY_SIZE(iov));
		if (copy_from_user_nofault(iov, vec + i, chunk * sizeof(*iov)))
			break;
		for (k = 0; k < chunk; k++)
			sum += iov[k].iov_len;
	}
	return sum;
}

static int readv_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *file = (void *)regs_get_kernel_argument(regs, 0);

	if (!fio_file_ok(file))
		return 1;
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_READ, file,
			iov_sum((void __user *)regs_get_kernel_argument(regs, 1),
				regs_get_kernel_argument(regs, 2)),
			(void *)regs_get_kernel_argument(regs, 3));
}

static int writev_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *file = (void *)regs_get_kernel_argument(regs, 0);

	if (!fio_file_ok(file))
		return 1;
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_WRITE, file,
			iov_sum((void __user *)regs_get_kernel_argument(regs, 1),
				regs_get_kernel_argument(regs, 2)),
			(void *)regs_get_kernel_argument(regs, 3));
}

/*
 * do_splice_direct(in, ppos, out, opos, len, flags): sendfile to a file or
 * a socket (and, before 6.8, copy_file_range through the page cache);
 * splice_file_range(in, ppos, out, opos, len) (6.8: copy_file_range
 * through the page cache). One call moves the bytes through a pipe of
 * the task's own, a pipe-full at a time, and returns the bytes written:
 * a Read of in at *ppos and a Write of out at *opos, len each, whose
 * OperationEnds both say what the call moved. A socket is not FileIo:
 * its Write is not written. What the file systems do below (splice_read,
 * splice_write) calls no probed function, so nothing is counted twice.
 */
static int splice_direct_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *in = (void *)regs_get_kernel_argument(regs, 0);
	const loff_t *ppos = (void *)regs_get_kernel_argument(regs, 1);
	struct file *out = (void *)regs_get_kernel_argument(regs, 2);
	const loff_t *opos = (void *)regs_get_kernel_argument(regs, 3);
	size_t len = regs_get_kernel_argument(regs, 4);
	struct fio_data *d = fio_data(ri);
	bool rd = fio_file_ok(in), wr = fio_file_ok(out);
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	if (!rd && !wr)
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	if (rd)
		rw_record(loggers, n, regs, ETW_EVENT_FILEIO_READ, fio_irp(ri), in, len,
			  ppos ? (u64)*ppos : 0);
	if (wr)
		rw_record(loggers, n, regs, ETW_EVENT_FILEIO_WRITE, rd ? fio_irp2(ri) : fio_irp(ri),
			  out, len, opos ? (u64)*opos : 0);
	d->read_bytes = true;
	d->second = rd && wr;
	return end ? 0 : 1;
}

/*
 * splice_file_to_pipe(in, opipe, offset, len, flags): splice(2) from a
 * file into a pipe (io_uring's IORING_OP_SPLICE too), and 6.12's
 * sendfile to a pipe: a Read of in at *offset.
 */
static int splice_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_READ, (void *)regs_get_kernel_argument(regs, 0),
			regs_get_kernel_argument(regs, 3),
			(void *)regs_get_kernel_argument(regs, 2));
}

/*
 * do_splice(in, off_in, out, off_out, len, flags): splice(2) (and
 * IORING_OP_SPLICE) from a pipe into a file: a Write of out at *off_out,
 * or at its file position. (A file into a pipe is splice_file_to_pipe's
 * Read; one of the two is a pipe, which is not FileIo.)
 */
static int splice_write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *out = (void *)regs_get_kernel_argument(regs, 2);
	const loff_t *off_out = (void *)regs_get_kernel_argument(regs, 3);

	/* out->f_pos is read only for a file rw_begin() reports */
	return rw_begin(ri, regs, ETW_EVENT_FILEIO_WRITE, out, regs_get_kernel_argument(regs, 4),
			off_out ?: &out->f_pos);
}

#ifdef CONFIG_AIO	/* the probes' rows are there only with it */
/*
 * AIO (io_submit): aio_read(req, iocb, vectored, compat), aio_write(...)
 * issue a request to the file's ->read_iter/->write_iter themselves (no
 * vfs_read()), with req->ki_filp and the user's iocb (a kernel copy)
 * ready. Its IrpPtr is the request (the struct kiocb), which lives until
 * it completes: aio_complete_rw(kiocb, res) writes its OperationEnd, in
 * whatever context completes it (an interrupt or a workqueue, for direct
 * I/O), or the return of aio_read(), aio_write() does when the request
 * failed before it was issued (no completion then). A 32-bit caller's
 * iovecs are not summed (IoSize 0).
 */
static int aio_begin(struct kretprobe_instance *ri, struct pt_regs *regs, enum etw_event_id id)
{
	struct kiocb *req = (void *)regs_get_kernel_argument(regs, 0);
	const struct iocb *iocb = (void *)regs_get_kernel_argument(regs, 1);
	bool vectored = regs_get_kernel_argument(regs, 2) & 0xff;
	bool compat = regs_get_kernel_argument(regs, 3) & 0xff;
	struct fio_data *d = fio_data(ri);
	struct ntkl_logger **loggers;
	size_t count;
	unsigned int n;
	bool end;

	if (!req || !iocb || !fio_file_ok(req->ki_filp))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	if (!vectored)
		count = iocb->aio_nbytes;
	else if (!compat)
		count = iov_sum(u64_to_user_ptr(iocb->aio_buf), iocb->aio_nbytes);
	else
		count = 0;
	rw_record(loggers, n, regs, id, fio_key(req), req->ki_filp, count, iocb->aio_offset);
	d->file_key = fio_key(req);
	return end ? 0 : 1;
}

static int aio_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return aio_begin(ri, regs, ETW_EVENT_FILEIO_READ);
}

static int aio_write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return aio_begin(ri, regs, ETW_EVENT_FILEIO_WRITE);
}

/* One OperationEnd of irp to each logger that takes them. */
static void end_each(u64 irp, long ret)
{
	struct etw_fileio_op_end e = {
		.irp_ptr = irp,
		.extra_info = ret > 0 ? ret : 0,
		.nt_status = ntkl_ntstatus(ret),
	};
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	ntkl_record_each(loggers, n, ETW_EVENT_FILEIO_OP_END, &e, ETW_FILEIO_OP_END_SIZE);
}

/* aio_read(), aio_write() returned: an error is the request's end (0: issued). */
static int aio_submit_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_data *d = (void *)ri->data;
	long ret = (long)regs_return_value(regs);

	if (ret)
		end_each(d->file_key, ret);
	return 0;
}

/* aio_complete_rw(kiocb, res): the request's end, res its bytes or an errno */
static int aio_complete_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kiocb *kiocb = (void *)regs_get_kernel_argument(regs, 0);

	if (kiocb && fio_file_ok(kiocb->ki_filp))
		end_each(fio_key(kiocb), (long)regs_get_kernel_argument(regs, 1));
	return 1;
}
#endif /* CONFIG_AIO */

#ifdef CONFIG_IO_URING
/*
 * io_uring: IORING_OP_READ, READV, READ_FIXED and the writes call the
 * file's ->read_iter/->write_iter from io_read()/io_write(), which run
 * once per issue: again when a request issued without blocking is retried
 * (from an io-wq worker, or by task work once a page is unlocked). So the
 * Read or Write is written where the request is submitted, once
 * (io_uring_submit_sqe on 6.1, io_uring_submit_req after: its SQE read,
 * not yet issued), by the submitting thread (the SQPOLL thread's, if the
 * ring has one), and its OperationEnd where its completion is posted,
 * once (io_uring_complete, in whichever thread posts it). The IrpPtr is
 * the request, which lives until then.
 *
 * At submission the request has no file yet (io_uring takes it at
 * issue): it is the submitter's fd's, looked up without a reference (the
 * pointer names it; the records read only what a file freed by RCU
 * keeps). The length, the buffer and the position are io_uring's prep'd
 * struct io_rw (io_uring/rw.c, not a public header: the same first
 * members from 5.19 to 6.12), whose kiocb overlays the request's start.
 * Not seen: a request on a registered (fixed) file, one whose CQE is
 * skipped (IOSQE_CQE_SKIP_SUCCESS) or overflowed (no OperationEnd then).
 */
struct fio_uring_rw {
	struct kiocb kiocb;
	u64 addr;
	u32 len;
};

static bool fio_uring_rw(const struct io_kiocb *req, enum etw_event_id *id)
{
	switch (req->opcode) {
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ:
		*id = ETW_EVENT_FILEIO_READ;
		return true;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITE:
		*id = ETW_EVENT_FILEIO_WRITE;
		return true;
	}
	return false;
}

static void fio_uring_submit(struct io_kiocb *req)
{
	const struct fio_uring_rw *rw = (const void *)req;
	struct ntkl_logger **loggers;
	enum etw_event_id id;
	struct file *file;
	unsigned int n;
	size_t count;
	bool end;
	u64 pos;

	if (!fio_uring_rw(req, &id) || (req->flags & REQ_F_FIXED_FILE) || !current->files)
		return;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return;
	rcu_read_lock();
	file = files_lookup_fd_raw(current->files, req->cqe.fd);
	if (file && fio_file_ok(file)) {
		pos = rw->kiocb.ki_pos == -1 ? file->f_pos : rw->kiocb.ki_pos;
		if (req->opcode == IORING_OP_READV || req->opcode == IORING_OP_WRITEV)
			count = iov_sum(u64_to_user_ptr(rw->addr), rw->len);
		else
			count = rw->len;
		rw_record(loggers, n, NULL, id, fio_key(req), file, count, pos);
	}
	rcu_read_unlock();
}

/* The tracepoint is io_uring_submit_req from 6.3 on (Kbuild finds which). */
#ifndef NTKL_HAVE_IO_URING_SUBMIT_REQ
static void probe_io_uring_submit_sqe(void *data, struct io_kiocb *req, bool force_nonblock)
{
	fio_uring_submit(req);
}
#else
static void probe_io_uring_submit_req(void *data, struct io_kiocb *req)
{
	fio_uring_submit(req);
}
#endif

/* A CQE posted: the request's end, res its bytes or an errno. */
static void probe_io_uring_complete(void *data, void *ctx, void *r, u64 user_data, int res,
				    unsigned int cflags, u64 extra1, u64 extra2)
{
	struct io_kiocb *req = r;
	struct etw_fileio_op_end e = {
		.irp_ptr = fio_key(req),
		.extra_info = res > 0 ? res : 0,
		.nt_status = ntkl_ntstatus(res),
	};
	struct ntkl_logger **loggers;
	enum etw_event_id id;
	unsigned int n;

	/* the Read's conditions: a file (not fixed) it could be written for */
	if (!req || !fio_uring_rw(req, &id) || (req->flags & REQ_F_FIXED_FILE) ||
	    !fio_file_ok(req->file))
		return;
	n = ntkl_active_loggers(&loggers);
	ntkl_record_each(loggers, n, ETW_EVENT_FILEIO_OP_END, &e, ETW_FILEIO_OP_END_SIZE);
}

#define FIO_TP_URING	1	/* attached with the FIO_OPS probes */

static struct ntkl_tp fio_tps[] = {
	/* the exit before the entry (tracepoints.h) */
	NTKL_TP(io_uring_complete, FIO_TP_URING, "no OperationEnd of io_uring's reads and writes"),
#ifndef NTKL_HAVE_IO_URING_SUBMIT_REQ
	NTKL_TP(io_uring_submit_sqe, FIO_TP_URING, "no Read, Write of io_uring"),
#else
	NTKL_TP(io_uring_submit_req, FIO_TP_URING, "no Read, Write of io_uring"),
#endif
};

static int fio_uring_set(bool on)
{
	if (on == ntkl_tp_attached(&ntkl_fileio_producer, FIO_TP_URING))
		return 0;
	return ntkl_tp_set(&ntkl_fileio_producer, FIO_TP_URING, on, NULL);
}
#else
static int fio_uring_set(bool on)
{
	return 0;
}
#endif /* CONFIG_IO_URING */

/* Cleanup, Close, Flush: a struct file, first argument. */
static int simple_begin(struct kretprobe_instance *ri, struct pt_regs *regs, enum etw_event_id id)
{
	struct file *file = (void *)regs_get_kernel_argument(regs, 0);
	struct etw_fileio_simple_op p = { };
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	fio_data(ri);

	if (!fio_file_ok(file))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	p.irp_ptr = fio_irp(ri);
	p.file_object = fio_key(file);
	p.file_key = fio_key(file_inode(file));
	p.ttid = fio_ttid();
	ntkl_record_each(loggers, n, id, &p, ETW_FILEIO_SIMPLE_OP_SIZE);
	return end ? 0 : 1;
}

static int cleanup_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return simple_begin(ri, regs, ETW_EVENT_FILEIO_CLEANUP);
}

static int close_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return simple_begin(ri, regs, ETW_EVENT_FILEIO_CLOSE);
}

static int flush_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return simple_begin(ri, regs, ETW_EVENT_FILEIO_FLUSH);
}

/* DirEnum's FileName, the pattern: "*", UTF-16 with its terminator */
static const u16 every_entry[] = { '*', 0 };

/* iterate_dir(file, ctx): DirEnum, at the directory's position (FileIndex) */
static int dir_enum_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *file = (void *)regs_get_kernel_argument(regs, 0);
	struct dir_context *ctx = (void *)regs_get_kernel_argument(regs, 1);
	struct etw_fileio_dir_enum *p;
	struct ntkl_logger **loggers;
	struct ntkl_record rec;
	unsigned int i, n;
	bool end;

	fio_data(ri);

	if (!fio_file_ok(file))
		return 1;
	n = fio_loggers(&loggers, &end);
	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], ETW_EVENT_FILEIO_DIR_ENUM))
			continue;
		/*
		 * The pattern: getdents lists every entry (a program filters
		 * them itself), which is what Windows' "*" asks for.
		 */
		p = ntkl_begin_FILEIO_DIR_ENUM(loggers[i], &rec, ETW_EVENT_FILEIO_DIR_ENUM,
					       sizeof(*p) + sizeof(every_entry));
		if (!p)
			continue;
		p->irp_ptr = fio_irp(ri);
		p->file_object = fio_key(file);
		p->file_key = fio_key(file_inode(file));
		p->ttid = fio_ttid();
		p->length = 0;
		p->info_class = ETW_FILE_DIRECTORY_INFORMATION;
		p->file_index = ctx ? (u32)ctx->pos : 0;
		memcpy(p + 1, every_entry, sizeof(every_entry));
		ntkl_record_end(&rec);
	}
	return n && end ? 0 : 1;
}

/* SetInfo, Delete, Rename: one Info record to each logger that takes id. */
static void info_each(struct ntkl_logger **loggers, unsigned int n, enum etw_event_id id,
		      struct kretprobe_instance *ri, const struct file *file,
		      const struct inode *inode, u64 extra, u32 info_class)
{
	struct etw_fileio_info p = {
		.irp_ptr = fio_irp(ri),
		.file_object = fio_key(file),
		.file_key = fio_key(inode),
		.extra_info = extra,
		.ttid = fio_ttid(),
		.info_class = info_class,
	};

	ntkl_record_each(loggers, n, id, &p, sizeof(p));
}

/*
 * notify_change(idmap, dentry, attr, delegated): SetInfo; a new size is
 * FileEndOfFileInformation (ExtraInfo the size), any other change
 * FileBasicInformation (ExtraInfo the ATTR_* bits). By a path (no file),
 * the FileKey is named first.
 */
static int set_info_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dentry *dentry = (void *)regs_get_kernel_argument(regs, 1);
	struct iattr *attr = (void *)regs_get_kernel_argument(regs, 2);
	struct inode *inode = dentry ? d_inode(dentry) : NULL;
	struct file *file = attr && (attr->ia_valid & ATTR_FILE) ? attr->ia_file : NULL;
	struct fio_data *d = fio_data(ri);
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	if (!attr || !fio_inode_ok(inode) || (file && !fio_file_ok(file)))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	if (!file && !fio_late(d, dentry, fio_key(inode), ETW_EVENT_FILEIO_NAME))
		names_each(loggers, n, ETW_EVENT_FILEIO_NAME, fio_key(inode),
			   fio_dentry_path(dentry, fio_buf(), PATH_MAX));
	if (attr->ia_valid & ATTR_SIZE)
		info_each(loggers, n, ETW_EVENT_FILEIO_SET_INFO, ri, file, inode,
			  (u64)attr->ia_size, ETW_FILE_END_OF_FILE_INFORMATION);
	else
		info_each(loggers, n, ETW_EVENT_FILEIO_SET_INFO, ri, file, inode,
			  attr->ia_valid, ETW_FILE_BASIC_INFORMATION);
	return end || d->late_name ? 0 : 1;
}

/*
 * vfs_unlink(idmap, dir, dentry, delegated): FileDelete names the FileKey
 * (its name goes), then Delete (FileDispositionInformation).
 */
static int delete_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct dentry *dentry = (void *)regs_get_kernel_argument(regs, 2);
	struct inode *inode = dentry ? d_inode(dentry) : NULL;
	struct fio_data *d = fio_data(ri);
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	if (!fio_inode_ok(inode))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	/* late, the dentry is its name's still: the caller holds it */
	if (!fio_late(d, dentry, fio_key(inode), ETW_EVENT_FILEIO_FILE_DELETE))
		names_each(loggers, n, ETW_EVENT_FILEIO_FILE_DELETE, fio_key(inode),
			   fio_dentry_path(dentry, fio_buf(), PATH_MAX));
	info_each(loggers, n, ETW_EVENT_FILEIO_DELETE, ri, NULL, inode, 1,
		  ETW_FILE_DISPOSITION_INFORMATION);
	return end || d->late_name ? 0 : 1;
}

/*
 * vfs_rename(rd): Name of the FileKey by its old path, Rename; at return,
 * a Name by its new path (the dentry has moved to it).
 */
static int rename_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct renamedata *rd = (void *)regs_get_kernel_argument(regs, 0);
	struct fio_rename_data *r = container_of(fio_data(ri), struct fio_rename_data, d);
	struct inode *inode = rd && rd->old_dentry ? d_inode(rd->old_dentry) : NULL;
	struct ntkl_logger **loggers;
	unsigned int n;
	bool end;

	if (!fio_inode_ok(inode))
		return 1;
	n = fio_loggers(&loggers, &end);
	if (!n)
		return 1;
	r->old_parent = NULL;
	if (!in_nmi()) {
		names_each(loggers, n, ETW_EVENT_FILEIO_NAME, fio_key(inode),
			   fio_dentry_path(rd->old_dentry, fio_buf(), PATH_MAX));
	} else {
		/*
		 * As an NMI (fio_late()), the old path is formed at return
		 * from its parent and its last part, kept now: both hold
		 * still, the caller has locked the rename and holds the parent.
		 */
		r->old_parent = rd->old_dentry->d_parent;
		strscpy(r->old_name, (const char *)rd->old_dentry->d_name.name,
			sizeof(r->old_name));
	}
	info_each(loggers, n, ETW_EVENT_FILEIO_RENAME, ri, NULL, inode, 0,
		  ETW_FILE_RENAME_INFORMATION);
	r->d.dentry = rd->old_dentry;
	r->d.file_key = fio_key(inode);
	return 0;
}

static int rename_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_rename_data *r = (void *)ri->data;
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	if (r->old_parent) {
		char *buf = fio_buf();
		const char *dir = fio_dentry_path(r->old_parent, buf, PATH_MAX - NAME_MAX - 2);

		/* the parent's path was formed at the end of buf: move it to its start */
		memmove(buf, dir, strlen(dir) + 1);
		if (strcmp(buf, "/"))
			strlcat(buf, "/", PATH_MAX);
		strlcat(buf, r->old_name, PATH_MAX);
		names_each(loggers, n, ETW_EVENT_FILEIO_NAME, r->d.file_key, buf);
	}
	if (!regs_return_value(regs))
		names_each(loggers, n, ETW_EVENT_FILEIO_NAME, r->d.file_key,
			   fio_dentry_path(r->d.dentry, fio_buf(), PATH_MAX));
	return op_end(ri, regs);
}

/*
 * vfs_open(path, file): at return, the file is open. Its names (Name of
 * the FileObject, FileCreate of the FileKey), then Create with the same
 * path, then OperationEnd. An open that fails writes nothing here: the
 * return of do_filp_open() (open_fail_return()) writes its Create.
 */
static int open_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct path *path = (void *)regs_get_kernel_argument(regs, 0);
	struct fio_data *d = fio_data(ri);

	/*
	 * Not a file FileIo reports (a FIFO's open may wait for its writer):
	 * no instance held through the open.
	 */
	if (!path || !path->mnt || (path->mnt->mnt_flags & MNT_INTERNAL) ||
	    !fio_inode_ok(d_inode(path->dentry)))
		return 1;
	d->file = (void *)regs_get_kernel_argument(regs, 1);
	return d->file ? 0 : 1;
}

/* O_* flags as CreateOptions: disposition in the top byte, options below */
static u32 fio_create_options(unsigned int flags)
{
	u32 disposition, options = 0;

	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		disposition = 2;	/* FILE_CREATE */
	else if ((flags & (O_CREAT | O_TRUNC)) == (O_CREAT | O_TRUNC))
		disposition = 5;	/* FILE_OVERWRITE_IF */
	else if (flags & O_CREAT)
		disposition = 3;	/* FILE_OPEN_IF */
	else if (flags & O_TRUNC)
		disposition = 4;	/* FILE_OVERWRITE */
	else
		disposition = 1;	/* FILE_OPEN */
	if (flags & O_DIRECTORY)
		options |= 0x1;		/* FILE_DIRECTORY_FILE */
	if (flags & (O_SYNC | O_DSYNC))
		options |= 0x2;		/* FILE_WRITE_THROUGH */
	if (flags & O_DIRECT)
		options |= 0x8;		/* FILE_NO_INTERMEDIATE_BUFFERING */
	return disposition << 24 | options;
}

static int open_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_data *d = (void *)ri->data;
	struct file *file = d->file;
	struct etw_fileio_create *p;
	struct ntkl_logger **loggers;
	struct ntkl_record rec;
	unsigned int i, n;
	const char *path;
	size_t units;

	if (regs_return_value(regs) || !fio_file_ok(file))
		return 0;
	n = ntkl_active_loggers(&loggers);
	if (!n)
		return 0;
	path = fio_path(&file->f_path, fio_buf(), PATH_MAX);
	units = ntkl_utf16_len(path, PATH_MAX);
	for (i = 0; i < n; i++) {
		struct ntkl_logger *lg = loggers[i];

		if (ntkl_event_on(lg, ETW_EVENT_FILEIO_NAME)) {
			write_name(lg, ETW_EVENT_FILEIO_NAME, fio_key(file), path, units);
			write_name(lg, ETW_EVENT_FILEIO_FILE_CREATE, fio_key(file_inode(file)),
				   path, units);
		}
		if (!ntkl_event_on(lg, ETW_EVENT_FILEIO_CREATE))
			continue;
		p = ntkl_begin_FILEIO_CREATE(lg, &rec, ETW_EVENT_FILEIO_CREATE,
					     sizeof(*p) + (units + 1) * 2);
		if (!p)
			continue;
		p->irp_ptr = fio_irp(ri);
		p->file_object = fio_key(file);
		p->ttid = fio_ttid();
		p->create_options = fio_create_options(file->f_flags);
		/* FILE_ATTRIBUTE_DIRECTORY or _NORMAL */
		p->file_attributes = S_ISDIR(file_inode(file)->i_mode) ? 0x10 : 0x80;
		/* Linux has no share modes: everything is shared */
		p->share_access = 0x7;
		ntkl_put_utf16((u8 *)(p + 1), path, PATH_MAX);
		ntkl_record_end(&rec);
	}
	return op_end(ri, regs);
}

/* do_filp_open's: what its return needs of a failed open */
struct fio_open_data {
	struct fio_data d;
	const struct filename *name;
	int dfd;
	unsigned int flags;
};

/*
 * A failed open's name as a path: a relative one after the path of the
 * working directory it was opened from, else as given (a name relative
 * to another directory's fd keeps only its relative part). The working
 * directory is read as chdir() writes it, under fs->seq, and held by
 * RCU only (no reference taken): a thread sharing it may chdir() away
 * meanwhile, and its dentry and mount are freed only after a grace period.
 */
static const char *fio_open_path(int dfd, const char *name, char *buf)
{
	struct fs_struct *fs = current->fs;
	size_t len = strnlen(name, PATH_MAX);
	const char *dir;
	struct path pwd;
	unsigned int seq;

	if (name[0] == '/' || dfd != AT_FDCWD || !fs || (current->flags & PF_KTHREAD) ||
	    len + 2 >= PATH_MAX)
		return name;
	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&fs->seq);
		pwd = fs->pwd;
	} while (read_seqcount_retry(&fs->seq, seq));
	/* room left after it for a '/', the name and its NUL */
	dir = pwd.mnt && pwd.dentry ? d_path(&pwd, buf, PATH_MAX - len - 1) : ERR_PTR(-ENOENT);
	rcu_read_unlock();
	if (IS_ERR(dir))
		return name;
	memmove(buf, dir, strlen(dir) + 1);
	if (strcmp(buf, "/"))
		strlcat(buf, "/", PATH_MAX);
	strlcat(buf, name, PATH_MAX);
	return buf;
}

/*
 * do_filp_open(dfd, pathname, op): every open by a name (open, openat,
 * openat2, creat, exec, filp_open()). One that succeeds is vfs_open()'s;
 * one that fails (a name not found, a permission refused, before or in
 * the file system's open) writes here, at its return, the Create Windows
 * writes for a failed create: no FileObject (0: none ever existed), the
 * name asked for as OpenPath; then its OperationEnd with the status.
 * op is fs/internal.h's struct open_flags, whose first member has been
 * open_flag (the O_* flags) since 3.x; nothing else of it is read.
 * Which open will fail is known only at its return, so every open by a
 * name holds an instance through the call, a FIFO's open waiting for its
 * writer too: maxactive of them at once, and a miss beyond is counted lost.
 */
static int open_fail_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_open_data *o = container_of(fio_data(ri), struct fio_open_data, d);
	const int *op = (void *)regs_get_kernel_argument(regs, 2);
	struct ntkl_logger **loggers;
	bool end;

	o->name = (void *)regs_get_kernel_argument(regs, 1);
	if (!o->name || !o->name->name || !op || !fio_loggers(&loggers, &end))
		return 1;
	o->dfd = (int)regs_get_kernel_argument(regs, 0);
	o->flags = (unsigned int)*op;
	return 0;
}

static int open_fail_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fio_open_data *o = (void *)ri->data;
	void *ret = (void *)regs_return_value(regs);
	struct etw_fileio_create *p;
	struct ntkl_logger **loggers;
	struct ntkl_record rec;
	unsigned int i, n;
	const char *path;
	size_t units;

	if (!IS_ERR(ret))
		return 0;
	n = ntkl_active_loggers(&loggers);
	if (!n)
		return 0;
	path = fio_open_path(o->dfd, o->name->name, fio_buf());
	units = ntkl_utf16_len(path, PATH_MAX);
	for (i = 0; i < n; i++) {
		struct ntkl_logger *lg = loggers[i];

		if (!ntkl_event_on(lg, ETW_EVENT_FILEIO_CREATE))
			continue;
		p = ntkl_begin_FILEIO_CREATE(lg, &rec, ETW_EVENT_FILEIO_CREATE,
					     sizeof(*p) + (units + 1) * 2);
		if (!p)
			continue;
		p->irp_ptr = fio_irp(ri);
		p->file_object = 0;
		p->ttid = fio_ttid();
		p->create_options = fio_create_options(o->flags);
		p->file_attributes = o->flags & O_DIRECTORY ? 0x10 : 0x80;
		p->share_access = 0x7;
		ntkl_put_utf16((u8 *)(p + 1), path, PATH_MAX);
		ntkl_record_end(&rec);
	}
	return op_end(ri, regs);
}

/* ---------------------------------------------------------------------- */
/* The probes, registered while a logger takes FileIo                     */
/* ---------------------------------------------------------------------- */

/*
 * Two groups: what names need (opens, renames, unlinks, changes by path),
 * wanted by any FileIo logger; the other operations, wanted only by a
 * logger that takes FILE_IO_INIT or FILE_IO (a FILENAME logger alone does
 * not pay for a probe on every read).
 */
#define FIO_NAMES	BIT(0)
#define FIO_OPS		BIT(1)

/* the events a probe gives, for absent_hooks: one or two (FIO_NO_EVENT) */
#define FIO_NO_EVENT	ETW_EVENT_COUNT

struct fio_probe {
	const char *symbol[2];		/* the function, or the one before it */
	kretprobe_handler_t entry, ret;
	unsigned int group;
	enum etw_event_id events[2];	/* what is missing without it, */
	const char *lost;		/* and from where, for the log */
	size_t data_size;		/* its instances' data, if not struct fio_data */
	const char *older;		/* a kernel without it does its work here */
	struct kretprobe krp;
	unsigned long missed;		/* nmissed already counted lost */
	bool registered, warned;
	bool absent;			/* no function by any of its names */
};

#define FIO_EV(a, b)	{ ETW_EVENT_FILEIO_##a, ETW_EVENT_FILEIO_##b }
#define FIO_EV1(a)	{ ETW_EVENT_FILEIO_##a, FIO_NO_EVENT }

static struct fio_probe fio_probes[] = {
	{ { "vfs_open" }, open_entry, open_return, FIO_NAMES, FIO_EV(CREATE, FILE_CREATE),
	  "no Create nor names at open" },
	{ { "notify_change" }, set_info_entry, op_end, FIO_NAMES, FIO_EV1(SET_INFO),
	  "no SetInfo" },
	{ { "vfs_unlink" }, delete_entry, op_end, FIO_NAMES, FIO_EV(DELETE, FILE_DELETE),
	  "no Delete" },
	{ { "vfs_rename" }, rename_entry, rename_return, FIO_NAMES, FIO_EV1(RENAME), "no Rename",
	  sizeof(struct fio_rename_data) },
	{ { "vfs_read" }, read_entry, op_end, FIO_OPS, FIO_EV1(READ),
	  "no Read of read(2), pread64" },
	{ { "vfs_write" }, write_entry, op_end, FIO_OPS, FIO_EV1(WRITE),
	  "no Write of write(2), pwrite64" },
	{ { "vfs_readv" }, readv_entry, op_end, FIO_OPS, FIO_EV1(READ),
	  "no Read of readv, preadv" },
	{ { "vfs_writev" }, writev_entry, op_end, FIO_OPS, FIO_EV1(WRITE),
	  "no Write of writev, pwritev" },
	/* 6.12's close(2) flushes with filp_flush, 6.1's with filp_close */
	{ { "filp_flush", "filp_close" }, cleanup_entry, op_end, FIO_OPS, FIO_EV1(CLEANUP),
	  "no Cleanup" },
	{ { "__fput" }, close_entry, op_end, FIO_OPS, FIO_EV1(CLOSE), "no Close" },
	{ { "vfs_fsync_range" }, flush_entry, op_end, FIO_OPS, FIO_EV1(FLUSH), "no Flush" },
	{ { "iterate_dir" }, dir_enum_entry, op_end, FIO_OPS, FIO_EV1(DIR_ENUM), "no DirEnum" },
	{ { "do_filp_open" }, open_fail_entry, open_fail_return, FIO_OPS, FIO_EV1(CREATE),
	  "no Create of a failed open", sizeof(struct fio_open_data) },
	/* sendfile, splice, copy_file_range: one probe per path, none inside another */
	{ { "do_splice_direct" }, splice_direct_entry, op_end, FIO_OPS, FIO_EV(READ, WRITE),
	  "no Read, Write of sendfile (before 6.8, of copy_file_range)" },
	/* 6.8; before, copy_file_range copies through do_splice_direct */
	{ { "splice_file_range" }, splice_direct_entry, op_end, FIO_OPS, FIO_EV(READ, WRITE),
	  "no Read, Write of copy_file_range", .older = "do_splice_direct" },
	{ { "splice_file_to_pipe" }, splice_read_entry, op_end, FIO_OPS, FIO_EV1(READ),
	  "no Read of splice from a file, of sendfile to a pipe" },
	{ { "do_splice" }, splice_write_entry, op_end, FIO_OPS, FIO_EV1(WRITE),
	  "no Write of splice to a file" },
#ifdef CONFIG_AIO	/* without it, io_submit is ENOSYS: nothing to miss */
	/* io_submit: a request issued, and completed (a return handler never runs) */
	{ { "aio_read" }, aio_read_entry, aio_submit_return, FIO_OPS, FIO_EV1(READ),
	  "no Read of io_submit" },
	{ { "aio_write" }, aio_write_entry, aio_submit_return, FIO_OPS, FIO_EV1(WRITE),
	  "no Write of io_submit" },
	{ { "aio_complete_rw" }, aio_complete_entry, op_end, FIO_OPS, FIO_EV1(OP_END),
	  "no OperationEnd of io_submit's reads and writes" },
#endif
};

static DEFINE_MUTEX(fio_lock);		/* the probes' registration */
static unsigned int fio_groups;		/* FIO_* registered */

/*
 * Instances in flight per probe: a read may wait on the disk a while,
 * and an instance returns to its pool only some time after its call.
 */
static int fio_maxactive(void)
{
	return max_t(int, 256, 16 * num_possible_cpus());
}

/* Each logger taking fp's events hears whether its function is absent. */
static void fio_absent(struct fio_probe *fp, bool absent)
{
	unsigned int k;

	if (fp->absent == absent)
		return;
	fp->absent = absent;
	for (k = 0; k < ARRAY_SIZE(fp->events); k++)
		if (fp->events[k] != FIO_NO_EVENT)
			ntkl_event_absent(fp->events[k], absent);
}

/* Is a row's function (its first name) probed? */
static bool fio_older_probed(const char *symbol)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fio_probes); i++)
		if (fio_probes[i].registered && !strcmp(fio_probes[i].symbol[0], symbol))
			return true;
	return false;
}

static int register_one(struct fio_probe *fp)
{
	int ret = -ENOENT;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(fp->symbol) && fp->symbol[k]; k++) {
		memset(&fp->krp, 0, sizeof(fp->krp));
		fp->krp.kp.symbol_name = fp->symbol[k];
		fp->krp.entry_handler = fp->entry;
		fp->krp.handler = fp->ret;
		fp->krp.data_size = fp->data_size ?: sizeof(struct fio_data);
		fp->krp.maxactive = fio_maxactive();
		ret = ntkl_fault_probe() ?: register_kretprobe(&fp->krp);
		/* the name before is for a kernel without this one, only */
		if (ret != -ENOENT)
			break;
	}
	/*
	 * absent, but its work done where an older kernel does it: in the
	 * function of a row before this one, registered
	 */
	if (ret == -ENOENT && fp->older && fio_older_probed(fp->older)) {
		fp->registered = false;
		fp->missed = 0;
		fio_absent(fp, false);
		return ret;
	}
	/* an error fails the call; an absent function is said once here */
	if (ret == -ENOENT && !fp->warned) {
		pr_info("FileIo: %s not probed (absent): %s\n", fp->symbol[0], fp->lost);
		fp->warned = true;
	}
	fp->registered = !ret;
	fp->missed = 0;
	fio_absent(fp, ret == -ENOENT);
	return ret;
}

/* The calls the probes missed since last asked: lost for every FileIo logger. */
static void count_missed(void)
{
	struct ntkl_logger **loggers;
	unsigned long missed = 0;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(fio_probes); i++) {
		struct fio_probe *fp = &fio_probes[i];
		unsigned long now;

		if (!fp->registered)
			continue;
		now = (unsigned long)READ_ONCE(fp->krp.nmissed) + READ_ONCE(fp->krp.kp.nmissed);
		missed += now - fp->missed;
		fp->missed = now;
	}
	if (!missed)
		return;
	preempt_disable();
	n = ntkl_active_loggers(&loggers);
	for (i = 0; i < n; i++)
		if (fio_any_on(loggers[i]))
			atomic64_add(missed, &loggers[i]->events_lost_extra);
	preempt_enable();
}

static void fio_unregister(unsigned int groups);

/*
 * Register the probes of groups, or none: a probe that could not be
 * registered (memory ran out, the kprobe layer refused) fails the call
 * and unregisters those this call registered. A probe whose function
 * this kernel does not have (-ENOENT for each name it goes by) is not a
 * failure: the records it makes are missing, as register_one() says in
 * the log and each logger taking them hears (absent_hooks, uapi/ntkl.h).
 */
static int fio_register(unsigned int groups)
{
	unsigned int i;
	int ret;

	fio_groups |= groups;
	for (i = 0; i < ARRAY_SIZE(fio_probes); i++) {
		if (!(fio_probes[i].group & groups))
			continue;
		ret = register_one(&fio_probes[i]);
		if (ret && ret != -ENOENT) {
			fio_unregister(groups);
			return ret;
		}
	}
	return 0;
}

static void fio_unregister(unsigned int groups)
{
	unsigned int i;

	count_missed();
	for (i = 0; i < ARRAY_SIZE(fio_probes); i++) {
		if (!(fio_probes[i].group & groups) || !fio_probes[i].registered)
			continue;
		unregister_kretprobe(&fio_probes[i].krp);
		fio_probes[i].registered = false;
	}
	fio_groups &= ~groups;
}

/* The groups a set of loggers wants. */
static unsigned int set_wants(const struct ntkl_active_set *set)
{
	unsigned int i, groups = 0;

	for (i = 0; i < set->n; i++) {
		bool ops = ntkl_set_event_on(set, i, ETW_EVENT_FILEIO_CREATE) ||
			   ntkl_set_event_on(set, i, ETW_EVENT_FILEIO_OP_END);

		/* names: as fio_any_on() */
		if (ops || ntkl_set_event_on(set, i, ETW_EVENT_FILEIO_NAME))
			groups |= FIO_NAMES;
		if (ops)
			groups |= FIO_OPS;
	}
	return groups;
}

/* Attach before the set that wants them is seen: they find no logger in the old one. */
static int fio_attach(const struct ntkl_active_set *set)
{
	unsigned int want = set_wants(set);
	unsigned int added;
	int ret = 0;

	mutex_lock(&fio_lock);
	added = want & ~fio_groups;
	if (added)
		ret = fio_register(added);
	/* io_uring's tracepoints with the reads' and writes' kretprobes */
	if (!ret && (want & FIO_OPS)) {
		ret = fio_uring_set(true);
		if (ret && added)
			fio_unregister(added);
	}
	mutex_unlock(&fio_lock);
	return ret;
}

/* Detach what no logger of the set now seen wants. */
static void fio_detach(const struct ntkl_active_set *set)
{
	unsigned int want = set_wants(set);

	mutex_lock(&fio_lock);
	if (!(want & FIO_OPS))
		fio_uring_set(false);
	if (fio_groups & ~want)
		fio_unregister(fio_groups & ~want);
	else if (fio_groups)
		count_missed();
	mutex_unlock(&fio_lock);
}

static void fio_flush(void)
{
	mutex_lock(&fio_lock);
	if (fio_groups)
		count_missed();
	mutex_unlock(&fio_lock);
}

static int fio_init(void)
{
	fio_path_buf = __alloc_percpu(PATH_MAX, SMP_CACHE_BYTES);
	return fio_path_buf ? 0 : -ENOMEM;
}

static void fio_exit(void)
{
	mutex_lock(&fio_lock);
	if (fio_groups)
		fio_unregister(fio_groups);
	mutex_unlock(&fio_lock);
	free_percpu(fio_path_buf);
}

#else /* !CONFIG_KRETPROBES */

static int fio_attach(const struct ntkl_active_set *set)
{
	static bool warned;
	unsigned int i;

	for (i = 0; i < set->n && !warned; i++)
		if (fio_any_on(set->loggers[i])) {
			pr_info("FileIo: this kernel has no kretprobes: only the rundown's names\n");
			warned = true;
		}
	return 0;
}

static void fio_detach(const struct ntkl_active_set *set)
{
}

static void fio_flush(void)
{
}

static int fio_init(void)
{
	return 0;
}

static void fio_exit(void)
{
}

#endif /* CONFIG_KRETPROBES */

/* ---------------------------------------------------------------------- */
/* The rundown: every file open in every process                           */
/* ---------------------------------------------------------------------- */

/*
 * The struct files already named in this rundown (each once, though many
 * fds and mappings share one): an open-addressing set, allocated for the
 * rundown; when full, files are named again rather than missed.
 */
#define FIO_SEEN_BITS	14

struct fio_rundown {
	struct ntkl_logger *lg;
	enum etw_event_id id;
	char *buf;
	u64 *seen;
	unsigned int nseen;
};

static bool seen_before(struct fio_rundown *r, u64 key)
{
	unsigned int mask = (1u << FIO_SEEN_BITS) - 1, i;

	if (!r->seen)
		return false;
	for (i = hash_64(key, FIO_SEEN_BITS); r->seen[i]; i = (i + 1) & mask)
		if (r->seen[i] == key)
			return true;
	if (r->nseen >= mask - mask / 4)
		return false;		/* full enough: name it again */
	r->seen[i] = key;
	r->nseen++;
	return false;
}

/* FileRundown of a file: by its FileObject and by its FileKey. */
static void rundown_file(struct fio_rundown *r, struct file *file)
{
	const char *path;
	size_t units;

	if (!fio_file_ok(file) || seen_before(r, fio_key(file)))
		return;
	path = fio_path(&file->f_path, r->buf, PATH_MAX);
	units = ntkl_utf16_len(path, PATH_MAX);
	preempt_disable();
	write_name(r->lg, r->id, fio_key(file), path, units);
	if (!seen_before(r, fio_key(file_inode(file))))
		write_name(r->lg, r->id, fio_key(file_inode(file)), path, units);
	preempt_enable();
}

/* Under the fd table's lock: no sleeping. */
static int rundown_fd(const void *arg, struct file *file, unsigned int fd)
{
	rundown_file((struct fio_rundown *)arg, file);
	return 0;
}

static void rundown_task(struct fio_rundown *r, struct task_struct *t)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	/* its fds, with the task's lock holding its table */
	task_lock(t);
	if (t->files)
		iterate_fd(t->files, 0, rundown_fd, r);
	task_unlock(t);

	/* its mappings of files (a HardFault names the mapping's file) */
	mm = get_task_mm(t);
	if (!mm)
		return;
	mmap_read_lock(mm);
	{
		struct file *last = NULL;

		VMA_ITERATOR(vmi, mm, 0);
		for_each_vma(vmi, vma) {
			if (!vma->vm_file || vma->vm_file == last)
				continue;
			last = vma->vm_file;
			rundown_file(r, vma->vm_file);
		}
	}
	mmap_read_unlock(mm);
	mmput(mm);
}

static void fio_rundown(struct ntkl_logger *lg, bool end)
{
	struct fio_rundown r = {
		.lg = lg,
		.id = ETW_EVENT_FILEIO_FILE_RUNDOWN,
	};
	struct task_struct *t;
	int nr = 1;

#ifdef CONFIG_KRETPROBES
	if (end && fio_any_on(lg)) {
		mutex_lock(&fio_lock);
		if (fio_groups)
			count_missed();
		mutex_unlock(&fio_lock);
	}
#endif
	if (!ntkl_event_on(lg, ETW_EVENT_FILEIO_FILE_RUNDOWN))
		return;
	r.buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!r.buf) {
		atomic64_inc(&lg->events_lost_extra);
		return;
	}
	r.seen = kvcalloc(1u << FIO_SEEN_BITS, sizeof(*r.seen), GFP_KERNEL);

	while ((t = ntkl_next_process(&nr))) {
		rundown_task(&r, t);
		put_task_struct(t);
		cond_resched();
	}
	kvfree(r.seen);
	kfree(r.buf);
}

const struct ntkl_producer ntkl_fileio_producer = {
	.name = "fileio",
	.init = fio_init,
	.exit = fio_exit,
	.attach = fio_attach,
	.detach = fio_detach,
	.flush = fio_flush,
	.rundown = fio_rundown,
#if defined(CONFIG_KRETPROBES) && defined(CONFIG_IO_URING)
	.tps = fio_tps,
	.nr_tps = ARRAY_SIZE(fio_tps),
#endif
};
