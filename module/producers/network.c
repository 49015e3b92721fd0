// SPDX-License-Identifier: GPL-2.0
/*
 * TcpIp (group 0x06) and UdpIp (0x08), EVENT_TRACE_FLAG_NETWORK_TCPIP
 * (xperf's NETWORKTRACE): the bytes each process sends and receives over
 * TCP and UDP, its connections, for WPA's Network view and xperf -a
 * tcpip. PERFINFO64 v2 records (the process is in the payload), IPv4 or
 * IPv6 by the socket's family (an IPv6 event is opcode + 16).
 *
 *   Send, Recv   the return of tcp_sendmsg and tcp_recvmsg: the bytes the
 *                call moved (what send(2)/recv(2) and their kin return),
 *                in the calling process; a MSG_PEEK moves nothing
 *   Connect      the return of tcp_v4_connect and tcp_v6_connect when the
 *                SYN is on its way (the ports are known from then), in
 *                the connecting process
 *   Accept       the return of inet_csk_accept with a TCP socket, in the
 *                accepting process
 *   Disconnect   tcp_close of a socket that had a peer, in the closing
 *                process
 *   Retransmit   tcp:tcp_retransmit_skb, mostly from a timer: the process
 *                is known only when it runs in one (else 0)
 *   UdpIp Send, Recv  the return of udp_sendmsg/udpv6_sendmsg and
 *                udp_recvmsg/udpv6_recvmsg: one record a datagram
 *
 * So the sizes of Send and Recv add up to exactly what the processes sent
 * and received through those calls (read(2)/write(2) on a socket come
 * through them too); what does not pass them is not seen: sendfile and
 * splice to a TCP socket on 6.1 (tcp_sendpage), io_uring's zero-copy
 * sends, a BPF sockmap's redirects. docs/linux-to-nt.md ("Network") says
 * how each field is made.
 *
 * The kretprobes (and the one tracepoint) are registered while a running
 * logger takes these events (attach, process context) and unregistered
 * when none does: a loaded module records nothing and costs the network
 * paths nothing. Handlers run with preemption off, take no lock and
 * allocate nothing; a call the kprobes machinery misses (an instance pool
 * empty, a probe hit inside another) is counted lost (nmissed) for each
 * logger that takes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <trace/events/tcp.h>

#include "control/fault.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/tracepoints.h"

/* Does lg take any of the group's events? (all have the one group mask) */
static __always_inline bool net_on(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_TCPIP_SEND);
}

/* ---------------------------------------------------------------------- */
/* A connection's addresses, as the socket has them                         */
/* ---------------------------------------------------------------------- */

/* The remote end is d, the local one s, for every event as for Send. */
struct net_tuple {
	u8 daddr[16], saddr[16];	/* IPv4: the first 4 bytes */
	__be16 dport, sport;
	bool v6;
};

static __always_inline bool net_v6(const struct sock *sk)
{
	return IS_ENABLED(CONFIG_IPV6) && READ_ONCE(sk->sk_family) == AF_INET6;
}

/* Read without the socket's lock: a field changing under us is as racy as ss(8). */
static __always_inline void net_tuple(const struct sock *sk, struct net_tuple *t)
{
	memset(t, 0, sizeof(*t));
	t->v6 = net_v6(sk);
	t->dport = READ_ONCE(sk->sk_dport);
	t->sport = READ_ONCE(inet_sk(sk)->inet_sport);
#if IS_ENABLED(CONFIG_IPV6)
	if (t->v6) {
		memcpy(t->daddr, &sk->sk_v6_daddr, 16);
		memcpy(t->saddr, &sk->sk_v6_rcv_saddr, 16);
		return;
	}
#endif
	memcpy(t->daddr, &sk->sk_daddr, 4);
	memcpy(t->saddr, &sk->sk_rcv_saddr, 4);
}

/*
 * A datagram's peer named by the call (sendto's destination, recvfrom's
 * source): msg_name is the kernel's copy of the address. IPv4 in an IPv6
 * event is the mapped ::ffff:a.b.c.d.
 */
