/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ETW wire format as the NT Kernel Logger writes it: buffers, record headers,
 * the logfile header and the event payloads ntkl produces, 64-bit forms only.
 *
 * One source of truth for the module, the ntkl tool and the tests. Layouts
 * come from Geoff Chappell's studies (shared/seeds/) and
 * shared/docs/etl-format.md; every size and offset given there is checked by
 * a static_assert at the end of this file. Everything is little-endian.
 *
 * Names are the Windows names in kernel style (WMI_BUFFER_HEADER becomes
 * struct wmi_buffer_header, BufferSize becomes buffer_size).
 */
#ifndef _UAPI_NTKL_ETW_H
#define _UAPI_NTKL_ETW_H

#include <linux/types.h>
#include <asm/byteorder.h>

/* ---------------------------------------------------------------------- */
/* Buffers (WMI_BUFFER_HEADER, 0x48 bytes)                                 */
/* ---------------------------------------------------------------------- */

/* BufferFlag */
#define ETW_BUFFER_FLAG_NORMAL		0x0000
#define ETW_BUFFER_FLAG_FLUSH_MARKER	0x0001
#define ETW_BUFFER_FLAG_EVENTS_LOST	0x0002
#define ETW_BUFFER_FLAG_BUFFER_LOST	0x0004
#define ETW_BUFFER_FLAG_RTBACKUP_CORRUPT 0x0008
#define ETW_BUFFER_FLAG_RTBACKUP	0x0010
#define ETW_BUFFER_FLAG_PROC_INDEX	0x0020
#define ETW_BUFFER_FLAG_COMPRESSED	0x0040

/* BufferType */
#define ETW_BUFFER_TYPE_GENERIC		0
#define ETW_BUFFER_TYPE_RUNDOWN		1
#define ETW_BUFFER_TYPE_CTX_SWAP	2
#define ETW_BUFFER_TYPE_REFTIME		3
#define ETW_BUFFER_TYPE_HEADER		4
#define ETW_BUFFER_TYPE_BATCHED		5
#define ETW_BUFFER_TYPE_EMPTY_MARKER	6
#define ETW_BUFFER_TYPE_DBG_INFO	7
#define ETW_BUFFER_TYPE_MAXIMUM		8

/* State: what the buffer is doing; a buffer in a file has been flushed. */
#define ETW_BUFFER_STATE_FREE		0
#define ETW_BUFFER_STATE_GENERAL_LOGGING 1
#define ETW_BUFFER_STATE_CSWITCH	2
#define ETW_BUFFER_STATE_FLUSH		3

/* Records start on 8-byte boundaries; the unused tail of a buffer is 0xFF. */
#define ETW_RECORD_ALIGN		8
#define ETW_BUFFER_FILL_BYTE		0xFF
#define ETW_END_OF_RECORDS_MARKER	0xFFFFFFFFu

struct wmi_buffer_header {
	__u32 buffer_size;		/* bytes from here to the next buffer */
	__u32 saved_offset;		/* filled bytes, this header included */
	__u32 current_offset;
	__s32 reference_count;
	__s64 timestamp;		/* clock value at flush */
	__s64 sequence_number;		/* 0 for the header buffer, then 1..N */
	__u64 clock_type_frequency;	/* ClockType:3, Frequency:61 */
	__u16 processor_index;		/* ETW_BUFFER_CONTEXT */
	__u16 logger_id;
	__u32 state;
	__u32 offset;
	__u16 buffer_flag;
	__u16 buffer_type;
	/*
	 * A union in Windows: ReferenceTime (ETW_REF_CLOCK: StartTime,
	 * StartPerfClock) or GlobalEntry (a LIST_ENTRY). Windows' files keep
	 * GlobalEntry's pointers; ntkl writes the logger's ReferenceTime.
	 */
	__s64 start_time;		/* FILETIME of start_perf_clock */
	__s64 start_perf_clock;		/* the Header's SystemTime */
};

/* ---------------------------------------------------------------------- */
/* Record headers                                                          */
/* ---------------------------------------------------------------------- */

/* HeaderType: byte 2 of every record's first dword. */
#define ETW_HEADER_TYPE_SYSTEM32	0x01
#define ETW_HEADER_TYPE_SYSTEM64	0x02
#define ETW_HEADER_TYPE_COMPACT32	0x03
#define ETW_HEADER_TYPE_COMPACT64	0x04
#define ETW_HEADER_TYPE_FULL_HEADER32	0x0A
#define ETW_HEADER_TYPE_INSTANCE32	0x0B
#define ETW_HEADER_TYPE_TIMED		0x0C
#define ETW_HEADER_TYPE_ERROR		0x0D
#define ETW_HEADER_TYPE_WNODE_HEADER	0x0E
#define ETW_HEADER_TYPE_MESSAGE		0x0F
#define ETW_HEADER_TYPE_PERFINFO32	0x10
#define ETW_HEADER_TYPE_PERFINFO64	0x11
#define ETW_HEADER_TYPE_EVENT_HEADER32	0x12
#define ETW_HEADER_TYPE_EVENT_HEADER64	0x13
#define ETW_HEADER_TYPE_FULL_HEADER64	0x14
#define ETW_HEADER_TYPE_INSTANCE64	0x15

/* Byte 3: TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE. */
#define ETW_HEADER_FLAG_TRACE_HEADER	0x80
#define ETW_HEADER_FLAG_EVENT_TRACE	0x40
#define ETW_HEADER_FLAGS		0xC0

/* Version bits that announce extended items after a kernel header. */
#define ETW_HEADER_EXT_PMC_MASK		0x0700
#define ETW_HEADER_EXT_PEBS		0x8000
#define ETW_HEADER_EXT_ITEMS_MASK	(ETW_HEADER_EXT_PMC_MASK | ETW_HEADER_EXT_PEBS)

/* The first dword of a kernel record: u16 Version | u8 HeaderType | u8 0xC0. */
#define ETW_MARKER(header_type, version) \
	(((__u32)ETW_HEADER_FLAGS << 24) | ((__u32)(header_type) << 16) | \
	 (__u32)(version))
#define ETW_MARKER_SYSTEM64(version)	ETW_MARKER(ETW_HEADER_TYPE_SYSTEM64, version)
#define ETW_MARKER_COMPACT64(version)	ETW_MARKER(ETW_HEADER_TYPE_COMPACT64, version)
#define ETW_MARKER_PERFINFO64(version)	ETW_MARKER(ETW_HEADER_TYPE_PERFINFO64, version)

/* SYSTEM_TRACE_HEADER, 64-bit (0x20). */
struct system_trace_header {
	__u32 marker;
	__u16 size;			/* whole record, header included */
	__u16 hook_id;			/* group << 8 | type */
	__u32 thread_id;
	__u32 process_id;
	__s64 system_time;
	__u32 kernel_time;
	__u32 user_time;
};

/* The compact form of SYSTEM_TRACE_HEADER, 64-bit (0x18). */
struct compact_trace_header {
	__u32 marker;
	__u16 size;
	__u16 hook_id;
	__u32 thread_id;
	__u32 process_id;
	__s64 system_time;
};

/* PERFINFO_TRACE_HEADER, 64-bit (0x10). */
struct perfinfo_trace_header {
	__u32 marker;
	__u16 size;
	__u16 hook_id;
	__s64 timestamp;
};

/* EVENT_TRACE_HEADER (FULL_HEADER32/64: classic MOF events, 0x30). */
struct event_trace_header {
	__u16 size;
	__u8 header_type;
	__u8 marker_flags;
	__u8 type;			/* Class.Type = opcode */
	__u8 level;
	__u16 version;
	__u32 thread_id;
	__u32 process_id;
	__s64 timestamp;
	__u8 guid[16];
	__u32 kernel_time;
	__u32 user_time;
};

/* EVENT_INSTANCE_HEADER (INSTANCE32/64, 0x38). */
struct event_instance_header {
	__u16 size;
	__u8 header_type;
	__u8 marker_flags;
	__u8 type;
	__u8 level;
	__u16 version;
	__u32 thread_id;
	__u32 process_id;
	__s64 timestamp;
	__u64 reg_handle;
	__u32 instance_id;
	__u32 parent_instance_id;
	__u32 kernel_time;
	__u32 user_time;
	__u64 parent_reg_handle;
};

/* EVENT_HEADER (EVENT_HEADER32/64: manifest and TraceLogging events, 0x50). */
struct etw_event_descriptor {
	__u16 id;
	__u8 version;
	__u8 channel;
	__u8 level;
	__u8 opcode;
	__u16 task;
	__u64 keyword;
};

struct event_header {
	__u16 size;
	__u8 header_type;
	__u8 marker_flags;
	__u16 flags;
	__u16 event_property;
	__u32 thread_id;
	__u32 process_id;
	__s64 timestamp;
	__u8 provider_id[16];
	struct etw_event_descriptor descriptor;
	__u32 kernel_time;
	__u32 user_time;
	__u8 activity_id[16];
};

/* EVENT_HEADER.Flags (evntcons.h) */
#define EVENT_HEADER_FLAG_EXTENDED_INFO		0x0001
#define EVENT_HEADER_FLAG_PRIVATE_SESSION	0x0002
#define EVENT_HEADER_FLAG_STRING_ONLY		0x0004
#define EVENT_HEADER_FLAG_TRACE_MESSAGE		0x0008
#define EVENT_HEADER_FLAG_NO_CPUTIME		0x0010
#define EVENT_HEADER_FLAG_32_BIT_HEADER		0x0020
#define EVENT_HEADER_FLAG_64_BIT_HEADER		0x0040
#define EVENT_HEADER_FLAG_DECODE_GUID		0x0080
#define EVENT_HEADER_FLAG_CLASSIC_HEADER	0x0100
#define EVENT_HEADER_FLAG_PROCESSOR_INDEX	0x0200

/*
 * With EVENT_HEADER_FLAG_EXTENDED_INFO, extended data items sit between the
 * EVENT_HEADER and the payload. In a file each item is this header and
 * data_size bytes padded to 8 (offset = bytes from this item to the next);
 * bit 0 of linkage says another item follows. Every such record in the
 * samples (AMSITrace, lxcore_kernel, TraceLoggingTester) has this shape.
 */
struct etw_event_header_ext_item {
	__u16 offset;
	__u16 ext_type;			/* EVENT_HEADER_EXT_TYPE_* */
	__u16 linkage;
	__u16 data_size;
};

#define ETW_EXT_ITEM_LINKAGE_MORE		0x0001

/* EVENT_HEADER_EXT_TYPE_* (evntcons.h) */
#define EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID	1
#define EVENT_HEADER_EXT_TYPE_SID			2
#define EVENT_HEADER_EXT_TYPE_TS_ID			3
#define EVENT_HEADER_EXT_TYPE_INSTANCE_INFO		4
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE32		5
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE64		6
#define EVENT_HEADER_EXT_TYPE_PEBS_INDEX		7
#define EVENT_HEADER_EXT_TYPE_PMC_COUNTERS		8
#define EVENT_HEADER_EXT_TYPE_PSM_KEY			9
#define EVENT_HEADER_EXT_TYPE_EVENT_KEY			10
#define EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL		11
#define EVENT_HEADER_EXT_TYPE_PROV_TRAITS		12
#define EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY		13
#define EVENT_HEADER_EXT_TYPE_CONTROL_GUID		14
#define EVENT_HEADER_EXT_TYPE_QPC_DELTA			15
#define EVENT_HEADER_EXT_TYPE_CONTAINER_ID		16
#define EVENT_HEADER_EXT_TYPE_STACK_KEY32		17
#define EVENT_HEADER_EXT_TYPE_STACK_KEY64		18
#define EVENT_HEADER_EXT_TYPE_MAX			19

/* ---------------------------------------------------------------------- */
/* Hook ids: group (high byte) | type (low byte = opcode)                  */
/* ---------------------------------------------------------------------- */

#define ETW_HOOK(group, type)		((__u16)(((group) << 8) | (type)))
#define ETW_HOOK_GROUP(hook)		((__u8)((hook) >> 8))
#define ETW_HOOK_TYPE(hook)		((__u8)((hook) & 0xFF))

#define ETW_GROUP_HEADER		0x00
#define ETW_GROUP_IO			0x01
#define ETW_GROUP_MEMORY		0x02
#define ETW_GROUP_PROCESS		0x03
#define ETW_GROUP_FILE			0x04
#define ETW_GROUP_THREAD		0x05
#define ETW_GROUP_TCPIP			0x06
#define ETW_GROUP_JOB			0x07
#define ETW_GROUP_UDPIP			0x08
#define ETW_GROUP_REGISTRY		0x09
#define ETW_GROUP_DBGPRINT		0x0A
#define ETW_GROUP_CONFIG		0x0B
#define ETW_GROUP_SPARE1		0x0C
#define ETW_GROUP_WNF			0x0D
#define ETW_GROUP_POOL			0x0E
#define ETW_GROUP_PERFINFO		0x0F
#define ETW_GROUP_HEAP			0x10
#define ETW_GROUP_OBJECT		0x11
#define ETW_GROUP_POWER			0x12
#define ETW_GROUP_MODBOUND		0x13
#define ETW_GROUP_IMAGE			0x14
#define ETW_GROUP_DPC			0x15
#define ETW_GROUP_CC			0x16
#define ETW_GROUP_CRITSEC		0x17
#define ETW_GROUP_STACKWALK		0x18
#define ETW_GROUP_UMS			0x19
#define ETW_GROUP_ALPC			0x1A
#define ETW_GROUP_SPLITIO		0x1B
#define ETW_GROUP_THREAD_POOL		0x1C
#define ETW_GROUP_HYPERVISOR		0x1D
#define ETW_GROUP_HYPERVISORX		0x1E
#define ETW_MAX_KERNEL_GROUPS		0x1F

