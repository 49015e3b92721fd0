/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntkl report's network section (WPA's Network view, xperf -a tcpip in
 * brief): per process and connection, the bytes sent and received, the
 * connects, accepts, disconnects and retransmits.
 *
 *   - TcpIp and UdpIp records name their process in the payload (PID; the
 *     PERFINFO64 header has none), so no switch is needed to attribute
 *     them; a record of PID 0 (a retransmit from a timer) is the "Idle"
 *     process's row, as WPA has it;
 *   - a connection is its protocol, family and two ends as the records
 *     give them (remote daddr:dport, local saddr:sport); a UDP socket's
 *     rows are per peer;
 *   - rows are ordered by bytes (sent and received), then records, most
 *     first.
 *
 * The window and the processes are report's (etl_filter.h): --time keeps
 * the records inside it, --pid and --comm those of the processes they
 * select; --tid selects none (the records have no thread).
 */
#ifndef NTKL_ETL_NETWORK_H
#define NTKL_ETL_NETWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"

struct etl_model;

struct etl_network_row {
	uint32_t pid;
	char name[64];			/* the process's */
	bool udp, v6;
	uint8_t raddr[16], laddr[16];	/* network order; IPv4 the first 4 bytes */
	uint16_t rport, lport;		/* host order */
	unsigned long long sent, received;	/* bytes */
	unsigned long sends, recvs, connects, accepts, disconnects, retransmits;
};

struct etl_network {
	bool any;			/* the file has TcpIp or UdpIp records */
	unsigned long records, bad;	/* bad: shorter than their layout */
	unsigned long long sent, received;	/* over every row */
	struct etl_network_row *rows;	/* by bytes, then records, most first */
	size_t nrows;
};

/*
 * Work out n, of what flt selects (NULL: all), inside a pass with its
 * model (etl_model_read_all()): begin (NULL, err set, out of memory), the
 * walker to add to the pass, then end with the pass's model, or NULL if
 * the walk failed: 0, or -1 with err set. end frees the reader.
 */
struct etl_network_reader *etl_network_begin(struct etl_network *n, const struct etl_filter *flt,
					     struct etl_error *err);
struct etl_walker etl_network_walker(struct etl_network_reader *rd);
int etl_network_end(struct etl_network_reader *rd, const struct etl_file *f,
		    const struct etl_model *m);

void etl_network_free(struct etl_network *n);

/* The section as text (top rows), or as a JSON object's value. */
void etl_network_print(FILE *out, const struct etl_network *n, size_t top);
void etl_network_print_json(FILE *out, const struct etl_network *n);

#endif /* NTKL_ETL_NETWORK_H */
