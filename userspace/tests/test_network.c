// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's network section (analysis/etl_network.h) on a synthetic
 * file: TcpIp and UdpIp records name their process in the payload; each
 * process's connection (its two ends) is a row of bytes sent and
 * received, connects, accepts, disconnects, retransmits; IPv6 records
 * (opcode + 16) are rows of their own; a record of PID 0 is Idle's;
 * --pid keeps one process's rows; the text and the JSON say the same; a
 * file without them has no section.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"
#include "report_string.h"

#define CLIENT_PORT	40000
#define SERVER_PORT	5000

/* 127.0.0.1:from to 127.0.0.1:to, in network order as the wire has them */
#define V4_ENDS(p, from, to) do { \
	(p).daddr = htonl(INADDR_LOOPBACK); \
	(p).saddr = htonl(INADDR_LOOPBACK); \
	(p).dport = htons(to); \
	(p).sport = htons(from); \
} while (0)

static void send4(struct synth *s, int64_t t, uint32_t pid, uint32_t size)
{
	struct etw_tcpip_send_v4 p = { .pid = pid, .size = size };

	V4_ENDS(p, CLIENT_PORT, SERVER_PORT);
	synth_record(s, ETW_EVENT_TCPIP_SEND_HOOK, 2, t, &p, sizeof(p));
}

static void plain4(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint32_t size,
		   uint16_t from, uint16_t to)
{
	struct etw_tcpip_v4 p = { .pid = pid, .size = size };

	V4_ENDS(p, from, to);
	synth_record(s, hook, 2, t, &p, sizeof(p));
}

static void conn4(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint16_t from,
		  uint16_t to)
{
	struct etw_tcpip_connect_v4 p = { .pid = pid };

	V4_ENDS(p, from, to);
	synth_record(s, hook, 2, t, &p, sizeof(p));
}

static void udp6(struct synth *s, int64_t t, uint32_t pid, uint32_t size)
{
	struct etw_udpip_v6 p = { .pid = pid, .size = size };

	memcpy(p.daddr, &in6addr_loopback, 16);
	memcpy(p.saddr, &in6addr_loopback, 16);
	p.dport = htons(53);
	p.sport = htons(40001);
	synth_record(s, ETW_EVENT_UDPIP_SEND_IPV6_HOOK, 2, t, &p, sizeof(p));
}

/*
 * Process 300 ("client") connects 40000 to 5000 and sends 1000, 2000 and
 * 3000 bytes, then closes; process 400 ("server") accepts, receives 6000
 * in two reads, closes. A timer retransmits one segment (PID 0). 300 also
 * sends two datagrams of 100 bytes over IPv6, [::1]:40001 to [::1]:53.
 * One Recv is short of its layout (counted bad, not read).
 */
static uint8_t *make_file(size_t *size)
{
	struct synth s;
	uint8_t short_rec[8] = { 0 };

	synth_begin(&s, 4096, 2);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "client");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 400, "server");
	synth_buffer(&s, 1);
	conn4(&s, ETW_EVENT_TCPIP_CONNECT_HOOK, 1000, 300, CLIENT_PORT, SERVER_PORT);
	conn4(&s, ETW_EVENT_TCPIP_ACCEPT_HOOK, 1010, 400, SERVER_PORT, CLIENT_PORT);
	send4(&s, 1100, 300, 1000);
	send4(&s, 1200, 300, 2000);
	plain4(&s, ETW_EVENT_TCPIP_RECV_HOOK, 1250, 400, 3000, SERVER_PORT, CLIENT_PORT);
	send4(&s, 1300, 300, 3000);
	plain4(&s, ETW_EVENT_TCPIP_RETRANSMIT_HOOK, 1350, 0, 3000, CLIENT_PORT, SERVER_PORT);
	plain4(&s, ETW_EVENT_TCPIP_RECV_HOOK, 1400, 400, 3000, SERVER_PORT, CLIENT_PORT);
	synth_record(&s, ETW_EVENT_TCPIP_RECV_HOOK, 2, 1450, short_rec, sizeof(short_rec));
	plain4(&s, ETW_EVENT_TCPIP_DISCONNECT_HOOK, 1500, 300, 0, CLIENT_PORT, SERVER_PORT);
	plain4(&s, ETW_EVENT_TCPIP_DISCONNECT_HOOK, 1510, 400, 0, SERVER_PORT, CLIENT_PORT);
	udp6(&s, 1600, 300, 100);
	udp6(&s, 1700, 300, 100);
	return synth_end(&s, size);
}

static const struct etl_network_row *find(const struct etl_network *n, uint32_t pid,
					  uint16_t lport, bool udp)
{
	for (size_t i = 0; i < n->nrows; i++)
		if (n->rows[i].pid == pid && n->rows[i].lport == lport && n->rows[i].udp == udp)
			return &n->rows[i];
	return NULL;
}