static __always_inline void net_peer(const struct msghdr *msg, struct net_tuple *t)
{
	const struct sockaddr *sa = msg ? msg->msg_name : NULL;

	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		t->dport = sin->sin_port;
		if (!t->v6) {
			memcpy(t->daddr, &sin->sin_addr, 4);
			return;
		}
		memset(t->daddr, 0, 10);
		t->daddr[10] = 0xff;
		t->daddr[11] = 0xff;
		memcpy(t->daddr + 12, &sin->sin_addr, 4);
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (sa->sa_family == AF_INET6 && t->v6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		t->dport = sin6->sin6_port;
		memcpy(t->daddr, &sin6->sin6_addr, 16);
	}
#endif
}

static __always_inline u32 net_pid(void)
{
	return task_tgid_nr(current);
}

/*
 * connid: the socket, by a key no reader can turn back into its address
 * (the field may sit unaligned, where the redaction of kernel addresses
 * does not reach), the same for every event of the connection.
 */
static siphash_key_t net_connid_key __ro_after_init;

static __always_inline void net_connid(u8 *connid, const void *sk)
{
	u64 key = siphash_1u64((u64)(unsigned long)sk, &net_connid_key);

	memcpy(connid, &key, sizeof(key));
}

static __always_inline void net_write(enum etw_event_id id, const void *p, size_t size)
{
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	ntkl_record_each(loggers, n, id, p, size);
}

/* ---------------------------------------------------------------------- */
/* The records                                                             */
/* ---------------------------------------------------------------------- */

/*
 * A record's endpoints: the IPv4 and IPv6 layouts name them alike, their
 * addresses each of its own size.
 */
#define NET_PUT_ENDS(p, t) do {						\
		typeof(p) *p_ = &(p);						\
		const struct net_tuple *t_ = (t);				\
										\
		memcpy(&p_->daddr, t_->daddr, sizeof(p_->daddr));		\
		memcpy(&p_->saddr, t_->saddr, sizeof(p_->saddr));		\
		p_->dport = (__force u16)t_->dport;				\
		p_->sport = (__force u16)t_->sport;				\
	} while (0)

/* Recv, Disconnect, Retransmit: TcpIp_TypeGroup1 and 3 */
static void net_tcp_plain(enum etw_event_id id4, enum etw_event_id id6, const struct sock *sk,
			  u32 pid, u32 size, u32 seq)
{
	struct net_tuple t;

	net_tuple(sk, &t);
	if (t.v6) {
		struct etw_tcpip_v6 p = { .pid = pid, .size = size, .seqnum = seq };

		NET_PUT_ENDS(p, &t);
		net_connid(p.connid, sk);
		net_write(id6, &p, sizeof(p));
	} else {
		struct etw_tcpip_v4 p = { .pid = pid, .size = size, .seqnum = seq };

		NET_PUT_ENDS(p, &t);
		net_connid(p.connid, sk);
		net_write(id4, &p, sizeof(p));
	}
}

static void net_tcp_send(const struct sock *sk, u32 size, u32 seq)
{
	struct net_tuple t;

	net_tuple(sk, &t);
	if (t.v6) {
		struct etw_tcpip_send_v6 p = { .pid = net_pid(), .size = size, .seqnum = seq };

		NET_PUT_ENDS(p, &t);
		net_connid(p.connid, sk);
		net_write(ETW_EVENT_TCPIP_SEND_IPV6, &p, sizeof(p));
	} else {
		struct etw_tcpip_send_v4 p = { .pid = net_pid(), .size = size, .seqnum = seq };

		NET_PUT_ENDS(p, &t);
		net_connid(p.connid, sk);
		net_write(ETW_EVENT_TCPIP_SEND, &p, sizeof(p));
	}
}

/*
 * Connect and Accept: the options as the socket has them then (at
 * Connect the peer has not answered: none negotiated yet). The IPv4 and
 * IPv6 layouts hold them in the same order, mss to sndwinscale.
 */
struct net_opts {
	u16 mss, sackopt, tsopt, wsopt;
	u32 rcvwin;
	u16 rcvwinscale, sndwinscale;
};

