/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ntkl control ABI: ioctls on /dev/ntkl.
 *
 * The model is ETW's StartTrace/ControlTrace/QueryAllTraces: a table of up
 * to NTKL_MAX_LOGGERS loggers (trace sessions), each named, with its own
 * buffers, mode, clock and group masks. A logger lives until it is stopped,
 * whatever happens to the process that started it, unless it was started
 * with NTKL_MODE_OWNED: then also until its starting descriptor's last close.
 *
 * Rules (Documentation/process/botching-up-ioctls.rst): fixed-width fields,
 * explicit padding that must be zero, pointers as __u64, -ENOTTY for unknown
 * commands, and every struct starts with its size, so it can grow:
 *
 *  - the kernel takes a struct as long as its size field says, at least
 *    the first published size (NTKL_*_SIZE_VER0); a shorter one is EINVAL;
 *  - a struct longer than the kernel's is accepted if the bytes the kernel
 *    does not know are zero (copy_struct_from_user()), else E2BIG;
 *  - the kernel writes back min(size, its own size) bytes, never more;
 *  - the ioctl number is matched by type, number and direction; the size
 *    it encodes must be at least the first published size (else ENOTTY).
 *
 * NTKL_IOC_GET_VERSION says which ABI and events the module has, so a
 * newer ntkl command can name an older module instead of failing oddly.
 * Bounds of every setting: ntkl_bounds.h. ETW errors map onto errno:
 *
 *   ERROR_ALREADY_EXISTS          EEXIST   a logger with that name runs
 *   ERROR_NO_SYSTEM_RESOURCES     ENOSPC   all 64 loggers are in use
 *   ERROR_WMI_INSTANCE_NOT_FOUND  ENOENT   no such logger
 *   ERROR_INVALID_PARAMETER       EINVAL   bad property, bound, mode, clock,
 *                                          name, or a nonzero reserved field
 *   ERROR_BAD_LENGTH              EINVAL   size field below the first
 *                                          published size
 *   ERROR_BAD_LENGTH              E2BIG    a longer struct whose bytes past
 *                                          the kernel's are not zero
 *   ERROR_ACCESS_DENIED           EPERM    no CAP_PERFMON (or CAP_SYS_ADMIN); or
 *                                          a machine-wide SET without
 *                                          CAP_SYS_ADMIN
 *   ERROR_ACCESS_DENIED           EACCES   STOP, UPDATE, FLUSH, BIND or
 *                                          SET_STACK_TRACING of a logger
 *                                          another user started, without
 *                                          CAP_SYS_ADMIN (owner_uid says whose)
 *   ERROR_MORE_DATA               E2BIG    list buffer too small (count set)
 *   ERROR_ACTIVE_CONNECTIONS      EBUSY    logger already bound to a reader,
 *                                          or this descriptor to a logger
 *   ERROR_NOT_SUPPORTED           ENOTTY   unknown ioctl
 *   ERROR_NOT_SUPPORTED           EOPNOTSUPP  START or UPDATE with PROFILE: the
 *                                          kernel gave no perf sampling counter
 */
#ifndef _UAPI_NTKL_H
#define _UAPI_NTKL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NTKL_DEVICE_NAME	"ntkl"

/*
 * The ABI's version: 1 was the first published one; 2 added GET_VERSION
 * and structs of any size (above); 3 added the stack tracing ioctls
 * (SET/GET_STACK_TRACING), NTKL_MODE_OWNED and the DPC and INTERRUPT
 * groups; 4 gave loggers owners (owner_uid; EACCES for another's logger,
 * CAP_SYS_ADMIN for the machine-wide SETs); 5 added mapped reading (mmap
 * of a bound descriptor and NEXT_BUFFER); 6 stack caching (logger_options,
 * where a reserved field that had to be zero was); 7 user stacks by unwind
 * tables (NTKL_LOGGER_OPT_FRAME_POINTERS for the old walk, and why user
 * stacks ended in GET_STACK_TRACING); 8 the events this kernel cannot give
 * (absent_count and absent_hooks of struct ntkl_properties). The module's
 * own version is the release it comes from.
 */
