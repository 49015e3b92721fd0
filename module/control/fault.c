// SPDX-License-Identifier: GPL-2.0
/*
 * The control paths' fault points (control/fault.h): one fault_attr of
 * the kernel's, which fails nothing by itself (probability 0) and so only
 * when a thread's /proc/thread-self/fail-nth says so, quietly (a forced
 * failure is no bug to report).
 */
#include <linux/types.h>
#include <linux/fault-inject.h>

#include "control/fault.h"

#ifdef CONFIG_FAULT_INJECTION
static struct fault_attr ntkl_fault_attr = FAULT_ATTR_INITIALIZER;

void ntkl_fault_init(void)
{
	ntkl_fault_attr.verbose = 0;
}

bool ntkl_fault(void)
{
	return should_fail(&ntkl_fault_attr, 1);
}
#endif
