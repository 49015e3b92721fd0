// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_network_test: NETWORKTRACE (TcpIp, UdpIp) with a known answer.
 * While a PROC_THREAD+NETWORKTRACE logger runs, this process listens on
 * loopback and a child it forks connects, sends XFER_BYTES and closes;
 * this process accepts, reads to the end and closes. Of the records of
 * that connection (its two ports):
 *
 *  - TcpIp Send: the child's, their sizes adding up to XFER_BYTES exactly,
 *    from the child's port to the listener's; none of this process;
 *  - TcpIp Recv: this process's, adding up to XFER_BYTES; none of the child;
 *  - one Connect, the child's, and one Accept, this process's, each with
 *    the connection's two ports the right way round (remote d, local s);
 *  - a Disconnect of each end, by the process that closed it;
 *  - every record PERFINFO64 version 2, of its layout's size.
 *
 * Over IPv4 (127.0.0.1), and over IPv6 (::1, the opcodes + 16) where the
 * guest has it. Then UDP: the child sends NDGRAMS datagrams of DGRAM_BYTES
 * to a socket of this process, which receives them all: NDGRAMS UdpIp Send
 * of the child and NDGRAMS UdpIp Recv of this process, each DGRAM_BYTES,
 * with the ports. Nothing is lost and every capture passes the strict
 * checker (ntkl dump --check's); the kernel log stays clean (vm-run fails
 * the run otherwise). A logger without NETWORKTRACE beside one with it
 * gets no TcpIp record. The kernel's own tracepoints agree, in a tracefs
 * instance of the test's: sock:inet_sock_set_state's moves to ESTABLISHED
 * of the connection (one each way) are the Connect and the Accept, and
 * tcp:tcp_retransmit_skb's of its ports are its Retransmit records.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define XFER_BYTES	(10u << 20)
#define CHUNK		65536
#define NDGRAMS		64
#define DGRAM_BYTES	1000

#define NET_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_NETWORK_TCPIP)

/* What one connection's (or one pair of UDP sockets') records add up to. */
struct net_tally {
	uint16_t server_port, client_port;	/* host order */
	pid_t server, client;
	bool v6;
	unsigned long long sent, received;	/* by the right process */
	unsigned long sends_other, recvs_other;	/* by the wrong one, or wrong ports */
	unsigned long sends, recvs;
	unsigned long connects, accepts, connects_bad, accepts_bad;
	unsigned long disconnects_client, disconnects_server, disconnects_other;
	unsigned long retransmits;
	unsigned long udp_sends, udp_recvs, udp_bad;
	unsigned long bad_header, bad_size;
	struct capture_verdict verdict;
};

struct net_rec {
	uint32_t pid, size;
	uint16_t dport, sport;		/* host order */
	bool v6;
};

/* The fields every layout has at the same place before the addresses, and the ports after. */
static bool net_read(const struct etl_record *r, size_t want, bool v6, struct net_rec *out)
{
	const uint8_t *p = r->payload;
	size_t ports = v6 ? 40 : 16;
	uint16_t d, s;

	if (r->payload_len != want)
		return false;
	memcpy(&out->pid, p, 4);
	memcpy(&out->size, p + 4, 4);
	memcpy(&d, p + ports, 2);
	memcpy(&s, p + ports + 2, 2);
	out->dport = ntohs(d);
	out->sport = ntohs(s);
	out->v6 = v6;
	return true;
}

struct net_kind {
	uint16_t hook;
	size_t size;
	bool v6;
};

