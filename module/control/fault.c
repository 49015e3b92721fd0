// SPDX-License-Identifier: GPL-2.0
/*
 * The control paths' fault points (control/fault.h): one fault_attr of
 * the kernel's, which fails nothing by itself (probability 0) and so only
 * when a thread's /proc/thread-self/fail-nth says so, quietly (a forced
 * failure is no bug to report); and a debugfs switch that makes a
 * kretprobe's forced failure an absent function rather than no memory.
 */
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/fault-inject.h>
#include <linux/types.h>

#include "control/fault.h"

#ifdef CONFIG_FAULT_INJECTION
static struct fault_attr ntkl_fault_attr = FAULT_ATTR_INITIALIZER;
static bool fault_absent;
static struct dentry *fault_dir;

void ntkl_fault_init(void)
{
	ntkl_fault_attr.verbose = 0;
	/* no debugfs (or no room in it) leaves -ENOMEM the only forced error */
	fault_dir = debugfs_create_dir("ntkl", NULL);
	debugfs_create_bool("fault_absent", 0600, fault_dir, &fault_absent);
}

void ntkl_fault_exit(void)
{
	debugfs_remove_recursive(fault_dir);
}

bool ntkl_fault(void)
{
	return should_fail(&ntkl_fault_attr, 1);
}

int ntkl_fault_probe(void)
{
	if (!should_fail(&ntkl_fault_attr, 1))
		return 0;
	return READ_ONCE(fault_absent) ? -ENOENT : -ENOMEM;
}
#endif