/*
 * KernelTraceControl's image identities, class
 * {b3e675d7-2554-4f18-830b-2762732560de}: classic FULL_HEADER64 events
 * (their Class.Type is the opcode) that xperf -merge and WPR write before
 * each Image record, and by which WPA, PerfView and TraceProcessor find an
 * image's PDB. ntkl lists them by a hook of a group no kernel event has,
 * so that one event list and one lookup serve both kinds of record.
 */
#define ETW_GROUP_IMAGE_ID		0xF0
#define ETW_IMAGE_ID_GUID						\
	{ 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,		\
	  0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }

/*
 * The hook ids themselves, with each event's header type, version and
 * layout, are listed once, in ntkl_events.h (ETW_EVENT_<id>_HOOK).
 */

/* Event types (opcodes) shared by many classes (evntrace.h). */
#define EVENT_TRACE_TYPE_INFO		0x00
#define EVENT_TRACE_TYPE_START		0x01
#define EVENT_TRACE_TYPE_END		0x02
#define EVENT_TRACE_TYPE_DC_START	0x03
#define EVENT_TRACE_TYPE_DC_END		0x04
#define EVENT_TRACE_TYPE_EXTENSION	0x05
#define EVENT_TRACE_TYPE_REPLY		0x06
#define EVENT_TRACE_TYPE_DEQUEUE	0x07
#define EVENT_TRACE_TYPE_CHECKPOINT	0x08
#define EVENT_TRACE_TYPE_LOAD		0x0A
#define EVENT_TRACE_TYPE_TERMINATE	0x0B

/* SystemConfig event types (evntrace.h). */
#define EVENT_TRACE_TYPE_CONFIG_CPU		0x0A
#define EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK	0x0B
#define EVENT_TRACE_TYPE_CONFIG_LOGICALDISK	0x0C
#define EVENT_TRACE_TYPE_CONFIG_NIC		0x0D
#define EVENT_TRACE_TYPE_CONFIG_VIDEO		0x0E
#define EVENT_TRACE_TYPE_CONFIG_SERVICES	0x0F
#define EVENT_TRACE_TYPE_CONFIG_POWER		0x10
#define EVENT_TRACE_TYPE_CONFIG_NETINFO		0x11
#define EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA	0x12
#define EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK_EX	0x13
#define EVENT_TRACE_TYPE_CONFIG_IRQ		0x15
#define EVENT_TRACE_TYPE_CONFIG_PNP		0x16
#define EVENT_TRACE_TYPE_CONFIG_IDECHANNEL	0x17
#define EVENT_TRACE_TYPE_CONFIG_NUMANODE	0x18
#define EVENT_TRACE_TYPE_CONFIG_PLATFORM	0x19
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP	0x1A
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER	0x1B
#define EVENT_TRACE_TYPE_CONFIG_DPI		0x1C
#define EVENT_TRACE_TYPE_CONFIG_CI_INFO		0x1D
#define EVENT_TRACE_TYPE_CONFIG_MACHINEID	0x1E
#define EVENT_TRACE_TYPE_CONFIG_DEFRAG		0x1F
#define EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM	0x20
#define EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY	0x21
#define EVENT_TRACE_TYPE_CONFIG_FLIGHTID	0x22
#define EVENT_TRACE_TYPE_CONFIG_PROCESSOR	0x23
#define EVENT_TRACE_TYPE_CONFIG_VIRTUALIZATION	0x24
#define EVENT_TRACE_TYPE_CONFIG_BOOT		0x25

/* ---------------------------------------------------------------------- */
/* Group masks (PERFINFO_GROUPMASK) and EnableFlags                        */
/* ---------------------------------------------------------------------- */

/*
 * A group constant carries its mask index in the top 3 bits and its bit in
 * the low 29: PERF_CONTEXT_SWITCH 0x20000004 is Masks[1] bit 0x4.
 */
#define PERF_NUM_MASKS			8
#define PERF_MASK_INDEX			0xE0000000u
#define PERF_MASK_GROUP			0x1FFFFFFFu
#define PERF_GET_MASK_INDEX(gm)		(((gm) & PERF_MASK_INDEX) >> 29)
#define PERF_GET_MASK_GROUP(gm)		((gm) & PERF_MASK_GROUP)

struct perfinfo_groupmask {
	__u32 masks[PERF_NUM_MASKS];
};

/* Masks[0]: the same bits as EnableFlags. */
#define PERF_PROCESS			0x00000001u
#define PERF_THREAD			0x00000002u
#define PERF_LOADER			0x00000004u
#define PERF_DISK_IO			0x00000100u	/* EVENT_TRACE_FLAG_DISK_IO */
#define PERF_DISK_IO_INIT		0x00000400u	/* EVENT_TRACE_FLAG_DISK_IO_INIT */
#define PERF_FILENAME			0x00000200u	/* EVENT_TRACE_FLAG_DISK_FILE_IO */
#define PERF_FILE_IO			0x02000000u
#define PERF_FILE_IO_INIT		0x04000000u
#define PERF_ALL_FAULTS			0x00001000u	/* EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS */
#define PERF_HARD_FAULTS		0x00002000u	/* EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS */
#define PERF_NETWORK			0x00010000u	/* EVENT_TRACE_FLAG_NETWORK_TCPIP */
/* Masks[1] */
#define PERF_PROFILE			0x20000002u
#define PERF_CONTEXT_SWITCH		0x20000004u
#define PERF_FOOTPRINT			0x20000008u
#define PERF_DRIVERS			0x20000010u
#define PERF_REFSET			0x20000020u
#define PERF_POOL			0x20000040u
#define PERF_DPC			0x20000080u
#define PERF_COMPACT_CSWITCH		0x20000100u
#define PERF_DISPATCHER			0x20000200u
#define PERF_PMC_PROFILE		0x20000400u
#define PERF_INTERRUPT			0x20004000u
#define PERF_VIRTUAL_ALLOC		0x20008000u
#define PERF_SPINLOCK			0x20010000u
#define PERF_SPINLOCK_CNTRS		0x20200000u
#define PERF_SPININSTR			0x20210000u
#define PERF_MEMINFO_WS			0x20800000u	/* xperf's MEMINFO_WS */
/* Masks[2] */
#define PERF_SYSCALL			0x40000040u

static inline int perf_group_is_on(const struct perfinfo_groupmask *gm,
				   __u32 group)
{
	return !!(gm->masks[PERF_GET_MASK_INDEX(group)] &
		  PERF_GET_MASK_GROUP(group));
}

static inline void perf_group_set(struct perfinfo_groupmask *gm, __u32 group)
{
	gm->masks[PERF_GET_MASK_INDEX(group)] |= PERF_GET_MASK_GROUP(group);
}

static inline void perf_group_clear(struct perfinfo_groupmask *gm, __u32 group)
{
	gm->masks[PERF_GET_MASK_INDEX(group)] &= ~PERF_GET_MASK_GROUP(group);
}

/* EVENT_TRACE_FLAG_* (EVENT_TRACE_PROPERTIES.EnableFlags). */
#define EVENT_TRACE_FLAG_PROCESS		0x00000001u
#define EVENT_TRACE_FLAG_THREAD			0x00000002u
#define EVENT_TRACE_FLAG_IMAGE_LOAD		0x00000004u
#define EVENT_TRACE_FLAG_PROCESS_COUNTERS	0x00000008u
#define EVENT_TRACE_FLAG_CSWITCH		0x00000010u
#define EVENT_TRACE_FLAG_DPC			0x00000020u
#define EVENT_TRACE_FLAG_INTERRUPT		0x00000040u
#define EVENT_TRACE_FLAG_SYSTEMCALL		0x00000080u
#define EVENT_TRACE_FLAG_DISK_IO		0x00000100u
#define EVENT_TRACE_FLAG_DISK_FILE_IO		0x00000200u
#define EVENT_TRACE_FLAG_DISK_IO_INIT		0x00000400u
#define EVENT_TRACE_FLAG_DISPATCHER		0x00000800u
#define EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS	0x00001000u
#define EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS	0x00002000u
#define EVENT_TRACE_FLAG_VIRTUAL_ALLOC		0x00004000u
#define EVENT_TRACE_FLAG_VAMAP			0x00008000u
#define EVENT_TRACE_FLAG_NETWORK_TCPIP		0x00010000u
#define EVENT_TRACE_FLAG_REGISTRY		0x00020000u
#define EVENT_TRACE_FLAG_DBGPRINT		0x00040000u
#define EVENT_TRACE_FLAG_JOB			0x00080000u
#define EVENT_TRACE_FLAG_ALPC			0x00100000u
#define EVENT_TRACE_FLAG_SPLIT_IO		0x00200000u
#define EVENT_TRACE_FLAG_DEBUG_EVENTS		0x00400000u
#define EVENT_TRACE_FLAG_DRIVER			0x00800000u
#define EVENT_TRACE_FLAG_PROFILE		0x01000000u
#define EVENT_TRACE_FLAG_FILE_IO		0x02000000u
#define EVENT_TRACE_FLAG_FILE_IO_INIT		0x04000000u
#define EVENT_TRACE_FLAG_NO_SYSCONFIG		0x10000000u
#define EVENT_TRACE_FLAG_ENABLE_RESERVE		0x20000000u
#define EVENT_TRACE_FLAG_FORWARD_WMI		0x40000000u
#define EVENT_TRACE_FLAG_EXTENSION		0x80000000u

/*
 * The group an EnableFlags bit also stands for beyond Masks[0] (GC-GM), or
 * 0: EVENT_TRACE_FLAG_CSWITCH is PERF_CONTEXT_SWITCH, and so on.
 */
static inline __u32 etw_enable_flag_group(__u32 flag)
{
	switch (flag) {
	case EVENT_TRACE_FLAG_CSWITCH:
		return PERF_CONTEXT_SWITCH;
	case EVENT_TRACE_FLAG_DPC:
		return PERF_DPC;
	case EVENT_TRACE_FLAG_INTERRUPT:
		return PERF_INTERRUPT;
	case EVENT_TRACE_FLAG_SYSTEMCALL:
		return PERF_SYSCALL;
	case EVENT_TRACE_FLAG_DISPATCHER:
		return PERF_DISPATCHER;
	case EVENT_TRACE_FLAG_VIRTUAL_ALLOC:
		return PERF_VIRTUAL_ALLOC;
	case EVENT_TRACE_FLAG_DRIVER:
		return PERF_DRIVERS;
	case EVENT_TRACE_FLAG_PROFILE:
		return PERF_PROFILE;
	default:
		return 0;
	}
}

/* Add EnableFlags to a group mask: Masks[0] and the groups they stand for. */
static inline void etw_groups_add_enable_flags(struct perfinfo_groupmask *gm, __u32 flags)
{
	__u32 bit;

	gm->masks[0] |= flags;
	for (bit = 1; bit; bit <<= 1)
		if ((flags & bit) && etw_enable_flag_group(bit))
			perf_group_set(gm, etw_enable_flag_group(bit));
}

/* ---------------------------------------------------------------------- */
/* Logger modes, clock types, logger names                                 */
/* ---------------------------------------------------------------------- */

#define EVENT_TRACE_FILE_MODE_NONE		0x00000000u
#define EVENT_TRACE_FILE_MODE_SEQUENTIAL	0x00000001u
#define EVENT_TRACE_FILE_MODE_CIRCULAR		0x00000002u
#define EVENT_TRACE_FILE_MODE_APPEND		0x00000004u
#define EVENT_TRACE_FILE_MODE_NEWFILE		0x00000008u
#define EVENT_TRACE_USE_MS_FLUSH_TIMER		0x00000010u
#define EVENT_TRACE_FILE_MODE_PREALLOCATE	0x00000020u
#define EVENT_TRACE_NONSTOPPABLE_MODE		0x00000040u
#define EVENT_TRACE_SECURE_MODE			0x00000080u
#define EVENT_TRACE_REAL_TIME_MODE		0x00000100u
#define EVENT_TRACE_DELAY_OPEN_FILE_MODE	0x00000200u
#define EVENT_TRACE_BUFFERING_MODE		0x00000400u
#define EVENT_TRACE_PRIVATE_LOGGER_MODE		0x00000800u
#define EVENT_TRACE_ADD_HEADER_MODE		0x00001000u
#define EVENT_TRACE_USE_KBYTES_FOR_SIZE		0x00002000u
#define EVENT_TRACE_USE_GLOBAL_SEQUENCE		0x00004000u
#define EVENT_TRACE_USE_LOCAL_SEQUENCE		0x00008000u
#define EVENT_TRACE_RELOG_MODE			0x00010000u
#define EVENT_TRACE_PRIVATE_IN_PROC		0x00020000u
#define EVENT_TRACE_BUFFER_INTERFACE_MODE	0x00040000u
#define EVENT_TRACE_KD_FILTER_MODE		0x00080000u
#define EVENT_TRACE_REAL_TIME_RELOG_MODE	0x00100000u
#define EVENT_TRACE_LOST_EVENTS_DEBUG_MODE	0x00200000u
#define EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN	0x00400000u
#define EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN	0x00800000u
#define EVENT_TRACE_USE_PAGED_MEMORY		0x01000000u
#define EVENT_TRACE_SYSTEM_LOGGER_MODE		0x02000000u
#define EVENT_TRACE_COMPRESSED_MODE		0x04000000u
#define EVENT_TRACE_INDEPENDENT_SESSION_MODE	0x08000000u
#define EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING	0x10000000u
#define EVENT_TRACE_BLOCKING_MODE		0x20000000u
#define EVENT_TRACE_ADDTO_TRIAGE_DUMP		0x80000000u

