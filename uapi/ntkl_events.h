/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Every kernel event ntkl knows, one line each: the single definition that
 * the module's writers, its address redaction, and userspace's names,
 * checker and decoder are all driven by. The model is the kernel's
 * TRACE_EVENT(): one definition, expanded pass by pass.
 *
 * NTKL_EVENTS(E) calls, per event,
 *
 *   E(id, group, opcode, header, version, versions, mask, label, layout)
 *
 *   id        the event's name in C: ETW_EVENT_<id>
 *   group     ETW_GROUP_<group>; with opcode, the hook id
 *   header    the record header ntkl writes it with (ETW_HEADER_TYPE_<header>;
 *             ANY for events ntkl only reads)
 *   version   the version ntkl writes, and the one its layout describes
 *   versions  EXACT: the layout holds for that version only; ANY: for every
 *             version (the payload has not changed across Windows builds)
 *   mask      the group mask (PERF_*) that turns it on; 0 if it is always
 *             written (rundown, header buffer) or never written by ntkl
 *   label     the opcode name Windows tools print ("CSwitch": Thread/CSwitch)
 *   layout    ETW_LAYOUT_<layout>: the payload's fields and size rule
 *
 * NTKL_LAYOUTS(L) calls, per payload layout,
 *
 *   L(layout, title, fixed, min, max, tail)
 *
 *   title     what the decoder calls it ("CSwitch: NewThreadId=...")
 *   fixed     bytes of fixed fields (listed by ETW_FIELDS_<layout>(F))
 *   min, max  the payload sizes a record of this layout may have
 *   tail      what follows the fixed fields (ETW_TAIL_*), decoded by hand
 *
 * ETW_FIELDS_<layout>(F) calls F(struct, member, "Name", kind) per fixed
 * field, in payload order; kind is ETW_FIELD_<kind>, and KADDR marks a
 * kernel address, which the module hashes for readers that may not see
 * kernel addresses.
 *
 * Adding an event: one E() line here (and its layout and fields if the
 * payload is new), one producer in module/producers/, one test
 * (docs/design.md, "Adding an event").
 */
#ifndef _UAPI_NTKL_EVENTS_H
#define _UAPI_NTKL_EVENTS_H

#include "ntkl_etw.h"

#define ETW_HEADER_TYPE_ANY	0	/* events ntkl reads but never writes */

