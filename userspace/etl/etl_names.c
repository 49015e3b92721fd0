// SPDX-License-Identifier: GPL-2.0
/*
 * Names for ETW numbers. Sources: the constants' names in
 * uapi/ntkl_etw.h; opcode names come from the event table
 * (uapi/ntkl_events.h), whose labels are the Microsoft Learn MOF classes'
 * (Process_V2_TypeGroup1: 1-4 and 39 Defunct; Image_Load: 10 Load,
 * 2 UnLoad, 3 DCStart, 4 DCEnd; Thread_V2_TypeGroup1 1-4, CSwitch 36,
 * ReadyThread 50; PerfInfo: 46, 51, 52, 66-69; SystemConfig: the
 * EVENT_TRACE_TYPE_CONFIG_* types), group 0's from
 * shared/docs/etl-format.md §3. Groups are named by their MOF classes
 * where those differ from the group's name (FileIo, PageFault, ALPC), as
 * WPA, TraceEvent and dissect.etl name the events.
 */
#include <stdio.h>
#include <string.h>

#include "etl_events.h"
#include "etl_names.h"
#include "uapi/ntkl_etw.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const group_names[ETW_MAX_KERNEL_GROUPS] = {
	[ETW_GROUP_HEADER]	= "EventTrace",
	[ETW_GROUP_IO]		= "DiskIo",
	[ETW_GROUP_MEMORY]	= "PageFault",	/* PageFault_V2's events */
	[ETW_GROUP_PROCESS]	= "Process",
	[ETW_GROUP_FILE]	= "FileIo",	/* FileIo's, not File */
	[ETW_GROUP_THREAD]	= "Thread",
	[ETW_GROUP_TCPIP]	= "TcpIp",
	[ETW_GROUP_JOB]		= "Job",
	[ETW_GROUP_UDPIP]	= "UdpIp",
	[ETW_GROUP_REGISTRY]	= "Registry",
	[ETW_GROUP_DBGPRINT]	= "DbgPrint",
	[ETW_GROUP_CONFIG]	= "SystemConfig",
	[ETW_GROUP_SPARE1]	= "Spare1",
	[ETW_GROUP_WNF]		= "Wnf",
	[ETW_GROUP_POOL]	= "Pool",
	[ETW_GROUP_PERFINFO]	= "PerfInfo",
	[ETW_GROUP_HEAP]	= "Heap",
	[ETW_GROUP_OBJECT]	= "Object",
	[ETW_GROUP_POWER]	= "Power",
	[ETW_GROUP_MODBOUND]	= "ModBound",
	[ETW_GROUP_IMAGE]	= "Image",
	[ETW_GROUP_DPC]		= "Dpc",
	[ETW_GROUP_CC]		= "CacheManager",
	[ETW_GROUP_CRITSEC]	= "CritSec",
	[ETW_GROUP_STACKWALK]	= "StackWalk",
	[ETW_GROUP_UMS]		= "Ums",
	[ETW_GROUP_ALPC]	= "ALPC",
	[ETW_GROUP_SPLITIO]	= "SplitIo",
	[ETW_GROUP_THREAD_POOL]	= "ThreadPool",
	[ETW_GROUP_HYPERVISOR]	= "Hypervisor",
	[ETW_GROUP_HYPERVISORX]	= "HypervisorX",
};

const char *etl_group_name(uint8_t group)
{
	if (group == ETW_GROUP_IMAGE_ID)
		return "ImageID";	/* KernelTraceControl's class, not a kernel group */
	return group < ARRAY_SIZE(group_names) ? group_names[group] : NULL;
}

/* The opcode name, as the event table gives it (uapi/ntkl_events.h). */
const char *etl_hook_name(uint16_t hook_id)
{
	const struct etw_event_desc *ev = etl_event_find(hook_id);

	return ev ? ev->label : NULL;
}

const char *etl_hook_label(uint16_t hook_id, char *buf, size_t size)
{
	const char *group = etl_group_name(ETW_HOOK_GROUP(hook_id));
	const char *name = etl_hook_name(hook_id);

	if (group && name)
		snprintf(buf, size, "%s/%s", group, name);
	else if (group)
		snprintf(buf, size, "%s/0x%02x", group, ETW_HOOK_TYPE(hook_id));
	else
		snprintf(buf, size, "group 0x%02x/0x%02x",
			 ETW_HOOK_GROUP(hook_id), ETW_HOOK_TYPE(hook_id));
	return buf;
}

