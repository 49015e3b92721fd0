// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl: record the Windows NT Kernel Logger's trace format on Linux.
 *
 * /dev/ntkl is mode 0660, group root until udev/60-ntkl.rules (make
 * install) gives it to the group "tracing"; its ioctls (ioctl.c) also need
 * CAP_PERFMON or CAP_SYS_ADMIN and act on the logger table (logger.c). A
 * file descriptor bound to one logger (NTKL_IOC_BIND) reads its buffers
 * here: whole ETW buffers, the header buffer first, then 0 once the logger
 * is stopped and drained; or maps them (transport/mapping.c) and is given
 * each in turn where it lies (NTKL_IOC_NEXT_BUFFER).
 *
 * Locks a reader takes (docs/architecture.md, "Reading"): read_lock, one
 * read() or NEXT_BUFFER at a time, the only lock held across a copy to
 * user memory; only this reader's own calls wait for it, and they can be
 * interrupted. lock, the reader's state, is held briefly and never
 * across a user copy or the wait for a buffer (as a buffering-mode
 * snapshot begins or ends, across work that ends by itself: an RCU grace
 * period, a call on each CPU): close() takes it, so a reader whose copy
 * faulted, stalled or died half way never keeps close() out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "control/control.h"
#include "control/fault.h"
#include "format/redact.h"
#include "control/active_set.h"
#include "producers/producer.h"

static bool read_done(struct ntkl_logger *lg)
{
	/* a buffering-mode logger is read as a snapshot: read never waits */
	return READ_ONCE(lg->status) == NTKL_STATUS_STOPPED ||
	       (lg->mode & NTKL_MODE_BUFFERING) || ntkl_buffer_ready(lg);
}

/*
 * NEXT_BUFFER with NTKL_NEXT_KEEP: give back the oldest buffers the
 * reader asks to, before anything else (uapi/ntkl.h says why).
 */
static int give_back(struct ntkl_logger *lg, u32 release)
{
	int ret = 0;

	mutex_lock(&lg->lock);
	/* a snapshot is read one buffer at a time, writers paused meanwhile */
	if ((lg->mode & NTKL_MODE_BUFFERING) || release > lg->held_count)
		ret = -EINVAL;
	else
		ntkl_buffers_release_oldest(lg, release);
	mutex_unlock(&lg->lock);
	return ret;
}

/*
 * Who asks for the next buffer. The caller says so: a user pointer is
 * data, never a mode (a read() into NULL is a read() that faults).
 */
enum next_call {
	NEXT_COPY,	/* read(): copied into the reader's memory, given back */
	NEXT_HOLD,	/* NEXT_BUFFER: held where it lies, in the reader's mapping */
};

struct next_req {
	enum next_call call;
	char __user *ubuf;		/* NEXT_COPY: where to */
	struct ntkl_next_buffer *nb;	/* NEXT_HOLD: flags in; the answer out */
	void __user *uarg;		/* NEXT_HOLD: where the answer goes ... */
	u32 usize;			/* ... and its size there */
	unsigned long slot;		/* out: the buffer taken */
};

/*
 * Take the reader's next buffer (held, whichever the call) under the
 * state lock: its size, 0 if none is ready (stopped: at the end), or
 * -errno. stopped says whether the logger had ended when looked at.
 */
static ssize_t take_next(struct ntkl_logger *lg, struct next_req *req, bool *stopped)
{
	bool raw = ntkl_reader_sees_addresses();
	bool keep = req->call == NEXT_HOLD && (req->nb->flags & NTKL_NEXT_KEEP);
	u32 records;
	ssize_t ret = 0;
	int pass;

	/* pairs with stop_locked(): STOPPED comes after the last flush */
	*stopped = smp_load_acquire(&lg->status) == NTKL_STATUS_STOPPED;
	mutex_lock(&lg->lock);
	if (lg->snapshot_read) {
		/* this reader saved its snapshot: the file is whole */
		*stopped = true;
		goto out;
	}
	/*
	 * Reading a buffering-mode logger saves a snapshot of it, with what
	 * its records need first: the CompCS batches held back, the
	 * definitions of the stack keys they refer to.
	 */
	if ((lg->mode & NTKL_MODE_BUFFERING) && !*stopped && !lg->paused) {
		ntkl_producers_flush();
		ntkl_producers_snapshot(lg, false);
		ntkl_buffers_pause(lg);
	}
	*stopped |= lg->paused;
	/* a stopped logger's last pass moves head past closed buffers */
	for (pass = 0; pass < 2; pass++) {
		if (pass && !(ret == 0 && *stopped))
			break;
		if (pass)
			ntkl_buffers_final(lg);
		ret = ntkl_hold_buffer(lg, &req->slot, &records, raw, keep);
	}
	if (req->call == NEXT_HOLD) {
		req->nb->records = ret > 0 ? records : 0;
		req->nb->held = lg->held_count;
	}
	if (ret == 0 && lg->paused) {
		/* the snapshot is read: the logger records on, reader open or not */
		ntkl_buffers_resume(lg);
		ntkl_producers_snapshot(lg, true);
		lg->snapshot_read = true;
	}
out:
	mutex_unlock(&lg->lock);
	return ret;
}