#define NTKL_EVENTS(E) \
	/* EventTrace: the logger's own events */ \
	E(HEADER,		HEADER, 0x00, SYSTEM64,   2, ANY,   0, "Header",		LOGFILE_HEADER) \
	E(HEADER_EXTENSION,	HEADER, 0x05, SYSTEM64,   2, ANY,   0, "Extension",		HEADER_EXTENSION) \
	E(RUNDOWN_COMPLETE,	HEADER, 0x08, PERFINFO64, 2, ANY,   0, "RundownComplete",	EMPTY) \
	E(GROUP_MASKS_END,	HEADER, 0x20, PERFINFO64, 2, ANY,   0, "GroupMasksEnd",	HEADER_EXTENSION) \
	E(PARTITION_INFO,	HEADER, 0x50, ANY,        0, ANY,   0, "PartitionInfo",	NONE) \
	/* Process */ \
	E(PROCESS_START,	PROCESS, 0x01, SYSTEM64,   4, EXACT, PERF_PROCESS, "Start",	PROCESS_V4) \
	E(PROCESS_END,		PROCESS, 0x02, SYSTEM64,   4, EXACT, PERF_PROCESS, "End",	PROCESS_V4) \
	E(PROCESS_DC_START,	PROCESS, 0x03, PERFINFO64, 4, EXACT, 0, "DCStart",		PROCESS_V4) \
	E(PROCESS_DC_END,	PROCESS, 0x04, PERFINFO64, 4, EXACT, 0, "DCEnd",		PROCESS_V4) \
	E(PROCESS_LOAD,		PROCESS, 0x0A, ANY,        0, ANY,   0, "Load",			NONE) \
	E(PROCESS_TERMINATE,	PROCESS, 0x0B, ANY,        0, ANY,   0, "Terminate",		NONE) \
	E(PROCESS_DEFUNCT,	PROCESS, 0x27, PERFINFO64, 4, EXACT, 0, "Defunct",		PROCESS_V4) \
	/* Thread */ \
	E(THREAD_START,		THREAD, 0x01, SYSTEM64,   3, EXACT, PERF_THREAD, "Start",	THREAD_V3) \
	E(THREAD_END,		THREAD, 0x02, SYSTEM64,   3, EXACT, PERF_THREAD, "End",	THREAD_V3) \
	E(THREAD_DC_START,	THREAD, 0x03, SYSTEM64,   3, EXACT, 0, "DCStart",		THREAD_V3) \
	E(THREAD_DC_END,	THREAD, 0x04, SYSTEM64,   3, EXACT, 0, "DCEnd",			THREAD_V3) \
	E(CSWITCH,		THREAD, 0x24, PERFINFO64, 4, ANY,   PERF_CONTEXT_SWITCH, "CSwitch", CSWITCH) \
	E(COMPACT_CSWITCH,	THREAD, 0x25, PERFINFO64, 2, ANY,   PERF_COMPACT_CSWITCH, "CompCS", COMPACT_CSWITCH) \
	E(SPINLOCK,		THREAD, 0x29, PERFINFO64, 2, ANY,   PERF_SPINLOCK, "SpinLock",	SPINLOCK) \
	E(READY_THREAD,		THREAD, 0x32, PERFINFO64, 2, ANY,   PERF_DISPATCHER, "ReadyThread", READY_THREAD) \
	E(THREAD_SET_NAME,	THREAD, 0x48, ANY,        0, ANY,   0, "SetName",		NONE) \
	/* Image */ \
	E(IMAGE_UNLOAD,		IMAGE, 0x02, ANY, 0, ANY, 0, "UnLoad",			NONE) \
	E(IMAGE_DC_START,	IMAGE, 0x03, ANY, 0, ANY, 0, "DCStart",			NONE) \
	E(IMAGE_DC_END,		IMAGE, 0x04, ANY, 0, ANY, 0, "DCEnd",			NONE) \
	E(IMAGE_LOAD,		IMAGE, 0x0A, ANY, 0, ANY, 0, "Load",			NONE) \
	E(IMAGE_KERNEL_BASE,	IMAGE, 0x21, ANY, 0, ANY, 0, "KernelBase",		NONE) \
	E(IMAGE_HYPERCALL_PAGE,	IMAGE, 0x22, ANY, 0, ANY, 0, "HypercallPage",		NONE) \
	/* PerfInfo */ \
	E(SAMPLED_PROFILE,	PERFINFO, 46, ANY, 0, ANY, 0, "SampleProf",		NONE) \
	E(ISR_MSI,		PERFINFO, 50, ANY, 0, ANY, 0, "ISR-MSI",		NONE) \
	E(SYSCALL_ENTER,	PERFINFO, 51, ANY, 0, ANY, 0, "SysClEnter",		NONE) \
	E(SYSCALL_EXIT,		PERFINFO, 52, ANY, 0, ANY, 0, "SysClExit",		NONE) \
	E(THREADED_DPC,		PERFINFO, 66, ANY, 0, ANY, 0, "ThreadedDPC",		NONE) \
	E(ISR,			PERFINFO, 67, ANY, 0, ANY, 0, "ISR",			NONE) \
	E(DPC,			PERFINFO, 68, ANY, 0, ANY, 0, "DPC",			NONE) \
	E(TIMER_DPC,		PERFINFO, 69, ANY, 0, ANY, 0, "TimerDPC",		NONE) \
	E(PROFILE_SET_INTERVAL,	PERFINFO, 72, ANY, 0, ANY, 0, "SetInterval",		NONE) \
	E(PROFILE_COLLECTION_START, PERFINFO, 73, ANY, 0, ANY, 0, "CollectionStart",	NONE) \
	E(PROFILE_COLLECTION_END, PERFINFO, 74, ANY, 0, ANY, 0, "CollectionEnd",	NONE) \
	/* StackWalk */ \
	E(STACK_WALK,		STACKWALK, 0x20, ANY, 0, ANY, 0, "Stack",		NONE) \
	E(STACK_KEY_DELETE,	STACKWALK, 0x23, ANY, 0, ANY, 0, "KeyDelete",		NONE) \
	E(STACK_KEY_RUNDOWN,	STACKWALK, 0x24, ANY, 0, ANY, 0, "KeyRundown",		NONE) \
	E(STACK_KEY_KERNEL,	STACKWALK, 0x25, ANY, 0, ANY, 0, "StackKeyKernel",	NONE) \
	E(STACK_KEY_USER,	STACKWALK, 0x26, ANY, 0, ANY, 0, "StackKeyUser",	NONE) \
	/* SystemConfig (EVENT_TRACE_TYPE_CONFIG_*) */ \
	E(CONFIG_CPU,		CONFIG, 0x0A, SYSTEM64, 3, EXACT, 0, "CPU",		CONFIG_CPU) \
	E(CONFIG_PHYSICALDISK,	CONFIG, 0x0B, ANY, 0, ANY, 0, "PhyDisk",		NONE) \
	E(CONFIG_LOGICALDISK,	CONFIG, 0x0C, ANY, 0, ANY, 0, "LogDisk",		NONE) \
	E(CONFIG_NIC,		CONFIG, 0x0D, ANY, 0, ANY, 0, "NIC",			NONE) \
	E(CONFIG_VIDEO,		CONFIG, 0x0E, ANY, 0, ANY, 0, "Video",			NONE) \
	E(CONFIG_SERVICES,	CONFIG, 0x0F, ANY, 0, ANY, 0, "Services",		NONE) \
	E(CONFIG_POWER,		CONFIG, 0x10, ANY, 0, ANY, 0, "Power",			NONE) \
	E(CONFIG_NETINFO,	CONFIG, 0x11, ANY, 0, ANY, 0, "Network",		NONE) \
	E(CONFIG_OPTICALMEDIA,	CONFIG, 0x12, ANY, 0, ANY, 0, "OpticalMedia",		NONE) \
	E(CONFIG_PHYSICALDISK_EX, CONFIG, 0x13, ANY, 0, ANY, 0, "PhyDiskEx",		NONE) \
	E(CONFIG_IRQ,		CONFIG, 0x15, ANY, 0, ANY, 0, "IRQ",			NONE) \
	E(CONFIG_PNP,		CONFIG, 0x16, ANY, 0, ANY, 0, "PnP",			NONE) \
	E(CONFIG_IDECHANNEL,	CONFIG, 0x17, ANY, 0, ANY, 0, "IDEChannel",		NONE) \
	E(CONFIG_NUMANODE,	CONFIG, 0x18, ANY, 0, ANY, 0, "NumaNode",		NONE) \
	E(CONFIG_PLATFORM,	CONFIG, 0x19, ANY, 0, ANY, 0, "Platform",		NONE) \
	E(CONFIG_PROCESSORGROUP, CONFIG, 0x1A, ANY, 0, ANY, 0, "ProcessorGroup",	NONE) \
	E(CONFIG_PROCESSORNUMBER, CONFIG, 0x1B, ANY, 0, ANY, 0, "ProcessorNumber",	NONE) \
	E(CONFIG_DPI,		CONFIG, 0x1C, ANY, 0, ANY, 0, "DPI",			NONE) \
	E(CONFIG_CI_INFO,	CONFIG, 0x1D, ANY, 0, ANY, 0, "CodeIntegrity",		NONE) \
	E(CONFIG_MACHINEID,	CONFIG, 0x1E, ANY, 0, ANY, 0, "MachineId",		NONE) \
	E(CONFIG_DEFRAG,	CONFIG, 0x1F, ANY, 0, ANY, 0, "Defrag",			NONE) \
	E(CONFIG_MOBILEPLATFORM, CONFIG, 0x20, ANY, 0, ANY, 0, "MobilePlatform",	NONE) \
	E(CONFIG_DEVICEFAMILY,	CONFIG, 0x21, ANY, 0, ANY, 0, "DeviceFamily",		NONE) \
	E(CONFIG_FLIGHTID,	CONFIG, 0x22, ANY, 0, ANY, 0, "FlightId",		NONE) \
	E(CONFIG_PROCESSOR,	CONFIG, 0x23, ANY, 0, ANY, 0, "Processor",		NONE) \
	E(CONFIG_VIRTUALIZATION, CONFIG, 0x24, ANY, 0, ANY, 0, "Virtualization",	NONE) \
	E(CONFIG_BOOT,		CONFIG, 0x25, ANY, 0, ANY, 0, "Boot",			NONE)