const char *etl_header_type_name(uint8_t header_type)
{
	switch (header_type) {
	case ETW_HEADER_TYPE_SYSTEM32:		return "SYSTEM32";
	case ETW_HEADER_TYPE_SYSTEM64:		return "SYSTEM64";
	case ETW_HEADER_TYPE_COMPACT32:		return "COMPACT32";
	case ETW_HEADER_TYPE_COMPACT64:		return "COMPACT64";
	case ETW_HEADER_TYPE_FULL_HEADER32:	return "FULL_HEADER32";
	case ETW_HEADER_TYPE_INSTANCE32:	return "INSTANCE32";
	case ETW_HEADER_TYPE_TIMED:		return "TIMED";
	case ETW_HEADER_TYPE_ERROR:		return "ERROR";
	case ETW_HEADER_TYPE_WNODE_HEADER:	return "WNODE_HEADER";
	case ETW_HEADER_TYPE_MESSAGE:		return "MESSAGE";
	case ETW_HEADER_TYPE_PERFINFO32:	return "PERFINFO32";
	case ETW_HEADER_TYPE_PERFINFO64:	return "PERFINFO64";
	case ETW_HEADER_TYPE_EVENT_HEADER32:	return "EVENT_HEADER32";
	case ETW_HEADER_TYPE_EVENT_HEADER64:	return "EVENT_HEADER64";
	case ETW_HEADER_TYPE_FULL_HEADER64:	return "FULL_HEADER64";
	case ETW_HEADER_TYPE_INSTANCE64:	return "INSTANCE64";
	default:				return NULL;
	}
}

const char *etl_buffer_type_name(uint16_t buffer_type)
{
	static const char *const names[] = {
		[ETW_BUFFER_TYPE_GENERIC]	= "GENERIC",
		[ETW_BUFFER_TYPE_RUNDOWN]	= "RUNDOWN",
		[ETW_BUFFER_TYPE_CTX_SWAP]	= "CTX_SWAP",
		[ETW_BUFFER_TYPE_REFTIME]	= "REFTIME",
		[ETW_BUFFER_TYPE_HEADER]	= "HEADER",
		[ETW_BUFFER_TYPE_BATCHED]	= "BATCHED",
		[ETW_BUFFER_TYPE_EMPTY_MARKER]	= "EMPTY_MARKER",
		[ETW_BUFFER_TYPE_DBG_INFO]	= "DBG_INFO",
	};

	return buffer_type < ARRAY_SIZE(names) ? names[buffer_type] : NULL;
}

const char *etl_clock_type_name(uint32_t clock_type)
{
	switch (clock_type) {
	case EVENT_TRACE_CLOCK_RAW:		return "raw";
	case EVENT_TRACE_CLOCK_PERFCOUNTER:	return "QPC";
	case EVENT_TRACE_CLOCK_SYSTEMTIME:	return "system time";
	case EVENT_TRACE_CLOCK_CPUCYCLE:	return "CPU cycles";
	default:				return NULL;
	}
}

