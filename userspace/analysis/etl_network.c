// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's network section. See etl_network.h.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl_array.h"
#include "etl_json.h"
#include "etl_network.h"
#include "etl_report.h"

/* What a record is, by its opcode less 16 for IPv6. */
enum net_op { NET_SEND, NET_RECV, NET_CONNECT, NET_DISCONNECT, NET_RETRANSMIT, NET_ACCEPT };

struct net_rec {
	int64_t time;
	uint32_t pid, size;
	uint8_t raddr[16], laddr[16];
	uint16_t rport, lport;
	uint8_t op;
	bool udp, v6;
};

struct etl_network_reader {
	const struct etl_filter *flt;
	struct etl_network *n;
	struct etl_error *err;
	struct net_rec *recs;
	size_t nrecs, recs_cap;
	struct etl_span span;
};

static int oom(struct etl_network_reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the network events");
}

/*
 * The layouts' shared start: PID, size, daddr, saddr, dport, sport (the
 * addresses 4 or 16 bytes); *want the payload's size for the hook, 0 if
 * the hook is none of the written ones.
 */
static bool net_kind(uint16_t hook, enum net_op *op, bool *udp, bool *v6, size_t *want)
{
	unsigned int group = hook >> 8, code = hook & 0xff;

	*v6 = code >= 0x1A;
	if (*v6)
		code -= 16;
	if (code < 0x0A || code > 0x0F)
		return false;
	*op = (enum net_op)(code - 0x0A);
	if (group == ETW_GROUP_UDPIP) {
		*udp = true;
		*want = *v6 ? sizeof(struct etw_udpip_v6) : sizeof(struct etw_udpip_v4);
		return *op == NET_SEND || *op == NET_RECV;
	}
	if (group != ETW_GROUP_TCPIP)
		return false;
	*udp = false;
	if (*op == NET_SEND)
		*want = *v6 ? sizeof(struct etw_tcpip_send_v6) : sizeof(struct etw_tcpip_send_v4);
	else if (*op == NET_CONNECT || *op == NET_ACCEPT)
		*want = *v6 ? sizeof(struct etw_tcpip_connect_v6) :
			      sizeof(struct etw_tcpip_connect_v4);
	else
		*want = *v6 ? sizeof(struct etw_tcpip_v6) : sizeof(struct etw_tcpip_v4);
	return true;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct etl_network_reader *rd = ctx;
	size_t want, alen, ports;
	enum net_op op;
	struct net_rec *r;
	bool udp, v6;

	etl_span_add(&rd->span, b, rec);
	if (rec->kind != ETL_KIND_KERNEL || !net_kind(rec->hook_id, &op, &udp, &v6, &want))
		return 0;
	rd->n->any = true;
	rd->n->records++;
	if (rec->payload_len < want) {
		rd->n->bad++;
		return 0;
	}
	r = ETL_ARRAY_PUSH(rd, recs);
	if (!r)
		return oom(rd);
	alen = v6 ? 16 : 4;
	ports = 8 + 2 * alen;
	r->time = rec->timestamp;
	r->pid = etl_le32(rec->payload);
	r->size = etl_le32(rec->payload + 4);
	memcpy(r->raddr, rec->payload + 8, alen);
	memcpy(r->laddr, rec->payload + 8 + alen, alen);
	/* ports in network order, as the wire has them */
	r->rport = (uint16_t)(rec->payload[ports] << 8 | rec->payload[ports + 1]);
	r->lport = (uint16_t)(rec->payload[ports + 2] << 8 | rec->payload[ports + 3]);
	r->op = (uint8_t)op;
	r->udp = udp;
	r->v6 = v6;
	return 0;
}

struct etl_network_reader *etl_network_begin(struct etl_network *n, const struct etl_filter *flt,
					     struct etl_error *err)
{
	struct etl_network_reader *rd = calloc(1, sizeof(*rd));