#define NTKL_ABI_VERSION	8
#define NTKL_VERSION		"0.3"
#define NTKL_DEVICE_PATH	"/dev/ntkl"

#define NTKL_MAX_LOGGERS	64
#define NTKL_NAME_MAX		128	/* bytes, NUL included (UTF-8) */

/* Bounds, as ETW's (MS-ETP): BufferSize in KB, 4 KB to 16 MB. */
#define NTKL_MIN_BUFFER_KB	4
#define NTKL_MAX_BUFFER_KB	16384
#define NTKL_DEFAULT_BUFFER_KB	64
/* Buffers: at least 2 per CPU; a ceiling keeps one logger from taking all memory. */
#define NTKL_MIN_BUFFERS_PER_CPU 2
#define NTKL_DEFAULT_BUFFERS_PER_CPU 8	/* maximum_buffers 0 */
#define NTKL_MAX_BUFFERS	4096
#define NTKL_MAX_FLUSH_TIMER	3600	/* seconds */

/* Log file modes a logger accepts (the rest of EVENT_TRACE_*: EINVAL). */
#define NTKL_MODE_BUFFERING	0x00000400u	/* EVENT_TRACE_BUFFERING_MODE */
#define NTKL_MODE_MS_FLUSH_TIMER 0x00000010u	/* EVENT_TRACE_USE_MS_FLUSH_TIMER */
#define NTKL_MODE_SYSTEM_LOGGER	0x02000000u	/* EVENT_TRACE_SYSTEM_LOGGER_MODE */
#define NTKL_MODE_SEQUENTIAL	0x00000001u	/* EVENT_TRACE_FILE_MODE_SEQUENTIAL */
#define NTKL_MODE_REAL_TIME	0x00000100u	/* EVENT_TRACE_REAL_TIME_MODE */
/*
 * ntkl's own mode, no ETW one (ETW ends a session only when asked): the
 * logger is owned by the descriptor that started it and stops when that
 * descriptor is closed for the last time, so a recorder that dies (kill
 * -9, OOM) leaves no logger behind. Never written to a file's LogFileMode.
 */
#define NTKL_MODE_OWNED		0x40000000u
#define NTKL_MODES_ALLOWED	(NTKL_MODE_BUFFERING | NTKL_MODE_MS_FLUSH_TIMER | \
				 NTKL_MODE_SYSTEM_LOGGER | NTKL_MODE_SEQUENTIAL | \
				 NTKL_MODE_REAL_TIME | NTKL_MODE_OWNED)

/*
 * Logger options (struct ntkl_properties.logger_options), ntkl's own: no
 * LogFileMode bit is free (evntrace.h and the kernel's own modes use the
 * other 31; 0x20000000 is EVENT_TRACE_BLOCKING_MODE). Unknown bits:
 * EINVAL.
 *
 * STACK_CACHING (Windows: the ETW_EXT_STACK_CACHING item of the enable
 * flags, WPR's StackCaching element): the logger's stacks are written as
 * references to keys (StackKeyKernel, StackKeyUser) and each key's
 * frames once (KeyDelete, KeyRundown), not as a Stack record each.
 */
#define NTKL_LOGGER_OPT_STACK_CACHING	0x00000001u
/*
 * FRAME_POINTERS: user stacks by the frame-pointer chain alone, as before
 * ABI 7, not by the binaries' unwind tables (.eh_frame). While any running
 * logger walks stacks without it, every logger's user stacks are walked
 * by the tables (one walk serves every logger).
 */
#define NTKL_LOGGER_OPT_FRAME_POINTERS	0x00000002u
#define NTKL_LOGGER_OPTS_ALLOWED	(NTKL_LOGGER_OPT_STACK_CACHING | \
					 NTKL_LOGGER_OPT_FRAME_POINTERS)