/* What follows a layout's fixed fields; each is decoded by hand. */
enum etw_tail {
	ETW_TAIL_NONE,
	ETW_TAIL_LOGFILE_NAMES,		/* LoggerName, LogFileName (UTF-16) */
	ETW_TAIL_GROUP_NAMES,		/* none: prints the groups the masks turn on */
	ETW_TAIL_THREAD_NAME,		/* ThreadName (UTF-16) */
	ETW_TAIL_PROCESS,		/* TOKEN_USER, image name, 3 UTF-16 strings */
	ETW_TAIL_CCSWAP_PACKETS,	/* TidTable and the compact packets */
};

#define NTKL_LAYOUTS(L) \
	L(NONE,		"",		0, 0, ETW_MAX_EVENT_SIZE, NONE) \
	L(EMPTY,	"",		0, 0, 0, NONE) \
	L(LOGFILE_HEADER, "Header",	sizeof(struct trace_logfile_header), \
			sizeof(struct trace_logfile_header) + 4, ETW_MAX_EVENT_SIZE, \
			LOGFILE_NAMES) \
	L(HEADER_EXTENSION, "GroupMasks", sizeof(struct etw_header_extension), \
			sizeof(struct etw_header_extension), \
			sizeof(struct etw_header_extension), GROUP_NAMES) \
	L(THREAD_V3,	"Thread",	sizeof(struct etw_thread_v3), \
			sizeof(struct etw_thread_v3) + 2, ETW_MAX_EVENT_SIZE, THREAD_NAME) \
	L(PROCESS_V4,	"Process",	ETW_PROCESS_V4_FIXED_SIZE, ETW_PROCESS_V4_FIXED_SIZE + 4, \
			ETW_MAX_EVENT_SIZE, PROCESS) \
	L(CSWITCH,	"CSwitch",	sizeof(struct wmi_contextswap), \
			sizeof(struct wmi_contextswap), sizeof(struct wmi_contextswap), NONE) \
	/* The 0x400 batch limit may or may not count the 0x58 header. */ \
	L(COMPACT_CSWITCH, "CompCS",	sizeof(struct perfinfo_ccswap_buffer), \
			sizeof(struct perfinfo_ccswap_buffer), \
			sizeof(struct perfinfo_ccswap_buffer) + PERFINFO_CCSWAP_BATCH_SIZE, \
			CCSWAP_PACKETS) \
	L(SPINLOCK,	"SpinLock",	sizeof(struct wmi_spinlock), sizeof(struct wmi_spinlock), \
			sizeof(struct wmi_spinlock), NONE) \
	L(READY_THREAD,	"ReadyThread",	sizeof(struct etw_ready_thread), \
			sizeof(struct etw_ready_thread), sizeof(struct etw_ready_thread), NONE) \
	L(CONFIG_CPU,	"CPU",		ETW_CONFIG_CPU_SIZE, ETW_CONFIG_CPU_SIZE, \
			ETW_CONFIG_CPU_SIZE, NONE)