	memset(n, 0, sizeof(*n));
	if (!rd) {
		etl_error_set(err, "out of memory reading the network events");
		return NULL;
	}
	rd->flt = flt;
	rd->n = n;
	rd->err = err;
	etl_span_init(&rd->span);
	return rd;
}

struct etl_walker etl_network_walker(struct etl_network_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

static bool same_row(const struct etl_network_row *w, const struct net_rec *r)
{
	return w->pid == r->pid && w->udp == r->udp && w->v6 == r->v6 && w->rport == r->rport &&
	       w->lport == r->lport && !memcmp(w->raddr, r->raddr, 16) &&
	       !memcmp(w->laddr, r->laddr, 16);
}

static struct etl_network_row *row(struct etl_network_reader *rd, const struct net_rec *rec,
				   const char *name)
{
	struct etl_network *n = rd->n;
	struct etl_network_row *r;

	for (size_t i = 0; i < n->nrows; i++)
		if (same_row(&n->rows[i], rec))
			return &n->rows[i];
	r = realloc(n->rows, (n->nrows + 1) * sizeof(*r));
	if (!r)
		return NULL;
	n->rows = r;
	r = &n->rows[n->nrows++];
	memset(r, 0, sizeof(*r));
	r->pid = rec->pid;
	r->udp = rec->udp;
	r->v6 = rec->v6;
	memcpy(r->raddr, rec->raddr, 16);
	memcpy(r->laddr, rec->laddr, 16);
	r->rport = rec->rport;
	r->lport = rec->lport;
	snprintf(r->name, sizeof(r->name), "%s", name ? name : rec->pid ? "?" : "Idle");
	return r;
}

static unsigned long long row_bytes(const struct etl_network_row *r)
{
	return r->sent + r->received;
}

static unsigned long row_records(const struct etl_network_row *r)
{
	return r->sends + r->recvs + r->connects + r->accepts + r->disconnects + r->retransmits;
}

static int row_by_bytes(const void *a, const void *b)
{
	const struct etl_network_row *x = a, *y = b;

	if (row_bytes(x) != row_bytes(y))
		return row_bytes(x) > row_bytes(y) ? -1 : 1;
	if (row_records(x) != row_records(y))
		return row_records(x) > row_records(y) ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->lport != y->lport)
		return x->lport < y->lport ? -1 : 1;
	return x->rport < y->rport ? -1 : x->rport > y->rport;
}

/* The collection's window ([a, b], in the file's clock), --time's part of it. */
static void window(const struct etl_file *f, const struct etl_network_reader *rd, int64_t *a,
		   int64_t *b)
{
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;

	etl_span_collection(&rd->span, a, b);
	if (rd->flt && rd->flt->has_time && *b >= *a) {
		int64_t w0 = *a + (int64_t)(rd->flt->start_s * freq);
		int64_t w1 = *a + (int64_t)(rd->flt->end_s * freq);

		*a = w0 > *b ? *b : w0;
		*b = w1 < *b ? w1 : *b;
	}
}

static int tally(struct etl_network_reader *rd, const struct etl_file *f,
		 const struct etl_model *m)
{
	struct etl_network *n = rd->n;
	int64_t a, b;

	window(f, rd, &a, &b);
	for (size_t i = 0; i < rd->nrecs; i++) {
		const struct net_rec *rec = &rd->recs[i];
		const char *name = m ? etl_model_process_name(m, rec->pid) : NULL;
		struct etl_network_row *r;

		if (rec->time < a || rec->time > b)
			continue;
		if (etl_filter_by_thread(rd->flt) &&
		    !etl_filter_thread(rd->flt, UINT32_MAX, rec->pid, NULL, name))
			continue;
		r = row(rd, rec, name);
		if (!r)
			return oom(rd);
		switch ((enum net_op)rec->op) {
		case NET_SEND:
			r->sends++;
			r->sent += rec->size;
			n->sent += rec->size;
			break;
		case NET_RECV:
			r->recvs++;
			r->received += rec->size;
			n->received += rec->size;
			break;
		case NET_CONNECT:
			r->connects++;
			break;
		case NET_DISCONNECT:
			r->disconnects++;
			break;
		case NET_RETRANSMIT:
			r->retransmits++;
			break;
		case NET_ACCEPT:
			r->accepts++;
			break;
		}
	}
	return 0;
}