const char *etl_kwait_reason_name(uint8_t reason)
{
	static const char *const names[] = {
		[ETW_KWAIT_EXECUTIVE]		= "Executive",
		[ETW_KWAIT_FREE_PAGE]		= "FreePage",
		[ETW_KWAIT_PAGE_IN]		= "PageIn",
		[ETW_KWAIT_POOL_ALLOCATION]	= "PoolAllocation",
		[ETW_KWAIT_DELAY_EXECUTION]	= "DelayExecution",
		[ETW_KWAIT_SUSPENDED]		= "Suspended",
		[ETW_KWAIT_USER_REQUEST]	= "UserRequest",
		[ETW_KWAIT_WR_EXECUTIVE]	= "WrExecutive",
		[ETW_KWAIT_WR_FREE_PAGE]	= "WrFreePage",
		[ETW_KWAIT_WR_PAGE_IN]		= "WrPageIn",
		[ETW_KWAIT_WR_POOL_ALLOCATION]	= "WrPoolAllocation",
		[ETW_KWAIT_WR_DELAY_EXECUTION]	= "WrDelayExecution",
		[ETW_KWAIT_WR_SUSPENDED]	= "WrSuspended",
		[ETW_KWAIT_WR_USER_REQUEST]	= "WrUserRequest",
		[ETW_KWAIT_WR_EVENT_PAIR]	= "WrEventPair",
		[ETW_KWAIT_WR_QUEUE]		= "WrQueue",
		[ETW_KWAIT_WR_LPC_RECEIVE]	= "WrLpcReceive",
		[ETW_KWAIT_WR_LPC_REPLY]	= "WrLpcReply",
		[ETW_KWAIT_WR_VIRTUAL_MEMORY]	= "WrVirtualMemory",
		[ETW_KWAIT_WR_PAGE_OUT]		= "WrPageOut",
		[ETW_KWAIT_WR_RENDEZVOUS]	= "WrRendezvous",
		[ETW_KWAIT_WR_KEYED_EVENT]	= "WrKeyedEvent",
		[ETW_KWAIT_WR_TERMINATED]	= "WrTerminated",
		[ETW_KWAIT_WR_PROCESS_IN_SWAP]	= "WrProcessInSwap",
		[ETW_KWAIT_WR_CPU_RATE_CONTROL]	= "WrCpuRateControl",
		[ETW_KWAIT_WR_CALLOUT_STACK]	= "WrCalloutStack",
		[ETW_KWAIT_WR_KERNEL]		= "WrKernel",
		[ETW_KWAIT_WR_RESOURCE]		= "WrResource",
		[ETW_KWAIT_WR_PUSH_LOCK]	= "WrPushLock",
		[ETW_KWAIT_WR_MUTEX]		= "WrMutex",
		[ETW_KWAIT_WR_QUANTUM_END]	= "WrQuantumEnd",
		[ETW_KWAIT_WR_DISPATCH_INT]	= "WrDispatchInt",
		[ETW_KWAIT_WR_PREEMPTED]	= "WrPreempted",
		[ETW_KWAIT_WR_YIELD_EXECUTION]	= "WrYieldExecution",
		[ETW_KWAIT_WR_FAST_MUTEX]	= "WrFastMutex",
		[ETW_KWAIT_WR_GUARDED_MUTEX]	= "WrGuardedMutex",
		[ETW_KWAIT_WR_RUNDOWN]		= "WrRundown",
		[ETW_KWAIT_WR_ALERT_BY_THREAD_ID] = "WrAlertByThreadId",
		[ETW_KWAIT_WR_DEFERRED_PREEMPT]	= "WrDeferredPreempt",
	};

	return reason < ARRAY_SIZE(names) ? names[reason] : NULL;
}

