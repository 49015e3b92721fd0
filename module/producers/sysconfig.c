// SPDX-License-Identifier: GPL-2.0
/*
 * SystemConfig: what the machine is, written as Windows' kernel logger
 * writes it, at the end of the trace (the TraceLoggingTester sample has
 * every SystemConfig record after the DCEnd rundown began): ProcessorGroup
 * and NumaNode (PERFINFO64) inside the DCEnd rundown, then a NIC record
 * per network interface and an IRQ record per interrupt with a handler
 * (SYSTEM64, with the stopping thread's ids as Windows' carry xperf's).
 * docs/linux-to-nt.md ("SystemConfig") maps each field to Linux state.
 *
 * Not a hot path: this runs once per logger stop, in process context.
 * Interfaces are walked under RCU, interrupts under RCU with each
 * descriptor's lock (as /proc/interrupts does), and every string is built
 * in a scratch page allocated before.
 */
#include <linux/cpumask.h>
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/netdevice.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/net_namespace.h>

#include "ntkl.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/producer.h"

#define GROUP_CPUS	64	/* a Windows processor group: a KAFFINITY's bits */
#define SCRATCH_SIZE	PAGE_SIZE

/* The CPUs of m in processor group g (CPUs 64g..64g+63), as a KAFFINITY. */
static u64 group_affinity(const struct cpumask *m, unsigned int g)
{
	unsigned int cpu;
	u64 mask = 0;

	for_each_cpu(cpu, m)
		if (cpu / GROUP_CPUS == g)
			mask |= 1ULL << (cpu % GROUP_CPUS);
	return mask;
}

