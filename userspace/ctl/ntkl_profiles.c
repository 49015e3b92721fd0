// SPDX-License-Identifier: GPL-2.0
/*
 * Named recording profiles (-profile NAME). See ntkl_profiles.h.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ntkl_profiles.h"

/*
 * What WPR's profiles of the same name turn on, as far as ntkl records it:
 * general is WPR's GeneralProfile (CPU, disk and file I/O with names),
 * cpu its CPU profile (sampling, switches with stacks, and DPC/ISR time
 * that CPU usage views count), diskio and fileio its DiskIO and FileIO
 * profiles (the I/O with the stacks that issued it), latency the
 * ready-to-run question without sampling's cost, dpcisr xperf's DPC/ISR
 * view, spinlock the contentions with their stacks, network WPR's
 * Network profile (TCP and UDP per process and connection, with the
 * switches that show the waits for them).
 * memory is WPR's VirtualAllocation profile with every page fault by kind
 * (the stacks of the faults that make or copy a page, of the failed and
 * the hard ones, of each commit and free) and each process's working set
 * every half second; general, as WPR's GeneralProfile, takes none of it.
 * power is what WPR's power profile can be on Linux: the kernel's idle
 * and frequency events have no public shape (docs/linux-to-nt.md), so it
 * answers from the switches (each CPU's idle periods, the C-state each
 * CSwitch says it left, the thread it woke for: report's idle section),
 * the ReadyThread events with the readying stack (who woke that thread)
 * and the DPCs and interrupts (the timers and devices that woke a CPU);
 * no sampling, whose interrupts would be the wakeups it measures.
 */
const struct ntkl_profile ntkl_profiles[] = {
	{ "general", "PROC_THREAD+LOADER+CSWITCH+DISPATCHER+PROFILE+DISK_IO+DISK_IO_INIT+FILENAME+FILE_IO+FILE_IO_INIT+HARD_FAULTS",
	  "Profile+CSwitch+ReadyThread", "where CPU time goes, why threads wait, what the disks did" },
	{ "cpu", "PROC_THREAD+LOADER+CSWITCH+DISPATCHER+PROFILE+DPC+INTERRUPT",
	  "Profile+CSwitch+ReadyThread", "CPU usage, sampled and precise, with DPC and ISR time" },
	{ "latency", "PROC_THREAD+LOADER+CSWITCH+DISPATCHER+DPC+INTERRUPT",
	  "CSwitch+ReadyThread", "who made a thread wait for a CPU, and how long" },
	{ "dpcisr", "PROC_THREAD+LOADER+CSWITCH+DPC+INTERRUPT",
	  "none", "time in interrupt handlers and DPCs" },
	{ "spinlock", "PROC_THREAD+LOADER+CSWITCH+SPINLOCK",
	  "SpinLock", "contended spin locks and where they were taken" },
	{ "diskio", "PROC_THREAD+LOADER+CSWITCH+DISK_IO+DISK_IO_INIT+FILENAME+HARD_FAULTS",
	  "DiskReadInit+DiskWriteInit+DiskFlushInit+HardFault", "what the disks did, for whom, how long each took" },
	{ "fileio", "PROC_THREAD+LOADER+CSWITCH+DISK_IO+DISK_IO_INIT+FILENAME+FILE_IO+FILE_IO_INIT",
	  "FileRead+FileWrite+DiskReadInit+DiskWriteInit", "which files each process read and wrote, cached or not" },
	{ "network", "PROC_THREAD+LOADER+CSWITCH+NETWORKTRACE",
	  "CSwitch", "what each process sent and received, over which connections" },
	{ "memory", "PROC_THREAD+LOADER+ALL_FAULTS+HARD_FAULTS+VIRT_ALLOC+MEMINFO_WS",
	  "VirtualAlloc+VirtualFree+PagefaultDemandZero+PagefaultCopyOnWrite+PagefaultAV+HardFault",
	  "which processes fault, on what, and what memory they commit" },
	{ "power", "PROC_THREAD+LOADER+CSWITCH+DISPATCHER+DPC+INTERRUPT",
	  "ReadyThread", "what wakes the CPUs from idle, and the C-states they left" },
	{ NULL, NULL, NULL, NULL },
};

const struct ntkl_profile *ntkl_profile_find(const char *name)
{
	for (const struct ntkl_profile *p = ntkl_profiles; p->name; p++)
		if (!strcasecmp(p->name, name))
			return p;
	return NULL;
}

const char *ntkl_profile_names(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct ntkl_profile *p = ntkl_profiles; p->name && used < size; p++) {
		int n = snprintf(buf + used, size - used, "%s%s", p == ntkl_profiles ? "" : ", ",
				 p->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

/*
 * "-on A+B+..." (or -stackwalk) under a profile's name, broken after a '+'
 * to stay within 80 columns, the rest under the first name.
 */
static void print_list(FILE *out, const char *indent, const char *option, const char *list)
{
	int col = fprintf(out, "%s%-9s %s ", indent, "", option), start = col;

	while (*list) {
		size_t len = strcspn(list, "+");
		int more = list[len] == '+';

		if (col > start && col + (int)len + more > 80)
			col = fprintf(out, "\n%s%-9s %*s", indent, "", (int)strlen(option) + 1, "") - 1;
		col += fprintf(out, "%.*s%s", (int)len, list, more ? "+" : "");
		list += len + more;
	}
	fputc('\n', out);
}

void ntkl_profiles_help(FILE *out, const char *indent)
{
	for (const struct ntkl_profile *p = ntkl_profiles; p->name; p++) {
		fprintf(out, "%s%-9s %s:\n", indent, p->name, p->question);
		print_list(out, indent, "-on", p->flags);
		print_list(out, indent, "-stackwalk", p->stackwalk);
	}
}
