// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_sysconfig_test: what a file says about the machine and about
 * itself, against what Linux says.
 *
 *  - SystemConfig ProcessorGroup, NumaNode, NIC and IRQ records (written
 *    at stop, module/producers/sysconfig.c) against /sys/devices/system,
 *    /sys/class/net, getifaddrs(), /proc/net/if_inet6 and /proc/interrupts;
 *  - the Header event completed as Windows' (the controller's ids, the
 *    file's name, the time zone of TZ);
 *  - the buffers' habits the Windows samples show (test_samples.c): the
 *    flush marker on the header buffer and the last buffer only,
 *    CurrentOffset past the end, a flush TimeStamp, and ntkl's
 *    ReferenceTime (the Header's StartTime and SystemTime).
 *
 * Each test records `true` with `ntkl record`, the way users do.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define FILE_PATH	"/tmp/ntkl-sysconfig.etl"
#define TZ_RULE		"CET-1CEST,M3.5.0,M10.5.0/3"
#define MAX_ITEMS	256

/* Record `true` with ntkl record, TZ set; the ntkl process's pid, or -1. */
static pid_t record(void)
{
	int status;
	pid_t pid;

	unlink(FILE_PATH);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		setenv("TZ", TZ_RULE, 1);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("ntkl", "ntkl", "record", "-on", "PROC_THREAD", "-o", FILE_PATH,
		       "--", "true", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pid;
}

/* A kernel-format CPU list ("0-3,8") as a mask of the first 64 CPUs. */
static uint64_t parse_cpulist(const char *s)
{
	uint64_t mask = 0;

	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long c = a; c <= b && c < 64; c++)
			mask |= 1ULL << c;
		s = *end == ',' ? end + 1 : end;
	}
	return mask;
}

static bool read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

static void utf16_to_ascii(const uint8_t *p, size_t max, char *out, size_t size, size_t *used)
{
	size_t i = 0, o = 0;

	for (; i + 1 < max; i += 2) {
		uint16_t c = p[i] | p[i + 1] << 8;

		if (!c) {
			i += 2;
			break;
		}
		if (o + 1 < size)
			out[o++] = c < 0x80 ? (char)c : '?';
	}
	out[o] = '\0';
	if (used)
		*used = i;
}

/* What the file says. */
struct nic_rec {
	char name[IFNAMSIZ + 1];
	uint8_t mac[8];
	uint32_t mac_len, ifindex;
	char addrs[1024];
};

struct irq_rec {
	int32_t num;
	uint64_t affinity;
	char desc[256];
};

struct view {
	uint32_t groups, nodes;
	uint64_t group_mask[4];
	uint64_t node_mask[8];
	unsigned int nics, irqs, groups_records, nodes_records;
	struct nic_rec nic[MAX_ITEMS];
	struct irq_rec irq[MAX_ITEMS];
	/* buffers */
	unsigned int buffers, marked, bad_current, no_timestamp, bad_reference;
	int64_t last_index;
	uint16_t last_flag;
	uint32_t header_pid, header_tid;
};