/* How a field is printed, and what the module does with it. */
enum etw_field_kind {
	ETW_FIELD_UINT,			/* decimal */
	ETW_FIELD_INT,			/* signed decimal */
	ETW_FIELD_HEX,
	ETW_FIELD_KADDR,		/* a kernel address: hex; hashed for most readers */
	ETW_FIELD_WAIT_REASON,		/* KWAIT_REASON, with its name */
	ETW_FIELD_THREAD_STATE,		/* KTHREAD_STATE, with its name */
	ETW_FIELD_ADJUST_REASON,	/* ReadyThread AdjustReason, with its name */
	ETW_FIELD_READY_FLAGS,		/* ReadyThread Flag bits, by name */
	ETW_FIELD_SPINLOCK_FLAGS,	/* AcquireMode:6 ExecuteDpc:1 ExecuteIsr:1 */
	ETW_FIELD_LOGFILE_MODE,		/* EVENT_TRACE_* mode bits, by name */
	ETW_FIELD_GROUP_MASKS,		/* PERFINFO_GROUPMASK, 8 words */
	ETW_FIELD_WSTR_ARRAY,		/* UTF-16 in a fixed array */
	ETW_FIELD_RESERVED,		/* part of the layout, not printed */
};

#define ETW_FIELDS_NONE(F)
#define ETW_FIELDS_EMPTY(F)

