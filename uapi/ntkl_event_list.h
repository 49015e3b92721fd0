/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Every kernel event ntkl knows, every payload layout, every fixed field:
 * the one list that the module's writers and address redaction and
 * userspace's names, checker and decoder are all driven by. As with
 * <asm-generic/unistd.h> and its __SYSCALL() lines, this file has no
 * include guard: ntkl_events.h and ntkl_event_table.h include it once per
 * pass, with NTKL_EVENT(), NTKL_LAYOUT() and NTKL_FIELD() defined to what
 * that pass makes of each line (an enum, a table row, a test).
 *
 * NTKL_EVENT(id, header, version, versions, mask, label, layout)
 *   id        ETW_EVENT_<id>; its hook is ETW_EVENT_<id>_HOOK, defined
 *             just before it
 *   header    the record header ntkl writes it with (ETW_HEADER_TYPE_<header>);
 *             ANY for events ntkl only reads
 *   version   the version ntkl writes, and the one its layout describes
 *   versions  EXACT: the layout holds for that version only; ANY: for every
 *             version (the payload did not change across Windows builds)
 *   mask      the group mask (PERF_*) that turns it on; 0 if it is always
 *             written (rundown, header buffer) or never written by ntkl
 *   label     the opcode name Windows tools print ("CSwitch": Thread/CSwitch)
 *   layout    ETW_LAYOUT_<layout>: the payload's fields and size rule
 * Events stay in hook order (lookups search the table; a unit test checks).
 *
 * NTKL_LAYOUT(layout, type, title, fixed, min, max, tail)
 *   type      the payload's struct, by its tag (uapi/ntkl_etw.h; etw_bytes
 *             for none): the module writes it through ntkl_begin_<layout>()
 *             (typed, no cast) and checks at build time that it holds the
 *             fixed fields, each member as wide as its NTKL_FIELD line says
 *   title     what the decoder calls it ("CSwitch: NewThreadId=...")
 *   fixed     bytes of fixed fields, listed by the NTKL_FIELD lines after it
 *   min, max  the payload sizes a record of this layout may have
 *   tail      what follows the fixed fields (ETW_TAIL_*), decoded by hand
 *
 * NTKL_FIELD(layout, type, member, width, name, kind)
 *   one fixed field, in payload order: its struct and member (the offset),
 *   its width in bytes (userspace/tests/test_events.c checks it against the
 *   member), the name tools print, and ETW_FIELD_<kind>; KADDR marks a
 *   kernel address, which the module hashes for readers that may not see
 *   kernel addresses; IP a code address that may be a user one, hashed
 *   only when it is a kernel address.
 *
 * NTKL_KEYWORD(name, flags, group, help)
 *   an -on name of the ntkl command (userspace/ctl/ntkl_flags.c), at the
 *   end of the list
 *
 * NTKL_STACKWALK(id, name)
 *   an event whose stack ntkl can walk (-stackwalk name, xperf's name for
 *   it), at the very end
 *
 * Adding an event: its hook and NTKL_EVENT line here (and its layout and
 * fields if the payload is new, its NTKL_KEYWORD line if no -on name
 * turns it on yet), its producer in module/producers/, a test
 * (docs/architecture.md, "Adding an event").
 */

/* the -on names, at the end: a pass that wants none leaves NTKL_KEYWORD undefined */
#ifndef NTKL_KEYWORD
#define NTKL_KEYWORD(...)
#define NTKL_KEYWORD_UNUSED
#endif
/* likewise the events whose stacks are walked */
#ifndef NTKL_STACKWALK
#define NTKL_STACKWALK(...)
#define NTKL_STACKWALK_UNUSED
#endif

/* ---------------------------------------------------------------------- */
/* Events                                                                  */
/* ---------------------------------------------------------------------- */
/* EventTrace: the logger's own events */
#define ETW_EVENT_HEADER_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x00)
NTKL_EVENT(HEADER, SYSTEM64, 2, ANY, 0, "Header", LOGFILE_HEADER)
#define ETW_EVENT_HEADER_EXTENSION_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x05)
NTKL_EVENT(HEADER_EXTENSION, SYSTEM64, 2, ANY, 0, "Extension", HEADER_EXTENSION)
#define ETW_EVENT_RUNDOWN_COMPLETE_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x08)
NTKL_EVENT(RUNDOWN_COMPLETE, PERFINFO64, 2, ANY, 0, "RundownComplete", EMPTY)
#define ETW_EVENT_GROUP_MASKS_END_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x20)
NTKL_EVENT(GROUP_MASKS_END, PERFINFO64, 2, ANY, 0, "GroupMasksEnd", HEADER_EXTENSION)
/* written by libntkl (its loggers' providers), never by the module */
#define ETW_EVENT_PROVIDER_BINARY_PATH_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x43)
NTKL_EVENT(PROVIDER_BINARY_PATH, SYSTEM64, 2, ANY, 0, "ProviderBinaryPath", PROVIDER_BINARY_PATH)
#define ETW_EVENT_PARTITION_INFO_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x50)
NTKL_EVENT(PARTITION_INFO, ANY, 0, ANY, 0, "PartitionInfo", NONE)
#define ETW_EVENT_LAST_DROPPED_TIMES_HOOK	ETW_HOOK(ETW_GROUP_HEADER, 0x52)
NTKL_EVENT(LAST_DROPPED_TIMES, ANY, 0, ANY, 0, "LastDroppedTimes", LAST_DROPPED_TIMES)

/*
 * DiskIo (EVENT_TRACE_GROUP_IO): the block layer's requests
 * (module/producers/disk.c); completions and flushes with DISK_IO, the
 * Init records at issue with DISK_IO_INIT
 */
#define ETW_EVENT_DISKIO_READ_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0A)
NTKL_EVENT(DISKIO_READ, PERFINFO64, 3, EXACT, PERF_DISK_IO, "Read", DISKIO_RW)
#define ETW_EVENT_DISKIO_WRITE_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0B)
NTKL_EVENT(DISKIO_WRITE, PERFINFO64, 3, EXACT, PERF_DISK_IO, "Write", DISKIO_RW)
#define ETW_EVENT_DISKIO_READ_INIT_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0C)
NTKL_EVENT(DISKIO_READ_INIT, SYSTEM64, 3, EXACT, PERF_DISK_IO_INIT, "ReadInit", DISKIO_INIT)
#define ETW_EVENT_DISKIO_WRITE_INIT_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0D)
NTKL_EVENT(DISKIO_WRITE_INIT, SYSTEM64, 3, EXACT, PERF_DISK_IO_INIT, "WriteInit", DISKIO_INIT)
#define ETW_EVENT_DISKIO_FLUSH_BUFFERS_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0E)
NTKL_EVENT(DISKIO_FLUSH_BUFFERS, PERFINFO64, 3, EXACT, PERF_DISK_IO, "FlushBuffers",
	   DISKIO_FLUSH)
#define ETW_EVENT_DISKIO_FLUSH_INIT_HOOK	ETW_HOOK(ETW_GROUP_IO, 0x0F)
NTKL_EVENT(DISKIO_FLUSH_INIT, SYSTEM64, 3, EXACT, PERF_DISK_IO_INIT, "FlushInit", DISKIO_INIT)

/*
 * Memory (PageFault_V2; module/producers/memory.c): every page fault by
 * how it was resolved with ALL_FAULTS (a GuardPageFault Linux has not:
 * named only); HardFault, a fault that waited for storage, with
 * HARD_FAULTS (module/producers/hardfault.c); VirtualAlloc and
 * VirtualFree, anonymous private memory mapped and unmapped, with
 * VIRT_ALLOC.
 */
#define ETW_EVENT_TRANSITION_FAULT_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0A)
NTKL_EVENT(TRANSITION_FAULT, SYSTEM64, 2, ANY, PERF_ALL_FAULTS, "TransitionFault", PAGE_FAULT)
#define ETW_EVENT_DEMAND_ZERO_FAULT_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0B)
NTKL_EVENT(DEMAND_ZERO_FAULT, SYSTEM64, 2, ANY, PERF_ALL_FAULTS, "DemandZeroFault", PAGE_FAULT)
#define ETW_EVENT_COPY_ON_WRITE_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0C)
NTKL_EVENT(COPY_ON_WRITE, SYSTEM64, 2, ANY, PERF_ALL_FAULTS, "CopyOnWrite", PAGE_FAULT)
#define ETW_EVENT_GUARD_PAGE_FAULT_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0D)
NTKL_EVENT(GUARD_PAGE_FAULT, ANY, 0, ANY, 0, "GuardPageFault", PAGE_FAULT)
#define ETW_EVENT_HARD_PAGE_FAULT_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0E)
NTKL_EVENT(HARD_PAGE_FAULT, SYSTEM64, 2, ANY, PERF_ALL_FAULTS, "HardPageFault", PAGE_FAULT)
#define ETW_EVENT_ACCESS_VIOLATION_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x0F)
NTKL_EVENT(ACCESS_VIOLATION, SYSTEM64, 2, ANY, PERF_ALL_FAULTS, "AccessViolation", PAGE_FAULT)
#define ETW_EVENT_HARD_FAULT_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x20)
NTKL_EVENT(HARD_FAULT, PERFINFO64, 2, EXACT, PERF_HARD_FAULTS, "HardFault", HARD_FAULT)
#define ETW_EVENT_VIRTUAL_ALLOC_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x62)
NTKL_EVENT(VIRTUAL_ALLOC, PERFINFO64, 2, EXACT, PERF_VIRTUAL_ALLOC, "VirtualAlloc", VIRTUAL_ALLOC)
#define ETW_EVENT_VIRTUAL_FREE_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x63)
NTKL_EVENT(VIRTUAL_FREE, PERFINFO64, 2, EXACT, PERF_VIRTUAL_ALLOC, "VirtualFree", VIRTUAL_ALLOC)
/*
 * ProcessMemInfo, every process's memory each half second while a logger
 * takes MEMINFO_WS (module/producers/meminfo.c), as TraceEvent names and
 * reads it
 */
#define ETW_EVENT_PROCESS_MEMINFO_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x7D)
NTKL_EVENT(PROCESS_MEMINFO, PERFINFO64, 2, EXACT, PERF_MEMINFO_WS, "ProcessMemInfo",
	   PROCESS_MEMINFO)
/*
 * The VirtualAlloc rundown: every process's anonymous private memory as
 * it stands when a logger taking VIRT_ALLOC starts (DCStart) and stops
 * (DCEnd), so WPA's Commit Lifetimes see what was mapped before the trace.
 */
#define ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x80)
NTKL_EVENT(VIRTUAL_ALLOC_DC_START, PERFINFO64, 2, EXACT, PERF_VIRTUAL_ALLOC, "VirtualAllocDCStart",
	   VIRTUAL_ALLOC_DC)
#define ETW_EVENT_VIRTUAL_ALLOC_DC_END_HOOK	ETW_HOOK(ETW_GROUP_MEMORY, 0x81)
NTKL_EVENT(VIRTUAL_ALLOC_DC_END, PERFINFO64, 2, EXACT, PERF_VIRTUAL_ALLOC, "VirtualAllocDCEnd",
	   VIRTUAL_ALLOC_DC)