static void test_section(void)
{
	const struct etl_network_row *row;
	struct etl_filter flt;
	struct etl_report r;
	struct etl_error err;
	struct etl_file f;
	char *text = NULL, *json = NULL;
	size_t size;
	uint8_t *img;

	test_begin("bytes_per_connection");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "network.etl", img, size, &err), 0);
	CHECK_EQ(etl_report_read(&f, &r, &err), 0);
	CHECK(r.network.any);
	CHECK_EQ(r.network.records, 13);
	CHECK_EQ(r.network.bad, 1);
	CHECK_EQ(r.network.sent, 6200);
	CHECK_EQ(r.network.received, 6000);
	CHECK_EQ(r.network.nrows, 4);
	row = find(&r.network, 300, CLIENT_PORT, false);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "client");
		CHECK(!row->v6);
		CHECK_EQ(row->rport, SERVER_PORT);
		CHECK_EQ(row->sent, 6000);
		CHECK_EQ(row->sends, 3);
		CHECK_EQ(row->received, 0);
		CHECK_EQ(row->connects, 1);
		CHECK_EQ(row->accepts, 0);
		CHECK_EQ(row->disconnects, 1);
	}
	row = find(&r.network, 400, SERVER_PORT, false);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "server");
		CHECK_EQ(row->rport, CLIENT_PORT);
		CHECK_EQ(row->received, 6000);
		CHECK_EQ(row->recvs, 2);
		CHECK_EQ(row->accepts, 1);
		CHECK_EQ(row->disconnects, 1);
	}
	row = find(&r.network, 0, CLIENT_PORT, false);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "Idle");
		CHECK_EQ(row->retransmits, 1);
		CHECK_EQ(row->sent, 0);
	}
	row = find(&r.network, 300, 40001, true);
	CHECK(row != NULL);
	if (row) {
		CHECK(row->v6);
		CHECK_EQ(row->rport, 53);
		CHECK_EQ(row->sent, 200);
		CHECK_EQ(row->sends, 2);
	}
	/* by bytes, most first: the two ends of the connection, 6000 each */
	CHECK_EQ(r.network.rows[0].pid, 300);
	CHECK_EQ(r.network.rows[0].lport, CLIENT_PORT);
	CHECK_EQ(r.network.rows[1].pid, 400);

	text = report_string(&r, false);
	CHECK(text != NULL);
	CHECK_HAS(text, "Network: 13 records, 6200 bytes sent, 6000 received, 1 records shorter than their layout\n");
	CHECK_HAS(text, "     300 TCP   127.0.0.1:40000                127.0.0.1:5000                         6000            0     1     0     1     0  client\n");
	CHECK_HAS(text, "     300 UDP   [::1]:40001                    [::1]:53                                200            0     0     0     0     0  client\n");
	json = report_string(&r, true);
	CHECK(json != NULL);
	CHECK_HAS(json, "\"network\": {\"records\": 13, \"bad\": 1, \"sent\": 6200, \"received\": 6000,");
	CHECK_HAS(json, "{\"pid\": 400, \"name\": \"server\", \"protocol\": \"TCP\", \"local\": \"127.0.0.1:5000\", \"remote\": \"127.0.0.1:40000\", \"sent\": 0, \"received\": 6000, \"sends\": 0, \"recvs\": 2, \"connects\": 0, \"accepts\": 1, \"disconnects\": 1, \"retransmits\": 0}");
	CHECK_HAS(json, "\"protocol\": \"UDP\", \"local\": \"[::1]:40001\", \"remote\": \"[::1]:53\"");
	free(text);
	free(json);
	etl_report_free(&r);
	test_end();

	test_begin("filtered_by_pid");
	memset(&flt, 0, sizeof(flt));
	flt.pids[flt.npids++] = 400;
	CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
	CHECK_EQ(r.network.nrows, 1);
	CHECK_EQ(r.network.rows[0].pid, 400);
	CHECK_EQ(r.network.sent, 0);
	CHECK_EQ(r.network.received, 6000);
	etl_report_free(&r);
	test_end();

	test_begin("no_network_records");
	{
		struct synth s;
		uint8_t *plain;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "client");
		plain = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "plain.etl", plain, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(!r.network.any);
		CHECK_EQ(r.network.nrows, 0);
		text = NULL;
		text = report_string(&r, false);
		CHECK(text && !strstr(text, "Network:"));
		free(text);
		etl_report_free(&r);
		free(plain);
	}
	test_end();
	etl_close(&f);
	free(img);
}

int main(void)
{
	test_section();
	return test_exit();
}