static __always_inline void net_opts(const struct tcp_sock *tp, struct net_opts *o)
{
	o->mss = (u16)READ_ONCE(tp->mss_cache);
	o->sackopt = tp->rx_opt.sack_ok ? 1 : 0;
	o->tsopt = tp->rx_opt.tstamp_ok;
	o->wsopt = tp->rx_opt.wscale_ok;
	o->rcvwin = READ_ONCE(tp->rcv_wnd);
	o->rcvwinscale = tp->rx_opt.rcv_wscale;
	o->sndwinscale = tp->rx_opt.snd_wscale;
}

/* Connect's and Accept's options, in both layouts by the same names. */
#define NET_PUT_OPTS(p, o) do {						\
		typeof(p) *p_ = &(p);						\
		const struct net_opts *o_ = (o);				\
										\
		p_->mss = o_->mss;						\
		p_->sackopt = o_->sackopt;					\
		p_->tsopt = o_->tsopt;						\
		p_->wsopt = o_->wsopt;						\
		p_->rcvwin = o_->rcvwin;					\
		p_->rcvwinscale = o_->rcvwinscale;				\
		p_->sndwinscale = o_->sndwinscale;				\
	} while (0)

static void net_tcp_conn(enum etw_event_id id4, enum etw_event_id id6, const struct sock *sk)
{
	struct net_tuple t;
	struct net_opts o;

	net_tuple(sk, &t);
	net_opts(tcp_sk(sk), &o);
	if (t.v6) {
		struct etw_tcpip_connect_v6 p = { .pid = net_pid() };

		NET_PUT_ENDS(p, &t);
		NET_PUT_OPTS(p, &o);
		net_connid(p.connid, sk);
		net_write(id6, &p, sizeof(p));
	} else {
		struct etw_tcpip_connect_v4 p = { .pid = net_pid() };

		NET_PUT_ENDS(p, &t);
		NET_PUT_OPTS(p, &o);
		net_connid(p.connid, sk);
		net_write(id4, &p, sizeof(p));
	}
}

static void net_udp_record(enum etw_event_id id4, enum etw_event_id id6,
			   const struct net_tuple *t, u32 size)
{
	if (t->v6) {
		struct etw_udpip_v6 p = { .pid = net_pid(), .size = size };

		NET_PUT_ENDS(p, t);
		net_write(id6, &p, sizeof(p));
	} else {
		struct etw_udpip_v4 p = { .pid = net_pid(), .size = size };

		NET_PUT_ENDS(p, t);
		net_write(id4, &p, sizeof(p));
	}
}

/* ---------------------------------------------------------------------- */
/* The probes                                                              */
/* ---------------------------------------------------------------------- */

/* Retransmit: from the write queue's skb, its payload bytes and first sequence number. */
static void probe_tcp_retransmit_skb(void *data, const struct sock *sk, const struct sk_buff *skb)
{
	net_tcp_plain(ETW_EVENT_TCPIP_RETRANSMIT, ETW_EVENT_TCPIP_RETRANSMIT_IPV6, sk,
		      in_task() ? net_pid() : 0, skb->len, TCP_SKB_CB(skb)->seq);
}

#ifdef CONFIG_KRETPROBES

/* A call's state from its entry to its return (an instance's data is not zeroed). */
struct net_data {
	struct sock *sk;
	struct msghdr *msg;
	u32 seq;
};

static __always_inline struct net_data *net_data(struct kretprobe_instance *ri)
{
	return (struct net_data *)ri->data;
}

/* 0: the return handler runs; else it is skipped (no logger takes the events). */
static __always_inline int net_taken(void)
{
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);

	for (i = 0; i < n; i++)
		if (net_on(loggers[i]))
			return 0;
	return 1;
}

static int tcp_sendmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct net_data *d = net_data(ri);

	d->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	d->seq = READ_ONCE(tcp_sk(d->sk)->write_seq);
	return net_taken();
}

static int tcp_sendmsg_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct net_data *d = net_data(ri);
	long ret = (long)regs_return_value(regs);

	if (ret > 0)
		net_tcp_send(d->sk, (u32)ret, d->seq);
	return 0;
}

