// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/ntkl (uapi/ntkl.h): the logger table's control calls,
 * binding a file descriptor to a logger as its reader, and the kernel-wide
 * spin lock sampling settings. Every operation needs CAP_SYS_ADMIN or
 * CAP_PERFMON.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "ntkl.h"

static int ntkl_bind(struct file *file, void __user *arg)
{
	struct ntkl_logger *lg;
	struct ntkl_bind b;
	int ret;

	if (!capable(CAP_SYS_ADMIN) && !perfmon_capable())
		return -EPERM;
	ret = copy_struct_from_user(&b, sizeof(b), arg, sizeof(b));
	if (ret)
		return ret;
	if (b.size != sizeof(b) || !memchr(b.logger_name, 0, sizeof(b.logger_name)))
		return -EINVAL;
	if (file->private_data)
		return -EBUSY;		/* this fd reads a logger already */

	lg = b.logger_name[0] ? ntkl_logger_get_by_name(b.logger_name) :
				ntkl_logger_get_by_id(b.logger_id);
	if (!lg)
		return -ENOENT;
	/* ERROR_ACTIVE_CONNECTIONS: one reader per logger */
	if (atomic_cmpxchg(&lg->readers, 0, 1)) {
		ntkl_logger_put(lg);
		return -EBUSY;
	}
	mutex_lock(&lg->lock);
	lg->header_read = false;	/* every reader's file starts with it */
	lg->snapshot_read = false;
	mutex_unlock(&lg->lock);
	file->private_data = lg;
	return 0;
}

/* xperf -setspinlocksample: kernel-wide, like Windows' setting. */
static long ntkl_spinlock_ioctl(unsigned int cmd, void __user *arg)
{
	struct ntkl_spinlock_config c;
	int ret;

	if (!capable(CAP_SYS_ADMIN) && !perfmon_capable())
		return -EPERM;
	ret = copy_struct_from_user(&c, sizeof(c), arg, sizeof(c));
	if (ret)
		return ret;
	if (c.size != sizeof(c))
		return -EINVAL;
	if (cmd == NTKL_IOC_SET_SPINLOCK_CONFIG)
		return ntkl_spinlock_set_config(&c);
	if (c.__reserved0)
		return -EINVAL;
	ntkl_spinlock_get_config(&c);
	return copy_to_user(arg, &c, sizeof(c)) ? -EFAULT : 0;
}

long ntkl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct ntkl_logger *lg = file->private_data;
	struct ntkl_properties p;

	switch (cmd) {
	case NTKL_IOC_START:
	case NTKL_IOC_STOP:
	case NTKL_IOC_QUERY:
	case NTKL_IOC_UPDATE:
	case NTKL_IOC_FLUSH:
	case NTKL_IOC_LIST:
		/* a bound reader may query its logger even after it stopped */
		if (cmd == NTKL_IOC_QUERY && lg) {
			u32 usize;

			if (get_user(usize, (u32 __user *)uarg))
				return -EFAULT;
			if (usize < NTKL_PROPERTIES_SIZE_VER0)
				return -EINVAL;
			ntkl_logger_fill(lg, &p);
			return copy_to_user(uarg, &p, sizeof(p)) ? -EFAULT : 0;
		}
		return ntkl_logger_ioctl(file, cmd, uarg);
	case NTKL_IOC_BIND:
		return ntkl_bind(file, uarg);
	case NTKL_IOC_SET_SPINLOCK_CONFIG:
	case NTKL_IOC_GET_SPINLOCK_CONFIG:
		return ntkl_spinlock_ioctl(cmd, uarg);
	default:
		return -ENOTTY;
	}
}