static void view_record(struct view *v, const struct etl_file *f, const struct etl_record *r)
{
	if (r->kind != ETL_KIND_KERNEL)
		return;
	if (r->hook_id == ETW_EVENT_HEADER_HOOK) {
		v->header_pid = r->process_id;
		v->header_tid = r->thread_id;
	} else if (r->hook_id == ETW_EVENT_CONFIG_PROCESSORGROUP_HOOK && r->payload_len >= 12) {
		v->groups_records++;
		memcpy(&v->groups, r->payload, 4);
		for (uint32_t g = 0; g < v->groups && g < 4 && 4 + 8 * (g + 1) <= r->payload_len; g++)
			memcpy(&v->group_mask[g], r->payload + 4 + 8 * g, 8);
	} else if (r->hook_id == ETW_EVENT_CONFIG_NUMANODE_HOOK && r->payload_len >= 20) {
		v->nodes_records++;
		memcpy(&v->nodes, r->payload, 4);
		for (uint32_t n = 0; n < v->nodes && n < 8 && 4 + 16 * (n + 1) <= r->payload_len; n++)
			memcpy(&v->node_mask[n], r->payload + 4 + 16 * n, 8);
	} else if (r->hook_id == ETW_EVENT_CONFIG_NIC_HOOK && v->nics < MAX_ITEMS &&
		   r->payload_len >= sizeof(struct etw_config_nic) + 6) {
		struct nic_rec *n = &v->nic[v->nics++];
		struct etw_config_nic c;
		size_t used, off = sizeof(c);

		memcpy(&c, r->payload, sizeof(c));
		memcpy(n->mac, c.physical_addr, 8);
		n->mac_len = c.physical_addr_len;
		n->ifindex = c.ipv4_index;
		utf16_to_ascii(r->payload + off, r->payload_len - off, n->name, sizeof(n->name), &used);
		off += used;
		utf16_to_ascii(r->payload + off, r->payload_len - off, n->addrs, sizeof(n->addrs),
			       NULL);
	} else if (r->hook_id == ETW_EVENT_CONFIG_IRQ_HOOK && v->irqs < MAX_ITEMS &&
		   r->payload_len >= ETW_CONFIG_IRQ_SIZE + 2) {
		struct irq_rec *q = &v->irq[v->irqs++];
		struct etw_config_irq c;

		memcpy(&c, r->payload, ETW_CONFIG_IRQ_SIZE);
		q->num = c.irq_num;
		q->affinity = c.irq_affinity;
		utf16_to_ascii(r->payload + ETW_CONFIG_IRQ_SIZE, r->payload_len - ETW_CONFIG_IRQ_SIZE,
			       q->desc, sizeof(q->desc), NULL);
	}
}

static void view_buffer(struct view *v, const struct etl_file *f, const struct etl_buffer *b)
{
	const struct wmi_buffer_header *h = &b->hdr;

	v->buffers++;
	if (h->buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER)
		v->marked++;
	if (b->index == 0)
		return;
	v->last_index = b->index;
	v->last_flag = h->buffer_flag;
	/* no record fits: past the end, by at most a buffer */
	if (h->current_offset <= h->buffer_size ||
	    h->current_offset - h->saved_offset > h->buffer_size)
		v->bad_current++;
	if (!h->timestamp)
		v->no_timestamp++;
	if (h->start_time != f->header.start_time ||
	    h->start_perf_clock != f->header_system_time)
		v->bad_reference++;
}

/* Walk the file into v; the strict checker's verdict into verdict. */
static int view_file(struct view *v, struct etl_file *f, struct capture_verdict *verdict)
{
	struct etl_record_cursor rc;
	struct etl_error err;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record r;

	memset(v, 0, sizeof(*v));
	if (etl_open(f, FILE_PATH, &err))
		return -1;
	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) == 1) {
		view_buffer(v, f, &b);
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) == 1)
			view_record(v, f, &r);
	}
	memset(verdict, 0, sizeof(*verdict));
	etl_check(f, false, capture_on_violation, verdict, NULL);
	return 0;
}

static struct view view;

TEST(header_names_controller_file_and_zone)
{
	struct capture_verdict verdict;
	const struct etw_time_zone_information *tz;
	struct etl_file f;
	pid_t pid = record();

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, view_file(&view, &f, &verdict));
	EXPECT_EQ(0, verdict.violations) TH_LOG("%s", verdict.first_violation);
	/* the controller: ntkl record's own (single-threaded) process */
	EXPECT_EQ((uint32_t)pid, view.header_pid);
	EXPECT_EQ((uint32_t)pid, view.header_tid);
	EXPECT_STREQ(FILE_PATH, f.log_file_name);
	tz = &f.header.time_zone;
	/* what Windows wrote in Central Europe (both samples) */
	EXPECT_EQ(-60, tz->bias);
	EXPECT_EQ(0, tz->standard_bias);
	EXPECT_EQ(-60, tz->daylight_bias);
	EXPECT_EQ(10, tz->standard_date.month);
	EXPECT_EQ(5, tz->standard_date.day);
	EXPECT_EQ(3, tz->standard_date.hour);
	EXPECT_EQ(3, tz->daylight_date.month);
	EXPECT_EQ(5, tz->daylight_date.day);
	EXPECT_EQ(2, tz->daylight_date.hour);
	EXPECT_EQ('C', tz->standard_name[0]);
	EXPECT_EQ('S', tz->daylight_name[2]);
	etl_close(&f);
}