/*
 * read()'s copy of the buffer it holds, made without the state lock (the
 * buffer stays at its ring's tail, out of the writers' way, until given
 * back): given back once copied; if the copy faults, -EFAULT and the same
 * buffer is the reader's next.
 */
static ssize_t copy_next(struct ntkl_logger *lg, struct next_req *req, ssize_t size)
{
	bool fault = copy_to_user(req->ubuf, ntkl_buffers_slot(lg, req->slot), size);

	mutex_lock(&lg->lock);
	if (fault)
		ntkl_buffers_unhold_newest(lg, req->slot);
	else
		ntkl_buffers_release(lg);
	mutex_unlock(&lg->lock);
	return fault ? -EFAULT : size;
}

/*
 * NEXT_BUFFER's answer, copied out while the buffer is held: if the copy
 * faults (the struct in read-only memory, say), the reader would never
 * learn where its buffer lies, so it goes back as the reader's next.
 */
static ssize_t answer_next(struct ntkl_logger *lg, struct next_req *req, ssize_t size)
{
	struct ntkl_next_buffer *nb = req->nb;

	nb->offset = (u64)req->slot * ntkl_map_stride(lg);
	nb->length = size;
	if (!ntkl_copy_out(req->uarg, req->usize, nb, sizeof(*nb)))
		return size;
	mutex_lock(&lg->lock);
	ntkl_buffers_unhold_newest(lg, req->slot);
	nb->held = lg->held_count;
	mutex_unlock(&lg->lock);
	return -EFAULT;
}

/*
 * The reader's next buffer, as req->call asks: its size, 0 at the end,
 * or -errno. Waits for one unless the file is non-blocking or nb says
 * NTKL_NEXT_NOWAIT. One call at a time (read_lock, taken so that a
 * signal ends the wait for it); the state lock is never held across the
 * user copy or the wait, so a copy that faults or stalls (userfaultfd)
 * keeps no one else out, and close() always gets in.
 */
static ssize_t next_buffer(struct file *file, struct ntkl_logger *lg, struct next_req *req)
{
	struct ntkl_next_buffer *nb = req->nb;
	bool nowait = (file->f_flags & O_NONBLOCK) ||
		      (req->call == NEXT_HOLD && (nb->flags & NTKL_NEXT_NOWAIT));
	ssize_t ret;

	if (mutex_lock_interruptible(&lg->read_lock))
		return -ERESTARTSYS;
	if (req->call == NEXT_HOLD && (nb->flags & NTKL_NEXT_KEEP)) {
		ret = give_back(lg, nb->release);
		if (ret)
			goto out;
	}
	for (;;) {
		bool stopped;

		ret = take_next(lg, req, &stopped);
		if (ret > 0)
			ret = req->call == NEXT_COPY ? copy_next(lg, req, ret) :
						       answer_next(lg, req, ret);
		if (ret > 0 || (ret == 0 && stopped))
			break;
		if (ret < 0 && ret != -EAGAIN)
			break;
		ret = -EAGAIN;
		if (nowait)
			break;
		/*
		 * Nothing ready (0), or the next buffer's last record is still
		 * being written on another CPU (-EAGAIN): its writer's commit
		 * wakes us (ntkl_commit()), as closing a buffer does.
		 */
		ret = wait_event_interruptible(lg->wait, read_done(lg));
		if (ret < 0)
			break;
	}
out:
	mutex_unlock(&lg->read_lock);
	return ret;
}