/* Clock types (WNODE_HEADER.ClientContext). */
#define NTKL_CLOCK_QPC		1	/* CLOCK_MONOTONIC ticks at 10 MHz */
#define NTKL_CLOCK_SYSTEM	2	/* FILETIME, 100 ns since 1601 */
#define NTKL_CLOCK_CYCLE	3	/* the TSC on x86; CLOCK_MONOTONIC ns elsewhere */

/* Flags: WMI_LOGGER_CONTEXT.Flags bits that mean something here */
#define NTKL_LOGGER_FLAG_REAL_TIME	0x00000008u	/* a reader is bound */
#define NTKL_LOGGER_FLAG_KERNEL_TRACE	0x00000020u	/* every ntkl logger */

/* LoggerStatus */
#define NTKL_STATUS_RUNNING	1
#define NTKL_STATUS_STOPPED	2

/*
 * A logger's properties: the input of START, the output of QUERY, STOP,
 * FLUSH, UPDATE and LIST (like EVENT_TRACE_PROPERTIES). Fields marked "out"
 * must be zero on input.
 *
 * Its owner is whoever started it (effective uid and user namespace):
 * anyone allowed on the device may QUERY and LIST every logger, but only
 * the owner, or CAP_SYS_ADMIN, may STOP, UPDATE, FLUSH, BIND or set its
 * stack tracing (else EACCES). A module of ABI 3 or older writes no
 * owner_uid: the size it writes back is 320 then.
 */
struct ntkl_properties {
	__u32 size;			/* sizeof(struct ntkl_properties) */
	__u32 logger_id;		/* out on START; selects on other calls if name is empty */
	char logger_name[NTKL_NAME_MAX];	/* NUL-terminated, case-insensitive */
	__u32 buffer_size_kb;		/* 0: default */
	__u32 minimum_buffers;		/* 0: default (2 per CPU) */
	__u32 maximum_buffers;		/* 0: default (8 per CPU) */
	__u32 log_file_mode;		/* NTKL_MODE_* */
	__u32 clock_type;		/* NTKL_CLOCK_*; 0: QPC */
	__u32 flush_timer;		/* seconds (ms with NTKL_MODE_MS_FLUSH_TIMER); 0: none */
	__u32 enable_flags;		/* EVENT_TRACE_FLAG_*, ORed into group_masks */
	__u32 logger_options;		/* NTKL_LOGGER_OPT_* (ABI 6; zero before, and on UPDATE) */
	__u32 group_masks[8];		/* PERFINFO_GROUPMASK */

	/* out: settings as applied and counters */
	__u8 instance_guid[16];
	__u32 number_of_buffers;
	__u32 free_buffers;		/* BuffersAvailable */
	__u32 number_of_processors;
	__u32 maximum_event_size;
	__u64 events_lost;
	__u64 buffers_written;
	__u64 log_buffers_lost;		/* 0: ntkl never drops a closed buffer (a */
	__u64 real_time_buffers_lost;	/* full ring drops events: events_lost) */
	__u64 sequence_number;		/* buffers taken so far */
	__u64 start_time;		/* FILETIME */
	__u64 start_clock;		/* clock value at start */
	__u64 perf_freq;		/* clock ticks per second */
	__u64 boot_time;		/* FILETIME */
	__u32 logger_status;		/* NTKL_STATUS_* */
	__u32 accept_new_events;
	__u32 flags;			/* NTKL_LOGGER_FLAG_* */
	__u32 readers;			/* bound reader file descriptors */
	/*
	 * ABI 4: the effective uid that started it, as the caller's user
	 * namespace maps it (the overflow uid, 65534, if it does not)
	 */
	__u32 owner_uid;
	__u32 __reserved1;		/* zero */
	/*
	 * ABI 8, out: events the logger takes that this kernel cannot give in
	 * full, because a kernel function ntkl probes for them is absent (a
	 * kernel built without it, or one that renamed it): how many, and up
	 * to NTKL_ABSENT_HOOKS_MAX of them by hook id (group << 8 | opcode,
	 * as ETW_HOOK()). Such an event is missing, or missing from some of
	 * the calls it comes from; the kernel log names the function. START,
	 * UPDATE and QUERY fill them; a call still succeeds.
	 */
	__u32 absent_count;
	__u16 absent_hooks[14];
};