#define ETW_FIELDS_LOGFILE_HEADER(F) \
	F(struct trace_logfile_header, buffer_size, "BufferSize", UINT) \
	F(struct trace_logfile_header, version, "Version", HEX) \
	F(struct trace_logfile_header, provider_version, "ProviderVersion", UINT) \
	F(struct trace_logfile_header, number_of_processors, "NumberOfProcessors", UINT) \
	F(struct trace_logfile_header, end_time, "EndTime", INT) \
	F(struct trace_logfile_header, timer_resolution, "TimerResolution", UINT) \
	F(struct trace_logfile_header, maximum_file_size, "MaximumFileSize", UINT) \
	F(struct trace_logfile_header, log_file_mode, "LogFileMode", LOGFILE_MODE) \
	F(struct trace_logfile_header, buffers_written, "BuffersWritten", UINT) \
	F(struct trace_logfile_header, start_buffers, "StartBuffers", UINT) \
	F(struct trace_logfile_header, pointer_size, "PointerSize", UINT) \
	F(struct trace_logfile_header, events_lost, "EventsLost", UINT) \
	F(struct trace_logfile_header, cpu_speed_in_mhz, "CpuSpeedInMHz", UINT) \
	F(struct trace_logfile_header, time_zone.bias, "TimeZoneBias", INT) \
	F(struct trace_logfile_header, boot_time, "BootTime", INT) \
	F(struct trace_logfile_header, perf_freq, "PerfFreq", INT) \
	F(struct trace_logfile_header, start_time, "StartTime", INT) \
	F(struct trace_logfile_header, reserved_flags, "ReservedFlags", UINT) \
	F(struct trace_logfile_header, buffers_lost, "BuffersLost", UINT)

#define ETW_FIELDS_HEADER_EXTENSION(F) \
	F(struct etw_header_extension, group_masks, "Masks", GROUP_MASKS) \
	F(struct etw_header_extension, kernel_event_version, "KernelEventVersion", UINT)