/* WNODE_HEADER.ClientContext / TRACE_LOGFILE_HEADER.ReservedFlags */
#define EVENT_TRACE_CLOCK_RAW		0
#define EVENT_TRACE_CLOCK_PERFCOUNTER	1	/* QPC-like ticks at PerfFreq */
#define EVENT_TRACE_CLOCK_SYSTEMTIME	2	/* 100 ns FILETIME units */
#define EVENT_TRACE_CLOCK_CPUCYCLE	3	/* TSC cycles */
#define EVENT_TRACE_CLOCK_MAX		4

#define ETW_MAXLOGGERS			64
#define ETW_KERNEL_LOGGER_NAME		"NT Kernel Logger"
#define ETW_KERNEL_LOGGER_ID		0xFFFF
#define ETW_MAX_EVENT_SIZE		0xFFFF

/* ---------------------------------------------------------------------- */
/* The header buffer: Header event (TRACE_LOGFILE_HEADER) and extension    */
/* ---------------------------------------------------------------------- */

/* SYSTEMTIME, 16 bytes */
struct etw_systemtime {
	__u16 year;
	__u16 month;
	__u16 day_of_week;
	__u16 day;
	__u16 hour;
	__u16 minute;
	__u16 second;
	__u16 milliseconds;
};

/* TIME_ZONE_INFORMATION, 172 bytes */
struct etw_time_zone_information {
	__s32 bias;			/* minutes, UTC = local + bias */
	__u16 standard_name[32];
	struct etw_systemtime standard_date;
	__s32 standard_bias;
	__u16 daylight_name[32];
	struct etw_systemtime daylight_date;
	__s32 daylight_bias;
};

/* Header.Version: Windows 10.0, file format 1.5 */
#define ETW_LOGFILE_VERSION		0x0501000Au

/*
 * The Windows build ntkl's files claim to come from: Windows 10 1903, as
 * the real kernel logger sample ShutdownPerfDiagLogger.etl (whose
 * HeaderExtension says KernelEventVersion 70).
 */
#define ETW_NTKL_PROVIDER_VERSION	18362
#define ETW_NTKL_KERNEL_EVENT_VERSION	70
/* Windows' default clock tick; ntkl's files give a jiffy instead (header.c) */
#define ETW_TIMER_RESOLUTION_DEFAULT	156250	/* 15.625 ms in 100 ns units */

/*
 * TRACE_LOGFILE_HEADER, 64-bit (0x118), the payload of the Header event,
 * followed by two NUL-terminated UTF-16 strings: logger name, log file name.
 */
struct trace_logfile_header {
	__u32 buffer_size;
	__u32 version;
	__u32 provider_version;		/* OS build number */
	__u32 number_of_processors;
	__s64 end_time;			/* FILETIME, patched at stop */
	__u32 timer_resolution;		/* 100 ns units */
	__u32 maximum_file_size;	/* MB */
	__u32 log_file_mode;
	__u32 buffers_written;		/* header buffer included */
	__u32 start_buffers;
	__u32 pointer_size;
	__u32 events_lost;
	__u32 cpu_speed_in_mhz;
	__u64 logger_name;		/* was a pointer; 0 */
	__u64 log_file_name;		/* was a pointer; 0 */
	union {
		struct etw_time_zone_information time_zone;
		__s32 time_zone_bias;	/* time_zone.bias, for the event list */
	};
	__u32 pad;
	__s64 boot_time;		/* FILETIME */
	__s64 perf_freq;		/* clock ticks per second */
	__s64 start_time;		/* FILETIME */
	__u32 reserved_flags;		/* clock type */
	__u32 buffers_lost;
};

/* HeaderExtension (0x0005) and GroupMasksEnd (0x0020) payload, 36 bytes. */
struct etw_header_extension {
	struct perfinfo_groupmask group_masks;
	__u32 kernel_event_version;
};

/*
 * EventTrace ProviderBinaryPath (0x0043, version 2): the binary (program
 * or library) that provides these providers, so that a reader can find
 * their manifests: GuidCount, then GuidCount GUIDs, then BinaryPath
 * (UTF-16, NUL-terminated). From Windows 8 (6.2), ETL files name the
 * providers enabled for a session this way (seed 003: the logger's
 * ProviderBinaryList; layout: the Kernel-EventTrace manifest, which the
 * LastDroppedTimes below confirms against the TraceLoggingTester sample).
 */
struct etw_provider_binary_path {
	__u32 guid_count;
};

/*
 * EventTrace LastDroppedTimes (0x0052, version 2, PERFINFO64 in the
 * TraceLoggingTester sample): TimeStampCount, 4 bytes of padding, then
 * TimeStampCount 8-byte times (zero in the sample: nothing dropped).
 */
struct etw_last_dropped_times {
	__u32 timestamp_count;
	__u32 padding;
};

/* ---------------------------------------------------------------------- */
/* Thread group payloads                                                   */
/* ---------------------------------------------------------------------- */

/* ETW_KTHREAD_STATE */
enum etw_kthread_state {
	ETW_KTHREAD_INITIALIZED = 0,
	ETW_KTHREAD_READY = 1,
	ETW_KTHREAD_RUNNING = 2,
	ETW_KTHREAD_STANDBY = 3,
	ETW_KTHREAD_TERMINATED = 4,
	ETW_KTHREAD_WAITING = 5,
	ETW_KTHREAD_TRANSITION = 6,
	ETW_KTHREAD_DEFERRED_READY = 7,
	ETW_KTHREAD_GATE_WAIT = 8,
	ETW_KTHREAD_WAITING_FOR_PROCESS_IN_SWAP = 9,
	ETW_KTHREAD_MAXIMUM_STATE = 10,
};

/* ETW_KWAIT_REASON */
enum etw_kwait_reason {
	ETW_KWAIT_EXECUTIVE = 0,
	ETW_KWAIT_FREE_PAGE = 1,
	ETW_KWAIT_PAGE_IN = 2,
	ETW_KWAIT_POOL_ALLOCATION = 3,
	ETW_KWAIT_DELAY_EXECUTION = 4,
	ETW_KWAIT_SUSPENDED = 5,
	ETW_KWAIT_USER_REQUEST = 6,
	ETW_KWAIT_WR_EXECUTIVE = 7,
	ETW_KWAIT_WR_FREE_PAGE = 8,
	ETW_KWAIT_WR_PAGE_IN = 9,
	ETW_KWAIT_WR_POOL_ALLOCATION = 10,
	ETW_KWAIT_WR_DELAY_EXECUTION = 11,
	ETW_KWAIT_WR_SUSPENDED = 12,
	ETW_KWAIT_WR_USER_REQUEST = 13,
	ETW_KWAIT_WR_EVENT_PAIR = 14,
	ETW_KWAIT_WR_QUEUE = 15,
	ETW_KWAIT_WR_LPC_RECEIVE = 16,
	ETW_KWAIT_WR_LPC_REPLY = 17,
	ETW_KWAIT_WR_VIRTUAL_MEMORY = 18,
	ETW_KWAIT_WR_PAGE_OUT = 19,
	ETW_KWAIT_WR_RENDEZVOUS = 20,
	ETW_KWAIT_WR_KEYED_EVENT = 21,
	ETW_KWAIT_WR_TERMINATED = 22,
	ETW_KWAIT_WR_PROCESS_IN_SWAP = 23,
	ETW_KWAIT_WR_CPU_RATE_CONTROL = 24,
	ETW_KWAIT_WR_CALLOUT_STACK = 25,
	ETW_KWAIT_WR_KERNEL = 26,
	ETW_KWAIT_WR_RESOURCE = 27,
	ETW_KWAIT_WR_PUSH_LOCK = 28,
	ETW_KWAIT_WR_MUTEX = 29,
	ETW_KWAIT_WR_QUANTUM_END = 30,
	ETW_KWAIT_WR_DISPATCH_INT = 31,
	ETW_KWAIT_WR_PREEMPTED = 32,
	ETW_KWAIT_WR_YIELD_EXECUTION = 33,
	ETW_KWAIT_WR_FAST_MUTEX = 34,
	ETW_KWAIT_WR_GUARDED_MUTEX = 35,
	ETW_KWAIT_WR_RUNDOWN = 36,
	ETW_KWAIT_WR_ALERT_BY_THREAD_ID = 37,
	ETW_KWAIT_WR_DEFERRED_PREEMPT = 38,
	/*
	 * MaximumWaitReason of the original Windows 10 (GC-CCSWAP). ntkl
	 * imitates that build: compact OldThreadStateWr values at or above
	 * this are State + ETW_MAXIMUM_WAIT_REASON.
	 */
	ETW_KWAIT_MAXIMUM_WAIT_REASON = 39,
};

#define ETW_MAXIMUM_WAIT_REASON		ETW_KWAIT_MAXIMUM_WAIT_REASON

/* KPROCESSOR_MODE (OldThreadWaitMode) */
#define ETW_KERNEL_MODE			0
#define ETW_USER_MODE			1

/* WMI_CONTEXTSWAP: CSwitch (0x0524) payload, 0x18 bytes. */
struct wmi_contextswap {
	__u32 new_thread_id;
	__u32 old_thread_id;
	__s8 new_thread_priority;
	__s8 old_thread_priority;
	__u8 previous_c_state;		/* or OldThreadRank */
	__s8 spare_byte;		/* NewThreadPriorityDecrement */
	__u8 old_thread_wait_reason;
	__s8 old_thread_wait_mode;
	__u8 old_thread_state;
	__u8 old_thread_ideal_processor;
	__u32 new_thread_wait_time;
	__s32 old_thread_remaining_quantum;
};

/* ReadyThread (0x0532) payload, 8 bytes. */
struct etw_ready_thread {
	__u32 thread_id;		/* TThreadId: the thread made ready */
	__s8 adjust_reason;
	__s8 adjust_increment;
	__s8 flag;
	__s8 reserved;
};

/* ReadyThread AdjustReason */
#define ETW_ADJUST_NONE			0
#define ETW_ADJUST_UNWAIT		1
#define ETW_ADJUST_BOOST		2

/* ReadyThread Flag bits */
#define ETW_READY_THREAD_READIED_FROM_DPC	0x1
#define ETW_READY_THREAD_KERNEL_STACK_SWAPPED	0x2
#define ETW_READY_THREAD_PROCESS_SWAPPED	0x4

/*
 * Thread Start/End/DCStart/DCEnd (0x0501..0x0504), version 3, SYSTEM64
 * header: 72 bytes, then the UTF-16 ThreadName (a lone NUL if none).
 */
struct etw_thread_v3 {
	__u32 process_id;
	__u32 thread_id;
	__u64 stack_base;
	__u64 stack_limit;
	__u64 user_stack_base;
	__u64 user_stack_limit;
	__u64 affinity;
	__u64 win32_start_addr;
	__u64 teb_base;
	__u32 sub_process_tag;
	__u8 base_priority;
	__u8 page_priority;
	__u8 io_priority;
	__u8 thread_flags;
};

/*
 * Image Load/UnLoad/DCStart/DCEnd (0x140A, 0x1402, 0x1403, 0x1404),
 * version 3: this fixed part, then the UTF-16 FileName (NUL-terminated).
 * Read off the kernel logger sample ShutdownPerfDiagLogger.etl (Windows
 * 10 1903), whose ntoskrnl.exe record has these values at these offsets.
 */
struct etw_image_v3 {
	__u64 image_base;
	__u64 image_size;
	__u32 process_id;		/* 0 for kernel images */
	__u32 image_checksum;
	__u32 time_date_stamp;
	__u8 signature_level;
	__u8 signature_type;
	__u16 reserved0;
	__u64 default_base;
	__u32 reserved1;
	__u32 reserved2;
	__u32 reserved3;
	__u32 reserved4;
};

/*
 * ImageID (image identity class, opcode 0), version 2: the image an Image
 * record that follows describes, as the tools' symbol lookup sees it.
 * OriginalFileName (UTF-16, NUL) follows: the file's name, no folder.
 */
struct etw_image_id {
	__u64 image_base;
	__u64 image_size;
	__u32 process_id;
	__u32 time_date_stamp;		/* 0: ELF files carry none */
};

/*
 * DbgID_RSDS (opcode 36), version 2: the PDB that names the image's code,
 * as a PE file's CodeView RSDS record gives it: GUID (as stored, Windows
 * byte order) and age, then PdbFileName (8-bit, NUL). ntkl's GUID is the
 * ELF build id's first 16 bytes, its age 1 (docs/linux-to-nt.md).
 * DbgID_NONE (opcode 0x20) is the first two fields alone: no identity.
 */
struct etw_dbgid_rsds {
	__u64 image_base;
	__u32 process_id;
	__u8 guid[16];
	__u32 age;
};