/* tcp_recvmsg(sk, msg, len, flags, addr_len): a MSG_PEEK moves nothing. */
static int tcp_recvmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct net_data *d = net_data(ri);

	if (regs_get_kernel_argument(regs, 3) & (MSG_PEEK | MSG_ERRQUEUE))
		return 1;
	d->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	d->seq = READ_ONCE(tcp_sk(d->sk)->copied_seq);
	return net_taken();
}

static int tcp_recvmsg_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct net_data *d = net_data(ri);
	long ret = (long)regs_return_value(regs);

	if (ret > 0)
		net_tcp_plain(ETW_EVENT_TCPIP_RECV, ETW_EVENT_TCPIP_RECV_IPV6, d->sk, net_pid(),
			      (u32)ret, d->seq);
	return 0;
}

/*
 * tcp_v4_connect: an IPv6 socket's connect to a mapped IPv4 address comes
 * through tcp_v6_connect, whose probe writes it.
 */
static int tcp_v4_connect_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct net_data *d = net_data(ri);

	d->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	if (net_v6(d->sk))
		return 1;
	return net_taken();
}

static int tcp_v6_connect_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	net_data(ri)->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	return net_taken();
}

static int tcp_connect_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		net_tcp_conn(ETW_EVENT_TCPIP_CONNECT, ETW_EVENT_TCPIP_CONNECT_IPV6,
			     net_data(ri)->sk);
	return 0;
}

static int accept_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return net_taken();
}

static int accept_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)regs_return_value(regs);

	if (sk && sk->sk_protocol == IPPROTO_TCP && sk->sk_type == SOCK_STREAM)
		net_tcp_conn(ETW_EVENT_TCPIP_ACCEPT, ETW_EVENT_TCPIP_ACCEPT_IPV6, sk);
	return 0;
}

/*
 * tcp_close(sk, timeout) of a socket that had a peer (a listener has
 * none; one never connected has no port): its Disconnect, whatever the
 * state the peer left it in. No return handler.
 */
static int tcp_close_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sock *sk = (const struct sock *)regs_get_kernel_argument(regs, 0);

	if (READ_ONCE(sk->sk_state) != TCP_LISTEN && READ_ONCE(sk->sk_dport) && !net_taken())
		net_tcp_plain(ETW_EVENT_TCPIP_DISCONNECT, ETW_EVENT_TCPIP_DISCONNECT_IPV6, sk,
			      net_pid(), 0, 0);
	return 1;
}

/* Never called (the entry handler skips it): a return handler all the same. */
static int tcp_close_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

/*
 * udp_sendmsg(sk, msg, ...) and udp_recvmsg(sk, msg, ...), and their IPv6
 * twins, each of its own family's sockets: an IPv6 socket's datagram to
 * an IPv4 address comes through udpv6_sendmsg, whose probe writes it. The
 * destination is the call's (sendto), else the connected peer's, read at
 * entry; the source port is read at return (the first send binds one).
 */
static int udp_entry(struct kretprobe_instance *ri, struct pt_regs *regs, bool v6)
{
	struct net_data *d = net_data(ri);

	d->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	d->msg = (struct msghdr *)regs_get_kernel_argument(regs, 1);
	if (net_v6(d->sk) != v6)
		return 1;
	return net_taken();
}

static int udp_sendmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return udp_entry(ri, regs, false);
}

static int udpv6_sendmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return udp_entry(ri, regs, true);
}

/*
 * The return of both sends and both receives: the peer the call named
 * (msg_name, the kernel's copy, still live in the caller's frame), else
 * the connected one.
 */
static void net_udp_done(struct kretprobe_instance *ri, long ret, enum etw_event_id id4,
			 enum etw_event_id id6)
{
	struct net_data *d = net_data(ri);
	struct net_tuple t;

	if (ret < 0)
		return;
	net_tuple(d->sk, &t);
	net_peer(d->msg, &t);
	net_udp_record(id4, id6, &t, (u32)ret);
}

static int udp_sendmsg_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	net_udp_done(ri, (long)regs_return_value(regs), ETW_EVENT_UDPIP_SEND,
		     ETW_EVENT_UDPIP_SEND_IPV6);
	return 0;
}

