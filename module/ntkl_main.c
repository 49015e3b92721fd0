// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl: record the Windows NT Kernel Logger's trace format on Linux.
 *
 * This file registers /dev/ntkl. The device is root-only (mode 0600): every
 * control operation needs CAP_SYS_ADMIN or CAP_PERFMON as well.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "uapi/ntkl.h"
#include "uapi/ntkl_etw.h"

static long ntkl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations ntkl_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ntkl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice ntkl_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = NTKL_DEVICE_NAME,
	.fops = &ntkl_fops,
	.mode = 0600,
};

static int __init ntkl_init(void)
{
	int ret;

	ret = misc_register(&ntkl_miscdev);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", NTKL_DEVICE_NAME, ret);
		return ret;
	}
	pr_info("loaded\n");
	return 0;
}

static void __exit ntkl_exit(void)
{
	misc_deregister(&ntkl_miscdev);
	pr_info("unloaded\n");
}

module_init(ntkl_init);
module_exit(ntkl_exit);

MODULE_DESCRIPTION("NT Kernel Logger trace format (ETW) recorder");
MODULE_AUTHOR("ntkl developers");
MODULE_LICENSE("GPL");