#define ETW_DBGID_NONE_SIZE	12	/* ImageBase, ProcessId */

/*
 * The kernel's and each module's Image records (and their ImageID and
 * DbgID records) start one page below the code, as a PE image starts
 * with its headers: their code is then at RVA 0x1000 and on, where
 * every Windows PDB (and the PDBs ntkl symbols writes) puts the first
 * section. That page holds no other image's code (below _text nothing,
 * below a module's text a vmalloc guard page).
 */
#define NTKL_IMAGE_HEADER_SIZE	0x1000

/*
 * The identity of an ELF file without a GNU build id, in its DbgID_RSDS
 * GUID (the 16 bytes as they are, little-endian as all of ETW; age 1): its size and
 * modification time (ns since the epoch) when the Image record was
 * written. ntkl symbols takes them again from stat(); a file changed
 * since then no longer matches, as a rebuilt binary's build id would not.
 */
struct ntkl_derived_id {
	__u64 size;
	__u64 mtime_ns;
};

/* Image KernelBase (0x1421), version 2: where the kernel image starts. */
struct etw_image_kernel_base {
	__u64 image_base;
};

/*
 * Process Start/End/DCStart/DCEnd (0x0301..0x0304), version 4: this fixed
 * part, then a TOKEN_USER block (struct etw_sid_header and a SID), then
 * ImageFileName (ANSI, NUL), CommandLine, PackageFullName and ApplicationId
 * (UTF-16, NUL each).
 */
struct etw_process_v4 {
	__u64 unique_process_key;
	__u32 process_id;
	__u32 parent_id;
	__u32 session_id;
	__s32 exit_status;
	__u64 directory_table_base;
	__u32 flags;
	/* the TOKEN_USER block starts here, at ETW_PROCESS_V4_FIXED_SIZE */
};

#define ETW_PROCESS_V4_FIXED_SIZE	0x24

/* TOKEN_USER as logged: SID_AND_ATTRIBUTES padded to 16, then the SID. */
struct etw_sid_header {
	__u64 sid_pointer;
	__u32 attributes;
	__u32 pad;
};

/* A SID: 8 bytes, then 4 per sub-authority (S-1-5-18 is 12 bytes). */
struct etw_sid {
	__u8 revision;
	__u8 sub_authority_count;
	__u8 identifier_authority[6];	/* big-endian */
	__u32 sub_authority[];
};

/* ---------------------------------------------------------------------- */
/* DiskIo (0x010A-0x010F), version 3                                      */
/* ---------------------------------------------------------------------- */

/*
 * As Windows writes them (the PerfView sample's records: completions with
 * a PERFINFO64 header, Init records with a SYSTEM64 one), TraceEvent reads
 * them (DiskIOTraceData, DiskIOInitTraceData, DiskIOFlushBuffersTraceData)
 * and the MOF classes DiskIo_TypeGroup1/2/3 give them. A completion's
 * header has no thread: consumers take it from IssuingThreadId.
 * HighResResponseTime is in the trace's clock units (PerfFreq ticks).
 * Each payload ends at IssuingThreadId: sizeof() rounds up past it.
 */

/* Read (0x010A) and Write (0x010B): a request completed, 52 bytes */
struct etw_diskio_rw {
	__u32 disk_number;
	__u32 irp_flags;		/* ETW_IRP_* and the I/O priority (bits 17-19) */
	__u32 transfer_size;		/* bytes */
	__u32 reserved;
	__u64 byte_offset;		/* from the start of the whole disk */
	__u64 file_object;
	__u64 irp;
	__u64 high_res_response_time;	/* completion less issue */
	__u32 issuing_thread_id;
};

#define ETW_DISKIO_RW_SIZE		52

/* ReadInit (0x010C), WriteInit (0x010D), FlushInit (0x010F): issued, 12 bytes */
struct etw_diskio_init {
	__u64 irp;
	__u32 issuing_thread_id;
};

#define ETW_DISKIO_INIT_SIZE		12

/* FlushBuffers (0x010E): a cache flush completed, 28 bytes */
struct etw_diskio_flush {
	__u32 disk_number;
	__u32 irp_flags;
	__u64 high_res_response_time;
	__u64 irp;
	__u32 issuing_thread_id;
};

#define ETW_DISKIO_FLUSH_SIZE		28

/* IRP flags (wdm.h) that DiskIo records carry; TraceEvent's IrpFlags */
#define ETW_IRP_NOCACHE			0x00000001u
#define ETW_IRP_PAGING_IO		0x00000002u
#define ETW_IRP_SYNCHRONOUS_API		0x00000004u
#define ETW_IRP_READ_OPERATION		0x00000100u
#define ETW_IRP_WRITE_OPERATION		0x00000200u
/* the I/O priority (IO_PRIORITY_HINT + 1: 1 very low .. 5 critical) */
#define ETW_IRP_PRIORITY_SHIFT		17
#define ETW_IRP_PRIORITY_MASK		0x000E0000u

/* ---------------------------------------------------------------------- */
/* SystemConfig CPU (0x0B0A), version 3, SYSTEM64 header, 828 bytes        */
/* ---------------------------------------------------------------------- */

struct etw_config_cpu {
	__u32 mhz;
	__u32 number_of_processors;
	__u32 mem_size;			/* MB */
	__u32 page_size;
	__u32 allocation_granularity;
	__u16 computer_name[256];
	__u16 domain_name[134];
	__u64 hyper_threading_flag;
	__u64 highest_user_address;
	__u16 processor_architecture;
	__u16 processor_level;
	__u16 processor_revision;
	__u8 pae_enabled;
	__u8 nx_enabled;
	__u32 memory_speed;
	/* sizeof() rounds up to 832: write ETW_CONFIG_CPU_SIZE bytes */
};

#define ETW_CONFIG_CPU_SIZE		828

#define ETW_PROCESSOR_ARCHITECTURE_AMD64	9

/*
 * SystemConfig records written at the end of a trace, laid out as
 * TraceEvent's parser and the TraceLoggingTester sample (Windows 11 24H2)
 * have them. ProcessorGroup and NumaNode have PERFINFO64 headers, NIC and
 * IRQ SYSTEM64 ones.
 */

/*
 * PhyDisk (0x0B0B) v2, 568 bytes, and LogDisk (0x0B0C) v2, 112 bytes:
 * written by ntkl's file writer (userspace/ctl/ntkl_sysconfig.c), which
 * reads the disks and mounts the module cannot.
 */
struct etw_config_phydisk {
	__u32 disk_number;
	__u32 bytes_per_sector;
	__u32 sectors_per_track;
	__u32 tracks_per_cylinder;
	__u64 cylinders;
	__u32 scsi_port;
	__u32 scsi_path;
	__u32 scsi_target;
	__u32 scsi_lun;
	__u16 manufacturer[256];
	__u32 partition_count;
	__u8 write_cache_enabled;
	__u8 pad;
	__u16 boot_drive_letter[3];
	__u16 spare[2];
};

struct etw_config_logdisk {
	__u64 start_offset;
	__u64 partition_size;
	__u32 disk_number;
	__u32 size;			/* of this payload */
	__u32 drive_type;
	__u16 drive_letter_string[4];
	__u32 pad1;
	__u32 partition_number;
	__u32 sectors_per_cluster;
	__u32 bytes_per_sector;
	__u32 pad2;
	__s64 number_of_free_clusters;
	__s64 total_number_of_clusters;
	__u16 file_system[16];
	__u32 volume_ext;
	__u32 pad3;
};

/* ProcessorGroup (0x0B1A) v2: the count, then a KAFFINITY (u64, unaligned) per group */
struct etw_config_processor_group {
	__u32 active_group_count;
};

/* GROUP_AFFINITY */
struct etw_group_affinity {
	__u64 mask;
	__u16 group;
	__u16 reserved[3];
};

/* NumaNode (0x0B18) v2: the count, then a GROUP_AFFINITY (unaligned) per node */
struct etw_config_numa_node {
	__u32 node_count;
};

/*
 * NIC (0x0B0D) v2: then NICDescription, IpAddresses, DnsServerAddresses,
 * NUL-terminated UTF-16 strings (addresses joined by ';').
 */
struct etw_config_nic {
	__u8 physical_addr[8];		/* the hardware address, low bytes first */
	__u32 physical_addr_len;
	__u32 ipv4_index;		/* interface indexes */
	__u32 ipv6_index;
};

/* IRQ (0x0B15) v3: then DeviceDescription, NUL-terminated UTF-16 */
struct etw_config_irq {
	__u64 irq_affinity;
	__u16 irq_group;
	__u16 reserved;
	__s32 irq_num;
	__u32 device_description_len;	/* UTF-16 units, the NUL included */
	/* sizeof() rounds up to 24: the string starts at ETW_CONFIG_IRQ_SIZE */
};

#define ETW_CONFIG_IRQ_SIZE		20

/* ---------------------------------------------------------------------- */
/* WMI_SPINLOCK: SpinLock (0x0529) payload, 0x38 bytes                     */
/* ---------------------------------------------------------------------- */

/* AcquireMode (low 6 bits of the flags byte) */
#define WMI_SPINLOCK_ACQUIRE_ORDINARY	0
#define WMI_SPINLOCK_ACQUIRE_QUEUED	1
#define WMI_SPINLOCK_ACQUIRE_SHARED	2
#define WMI_SPINLOCK_ACQUIRE_EXCLUSIVE	3
#define WMI_SPINLOCK_ACQUIRE_CONVERTED	4
#define WMI_SPINLOCK_ACQUIRE_MODE_MASK	0x3F
#define WMI_SPINLOCK_EXECUTE_DPC	0x40
#define WMI_SPINLOCK_EXECUTE_ISR	0x80

struct wmi_spinlock {
	__u64 spin_lock_address;
	__u64 caller_address;
	__u64 acquire_time;		/* cycles */
	__u64 release_time;		/* cycles */
	__u32 wait_time_in_cycles;
	__u32 spin_count;
	__u32 thread_id;
	__u32 interrupt_count;
	__u8 irql;
	__u8 acquire_depth;		/* locks held at release, >= 1 */
	__u8 flags;			/* AcquireMode:6, ExecuteDpc:1, ExecuteIsr:1 */
	__u8 reserved[5];
};

/* NT IRQLs on x64 */
#define ETW_IRQL_PASSIVE		0
#define ETW_IRQL_APC			1
#define ETW_IRQL_DISPATCH		2
#define ETW_IRQL_DEVICE			3	/* lowest device IRQL */
#define ETW_IRQL_DEVICE_MAX		12	/* SYNCH_LEVEL: above every device */
#define ETW_IRQL_CLOCK			13
#define ETW_IRQL_IPI			14
#define ETW_IRQL_HIGH			15

/* ---------------------------------------------------------------------- */
/* PerfInfo: sampled profile (0x0F2E) and its interval (0x0F48-0x0F4A)     */
/* ---------------------------------------------------------------------- */

/*
 * SampledProfile (0x0F2E), version 2, PERFINFO64 header, 16 bytes in a
 * 64-bit file (the MOF's InstructionPointer, ThreadId, Count, Reserved;
 * TraceEvent's SampledProfileTraceData reads the flags byte at 14 and Rank
 * at 15, Windows 8 and later). The header has no thread: ThreadId says it.
 */
struct perfinfo_sampled_profile {
	__u64 instruction_pointer;	/* user or kernel address interrupted */
	__u32 thread_id;		/* 0: the idle thread */
	__u16 count;			/* samples this record stands for: 1 */
	__u8 flags;			/* ETW_PROFILE_*: DPC, ISR, Priority */
	__u8 rank;			/* scheduling group rank: 0 */
};

#define ETW_PROFILE_EXECUTING_DPC	0x01
#define ETW_PROFILE_EXECUTING_ISR	0x02
#define ETW_PROFILE_PRIORITY_SHIFT	3	/* the thread's priority, 5 bits */
#define ETW_PROFILE_PRIORITY_MASK	0xF8
/*
 * The Priority an idle thread's samples carry: 16 in every one of the
 * 73,309 idle samples of perfview's net.4.5.2.x64.etl (other threads'
 * samples carry their priority: 8, 5, 11, 15...).
 */
#define ETW_PROFILE_IDLE_PRIORITY	16

/*
 * DPC, TimerDPC and ThreadedDPC (0x0F44, 0x0F45, 0x0F42), version 2,
 * PERFINFO64 header, 16 bytes in a 64-bit file: the MOF's DPC class and
 * TraceEvent's DPCTraceData. The record is written when the routine
 * returns (its header time); InitialTime is when it was entered, in the
 * logger's clock, so the header time less InitialTime is its duration.
 */
struct perfinfo_dpc {
	__u64 initial_time;		/* entry, the logger's clock */
	__u64 routine;			/* the routine's (kernel) address */
};

/*
 * ISR (0x0F43), version 2, PERFINFO64 header, 20 bytes in a 64-bit file:
 * the MOF's ISR class (InitialTime, Routine, ReturnValue, Vector,
 * Reserved); TraceEvent's ISRTraceData reads ReturnValue at 16 and Vector
 * at 17, and a MessageNumber at 20 only in later versions (the MSI form
 * is ISR-MSI, 0x0F32), so version 2 ends at 20.
 */
