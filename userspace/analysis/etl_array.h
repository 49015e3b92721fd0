/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The growing arrays the report's section readers keep their records in
 * (one record a matching event, read in file order, sorted at the end).
 */
#ifndef NTKL_ETL_ARRAY_H
#define NTKL_ETL_ARRAY_H

#include <stdlib.h>
#include <string.h>

/*
 * Room for one more of *v's *n elements of elem bytes, the capacity *cap
 * doubled when full: the new element, zeroed and counted in *n; NULL,
 * with nothing changed, if out of memory.
 */
static inline void *etl_array_push(void **v, size_t *n, size_t *cap, size_t elem)
{
	void *e;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *p = realloc(*v, c * elem);

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	e = (char *)*v + (*n)++ * elem;
	memset(e, 0, elem);
	return e;
}

/* The same for an array field of a struct: its count nfield, its capacity field_cap. */
#define ETL_ARRAY_PUSH(s, field)						\
	etl_array_push((void **)&(s)->field, &(s)->n##field, &(s)->field##_cap,	\
		       sizeof(*(s)->field))

#endif