TEST(buffers_as_windows)
{
	struct capture_verdict verdict;
	struct etl_file f;

	ASSERT_GT(record(), 0);
	ASSERT_EQ(0, view_file(&view, &f, &verdict));
	EXPECT_EQ(0, verdict.violations) TH_LOG("%s", verdict.first_violation);
	ASSERT_GE(view.buffers, 2);
	/* the header buffer and the file's last buffer, no other */
	EXPECT_EQ(2, view.marked);
	EXPECT_EQ(view.buffers - 1, view.last_index);
	EXPECT_TRUE(view.last_flag & ETW_BUFFER_FLAG_FLUSH_MARKER);
	EXPECT_EQ(0, view.bad_current);
	EXPECT_EQ(0, view.no_timestamp);
	EXPECT_EQ(0, view.bad_reference);
	etl_close(&f);
}

/* The MAC of /sys/class/net/NAME/address, as bytes; its length. */
static unsigned int sys_mac(const char *name, uint8_t mac[8])
{
	char path[128], text[128];
	unsigned int n = 0;
	char *s = text;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", name);
	if (!read_text(path, text, sizeof(text)))
		return 0;
	memset(mac, 0, 8);
	while (n < 8 && *s && *s != '\n') {
		char *end;
		unsigned long b = strtoul(s, &end, 16);

		if (end == s)
			break;
		mac[n++] = (uint8_t)b;
		s = *end == ':' ? end + 1 : end;
	}
	return n;
}

/* Does the record's list hold the address (IPv4 or IPv6, as text)? */
static bool has_addr(const char *list, int family, const void *want)
{
	char copy[1024], *tok, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		uint8_t bin[16];

		if (inet_pton(family, tok, bin) == 1 &&
		    !memcmp(bin, want, family == AF_INET ? 4 : 16))
			return true;
	}
	return false;
}

/* Entries of /sys/class/net: 0 on a kernel without networking. */
static unsigned int count_interfaces(void)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static unsigned int count_addrs(const char *list)
{
	unsigned int n = list[0] != '\0';

	for (; *list; list++)
		n += *list == ';';
	return n;
}