#define NTKL_PROPERTIES_SIZE_VER0	320	/* first published size */
#define NTKL_PROPERTIES_SIZE_VER1	328	/* ABI 4: owner_uid */
#define NTKL_PROPERTIES_SIZE_VER2	360	/* ABI 8: absent_count, absent_hooks */
#define NTKL_ABSENT_HOOKS_MAX		14

/*
 * LIST: fill up to count properties at props; count returns how many
 * loggers run. E2BIG if count was too small (then props holds the first).
 */
struct ntkl_list {
	__u32 size;			/* sizeof(struct ntkl_list) */
	__u32 count;			/* in: capacity of props; out: loggers running */
	__u32 props_size;		/* sizeof(struct ntkl_properties) */
	__u32 __reserved0;		/* must be zero */
	__u64 props;			/* struct ntkl_properties * */
};

/*
 * BIND: make this file descriptor the reader of one logger (by id, or by
 * name if non-empty). read() then returns whole buffers: first the header
 * buffer, then flushed buffers in the order they were written; 0 at the
 * end once the logger stopped. poll() says POLLIN when one is ready.
 */
struct ntkl_bind {
	__u32 size;
	__u32 logger_id;
	char logger_name[NTKL_NAME_MAX];
};

#define NTKL_BIND_SIZE_VER0		136

/*
 * Mapped reading, the zero-copy form of read() (as the ring buffer's
 * trace_mmap.h): mmap() of a bound descriptor maps its logger's buffers
 * read-only (MAP_SHARED, PROT_READ), one slot each, a slot being the
 * buffer size rounded up to the page size: slot 0 the header buffer, then
 * the logger's number_of_buffers buffers. The mapping may be shorter than
 * all of them; offset and length are whole pages. mmap() is EPERM for a
 * reader that may not see kernel addresses (read() hashes them; mapped
 * buffers hold them as recorded) or for a writable mapping, EINVAL on an
 * unbound descriptor or past the last slot.
 *
 * NEXT_BUFFER gives the reader the buffer read() would copy next, where
 * it lies in the mapping: offset, length (the buffer size) and how many
 * records it holds (the kernel counted them, so the reader need not walk
 * them), or length 0 at the end, once the logger stopped and every
 * buffer was given. Its out fields must be zero going in. The
 * reader has the buffer until its next NEXT_BUFFER, read() or close;
 * till then the logger does not reuse it. It waits as read() does, or is
 * EAGAIN with O_NONBLOCK or NTKL_NEXT_NOWAIT; EINVAL on an unbound
 * descriptor or an unknown flag.
 *
 * NTKL_NEXT_KEEP lets a reader hold several buffers at once (up to
 * NTKL_NEXT_MAX_HELD, the header buffer included), so that it can have
 * several writes of them in flight: the buffers it holds stay held, but
 * for the oldest release of them, given back first. Without it release
 * must be 0 and every buffer held is given back, as before. Given back
 * means given back even when no buffer is taken after all (EAGAIN,
 * EINTR, the end): a retry asks for release 0. held says how many the
 * reader holds on return (this one included). EINVAL: release with no
 * KEEP, or more than are held, or KEEP on a buffering-mode logger (its
 * snapshot is read one buffer at a time); EBUSY: KEEP when
 * NTKL_NEXT_MAX_HELD are held and none is given back.
 */
struct ntkl_next_buffer {
	__u32 size;			/* sizeof(struct ntkl_next_buffer) */
	__u32 flags;			/* NTKL_NEXT_* */
	__u64 offset;			/* out: the buffer's offset in the mapping */
	__u32 length;			/* out: its bytes; 0: no more buffers */
	__u32 records;			/* out: the records in it (0: the header) */
	__u32 release;			/* with NTKL_NEXT_KEEP: oldest held to give back */
	__u32 held;			/* out: buffers held now */
};