static const struct net_kind net_kinds[] = {
	{ ETW_EVENT_TCPIP_SEND_HOOK, sizeof(struct etw_tcpip_send_v4), false },
	{ ETW_EVENT_TCPIP_RECV_HOOK, sizeof(struct etw_tcpip_v4), false },
	{ ETW_EVENT_TCPIP_CONNECT_HOOK, sizeof(struct etw_tcpip_connect_v4), false },
	{ ETW_EVENT_TCPIP_DISCONNECT_HOOK, sizeof(struct etw_tcpip_v4), false },
	{ ETW_EVENT_TCPIP_RETRANSMIT_HOOK, sizeof(struct etw_tcpip_v4), false },
	{ ETW_EVENT_TCPIP_ACCEPT_HOOK, sizeof(struct etw_tcpip_connect_v4), false },
	{ ETW_EVENT_TCPIP_SEND_IPV6_HOOK, sizeof(struct etw_tcpip_send_v6), true },
	{ ETW_EVENT_TCPIP_RECV_IPV6_HOOK, sizeof(struct etw_tcpip_v6), true },
	{ ETW_EVENT_TCPIP_CONNECT_IPV6_HOOK, sizeof(struct etw_tcpip_connect_v6), true },
	{ ETW_EVENT_TCPIP_DISCONNECT_IPV6_HOOK, sizeof(struct etw_tcpip_v6), true },
	{ ETW_EVENT_TCPIP_RETRANSMIT_IPV6_HOOK, sizeof(struct etw_tcpip_v6), true },
	{ ETW_EVENT_TCPIP_ACCEPT_IPV6_HOOK, sizeof(struct etw_tcpip_connect_v6), true },
	{ ETW_EVENT_UDPIP_SEND_HOOK, sizeof(struct etw_udpip_v4), false },
	{ ETW_EVENT_UDPIP_RECV_HOOK, sizeof(struct etw_udpip_v4), false },
	{ ETW_EVENT_UDPIP_SEND_IPV6_HOOK, sizeof(struct etw_udpip_v6), true },
	{ ETW_EVENT_UDPIP_RECV_IPV6_HOOK, sizeof(struct etw_udpip_v6), true },
};

/* The connection's: from client to server (Send, Connect) or back (Recv, Accept). */
static bool from_client(const struct net_tally *t, const struct net_rec *n)
{
	return n->sport == t->client_port && n->dport == t->server_port;
}

static bool from_server(const struct net_tally *t, const struct net_rec *n)
{
	return n->sport == t->server_port && n->dport == t->client_port;
}

static void tally_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct net_tally *t = ctx;
	const struct net_kind *k = NULL;
	struct net_rec n;
	uint16_t op;
	size_t i;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	for (i = 0; i < sizeof(net_kinds) / sizeof(net_kinds[0]); i++)
		if (net_kinds[i].hook == r->hook_id)
			k = &net_kinds[i];
	if (!k)
		return;
	t->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->version != 2;
	if (!net_read(r, k->size, k->v6, &n)) {
		t->bad_size++;
		return;
	}
	/* the other family's, or another connection's */
	if (n.v6 != t->v6 || (!from_client(t, &n) && !from_server(t, &n)))
		return;
	op = r->hook_id & 0xff;
	if (k->v6)
		op -= 16;
	if ((r->hook_id >> 8) == ETW_GROUP_UDPIP) {
		if (op == 0x0A && n.pid == (uint32_t)t->client && from_client(t, &n) &&
		    n.size == DGRAM_BYTES)
			t->udp_sends++;
		else if (op == 0x0B && n.pid == (uint32_t)t->server && from_server(t, &n) &&
			 n.size == DGRAM_BYTES)
			t->udp_recvs++;
		else
			t->udp_bad++;
		return;
	}
	switch (op) {
	case 0x0A:	/* Send */
		if (n.pid == (uint32_t)t->client && from_client(t, &n)) {
			t->sent += n.size;
			t->sends++;
		} else {
			t->sends_other++;
		}
		break;
	case 0x0B:	/* Recv */
		if (n.pid == (uint32_t)t->server && from_server(t, &n)) {
			t->received += n.size;
			t->recvs++;
		} else {
			t->recvs_other++;
		}
		break;
	case 0x0C:	/* Connect */
		if (n.pid == (uint32_t)t->client && from_client(t, &n))
			t->connects++;
		else
			t->connects_bad++;
		break;
	case 0x0F:	/* Accept */
		if (n.pid == (uint32_t)t->server && from_server(t, &n))
			t->accepts++;
		else
			t->accepts_bad++;
		break;
	case 0x0E:	/* Retransmit: either end's */
		t->retransmits++;
		break;
	case 0x0D:	/* Disconnect */
		if (n.pid == (uint32_t)t->client && from_client(t, &n))
			t->disconnects_client++;
		else if (n.pid == (uint32_t)t->server && from_server(t, &n))
			t->disconnects_server++;
		else
			t->disconnects_other++;
		break;
	}
}

static uint16_t local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
						((struct sockaddr_in *)&ss)->sin_port);
}

/*
 * The guest's init leaves lo down: a connect to 127.0.0.1 would wait for
 * a SYN that never leaves. Up, it has 127.0.0.1 and (with IPv6) ::1.
 */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
		usleep(100000);		/* IPv6 gives ::1 to lo as it comes up */
	}
	close(fd);
}