/* udp_recvmsg(sk, msg, len, flags, addr_len): a peek or an error queue read moves nothing. */
static int udp_recv_entry(struct kretprobe_instance *ri, struct pt_regs *regs, bool v6)
{
	if (regs_get_kernel_argument(regs, 3) & (MSG_PEEK | MSG_ERRQUEUE))
		return 1;
	return udp_entry(ri, regs, v6);
}

static int udp_recvmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return udp_recv_entry(ri, regs, false);
}

static int udpv6_recvmsg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return udp_recv_entry(ri, regs, true);
}

static int udp_recvmsg_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	net_udp_done(ri, (long)regs_return_value(regs), ETW_EVENT_UDPIP_RECV,
		     ETW_EVENT_UDPIP_RECV_IPV6);
	return 0;
}

struct net_probe {
	const char *symbol;
	kretprobe_handler_t entry, ret;
	enum etw_event_id event;	/* the IPv4 event missing without it */
	const char *lost;		/* and from where, for the log */
	struct kretprobe krp;
	unsigned long missed;		/* nmissed already counted lost */
	bool registered, warned, absent;
};

static struct net_probe net_probes[] = {
	{ "tcp_sendmsg", tcp_sendmsg_entry, tcp_sendmsg_return, ETW_EVENT_TCPIP_SEND,
	  "no TcpIp Send" },
	{ "tcp_recvmsg", tcp_recvmsg_entry, tcp_recvmsg_return, ETW_EVENT_TCPIP_RECV,
	  "no TcpIp Recv" },
	{ "tcp_v4_connect", tcp_v4_connect_entry, tcp_connect_return, ETW_EVENT_TCPIP_CONNECT,
	  "no TcpIp Connect" },
	{ "tcp_v6_connect", tcp_v6_connect_entry, tcp_connect_return,
	  ETW_EVENT_TCPIP_CONNECT_IPV6, "no TcpIp ConnectIPV6" },
	{ "inet_csk_accept", accept_entry, accept_return, ETW_EVENT_TCPIP_ACCEPT,
	  "no TcpIp Accept" },
	{ "tcp_close", tcp_close_entry, tcp_close_return, ETW_EVENT_TCPIP_DISCONNECT,
	  "no TcpIp Disconnect" },
	{ "udp_sendmsg", udp_sendmsg_entry, udp_sendmsg_return, ETW_EVENT_UDPIP_SEND,
	  "no UdpIp Send" },
	{ "udpv6_sendmsg", udpv6_sendmsg_entry, udp_sendmsg_return, ETW_EVENT_UDPIP_SEND_IPV6,
	  "no UdpIp SendIPV6" },
	{ "udp_recvmsg", udp_recvmsg_entry, udp_recvmsg_return, ETW_EVENT_UDPIP_RECV,
	  "no UdpIp Recv" },
	{ "udpv6_recvmsg", udpv6_recvmsg_entry, udp_recvmsg_return, ETW_EVENT_UDPIP_RECV_IPV6,
	  "no UdpIp RecvIPV6" },
};

/*
 * Instances in flight per probe: a recv(2) may wait for data a long
 * time, each waiting call holding one.
 */
static int net_maxactive(void)
{
	return max_t(int, 256, 16 * num_possible_cpus());
}

static void net_absent(struct net_probe *np, bool absent)
{
	if (np->absent == absent)
		return;
	np->absent = absent;
	ntkl_event_absent(np->event, absent);
}

static int register_one(struct net_probe *np)
{
	int ret;

	memset(&np->krp, 0, sizeof(np->krp));
	np->krp.kp.symbol_name = np->symbol;
	np->krp.entry_handler = np->entry;
	np->krp.handler = np->ret;
	np->krp.data_size = sizeof(struct net_data);
	np->krp.maxactive = net_maxactive();
	ret = ntkl_fault_probe() ?: register_kretprobe(&np->krp);
	if (ret == -ENOENT && !np->warned) {
		pr_info("TcpIp: %s not probed (absent): %s\n", np->symbol, np->lost);
		np->warned = true;
	}
	np->registered = !ret;
	np->missed = 0;
	net_absent(np, ret == -ENOENT);
	return ret;
}