#define NTKL_NEXT_BUFFER_SIZE_VER0	24
#define NTKL_NEXT_BUFFER_SIZE_VER1	32	/* release, held */

#define NTKL_NEXT_KEEP		0x00000001u	/* keep holding the buffers held */
#define NTKL_NEXT_NOWAIT	0x00000002u	/* EAGAIN rather than wait */
#define NTKL_NEXT_FLAGS		(NTKL_NEXT_KEEP | NTKL_NEXT_NOWAIT)
#define NTKL_NEXT_MAX_HELD	16

/*
 * Spin lock sampling, EVENT_TRACE_SPINLOCK_INFORMATION's fields in its
 * order, kernel-wide as in Windows, so SET needs CAP_SYS_ADMIN (EPERM).
 * Bounds as Windows': SpinThreshold >= 1, AcquireSampleRate >= 1000,
 * ContentionSampleRate >= 1, HoldThreshold 0 or >= 1,000,000 (cycles);
 * anything else is EINVAL. SET with every field 0 but size restores the
 * defaults.
 */
struct ntkl_spinlock_config {
	__u32 size;			/* sizeof(struct ntkl_spinlock_config) */
	__u32 spin_threshold;		/* default 1 */
	__u32 acquire_sample_rate;	/* default 1000 */
	__u32 contention_sample_rate;	/* default 1 */
	__u32 hold_threshold;		/* default 1,000,000 */
	__u32 __reserved0;		/* must be zero */
};

#define NTKL_SPIN_THRESHOLD_MIN		1
#define NTKL_ACQUIRE_SAMPLE_RATE_MIN	1000
#define NTKL_CONTENTION_SAMPLE_RATE_MIN	1
#define NTKL_HOLD_THRESHOLD_MIN		1000000

/*
 * The sampled profile interval (PROFILE loggers), kernel-wide as Windows'
 * (TRACE_PROFILE_INTERVAL, xperf -SetProfInt): in 100 ns units, default
 * 10000 (1 ms), bounds xperf's, 1221 to 10,000,000 (8.2 kHz to 1 Hz);
 * anything else is EINVAL. SET needs CAP_SYS_ADMIN (EPERM). Source is
 * the profile source: only the timer (0) exists. SET with interval 0
 * restores the default. SET while PROFILE loggers run changes their
 * sampling at once and writes SetInterval to each.
 */
struct ntkl_profile_interval {
	__u32 size;			/* sizeof(struct ntkl_profile_interval) */
	__u32 source;			/* 0: the timer */
	__u32 interval;			/* 100 ns units */
	__u32 __reserved0;		/* must be zero */
};

#define NTKL_PROFILE_SOURCE_TIMER	0
#define NTKL_PROFILE_INTERVAL_DEFAULT	10000
#define NTKL_PROFILE_INTERVAL_MIN	1221
#define NTKL_PROFILE_INTERVAL_MAX	10000000

/*
 * Stack tracing (TraceSetInformation's TraceStackTracingInfo, xperf
 * -stackwalk): the hooks (CLASSIC_EVENT_ID's group << 8 | type, e.g.
 * 0x0524 CSwitch) after whose events a logger writes a StackWalk/Stack
 * event (0x1820) with the stack of the thread the event is about.
 * Selects the logger as the properties calls do (name if non-empty, else
 * id). SET replaces the logger's list with count hooks at hooks (count 0:
 * no stacks); a hook ntkl cannot walk (NTKL_STACK_HOOK_* are those it can),
 * or more than NTKL_STACK_HOOKS_MAX, is EINVAL. GET fills up to count
 * hooks at hooks (count in: their room) and returns how many the logger
 * walks in count (E2BIG if there was less room), with the logger's
 * truncated stacks (the frames ran past ETW_STACK_MAX_FRAMES) and, from
 * ABI 7 (size NTKL_STACK_TRACING_SIZE_VER1), how its stacks' user parts
 * ended, by enum ntkl_user_stop.
 */
