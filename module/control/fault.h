/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault points of the control paths, for the tests. Each step of START,
 * UPDATE and SET_STACK_TRACING that can fail (an allocation of ntkl's, a
 * tracepoint probe, kretprobe or perf event attached) asks ntkl_fault()
 * first and, if told to, fails as it would had the kernel refused
 * (-ENOMEM); so does each CPU's period change of SET_PROFILE_INTERVAL
 * (-EINVAL, as perf refuses a period). STOP, FLUSH, BIND and the other
 * SETs need nothing that can fail, and meet none. On a kernel
 * with CONFIG_FAULT_INJECTION (the debug kernel) a test makes the k-th
 * point its thread meets fail by writing k to /proc/thread-self/fail-nth
 * (Documentation/fault-injection/fault-injection.rst), one k after the
 * other, and checks that a call that failed left every logger and
 * producer as it was (selftests/ntkl_publish_test.c). The kernel's own
 * allocations inside those steps (a kretprobe's instances, a perf event)
 * fail through these points too: the step returns the same error. On
 * any other kernel ntkl_fault() is false and costs nothing.
 *
 * A kretprobe's point is ntkl_fault_probe(): its failure is -ENOMEM, or
 * -ENOENT while /sys/kernel/debug/ntkl/fault_absent is Y, as if this
 * kernel had no such function, which the probe's producer must report
 * (absent_hooks, uapi/ntkl.h) rather than fail the call.
 */
#ifndef _NTKL_CONTROL_FAULT_H
#define _NTKL_CONTROL_FAULT_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION
bool ntkl_fault(void);
int ntkl_fault_probe(void);
void ntkl_fault_init(void);
void ntkl_fault_exit(void);
#else
static inline bool ntkl_fault(void)
{
	return false;
}

static inline int ntkl_fault_probe(void)
{
	return 0;
}

static inline void ntkl_fault_init(void)
{
}

static inline void ntkl_fault_exit(void)
{
}
#endif

#endif /* _NTKL_CONTROL_FAULT_H */
