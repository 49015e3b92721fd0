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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "ntkl.h"
#include "producers/ntsched.h"
#include "producers/stack.h"

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
 * The reader's next buffer, into ubuf (read()) or, ubuf NULL, held where
 * it lies for a mapped reader (NEXT_BUFFER: *slot, and nb's records and
 * held): its size, 0 at the end, or -errno. Waits for one unless the file
 * is non-blocking or nb says NTKL_NEXT_NOWAIT.
 */
static ssize_t next_buffer(struct file *file, struct ntkl_logger *lg, char __user *ubuf,
			   unsigned long *slot, struct ntkl_next_buffer *nb)
{
	bool addresses = ntkl_reader_sees_addresses();
	bool keep = nb && (nb->flags & NTKL_NEXT_KEEP);
	bool nowait = (file->f_flags & O_NONBLOCK) || (nb && (nb->flags & NTKL_NEXT_NOWAIT));
	ssize_t ret;

	if (keep) {
		ret = give_back(lg, nb->release);
		if (ret)
			return ret;
	}
	for (;;) {
		/* pairs with stop_locked(): STOPPED comes after the last flush */
		bool stopped = smp_load_acquire(&lg->status) == NTKL_STATUS_STOPPED;
		int pass;

		mutex_lock(&lg->lock);
		if (lg->snapshot_read) {
			/* this reader saved its snapshot: the file is whole */
			mutex_unlock(&lg->lock);
			return 0;
		}
		/* reading a buffering-mode logger saves a snapshot of it */
		if ((lg->mode & NTKL_MODE_BUFFERING) && !stopped && !lg->paused)
			ntkl_buffers_pause(lg);
		stopped |= lg->paused;
		/* a stopped logger's last pass moves head past closed buffers */
		for (pass = 0; pass < 2; pass++) {
			if (pass && !(ret == 0 && stopped))
				break;
			if (pass)
				ntkl_buffers_final(lg);
			ret = ubuf ? ntkl_read_buffer(lg, ubuf, lg->buffer_size, addresses) :
				     ntkl_hold_buffer(lg, slot, &nb->records, addresses, keep);
		}
		if (nb)
			nb->held = lg->held_count;
		if (ret == 0 && lg->paused) {
			/* the snapshot is read: the logger records on, reader open or not */
			ntkl_buffers_resume(lg);
			lg->snapshot_read = true;
		}
		mutex_unlock(&lg->lock);
		if (ret > 0 || (ret == 0 && stopped))
			return ret;
		if (ret < 0 && ret != -EAGAIN)
			return ret;
		if (nowait)
			return -EAGAIN;
		/*
		 * Nothing ready (0), or the next buffer's last record is still
		 * being written on another CPU (-EAGAIN): its writer's commit
		 * wakes us (ntkl_commit()), as closing a buffer does.
		 */
		ret = wait_event_interruptible(lg->wait, read_done(lg));
		if (ret < 0)
			return ret;
	}
}

static ssize_t ntkl_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct ntkl_logger *lg = file->private_data;

	if (!lg)
		return -EINVAL;		/* not bound to a logger */
	if (len < lg->buffer_size)
		return -EINVAL;		/* whole buffers only */
	return next_buffer(file, lg, buf, NULL, NULL);
}

long ntkl_reader_next(struct file *file, struct ntkl_next_buffer *nb)
{
	struct ntkl_logger *lg = READ_ONCE(file->private_data);
	unsigned long slot = 0;
	ssize_t ret;

	if (!lg)
		return -EINVAL;		/* not bound to a logger */
	ret = next_buffer(file, lg, NULL, &slot, nb);
	if (ret < 0)
		return ret;
	nb->offset = ret ? (u64)slot * ntkl_map_stride(lg) : 0;
	nb->length = ret;
	return 0;
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
		if (lg->paused)
			ntkl_buffers_resume(lg);
		mutex_unlock(&lg->lock);
		atomic_set(&lg->readers, 0);
		ntkl_logger_put(lg);
	}
	return 0;
}

static const struct file_operations ntkl_fops = {
	.owner = THIS_MODULE,
	.open = ntkl_open,
	.unlocked_ioctl = ntkl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = ntkl_read,
	.mmap = ntkl_mmap,
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
	ntkl_sched_init();
	ntkl_spinlock_init();
	ret = ntkl_stack_init();
	if (ret)
		return ret;
	ret = ntkl_image_init();
	if (ret)
		goto no_image;
	ret = ntkl_probes_register();
	if (ret)
		goto no_probes;
	ret = misc_register(&ntkl_miscdev);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", NTKL_DEVICE_NAME, ret);
		goto no_device;
	}
	pr_info("loaded\n");
	return 0;

no_device:
	ntkl_probes_unregister();
no_probes:
	ntkl_image_exit();
no_image:
	ntkl_stack_exit();
	return ret;
}

static void __exit ntkl_exit(void)
{
	misc_deregister(&ntkl_miscdev);
	/* no file is open (they hold the module): stop and free every logger */
	ntkl_logger_stop_all();
	ntkl_probes_unregister();
	ntkl_image_exit();
	ntkl_stack_exit();
	pr_info("unloaded\n");
}

module_init(ntkl_init);
module_exit(ntkl_exit);

MODULE_DESCRIPTION("NT Kernel Logger trace format (ETW) recorder");
MODULE_AUTHOR("ntkl developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(NTKL_VERSION);