TEST(sysconfig_matches_linux)
{
	struct capture_verdict verdict;
	struct ifaddrs *ifs, *ia;
	char text[4096], path[128], line[512];
	unsigned int i, linux_addrs[MAX_ITEMS] = { 0 }, proc_irqs = 0;
	struct etl_file f;
	FILE *pi;

	ASSERT_GT(record(), 0);
	ASSERT_EQ(0, view_file(&view, &f, &verdict));
	EXPECT_EQ(0, verdict.violations) TH_LOG("%s", verdict.first_violation);

	/* ProcessorGroup: one group of the possible CPUs (the VM has < 64) */
	EXPECT_EQ(1, view.groups_records);
	ASSERT_TRUE(read_text("/sys/devices/system/cpu/possible", text, sizeof(text)));
	EXPECT_EQ(1, view.groups);
	EXPECT_EQ(parse_cpulist(text), view.group_mask[0]);

	/* NumaNode: each online node's CPUs */
	EXPECT_EQ(1, view.nodes_records);
	if (read_text("/sys/devices/system/node/online", text, sizeof(text))) {
		uint64_t online = parse_cpulist(text);
		unsigned int n = 0;

		EXPECT_EQ(__builtin_popcountll(online), view.nodes);
		for (unsigned int node = 0; node < 64 && n < 8; node++) {
			if (!(online & 1ULL << node))
				continue;
			snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", node);
			ASSERT_TRUE(read_text(path, text, sizeof(text)));
			EXPECT_EQ(parse_cpulist(text), view.node_mask[n]) TH_LOG("node %u", node);
			n++;
		}
	} else {
		EXPECT_EQ(1, view.nodes);	/* a kernel without NUMA: one node */
	}

	/* NIC: one per /sys/class/net entry (none without CONFIG_NET) */
	EXPECT_EQ(count_interfaces(), view.nics);
	for (i = 0; i < view.nics; i++) {
		struct nic_rec *n = &view.nic[i];
		uint8_t mac[8];
		unsigned int len;

		snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", n->name);
		ASSERT_TRUE(read_text(path, text, sizeof(text))) TH_LOG("no interface %s", n->name);
		EXPECT_EQ(strtoul(text, NULL, 10), n->ifindex) TH_LOG("%s", n->name);
		EXPECT_EQ(if_nametoindex(n->name), n->ifindex);
		len = sys_mac(n->name, mac);
		EXPECT_EQ(len, n->mac_len) TH_LOG("%s", n->name);
		EXPECT_EQ(0, memcmp(mac, n->mac, len)) TH_LOG("%s", n->name);
	}
	/* every IPv4 and IPv6 address Linux has is in its interface's list */
	if (getifaddrs(&ifs))
		ifs = NULL;	/* no networking: no address either */
	for (ia = ifs; ia; ia = ia->ifa_next) {
		const void *bin;
		int family;

		if (!ia->ifa_addr)
			continue;
		family = ia->ifa_addr->sa_family;
		if (family == AF_INET)
			bin = &((struct sockaddr_in *)ia->ifa_addr)->sin_addr;
		else if (family == AF_INET6)
			bin = &((struct sockaddr_in6 *)ia->ifa_addr)->sin6_addr;
		else
			continue;
		for (i = 0; i < view.nics; i++) {
			if (strcmp(view.nic[i].name, ia->ifa_name))
				continue;
			EXPECT_TRUE(has_addr(view.nic[i].addrs, family, bin))
				TH_LOG("%s: an address missing from \"%s\"", ia->ifa_name,
				       view.nic[i].addrs);
			linux_addrs[i]++;
		}
	}
	if (ifs)
		freeifaddrs(ifs);
	/* and no other */
	for (i = 0; i < view.nics; i++)
		EXPECT_EQ(linux_addrs[i], count_addrs(view.nic[i].addrs))
			TH_LOG("%s: \"%s\"", view.nic[i].name, view.nic[i].addrs);

	/* IRQ: every numbered line of /proc/interrupts, its handlers' names last */
	pi = fopen("/proc/interrupts", "r");
	ASSERT_NE(NULL, pi);
	while (fgets(line, sizeof(line), pi)) {
		char *colon, *end;
		long irq = strtol(line, &colon, 10);
		bool found = false;

		if (colon == line || *colon != ':')
			continue;	/* the CPU header, NMI:, LOC: ... */
		proc_irqs++;
		end = line + strlen(line);
		while (end > line && (end[-1] == '\n' || end[-1] == ' '))
			*--end = '\0';
		for (i = 0; i < view.irqs; i++) {
			size_t dl = strlen(view.irq[i].desc);

			if (view.irq[i].num != irq)
				continue;
			found = true;
			EXPECT_TRUE(dl && (size_t)(end - line) > dl &&
				    !strcmp(end - dl, view.irq[i].desc) && end[-dl - 1] == ' ')
				TH_LOG("IRQ %ld: \"%s\" does not end \"%s\"", irq, line,
				       view.irq[i].desc);
			EXPECT_NE(0, view.irq[i].affinity);
		}
		EXPECT_TRUE(found) TH_LOG("IRQ %ld of /proc/interrupts has no record", irq);
	}
	fclose(pi);
	EXPECT_EQ(proc_irqs, view.irqs);
	etl_close(&f);
}

TEST_HARNESS_MAIN