/* Process */
#define ETW_EVENT_PROCESS_START_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x01)
NTKL_EVENT(PROCESS_START, SYSTEM64, 4, EXACT, PERF_PROCESS, "Start", PROCESS_V4)
#define ETW_EVENT_PROCESS_END_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x02)
NTKL_EVENT(PROCESS_END, SYSTEM64, 4, EXACT, PERF_PROCESS, "End", PROCESS_V4)
#define ETW_EVENT_PROCESS_DC_START_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x03)
NTKL_EVENT(PROCESS_DC_START, PERFINFO64, 4, EXACT, 0, "DCStart", PROCESS_V4)
#define ETW_EVENT_PROCESS_DC_END_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x04)
NTKL_EVENT(PROCESS_DC_END, PERFINFO64, 4, EXACT, 0, "DCEnd", PROCESS_V4)
#define ETW_EVENT_PROCESS_LOAD_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x0A)
NTKL_EVENT(PROCESS_LOAD, ANY, 0, ANY, 0, "Load", NONE)
#define ETW_EVENT_PROCESS_TERMINATE_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x0B)
NTKL_EVENT(PROCESS_TERMINATE, ANY, 0, ANY, 0, "Terminate", NONE)
/* Windows' process counters (TraceEvent's ProcessCtrTraceData): named only */
#define ETW_EVENT_PROCESS_PERFCTR_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x20)
NTKL_EVENT(PROCESS_PERFCTR, ANY, 0, ANY, 0, "PerfCtr", NONE)
#define ETW_EVENT_PROCESS_PERFCTR_RUNDOWN_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x21)
NTKL_EVENT(PROCESS_PERFCTR_RUNDOWN, ANY, 0, ANY, 0, "PerfCtrRundown", NONE)
#define ETW_EVENT_PROCESS_DEFUNCT_HOOK	ETW_HOOK(ETW_GROUP_PROCESS, 0x27)
NTKL_EVENT(PROCESS_DEFUNCT, PERFINFO64, 4, EXACT, 0, "Defunct", PROCESS_V4)

/*
 * FileIo (module/producers/fileio.c): names with FILENAME
 * (EVENT_TRACE_FLAG_DISK_FILE_IO), the operations as they begin with
 * FILE_IO_INIT, their completions (OperationEnd) with FILE_IO. PERFINFO64
 * headers as Windows' (TTID in the payload names the thread).
 */