/* A wait that would otherwise never end fails the test instead. */
static void bounded(int fd)
{
	struct timeval tv = { .tv_sec = 120 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A socket bound to loopback's address of the family, port 0 (any); -1 if none. */
static int loopback_socket(bool v6, int type, struct sockaddr_storage *ss, socklen_t *len)
{
	int fd;

	loopback_up();
	fd = socket(v6 ? AF_INET6 : AF_INET, type, 0);

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*s4);
	}
	if (fd < 0)
		return -1;
	bounded(fd);
	if (bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The child: connect, send XFER_BYTES, close. */
static int tcp_client(const struct sockaddr_storage *to, socklen_t len)
{
	static char buf[CHUNK];
	unsigned int left = XFER_BYTES;
	int fd = socket(to->ss_family, SOCK_STREAM, 0);

	memset(buf, 'n', sizeof(buf));
	if (fd < 0)
		return 1;
	bounded(fd);
	if (connect(fd, (const struct sockaddr *)to, len))
		return 1;
	while (left) {
		ssize_t n = send(fd, buf, left < CHUNK ? left : CHUNK, 0);

		if (n <= 0)
			return 2;
		left -= (unsigned int)n;
	}
	return close(fd) ? 3 : 0;
}

/* One connection, client a child, server this process: 0, or why not. */
static const char *tcp_exchange(bool v6, struct net_tally *t)
{
	static char buf[CHUNK];
	struct sockaddr_storage ss;
	unsigned long long got = 0;
	socklen_t len;
	int lfd, fd, status;
	ssize_t n;
	pid_t pid;

	lfd = loopback_socket(v6, SOCK_STREAM, &ss, &len);
	if (lfd < 0)
		return "no loopback address";
	if (listen(lfd, 1))
		return "listen";
	t->server_port = local_port(lfd);
	t->server = getpid();
	pid = fork();
	if (pid < 0)
		return "fork";
	if (!pid)
		_exit(tcp_client(&ss, len));
	t->client = pid;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return "accept";
	bounded(fd);
	len = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &len))
		return "getpeername";
	t->client_port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
				    ((struct sockaddr_in *)&ss)->sin_port);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		got += (unsigned long long)n;
	close(fd);
	close(lfd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return "the client failed";
	return got == XFER_BYTES ? NULL : "short transfer";
}

/* NDGRAMS datagrams from a child's socket to one of this process. */
static const char *udp_exchange(bool v6, struct net_tally *t)
{
	struct sockaddr_storage ss, from;
	char buf[DGRAM_BYTES + 1];
	socklen_t len, flen;
	int fd, status, i;
	pid_t pid;

	fd = loopback_socket(v6, SOCK_DGRAM, &ss, &len);
	if (fd < 0)
		return "no loopback address";
	t->server_port = local_port(fd);
	t->server = getpid();
	pid = fork();
	if (pid < 0)
		return "fork";
	if (!pid) {
		struct sockaddr_storage me;
		socklen_t mlen;
		int c = loopback_socket(v6, SOCK_DGRAM, &me, &mlen);

		memset(buf, 'u', sizeof(buf));
		for (i = 0; c >= 0 && i < NDGRAMS; i++)
			if (sendto(c, buf, DGRAM_BYTES, 0, (struct sockaddr *)&ss, len) !=
			    DGRAM_BYTES)
				_exit(1);
		_exit(c < 0);
	}
	t->client = pid;
	for (i = 0; i < NDGRAMS; i++) {
		flen = sizeof(from);
		if (recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen) !=
		    DGRAM_BYTES)
			return "recvfrom";
		t->client_port = ntohs(v6 ? ((struct sockaddr_in6 *)&from)->sin6_port :
					    ((struct sockaddr_in *)&from)->sin_port);
	}
	close(fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return "the sender failed";
	return NULL;
}

/* The kernel's own view, from a tracefs instance: its events' lines of the connection. */
#define NET_INSTANCE	"/sys/kernel/tracing/instances/ntkl_network_test"

struct kernel_view {
	bool on;
	unsigned long established_client, established_server, retransmits;
};

