// SPDX-License-Identifier: GPL-2.0
/*
 * libntkl's example: N threads each do units of work and log a
 * UnitBegin / UnitEnd event pair around each one (opcode Start / Stop,
 * fields unit and thread) to a private logger's ETL file.
 *
 *   units [-o FILE.etl] [-t THREADS] [-n UNITS] [-w WORK_US] [-c]
 *
 * -c writes the file compressed. The selftest (selftests/
 * ntkl_libntkl_test.c) runs it under `ntkl record -on CSWITCH+PROC_THREAD`
 * and checks each unit against the kernel's context switches.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libntkl.h"

/* {6e746b6c-756e-6974-7300-000000000001}, as files store it */
static const uint8_t units_guid[16] = {
	0x6c, 0x6b, 0x74, 0x6e, 0x6e, 0x75, 0x74, 0x69,
	0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static struct ntkl_um_provider *prov;
static struct ntkl_um_schema begin_schema, end_schema;
static int units = 20, work_us = 2000;

static void busy(int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker(void *arg)
{
	uint32_t thread = (uint32_t)(uintptr_t)arg;
	struct ntkl_um_descriptor begin = { .id = 1, .level = 4, .opcode = 1 /* Start */ };
	struct ntkl_um_descriptor end = { .id = 2, .level = 4, .opcode = 2 /* Stop */ };

	for (uint32_t u = 0; u < (uint32_t)units; u++) {
		struct ntkl_um_field f[] = {
			{ "unit", NTKL_UM_UINT32, &u, 4 },
			{ "thread", NTKL_UM_UINT32, &thread, 4 },
		};

		ntkl_um_write(prov, &begin, &begin_schema, f, 2);
		busy(work_us);
		/* and a sleep, so the unit's thread switches out and in */
		usleep(200);
		ntkl_um_write(prov, &end, &end_schema, f, 2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ntkl_um_properties props = { .size = sizeof(props) };
	struct ntkl_um_logger *lg;
	const char *file = "units.etl";
	int threads = 4, opt, i;
	pthread_t t[64];

	while ((opt = getopt(argc, argv, "o:t:n:w:c")) != -1) {
		switch (opt) {
		case 'o': file = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'n': units = atoi(optarg); break;
		case 'w': work_us = atoi(optarg); break;
		case 'c': props.log_file_mode |= NTKL_UM_MODE_COMPRESSED; break;
		default:
			fprintf(stderr, "usage: units [-o FILE.etl] [-t THREADS] [-n UNITS] [-w WORK_US] [-c]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "units: -t %d: give 1..64 threads\n", threads);
		return 2;
	}
	struct ntkl_um_field fields[] = {
		{ "unit", NTKL_UM_UINT32, NULL, 0 }, { "thread", NTKL_UM_UINT32, NULL, 0 },
	};
	if (ntkl_um_start(&lg, "units", file, &props) ||
	    ntkl_um_register(lg, "ntkl-units", units_guid, 0, 0, &prov) ||
	    ntkl_um_schema(&begin_schema, "UnitBegin", fields, 2) ||
	    ntkl_um_schema(&end_schema, "UnitEnd", fields, 2)) {
		fprintf(stderr, "units: %s\n", ntkl_um_last_error());
		return 1;
	}
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	ntkl_um_unregister(prov);
	if (ntkl_um_stop(lg, &props)) {
		fprintf(stderr, "units: %s\n", ntkl_um_last_error());
		return 1;
	}
	printf("units: %d units on %d threads: %llu events in %llu buffers, %llu lost, %s\n",
	       units, threads, (unsigned long long)props.events_written,
	       (unsigned long long)props.buffers_written,
	       (unsigned long long)props.events_lost, file);
	return 0;
}
