// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/ntkl (uapi/ntkl.h): the logger table's control calls,
 * binding a file descriptor to a logger as its reader, the kernel-wide
 * spin lock sampling settings and profile interval, and the module's
 * version.
 *
 * Every ioctl's struct is copied by one rule (uapi/ntkl.h), here (and
 * NEXT_BUFFER's answer in device.c, with ntkl_copy_out(), while its
 * buffer is held): a struct is as long as its size field says, from its
 * first published size up; bytes past the kernel's struct must be zero
 * (E2BIG); min(size, ours) bytes go back. The capability each command
 * needs is checked here, once, by the table below; whether the caller may
 * act on a given logger is checked where the logger is found (logger.c,
 * bind_ioctl()), by access.c's rule.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "control/control.h"
#include "format/events.h"
#include "producers/producer.h"
#include "uapi/ntkl_bounds.h"

/*
 * Copy in a struct of ksize bytes whose first u32 is its size as the
 * caller has it: at least min_size (the first published size), else
 * EINVAL; larger than ksize only if the extra bytes are zero, else E2BIG;
 * shorter than ksize, the rest reads as zero. *usize is that size.
 */
static int copy_in(void *k, size_t ksize, size_t min_size, void __user *arg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)arg))
		return -EFAULT;
	if (*usize < min_size)
		return -EINVAL;
	return copy_struct_from_user(k, ksize, arg, *usize);
}

/*
 * Copy out min(usize, ksize) bytes; the size field says how many. Also
 * NEXT_BUFFER's answer (device.c), which puts its buffer back if this
 * faults.
 */
int ntkl_copy_out(void __user *arg, u32 usize, void *k, size_t ksize)
{
	u32 n = min_t(size_t, usize, ksize);

	*(u32 *)k = n;
	return copy_to_user(arg, k, n) ? -EFAULT : 0;
}

/* START, STOP, QUERY, UPDATE, FLUSH. */
static long props_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct ntkl_logger *bound = READ_ONCE(file->private_data);
	struct ntkl_properties p;
	u32 usize;
	int ret;

	ret = copy_in(&p, sizeof(p), NTKL_PROPERTIES_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	/*
	 * A bound reader may query its logger even once it stopped: when it
	 * names no logger, or names its own.
	 */
	if (cmd == NTKL_IOC_QUERY && bound &&
	    ((!p.logger_name[0] && !p.logger_id) || ntkl_logger_selected(bound, &p))) {
		ntkl_logger_fill(bound, &p);
	} else {
		ret = ntkl_logger_control(file, cmd, &p);
		if (ret)
			return ret;
	}
	return ntkl_copy_out(arg, usize, &p, sizeof(p));
}

/*
 * LIST: up to count properties at props, each props_size bytes apart
 * (min(props_size, ours) filled); count returns how many loggers run.
 */
static long list_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct ntkl_properties *props;
	struct ntkl_list l;
	u32 usize, i, n, copied, each;
	long ret = 0;

	ret = copy_in(&l, sizeof(l), NTKL_LIST_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	if (l.__reserved0 || l.props_size < NTKL_PROPERTIES_SIZE_VER0)
		return -EINVAL;
	props = kmalloc_array(NTKL_MAX_LOGGERS, sizeof(*props), GFP_KERNEL);
	if (!props)
		return -ENOMEM;
	n = ntkl_logger_list(props);
	copied = min(n, l.count);
	each = min_t(u32, l.props_size, sizeof(*props));
	for (i = 0; i < copied && !ret; i++) {
		void __user *to = u64_to_user_ptr(l.props + (u64)i * l.props_size);

		props[i].size = each;
		if (copy_to_user(to, &props[i], each) ||
		    (l.props_size > each && clear_user(to + each, l.props_size - each)))
			ret = -EFAULT;
	}
	kfree(props);
	if (ret)
		return ret;
	l.count = n;
	ret = ntkl_copy_out(arg, usize, &l, sizeof(l));
	return ret ?: (n > copied ? -E2BIG : 0);
}

/*
 * BIND: make this descriptor the one reader of a logger. Two threads
 * binding one descriptor at once: one wins, the other gets EBUSY and
 * gives its logger's reader slot and reference back.
 */