struct perfinfo_isr {
	__u64 initial_time;		/* entry, the logger's clock */
	__u64 routine;			/* the handler's (kernel) address */
	__u8 return_value;		/* 1 if the interrupt was claimed */
	__u8 vector;			/* the interrupt (on Linux: irq number, 8 bits) */
	__u16 reserved;			/* 0 */
	/* sizeof() rounds up to 24: write ETW_ISR_SIZE bytes */
};

#define ETW_ISR_SIZE			20

/*
 * SysClEnter (0x0F33) and SysClExit (0x0F34), version 2, PERFINFO64
 * header (no thread in it: the record is the running thread's, written on
 * its CPU between its switches in and out), TraceEvent's
 * SysCallEnterTraceData and SysCallExitTraceData: the address of the
 * routine that carries out the call as it begins, the status it returns
 * as it ends. docs/linux-to-nt.md ("System calls") says how Linux fills
 * them.
 */
struct perfinfo_syscall_enter {
	__u64 syscall_address;		/* the system call's (kernel) routine */
};

struct perfinfo_syscall_exit {
	__u32 syscall_nt_status;	/* NTSTATUS: the return value, errno mapped */
};

/*
 * TcpIp (group 0x06) and UdpIp (0x08), version 2, PERFINFO64 header (the
 * payload names the process, as TraceEvent's fix-ups take it: the header
 * has none), as TraceEvent's TcpIp*TraceData and UdpIpTraceData lay them
 * out in a 64-bit file (the MOF classes TcpIp_TypeGroup1..3,
 * TcpIp_SendIPV4/6, UdpIp_TypeGroup1 agree but for TypeGroup1's and 3's
 * order of connid and seqnum: docs/linux-to-nt.md, "Network"): packed,
 * so connid (a pointer) may sit at an offset that is not a multiple of
 * 8, hence a byte array. Addresses and ports are in network byte order,
 * as on the wire. An IPv6 event is its IPv4 event's opcode + 16.
 * docs/linux-to-nt.md ("Network") says how Linux fills each field.
 */
/* TcpIp_TypeGroup1: Recv, Disconnect, Retransmit, Reconnect, TCPCopy */
struct etw_tcpip_v4 {
	__u32 pid;			/* the process the bytes belong to */
	__u32 size;			/* bytes */
	__u32 daddr;
	__u32 saddr;
	__u16 dport;
	__u16 sport;
	__u8 connid[8];			/* the connection (an opaque key) */
	__u32 seqnum;
};

/* TcpIp_SendIPV4: Send */
struct etw_tcpip_send_v4 {
	__u32 pid;
	__u32 size;
	__u32 daddr;
	__u32 saddr;
	__u16 dport;
	__u16 sport;
	__u32 startime;
	__u32 endtime;
	__u32 seqnum;
	__u8 connid[8];
};

/* TcpIp_TypeGroup2: Connect, Accept */
struct etw_tcpip_connect_v4 {
	__u32 pid;
	__u32 size;
	__u32 daddr;
	__u32 saddr;
	__u16 dport;
	__u16 sport;
	__u16 mss;
	__u16 sackopt;
	__u16 tsopt;
	__u16 wsopt;
	__u32 rcvwin;
	__u16 rcvwinscale;
	__u16 sndwinscale;
	__u32 seqnum;
	__u8 connid[8];
};

/* TcpIp_TypeGroup3: RecvIPV6, DisconnectIPV6, RetransmitIPV6, ReconnectIPV6, TCPCopyIPV6 */
struct etw_tcpip_v6 {
	__u32 pid;
	__u32 size;
	__u8 daddr[16];
	__u8 saddr[16];
	__u16 dport;
	__u16 sport;
	__u8 connid[8];
	__u32 seqnum;
};

/* TcpIp_SendIPV6: SendIPV6 */
struct etw_tcpip_send_v6 {
	__u32 pid;
	__u32 size;
	__u8 daddr[16];
	__u8 saddr[16];
	__u16 dport;
	__u16 sport;
	__u32 startime;
	__u32 endtime;
	__u32 seqnum;
	__u8 connid[8];
};

/* TraceEvent's TcpIpV6ConnectTraceData: ConnectIPV6, AcceptIPV6 */
struct etw_tcpip_connect_v6 {
	__u32 pid;
	__u32 size;
	__u8 daddr[16];
	__u8 saddr[16];
	__u16 dport;
	__u16 sport;
	__u16 mss;
	__u16 sackopt;
	__u16 tsopt;
	__u16 wsopt;
	__u32 rcvwin;
	__u16 rcvwinscale;
	__u16 sndwinscale;
	__u32 seqnum;
	__u8 connid[8];
};

/* UdpIp_TypeGroup1: Send, Recv (seqnum and connid unused, 0) */
struct etw_udpip_v4 {
	__u32 pid;
	__u32 size;
	__u32 daddr;
	__u32 saddr;
	__u16 dport;
	__u16 sport;
	__u32 seqnum;
	__u8 connid[8];
};

/* TraceEvent's UpdIpV6TraceData: SendIPV6, RecvIPV6 (seqnum, connid 0) */
struct etw_udpip_v6 {
	__u32 pid;
	__u32 size;
	__u8 daddr[16];
	__u8 saddr[16];
	__u16 dport;
	__u16 sport;
	__u32 seqnum;
	__u8 connid[8];
};

/*
 * FileIo (group 0x04), 64-bit, as TraceEvent's FileIO*TraceData read them
 * and the MOF classes FileIo_Name, FileIo_Create, FileIo_SimpleOp,
 * FileIo_ReadWrite, FileIo_Info, FileIo_DirEnum and FileIo_OpEnd give
 * them; PERFINFO64 headers (no thread in the header: TTID says it).
 * IrpPtr, FileObject and FileKey are kernel addresses (hashed for readers
 * that may not see kernel addresses); names are UTF-16 after the fixed
 * fields. docs/linux-to-nt.md ("File I/O") says what each holds on Linux.
 */
/* Name (0x0400), FileCreate (0x0420), FileDelete (0x0423), FileRundown (0x0424): v2 */
struct etw_fileio_name {
	__u64 file_object;		/* the key the name is for (TraceEvent: FileKey) */
	/* then FileName (UTF-16, NUL) */
};

/* Create (0x0440) v3 */
struct etw_fileio_create {
	__u64 irp_ptr;
	__u64 file_object;
	__u32 ttid;
	__u32 create_options;		/* low 24 bits options, top 8 the disposition */
	__u32 file_attributes;
	__u32 share_access;
	/* then OpenPath (UTF-16, NUL) */
};

/* Cleanup (0x0441), Close (0x0442), Flush (0x0449) v3: 28 bytes */
struct etw_fileio_simple_op {
	__u64 irp_ptr;
	__u64 file_object;
	__u64 file_key;
	__u32 ttid;
	/* sizeof() rounds up to 32: write ETW_FILEIO_SIMPLE_OP_SIZE bytes */
};

#define ETW_FILEIO_SIMPLE_OP_SIZE	28

/*
 * Read (0x0443), Write (0x0444) v3: 44 bytes as the MOF class has it;
 * Windows 10 writes 48 (TraceEvent's note), which readers accept too.
 */
struct etw_fileio_read_write {
	__u64 offset;
	__u64 irp_ptr;
	__u64 file_object;
	__u64 file_key;
	__u32 ttid;
	__u32 io_size;
	__u32 io_flags;
	/* sizeof() rounds up to 48: write ETW_FILEIO_READ_WRITE_SIZE bytes */
};

#define ETW_FILEIO_READ_WRITE_SIZE	44
#define ETW_FILEIO_READ_WRITE_MAX	48

/* SetInfo (0x0445), Delete (0x0446), Rename (0x0447) v3 */
struct etw_fileio_info {
	__u64 irp_ptr;
	__u64 file_object;
	__u64 file_key;
	__u64 extra_info;
	__u32 ttid;
	__u32 info_class;		/* FILE_INFORMATION_CLASS */
};

/* DirEnum (0x0448) v3 */
struct etw_fileio_dir_enum {
	__u64 irp_ptr;
	__u64 file_object;
	__u64 file_key;
	__u32 ttid;
	__u32 length;
	__u32 info_class;
	__u32 file_index;
	/* then FileName, the pattern (UTF-16, NUL) */
};

/* OperationEnd (0x044C) v2: 20 bytes */
struct etw_fileio_op_end {
	__u64 irp_ptr;
	__u64 extra_info;		/* bytes moved by a read or write */
	__u32 nt_status;
	/* sizeof() rounds up to 24: write ETW_FILEIO_OP_END_SIZE bytes */
};

#define ETW_FILEIO_OP_END_SIZE		20

/* FILE_INFORMATION_CLASS values ntkl writes (InfoClass) */
#define ETW_FILE_DIRECTORY_INFORMATION		1
#define ETW_FILE_BASIC_INFORMATION		4
#define ETW_FILE_RENAME_INFORMATION		10
#define ETW_FILE_DISPOSITION_INFORMATION	13
#define ETW_FILE_END_OF_FILE_INFORMATION	20

/* NTSTATUS values ntkl writes in OperationEnd and SysClExit (errno's nearest) */
#define ETW_STATUS_SUCCESS			0x00000000u
#define ETW_STATUS_UNSUCCESSFUL			0xC0000001u
#define ETW_STATUS_ACCESS_VIOLATION		0xC0000005u
#define ETW_STATUS_INVALID_HANDLE		0xC0000008u
#define ETW_STATUS_INVALID_PARAMETER		0xC000000Du
#define ETW_STATUS_INVALID_SYSTEM_SERVICE	0xC000001Cu
#define ETW_STATUS_NO_MEMORY			0xC0000017u
#define ETW_STATUS_ACCESS_DENIED		0xC0000022u
#define ETW_STATUS_OBJECT_NAME_NOT_FOUND	0xC0000034u
#define ETW_STATUS_OBJECT_NAME_COLLISION	0xC0000035u
#define ETW_STATUS_DISK_FULL			0xC000007Fu
#define ETW_STATUS_MEDIA_WRITE_PROTECTED	0xC00000A2u
#define ETW_STATUS_FILE_IS_A_DIRECTORY		0xC00000BAu
#define ETW_STATUS_NOT_SUPPORTED		0xC00000BBu
#define ETW_STATUS_NOT_SAME_DEVICE		0xC00000D4u
#define ETW_STATUS_DIRECTORY_NOT_EMPTY		0xC0000101u
#define ETW_STATUS_NOT_A_DIRECTORY		0xC0000103u
#define ETW_STATUS_NAME_TOO_LONG		0xC0000106u
#define ETW_STATUS_CANCELLED			0xC0000120u
#define ETW_STATUS_IO_DEVICE_ERROR		0xC0000185u
#define ETW_STATUS_FILE_TOO_LARGE		0xC0000904u

/*
 * HardFault (0x0220), version 2, PERFINFO64 header, 40 bytes in a 64-bit
 * file: the MOF's PageFault_HardFault (InitialTime, ReadOffset,
 * VirtualAddress, FileObject, TThreadId, ByteCount), pointers 8 bytes wide
 * as TraceEvent's MemoryHardFaultTraceData reads them (VirtualAddress at
 * 16, FileObject at 24, TThreadId at 32, ByteCount at 36). The header has
 * no thread: TThreadId says it (TraceEvent takes the event's thread from
 * it). Written when the fault is done; InitialTime is when it began.
 */
struct perfinfo_hard_fault {
	__u64 initial_time;		/* the fault's start, the logger's clock */
	__u64 read_offset;		/* file offset of the page read */
	__u64 virtual_address;		/* the faulting address */
	__u64 file_object;		/* the file read (FileIo's FileObject) */
	__u32 thread_id;		/* the faulting thread */
	__u32 byte_count;		/* bytes read for it */
};

/*
 * TransitionFault, DemandZeroFault, CopyOnWrite, GuardPageFault,
 * HardPageFault, AccessViolation (0x020A-0x020F, PageFault_TypeGroup1),
 * version 2, SYSTEM64 header (the faulting thread and process), as
 * TraceEvent's MemoryPageFaultTraceData reads them. Written with
 * ALL_FAULTS (module/producers/memory.c).
 */
struct etw_page_fault {
	__u64 virtual_address;		/* the address that faulted */
	__u64 program_counter;		/* the instruction that faulted */
};

/*
 * VirtualAlloc (0x0262) and VirtualFree (0x0263), PageFault_VirtualAlloc,
 * version 2, PERFINFO64 header (TraceEvent takes the process from the
 * payload), as VirtualAllocTraceData reads them. Written with VIRT_ALLOC
 * (module/producers/memory.c); docs/linux-to-nt.md ("Virtual memory")
 * says how Flags are made.
 */
struct perfinfo_virtual_alloc {
	__u64 base_address;		/* the region's first byte */
	__u64 region_size;		/* bytes, whole pages */
	__u32 process_id;		/* whose address space */
	__u32 flags;			/* ETW_MEM_* */
};

/*
 * VirtualAllocDCStart (0x0280) and VirtualAllocDCEnd (0x0281), version 2,
 * PERFINFO64: a region that exists as a VIRT_ALLOC logger starts or
 * stops, VirtualAlloc's fields and how many of its bytes are committed
 * (dissect.etl's PageFault_V2 template).
 */
struct perfinfo_virtual_alloc_dc {
	__u64 base_address;		/* the region's first byte */
	__u64 region_size;		/* bytes, whole pages */
	__u32 process_id;		/* whose address space */
	__u32 flags;			/* ETW_MEM_* */
	__u64 commit_size;		/* CommitSizeInBytes */
};