enum ntkl_user_stop {
	NTKL_USTOP_END = 0,	/* whole: the outermost frame, or a zero return address */
	NTKL_USTOP_NO_MAP,	/* the process's map was still being made */
	NTKL_USTOP_NO_DATA,	/* code with no unwind data, and no frame pointer */
	NTKL_USTOP_BAD_READ,	/* a read of the stack failed (not resident, not mapped) */
	NTKL_USTOP_LIMIT,	/* the frame cap */
	NTKL_USTOP_FRAME_POINTER, /* walked by frame pointers (no tables): where they ended */
	NTKL_USTOP_COUNT
};

struct ntkl_stack_tracing {
	__u32 size;			/* sizeof(struct ntkl_stack_tracing) */
	__u32 logger_id;
	char logger_name[NTKL_NAME_MAX];
	__u32 count;
	__u32 __reserved0;		/* must be zero */
	__u64 hooks;			/* __u16 * */
	__u64 stacks_truncated;		/* out (GET); must be zero on input */
	/* ABI 7: out (GET), must be zero on input; user stacks by how they ended */
	__u64 user_stops[NTKL_USTOP_COUNT];
};

#define NTKL_STACK_TRACING_SIZE_VER0	160
#define NTKL_STACK_TRACING_SIZE_VER1	208
#define NTKL_STACK_HOOKS_MAX		256	/* as Windows' list */

/* The hooks ntkl can walk (uapi/ntkl_event_list.h has their events). */
#define NTKL_STACK_HOOK_CSWITCH		0x0524
#define NTKL_STACK_HOOK_SPINLOCK	0x0529
#define NTKL_STACK_HOOK_READY_THREAD	0x0532
#define NTKL_STACK_HOOK_PROFILE		0x0F2E

#define NTKL_LIST_SIZE_VER0		24
#define NTKL_SPINLOCK_CONFIG_SIZE_VER0	24
#define NTKL_PROFILE_INTERVAL_SIZE_VER0	16

/*
 * GET_VERSION: what this module is. group_masks has a bit for every group
 * mask (PERF_*, as PERFINFO_GROUPMASK) whose events the module records;
 * flags that select none of them record only the rundown.
 */
struct ntkl_version {
	__u32 size;			/* sizeof(struct ntkl_version) */
	__u32 abi_version;		/* NTKL_ABI_VERSION of the module */
	__u32 max_loggers;		/* NTKL_MAX_LOGGERS */
	__u32 events;			/* kernel events in its event list */
	__u32 group_masks[8];		/* PERFINFO_GROUPMASK of what it records */
	char module_version[32];	/* NTKL_VERSION of the module, NUL-terminated */
};

#define NTKL_VERSION_SIZE_VER0		80

#define NTKL_IOC_MAGIC		0xE7	/* unused in ioctl-number.rst */