static long bind_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct ntkl_logger *lg;
	struct ntkl_bind b;
	u32 usize;
	int ret;

	ret = copy_in(&b, sizeof(b), NTKL_BIND_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	if (!memchr(b.logger_name, 0, sizeof(b.logger_name)))
		return -EINVAL;
	if (READ_ONCE(file->private_data))
		return -EBUSY;		/* this fd reads a logger already */

	lg = b.logger_name[0] ? ntkl_logger_get_by_name(b.logger_name) :
				ntkl_logger_get_by_id(b.logger_id);
	if (!lg)
		return -ENOENT;
	/* its events are its owner's: another user's reader is refused */
	ret = ntkl_may_manage(lg);
	if (ret) {
		ntkl_logger_put(lg);
		return ret;
	}
	/* ERROR_ACTIVE_CONNECTIONS: one reader per logger */
	if (atomic_cmpxchg(&lg->readers, 0, 1)) {
		ntkl_logger_put(lg);
		return -EBUSY;
	}
	/* the logger's reader slot is ours: its file starts anew */
	mutex_lock(&lg->lock);
	lg->header_read = false;
	lg->snapshot_read = false;
	mutex_unlock(&lg->lock);
	if (cmpxchg(&file->private_data, NULL, lg)) {
		/* another thread bound this descriptor meanwhile */
		atomic_set(&lg->readers, 0);
		ntkl_logger_put(lg);
		return -EBUSY;
	}
	return 0;
}

/* NEXT_BUFFER: a mapped reader's next buffer (uapi/ntkl.h). */
static long next_buffer_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct ntkl_next_buffer nb;
	u32 usize;
	long ret;

	ret = copy_in(&nb, sizeof(nb), NTKL_NEXT_BUFFER_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	if ((nb.flags & ~NTKL_NEXT_FLAGS) || nb.offset || nb.length || nb.records || nb.held)
		return -EINVAL;
	if (nb.release && !(nb.flags & NTKL_NEXT_KEEP))
		return -EINVAL;
	/* it copies its answer out itself: a fault puts the buffer back */
	return ntkl_reader_next(file, &nb, arg, usize);
}

/*
 * The kernel-wide settings, as Windows has them (xperf -setspinlocksample,
 * xperf -SetProfInt), each owned by its producer (struct ntkl_setting,
 * producer.h): a struct whose SET applies it and whose GET fills it in,
 * copied in by the size rule. Each struct starts with its size; the
 * producer checks the rest (a __reserved0 that must be 0).
 */
static long setting_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	const struct ntkl_setting *st = ntkl_producers_setting(cmd);
	u64 k[NTKL_SETTING_MAX / sizeof(u64)];
	u32 usize;
	int ret;

	if (!st || st->size > sizeof(k))
		return -ENOTTY;
	ret = copy_in(k, st->size, st->min_size, arg, &usize);
	if (ret)
		return ret;
	if (cmd == st->set_cmd)
		return st->set(k);
	ret = st->get(k);
	return ret ?: ntkl_copy_out(arg, usize, k, st->size);
}

/*
 * SET_STACK_TRACING and GET_STACK_TRACING: a logger's list of hooks whose
 * events carry stacks (uapi/ntkl.h), copied through a bounded array.
 */
static long stack_tracing_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct ntkl_stack_tracing st;
	void __user *uhooks;
	u16 *hooks = NULL;
	u32 usize, room;
	int ret;

	ret = copy_in(&st, sizeof(st), NTKL_STACK_TRACING_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	if (st.__reserved0 || st.stacks_truncated ||
	    memchr_inv(st.user_stops, 0, sizeof(st.user_stops)) ||
	    !memchr(st.logger_name, 0, sizeof(st.logger_name)) ||
	    (!st.logger_name[0] && !st.logger_id))
		return -EINVAL;
	uhooks = u64_to_user_ptr(st.hooks);
	if (cmd == NTKL_IOC_SET_STACK_TRACING) {
		if (st.count > NTKL_STACK_HOOKS_MAX)
			return -EINVAL;
		if (st.count) {
			hooks = memdup_user(uhooks, st.count * sizeof(*hooks));
			if (IS_ERR(hooks))
				return PTR_ERR(hooks);
		}
		ret = ntkl_logger_set_stack_tracing(&st, hooks);
		kfree(hooks);
		return ret;
	}
	/* GET: at most as many hooks as ntkl can walk */
	room = min_t(u32, st.count, NTKL_STACK_HOOKS_MAX);
	hooks = kcalloc(NTKL_STACK_HOOKS_MAX, sizeof(*hooks), GFP_KERNEL);
	if (!hooks)
		return -ENOMEM;
	ret = ntkl_logger_get_stack_tracing(&st, hooks, room);
	if (!ret && min(st.count, room) &&
	    copy_to_user(uhooks, hooks, min(st.count, room) * sizeof(*hooks)))
		ret = -EFAULT;
	kfree(hooks);
	if (ret)
		return ret;
	ret = ntkl_copy_out(arg, usize, &st, sizeof(st));
	return ret ?: (st.count > room ? -E2BIG : 0);
}

