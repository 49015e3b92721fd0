/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The providers of a file's EVENT_HEADER events (user-mode providers:
 * libntkl's, Windows' manifest and TraceLogging ones): each one's GUID,
 * its name where its events carry one (PROV_TRAITS), how many events it
 * wrote, and the binary that provides it where a ProviderBinaryPath event
 * (EventTrace 0x0043) names one: the providers enabled for the session,
 * as ETL files record them. ntkl dump prints them under "Providers:".
 */
#ifndef NTKL_ETL_PROVIDERS_H
#define NTKL_ETL_PROVIDERS_H

#include <stdint.h>
#include <stdio.h>

#include "etl_reader.h"

struct etl_provider {
	uint8_t guid[16];
	char name[128];			/* "" if no event of it names it */
	char binary[512];		/* "" if no ProviderBinaryPath names it */
	uint64_t events;
};

struct etl_providers {
	struct etl_provider *items;	/* in the order first seen */
	size_t n, cap;
	int failed;			/* out of memory: the list is short */
};

/* Take what a record says of providers (any record: the rest are skipped). */
void etl_providers_add(struct etl_providers *p, const struct etl_record *r);

/* "Providers:" and a line per provider; nothing if the file has none. */
void etl_providers_print(FILE *out, const struct etl_providers *p);

void etl_providers_free(struct etl_providers *p);

#endif /* NTKL_ETL_PROVIDERS_H */