const char *etl_kthread_state_name(uint8_t state)
{
	static const char *const names[] = {
		[ETW_KTHREAD_INITIALIZED]	= "Initialized",
		[ETW_KTHREAD_READY]		= "Ready",
		[ETW_KTHREAD_RUNNING]		= "Running",
		[ETW_KTHREAD_STANDBY]		= "Standby",
		[ETW_KTHREAD_TERMINATED]	= "Terminated",
		[ETW_KTHREAD_WAITING]		= "Waiting",
		[ETW_KTHREAD_TRANSITION]	= "Transition",
		[ETW_KTHREAD_DEFERRED_READY]	= "DeferredReady",
		[ETW_KTHREAD_GATE_WAIT]		= "GateWait",
		[ETW_KTHREAD_WAITING_FOR_PROCESS_IN_SWAP] = "WaitingForProcessInSwap",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}

const char *etl_ext_type_name(uint16_t ext_type)
{
	static const char *const names[EVENT_HEADER_EXT_TYPE_MAX] = {
		[EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID] = "RELATED_ACTIVITYID",
		[EVENT_HEADER_EXT_TYPE_SID]		= "SID",
		[EVENT_HEADER_EXT_TYPE_TS_ID]		= "TS_ID",
		[EVENT_HEADER_EXT_TYPE_INSTANCE_INFO]	= "INSTANCE_INFO",
		[EVENT_HEADER_EXT_TYPE_STACK_TRACE32]	= "STACK_TRACE32",
		[EVENT_HEADER_EXT_TYPE_STACK_TRACE64]	= "STACK_TRACE64",
		[EVENT_HEADER_EXT_TYPE_PEBS_INDEX]	= "PEBS_INDEX",
		[EVENT_HEADER_EXT_TYPE_PMC_COUNTERS]	= "PMC_COUNTERS",
		[EVENT_HEADER_EXT_TYPE_PSM_KEY]		= "PSM_KEY",
		[EVENT_HEADER_EXT_TYPE_EVENT_KEY]	= "EVENT_KEY",
		[EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL]	= "EVENT_SCHEMA_TL",
		[EVENT_HEADER_EXT_TYPE_PROV_TRAITS]	= "PROV_TRAITS",
		[EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY] = "PROCESS_START_KEY",
		[EVENT_HEADER_EXT_TYPE_CONTROL_GUID]	= "CONTROL_GUID",
		[EVENT_HEADER_EXT_TYPE_QPC_DELTA]	= "QPC_DELTA",
		[EVENT_HEADER_EXT_TYPE_CONTAINER_ID]	= "CONTAINER_ID",
		[EVENT_HEADER_EXT_TYPE_STACK_KEY32]	= "STACK_KEY32",
		[EVENT_HEADER_EXT_TYPE_STACK_KEY64]	= "STACK_KEY64",
	};

	return ext_type < ARRAY_SIZE(names) ? names[ext_type] : NULL;
}

const char *etl_spinlock_mode_name(uint8_t mode)
{
	switch (mode) {
	case WMI_SPINLOCK_ACQUIRE_ORDINARY:	return "ordinary";
	case WMI_SPINLOCK_ACQUIRE_QUEUED:	return "queued";
	case WMI_SPINLOCK_ACQUIRE_SHARED:	return "shared";
	case WMI_SPINLOCK_ACQUIRE_EXCLUSIVE:	return "exclusive";
	case WMI_SPINLOCK_ACQUIRE_CONVERTED:	return "converted";
	default:				return NULL;
	}
}

const char *etl_ready_adjust_reason_name(int8_t reason)
{
	switch (reason) {
	case ETW_ADJUST_NONE:	return "None";
	case ETW_ADJUST_UNWAIT:	return "Unwait";
	case ETW_ADJUST_BOOST:	return "Boost";
	default:		return NULL;
	}
}

const char *etl_flags_str(const struct etl_flag_name *table, uint32_t value,
			  char *buf, size_t size)
{
	uint32_t rest = value;
	size_t len = 0;
	int n;

	buf[0] = '\0';
	if (!value) {
		snprintf(buf, size, "0");
		return buf;
	}
	for (; table->name; table++) {
		if ((value & table->value) != table->value || !table->value)
			continue;
		rest &= ~table->value;
		n = snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
			     table->name);
		if (n < 0 || (size_t)n >= size - len)
			return buf;	/* truncated, still terminated */
		len += (size_t)n;
	}
	if (rest)
		snprintf(buf + len, size - len, "%s0x%x", len ? "|" : "", rest);
	return buf;
}

#define FLAG(prefix, name)	{ prefix##name, #name }

const struct etl_flag_name etl_buffer_flag_names[] = {
	FLAG(ETW_BUFFER_FLAG_, FLUSH_MARKER),
	FLAG(ETW_BUFFER_FLAG_, EVENTS_LOST),
	FLAG(ETW_BUFFER_FLAG_, BUFFER_LOST),
	FLAG(ETW_BUFFER_FLAG_, RTBACKUP_CORRUPT),
	FLAG(ETW_BUFFER_FLAG_, RTBACKUP),
	FLAG(ETW_BUFFER_FLAG_, PROC_INDEX),
	FLAG(ETW_BUFFER_FLAG_, COMPRESSED),
	{ 0, NULL }
};