#define ETW_EVENT_FILEIO_NAME_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x00)
NTKL_EVENT(FILEIO_NAME, PERFINFO64, 2, ANY, PERF_FILENAME, "Name", FILEIO_NAME)
#define ETW_EVENT_FILEIO_FILE_CREATE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x20)
NTKL_EVENT(FILEIO_FILE_CREATE, PERFINFO64, 2, ANY, PERF_FILENAME, "FileCreate", FILEIO_NAME)
#define ETW_EVENT_FILEIO_FILE_DELETE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x23)
NTKL_EVENT(FILEIO_FILE_DELETE, PERFINFO64, 2, ANY, PERF_FILENAME, "FileDelete", FILEIO_NAME)
#define ETW_EVENT_FILEIO_FILE_RUNDOWN_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x24)
NTKL_EVENT(FILEIO_FILE_RUNDOWN, PERFINFO64, 2, ANY, PERF_FILENAME, "FileRundown", FILEIO_NAME)
#define ETW_EVENT_FILEIO_CREATE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x40)
NTKL_EVENT(FILEIO_CREATE, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Create", FILEIO_CREATE)
#define ETW_EVENT_FILEIO_CLEANUP_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x41)
NTKL_EVENT(FILEIO_CLEANUP, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Cleanup", FILEIO_SIMPLE_OP)
#define ETW_EVENT_FILEIO_CLOSE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x42)
NTKL_EVENT(FILEIO_CLOSE, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Close", FILEIO_SIMPLE_OP)
#define ETW_EVENT_FILEIO_READ_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x43)
NTKL_EVENT(FILEIO_READ, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Read", FILEIO_READ_WRITE)
#define ETW_EVENT_FILEIO_WRITE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x44)
NTKL_EVENT(FILEIO_WRITE, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Write", FILEIO_READ_WRITE)
#define ETW_EVENT_FILEIO_SET_INFO_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x45)
NTKL_EVENT(FILEIO_SET_INFO, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "SetInfo", FILEIO_INFO)
#define ETW_EVENT_FILEIO_DELETE_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x46)
NTKL_EVENT(FILEIO_DELETE, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Delete", FILEIO_INFO)
#define ETW_EVENT_FILEIO_RENAME_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x47)
NTKL_EVENT(FILEIO_RENAME, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Rename", FILEIO_INFO)
#define ETW_EVENT_FILEIO_DIR_ENUM_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x48)
NTKL_EVENT(FILEIO_DIR_ENUM, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "DirEnum", FILEIO_DIR_ENUM)
#define ETW_EVENT_FILEIO_FLUSH_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x49)
NTKL_EVENT(FILEIO_FLUSH, PERFINFO64, 3, EXACT, PERF_FILE_IO_INIT, "Flush", FILEIO_SIMPLE_OP)
/* Windows' operations Linux has no hook of ntkl's for: named, not written */
#define ETW_EVENT_FILEIO_QUERY_INFO_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x4A)
NTKL_EVENT(FILEIO_QUERY_INFO, ANY, 3, EXACT, 0, "QueryInfo", FILEIO_INFO)
#define ETW_EVENT_FILEIO_FS_CONTROL_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x4B)
NTKL_EVENT(FILEIO_FS_CONTROL, ANY, 3, EXACT, 0, "FSControl", FILEIO_INFO)
#define ETW_EVENT_FILEIO_OP_END_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x4C)
NTKL_EVENT(FILEIO_OP_END, PERFINFO64, 2, EXACT, PERF_FILE_IO, "OperationEnd", FILEIO_OP_END)
#define ETW_EVENT_FILEIO_DIR_NOTIFY_HOOK	ETW_HOOK(ETW_GROUP_FILE, 0x4D)
NTKL_EVENT(FILEIO_DIR_NOTIFY, ANY, 3, EXACT, 0, "DirNotify", FILEIO_DIR_ENUM)

/* Thread */
#define ETW_EVENT_THREAD_START_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x01)
NTKL_EVENT(THREAD_START, SYSTEM64, 3, EXACT, PERF_THREAD, "Start", THREAD_V3)
#define ETW_EVENT_THREAD_END_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x02)
NTKL_EVENT(THREAD_END, SYSTEM64, 3, EXACT, PERF_THREAD, "End", THREAD_V3)
#define ETW_EVENT_THREAD_DC_START_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x03)
NTKL_EVENT(THREAD_DC_START, SYSTEM64, 3, EXACT, 0, "DCStart", THREAD_V3)
#define ETW_EVENT_THREAD_DC_END_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x04)
NTKL_EVENT(THREAD_DC_END, SYSTEM64, 3, EXACT, 0, "DCEnd", THREAD_V3)
#define ETW_EVENT_CSWITCH_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x24)
NTKL_EVENT(CSWITCH, PERFINFO64, 4, ANY, PERF_CONTEXT_SWITCH, "CSwitch", CSWITCH)
#define ETW_EVENT_COMPACT_CSWITCH_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x25)
NTKL_EVENT(COMPACT_CSWITCH, PERFINFO64, 2, ANY, PERF_COMPACT_CSWITCH, "CompCS", COMPACT_CSWITCH)
#define ETW_EVENT_SPINLOCK_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x29)
NTKL_EVENT(SPINLOCK, PERFINFO64, 2, ANY, PERF_SPINLOCK, "SpinLock", SPINLOCK)
#define ETW_EVENT_READY_THREAD_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x32)
NTKL_EVENT(READY_THREAD, PERFINFO64, 2, ANY, PERF_DISPATCHER, "ReadyThread", READY_THREAD)
#define ETW_EVENT_THREAD_SET_NAME_HOOK	ETW_HOOK(ETW_GROUP_THREAD, 0x48)
NTKL_EVENT(THREAD_SET_NAME, ANY, 0, ANY, 0, "SetName", NONE)

/*
 * TcpIp and UdpIp (EVENT_TRACE_FLAG_NETWORK_TCPIP, xperf's NETWORKTRACE;
 * module/producers/network.c): v2, PERFINFO64, the process in the
 * payload. An IPv6 event is its IPv4 event's opcode + 16. Reconnect,
 * TCPCopy, Fail and the ACK events are named only: Linux has no point
 * that makes them.
 */
#define ETW_EVENT_TCPIP_SEND_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0A)
NTKL_EVENT(TCPIP_SEND, PERFINFO64, 2, EXACT, PERF_NETWORK, "Send", TCPIP_SEND_V4)
#define ETW_EVENT_TCPIP_RECV_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0B)
NTKL_EVENT(TCPIP_RECV, PERFINFO64, 2, EXACT, PERF_NETWORK, "Recv", TCPIP_V4)
#define ETW_EVENT_TCPIP_CONNECT_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0C)
NTKL_EVENT(TCPIP_CONNECT, PERFINFO64, 2, EXACT, PERF_NETWORK, "Connect", TCPIP_CONNECT_V4)
#define ETW_EVENT_TCPIP_DISCONNECT_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0D)
NTKL_EVENT(TCPIP_DISCONNECT, PERFINFO64, 2, EXACT, PERF_NETWORK, "Disconnect", TCPIP_V4)
#define ETW_EVENT_TCPIP_RETRANSMIT_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0E)
NTKL_EVENT(TCPIP_RETRANSMIT, PERFINFO64, 2, EXACT, PERF_NETWORK, "Retransmit", TCPIP_V4)
#define ETW_EVENT_TCPIP_ACCEPT_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x0F)
NTKL_EVENT(TCPIP_ACCEPT, PERFINFO64, 2, EXACT, PERF_NETWORK, "Accept", TCPIP_CONNECT_V4)
#define ETW_EVENT_TCPIP_RECONNECT_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x10)
NTKL_EVENT(TCPIP_RECONNECT, ANY, 0, ANY, 0, "Reconnect", NONE)
#define ETW_EVENT_TCPIP_FAIL_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x11)
NTKL_EVENT(TCPIP_FAIL, ANY, 0, ANY, 0, "Fail", NONE)
#define ETW_EVENT_TCPIP_TCP_COPY_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x12)
NTKL_EVENT(TCPIP_TCP_COPY, ANY, 0, ANY, 0, "TCPCopy", NONE)
#define ETW_EVENT_TCPIP_SEND_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1A)
NTKL_EVENT(TCPIP_SEND_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "SendIPV6", TCPIP_SEND_V6)
#define ETW_EVENT_TCPIP_RECV_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1B)
NTKL_EVENT(TCPIP_RECV_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "RecvIPV6", TCPIP_V6)
#define ETW_EVENT_TCPIP_CONNECT_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1C)
NTKL_EVENT(TCPIP_CONNECT_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "ConnectIPV6",
	   TCPIP_CONNECT_V6)
#define ETW_EVENT_TCPIP_DISCONNECT_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1D)
NTKL_EVENT(TCPIP_DISCONNECT_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "DisconnectIPV6",
	   TCPIP_V6)
#define ETW_EVENT_TCPIP_RETRANSMIT_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1E)
NTKL_EVENT(TCPIP_RETRANSMIT_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "RetransmitIPV6",
	   TCPIP_V6)
#define ETW_EVENT_TCPIP_ACCEPT_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x1F)
NTKL_EVENT(TCPIP_ACCEPT_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "AcceptIPV6",
	   TCPIP_CONNECT_V6)
#define ETW_EVENT_TCPIP_RECONNECT_IPV6_HOOK	ETW_HOOK(ETW_GROUP_TCPIP, 0x20)
NTKL_EVENT(TCPIP_RECONNECT_IPV6, ANY, 0, ANY, 0, "ReconnectIPV6", NONE)
#define ETW_EVENT_UDPIP_SEND_HOOK	ETW_HOOK(ETW_GROUP_UDPIP, 0x0A)
NTKL_EVENT(UDPIP_SEND, PERFINFO64, 2, EXACT, PERF_NETWORK, "Send", UDPIP_V4)
#define ETW_EVENT_UDPIP_RECV_HOOK	ETW_HOOK(ETW_GROUP_UDPIP, 0x0B)
NTKL_EVENT(UDPIP_RECV, PERFINFO64, 2, EXACT, PERF_NETWORK, "Recv", UDPIP_V4)
#define ETW_EVENT_UDPIP_FAIL_HOOK	ETW_HOOK(ETW_GROUP_UDPIP, 0x11)
NTKL_EVENT(UDPIP_FAIL, ANY, 0, ANY, 0, "Fail", NONE)
#define ETW_EVENT_UDPIP_SEND_IPV6_HOOK	ETW_HOOK(ETW_GROUP_UDPIP, 0x1A)
NTKL_EVENT(UDPIP_SEND_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "SendIPV6", UDPIP_V6)
#define ETW_EVENT_UDPIP_RECV_IPV6_HOOK	ETW_HOOK(ETW_GROUP_UDPIP, 0x1B)
NTKL_EVENT(UDPIP_RECV_IPV6, PERFINFO64, 2, EXACT, PERF_NETWORK, "RecvIPV6", UDPIP_V6)

/* SystemConfig (EVENT_TRACE_TYPE_CONFIG_*) */
#define ETW_EVENT_CONFIG_CPU_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0A)
NTKL_EVENT(CONFIG_CPU, SYSTEM64, 3, EXACT, 0, "CPU", CONFIG_CPU)
#define ETW_EVENT_CONFIG_PHYSICALDISK_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0B)
NTKL_EVENT(CONFIG_PHYSICALDISK, ANY, 2, EXACT, 0, "PhyDisk", CONFIG_PHYDISK)
#define ETW_EVENT_CONFIG_LOGICALDISK_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0C)
NTKL_EVENT(CONFIG_LOGICALDISK, ANY, 2, EXACT, 0, "LogDisk", CONFIG_LOGDISK)
#define ETW_EVENT_CONFIG_NIC_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0D)
NTKL_EVENT(CONFIG_NIC, SYSTEM64, 2, EXACT, 0, "NIC", CONFIG_NIC)
#define ETW_EVENT_CONFIG_VIDEO_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0E)
NTKL_EVENT(CONFIG_VIDEO, ANY, 0, ANY, 0, "Video", NONE)
#define ETW_EVENT_CONFIG_SERVICES_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x0F)
NTKL_EVENT(CONFIG_SERVICES, ANY, 0, ANY, 0, "Services", NONE)
#define ETW_EVENT_CONFIG_POWER_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x10)
NTKL_EVENT(CONFIG_POWER, ANY, 0, ANY, 0, "Power", NONE)
#define ETW_EVENT_CONFIG_NETINFO_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x11)
NTKL_EVENT(CONFIG_NETINFO, ANY, 0, ANY, 0, "Network", NONE)
#define ETW_EVENT_CONFIG_OPTICALMEDIA_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x12)
NTKL_EVENT(CONFIG_OPTICALMEDIA, ANY, 0, ANY, 0, "OpticalMedia", NONE)
#define ETW_EVENT_CONFIG_PHYSICALDISK_EX_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x13)
NTKL_EVENT(CONFIG_PHYSICALDISK_EX, ANY, 0, ANY, 0, "PhyDiskEx", NONE)
#define ETW_EVENT_CONFIG_IRQ_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x15)
NTKL_EVENT(CONFIG_IRQ, SYSTEM64, 3, EXACT, 0, "IRQ", CONFIG_IRQ)
#define ETW_EVENT_CONFIG_PNP_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x16)
NTKL_EVENT(CONFIG_PNP, ANY, 0, ANY, 0, "PnP", NONE)
#define ETW_EVENT_CONFIG_IDECHANNEL_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x17)
NTKL_EVENT(CONFIG_IDECHANNEL, ANY, 0, ANY, 0, "IDEChannel", NONE)
#define ETW_EVENT_CONFIG_NUMANODE_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x18)
NTKL_EVENT(CONFIG_NUMANODE, PERFINFO64, 2, EXACT, 0, "NumaNode", CONFIG_NUMA_NODE)
#define ETW_EVENT_CONFIG_PLATFORM_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x19)
NTKL_EVENT(CONFIG_PLATFORM, ANY, 0, ANY, 0, "Platform", NONE)
#define ETW_EVENT_CONFIG_PROCESSORGROUP_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1A)
NTKL_EVENT(CONFIG_PROCESSORGROUP, PERFINFO64, 2, EXACT, 0, "ProcessorGroup",
	   CONFIG_PROCESSOR_GROUP)
#define ETW_EVENT_CONFIG_PROCESSORNUMBER_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1B)
NTKL_EVENT(CONFIG_PROCESSORNUMBER, ANY, 0, ANY, 0, "ProcessorNumber", NONE)
#define ETW_EVENT_CONFIG_DPI_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1C)
NTKL_EVENT(CONFIG_DPI, ANY, 0, ANY, 0, "DPI", NONE)
#define ETW_EVENT_CONFIG_CI_INFO_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1D)
NTKL_EVENT(CONFIG_CI_INFO, ANY, 0, ANY, 0, "CodeIntegrity", NONE)
#define ETW_EVENT_CONFIG_MACHINEID_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1E)
NTKL_EVENT(CONFIG_MACHINEID, ANY, 0, ANY, 0, "MachineId", NONE)
#define ETW_EVENT_CONFIG_DEFRAG_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x1F)
NTKL_EVENT(CONFIG_DEFRAG, ANY, 0, ANY, 0, "Defrag", NONE)
#define ETW_EVENT_CONFIG_MOBILEPLATFORM_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x20)
NTKL_EVENT(CONFIG_MOBILEPLATFORM, ANY, 0, ANY, 0, "MobilePlatform", NONE)
#define ETW_EVENT_CONFIG_DEVICEFAMILY_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x21)
NTKL_EVENT(CONFIG_DEVICEFAMILY, ANY, 0, ANY, 0, "DeviceFamily", NONE)
#define ETW_EVENT_CONFIG_FLIGHTID_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x22)
NTKL_EVENT(CONFIG_FLIGHTID, ANY, 0, ANY, 0, "FlightId", NONE)
#define ETW_EVENT_CONFIG_PROCESSOR_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x23)
NTKL_EVENT(CONFIG_PROCESSOR, ANY, 0, ANY, 0, "Processor", NONE)
#define ETW_EVENT_CONFIG_VIRTUALIZATION_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x24)
NTKL_EVENT(CONFIG_VIRTUALIZATION, ANY, 0, ANY, 0, "Virtualization", NONE)
#define ETW_EVENT_CONFIG_BOOT_HOOK	ETW_HOOK(ETW_GROUP_CONFIG, 0x25)
NTKL_EVENT(CONFIG_BOOT, ANY, 0, ANY, 0, "Boot", NONE)

/* PerfInfo */
#define ETW_EVENT_SAMPLED_PROFILE_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 46)
NTKL_EVENT(SAMPLED_PROFILE, PERFINFO64, 2, EXACT, PERF_PROFILE, "SampleProf", SAMPLED_PROFILE)
#define ETW_EVENT_ISR_MSI_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 50)
NTKL_EVENT(ISR_MSI, ANY, 0, ANY, 0, "ISR-MSI", NONE)
#define ETW_EVENT_SYSCALL_ENTER_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 51)
NTKL_EVENT(SYSCALL_ENTER, PERFINFO64, 2, EXACT, PERF_SYSCALL, "SysClEnter", SYSCALL_ENTER)
#define ETW_EVENT_SYSCALL_EXIT_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 52)
NTKL_EVENT(SYSCALL_EXIT, PERFINFO64, 2, EXACT, PERF_SYSCALL, "SysClExit", SYSCALL_EXIT)
#define ETW_EVENT_THREADED_DPC_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 66)
NTKL_EVENT(THREADED_DPC, ANY, 2, EXACT, 0, "ThreadedDPC", DPC)
#define ETW_EVENT_ISR_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 67)
NTKL_EVENT(ISR, PERFINFO64, 2, EXACT, PERF_INTERRUPT, "ISR", ISR)
#define ETW_EVENT_DPC_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 68)
NTKL_EVENT(DPC, PERFINFO64, 2, EXACT, PERF_DPC, "DPC", DPC)
#define ETW_EVENT_TIMER_DPC_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 69)
NTKL_EVENT(TIMER_DPC, PERFINFO64, 2, EXACT, PERF_DPC, "TimerDPC", DPC)
#define ETW_EVENT_PROFILE_SET_INTERVAL_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 72)
NTKL_EVENT(PROFILE_SET_INTERVAL, SYSTEM64, 3, EXACT, PERF_PROFILE, "SetInterval",
	   SAMPLED_PROFILE_INTERVAL)
#define ETW_EVENT_PROFILE_COLLECTION_START_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 73)
NTKL_EVENT(PROFILE_COLLECTION_START, SYSTEM64, 3, EXACT, PERF_PROFILE, "CollectionStart",
	   SAMPLED_PROFILE_INTERVAL)
#define ETW_EVENT_PROFILE_COLLECTION_END_HOOK	ETW_HOOK(ETW_GROUP_PERFINFO, 74)
NTKL_EVENT(PROFILE_COLLECTION_END, SYSTEM64, 3, EXACT, PERF_PROFILE, "CollectionEnd",
	   SAMPLED_PROFILE_INTERVAL)

/* Image: LOADER (EVENT_TRACE_FLAG_IMAGE_LOAD) */
#define ETW_EVENT_IMAGE_UNLOAD_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x02)
NTKL_EVENT(IMAGE_UNLOAD, SYSTEM64, 3, EXACT, PERF_LOADER, "UnLoad", IMAGE_V3)
#define ETW_EVENT_IMAGE_DC_START_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x03)
NTKL_EVENT(IMAGE_DC_START, SYSTEM64, 3, EXACT, PERF_LOADER, "DCStart", IMAGE_V3)
#define ETW_EVENT_IMAGE_DC_END_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x04)
NTKL_EVENT(IMAGE_DC_END, SYSTEM64, 3, EXACT, PERF_LOADER, "DCEnd", IMAGE_V3)
#define ETW_EVENT_IMAGE_LOAD_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x0A)
NTKL_EVENT(IMAGE_LOAD, SYSTEM64, 3, EXACT, PERF_LOADER, "Load", IMAGE_V3)
#define ETW_EVENT_IMAGE_KERNEL_BASE_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x21)
NTKL_EVENT(IMAGE_KERNEL_BASE, PERFINFO64, 2, ANY, PERF_LOADER, "KernelBase", IMAGE_KERNEL_BASE)
#define ETW_EVENT_IMAGE_HYPERCALL_PAGE_HOOK	ETW_HOOK(ETW_GROUP_IMAGE, 0x22)
NTKL_EVENT(IMAGE_HYPERCALL_PAGE, ANY, 0, ANY, 0, "HypercallPage", NONE)

/* StackWalk */
#define ETW_EVENT_STACK_WALK_HOOK	ETW_HOOK(ETW_GROUP_STACKWALK, 0x20)
NTKL_EVENT(STACK_WALK, PERFINFO64, 2, ANY, 0, "Stack", STACK_WALK)
#define ETW_EVENT_STACK_KEY_DELETE_HOOK	ETW_HOOK(ETW_GROUP_STACKWALK, 0x23)
NTKL_EVENT(STACK_KEY_DELETE, PERFINFO64, 2, ANY, 0, "KeyDelete", STACK_KEY_DEF)
#define ETW_EVENT_STACK_KEY_RUNDOWN_HOOK	ETW_HOOK(ETW_GROUP_STACKWALK, 0x24)
NTKL_EVENT(STACK_KEY_RUNDOWN, PERFINFO64, 2, ANY, 0, "KeyRundown", STACK_KEY_DEF)
#define ETW_EVENT_STACK_KEY_KERNEL_HOOK	ETW_HOOK(ETW_GROUP_STACKWALK, 0x25)
NTKL_EVENT(STACK_KEY_KERNEL, PERFINFO64, 2, ANY, 0, "StackKeyKernel", STACK_KEY_REF)
#define ETW_EVENT_STACK_KEY_USER_HOOK	ETW_HOOK(ETW_GROUP_STACKWALK, 0x26)
NTKL_EVENT(STACK_KEY_USER, PERFINFO64, 2, ANY, 0, "StackKeyUser", STACK_KEY_REF)

/*
 * KernelTraceControl's image identities (ETW_GROUP_IMAGE_ID: classic
 * events of class ETW_IMAGE_ID_GUID, the hook's type their opcode),
 * written just before each Image record (module/producers/image.c)
 */
#define ETW_EVENT_IMAGE_ID_HOOK	ETW_HOOK(ETW_GROUP_IMAGE_ID, 0x00)
NTKL_EVENT(IMAGE_ID, FULL_HEADER64, 2, EXACT, PERF_LOADER, "ImageID", IMAGE_ID)
#define ETW_EVENT_DBGID_NONE_HOOK	ETW_HOOK(ETW_GROUP_IMAGE_ID, 0x20)
NTKL_EVENT(DBGID_NONE, FULL_HEADER64, 2, EXACT, PERF_LOADER, "DbgID_NONE", DBGID_NONE)
#define ETW_EVENT_DBGID_RSDS_HOOK	ETW_HOOK(ETW_GROUP_IMAGE_ID, 0x24)
NTKL_EVENT(DBGID_RSDS, FULL_HEADER64, 2, EXACT, PERF_LOADER, "DbgID_RSDS", DBGID_RSDS)
#define ETW_EVENT_IMAGE_ID_FILE_VERSION_HOOK	ETW_HOOK(ETW_GROUP_IMAGE_ID, 0x40)
NTKL_EVENT(IMAGE_ID_FILE_VERSION, ANY, 0, ANY, 0, "FileVersion", NONE)

/* ---------------------------------------------------------------------- */
/* Payload layouts and their fixed fields                                  */
/* ---------------------------------------------------------------------- */

NTKL_LAYOUT(NONE, etw_bytes, "", 0, 0, ETW_MAX_EVENT_SIZE, NONE)

NTKL_LAYOUT(EMPTY, etw_bytes, "", 0, 0, 0, NONE)

NTKL_LAYOUT(LOGFILE_HEADER, trace_logfile_header, "Header", sizeof(struct trace_logfile_header),
	    sizeof(struct trace_logfile_header) + 4, ETW_MAX_EVENT_SIZE, LOGFILE_NAMES)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, buffer_size, 4, "BufferSize", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, version, 4, "Version", HEX)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, provider_version, 4,
	   "ProviderVersion", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, number_of_processors, 4,
	   "NumberOfProcessors", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, end_time, 8, "EndTime", INT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, timer_resolution, 4,
	   "TimerResolution", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, maximum_file_size, 4,
	   "MaximumFileSize", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, log_file_mode, 4,
	   "LogFileMode", LOGFILE_MODE)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, buffers_written, 4, "BuffersWritten", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, start_buffers, 4, "StartBuffers", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, pointer_size, 4, "PointerSize", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, events_lost, 4, "EventsLost", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, cpu_speed_in_mhz, 4, "CpuSpeedInMHz", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, time_zone_bias, 4, "TimeZoneBias", INT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, boot_time, 8, "BootTime", INT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, perf_freq, 8, "PerfFreq", INT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, start_time, 8, "StartTime", INT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, reserved_flags, 4, "ReservedFlags", UINT)
NTKL_FIELD(LOGFILE_HEADER, struct trace_logfile_header, buffers_lost, 4, "BuffersLost", UINT)

NTKL_LAYOUT(HEADER_EXTENSION, etw_header_extension, "GroupMasks",
	    sizeof(struct etw_header_extension), sizeof(struct etw_header_extension),
	    sizeof(struct etw_header_extension), GROUP_NAMES)
NTKL_FIELD(HEADER_EXTENSION, struct etw_header_extension, group_masks, 32, "Masks", GROUP_MASKS)
NTKL_FIELD(HEADER_EXTENSION, struct etw_header_extension, kernel_event_version, 4,
	   "KernelEventVersion", UINT)

/* GuidCount, the GUIDs, then BinaryPath: no GUID and an empty path at least */
NTKL_LAYOUT(PROVIDER_BINARY_PATH, etw_provider_binary_path, "ProviderBinaryPath",
	    sizeof(struct etw_provider_binary_path), sizeof(struct etw_provider_binary_path) + 2,
	    ETW_MAX_EVENT_SIZE, PROVIDER_BINARY)
NTKL_FIELD(PROVIDER_BINARY_PATH, struct etw_provider_binary_path, guid_count, 4, "GuidCount", UINT)

NTKL_LAYOUT(LAST_DROPPED_TIMES, etw_last_dropped_times, "LastDroppedTimes",
	    sizeof(struct etw_last_dropped_times), sizeof(struct etw_last_dropped_times),
	    ETW_MAX_EVENT_SIZE, TIMESTAMPS)
NTKL_FIELD(LAST_DROPPED_TIMES, struct etw_last_dropped_times, timestamp_count, 4,
	   "TimeStampCount", UINT)
NTKL_FIELD(LAST_DROPPED_TIMES, struct etw_last_dropped_times, padding, 4, "Padding", RESERVED)

NTKL_LAYOUT(THREAD_V3, etw_thread_v3, "Thread", sizeof(struct etw_thread_v3),
	    sizeof(struct etw_thread_v3), ETW_MAX_EVENT_SIZE, THREAD_NAME)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, thread_id, 4, "TThreadId", UINT)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, stack_base, 8, "StackBase", KADDR)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, stack_limit, 8, "StackLimit", KADDR)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, user_stack_base, 8, "UserStackBase", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, user_stack_limit, 8, "UserStackLimit", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, affinity, 8, "Affinity", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, win32_start_addr, 8, "Win32StartAddr", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, teb_base, 8, "TebBase", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, sub_process_tag, 4, "SubProcessTag", HEX)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, base_priority, 1, "BasePriority", UINT)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, page_priority, 1, "PagePriority", UINT)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, io_priority, 1, "IoPriority", UINT)