/* One group of 64 CPUs after another, as Windows forms groups up to 64. */
static void write_processor_groups(struct ntkl_logger *lg)
{
	unsigned int groups = DIV_ROUND_UP(nr_cpu_ids, GROUP_CPUS), g;
	struct ntkl_record rec;
	u8 *p;

	preempt_disable();
	p = ntkl_record_begin(lg, &rec, ETW_EVENT_CONFIG_PROCESSORGROUP, 4 + 8 * groups);
	if (p) {
		memcpy(p, &groups, 4);
		for (g = 0; g < groups; g++) {
			u64 mask = group_affinity(cpu_possible_mask, g);

			memcpy(p + 4 + 8 * g, &mask, 8);	/* unaligned, as Windows' */
		}
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

/* Each online node's CPUs, in the group of its first CPU. */
static void write_numa_nodes(struct ntkl_logger *lg)
{
	unsigned int nodes = num_online_nodes(), i = 0;
	struct ntkl_record rec;
	int node;
	u8 *p;

	preempt_disable();
	p = ntkl_record_begin(lg, &rec, ETW_EVENT_CONFIG_NUMANODE,
			      4 + sizeof(struct etw_group_affinity) * nodes);
	if (p) {
		/* a node gone offline since we counted leaves zeros, not old bytes */
		memset(p, 0, 4 + sizeof(struct etw_group_affinity) * nodes);
		memcpy(p, &nodes, 4);
		for_each_online_node(node) {
			const struct cpumask *m = cpumask_of_node(node);
			unsigned int first = cpumask_first(m);
			unsigned int g = first < nr_cpu_ids ? first / GROUP_CPUS : 0;
			struct etw_group_affinity ga = {
				.mask = group_affinity(m, g),
				.group = g,
			};

			if (i++ == nodes)
				break;	/* a node came online since we counted */
			memcpy(p + 4 + sizeof(ga) * (i - 1), &ga, sizeof(ga));
		}
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

/* Append to the scratch string s; false once it is full. */
static bool scratch_add(char *s, size_t *len, const char *sep, const char *fmt,
			const void *addr)
{
	int n = snprintf(s + *len, SCRATCH_SIZE - *len, "%s", *len ? sep : "");

	if (n < 0 || *len + n >= SCRATCH_SIZE)
		return false;
	*len += n;
	n = snprintf(s + *len, SCRATCH_SIZE - *len, fmt, addr);
	if (n < 0 || *len + n >= SCRATCH_SIZE) {
		s[*len] = '\0';
		return false;
	}
	*len += n;
	return true;
}

#if IS_ENABLED(CONFIG_NET)
/* The interface's addresses, IPv6 first then IPv4 as Windows lists them. */
static void nic_addresses(struct net_device *dev, char *s)
{
	struct in_device *in_dev __maybe_unused;
	size_t len = 0;

	s[0] = '\0';
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct inet6_dev *idev = __in6_dev_get(dev);
		struct inet6_ifaddr *ifa6;

		if (idev) {
			read_lock_bh(&idev->lock);
			list_for_each_entry(ifa6, &idev->addr_list, if_list)
				if (!scratch_add(s, &len, ";", "%pI6c", &ifa6->addr))
					break;
			read_unlock_bh(&idev->lock);
		}
	}
#endif
#if IS_ENABLED(CONFIG_INET)
	in_dev = __in_dev_get_rcu(dev);
	if (in_dev) {
		const struct in_ifaddr *ifa;

		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (!scratch_add(s, &len, ";", "%pI4", &ifa->ifa_local))
				break;
	}
#endif
}

static void write_nic(struct ntkl_logger *lg, struct net_device *dev, char *addrs)
{
	size_t name_len = (ntkl_utf16_len(dev->name, IFNAMSIZ) + 1) * 2;
	size_t addrs_len = (ntkl_utf16_len(addrs, SCRATCH_SIZE) + 1) * 2;
	struct etw_config_nic nic = {
		.physical_addr_len = dev->addr_len <= sizeof(nic.physical_addr) ?
				     dev->addr_len : 0,
		.ipv4_index = dev->ifindex,
		.ipv6_index = dev->ifindex,
	};
	struct ntkl_record rec;
	u8 *p;

	memcpy(nic.physical_addr, dev->dev_addr, nic.physical_addr_len);
	preempt_disable();
	p = ntkl_record_begin(lg, &rec, ETW_EVENT_CONFIG_NIC,
			      sizeof(nic) + name_len + addrs_len + 2);
	if (p) {
		memcpy(p, &nic, sizeof(nic));
		p += sizeof(nic);
		p += ntkl_put_utf16(p, dev->name, IFNAMSIZ);
		p += ntkl_put_utf16(p, addrs, SCRATCH_SIZE);
		/* DnsServerAddresses: the kernel keeps no resolver settings */
		ntkl_put_utf16(p, "", 1);
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

static void write_nics(struct ntkl_logger *lg, char *scratch)
{
	struct net_device *dev;

	rcu_read_lock();
	for_each_netdev_rcu(&init_net, dev) {
		nic_addresses(dev, scratch);
		write_nic(lg, dev, scratch);
	}
	rcu_read_unlock();
}
#else
/* a kernel without networking has no interface to describe */
static void write_nics(struct ntkl_logger *lg, char *scratch)
{
}
#endif

/*
 * An interrupt with handlers: its affinity, number and the handlers'
 * names as /proc/interrupts shows them. false if it has none.
 */
static bool irq_describe(struct irq_desc *desc, struct etw_config_irq *ci, char *s)
{
	const struct cpumask *aff = irq_data_get_affinity_mask(&desc->irq_data);
	struct irqaction *action;
	unsigned long flags;
	size_t len = 0;
	bool any;

	s[0] = '\0';
	raw_spin_lock_irqsave(&desc->lock, flags);
	action = desc->action;
	any = action;
	if (action) {
		ci->irq_affinity = aff ? group_affinity(aff, 0) : 0;
		for (; action; action = action->next)
			if (action->name && !scratch_add(s, &len, ", ", "%s", action->name))
				break;
	}
	raw_spin_unlock_irqrestore(&desc->lock, flags);
	return any;
}

static void write_irqs(struct ntkl_logger *lg, char *scratch)
{
	unsigned int irq;

	for (irq = 0; irq < nr_irqs; irq++) {
		struct etw_config_irq ci = { .irq_num = irq };
		struct ntkl_record rec;
		struct irq_data *data;
		size_t desc_len;
		u8 *p;

		rcu_read_lock();
		data = irq_get_irq_data(irq);
		if (!data || !irq_describe(irq_data_to_desc(data), &ci, scratch)) {
			rcu_read_unlock();
			continue;
		}
		rcu_read_unlock();
		ci.device_description_len = ntkl_utf16_len(scratch, SCRATCH_SIZE) + 1;
		desc_len = ci.device_description_len * 2;
		preempt_disable();
		p = ntkl_record_begin(lg, &rec, ETW_EVENT_CONFIG_IRQ,
				      ETW_CONFIG_IRQ_SIZE + desc_len);
		if (p) {
			memcpy(p, &ci, ETW_CONFIG_IRQ_SIZE);
			ntkl_put_utf16(p + ETW_CONFIG_IRQ_SIZE, scratch, SCRATCH_SIZE);
			ntkl_record_end(&rec);
		}
		preempt_enable();
		cond_resched();
	}
}

static void sysconfig_rundown(struct ntkl_logger *lg, bool end)
{
	char *scratch;

	/* xperf's NO_SYSCONFIG (an enable flag, in the first mask word) */
	if (!end || (READ_ONCE(lg->groups.masks[0]) & EVENT_TRACE_FLAG_NO_SYSCONFIG))
		return;
	write_processor_groups(lg);
	write_numa_nodes(lg);
	scratch = kmalloc(SCRATCH_SIZE, GFP_KERNEL);
	if (!scratch) {
		atomic64_inc(&lg->events_lost_extra);
		return;
	}
	write_nics(lg, scratch);
	write_irqs(lg, scratch);
	kfree(scratch);
}

const struct ntkl_producer ntkl_sysconfig_producer = {
	.name = "sysconfig",
	.rundown = sysconfig_rundown,
};