#define ETW_MEM_COMMIT			0x00001000u
#define ETW_MEM_RESERVE			0x00002000u
#define ETW_MEM_DECOMMIT		0x00004000u
#define ETW_MEM_RELEASE			0x00008000u

/*
 * ProcessMemInfo (0x027D, Memory opcode 125), MEMINFO_WS, version 2,
 * PERFINFO64 header: a snapshot of processes' memory, Count entries of
 * ETW_PROCESS_MEMINFO_ENTRY_SIZE bytes, each a ProcessID (u32) then eight
 * page counts (pointer-wide, so unaligned in a 64-bit file), as
 * TraceEvent's MemoryProcessMemInfoTraceData reads a version 2 or later
 * one (version 0 and 1 have the first four counts only). Written every
 * half second while a logger takes MEMINFO_WS (module/producers/meminfo.c);
 * docs/linux-to-nt.md ("Memory snapshots") says how Linux fills each count.
 */
struct etw_process_meminfo {
	__u32 count;			/* entries that follow */
};

/* An entry's counts, in payload order, each 8 bytes at ETW_PROCESS_MEMINFO_COUNT_OFFSET(i). */
enum etw_process_meminfo_count {
	ETW_PMI_WORKING_SET,		/* WorkingSetPageCount */
	ETW_PMI_COMMIT,			/* CommitPageCount */
	ETW_PMI_VIRTUAL_SIZE,		/* VirtualSizeInPages */
	ETW_PMI_PRIVATE_WORKING_SET,	/* PrivateWorkingSetPageCount */
	ETW_PMI_STORE_SIZE,		/* StoreSizePageCount */
	ETW_PMI_STORED,			/* StoredPageCount */
	ETW_PMI_COMMIT_DEBT,		/* CommitDebtInPages */
	ETW_PMI_SHARED_COMMIT,		/* SharedCommitInPages */
	ETW_PMI_COUNTS
};

#define ETW_PROCESS_MEMINFO_COUNT_OFFSET(i)	(4 + 8 * (i))
#define ETW_PROCESS_MEMINFO_ENTRY_SIZE		ETW_PROCESS_MEMINFO_COUNT_OFFSET(ETW_PMI_COUNTS)

/*
 * StackWalk/Stack (0x1820), PERFINFO64 version 2 as the PerfView sample
 * has it: the time of the event whose stack it is (its record's
 * TimeStamp), the process and thread whose stack it is, then the frames,
 * innermost first, kernel frames before user frames, 8 bytes each (the
 * count is what the record's size leaves: (Size - 16 - 16) / 8).
 */
struct etw_stack_walk {
	__u64 event_time_stamp;
	__u32 stack_process;
	__u32 stack_thread;
	/* __u64 stack[]; */
};

/*
 * StackWalk/StackKeyKernel (0x1825) and StackKeyUser (0x1826), PERFINFO64
 * version 2 as the PerfView sample has them: a reference to the kernel or
 * the user part of the stack of the event stamped EventTimeStamp, of the
 * thread StackThread of StackProcess, by its key.
 */
struct etw_stack_key_ref {
	__u64 event_time_stamp;
	__u32 stack_process;
	__u32 stack_thread;
	__u64 stack_key;
};

/*
 * StackWalk/KeyDelete (0x1823) and KeyRundown (0x1824), PERFINFO64
 * version 2: a key's definition, its frames innermost first (the count is
 * what the record's size leaves: (Size - 16 - 8) / 8).
 */
struct etw_stack_key_def {
	__u64 stack_key;
	/* __u64 stack[]; */
};

/* The most frames one Stack record carries: Windows' cap (192). */
#define ETW_STACK_MAX_FRAMES		192

/*
 * SetInterval, CollectionStart and CollectionEnd (0x0F48-0x0F4A), version
 * 3, SYSTEM64 header: SampledProfileInterval_V3 (Source, NewInterval,
 * OldInterval, then the source's name in UTF-16, NUL-terminated).
 * Intervals are in 100 ns units for the timer source.
 */
struct etw_sampled_profile_interval {
	__u32 source;			/* KPROFILE_SOURCE: ETW_PROFILE_SOURCE_TIMER */
	__u32 new_interval;
	__u32 old_interval;
	/* SourceName follows */
};

#define ETW_PROFILE_SOURCE_TIMER	0	/* ProfileTime: "Timer" */
#define ETW_PROFILE_SOURCE_TIMER_NAME	"Timer"

/* ---------------------------------------------------------------------- */
/* PERFINFO_CCSWAP_BUFFER: compact context switches (0x0525)               */
/* ---------------------------------------------------------------------- */

#define PERFINFO_CCSWAP_MAX_TID		16
#define PERFINFO_CCSWAP_BATCH_SIZE	0x400	/* header included */
#define PERFINFO_CCSWAP_MAX_PACKET	8
#define PERFINFO_CCSWAP_MAX_AGE_TICKS	500

/* DataType: the low 2 bits of a packet's first byte. */
enum perfinfo_ccswap_type {
	PERF_CSWAP_IDLE_SHORT = 0,	/* 2 bytes: TimeDelta:14 */
	PERF_CSWAP_IDLE = 1,		/* 4 bytes: TimeDelta:30 */
	PERF_CSWAP_LITE = 2,		/* 4 bytes */
	PERF_CSWAP_FULL = 3,		/* 8 bytes */
};

#define PERFINFO_CCSWAP_BIT_TYPE	2
#define PERFINFO_CCSWAP_BIT_TID		4
#define PERFINFO_CCSWAP_BIT_STATE_WR	6
#define PERFINFO_CCSWAP_BIT_PRIORITY	5
#define PERFINFO_CCSWAP_BIT_PRI_INC	3
#define PERFINFO_CCSWAP_BIT_FULL_TS	30
#define PERFINFO_CCSWAP_BIT_SHORT_TS	14
#define PERFINFO_CCSWAP_BIT_SMALL_TS	17
#define PERFINFO_CCSWAP_BIT_WAIT_TIME	17

#define PERFINFO_CCSWAP_MAX(bits)	((1u << (bits)) - 1)

struct perfinfo_ccswap_buffer {
	__s64 first_timestamp;
	__u32 tid_table[PERFINFO_CCSWAP_MAX_TID];
	__s8 thread_base_priority[PERFINFO_CCSWAP_MAX_TID];
	/* packets follow, back to back, no padding */
};

/*
 * One compact packet, decoded. Which fields mean something depends on type:
 * IDLE_SHORT and IDLE carry only time_delta; LITE carries pri_inc instead
 * of priority and no wait time; FULL carries all but pri_inc.
 */
struct perfinfo_ccswap_packet {
	enum perfinfo_ccswap_type type;
	__u32 time_delta;
	__u8 tid_index;
	__u8 state_wr;
	__u8 priority;			/* FULL: absolute priority 0..31 */
	__u8 pri_inc;			/* LITE: current - base, 0..7 */
	__u32 new_thread_wait_time;	/* FULL: ticks, 17 bits */
};

static inline __u32 etw_get_le32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

/* One (unaligned) store where the CPU is little-endian, not four. */
static inline void etw_put_le32(__u8 *p, __u32 v)
{
	__le32 le = __cpu_to_le32(v);

	__builtin_memcpy(p, &le, sizeof(le));
}

static inline __u16 etw_get_le16(const __u8 *p)
{
	return (__u16)(p[0] | p[1] << 8);
}

static inline void etw_put_le16(__u8 *p, __u16 v)
{
	__le16 le = __cpu_to_le16(v);

	__builtin_memcpy(p, &le, sizeof(le));
}

/* Bytes a packet of this type takes. */
static inline unsigned int perfinfo_ccswap_packet_size(enum perfinfo_ccswap_type type)
{
	switch (type) {
	case PERF_CSWAP_IDLE_SHORT:
		return 2;
	case PERF_CSWAP_IDLE:
	case PERF_CSWAP_LITE:
		return 4;
	default:
		return 8;
	}
}

/*
 * Encode one packet at p (unaligned is fine); returns the bytes written.
 * The caller has chosen the type and checked every field fits its width.
 */
static inline unsigned int
perfinfo_ccswap_encode(__u8 *p, const struct perfinfo_ccswap_packet *pkt)
{
	switch (pkt->type) {
	case PERF_CSWAP_IDLE_SHORT:
		etw_put_le16(p, (__u16)(PERF_CSWAP_IDLE_SHORT | pkt->time_delta << 2));
		return 2;
	case PERF_CSWAP_IDLE:
		etw_put_le32(p, PERF_CSWAP_IDLE | pkt->time_delta << 2);
		return 4;
	case PERF_CSWAP_LITE:
		etw_put_le32(p, PERF_CSWAP_LITE |
			     (__u32)pkt->tid_index << 2 |
			     (__u32)pkt->pri_inc << 6 |
			     (__u32)pkt->state_wr << 9 |
			     pkt->time_delta << 15);
		return 4;
	default:
		etw_put_le32(p, PERF_CSWAP_FULL | pkt->time_delta << 2);
		etw_put_le32(p + 4, (__u32)pkt->tid_index |
			     (__u32)pkt->state_wr << 4 |
			     (__u32)pkt->priority << 10 |
			     pkt->new_thread_wait_time << 15);
		return 8;
	}
}

/*
 * Decode the packet at p, with avail bytes left; returns the bytes it took,
 * or 0 if the packet does not fit in avail.
 */
static inline unsigned int
perfinfo_ccswap_decode(const __u8 *p, unsigned int avail,
		       struct perfinfo_ccswap_packet *pkt)
{
	enum perfinfo_ccswap_type type;
	__u32 w0, w1;

	if (avail < 2)
		return 0;
	type = (enum perfinfo_ccswap_type)(p[0] & 3);
	if (avail < perfinfo_ccswap_packet_size(type))
		return 0;

	pkt->type = type;
	pkt->tid_index = 0;
	pkt->state_wr = 0;
	pkt->priority = 0;
	pkt->pri_inc = 0;
	pkt->new_thread_wait_time = 0;
	switch (type) {
	case PERF_CSWAP_IDLE_SHORT:
		pkt->time_delta = etw_get_le16(p) >> 2;
		return 2;
	case PERF_CSWAP_IDLE:
		pkt->time_delta = etw_get_le32(p) >> 2;
		return 4;
	case PERF_CSWAP_LITE:
		w0 = etw_get_le32(p);
		pkt->tid_index = (w0 >> 2) & 0xF;
		pkt->pri_inc = (w0 >> 6) & 0x7;
		pkt->state_wr = (w0 >> 9) & 0x3F;
		pkt->time_delta = w0 >> 15;
		return 4;
	default:
		w0 = etw_get_le32(p);
		w1 = etw_get_le32(p + 4);
		pkt->time_delta = w0 >> 2;
		pkt->tid_index = w1 & 0xF;
		pkt->state_wr = (w1 >> 4) & 0x3F;
		pkt->priority = (w1 >> 10) & 0x1F;
		pkt->new_thread_wait_time = w1 >> 15;
		return 8;
	}
}

/* OldThreadStateWr: WaitReason if Waiting, else State + MaximumWaitReason. */
static inline __u8 perfinfo_ccswap_state_wr(__u8 state, __u8 wait_reason)
{
	if (state == ETW_KTHREAD_WAITING)
		return wait_reason;
	return (__u8)(state + ETW_MAXIMUM_WAIT_REASON);
}

/* ---------------------------------------------------------------------- */
/* Time                                                                    */
/* ---------------------------------------------------------------------- */

/* FILETIME of the Unix epoch: 100 ns units since 1601-01-01. */
#define ETW_FILETIME_UNIX_EPOCH		116444736000000000LL
#define ETW_FILETIME_PER_SECOND		10000000LL

/* ---------------------------------------------------------------------- */
/* Layout checks: every size and offset the seeds and etl-format.md give   */
/* ---------------------------------------------------------------------- */

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#endif

#define ETW_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " size")
#define ETW_ASSERT_OFFSET(type, field, off) \
	static_assert(offsetof(type, field) == (off), #type "." #field " offset")

ETW_ASSERT_SIZE(struct wmi_buffer_header, 0x48);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, buffer_size, 0x00);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, saved_offset, 0x04);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, current_offset, 0x08);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, reference_count, 0x0C);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, timestamp, 0x10);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, sequence_number, 0x18);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, clock_type_frequency, 0x20);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, processor_index, 0x28);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, logger_id, 0x2A);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, state, 0x2C);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, offset, 0x30);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, buffer_flag, 0x34);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, buffer_type, 0x36);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, start_time, 0x38);
ETW_ASSERT_OFFSET(struct wmi_buffer_header, start_perf_clock, 0x40);