#define NTKL_IOC_START	_IOWR(NTKL_IOC_MAGIC, 0x01, struct ntkl_properties)
#define NTKL_IOC_STOP	_IOWR(NTKL_IOC_MAGIC, 0x02, struct ntkl_properties)
#define NTKL_IOC_QUERY	_IOWR(NTKL_IOC_MAGIC, 0x03, struct ntkl_properties)
#define NTKL_IOC_UPDATE	_IOWR(NTKL_IOC_MAGIC, 0x04, struct ntkl_properties)
#define NTKL_IOC_FLUSH	_IOWR(NTKL_IOC_MAGIC, 0x05, struct ntkl_properties)
#define NTKL_IOC_LIST	_IOWR(NTKL_IOC_MAGIC, 0x06, struct ntkl_list)
#define NTKL_IOC_BIND	_IOW(NTKL_IOC_MAGIC, 0x07, struct ntkl_bind)
#define NTKL_IOC_SET_SPINLOCK_CONFIG _IOW(NTKL_IOC_MAGIC, 0x08, struct ntkl_spinlock_config)
#define NTKL_IOC_GET_SPINLOCK_CONFIG _IOWR(NTKL_IOC_MAGIC, 0x09, struct ntkl_spinlock_config)
#define NTKL_IOC_GET_VERSION	_IOWR(NTKL_IOC_MAGIC, 0x0A, struct ntkl_version)
#define NTKL_IOC_SET_PROFILE_INTERVAL _IOW(NTKL_IOC_MAGIC, 0x0B, struct ntkl_profile_interval)
#define NTKL_IOC_GET_PROFILE_INTERVAL _IOWR(NTKL_IOC_MAGIC, 0x0C, struct ntkl_profile_interval)
#define NTKL_IOC_SET_STACK_TRACING _IOW(NTKL_IOC_MAGIC, 0x0D, struct ntkl_stack_tracing)
#define NTKL_IOC_GET_STACK_TRACING _IOWR(NTKL_IOC_MAGIC, 0x0E, struct ntkl_stack_tracing)
#define NTKL_IOC_NEXT_BUFFER	_IOWR(NTKL_IOC_MAGIC, 0x0F, struct ntkl_next_buffer)

#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

/* 64-bit fields stay 8-aligned and no padding hides anywhere. */
static_assert(sizeof(struct ntkl_properties) == NTKL_PROPERTIES_SIZE_VER2,
	      "struct ntkl_properties size");
static_assert(__builtin_offsetof(struct ntkl_properties, owner_uid) ==
	      NTKL_PROPERTIES_SIZE_VER0 &&
	      __builtin_offsetof(struct ntkl_properties, absent_count) ==
	      NTKL_PROPERTIES_SIZE_VER1, "struct ntkl_properties grows at its end");
static_assert(sizeof(((struct ntkl_properties *)0)->absent_hooks) ==
	      NTKL_ABSENT_HOOKS_MAX * sizeof(__u16), "absent_hooks holds NTKL_ABSENT_HOOKS_MAX");
static_assert(sizeof(struct ntkl_list) == NTKL_LIST_SIZE_VER0, "struct ntkl_list size");
static_assert(sizeof(struct ntkl_bind) == NTKL_BIND_SIZE_VER0, "struct ntkl_bind size");
static_assert(sizeof(struct ntkl_next_buffer) == NTKL_NEXT_BUFFER_SIZE_VER1 &&
	      __builtin_offsetof(struct ntkl_next_buffer, offset) == 8 &&
	      __builtin_offsetof(struct ntkl_next_buffer, length) == 16 &&
	      __builtin_offsetof(struct ntkl_next_buffer, release) ==
	      NTKL_NEXT_BUFFER_SIZE_VER0,
	      "struct ntkl_next_buffer layout");
static_assert(sizeof(struct ntkl_spinlock_config) == NTKL_SPINLOCK_CONFIG_SIZE_VER0,
	      "struct ntkl_spinlock_config size");
static_assert(sizeof(struct ntkl_version) == NTKL_VERSION_SIZE_VER0, "struct ntkl_version size");
static_assert(__builtin_offsetof(struct ntkl_stack_tracing, user_stops) ==
	      NTKL_STACK_TRACING_SIZE_VER0, "ABI 7's fields follow ABI 6's struct");
static_assert(sizeof(struct ntkl_stack_tracing) == NTKL_STACK_TRACING_SIZE_VER1,
	      "struct ntkl_stack_tracing size");
static_assert(sizeof(struct ntkl_profile_interval) == NTKL_PROFILE_INTERVAL_SIZE_VER0,
	      "struct ntkl_profile_interval size");
static_assert(__builtin_offsetof(struct ntkl_version, group_masks) == 16 &&
	      __builtin_offsetof(struct ntkl_version, module_version) == 48,
	      "struct ntkl_version layout");

#endif /* _UAPI_NTKL_H */