#define ETW_FIELDS_THREAD_V3(F) \
	F(struct etw_thread_v3, process_id, "ProcessId", UINT) \
	F(struct etw_thread_v3, thread_id, "TThreadId", UINT) \
	F(struct etw_thread_v3, stack_base, "StackBase", KADDR) \
	F(struct etw_thread_v3, stack_limit, "StackLimit", KADDR) \
	F(struct etw_thread_v3, user_stack_base, "UserStackBase", HEX) \
	F(struct etw_thread_v3, user_stack_limit, "UserStackLimit", HEX) \
	F(struct etw_thread_v3, affinity, "Affinity", HEX) \
	F(struct etw_thread_v3, win32_start_addr, "Win32StartAddr", HEX) \
	F(struct etw_thread_v3, teb_base, "TebBase", HEX) \
	F(struct etw_thread_v3, sub_process_tag, "SubProcessTag", HEX) \
	F(struct etw_thread_v3, base_priority, "BasePriority", UINT) \
	F(struct etw_thread_v3, page_priority, "PagePriority", UINT) \
	F(struct etw_thread_v3, io_priority, "IoPriority", UINT) \
	F(struct etw_thread_v3, thread_flags, "ThreadFlags", HEX)

#define ETW_FIELDS_PROCESS_V4(F) \
	F(struct etw_process_v4, unique_process_key, "UniqueProcessKey", HEX) \
	F(struct etw_process_v4, process_id, "ProcessId", UINT) \
	F(struct etw_process_v4, parent_id, "ParentId", UINT) \
	F(struct etw_process_v4, session_id, "SessionId", UINT) \
	F(struct etw_process_v4, exit_status, "ExitStatus", INT) \
	F(struct etw_process_v4, directory_table_base, "DirectoryTableBase", KADDR) \
	F(struct etw_process_v4, flags, "Flags", HEX)

/*
 * The last field: OldThreadRemainingQuantum in the seed (WMI_CONTEXTSWAP,
 * QuantumTarget less CycleTime over 1024); TraceEvent and the MOF class
 * call it Reserved. Version 4 (Windows 10 1709 to 2004): byte 0x0D is a
 * flags byte whose bit 0 is OldThreadWaitMode.
 */
#define ETW_FIELDS_CSWITCH(F) \
	F(struct wmi_contextswap, new_thread_id, "NewThreadId", UINT) \
	F(struct wmi_contextswap, old_thread_id, "OldThreadId", UINT) \
	F(struct wmi_contextswap, new_thread_priority, "NewThreadPriority", INT) \
	F(struct wmi_contextswap, old_thread_priority, "OldThreadPriority", INT) \
	F(struct wmi_contextswap, previous_c_state, "PreviousCState", UINT) \
	F(struct wmi_contextswap, spare_byte, "SpareByte", INT) \
	F(struct wmi_contextswap, old_thread_wait_reason, "OldThreadWaitReason", WAIT_REASON) \
	F(struct wmi_contextswap, old_thread_wait_mode, "OldThreadWaitMode", INT) \
	F(struct wmi_contextswap, old_thread_state, "OldThreadState", THREAD_STATE) \
	F(struct wmi_contextswap, old_thread_ideal_processor, "OldThreadWaitIdealProcessor", UINT) \
	F(struct wmi_contextswap, new_thread_wait_time, "NewThreadWaitTime", UINT) \
	F(struct wmi_contextswap, old_thread_remaining_quantum, "OldThreadRemainingQuantum", INT)

#define ETW_FIELDS_COMPACT_CSWITCH(F) \
	F(struct perfinfo_ccswap_buffer, first_timestamp, "FirstTimeStamp", UINT)

#define ETW_FIELDS_SPINLOCK(F) \
	F(struct wmi_spinlock, spin_lock_address, "SpinLockAddress", KADDR) \
	F(struct wmi_spinlock, caller_address, "CallerAddress", KADDR) \
	F(struct wmi_spinlock, acquire_time, "AcquireTime", UINT) \
	F(struct wmi_spinlock, release_time, "ReleaseTime", UINT) \
	F(struct wmi_spinlock, wait_time_in_cycles, "WaitTimeInCycles", UINT) \
	F(struct wmi_spinlock, spin_count, "SpinCount", UINT) \
	F(struct wmi_spinlock, thread_id, "ThreadId", UINT) \
	F(struct wmi_spinlock, interrupt_count, "InterruptCount", UINT) \
	F(struct wmi_spinlock, irql, "Irql", UINT) \
	F(struct wmi_spinlock, acquire_depth, "AcquireDepth", UINT) \
	F(struct wmi_spinlock, flags, "Flags", SPINLOCK_FLAGS) \
	F(struct wmi_spinlock, reserved, "Reserved", RESERVED)