NTKL_FIELD(THREAD_V3, struct etw_thread_v3, thread_flags, 1, "ThreadFlags", HEX)

NTKL_LAYOUT(PROCESS_V4, etw_process_v4, "Process", ETW_PROCESS_V4_FIXED_SIZE,
	    ETW_PROCESS_V4_FIXED_SIZE + 4, ETW_MAX_EVENT_SIZE, PROCESS)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, unique_process_key, 8, "UniqueProcessKey", HEX)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, parent_id, 4, "ParentId", UINT)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, session_id, 4, "SessionId", UINT)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, exit_status, 4, "ExitStatus", INT)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, directory_table_base, 8, "DirectoryTableBase", KADDR)
NTKL_FIELD(PROCESS_V4, struct etw_process_v4, flags, 4, "Flags", HEX)

/*
 * Image v3: ImageBase is a user address for a process's files and a kernel
 * one for the kernel and its modules (kind ADDR: only a kernel one is
 * hashed for readers that may not see kernel addresses).
 */
NTKL_LAYOUT(IMAGE_V3, etw_image_v3, "Image", sizeof(struct etw_image_v3),
	    sizeof(struct etw_image_v3) + 2, ETW_MAX_EVENT_SIZE, FILE_NAME)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, image_base, 8, "ImageBase", ADDR)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, image_size, 8, "ImageSize", HEX)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, image_checksum, 4, "ImageCheckSum", HEX)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, time_date_stamp, 4, "TimeDateStamp", HEX)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, signature_level, 1, "SignatureLevel", UINT)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, signature_type, 1, "SignatureType", UINT)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, reserved0, 2, "Reserved0", RESERVED)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, default_base, 8, "DefaultBase", ADDR)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, reserved1, 4, "Reserved1", RESERVED)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, reserved2, 4, "Reserved2", RESERVED)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, reserved3, 4, "Reserved3", RESERVED)
NTKL_FIELD(IMAGE_V3, struct etw_image_v3, reserved4, 4, "Reserved4", RESERVED)

/* the image identities: ImageBase as the Image record's (kind ADDR) */
NTKL_LAYOUT(IMAGE_ID, etw_image_id, "ImageID", sizeof(struct etw_image_id),
	    sizeof(struct etw_image_id) + 2, ETW_MAX_EVENT_SIZE, FILE_NAME)