ETW_ASSERT_SIZE(struct system_trace_header, 0x20);
ETW_ASSERT_OFFSET(struct system_trace_header, size, 0x04);
ETW_ASSERT_OFFSET(struct system_trace_header, hook_id, 0x06);
ETW_ASSERT_OFFSET(struct system_trace_header, thread_id, 0x08);
ETW_ASSERT_OFFSET(struct system_trace_header, process_id, 0x0C);
ETW_ASSERT_OFFSET(struct system_trace_header, system_time, 0x10);
ETW_ASSERT_OFFSET(struct system_trace_header, kernel_time, 0x18);
ETW_ASSERT_OFFSET(struct system_trace_header, user_time, 0x1C);
ETW_ASSERT_SIZE(struct compact_trace_header, 0x18);
ETW_ASSERT_OFFSET(struct compact_trace_header, system_time, 0x10);
ETW_ASSERT_SIZE(struct perfinfo_trace_header, 0x10);
ETW_ASSERT_OFFSET(struct perfinfo_trace_header, size, 0x04);
ETW_ASSERT_OFFSET(struct perfinfo_trace_header, hook_id, 0x06);
ETW_ASSERT_OFFSET(struct perfinfo_trace_header, timestamp, 0x08);
ETW_ASSERT_SIZE(struct event_trace_header, 0x30);
ETW_ASSERT_OFFSET(struct event_trace_header, timestamp, 0x10);
ETW_ASSERT_OFFSET(struct event_trace_header, guid, 0x18);
ETW_ASSERT_SIZE(struct event_instance_header, 0x38);
ETW_ASSERT_OFFSET(struct event_instance_header, reg_handle, 0x18);
ETW_ASSERT_SIZE(struct etw_event_descriptor, 0x10);
ETW_ASSERT_SIZE(struct event_header, 0x50);
ETW_ASSERT_OFFSET(struct event_header, timestamp, 0x10);
ETW_ASSERT_OFFSET(struct event_header, provider_id, 0x18);
ETW_ASSERT_OFFSET(struct event_header, descriptor, 0x28);
ETW_ASSERT_OFFSET(struct event_header, kernel_time, 0x38);
ETW_ASSERT_OFFSET(struct event_header, activity_id, 0x40);
ETW_ASSERT_SIZE(struct etw_event_header_ext_item, 8);
ETW_ASSERT_OFFSET(struct etw_event_header_ext_item, data_size, 6);

ETW_ASSERT_SIZE(struct perfinfo_groupmask, 0x20);
ETW_ASSERT_SIZE(struct etw_header_extension, 36);
ETW_ASSERT_SIZE(struct etw_provider_binary_path, 4);
ETW_ASSERT_SIZE(struct etw_last_dropped_times, 8);

ETW_ASSERT_SIZE(struct etw_systemtime, 16);
ETW_ASSERT_SIZE(struct etw_time_zone_information, 172);
ETW_ASSERT_SIZE(struct trace_logfile_header, 0x118);
ETW_ASSERT_OFFSET(struct trace_logfile_header, buffer_size, 0x00);
ETW_ASSERT_OFFSET(struct trace_logfile_header, version, 0x04);
ETW_ASSERT_OFFSET(struct trace_logfile_header, provider_version, 0x08);
ETW_ASSERT_OFFSET(struct trace_logfile_header, number_of_processors, 0x0C);
ETW_ASSERT_OFFSET(struct trace_logfile_header, end_time, 0x10);
ETW_ASSERT_OFFSET(struct trace_logfile_header, timer_resolution, 0x18);
ETW_ASSERT_OFFSET(struct trace_logfile_header, maximum_file_size, 0x1C);
ETW_ASSERT_OFFSET(struct trace_logfile_header, log_file_mode, 0x20);
ETW_ASSERT_OFFSET(struct trace_logfile_header, buffers_written, 0x24);
ETW_ASSERT_OFFSET(struct trace_logfile_header, start_buffers, 0x28);
ETW_ASSERT_OFFSET(struct trace_logfile_header, pointer_size, 0x2C);
ETW_ASSERT_OFFSET(struct trace_logfile_header, events_lost, 0x30);
ETW_ASSERT_OFFSET(struct trace_logfile_header, cpu_speed_in_mhz, 0x34);
ETW_ASSERT_OFFSET(struct trace_logfile_header, logger_name, 0x38);
ETW_ASSERT_OFFSET(struct trace_logfile_header, log_file_name, 0x40);
ETW_ASSERT_OFFSET(struct trace_logfile_header, time_zone, 0x48);
ETW_ASSERT_OFFSET(struct trace_logfile_header, pad, 0xF4);
ETW_ASSERT_OFFSET(struct trace_logfile_header, boot_time, 0xF8);
ETW_ASSERT_OFFSET(struct trace_logfile_header, perf_freq, 0x100);
ETW_ASSERT_OFFSET(struct trace_logfile_header, start_time, 0x108);
ETW_ASSERT_OFFSET(struct trace_logfile_header, reserved_flags, 0x110);
ETW_ASSERT_OFFSET(struct trace_logfile_header, buffers_lost, 0x114);

ETW_ASSERT_SIZE(struct wmi_contextswap, 0x18);
ETW_ASSERT_OFFSET(struct wmi_contextswap, new_thread_id, 0x00);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_id, 0x04);
ETW_ASSERT_OFFSET(struct wmi_contextswap, new_thread_priority, 0x08);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_priority, 0x09);
ETW_ASSERT_OFFSET(struct wmi_contextswap, previous_c_state, 0x0A);
ETW_ASSERT_OFFSET(struct wmi_contextswap, spare_byte, 0x0B);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_wait_reason, 0x0C);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_wait_mode, 0x0D);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_state, 0x0E);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_ideal_processor, 0x0F);
ETW_ASSERT_OFFSET(struct wmi_contextswap, new_thread_wait_time, 0x10);
ETW_ASSERT_OFFSET(struct wmi_contextswap, old_thread_remaining_quantum, 0x14);

ETW_ASSERT_SIZE(struct etw_ready_thread, 8);
ETW_ASSERT_SIZE(struct etw_image_v3, 0x38);
ETW_ASSERT_OFFSET(struct etw_image_v3, image_size, 0x08);
ETW_ASSERT_OFFSET(struct etw_image_v3, process_id, 0x10);
ETW_ASSERT_OFFSET(struct etw_image_v3, image_checksum, 0x14);
ETW_ASSERT_OFFSET(struct etw_image_v3, time_date_stamp, 0x18);
ETW_ASSERT_OFFSET(struct etw_image_v3, signature_level, 0x1C);
ETW_ASSERT_OFFSET(struct etw_image_v3, signature_type, 0x1D);
ETW_ASSERT_OFFSET(struct etw_image_v3, default_base, 0x20);
ETW_ASSERT_OFFSET(struct etw_image_v3, reserved4, 0x34);
ETW_ASSERT_SIZE(struct etw_image_kernel_base, 8);
ETW_ASSERT_SIZE(struct ntkl_derived_id, 16);
/* the PerfView sample's ImageID and DbgID_RSDS records (shared/etl-samples) */
ETW_ASSERT_SIZE(struct etw_image_id, 24);
ETW_ASSERT_OFFSET(struct etw_image_id, image_size, 0x08);
ETW_ASSERT_OFFSET(struct etw_image_id, process_id, 0x10);
ETW_ASSERT_OFFSET(struct etw_image_id, time_date_stamp, 0x14);
ETW_ASSERT_SIZE(struct etw_dbgid_rsds, 32);
ETW_ASSERT_OFFSET(struct etw_dbgid_rsds, process_id, 0x08);
ETW_ASSERT_OFFSET(struct etw_dbgid_rsds, guid, 0x0C);
ETW_ASSERT_OFFSET(struct etw_dbgid_rsds, age, 0x1C);
static_assert(offsetof(struct etw_dbgid_rsds, process_id) + 4 == ETW_DBGID_NONE_SIZE,
	      "DbgID_NONE size");
ETW_ASSERT_SIZE(struct event_trace_header, 0x30);
ETW_ASSERT_OFFSET(struct event_trace_header, type, 0x04);
ETW_ASSERT_OFFSET(struct event_trace_header, thread_id, 0x08);
ETW_ASSERT_OFFSET(struct event_trace_header, timestamp, 0x10);
ETW_ASSERT_OFFSET(struct event_trace_header, guid, 0x18);

ETW_ASSERT_SIZE(struct etw_thread_v3, 72);
ETW_ASSERT_OFFSET(struct etw_thread_v3, stack_base, 0x08);
ETW_ASSERT_OFFSET(struct etw_thread_v3, affinity, 0x28);
ETW_ASSERT_OFFSET(struct etw_thread_v3, win32_start_addr, 0x30);
ETW_ASSERT_OFFSET(struct etw_thread_v3, teb_base, 0x38);
ETW_ASSERT_OFFSET(struct etw_thread_v3, sub_process_tag, 0x40);
ETW_ASSERT_OFFSET(struct etw_thread_v3, base_priority, 0x44);
ETW_ASSERT_OFFSET(struct etw_thread_v3, thread_flags, 0x47);

ETW_ASSERT_OFFSET(struct etw_process_v4, process_id, 0x08);
ETW_ASSERT_OFFSET(struct etw_process_v4, parent_id, 0x0C);
ETW_ASSERT_OFFSET(struct etw_process_v4, session_id, 0x10);
ETW_ASSERT_OFFSET(struct etw_process_v4, exit_status, 0x14);
ETW_ASSERT_OFFSET(struct etw_process_v4, directory_table_base, 0x18);
ETW_ASSERT_OFFSET(struct etw_process_v4, flags, 0x20);
static_assert(offsetof(struct etw_process_v4, flags) + 4 == ETW_PROCESS_V4_FIXED_SIZE,
	      "Process v4 fixed part");
ETW_ASSERT_SIZE(struct etw_sid_header, 16);
ETW_ASSERT_SIZE(struct etw_sid, 8);

static_assert(offsetof(struct etw_diskio_rw, issuing_thread_id) + 4 == ETW_DISKIO_RW_SIZE,
	      "DiskIo Read/Write v3 size");
ETW_ASSERT_OFFSET(struct etw_diskio_rw, irp_flags, 0x04);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, transfer_size, 0x08);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, reserved, 0x0C);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, byte_offset, 0x10);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, file_object, 0x18);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, irp, 0x20);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, high_res_response_time, 0x28);
ETW_ASSERT_OFFSET(struct etw_diskio_rw, issuing_thread_id, 0x30);
static_assert(offsetof(struct etw_diskio_init, issuing_thread_id) + 4 == ETW_DISKIO_INIT_SIZE,
	      "DiskIo Init v3 size");
ETW_ASSERT_OFFSET(struct etw_diskio_init, irp, 0x00);
ETW_ASSERT_OFFSET(struct etw_diskio_init, issuing_thread_id, 0x08);
static_assert(offsetof(struct etw_diskio_flush, issuing_thread_id) + 4 ==
	      ETW_DISKIO_FLUSH_SIZE, "DiskIo FlushBuffers v3 size");
ETW_ASSERT_OFFSET(struct etw_diskio_flush, irp_flags, 0x04);
ETW_ASSERT_OFFSET(struct etw_diskio_flush, high_res_response_time, 0x08);
ETW_ASSERT_OFFSET(struct etw_diskio_flush, irp, 0x10);
ETW_ASSERT_OFFSET(struct etw_diskio_flush, issuing_thread_id, 0x18);

ETW_ASSERT_OFFSET(struct etw_config_cpu, computer_name, 20);
ETW_ASSERT_OFFSET(struct etw_config_cpu, domain_name, 532);
ETW_ASSERT_OFFSET(struct etw_config_cpu, hyper_threading_flag, 800);
ETW_ASSERT_OFFSET(struct etw_config_cpu, highest_user_address, 808);
ETW_ASSERT_OFFSET(struct etw_config_cpu, processor_architecture, 816);
ETW_ASSERT_OFFSET(struct etw_config_cpu, pae_enabled, 822);
ETW_ASSERT_OFFSET(struct etw_config_cpu, memory_speed, 824);
ETW_ASSERT_SIZE(struct etw_config_phydisk, 568);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, cylinders, 16);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, scsi_port, 24);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, manufacturer, 40);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, partition_count, 552);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, write_cache_enabled, 556);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, boot_drive_letter, 558);
ETW_ASSERT_OFFSET(struct etw_config_phydisk, spare, 564);
ETW_ASSERT_SIZE(struct etw_config_logdisk, 112);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, disk_number, 16);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, drive_type, 24);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, drive_letter_string, 28);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, partition_number, 40);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, bytes_per_sector, 48);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, number_of_free_clusters, 56);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, total_number_of_clusters, 64);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, file_system, 72);
ETW_ASSERT_OFFSET(struct etw_config_logdisk, volume_ext, 104);
ETW_ASSERT_SIZE(struct etw_config_processor_group, 4);
ETW_ASSERT_SIZE(struct etw_group_affinity, 16);
ETW_ASSERT_OFFSET(struct etw_group_affinity, group, 8);
ETW_ASSERT_SIZE(struct etw_config_numa_node, 4);
ETW_ASSERT_SIZE(struct etw_config_nic, 20);
ETW_ASSERT_OFFSET(struct etw_config_nic, physical_addr_len, 8);
ETW_ASSERT_OFFSET(struct etw_config_nic, ipv4_index, 12);
ETW_ASSERT_OFFSET(struct etw_config_nic, ipv6_index, 16);
static_assert(offsetof(struct etw_config_irq, device_description_len) + 4 ==
	      ETW_CONFIG_IRQ_SIZE, "SystemConfig IRQ fixed size");
ETW_ASSERT_OFFSET(struct etw_config_irq, irq_group, 8);
ETW_ASSERT_OFFSET(struct etw_config_irq, irq_num, 12);
ETW_ASSERT_OFFSET(struct etw_config_irq, device_description_len, 16);
static_assert(offsetof(struct etw_config_cpu, memory_speed) + 4 == ETW_CONFIG_CPU_SIZE,
	      "SystemConfig CPU size");