int etl_network_end(struct etl_network_reader *rd, const struct etl_file *f,
		    const struct etl_model *m)
{
	int ret = 0;

	if (m && rd->nrecs) {
		ret = tally(rd, f, m);
		if (!ret && rd->n->nrows)
			qsort(rd->n->rows, rd->n->nrows, sizeof(*rd->n->rows), row_by_bytes);
	}
	if (ret)
		etl_network_free(rd->n);
	free(rd->recs);
	free(rd);
	return ret;
}

void etl_network_free(struct etl_network *n)
{
	free(n->rows);
	memset(n, 0, sizeof(*n));
}

/* "a.b.c.d:port" or "[v6]:port" */
static const char *endpoint(char *buf, size_t size, bool v6, const uint8_t *addr, uint16_t port)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, size, v6 ? "[%s]:%u" : "%s:%u", a, port);
	return buf;
}

void etl_network_print(FILE *out, const struct etl_network *n, size_t top)
{
	char l[64], r[64];

	if (!n->any)
		return;
	fprintf(out, "\nNetwork: %lu records, %llu bytes sent, %llu received", n->records, n->sent,
		n->received);
	if (n->bad)
		fprintf(out, ", %lu records shorter than their layout", n->bad);
	fprintf(out, "\n");
	if (!n->nrows)
		return;
	fprintf(out, "\nNetwork by bytes, per process and connection (top %zu; TcpIp and UdpIp):\n"
		"%8s %-5s %-30s %-30s %12s %12s %5s %5s %5s %5s  %s\n", top, "pid", "proto", "local",
		"remote", "sent", "received", "conn", "acc", "disc", "retr", "name");
	for (size_t i = 0; i < n->nrows && i < top; i++) {
		const struct etl_network_row *w = &n->rows[i];

		fprintf(out, "%8u %-5s %-30s %-30s %12llu %12llu %5lu %5lu %5lu %5lu  %s\n", w->pid,
			w->udp ? "UDP" : "TCP", endpoint(l, sizeof(l), w->v6, w->laddr, w->lport),
			endpoint(r, sizeof(r), w->v6, w->raddr, w->rport), w->sent, w->received,
			w->connects, w->accepts, w->disconnects, w->retransmits, w->name);
	}
}

void etl_network_print_json(FILE *out, const struct etl_network *n)
{
	char l[64], r[64];

	fprintf(out, "{\"records\": %lu, \"bad\": %lu, \"sent\": %llu, \"received\": %llu,\n    \"connections\": [",
		n->records, n->bad, n->sent, n->received);
	for (size_t i = 0; i < n->nrows; i++) {
		const struct etl_network_row *w = &n->rows[i];

		fprintf(out, "%s\n      {\"pid\": %u, \"name\": ", i ? "," : "", w->pid);
		etl_json_str(out, w->name);
		fprintf(out, ", \"protocol\": \"%s\", \"local\": ", w->udp ? "UDP" : "TCP");
		etl_json_str(out, endpoint(l, sizeof(l), w->v6, w->laddr, w->lport));
		fprintf(out, ", \"remote\": ");
		etl_json_str(out, endpoint(r, sizeof(r), w->v6, w->raddr, w->rport));
		fprintf(out, ", \"sent\": %llu, \"received\": %llu, \"sends\": %lu, \"recvs\": %lu, \"connects\": %lu, \"accepts\": %lu, \"disconnects\": %lu, \"retransmits\": %lu}",
			w->sent, w->received, w->sends, w->recvs, w->connects, w->accepts,
			w->disconnects, w->retransmits);
	}
	fprintf(out, "]}");
}