NTKL_FIELD(IMAGE_ID, struct etw_image_id, image_base, 8, "ImageBase", ADDR)
NTKL_FIELD(IMAGE_ID, struct etw_image_id, image_size, 8, "ImageSize", HEX)
NTKL_FIELD(IMAGE_ID, struct etw_image_id, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(IMAGE_ID, struct etw_image_id, time_date_stamp, 4, "TimeDateStamp", HEX)

NTKL_LAYOUT(DBGID_RSDS, etw_dbgid_rsds, "DbgID_RSDS", sizeof(struct etw_dbgid_rsds),
	    sizeof(struct etw_dbgid_rsds) + 1, ETW_MAX_EVENT_SIZE, PDB_NAME)
NTKL_FIELD(DBGID_RSDS, struct etw_dbgid_rsds, image_base, 8, "ImageBase", ADDR)
NTKL_FIELD(DBGID_RSDS, struct etw_dbgid_rsds, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(DBGID_RSDS, struct etw_dbgid_rsds, guid, 16, "GuidSig", GUID)
NTKL_FIELD(DBGID_RSDS, struct etw_dbgid_rsds, age, 4, "Age", UINT)

NTKL_LAYOUT(DBGID_NONE, etw_dbgid_rsds, "DbgID_NONE", ETW_DBGID_NONE_SIZE, ETW_DBGID_NONE_SIZE,
	    ETW_DBGID_NONE_SIZE, NONE)
NTKL_FIELD(DBGID_NONE, struct etw_dbgid_rsds, image_base, 8, "ImageBase", ADDR)
NTKL_FIELD(DBGID_NONE, struct etw_dbgid_rsds, process_id, 4, "ProcessId", UINT)

NTKL_LAYOUT(IMAGE_KERNEL_BASE, etw_image_kernel_base, "KernelBase",
	    sizeof(struct etw_image_kernel_base), sizeof(struct etw_image_kernel_base),
	    sizeof(struct etw_image_kernel_base), NONE)
NTKL_FIELD(IMAGE_KERNEL_BASE, struct etw_image_kernel_base, image_base, 8, "ImageBase", KADDR)

/*
 * DiskIo v3 (uapi/ntkl_etw.h), sized as the PerfView sample's records: Irp
 * is the request, FileObject 0 (the block layer does not know the file);
 * both kernel addresses.
 */
NTKL_LAYOUT(DISKIO_RW, etw_diskio_rw, "DiskIo", ETW_DISKIO_RW_SIZE, ETW_DISKIO_RW_SIZE,
	    ETW_DISKIO_RW_SIZE, NONE)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, disk_number, 4, "DiskNumber", UINT)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, irp_flags, 4, "IrpFlags", HEX)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, transfer_size, 4, "TransferSize", UINT)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, reserved, 4, "Reserved", RESERVED)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, byte_offset, 8, "ByteOffset", INT)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, irp, 8, "Irp", KADDR)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, high_res_response_time, 8,
	   "HighResResponseTime", UINT)
NTKL_FIELD(DISKIO_RW, struct etw_diskio_rw, issuing_thread_id, 4, "IssuingThreadId", UINT)

NTKL_LAYOUT(DISKIO_INIT, etw_diskio_init, "DiskIoInit", ETW_DISKIO_INIT_SIZE,
	    ETW_DISKIO_INIT_SIZE, ETW_DISKIO_INIT_SIZE, NONE)
NTKL_FIELD(DISKIO_INIT, struct etw_diskio_init, irp, 8, "Irp", KADDR)
NTKL_FIELD(DISKIO_INIT, struct etw_diskio_init, issuing_thread_id, 4, "IssuingThreadId", UINT)

NTKL_LAYOUT(DISKIO_FLUSH, etw_diskio_flush, "DiskIoFlush", ETW_DISKIO_FLUSH_SIZE,
	    ETW_DISKIO_FLUSH_SIZE, ETW_DISKIO_FLUSH_SIZE, NONE)
NTKL_FIELD(DISKIO_FLUSH, struct etw_diskio_flush, disk_number, 4, "DiskNumber", UINT)
NTKL_FIELD(DISKIO_FLUSH, struct etw_diskio_flush, irp_flags, 4, "IrpFlags", HEX)
NTKL_FIELD(DISKIO_FLUSH, struct etw_diskio_flush, high_res_response_time, 8,
	   "HighResResponseTime", UINT)
NTKL_FIELD(DISKIO_FLUSH, struct etw_diskio_flush, irp, 8, "Irp", KADDR)
NTKL_FIELD(DISKIO_FLUSH, struct etw_diskio_flush, issuing_thread_id, 4, "IssuingThreadId", UINT)

/*
 * FileIo names: the key the name is for (the MOF calls it FileObject,
 * TraceEvent FileKey: Name is keyed by a FileObject, the others by a
 * FileKey and a FileObject; module/producers/fileio.c), then the path.
 */
NTKL_LAYOUT(FILEIO_NAME, etw_fileio_name, "FileIoName", sizeof(struct etw_fileio_name),
	    sizeof(struct etw_fileio_name) + 2, ETW_MAX_EVENT_SIZE, FILE_NAME)
NTKL_FIELD(FILEIO_NAME, struct etw_fileio_name, file_object, 8, "FileObject", KADDR)

/* FileIo_Create v3: OpenPath follows (decoded as FileName, as TraceEvent names it) */
NTKL_LAYOUT(FILEIO_CREATE, etw_fileio_create, "FileIoCreate", sizeof(struct etw_fileio_create),
	    sizeof(struct etw_fileio_create) + 2, ETW_MAX_EVENT_SIZE, FILE_NAME)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, ttid, 4, "TTID", UINT)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, create_options, 4, "CreateOptions", HEX)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, file_attributes, 4, "FileAttributes", HEX)
NTKL_FIELD(FILEIO_CREATE, struct etw_fileio_create, share_access, 4, "ShareAccess", HEX)

NTKL_LAYOUT(FILEIO_SIMPLE_OP, etw_fileio_simple_op, "FileIoSimpleOp", ETW_FILEIO_SIMPLE_OP_SIZE,
	    ETW_FILEIO_SIMPLE_OP_SIZE, ETW_FILEIO_SIMPLE_OP_SIZE, NONE)
NTKL_FIELD(FILEIO_SIMPLE_OP, struct etw_fileio_simple_op, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_SIMPLE_OP, struct etw_fileio_simple_op, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(FILEIO_SIMPLE_OP, struct etw_fileio_simple_op, file_key, 8, "FileKey", KADDR)
NTKL_FIELD(FILEIO_SIMPLE_OP, struct etw_fileio_simple_op, ttid, 4, "TTID", UINT)

/* FileIo_ReadWrite v3: 44 bytes (the MOF), 48 from Windows 10 */
NTKL_LAYOUT(FILEIO_READ_WRITE, etw_fileio_read_write, "FileIoReadWrite",
	    ETW_FILEIO_READ_WRITE_SIZE, ETW_FILEIO_READ_WRITE_SIZE, ETW_FILEIO_READ_WRITE_MAX,
	    NONE)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, offset, 8, "Offset", UINT)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, file_key, 8, "FileKey", KADDR)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, ttid, 4, "TTID", UINT)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, io_size, 4, "IoSize", UINT)
NTKL_FIELD(FILEIO_READ_WRITE, struct etw_fileio_read_write, io_flags, 4, "IoFlags", HEX)

NTKL_LAYOUT(FILEIO_INFO, etw_fileio_info, "FileIoInfo", sizeof(struct etw_fileio_info),
	    sizeof(struct etw_fileio_info), sizeof(struct etw_fileio_info), NONE)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, file_key, 8, "FileKey", KADDR)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, extra_info, 8, "ExtraInfo", HEX)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, ttid, 4, "TTID", UINT)
NTKL_FIELD(FILEIO_INFO, struct etw_fileio_info, info_class, 4, "InfoClass", UINT)

/* FileIo_DirEnum v3: FileName, the pattern, follows (empty: Linux has none) */
NTKL_LAYOUT(FILEIO_DIR_ENUM, etw_fileio_dir_enum, "FileIoDirEnum",
	    sizeof(struct etw_fileio_dir_enum), sizeof(struct etw_fileio_dir_enum) + 2,
	    ETW_MAX_EVENT_SIZE, FILE_NAME)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, file_key, 8, "FileKey", KADDR)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, ttid, 4, "TTID", UINT)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, length, 4, "Length", UINT)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, info_class, 4, "InfoClass", UINT)
NTKL_FIELD(FILEIO_DIR_ENUM, struct etw_fileio_dir_enum, file_index, 4, "FileIndex", UINT)

NTKL_LAYOUT(FILEIO_OP_END, etw_fileio_op_end, "FileIoOpEnd", ETW_FILEIO_OP_END_SIZE,
	    ETW_FILEIO_OP_END_SIZE, ETW_FILEIO_OP_END_SIZE, NONE)
NTKL_FIELD(FILEIO_OP_END, struct etw_fileio_op_end, irp_ptr, 8, "IrpPtr", KADDR)
NTKL_FIELD(FILEIO_OP_END, struct etw_fileio_op_end, extra_info, 8, "ExtraInfo", UINT)
NTKL_FIELD(FILEIO_OP_END, struct etw_fileio_op_end, nt_status, 4, "NtStatus", HEX)

/* The 0x400 batch limit may or may not count the 0x58 header. */
/*
 * The last field: OldThreadRemainingQuantum in the seed (WMI_CONTEXTSWAP,
 * QuantumTarget less CycleTime over 1024); TraceEvent and the MOF class
 * call it Reserved. Version 4 (Windows 10 1709 to 2004): byte 0x0D is a
 * flags byte whose bit 0 is OldThreadWaitMode.
 */
NTKL_LAYOUT(CSWITCH, wmi_contextswap, "CSwitch", sizeof(struct wmi_contextswap),
	    sizeof(struct wmi_contextswap), sizeof(struct wmi_contextswap), NONE)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, new_thread_id, 4, "NewThreadId", UINT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_id, 4, "OldThreadId", UINT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, new_thread_priority, 1, "NewThreadPriority", INT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_priority, 1, "OldThreadPriority", INT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, previous_c_state, 1, "PreviousCState", UINT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, spare_byte, 1, "SpareByte", INT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_wait_reason, 1,
	   "OldThreadWaitReason", WAIT_REASON)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_wait_mode, 1, "OldThreadWaitMode", INT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_state, 1, "OldThreadState", THREAD_STATE)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_ideal_processor, 1,
	   "OldThreadWaitIdealProcessor", UINT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, new_thread_wait_time, 4, "NewThreadWaitTime", UINT)
NTKL_FIELD(CSWITCH, struct wmi_contextswap, old_thread_remaining_quantum, 4,
	   "OldThreadRemainingQuantum", INT)

NTKL_LAYOUT(COMPACT_CSWITCH, perfinfo_ccswap_buffer, "CompCS",
	    sizeof(struct perfinfo_ccswap_buffer), sizeof(struct perfinfo_ccswap_buffer),
	    sizeof(struct perfinfo_ccswap_buffer) + PERFINFO_CCSWAP_BATCH_SIZE, CCSWAP_PACKETS)
NTKL_FIELD(COMPACT_CSWITCH, struct perfinfo_ccswap_buffer, first_timestamp, 8,
	   "FirstTimeStamp", UINT)