/* GET_VERSION: the ABI, and the group masks whose events the module writes. */
static long version_ioctl(struct file *file, unsigned int cmd, void __user *arg)
{
	struct perfinfo_groupmask gm = { };
	struct ntkl_version v;
	u32 usize;
	int ret, i;

	ret = copy_in(&v, sizeof(v), NTKL_VERSION_SIZE_VER0, arg, &usize);
	if (ret)
		return ret;
	memset(&v, 0, sizeof(v));
	v.abi_version = NTKL_ABI_VERSION;
	v.max_loggers = NTKL_MAX_LOGGERS;
	v.events = ETW_EVENT_COUNT;
	for (i = 0; i < ETW_EVENT_COUNT; i++)
		if (etw_events[i].header_type != ETW_HEADER_TYPE_ANY && etw_events[i].mask)
			perf_group_set(&gm, etw_events[i].mask);
	memcpy(v.group_masks, gm.masks, sizeof(v.group_masks));
	strscpy(v.module_version, NTKL_VERSION, sizeof(v.module_version));
	return ntkl_copy_out(arg, usize, &v, sizeof(v));
}

/* The ioctl number without its size: commands match on type, number and direction. */
#define IOC_BASE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/* What a command needs of its caller (access.c), besides opening the device. */
enum ntkl_need {
	NEED_NOTHING,
	NEED_PERFMON,		/* CAP_PERFMON or CAP_SYS_ADMIN: EPERM */
	NEED_ADMIN,		/* machine-wide: CAP_SYS_ADMIN: EPERM */
};

struct ntkl_ioc {
	unsigned int cmd;
	u32 min_size;		/* the size the number must encode, at least */
	enum ntkl_need need;
	long (*fn)(struct file *file, unsigned int cmd, void __user *arg);
};

static const struct ntkl_ioc iocs[] = {
	{ NTKL_IOC_START, NTKL_PROPERTIES_SIZE_VER0, NEED_PERFMON, props_ioctl },
	{ NTKL_IOC_STOP, NTKL_PROPERTIES_SIZE_VER0, NEED_PERFMON, props_ioctl },
	{ NTKL_IOC_QUERY, NTKL_PROPERTIES_SIZE_VER0, NEED_PERFMON, props_ioctl },
	{ NTKL_IOC_UPDATE, NTKL_PROPERTIES_SIZE_VER0, NEED_PERFMON, props_ioctl },
	{ NTKL_IOC_FLUSH, NTKL_PROPERTIES_SIZE_VER0, NEED_PERFMON, props_ioctl },
	{ NTKL_IOC_LIST, NTKL_LIST_SIZE_VER0, NEED_PERFMON, list_ioctl },
	{ NTKL_IOC_BIND, NTKL_BIND_SIZE_VER0, NEED_PERFMON, bind_ioctl },
	/* as read(): the descriptor's binding was the check */
	{ NTKL_IOC_NEXT_BUFFER, NTKL_NEXT_BUFFER_SIZE_VER0, NEED_NOTHING, next_buffer_ioctl },
	{ NTKL_IOC_SET_SPINLOCK_CONFIG, NTKL_SPINLOCK_CONFIG_SIZE_VER0, NEED_ADMIN,
	  setting_ioctl },
	{ NTKL_IOC_GET_SPINLOCK_CONFIG, NTKL_SPINLOCK_CONFIG_SIZE_VER0, NEED_PERFMON,
	  setting_ioctl },
	{ NTKL_IOC_GET_VERSION, NTKL_VERSION_SIZE_VER0, NEED_NOTHING, version_ioctl },
	{ NTKL_IOC_SET_PROFILE_INTERVAL, NTKL_PROFILE_INTERVAL_SIZE_VER0, NEED_ADMIN,
	  setting_ioctl },
	{ NTKL_IOC_GET_PROFILE_INTERVAL, NTKL_PROFILE_INTERVAL_SIZE_VER0, NEED_PERFMON,
	  setting_ioctl },
	{ NTKL_IOC_SET_STACK_TRACING, NTKL_STACK_TRACING_SIZE_VER0, NEED_PERFMON,
	  stack_tracing_ioctl },
	{ NTKL_IOC_GET_STACK_TRACING, NTKL_STACK_TRACING_SIZE_VER0, NEED_PERFMON,
	  stack_tracing_ioctl },
};

static bool has_need(enum ntkl_need need)
{
	switch (need) {
	case NEED_NOTHING:
		return true;
	case NEED_PERFMON:
		return ntkl_may_trace();
	default:
		return ntkl_may_set_global();
	}
}

long ntkl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(iocs); i++) {
		const struct ntkl_ioc *ioc = &iocs[i];

		if (IOC_BASE(cmd) != IOC_BASE(ioc->cmd))
			continue;
		if (_IOC_SIZE(cmd) < ioc->min_size)
			return -ENOTTY;
		if (!has_need(ioc->need))
			return -EPERM;
		/* the command as the table has it: handlers compare against it */
		return ioc->fn(file, ioc->cmd, (void __user *)arg);
	}
	return -ENOTTY;
}