#define ETW_FIELDS_READY_THREAD(F) \
	F(struct etw_ready_thread, thread_id, "TThreadId", UINT) \
	F(struct etw_ready_thread, adjust_reason, "AdjustReason", ADJUST_REASON) \
	F(struct etw_ready_thread, adjust_increment, "AdjustIncrement", INT) \
	F(struct etw_ready_thread, flag, "Flag", READY_FLAGS) \
	F(struct etw_ready_thread, reserved, "Reserved", INT)

#define ETW_FIELDS_CONFIG_CPU(F) \
	F(struct etw_config_cpu, mhz, "MHz", UINT) \
	F(struct etw_config_cpu, number_of_processors, "NumberOfProcessors", UINT) \
	F(struct etw_config_cpu, mem_size, "MemSize", UINT) \
	F(struct etw_config_cpu, page_size, "PageSize", UINT) \
	F(struct etw_config_cpu, allocation_granularity, "AllocationGranularity", UINT) \
	F(struct etw_config_cpu, computer_name, "ComputerName", WSTR_ARRAY) \
	F(struct etw_config_cpu, domain_name, "DomainName", WSTR_ARRAY) \
	F(struct etw_config_cpu, hyper_threading_flag, "HyperThreadingFlag", HEX) \
	F(struct etw_config_cpu, highest_user_address, "HighestUserAddress", HEX) \
	F(struct etw_config_cpu, processor_architecture, "ProcessorArchitecture", UINT) \
	F(struct etw_config_cpu, processor_level, "ProcessorLevel", UINT) \
	F(struct etw_config_cpu, processor_revision, "ProcessorRevision", HEX) \
	F(struct etw_config_cpu, pae_enabled, "PaeEnabled", UINT) \
	F(struct etw_config_cpu, nx_enabled, "NxEnabled", UINT) \
	F(struct etw_config_cpu, memory_speed, "MemorySpeed", UINT)

/* ---------------------------------------------------------------------- */
/* The expansions every user shares                                        */
/* ---------------------------------------------------------------------- */

#define ETW_EVENT_ENUM_(id, ...)	ETW_EVENT_##id,
enum etw_event_id {
	NTKL_EVENTS(ETW_EVENT_ENUM_)
	ETW_EVENT_COUNT
};

#define ETW_LAYOUT_ENUM_(layout, ...)	ETW_LAYOUT_##layout,
enum etw_layout_id {
	NTKL_LAYOUTS(ETW_LAYOUT_ENUM_)
	ETW_LAYOUT_COUNT
};

#define ETW_VERSIONS_EXACT	0
#define ETW_VERSIONS_ANY	1

/*
 * Per event, the constants a writer needs, as compile-time values:
 * ETW_EVENT_CSWITCH_HOOK, _HEADER, _VERSION, _MASK. A writer names an
 * event by its id only, so it cannot write a hook this table lacks.
 */
#define ETW_EVENT_CONSTS_(id, group, opcode, header, version, versions, mask, label, layout) \
	ETW_EVENT_##id##_HOOK = ETW_HOOK(ETW_GROUP_##group, opcode), \
	ETW_EVENT_##id##_HEADER = ETW_HEADER_TYPE_##header, \
	ETW_EVENT_##id##_VERSION = version,
enum {
	NTKL_EVENTS(ETW_EVENT_CONSTS_)
};

/*
 * The same as functions of an event id: with a constant id (every writer's
 * case) each folds to its constant.
 */