const struct etl_flag_name etl_logfile_mode_names[] = {
	FLAG(EVENT_TRACE_, FILE_MODE_SEQUENTIAL),
	FLAG(EVENT_TRACE_, FILE_MODE_CIRCULAR),
	FLAG(EVENT_TRACE_, FILE_MODE_APPEND),
	FLAG(EVENT_TRACE_, FILE_MODE_NEWFILE),
	FLAG(EVENT_TRACE_, USE_MS_FLUSH_TIMER),
	FLAG(EVENT_TRACE_, FILE_MODE_PREALLOCATE),
	FLAG(EVENT_TRACE_, NONSTOPPABLE_MODE),
	FLAG(EVENT_TRACE_, SECURE_MODE),
	FLAG(EVENT_TRACE_, REAL_TIME_MODE),
	FLAG(EVENT_TRACE_, DELAY_OPEN_FILE_MODE),
	FLAG(EVENT_TRACE_, BUFFERING_MODE),
	FLAG(EVENT_TRACE_, PRIVATE_LOGGER_MODE),
	FLAG(EVENT_TRACE_, ADD_HEADER_MODE),
	FLAG(EVENT_TRACE_, USE_KBYTES_FOR_SIZE),
	FLAG(EVENT_TRACE_, USE_GLOBAL_SEQUENCE),
	FLAG(EVENT_TRACE_, USE_LOCAL_SEQUENCE),
	FLAG(EVENT_TRACE_, RELOG_MODE),
	FLAG(EVENT_TRACE_, PRIVATE_IN_PROC),
	FLAG(EVENT_TRACE_, BUFFER_INTERFACE_MODE),
	FLAG(EVENT_TRACE_, KD_FILTER_MODE),
	FLAG(EVENT_TRACE_, REAL_TIME_RELOG_MODE),
	FLAG(EVENT_TRACE_, LOST_EVENTS_DEBUG_MODE),
	FLAG(EVENT_TRACE_, STOP_ON_HYBRID_SHUTDOWN),
	FLAG(EVENT_TRACE_, PERSIST_ON_HYBRID_SHUTDOWN),
	FLAG(EVENT_TRACE_, USE_PAGED_MEMORY),
	FLAG(EVENT_TRACE_, SYSTEM_LOGGER_MODE),
	FLAG(EVENT_TRACE_, COMPRESSED_MODE),
	FLAG(EVENT_TRACE_, INDEPENDENT_SESSION_MODE),
	FLAG(EVENT_TRACE_, NO_PER_PROCESSOR_BUFFERING),
	FLAG(EVENT_TRACE_, BLOCKING_MODE),
	FLAG(EVENT_TRACE_, ADDTO_TRIAGE_DUMP),
	{ 0, NULL }
};

const struct etl_flag_name etl_event_header_flag_names[] = {
	FLAG(EVENT_HEADER_FLAG_, EXTENDED_INFO),
	FLAG(EVENT_HEADER_FLAG_, PRIVATE_SESSION),
	FLAG(EVENT_HEADER_FLAG_, STRING_ONLY),
	FLAG(EVENT_HEADER_FLAG_, TRACE_MESSAGE),
	FLAG(EVENT_HEADER_FLAG_, NO_CPUTIME),
	FLAG(EVENT_HEADER_FLAG_, 32_BIT_HEADER),
	FLAG(EVENT_HEADER_FLAG_, 64_BIT_HEADER),
	FLAG(EVENT_HEADER_FLAG_, DECODE_GUID),
	FLAG(EVENT_HEADER_FLAG_, CLASSIC_HEADER),
	FLAG(EVENT_HEADER_FLAG_, PROCESSOR_INDEX),
	{ 0, NULL }
};

/* Not bit flags: each value is a mask index and a bit (see perf_group_is_on). */
const struct etl_flag_name etl_perf_group_names[] = {
	FLAG(PERF_, PROCESS),
	FLAG(PERF_, THREAD),
	FLAG(PERF_, LOADER),
	FLAG(PERF_, PROFILE),
	FLAG(PERF_, CONTEXT_SWITCH),
	FLAG(PERF_, FOOTPRINT),
	FLAG(PERF_, DRIVERS),
	FLAG(PERF_, REFSET),
	FLAG(PERF_, POOL),
	FLAG(PERF_, DPC),
	FLAG(PERF_, COMPACT_CSWITCH),
	FLAG(PERF_, DISPATCHER),
	FLAG(PERF_, PMC_PROFILE),
	FLAG(PERF_, INTERRUPT),
	FLAG(PERF_, VIRTUAL_ALLOC),
	FLAG(PERF_, SPINLOCK),
	FLAG(PERF_, SPINLOCK_CNTRS),
	FLAG(PERF_, SPININSTR),
	FLAG(PERF_, SYSCALL),
	{ 0, NULL }
};
