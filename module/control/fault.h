/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault points of the control paths, for the tests. Each step of START
 * and UPDATE that can fail (an allocation of ntkl's, a tracepoint probe,
 * kretprobe or perf event attached) asks ntkl_fault() first and, if told
 * to, fails as it would had the kernel refused (-ENOMEM). On a kernel
 * with CONFIG_FAULT_INJECTION (the debug kernel) a test makes the k-th
 * point its thread meets fail by writing k to /proc/thread-self/fail-nth
 * (Documentation/fault-injection/fault-injection.rst), one k after the
 * other, and checks that a call that failed left every logger and
 * producer as it was (selftests/ntkl_publish_test.c). The kernel's own
 * allocations inside those steps (a kretprobe's instances, a perf event)
 * fail through these points too: the step returns the same error. On
 * any other kernel ntkl_fault() is false and costs nothing.
 */
#ifndef _NTKL_CONTROL_FAULT_H
#define _NTKL_CONTROL_FAULT_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION
bool ntkl_fault(void);
void ntkl_fault_init(void);
#else
static inline bool ntkl_fault(void)
{
	return false;
}

static inline void ntkl_fault_init(void)
{
}
#endif

#endif /* _NTKL_CONTROL_FAULT_H */
