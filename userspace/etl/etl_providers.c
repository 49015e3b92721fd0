// SPDX-License-Identifier: GPL-2.0
/*
 * The providers of a file: etl_providers.h says what and why.
 */
#include <stdlib.h>
#include <string.h>

#include "etl_decode.h"
#include "etl_providers.h"
#include "etl_tlg.h"
#include "etl_utf16.h"
#include "uapi/ntkl_events.h"

/* The provider of guid, added if new; NULL if out of memory. */
static struct etl_provider *find(struct etl_providers *p, const uint8_t guid[16])
{
	struct etl_provider *e;

	for (size_t i = 0; i < p->n; i++)
		if (!memcmp(p->items[i].guid, guid, 16))
			return &p->items[i];
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct etl_provider *n = realloc(p->items, cap * sizeof(*n));

		if (!n) {
			p->failed = 1;
			return NULL;
		}
		p->items = n;
		p->cap = cap;
	}
	e = &p->items[p->n++];
	memset(e, 0, sizeof(*e));
	memcpy(e->guid, guid, 16);
	return e;
}

/* ProviderBinaryPath: GuidCount, the GUIDs, BinaryPath (UTF-16). */
static void add_binary(struct etl_providers *p, const struct etl_record *r)
{
	uint32_t count, i;
	char path[sizeof(((struct etl_provider *)0)->binary)];

	if (r->payload_len < 4)
		return;
	memcpy(&count, r->payload, 4);
	if (count > (r->payload_len - 4) / 16)
		return;		/* more GUIDs than the payload holds: not a sound record */
	etl_utf16_to_utf8(r->payload + 4 + 16 * count, r->payload_len - 4 - 16 * count,
			  path, sizeof(path), NULL);
	for (i = 0; i < count; i++) {
		struct etl_provider *e = find(p, r->payload + 4 + 16 * i);

		if (e && !e->binary[0])
			memcpy(e->binary, path, sizeof(path));
	}
}

void etl_providers_add(struct etl_providers *p, const struct etl_record *r)
{
	struct etl_provider *e;

	if (r->kind == ETL_KIND_KERNEL && r->hook_id == ETW_EVENT_PROVIDER_BINARY_PATH_HOOK) {
		add_binary(p, r);
		return;
	}
	if (r->kind != ETL_KIND_EVENT || !r->has_guid)
		return;
	e = find(p, r->guid);
	if (!e)
		return;
	e->events++;
	if (!e->name[0])
		etl_tlg_provider_name(r->ext, r->ext_len, e->name, sizeof(e->name));
}

void etl_providers_print(FILE *out, const struct etl_providers *p)
{
	char guid[48];

	if (!p->n)
		return;
	fprintf(out, "\nProviders:\n");
	fprintf(out, "%8s  %-38s  %s\n", "events", "provider", "name, binary");
	for (size_t i = 0; i < p->n; i++) {
		const struct etl_provider *e = &p->items[i];

		fprintf(out, "%8llu  %-38s  ", (unsigned long long)e->events,
			etl_guid_str(e->guid, guid, sizeof(guid)));
		etl_print_escaped(out, e->name[0] ? e->name : "-", sizeof(e->name), false);
		if (e->binary[0]) {
			fputs(", ", out);
			etl_print_escaped(out, e->binary, sizeof(e->binary), false);
		}
		fputc('\n', out);
	}
	if (p->failed)
		fprintf(out, "(out of memory: more providers than listed)\n");
}

void etl_providers_free(struct etl_providers *p)
{
	free(p->items);
	memset(p, 0, sizeof(*p));
}