static bool kernel_view_start(void)
{
	rmdir(NET_INSTANCE);
	if (mkdir(NET_INSTANCE, 0755))
		return false;
	if (write_file(NET_INSTANCE "/events/sock/inet_sock_set_state/enable", "1") ||
	    write_file(NET_INSTANCE "/events/tcp/tcp_retransmit_skb/enable", "1")) {
		rmdir(NET_INSTANCE);
		return false;
	}
	return true;
}

/* Count its lines of the connection's ports, then remove the instance. */
static void kernel_view_end(const struct net_tally *t, struct kernel_view *k)
{
	char line[1024], c2s[64], s2c[64];
	FILE *f;

	snprintf(c2s, sizeof(c2s), "sport=%u dport=%u ", t->client_port, t->server_port);
	snprintf(s2c, sizeof(s2c), "sport=%u dport=%u ", t->server_port, t->client_port);
	write_file(NET_INSTANCE "/tracing_on", "0");
	f = fopen(NET_INSTANCE "/trace", "r");
	while (f && fgets(line, sizeof(line), f)) {
		bool mine_c = strstr(line, c2s), mine_s = strstr(line, s2c);

		if (strstr(line, "tcp_retransmit_skb:") && (mine_c || mine_s))
			k->retransmits++;
		if (!strstr(line, "inet_sock_set_state:") ||
		    !strstr(line, "newstate=TCP_ESTABLISHED"))
			continue;
		k->established_client += mine_c;
		k->established_server += mine_s;
	}
	if (f)
		fclose(f);
	write_file(NET_INSTANCE "/events/enable", "0");
	rmdir(NET_INSTANCE);
}

NTKL_READER_FIXTURE(network);

/* A kernel built without networking (the debug kernel: CONFIG_NET off) has nothing to record. */
static bool have_inet(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd >= 0)
		close(fd);
	/* no socket(2) at all without CONFIG_NET; no AF_INET without CONFIG_INET */
	return fd >= 0 || (errno != ENOSYS && errno != EAFNOSUPPORT);
}

#define NEED_INET() do { \
	if (!have_inet()) \
		SKIP(return, "this kernel has no IPv4 sockets (CONFIG_NET or CONFIG_INET off)"); \
} while (0)

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, uint32_t flags, struct drain_job *job, pthread_t *th)
{
	struct ntkl_properties p;

	props_init(&p, name, flags);
	p.buffer_size_kb = 1024;
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	memset(job, 0, sizeof(*job));
	job->fd = reader;
	job->size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(th, NULL, drain_thread, job));
}

static void stop_logger(struct __test_metadata *_metadata, int ctl, const char *name,
			struct drain_job *job, pthread_t th)
{
	struct ntkl_properties final = { .size = sizeof(final) };

	ASSERT_EQ(0, ntkl_stop_name(ctl, name));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, job->ret);
	ASSERT_EQ(0, ntkl_ctl(job->fd, NTKL_IOC_QUERY, &final));
	capture_patch(&job->c, &final);
	EXPECT_EQ(0, final.events_lost);
}

static void tcp_case(struct __test_metadata *_metadata, int ctl, int reader, bool v6)
{
	const char *out = v6 ? "/out/ntkl_network_test_tcp6.etl" :
			       "/out/ntkl_network_test_tcp4.etl";
	struct net_tally t = { .v6 = v6 };
	struct kernel_view k = { };
	struct drain_job job;
	const char *why;
	pthread_t th;

	NEED_INET();
	k.on = kernel_view_start();
	start_logger(_metadata, ctl, reader, "selftest network", NET_FLAGS, &job, &th);
	why = tcp_exchange(v6, &t);
	stop_logger(_metadata, ctl, "selftest network", &job, th);
	if (k.on)
		kernel_view_end(&t, &k);
	if (why && v6 && !strcmp(why, "no loopback address")) {
		capture_free(&job.c);
		SKIP(return, "the guest has no ::1");
	}
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	capture_write(&job.c, out);
	ASSERT_EQ(0, capture_walk(&job.c, tally_record, &t, &t.verdict));
	TH_LOG("%s: client %d port %u, server %d port %u: %lu sends %llu bytes, %lu recvs %llu bytes (%lu, %lu others), connect %lu/%lu bad, accept %lu/%lu bad, disconnect %lu client %lu server %lu other",
	       v6 ? "IPv6" : "IPv4", t.client, t.client_port, t.server, t.server_port, t.sends,
	       t.sent, t.recvs, t.received, t.sends_other, t.recvs_other, t.connects,
	       t.connects_bad, t.accepts, t.accepts_bad, t.disconnects_client,
	       t.disconnects_server, t.disconnects_other);
	EXPECT_EQ(0, t.verdict.violations) TH_LOG("checker: %s", t.verdict.first_violation);
	EXPECT_EQ(0, t.bad_header);
	EXPECT_EQ(0, t.bad_size);
	EXPECT_EQ(XFER_BYTES, t.sent);
	EXPECT_EQ(XFER_BYTES, t.received);
	EXPECT_EQ(0, t.sends_other);
	EXPECT_EQ(0, t.recvs_other);
	EXPECT_EQ(1, t.connects);
	EXPECT_EQ(0, t.connects_bad);
	EXPECT_EQ(1, t.accepts);
	EXPECT_EQ(0, t.accepts_bad);
	EXPECT_EQ(1, t.disconnects_client);
	EXPECT_EQ(1, t.disconnects_server);
	EXPECT_EQ(0, t.disconnects_other);
	if (k.on) {
		TH_LOG("tracefs: ESTABLISHED %lu client, %lu server; %lu retransmits (ntkl %lu)",
		       k.established_client, k.established_server, k.retransmits, t.retransmits);
		EXPECT_EQ(k.established_client, t.connects);
		EXPECT_EQ(k.established_server, t.accepts);
		EXPECT_EQ(k.retransmits, t.retransmits);
	} else {
		TH_LOG("no tracefs instance: the kernel's own view not compared");
	}
	capture_free(&job.c);
}