ETW_ASSERT_SIZE(struct wmi_spinlock, 0x38);
ETW_ASSERT_OFFSET(struct wmi_spinlock, spin_lock_address, 0x00);
ETW_ASSERT_OFFSET(struct wmi_spinlock, caller_address, 0x08);
ETW_ASSERT_OFFSET(struct wmi_spinlock, acquire_time, 0x10);
ETW_ASSERT_OFFSET(struct wmi_spinlock, release_time, 0x18);
ETW_ASSERT_OFFSET(struct wmi_spinlock, wait_time_in_cycles, 0x20);
ETW_ASSERT_OFFSET(struct wmi_spinlock, spin_count, 0x24);
ETW_ASSERT_OFFSET(struct wmi_spinlock, thread_id, 0x28);
ETW_ASSERT_OFFSET(struct wmi_spinlock, interrupt_count, 0x2C);
ETW_ASSERT_OFFSET(struct wmi_spinlock, irql, 0x30);
ETW_ASSERT_OFFSET(struct wmi_spinlock, acquire_depth, 0x31);
ETW_ASSERT_OFFSET(struct wmi_spinlock, flags, 0x32);
ETW_ASSERT_OFFSET(struct wmi_spinlock, reserved, 0x33);

ETW_ASSERT_SIZE(struct perfinfo_sampled_profile, 16);
ETW_ASSERT_OFFSET(struct perfinfo_sampled_profile, instruction_pointer, 0);
ETW_ASSERT_OFFSET(struct perfinfo_sampled_profile, thread_id, 8);
ETW_ASSERT_OFFSET(struct perfinfo_sampled_profile, count, 12);
ETW_ASSERT_OFFSET(struct perfinfo_sampled_profile, flags, 14);
ETW_ASSERT_OFFSET(struct perfinfo_sampled_profile, rank, 15);
ETW_ASSERT_SIZE(struct perfinfo_dpc, 16);
ETW_ASSERT_OFFSET(struct perfinfo_dpc, initial_time, 0);
ETW_ASSERT_OFFSET(struct perfinfo_dpc, routine, 8);
static_assert(offsetof(struct perfinfo_isr, reserved) + 2 == ETW_ISR_SIZE, "ISR v2 size");
ETW_ASSERT_OFFSET(struct perfinfo_isr, initial_time, 0);
ETW_ASSERT_OFFSET(struct perfinfo_isr, routine, 8);
ETW_ASSERT_OFFSET(struct perfinfo_isr, return_value, 16);
ETW_ASSERT_OFFSET(struct perfinfo_isr, vector, 17);
ETW_ASSERT_OFFSET(struct perfinfo_isr, reserved, 18);
ETW_ASSERT_SIZE(struct perfinfo_syscall_enter, 8);
ETW_ASSERT_OFFSET(struct perfinfo_syscall_enter, syscall_address, 0);
ETW_ASSERT_SIZE(struct perfinfo_syscall_exit, 4);
ETW_ASSERT_OFFSET(struct perfinfo_syscall_exit, syscall_nt_status, 0);
ETW_ASSERT_SIZE(struct etw_tcpip_v4, 32);
ETW_ASSERT_OFFSET(struct etw_tcpip_v4, dport, 16);
ETW_ASSERT_OFFSET(struct etw_tcpip_v4, connid, 20);
ETW_ASSERT_OFFSET(struct etw_tcpip_v4, seqnum, 28);
ETW_ASSERT_SIZE(struct etw_tcpip_send_v4, 40);
ETW_ASSERT_OFFSET(struct etw_tcpip_send_v4, startime, 20);
ETW_ASSERT_OFFSET(struct etw_tcpip_send_v4, seqnum, 28);
ETW_ASSERT_OFFSET(struct etw_tcpip_send_v4, connid, 32);
ETW_ASSERT_SIZE(struct etw_tcpip_connect_v4, 48);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v4, mss, 20);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v4, rcvwin, 28);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v4, seqnum, 36);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v4, connid, 40);
ETW_ASSERT_SIZE(struct etw_tcpip_v6, 56);
ETW_ASSERT_OFFSET(struct etw_tcpip_v6, saddr, 24);
ETW_ASSERT_OFFSET(struct etw_tcpip_v6, dport, 40);
ETW_ASSERT_OFFSET(struct etw_tcpip_v6, connid, 44);
ETW_ASSERT_OFFSET(struct etw_tcpip_v6, seqnum, 52);
ETW_ASSERT_SIZE(struct etw_tcpip_send_v6, 64);
ETW_ASSERT_OFFSET(struct etw_tcpip_send_v6, startime, 44);
ETW_ASSERT_OFFSET(struct etw_tcpip_send_v6, connid, 56);
ETW_ASSERT_SIZE(struct etw_tcpip_connect_v6, 72);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v6, mss, 44);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v6, seqnum, 60);
ETW_ASSERT_OFFSET(struct etw_tcpip_connect_v6, connid, 64);
ETW_ASSERT_SIZE(struct etw_udpip_v4, 32);
ETW_ASSERT_OFFSET(struct etw_udpip_v4, seqnum, 20);
ETW_ASSERT_OFFSET(struct etw_udpip_v4, connid, 24);
ETW_ASSERT_SIZE(struct etw_udpip_v6, 56);
ETW_ASSERT_OFFSET(struct etw_udpip_v6, seqnum, 44);
ETW_ASSERT_OFFSET(struct etw_udpip_v6, connid, 48);
ETW_ASSERT_SIZE(struct perfinfo_hard_fault, 40);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, initial_time, 0);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, read_offset, 8);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, virtual_address, 16);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, file_object, 24);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, thread_id, 32);
ETW_ASSERT_SIZE(struct etw_page_fault, 16);
ETW_ASSERT_OFFSET(struct etw_page_fault, virtual_address, 0);
ETW_ASSERT_OFFSET(struct etw_page_fault, program_counter, 8);
ETW_ASSERT_SIZE(struct perfinfo_virtual_alloc, 24);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc, base_address, 0);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc, region_size, 8);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc, process_id, 16);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc, flags, 20);
ETW_ASSERT_SIZE(struct perfinfo_virtual_alloc_dc, 32);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc_dc, base_address, 0);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc_dc, region_size, 8);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc_dc, process_id, 16);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc_dc, flags, 20);
ETW_ASSERT_OFFSET(struct perfinfo_virtual_alloc_dc, commit_size, 24);
ETW_ASSERT_OFFSET(struct perfinfo_hard_fault, byte_count, 36);
ETW_ASSERT_SIZE(struct etw_process_meminfo, 4);
static_assert(ETW_PROCESS_MEMINFO_ENTRY_SIZE == 68, "ProcessMemInfo v2 entry size");
ETW_ASSERT_SIZE(struct etw_stack_key_ref, 24);
ETW_ASSERT_OFFSET(struct etw_stack_key_ref, event_time_stamp, 0);
ETW_ASSERT_OFFSET(struct etw_stack_key_ref, stack_process, 8);
ETW_ASSERT_OFFSET(struct etw_stack_key_ref, stack_thread, 12);
ETW_ASSERT_OFFSET(struct etw_stack_key_ref, stack_key, 16);
ETW_ASSERT_SIZE(struct etw_stack_key_def, 8);
ETW_ASSERT_OFFSET(struct etw_stack_key_def, stack_key, 0);
ETW_ASSERT_SIZE(struct etw_stack_walk, 16);
ETW_ASSERT_OFFSET(struct etw_stack_walk, event_time_stamp, 0);
ETW_ASSERT_OFFSET(struct etw_stack_walk, stack_process, 8);
ETW_ASSERT_OFFSET(struct etw_stack_walk, stack_thread, 12);
ETW_ASSERT_SIZE(struct etw_sampled_profile_interval, 12);
ETW_ASSERT_OFFSET(struct etw_sampled_profile_interval, new_interval, 4);
ETW_ASSERT_OFFSET(struct etw_sampled_profile_interval, old_interval, 8);

ETW_ASSERT_SIZE(struct perfinfo_ccswap_buffer, 0x58);
ETW_ASSERT_OFFSET(struct perfinfo_ccswap_buffer, first_timestamp, 0x00);
ETW_ASSERT_OFFSET(struct perfinfo_ccswap_buffer, tid_table, 0x08);
ETW_ASSERT_OFFSET(struct perfinfo_ccswap_buffer, thread_base_priority, 0x48);

ETW_ASSERT_SIZE(struct etw_fileio_name, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_name, file_object, 0);
ETW_ASSERT_SIZE(struct etw_fileio_create, 32);
ETW_ASSERT_OFFSET(struct etw_fileio_create, irp_ptr, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_create, file_object, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_create, ttid, 16);
ETW_ASSERT_OFFSET(struct etw_fileio_create, create_options, 20);
ETW_ASSERT_OFFSET(struct etw_fileio_create, file_attributes, 24);
ETW_ASSERT_OFFSET(struct etw_fileio_create, share_access, 28);
static_assert(offsetof(struct etw_fileio_simple_op, ttid) + 4 == ETW_FILEIO_SIMPLE_OP_SIZE,
	      "FileIo_SimpleOp v3 size");
ETW_ASSERT_OFFSET(struct etw_fileio_simple_op, irp_ptr, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_simple_op, file_object, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_simple_op, file_key, 16);
ETW_ASSERT_OFFSET(struct etw_fileio_simple_op, ttid, 24);
static_assert(offsetof(struct etw_fileio_read_write, io_flags) + 4 ==
	      ETW_FILEIO_READ_WRITE_SIZE, "FileIo_ReadWrite v3 size");
ETW_ASSERT_SIZE(struct etw_fileio_read_write, ETW_FILEIO_READ_WRITE_MAX);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, offset, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, irp_ptr, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, file_object, 16);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, file_key, 24);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, ttid, 32);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, io_size, 36);
ETW_ASSERT_OFFSET(struct etw_fileio_read_write, io_flags, 40);
ETW_ASSERT_SIZE(struct etw_fileio_info, 40);
ETW_ASSERT_OFFSET(struct etw_fileio_info, irp_ptr, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_info, file_object, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_info, file_key, 16);
ETW_ASSERT_OFFSET(struct etw_fileio_info, extra_info, 24);
ETW_ASSERT_OFFSET(struct etw_fileio_info, ttid, 32);
ETW_ASSERT_OFFSET(struct etw_fileio_info, info_class, 36);
ETW_ASSERT_SIZE(struct etw_fileio_dir_enum, 40);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, irp_ptr, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, file_object, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, file_key, 16);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, ttid, 24);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, length, 28);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, info_class, 32);
ETW_ASSERT_OFFSET(struct etw_fileio_dir_enum, file_index, 36);
static_assert(offsetof(struct etw_fileio_op_end, nt_status) + 4 == ETW_FILEIO_OP_END_SIZE,
	      "FileIo_OpEnd v2 size");
ETW_ASSERT_OFFSET(struct etw_fileio_op_end, irp_ptr, 0);
ETW_ASSERT_OFFSET(struct etw_fileio_op_end, extra_info, 8);
ETW_ASSERT_OFFSET(struct etw_fileio_op_end, nt_status, 16);

static_assert(ETW_MARKER_PERFINFO64(2) == 0xC0110002u, "PERFINFO64 marker");
static_assert(ETW_MARKER_SYSTEM64(2) == 0xC0020002u, "SYSTEM64 marker");
static_assert(PERF_GET_MASK_INDEX(PERF_CONTEXT_SWITCH) == 1 &&
	      PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH) == 0x4 &&
	      PERF_GET_MASK_INDEX(PERF_SPINLOCK) == 1 &&
	      PERF_GET_MASK_GROUP(PERF_SPINLOCK) == 0x10000 &&
	      PERF_GET_MASK_INDEX(PERF_SYSCALL) == 2 &&
	      PERF_GET_MASK_GROUP(PERF_SYSCALL) == 0x40, "group mask encoding");

/*
 * CompCS packet fields: each width, at the place the encoder shifts it to,
 * is the mask Geoff Chappell documents for PERFINFO_CCSWAP (LITE: TID
 * 0x3C, PriInc 0x1C0, StateWr 0x7E00, TimeDelta 0xFFFF8000; FULL's second
 * dword: TID 0xF, StateWr 0x3F0, Priority 0x7C00, NewThreadWaitTime
 * 0xFFFF8000; IDLE and FULL TimeDelta 0xFFFFFFFC; IDLE_SHORT 0xFFFC).
 */
static_assert(PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_TYPE) == 0x3 &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_TID) << 2 == 0x3C &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_PRI_INC) << 6 == 0x1C0 &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_STATE_WR) << 9 == 0x7E00 &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_SMALL_TS) << 15 == 0xFFFF8000u,
	      "CompCS LITE packet masks");
static_assert(PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_TID) == 0xF &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_STATE_WR) << 4 == 0x3F0 &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_PRIORITY) << 10 == 0x7C00 &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_WAIT_TIME) << 15 == 0xFFFF8000u &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_FULL_TS) << 2 == 0xFFFFFFFCu &&
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_SHORT_TS) << 2 == 0xFFFC,
	      "CompCS FULL, IDLE and IDLE_SHORT packet masks");

#endif /* _UAPI_NTKL_ETW_H */