NTKL_LAYOUT(SPINLOCK, wmi_spinlock, "SpinLock", sizeof(struct wmi_spinlock),
	    sizeof(struct wmi_spinlock), sizeof(struct wmi_spinlock), NONE)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, spin_lock_address, 8, "SpinLockAddress", KADDR)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, caller_address, 8, "CallerAddress", KADDR)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, acquire_time, 8, "AcquireTime", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, release_time, 8, "ReleaseTime", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, wait_time_in_cycles, 4, "WaitTimeInCycles", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, spin_count, 4, "SpinCount", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, thread_id, 4, "ThreadId", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, interrupt_count, 4, "InterruptCount", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, irql, 1, "Irql", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, acquire_depth, 1, "AcquireDepth", UINT)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, flags, 1, "Flags", SPINLOCK_FLAGS)
NTKL_FIELD(SPINLOCK, struct wmi_spinlock, reserved, 5, "Reserved", RESERVED)

NTKL_LAYOUT(READY_THREAD, etw_ready_thread, "ReadyThread", sizeof(struct etw_ready_thread),
	    sizeof(struct etw_ready_thread), sizeof(struct etw_ready_thread), NONE)
NTKL_FIELD(READY_THREAD, struct etw_ready_thread, thread_id, 4, "TThreadId", UINT)
NTKL_FIELD(READY_THREAD, struct etw_ready_thread, adjust_reason, 1, "AdjustReason", ADJUST_REASON)
NTKL_FIELD(READY_THREAD, struct etw_ready_thread, adjust_increment, 1, "AdjustIncrement", INT)
NTKL_FIELD(READY_THREAD, struct etw_ready_thread, flag, 1, "Flag", READY_FLAGS)
NTKL_FIELD(READY_THREAD, struct etw_ready_thread, reserved, 1, "Reserved", INT)

/*
 * Version 2 as TraceEvent reads it (64-bit): Count is 16 bits, then a
 * flags byte (ExecutingDPC, ExecutingISR, Priority) and Rank, which the
 * MOF calls Reserved.
 */
NTKL_LAYOUT(SAMPLED_PROFILE, perfinfo_sampled_profile, "SampledProfile",
	    sizeof(struct perfinfo_sampled_profile), sizeof(struct perfinfo_sampled_profile),
	    sizeof(struct perfinfo_sampled_profile), NONE)
NTKL_FIELD(SAMPLED_PROFILE, struct perfinfo_sampled_profile, instruction_pointer, 8,
	   "InstructionPointer", ADDR)
NTKL_FIELD(SAMPLED_PROFILE, struct perfinfo_sampled_profile, thread_id, 4, "ThreadId", UINT)
NTKL_FIELD(SAMPLED_PROFILE, struct perfinfo_sampled_profile, count, 2, "Count", UINT)
NTKL_FIELD(SAMPLED_PROFILE, struct perfinfo_sampled_profile, flags, 1, "Flags", PROFILE_FLAGS)
NTKL_FIELD(SAMPLED_PROFILE, struct perfinfo_sampled_profile, rank, 1, "Rank", UINT)

/*
 * DPC, TimerDPC, ThreadedDPC (v2): InitialTime at entry in the logger's
 * clock; the record's own time is the routine's return.
 */
NTKL_LAYOUT(DPC, perfinfo_dpc, "DPC", sizeof(struct perfinfo_dpc), sizeof(struct perfinfo_dpc),
	    sizeof(struct perfinfo_dpc), NONE)
NTKL_FIELD(DPC, struct perfinfo_dpc, initial_time, 8, "InitialTime", UINT)
NTKL_FIELD(DPC, struct perfinfo_dpc, routine, 8, "Routine", KADDR)

/* ISR (v2, 20 bytes): MessageNumber comes with later versions and ISR-MSI. */
NTKL_LAYOUT(ISR, perfinfo_isr, "ISR", ETW_ISR_SIZE, ETW_ISR_SIZE, ETW_ISR_SIZE, NONE)
NTKL_FIELD(ISR, struct perfinfo_isr, initial_time, 8, "InitialTime", UINT)
NTKL_FIELD(ISR, struct perfinfo_isr, routine, 8, "Routine", KADDR)
NTKL_FIELD(ISR, struct perfinfo_isr, return_value, 1, "ReturnValue", UINT)
NTKL_FIELD(ISR, struct perfinfo_isr, vector, 1, "Vector", UINT)
NTKL_FIELD(ISR, struct perfinfo_isr, reserved, 2, "Reserved", RESERVED)

/*
 * SysClEnter and SysClExit (v2, PERFINFO64; module/producers/syscall.c):
 * the routine that carries out the call (a kernel address), and the
 * NTSTATUS the call returns (its errno mapped as FileIo OperationEnd's).
 */
NTKL_LAYOUT(SYSCALL_ENTER, perfinfo_syscall_enter, "SysClEnter",
	    sizeof(struct perfinfo_syscall_enter), sizeof(struct perfinfo_syscall_enter),
	    sizeof(struct perfinfo_syscall_enter), NONE)
NTKL_FIELD(SYSCALL_ENTER, struct perfinfo_syscall_enter, syscall_address, 8, "SysCallAddress",
	   KADDR)

NTKL_LAYOUT(SYSCALL_EXIT, perfinfo_syscall_exit, "SysClExit",
	    sizeof(struct perfinfo_syscall_exit), sizeof(struct perfinfo_syscall_exit),
	    sizeof(struct perfinfo_syscall_exit), NONE)
NTKL_FIELD(SYSCALL_EXIT, struct perfinfo_syscall_exit, syscall_nt_status, 4, "SysCallNtStatus",
	   HEX)

/*
 * TcpIp and UdpIp (v2, PERFINFO64; module/producers/network.c), as
 * TraceEvent's TcpIp*TraceData and UdpIpTraceData read them: PID the
 * process, size the bytes, addresses and ports in network byte order;
 * connid the connection: an opaque key of the socket (its address hashed
 * with a key of the module's, so no kernel address leaves), 0 for UDP.
 */
NTKL_LAYOUT(TCPIP_V4, etw_tcpip_v4, "TcpIp", sizeof(struct etw_tcpip_v4),
	    sizeof(struct etw_tcpip_v4), sizeof(struct etw_tcpip_v4), NONE)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, daddr, 4, "daddr", IPV4)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, saddr, 4, "saddr", IPV4)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, connid, 8, "connid", HEX)
NTKL_FIELD(TCPIP_V4, struct etw_tcpip_v4, seqnum, 4, "seqnum", UINT)

NTKL_LAYOUT(TCPIP_SEND_V4, etw_tcpip_send_v4, "TcpIp", sizeof(struct etw_tcpip_send_v4),
	    sizeof(struct etw_tcpip_send_v4), sizeof(struct etw_tcpip_send_v4), NONE)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, daddr, 4, "daddr", IPV4)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, saddr, 4, "saddr", IPV4)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, startime, 4, "startime", UINT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, endtime, 4, "endtime", UINT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(TCPIP_SEND_V4, struct etw_tcpip_send_v4, connid, 8, "connid", HEX)

NTKL_LAYOUT(TCPIP_CONNECT_V4, etw_tcpip_connect_v4, "TcpIp", sizeof(struct etw_tcpip_connect_v4),
	    sizeof(struct etw_tcpip_connect_v4), sizeof(struct etw_tcpip_connect_v4), NONE)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, daddr, 4, "daddr", IPV4)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, saddr, 4, "saddr", IPV4)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, mss, 2, "mss", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, sackopt, 2, "sackopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, tsopt, 2, "tsopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, wsopt, 2, "wsopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, rcvwin, 4, "rcvwin", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, rcvwinscale, 2, "rcvwinscale", INT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, sndwinscale, 2, "sndwinscale", INT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(TCPIP_CONNECT_V4, struct etw_tcpip_connect_v4, connid, 8, "connid", HEX)

NTKL_LAYOUT(TCPIP_V6, etw_tcpip_v6, "TcpIp", sizeof(struct etw_tcpip_v6),
	    sizeof(struct etw_tcpip_v6), sizeof(struct etw_tcpip_v6), NONE)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, daddr, 16, "daddr", IPV6)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, saddr, 16, "saddr", IPV6)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, connid, 8, "connid", HEX)
NTKL_FIELD(TCPIP_V6, struct etw_tcpip_v6, seqnum, 4, "seqnum", UINT)

NTKL_LAYOUT(TCPIP_SEND_V6, etw_tcpip_send_v6, "TcpIp", sizeof(struct etw_tcpip_send_v6),
	    sizeof(struct etw_tcpip_send_v6), sizeof(struct etw_tcpip_send_v6), NONE)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, daddr, 16, "daddr", IPV6)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, saddr, 16, "saddr", IPV6)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, startime, 4, "startime", UINT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, endtime, 4, "endtime", UINT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(TCPIP_SEND_V6, struct etw_tcpip_send_v6, connid, 8, "connid", HEX)

NTKL_LAYOUT(TCPIP_CONNECT_V6, etw_tcpip_connect_v6, "TcpIp", sizeof(struct etw_tcpip_connect_v6),
	    sizeof(struct etw_tcpip_connect_v6), sizeof(struct etw_tcpip_connect_v6), NONE)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, pid, 4, "PID", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, size, 4, "size", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, daddr, 16, "daddr", IPV6)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, saddr, 16, "saddr", IPV6)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, dport, 2, "dport", PORT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, sport, 2, "sport", PORT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, mss, 2, "mss", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, sackopt, 2, "sackopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, tsopt, 2, "tsopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, wsopt, 2, "wsopt", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, rcvwin, 4, "rcvwin", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, rcvwinscale, 2, "rcvwinscale", INT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, sndwinscale, 2, "sndwinscale", INT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(TCPIP_CONNECT_V6, struct etw_tcpip_connect_v6, connid, 8, "connid", HEX)

NTKL_LAYOUT(UDPIP_V4, etw_udpip_v4, "UdpIp", sizeof(struct etw_udpip_v4),
	    sizeof(struct etw_udpip_v4), sizeof(struct etw_udpip_v4), NONE)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, pid, 4, "PID", UINT)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, size, 4, "size", UINT)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, daddr, 4, "daddr", IPV4)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, saddr, 4, "saddr", IPV4)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, dport, 2, "dport", PORT)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, sport, 2, "sport", PORT)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(UDPIP_V4, struct etw_udpip_v4, connid, 8, "connid", HEX)

NTKL_LAYOUT(UDPIP_V6, etw_udpip_v6, "UdpIp", sizeof(struct etw_udpip_v6),
	    sizeof(struct etw_udpip_v6), sizeof(struct etw_udpip_v6), NONE)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, pid, 4, "PID", UINT)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, size, 4, "size", UINT)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, daddr, 16, "daddr", IPV6)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, saddr, 16, "saddr", IPV6)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, dport, 2, "dport", PORT)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, sport, 2, "sport", PORT)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, seqnum, 4, "seqnum", UINT)
NTKL_FIELD(UDPIP_V6, struct etw_udpip_v6, connid, 8, "connid", HEX)

/*
 * HardFault (v2, 40 bytes in a 64-bit file): TraceEvent's
 * MemoryHardFaultTraceData and the MOF's PageFault_HardFault. The record's
 * own time is the fault's end, InitialTime its start, both in the
 * logger's clock. VirtualAddress is a user address (kind ADDR: a kernel
 * one would be hashed), FileObject the struct file (KADDR, hashed for
 * readers that may not see kernel addresses; FileIo Name records carry the
 * same key).
 */