static ssize_t ntkl_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct ntkl_logger *lg = file->private_data;
	struct next_req req = { .call = NEXT_COPY, .ubuf = buf };

	if (!lg)
		return -EINVAL;		/* not bound to a logger */
	if (len < lg->buffer_size)
		return -EINVAL;		/* whole buffers only */
	return next_buffer(file, lg, &req);
}

/* NEXT_BUFFER: its answer (nb) goes to arg, usize bytes of it, from here. */
long ntkl_reader_next(struct file *file, struct ntkl_next_buffer *nb, void __user *arg,
		      u32 usize)
{
	struct ntkl_logger *lg = READ_ONCE(file->private_data);
	struct next_req req = { .call = NEXT_HOLD, .nb = nb, .uarg = arg, .usize = usize };
	ssize_t ret;

	if (!lg)
		return -EINVAL;		/* not bound to a logger */
	ret = next_buffer(file, lg, &req);
	if (ret)	/* a buffer's answer went out with it */
		return ret < 0 ? ret : 0;
	/* none (the end): offset and length 0 */
	return ntkl_copy_out(arg, usize, nb, sizeof(*nb));
}

static __poll_t ntkl_poll(struct file *file, poll_table *wait)
{
	struct ntkl_logger *lg = file->private_data;

	if (!lg)
		return EPOLLERR;
	poll_wait(file, &lg->wait, wait);
	if (read_done(lg))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static int ntkl_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the miscdevice here; ours means "bound logger" */
	file->private_data = NULL;
	return 0;
}

static int ntkl_release(struct inode *inode, struct file *file)
{
	struct ntkl_logger *lg = file->private_data;

	ntkl_logger_stop_owned(file);
	if (lg) {
		mutex_lock(&lg->lock);
		/* a mapped reader's buffer goes back before writers come in again */
		ntkl_buffers_release(lg);
		if (lg->paused) {
			ntkl_buffers_resume(lg);
			ntkl_producers_snapshot(lg, true);
		}
		mutex_unlock(&lg->lock);
		atomic_set(&lg->readers, 0);
		ntkl_logger_put(lg);
	}
	return 0;
}

/*
 * A reader that may not see records raw gets them through the transport's
 * reader hook (address redaction) when it reads them; a mapping cannot.
 */
static int ntkl_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!READ_ONCE(file->private_data))
		return -EINVAL;		/* not bound to a logger */
	if (!ntkl_reader_sees_addresses())
		return -EPERM;
	return ntkl_mmap(file, vma);
}

static const struct file_operations ntkl_fops = {
	.owner = THIS_MODULE,
	.open = ntkl_open,
	.unlocked_ioctl = ntkl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = ntkl_read,
	.mmap = ntkl_dev_mmap,
	.poll = ntkl_poll,
	.release = ntkl_release,
	.llseek = noop_llseek,
};

static struct miscdevice ntkl_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = NTKL_DEVICE_NAME,
	.fops = &ntkl_fops,
	.mode = 0660,	/* the group: udev's rule (udev/60-ntkl.rules) */
};

static int __init ntkl_init(void)
{
	int ret;

	ntkl_clock_anchor();
	ntkl_fault_init();
	ntkl_redact_register();
	ret = ntkl_producers_init();
	if (ret)
		goto no_producers;
	ret = ntkl_active_init();
	if (ret)
		goto no_set;
	ret = misc_register(&ntkl_miscdev);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", NTKL_DEVICE_NAME, ret);
		goto no_device;
	}
	pr_info("loaded\n");
	return 0;

no_device:
	ntkl_active_exit();
no_set:
	ntkl_producers_exit();
no_producers:
	ntkl_fault_exit();
	return ret;
}

static void __exit ntkl_exit(void)
{
	misc_deregister(&ntkl_miscdev);
	/* no file is open (they hold the module): stop and free every logger */
	ntkl_logger_stop_all();
	ntkl_producers_exit();
	ntkl_active_exit();
	ntkl_fault_exit();
	pr_info("unloaded\n");
}

module_init(ntkl_init);
module_exit(ntkl_exit);

MODULE_DESCRIPTION("NT Kernel Logger trace format (ETW) recorder");
MODULE_AUTHOR("ntkl developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(NTKL_VERSION);
