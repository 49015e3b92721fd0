// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what with /dev/ntkl: the one place of the module's access
 * policy (docs/design.md, "Who may trace"; ETW's security descriptors map
 * onto it in docs/linux-to-nt.md).
 *
 *  - opening the device: its mode and group (udev/60-ntkl.rules);
 *  - START, QUERY, LIST and the GET calls: CAP_PERFMON or CAP_SYS_ADMIN,
 *    as perf_event_open() asks for a system-wide trace; every caller sees
 *    every logger and its owner's uid, as ps shows whose a process is;
 *  - STOP, UPDATE, FLUSH, BIND (ntkl save) and SET_STACK_TRACING on a
 *    logger: its owner (the effective uid and user namespace that started
 *    it), or CAP_SYS_ADMIN over the owner's user namespace; else EACCES;
 *  - what is machine-wide (spin lock sampling, profile interval): only
 *    CAP_SYS_ADMIN, as a sysctl; else EPERM.
 *
 * The checks use the caller's credentials at the call, as capable() does,
 * not those of whoever opened the descriptor.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/user_namespace.h>

#include "control/control.h"

bool ntkl_may_trace(void)
{
	return perfmon_capable();
}

bool ntkl_may_set_global(void)
{
	return capable(CAP_SYS_ADMIN);
}

/*
 * The caller becomes lg's owner (START, before lg is published): its
 * credentials as they are now, whose effective uid and user namespace
 * ntkl_may_manage() compares.
 */
void ntkl_owner_set(struct ntkl_logger *lg)
{
	lg->owner = get_current_cred();
}

void ntkl_owner_put(struct ntkl_logger *lg)
{
	if (lg->owner)
		put_cred(lg->owner);
}

/*
 * 0 if the caller may stop, change or read lg, else -EACCES. The owner
 * never changes once lg is published: no lock needed.
 */
int ntkl_may_manage(const struct ntkl_logger *lg)
{
	if (uid_eq(current_euid(), lg->owner->euid) &&
	    current_user_ns() == lg->owner->user_ns)
		return 0;
	return ns_capable(lg->owner->user_ns, CAP_SYS_ADMIN) ? 0 : -EACCES;
}

/* The owner's uid as the caller's user namespace sees it (overflowuid if unmapped). */
u32 ntkl_owner_uid(const struct ntkl_logger *lg)
{
	return from_kuid_munged(current_user_ns(), lg->owner->euid);
}