/* (id is only ever pasted, never expanded: CONFIG_* ids are kernel macros) */
#define ETW_EVENT_CASE_HOOK_(id, ...) \
	case ETW_EVENT_##id: return ETW_EVENT_##id##_HOOK;
#define ETW_EVENT_CASE_HEADER_(id, ...) \
	case ETW_EVENT_##id: return ETW_EVENT_##id##_HEADER;
#define ETW_EVENT_CASE_VERSION_(id, ...) \
	case ETW_EVENT_##id: return ETW_EVENT_##id##_VERSION;
#define ETW_EVENT_CASE_MASK_(id, group, opcode, header, version, versions, mask, ...) \
	case ETW_EVENT_##id: return mask;

static inline __u16 etw_event_hook(enum etw_event_id id)
{
	switch (id) {
	NTKL_EVENTS(ETW_EVENT_CASE_HOOK_)
	default:
		return 0;
	}
}

static inline __u8 etw_event_header_type(enum etw_event_id id)
{
	switch (id) {
	NTKL_EVENTS(ETW_EVENT_CASE_HEADER_)
	default:
		return ETW_HEADER_TYPE_ANY;
	}
}

static inline __u8 etw_event_version(enum etw_event_id id)
{
	switch (id) {
	NTKL_EVENTS(ETW_EVENT_CASE_VERSION_)
	default:
		return 0;
	}
}

/* The group mask (PERF_*) that turns the event on; 0 if none does. */
static inline __u32 etw_event_mask(enum etw_event_id id)
{
	switch (id) {
	NTKL_EVENTS(ETW_EVENT_CASE_MASK_)
	default:
		return 0;
	}
}

/* The event of a hook id, or ETW_EVENT_COUNT if the table lacks it. */
#define ETW_EVENT_BY_HOOK_(id, ...)	case ETW_EVENT_##id##_HOOK: return ETW_EVENT_##id;
static inline enum etw_event_id etw_event_by_hook(__u16 hook_id)
{
	switch (hook_id) {
	NTKL_EVENTS(ETW_EVENT_BY_HOOK_)
	default:
		return ETW_EVENT_COUNT;
	}
}

/* One fixed field of a layout. */
struct etw_field {
	__u16 offset;
	__u16 size;
	__u8 kind;			/* enum etw_field_kind */
	const char *name;
};

struct etw_layout {
	const char *name;		/* "CSWITCH" */
	const char *title;		/* "CSwitch" */
	const struct etw_field *fields;
	__u16 nr_fields;
	__u8 tail;			/* enum etw_tail */
	__u32 fixed;			/* bytes of fixed fields */
	__u32 min, max;			/* payload sizes allowed */
};

struct etw_event_desc {
	const char *id;			/* "CSWITCH" */
	const char *label;		/* "CSwitch" */
	__u16 hook_id;
	__u8 header_type;		/* ETW_HEADER_TYPE_*, ANY if never written */
	__u8 version;
	__u8 versions;			/* ETW_VERSIONS_* */
	__u32 mask;			/* PERF_* group mask, 0 if none */
	__u8 layout;			/* enum etw_layout_id */
};

/* The tables, by id: defined once per program by ntkl_event_table.h. */
extern const struct etw_event_desc etw_events[ETW_EVENT_COUNT];
extern const struct etw_layout etw_layouts[ETW_LAYOUT_COUNT];

/* Does ev's layout describe a record of this version? */
static inline int etw_event_layout_applies(const struct etw_event_desc *ev, __u8 version)
{
	return ev->versions == ETW_VERSIONS_ANY || ev->version == version;
}

#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

/* The hook ids the seeds give. */
static_assert(ETW_EVENT_CSWITCH_HOOK == 0x0524 && ETW_EVENT_COMPACT_CSWITCH_HOOK == 0x0525 &&
	      ETW_EVENT_SPINLOCK_HOOK == 0x0529 && ETW_EVENT_READY_THREAD_HOOK == 0x0532,
	      "thread group hook ids");

#endif /* _UAPI_NTKL_EVENTS_H */