/* The calls the probes missed since last asked: lost for every logger taking the events. */
static void count_missed(void)
{
	struct ntkl_logger **loggers;
	unsigned long missed = 0;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(net_probes); i++) {
		struct net_probe *np = &net_probes[i];
		unsigned long now;

		if (!np->registered)
			continue;
		now = (unsigned long)READ_ONCE(np->krp.nmissed) + READ_ONCE(np->krp.kp.nmissed);
		missed += now - np->missed;
		np->missed = now;
	}
	if (!missed)
		return;
	preempt_disable();
	n = ntkl_active_loggers(&loggers);
	for (i = 0; i < n; i++)
		if (net_on(loggers[i]))
			atomic64_add(missed, &loggers[i]->events_lost_extra);
	preempt_enable();
}

static void net_unregister(void)
{
	unsigned int i;

	count_missed();
	for (i = 0; i < ARRAY_SIZE(net_probes); i++) {
		if (!net_probes[i].registered)
			continue;
		unregister_kretprobe(&net_probes[i].krp);
		net_probes[i].registered = false;
	}
}

/*
 * Every probe, or none: one that could not be registered fails the call;
 * a function this kernel does not have is not a failure (its records
 * are missing, as the log and absent_hooks say).
 */
static int net_register(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(net_probes); i++) {
		ret = register_one(&net_probes[i]);
		if (ret && ret != -ENOENT) {
			net_unregister();
			return ret;
		}
	}
	return 0;
}

#else /* !CONFIG_KRETPROBES */

static int net_register(void)
{
	pr_info("TcpIp: this kernel has no kretprobes: only Retransmit\n");
	return 0;
}

static void net_unregister(void)
{
}

static void count_missed(void)
{
}

#endif /* CONFIG_KRETPROBES */

#define NET_TP	1

static DEFINE_MUTEX(net_lock);		/* the probes' registration */
static bool net_attached;

static bool net_wanted(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_TCPIP_SEND))
			return true;
	return false;
}

/* Attach before the set that wants them is seen: they find no logger in the old one. */
static int net_attach(const struct ntkl_active_set *set)
{
	int ret = 0;

	if (!net_wanted(set))
		return 0;
	mutex_lock(&net_lock);
	if (!net_attached) {
		ret = net_register();
		if (!ret) {
			ret = ntkl_tp_set(&ntkl_network_producer, NET_TP, true, NULL);
			if (ret)
				net_unregister();
		}
		net_attached = !ret;
	}
	mutex_unlock(&net_lock);
	return ret;
}

/* Detach once no logger of the set now seen takes them. */
static void net_detach(const struct ntkl_active_set *set)
{
	bool want = net_wanted(set);

	mutex_lock(&net_lock);
	if (net_attached && !want) {
		ntkl_tp_set(&ntkl_network_producer, NET_TP, false, NULL);
		net_unregister();
		net_attached = false;
	} else if (net_attached) {
		count_missed();
	}
	mutex_unlock(&net_lock);
}

static void net_flush(void)
{
	mutex_lock(&net_lock);
	if (net_attached)
		count_missed();
	mutex_unlock(&net_lock);
}

/* A stopping logger hears of the misses before its last buffers close. */
static void net_rundown(struct ntkl_logger *lg, bool end)
{
	if (end && net_on(lg))
		net_flush();
}

static int net_init(void)
{
	get_random_bytes(&net_connid_key, sizeof(net_connid_key));
	return 0;
}

/* Every logger has stopped by now; the tracepoint is the table's to let go. */
static void net_exit(void)
{
	mutex_lock(&net_lock);
	if (net_attached)
		net_unregister();
	net_attached = false;
	mutex_unlock(&net_lock);
}

static struct ntkl_tp net_tps[] = {
	NTKL_TP(tcp_retransmit_skb, NET_TP, "no TcpIp Retransmit"),
};

const struct ntkl_producer ntkl_network_producer = {
	.name = "network",
	.init = net_init,
	.exit = net_exit,
	.tps = net_tps,
	.nr_tps = ARRAY_SIZE(net_tps),
	.attach = net_attach,
	.detach = net_detach,
	.flush = net_flush,
	.rundown = net_rundown,
};