NTKL_LAYOUT(HARD_FAULT, perfinfo_hard_fault, "HardFault", sizeof(struct perfinfo_hard_fault),
	    sizeof(struct perfinfo_hard_fault), sizeof(struct perfinfo_hard_fault), NONE)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, initial_time, 8, "InitialTime", UINT)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, read_offset, 8, "ReadOffset", HEX)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, virtual_address, 8, "VirtualAddress", ADDR)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, file_object, 8, "FileObject", KADDR)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, thread_id, 4, "TThreadId", UINT)
NTKL_FIELD(HARD_FAULT, struct perfinfo_hard_fault, byte_count, 4, "ByteCount", UINT)

/*
 * The PageFault_TypeGroup1 faults (v2, 16 bytes in a 64-bit file):
 * TraceEvent's MemoryPageFaultTraceData. The thread and process are the
 * SYSTEM64 header's. VirtualAddress is the faulting (user) address,
 * ProgramCounter the instruction that faulted: a user one, or the
 * kernel's (a copy to or from user memory), hashed as kernel addresses are.
 */
NTKL_LAYOUT(PAGE_FAULT, etw_page_fault, "PageFault", sizeof(struct etw_page_fault),
	    sizeof(struct etw_page_fault), sizeof(struct etw_page_fault), NONE)
NTKL_FIELD(PAGE_FAULT, struct etw_page_fault, virtual_address, 8, "VirtualAddress", ADDR)
NTKL_FIELD(PAGE_FAULT, struct etw_page_fault, program_counter, 8, "ProgramCounter", ADDR)

/*
 * VirtualAlloc and VirtualFree (v2, 24 bytes in a 64-bit file): TraceEvent's
 * VirtualAllocTraceData and the MOF's PageFault_VirtualAlloc. The header
 * names no thread nor process (PERFINFO64): ProcessId does. Flags are
 * MEM_COMMIT, MEM_RESERVE, MEM_RELEASE (ETW_MEM_*).
 */
NTKL_LAYOUT(VIRTUAL_ALLOC, perfinfo_virtual_alloc, "VirtualAlloc",
	    sizeof(struct perfinfo_virtual_alloc), sizeof(struct perfinfo_virtual_alloc),
	    sizeof(struct perfinfo_virtual_alloc), NONE)
NTKL_FIELD(VIRTUAL_ALLOC, struct perfinfo_virtual_alloc, base_address, 8, "BaseAddress", ADDR)
NTKL_FIELD(VIRTUAL_ALLOC, struct perfinfo_virtual_alloc, region_size, 8, "RegionSize", HEX)
NTKL_FIELD(VIRTUAL_ALLOC, struct perfinfo_virtual_alloc, process_id, 4, "ProcessId", UINT)
NTKL_FIELD(VIRTUAL_ALLOC, struct perfinfo_virtual_alloc, flags, 4, "Flags", HEX)

/*
 * VirtualAllocDCStart and DCEnd (v2, 32 bytes): the MOF's
 * PageFault_VirtualAlloc fields and CommitSizeInBytes, as dissect.etl's
 * PageFault_V2 manifest gives them (TraceEvent names the events and reads
 * no payload).
 */
NTKL_LAYOUT(VIRTUAL_ALLOC_DC, perfinfo_virtual_alloc_dc, "VirtualAllocDC",
	    sizeof(struct perfinfo_virtual_alloc_dc), sizeof(struct perfinfo_virtual_alloc_dc),
	    sizeof(struct perfinfo_virtual_alloc_dc), NONE)
NTKL_FIELD(VIRTUAL_ALLOC_DC, struct perfinfo_virtual_alloc_dc, base_address, 8, "BaseAddress",
	   ADDR)
NTKL_FIELD(VIRTUAL_ALLOC_DC, struct perfinfo_virtual_alloc_dc, region_size, 8, "RegionSize",
	   HEX)
NTKL_FIELD(VIRTUAL_ALLOC_DC, struct perfinfo_virtual_alloc_dc, process_id, 4, "ProcessId",
	   UINT)
NTKL_FIELD(VIRTUAL_ALLOC_DC, struct perfinfo_virtual_alloc_dc, flags, 4, "Flags", HEX)
NTKL_FIELD(VIRTUAL_ALLOC_DC, struct perfinfo_virtual_alloc_dc, commit_size, 8,
	   "CommitSizeInBytes", HEX)

/*
 * ProcessMemInfo (v2, PERFINFO64; module/producers/meminfo.c): Count, then
 * that many entries (ProcessID and eight page counts, unaligned), one
 * entry at least.
 */
NTKL_LAYOUT(PROCESS_MEMINFO, etw_process_meminfo, "ProcessMemInfo",
	    sizeof(struct etw_process_meminfo),
	    sizeof(struct etw_process_meminfo) + ETW_PROCESS_MEMINFO_ENTRY_SIZE,
	    ETW_MAX_EVENT_SIZE, PROCESS_MEMINFO)
NTKL_FIELD(PROCESS_MEMINFO, struct etw_process_meminfo, count, 4, "Count", UINT)

/*
 * StackWalk/Stack: written after an event of a hook the logger walks
 * (NTKL_IOC_SET_STACK_TRACING), never by a group mask. The frames that
 * follow are addresses: kernel ones hashed for readers that may not see
 * kernel addresses, user ones kept (format/redact_walk.h).
 */
NTKL_LAYOUT(STACK_WALK, etw_stack_walk, "Stack", sizeof(struct etw_stack_walk),
	    sizeof(struct etw_stack_walk) + 8,
	    sizeof(struct etw_stack_walk) + 8 * ETW_STACK_MAX_FRAMES, STACK_FRAMES)
NTKL_FIELD(STACK_WALK, struct etw_stack_walk, event_time_stamp, 8, "EventTimeStamp", UINT)
NTKL_FIELD(STACK_WALK, struct etw_stack_walk, stack_process, 4, "StackProcess", UINT)
NTKL_FIELD(STACK_WALK, struct etw_stack_walk, stack_thread, 4, "StackThread", UINT)

/*
 * Stack caching (a logger started with NTKL_LOGGER_OPT_STACK_CACHING,
 * ntkl -stackcaching): instead of a Stack, an event's stack is a reference
 * per part, StackKeyKernel for its kernel frames and StackKeyUser for its
 * user frames, each with the event's time and a key; the key's frames are
 * in a definition, KeyDelete when the cache drops the key and KeyRundown
 * for the keys still cached at stop, so usually after the references.
 * As the PerfView sample has them, and TraceEvent's StackWalkRefTraceData
 * and StackWalkDefTraceData read them.
 */
NTKL_LAYOUT(STACK_KEY_REF, etw_stack_key_ref, "StackKey", sizeof(struct etw_stack_key_ref),
	    sizeof(struct etw_stack_key_ref), sizeof(struct etw_stack_key_ref), NONE)
NTKL_FIELD(STACK_KEY_REF, struct etw_stack_key_ref, event_time_stamp, 8, "EventTimeStamp", UINT)
NTKL_FIELD(STACK_KEY_REF, struct etw_stack_key_ref, stack_process, 4, "StackProcess", UINT)
NTKL_FIELD(STACK_KEY_REF, struct etw_stack_key_ref, stack_thread, 4, "StackThread", UINT)
NTKL_FIELD(STACK_KEY_REF, struct etw_stack_key_ref, stack_key, 8, "StackKey", HEX)

NTKL_LAYOUT(STACK_KEY_DEF, etw_stack_key_def, "StackKeyDef", sizeof(struct etw_stack_key_def),
	    sizeof(struct etw_stack_key_def) + 8,
	    sizeof(struct etw_stack_key_def) + 8 * ETW_STACK_MAX_FRAMES, STACK_FRAMES)
NTKL_FIELD(STACK_KEY_DEF, struct etw_stack_key_def, stack_key, 8, "StackKey", HEX)

/* SampledProfileInterval_V3: the fixed part, then SourceName (a lone NUL at least). */
NTKL_LAYOUT(SAMPLED_PROFILE_INTERVAL, etw_sampled_profile_interval, "ProfileInterval",
	    sizeof(struct etw_sampled_profile_interval),
	    sizeof(struct etw_sampled_profile_interval) + 2, ETW_MAX_EVENT_SIZE, SOURCE_NAME)
NTKL_FIELD(SAMPLED_PROFILE_INTERVAL, struct etw_sampled_profile_interval, source, 4,
	   "Source", UINT)
NTKL_FIELD(SAMPLED_PROFILE_INTERVAL, struct etw_sampled_profile_interval, new_interval, 4,
	   "NewInterval", UINT)
NTKL_FIELD(SAMPLED_PROFILE_INTERVAL, struct etw_sampled_profile_interval, old_interval, 4,
	   "OldInterval", UINT)

NTKL_LAYOUT(CONFIG_CPU, etw_config_cpu, "CPU", ETW_CONFIG_CPU_SIZE, ETW_CONFIG_CPU_SIZE,
	    ETW_CONFIG_CPU_SIZE, NONE)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, mhz, 4, "MHz", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, number_of_processors, 4, "NumberOfProcessors", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, mem_size, 4, "MemSize", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, page_size, 4, "PageSize", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, allocation_granularity, 4,
	   "AllocationGranularity", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, computer_name, 512, "ComputerName", WSTR_ARRAY)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, domain_name, 268, "DomainName", WSTR_ARRAY)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, hyper_threading_flag, 8, "HyperThreadingFlag", HEX)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, highest_user_address, 8, "HighestUserAddress", HEX)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, processor_architecture, 2,
	   "ProcessorArchitecture", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, processor_level, 2, "ProcessorLevel", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, processor_revision, 2, "ProcessorRevision", HEX)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, pae_enabled, 1, "PaeEnabled", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, nx_enabled, 1, "NxEnabled", UINT)
NTKL_FIELD(CONFIG_CPU, struct etw_config_cpu, memory_speed, 4, "MemorySpeed", UINT)

/* SystemConfig disks: read, not written by ntkl (yet) */
NTKL_LAYOUT(CONFIG_PHYDISK, etw_config_phydisk, "PhyDisk", sizeof(struct etw_config_phydisk),
	    sizeof(struct etw_config_phydisk), sizeof(struct etw_config_phydisk), NONE)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, disk_number, 4, "DiskNumber", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, bytes_per_sector, 4, "BytesPerSector", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, sectors_per_track, 4, "SectorsPerTrack",
	   UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, tracks_per_cylinder, 4,
	   "TracksPerCylinder", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, cylinders, 8, "Cylinders", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, scsi_port, 4, "SCSIPort", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, scsi_path, 4, "SCSIPath", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, scsi_target, 4, "SCSITarget", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, scsi_lun, 4, "SCSILun", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, manufacturer, 512, "Manufacturer",
	   WSTR_ARRAY)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, partition_count, 4, "PartitionCount", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, write_cache_enabled, 1,
	   "WriteCacheEnabled", UINT)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, pad, 1, "Pad", RESERVED)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, boot_drive_letter, 6, "BootDriveLetter",
	   WSTR_ARRAY)