TEST_F_TIMEOUT(network, tcp_ipv4, 300)
{
	tcp_case(_metadata, self->ctl, self->reader, false);
}

TEST_F_TIMEOUT(network, tcp_ipv6, 300)
{
	tcp_case(_metadata, self->ctl, self->reader, true);
}

TEST_F_TIMEOUT(network, udp_ipv4, 300)
{
	struct net_tally t = { .v6 = false };
	struct drain_job job;
	const char *why;
	pthread_t th;

	NEED_INET();
	start_logger(_metadata, self->ctl, self->reader, "selftest network", NET_FLAGS, &job,
		     &th);
	why = udp_exchange(false, &t);
	stop_logger(_metadata, self->ctl, "selftest network", &job, th);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	capture_write(&job.c, "/out/ntkl_network_test_udp4.etl");
	ASSERT_EQ(0, capture_walk(&job.c, tally_record, &t, &t.verdict));
	TH_LOG("UDP: sender %d port %u, receiver %d port %u: %lu sends, %lu recvs, %lu other",
	       t.client, t.client_port, t.server, t.server_port, t.udp_sends, t.udp_recvs,
	       t.udp_bad);
	EXPECT_EQ(0, t.verdict.violations) TH_LOG("checker: %s", t.verdict.first_violation);
	EXPECT_EQ(0, t.bad_header);
	EXPECT_EQ(0, t.bad_size);
	EXPECT_EQ(NDGRAMS, t.udp_sends);
	EXPECT_EQ(NDGRAMS, t.udp_recvs);
	EXPECT_EQ(0, t.udp_bad);
	capture_free(&job.c);
}

/* A logger without NETWORKTRACE, beside one with it, gets no TcpIp record. */
TEST_F_TIMEOUT(network, only_network_loggers, 300)
{
	struct net_tally t = { .v6 = false };
	struct drain_job job, other;
	pthread_t th, th2;
	int reader2;

	NEED_INET();
	reader2 = ntkl_open();
	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, "selftest network", NET_FLAGS, &job,
		     &th);
	start_logger(_metadata, self->ctl, reader2, "selftest no network",
		     EVENT_TRACE_FLAG_PROCESS, &other, &th2);
	ASSERT_EQ(NULL, tcp_exchange(false, &t));
	stop_logger(_metadata, self->ctl, "selftest no network", &other, th2);
	stop_logger(_metadata, self->ctl, "selftest network", &job, th);
	EXPECT_LE(1, capture_count_hook(&job.c, ETW_EVENT_TCPIP_SEND_HOOK));
	EXPECT_EQ(0, capture_count_hook(&other.c, ETW_EVENT_TCPIP_SEND_HOOK));
	EXPECT_EQ(0, capture_count_hook(&other.c, ETW_EVENT_TCPIP_RECV_HOOK));
	close(reader2);
	capture_free(&job.c);
	capture_free(&other.c);
}

TEST_HARNESS_MAIN
