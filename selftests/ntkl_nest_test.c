// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_nest_test: writers nested on one CPU. With every workload pinned to
 * CPU 0, a CSWITCH + DISPATCHER logger gets records from task context
 * (switches, and wake-ups through pipes), from hard interrupts (timer
 * wake-ups of sleeping threads: hrtimer expiry) and from soft interrupts
 * (a UDP socket pair on loopback: the receiver is woken from NET_RX), all
 * at once, so writers interrupt each other inside the buffer code. The
 * file must hold no corrupt record (ntkl's strict checker: sizes, layouts,
 * records in time order in every buffer), wake-ups from both kinds of
 * context must be there (ReadyThread's ReadiedFromDPC flag tells them
 * apart), and events lost must be counted exactly where the buffers say
 * so: EventsLost is 0 if and only if no buffer carries EVENTS_LOST.
 * (The debug kernel is built without networking: there the soft
 * interrupts' part is left out, and the log says so.)
 *
 * (NMI-context writes need a PMU, which the TCG test VM does not have:
 * userspace/tests/test_nested_writers.c runs the buffer code with writers
 * nested four deep, NMI included, at every step instead.)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest nest"
#define SECONDS		3

static volatile int stop;

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Task context: a pipe ping-pong between two threads. */
static int pipes[2][2];

static void *pinger(void *arg)
{
	int side = (int)(long)arg;
	char c = 'x';

	pin_cpu0();
	while (!stop) {
		if (side == 0 && (write(pipes[0][1], &c, 1) != 1 || read(pipes[1][0], &c, 1) != 1))
			break;
		if (side == 1 && (read(pipes[0][0], &c, 1) != 1 || write(pipes[1][1], &c, 1) != 1))
			break;
	}
	return NULL;
}

/* Hard interrupts: threads woken by hrtimers every 50 us. */
static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 50000 };

	pin_cpu0();
	while (!stop)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return NULL;
}

/* Soft interrupts: UDP on loopback; the receiver is woken from NET_RX. */
static int udp_rx, udp_tx;
static struct sockaddr_in udp_to;

static void *udp_receiver(void *arg)
{
	char buf[64];

	pin_cpu0();
	while (!stop)
		if (recv(udp_rx, buf, sizeof(buf), 0) < 0)
			break;
	return NULL;
}

static void *udp_sender(void *arg)
{
	char buf[32] = "nest";

	pin_cpu0();
	while (!stop)
		sendto(udp_tx, buf, sizeof(buf), 0, (struct sockaddr *)&udp_to, sizeof(udp_to));
	return NULL;
}

static int udp_setup(void)
{
	struct timeval tv = { 0, 100000 };
	socklen_t len = sizeof(udp_to);

	udp_rx = socket(AF_INET, SOCK_DGRAM, 0);
	udp_tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (udp_rx < 0 || udp_tx < 0)
		return -1;
	memset(&udp_to, 0, sizeof(udp_to));
	udp_to.sin_family = AF_INET;
	udp_to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(udp_rx, (struct sockaddr *)&udp_to, sizeof(udp_to)) ||
	    getsockname(udp_rx, (struct sockaddr *)&udp_to, &len))
		return -1;
	/* a receiver blocked when the senders stop still wakes up */
	return setsockopt(udp_rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

struct nest_view {
	struct capture_verdict verdict;
	unsigned int cswitch, ready, ready_from_irq, lost_flags;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct nest_view *v = ctx;
	const struct etw_ready_thread *rt;

	if (!r) {
		v->lost_flags += !!(b->hdr.buffer_flag & ETW_BUFFER_FLAG_EVENTS_LOST);
		return;
	}
	if (r->kind != ETL_KIND_KERNEL)
		return;
	v->cswitch += r->hook_id == ETW_EVENT_CSWITCH_HOOK;
	if (r->hook_id != ETW_EVENT_READY_THREAD_HOOK || r->payload_len < sizeof(*rt))
		return;
	rt = (const void *)r->payload;
	v->ready++;
	v->ready_from_irq += !!(rt->flag & ETW_READY_THREAD_READIED_FROM_DPC);
}

/* a failed case leaves no logger running into the next (ntkl_util.h) */
NTKL_READER_FIXTURE(nest);

TEST_F_TIMEOUT(nest, task_softirq_hardirq_on_one_cpu, 180)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	pthread_t th[6], rd;
	struct drain_job d = { 0 };
	struct nest_view v;
	bool udp;
	int i;

	ASSERT_EQ(0, pipe(pipes[0]));
	ASSERT_EQ(0, pipe(pipes[1]));
	udp = !udp_setup();
	if (!udp)
		TH_LOG("no UDP on this kernel (%s): no wake-ups from soft interrupts",
		       strerror(errno));
	props_init(&p, LOGGER, EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER);
	p.buffer_size_kb = 8;		/* small buffers: many switches between them */
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	d.fd = self->reader;
	d.size = p.buffer_size_kb * 1024;
	/* the reader drains while the writers run, so buffers cycle */
	pthread_create(&rd, NULL, drain_thread, &d);

	stop = 0;
	pthread_create(&th[0], NULL, pinger, (void *)0L);
	pthread_create(&th[1], NULL, pinger, (void *)1L);
	pthread_create(&th[2], NULL, sleeper, NULL);
	pthread_create(&th[3], NULL, sleeper, NULL);
	if (udp) {
		pthread_create(&th[4], NULL, udp_receiver, NULL);
		pthread_create(&th[5], NULL, udp_sender, NULL);
	}
	sleep(SECONDS);
	stop = 1;
	/* unblock the ping-pong and the receiver */
	close(pipes[0][1]);
	close(pipes[1][1]);
	for (i = 0; i < (udp ? 6 : 4); i++)
		pthread_join(th[i], NULL);

	ASSERT_EQ(0, ntkl_stop_name(self->ctl, LOGGER));
	pthread_join(rd, NULL);
	ASSERT_EQ(0, d.ret);
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&d.c, &final);

	memset(&v, 0, sizeof(v));
	ASSERT_EQ(0, capture_walk(&d.c, view_record, &v, &v.verdict))
		TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_GT(v.cswitch, 1000);
	/* wake-ups from task context and from interrupts, both recorded */
	EXPECT_GT(v.ready - v.ready_from_irq, 100);
	EXPECT_GT(v.ready_from_irq, 100);
	/* losses counted where the buffers flag them, and only there */
	EXPECT_EQ(final.events_lost == 0, v.lost_flags == 0)
		TH_LOG("EventsLost %llu, %u buffers flagged",
		       (unsigned long long)final.events_lost, v.lost_flags);
	TH_LOG("%u CSwitch, %u ReadyThread (%u from interrupts), %llu lost, %u buffers",
	       v.cswitch, v.ready, v.ready_from_irq, (unsigned long long)final.events_lost,
	       d.c.buffers);
	capture_free(&d.c);
	if (udp) {
		close(udp_rx);
		close(udp_tx);
	}
}

TEST_HARNESS_MAIN