NTKL_FIELD(CONFIG_PHYDISK, struct etw_config_phydisk, spare, 4, "Spare", RESERVED)

NTKL_LAYOUT(CONFIG_LOGDISK, etw_config_logdisk, "LogDisk", sizeof(struct etw_config_logdisk),
	    sizeof(struct etw_config_logdisk), sizeof(struct etw_config_logdisk), NONE)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, start_offset, 8, "StartOffset", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, partition_size, 8, "PartitionSize", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, disk_number, 4, "DiskNumber", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, size, 4, "Size", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, drive_type, 4, "DriveType", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, drive_letter_string, 8, "DriveLetterString",
	   WSTR_ARRAY)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, pad1, 4, "Pad1", RESERVED)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, partition_number, 4, "PartitionNumber",
	   UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, sectors_per_cluster, 4,
	   "SectorsPerCluster", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, bytes_per_sector, 4, "BytesPerSector",
	   UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, pad2, 4, "Pad2", RESERVED)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, number_of_free_clusters, 8,
	   "NumberOfFreeClusters", INT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, total_number_of_clusters, 8,
	   "TotalNumberOfClusters", INT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, file_system, 32, "FileSystem", WSTR_ARRAY)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, volume_ext, 4, "VolumeExt", UINT)
NTKL_FIELD(CONFIG_LOGDISK, struct etw_config_logdisk, pad3, 4, "Pad3", RESERVED)

/* SystemConfig at the end of a trace (module/producers/sysconfig.c) */
NTKL_LAYOUT(CONFIG_PROCESSOR_GROUP, etw_config_processor_group, "ProcessorGroup",
	    sizeof(struct etw_config_processor_group),
	    sizeof(struct etw_config_processor_group) + 8, ETW_MAX_EVENT_SIZE, AFFINITIES)
NTKL_FIELD(CONFIG_PROCESSOR_GROUP, struct etw_config_processor_group, active_group_count, 4,
	   "ActiveGroupCount", UINT)

NTKL_LAYOUT(CONFIG_NUMA_NODE, etw_config_numa_node, "NumaNode", sizeof(struct etw_config_numa_node),
	    sizeof(struct etw_config_numa_node) + sizeof(struct etw_group_affinity),
	    ETW_MAX_EVENT_SIZE, GROUP_AFFINITIES)
NTKL_FIELD(CONFIG_NUMA_NODE, struct etw_config_numa_node, node_count, 4, "NodeCount", UINT)

NTKL_LAYOUT(CONFIG_NIC, etw_config_nic, "NIC", sizeof(struct etw_config_nic),
	    sizeof(struct etw_config_nic) + 6, ETW_MAX_EVENT_SIZE, NIC_STRINGS)
NTKL_FIELD(CONFIG_NIC, struct etw_config_nic, physical_addr, 8, "PhysicalAddr", HEX)
NTKL_FIELD(CONFIG_NIC, struct etw_config_nic, physical_addr_len, 4, "PhysicalAddrLen", UINT)
NTKL_FIELD(CONFIG_NIC, struct etw_config_nic, ipv4_index, 4, "Ipv4Index", UINT)
NTKL_FIELD(CONFIG_NIC, struct etw_config_nic, ipv6_index, 4, "Ipv6Index", UINT)

NTKL_LAYOUT(CONFIG_IRQ, etw_config_irq, "IRQ", ETW_CONFIG_IRQ_SIZE, ETW_CONFIG_IRQ_SIZE + 2,
	    ETW_MAX_EVENT_SIZE, DEVICE_DESCRIPTION)
NTKL_FIELD(CONFIG_IRQ, struct etw_config_irq, irq_affinity, 8, "IRQAffinity", HEX)
NTKL_FIELD(CONFIG_IRQ, struct etw_config_irq, irq_group, 2, "IRQGroup", UINT)
NTKL_FIELD(CONFIG_IRQ, struct etw_config_irq, reserved, 2, "Reserved", RESERVED)
NTKL_FIELD(CONFIG_IRQ, struct etw_config_irq, irq_num, 4, "IRQNum", INT)
NTKL_FIELD(CONFIG_IRQ, struct etw_config_irq, device_description_len, 4,
	   "DeviceDescriptionLen", UINT)

/* ---------------------------------------------------------------------- */
/* The -on names                                                           */
/* ---------------------------------------------------------------------- */
/*
 * NTKL_KEYWORD(name, flags, group, help): what `-on name` turns on, the
 * EVENT_TRACE_FLAG_* bits and a PERF_* group beyond them (0 if none), and
 * the line `ntkl help` prints (userspace/ctl/ntkl_flags.c). Order matters
 * for ntkl_flags_format(): a name that covers several bits comes before
 * the names of its parts, so the shortest spelling wins. A pass that
 * wants no names leaves NTKL_KEYWORD undefined.
 */
NTKL_KEYWORD(PROC_THREAD, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, 0,
	     "process and thread start/end")
NTKL_KEYWORD(PROCESS, EVENT_TRACE_FLAG_PROCESS, 0, "process start/end")
NTKL_KEYWORD(THREAD, EVENT_TRACE_FLAG_THREAD, 0, "thread start/end")
/* the compact form is a variant of CSwitch: it needs both bits */
NTKL_KEYWORD(COMPACT_CSWITCH, EVENT_TRACE_FLAG_CSWITCH, PERF_COMPACT_CSWITCH,
	     "context switches in compact batches (CompCS)")
NTKL_KEYWORD(CSWITCH, EVENT_TRACE_FLAG_CSWITCH, 0, "context switches (CSwitch)")
NTKL_KEYWORD(DISPATCHER, EVENT_TRACE_FLAG_DISPATCHER, 0, "threads made ready (ReadyThread)")
NTKL_KEYWORD(SPINLOCK, 0, PERF_SPINLOCK, "sampled spin lock contentions (SpinLock)")
NTKL_KEYWORD(LOADER, EVENT_TRACE_FLAG_IMAGE_LOAD, 0,
	     "the kernel, modules, processes' code files (Image)")
NTKL_KEYWORD(PROFILE, EVENT_TRACE_FLAG_PROFILE, 0, "CPU samples every -setprofint (SampledProfile)")
NTKL_KEYWORD(DPC, EVENT_TRACE_FLAG_DPC, 0, "softirqs, tasklets, timer callbacks (DPC, TimerDPC)")
NTKL_KEYWORD(INTERRUPT, EVENT_TRACE_FLAG_INTERRUPT, 0, "interrupt handlers (ISR)")
NTKL_KEYWORD(DISK_IO, EVENT_TRACE_FLAG_DISK_IO, 0,
	     "disk reads, writes, flushes completed (DiskIo)")
NTKL_KEYWORD(DISK_IO_INIT, EVENT_TRACE_FLAG_DISK_IO_INIT, 0,
	     "disk reads, writes, flushes issued (DiskIo ...Init)")
NTKL_KEYWORD(FILENAME, EVENT_TRACE_FLAG_DISK_FILE_IO, 0,
	     "file names at open, rename, unlink, rundown (FileIo)")
NTKL_KEYWORD(FILE_IO, EVENT_TRACE_FLAG_FILE_IO, 0, "file operations' ends (FileIo OperationEnd)")
NTKL_KEYWORD(FILE_IO_INIT, EVENT_TRACE_FLAG_FILE_IO_INIT, 0,
	     "file operations: open, read, write, close... (FileIo)")
NTKL_KEYWORD(HARD_FAULTS, EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS, 0,
	     "page faults that waited for storage (HardFault)")
NTKL_KEYWORD(SYSCALL, EVENT_TRACE_FLAG_SYSTEMCALL, 0,
	     "system calls and their status (SysClEnter, SysClExit)")
NTKL_KEYWORD(NETWORKTRACE, EVENT_TRACE_FLAG_NETWORK_TCPIP, 0,
	     "TCP/UDP sends, receives, connections (TcpIp, UdpIp)")
NTKL_KEYWORD(MEMINFO_WS, 0, PERF_MEMINFO_WS,
	     "each process's memory every 0.5 s (ProcessMemInfo)")
NTKL_KEYWORD(ALL_FAULTS, EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS, 0,
	     "every page fault by kind (DemandZeroFault, ...)")
NTKL_KEYWORD(VIRT_ALLOC, EVENT_TRACE_FLAG_VIRTUAL_ALLOC, 0,
	     "memory committed, freed (VirtualAlloc, VirtualFree)")

/* ---------------------------------------------------------------------- */
/* The events whose stacks ntkl walks                                      */
/* ---------------------------------------------------------------------- */
/*
 * NTKL_STACKWALK(id, name): ETW_EVENT_<id> may be followed by its stack
 * (StackWalk/Stack) in a logger that asks for its hook
 * (NTKL_IOC_SET_STACK_TRACING; `-stackwalk name`, xperf's name). Its
 * place in this list is its bit in a logger's set of walked events
 * (NTKL_WALK_<id>); its producer walks the stack where it writes the
 * event (module/producers/stack.h). A pass that wants none leaves
 * NTKL_STACKWALK undefined.
 */
NTKL_STACKWALK(CSWITCH, "CSwitch")
NTKL_STACKWALK(SPINLOCK, "SpinLock")
NTKL_STACKWALK(READY_THREAD, "ReadyThread")
NTKL_STACKWALK(SAMPLED_PROFILE, "Profile")
NTKL_STACKWALK(DISKIO_READ_INIT, "DiskReadInit")
NTKL_STACKWALK(DISKIO_WRITE_INIT, "DiskWriteInit")
NTKL_STACKWALK(DISKIO_FLUSH_INIT, "DiskFlushInit")
NTKL_STACKWALK(FILEIO_READ, "FileRead")
NTKL_STACKWALK(FILEIO_WRITE, "FileWrite")
NTKL_STACKWALK(HARD_FAULT, "HardFault")
NTKL_STACKWALK(SYSCALL_ENTER, "SyscallEnter")
NTKL_STACKWALK(SYSCALL_EXIT, "SyscallExit")
NTKL_STACKWALK(TRANSITION_FAULT, "PagefaultTransition")
NTKL_STACKWALK(DEMAND_ZERO_FAULT, "PagefaultDemandZero")
NTKL_STACKWALK(COPY_ON_WRITE, "PagefaultCopyOnWrite")
NTKL_STACKWALK(HARD_PAGE_FAULT, "PagefaultHard")
NTKL_STACKWALK(ACCESS_VIOLATION, "PagefaultAV")
NTKL_STACKWALK(VIRTUAL_ALLOC, "VirtualAlloc")
NTKL_STACKWALK(VIRTUAL_FREE, "VirtualFree")

#ifdef NTKL_KEYWORD_UNUSED
#undef NTKL_KEYWORD
#undef NTKL_KEYWORD_UNUSED
#endif
#ifdef NTKL_STACKWALK_UNUSED
#undef NTKL_STACKWALK
#undef NTKL_STACKWALK_UNUSED
#endif
