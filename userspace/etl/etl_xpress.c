// SPDX-License-Identifier: GPL-2.0
/*
 * [MS-XCA] plain LZ77: decompression (section 2.4) and compression
 * (section 2.3), for compressed ETL buffers.
 *
 * The decoder checks every read against the input's end and every write
 * against the output's: the spec asks for an error "if the code reads or
 * writes outside the provided buffers", and a corrupt ETL file must give
 * a message, not a crash.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "etl_xpress.h"

#define XPRESS_MIN_MATCH	3
#define XPRESS_WINDOW		8192		/* distance - 1 has 13 bits */
#define XPRESS_FLAG_BITS	32
/* A length of 7 + 15 + 255 or more is escaped to 16 bits of length - 3. */
#define XPRESS_LONG_ESCAPE	(7 + 15)
#define XPRESS_MAX_MATCH	(0xFFFF + XPRESS_MIN_MATCH)
#define NO_HALF_BYTE		SIZE_MAX

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

static int fail(struct etl_xpress_error *err, const char *what, size_t in_pos,
		size_t out_pos)
{
	err->what = what;
	err->in_pos = in_pos;
	err->out_pos = out_pos;
	return -1;
}

/*
 * A match's length from its 3 low bits onwards (section 2.4.4); *ip is
 * past the 16-bit match word. Returns 0 when the input ends inside it or
 * an escaped length is impossible (err set).
 */
static size_t match_length(const uint8_t *in, size_t in_len, size_t *ip,
			   size_t *half, uint32_t low3, size_t op,
			   struct etl_xpress_error *err)
{
	size_t len = low3;

	if (len < 7)
		return len + XPRESS_MIN_MATCH;
	/* Two long matches share one byte: low nibble first, then high. */
	if (*half == NO_HALF_BYTE) {
		if (*ip >= in_len)
			return fail(err, "the input ends inside a match length", *ip, op), 0;
		*half = *ip;
		len = in[(*ip)++] & 0x0F;
	} else {
		len = in[*half] >> 4;
		*half = NO_HALF_BYTE;
	}
	if (len == 15) {
		if (*ip >= in_len)
			return fail(err, "the input ends inside a match length", *ip, op), 0;
		len = in[(*ip)++];
		if (len == 255) {
			if (in_len - *ip < 2)
				return fail(err, "the input ends inside a match length", *ip, op), 0;
			len = le16(in + *ip);
			*ip += 2;
			if (len == 0) {
				if (in_len - *ip < 4)
					return fail(err, "the input ends inside a match length",
						    *ip, op), 0;
				len = le32(in + *ip);
				*ip += 4;
			}
			if (len < XPRESS_LONG_ESCAPE)
				return fail(err, "an escaped match length is below its minimum",
					    *ip, op), 0;
			len -= XPRESS_LONG_ESCAPE;
		}
		len += 15;
	}
	return len + 7 + XPRESS_MIN_MATCH;
}

int etl_xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap, size_t *out_len,
			  struct etl_xpress_error *err)
{
	size_t ip = 0, op = 0, half = NO_HALF_BYTE;
	unsigned int nflags = 0;
	uint32_t flags = 0;

	for (;;) {
		size_t start, len, dist;
		uint32_t word;

		if (!nflags) {
			if (in_len - ip < 4)
				return fail(err, "the input ends inside a flag word", ip, op);
			flags = le32(in + ip);
			ip += 4;
			nflags = XPRESS_FLAG_BITS;
		}
		nflags--;
		if (!(flags >> nflags & 1)) {
			if (ip >= in_len)
				return fail(err, "the input ends where a literal byte should be",
					    ip, op);
			if (op >= out_cap)
				return fail(err, "the data decompresses past the expected size",
					    ip, op);
			out[op++] = in[ip++];
			continue;
		}
		if (ip == in_len)
			break;	/* a match flag with nothing left: the end */
		start = ip;
		if (in_len - ip < 2)
			return fail(err, "the input ends inside a match", ip, op);
		word = le16(in + ip);
		ip += 2;
		dist = (word >> 3) + 1;
		len = match_length(in, in_len, &ip, &half, word & 7, op, err);
		if (!len)
			return -1;
		if (dist > op)
			return fail(err, "a match reaches before the start of the output",
				    start, op);
		if (len > out_cap - op)
			return fail(err, "the data decompresses past the expected size",
				    start, op);
		/*
		 * A match may overlap its own output ("aaaa": a, then 1 back
		 * x 3): its bytes repeat every dist, so copy from where it
		 * starts in pieces as long as what is already there, which
		 * never overlap. A 64 MB run of one byte is then 26 copies,
		 * not 64 million.
		 */
		for (size_t from = op - dist; len;) {
			size_t n = op - from < len ? op - from : len;

			memcpy(out + op, out + from, n);
			op += n;
			len -= n;
		}
	}
	*out_len = op;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Compression                                                             */
/* ---------------------------------------------------------------------- */

size_t etl_xpress_bound(size_t n)
{
	/*
	 * A literal costs 1 byte for 1, a match at most 6 for 3 or more;
	 * one flag word per 32 items, and one more that can end the stream.
	 */
	return n + 4 * (n / XPRESS_FLAG_BITS + 1);
}

struct writer {
	uint8_t *out;
	size_t cap, pos;
	size_t flag_pos;	/* the current flag word's place */
	uint32_t flags;
	unsigned int nflags;
	size_t half;		/* a long match's length byte with a free high nibble */
	bool full;
};

static void put8(struct writer *w, uint32_t v)
{
	if (w->pos >= w->cap) {
		w->full = true;
		return;
	}
	w->out[w->pos++] = (uint8_t)v;
}

static void put16(struct writer *w, uint32_t v)
{
	put8(w, v);
	put8(w, v >> 8);
}

static void put_word_at(struct writer *w, size_t at, uint32_t v)
{
	if (w->full || at + 4 > w->cap) {
		w->full = true;
		return;
	}
	for (int i = 0; i < 4; i++)
		w->out[at + i] = (uint8_t)(v >> (8 * i));
}

/* One item's flag; every 32, the word goes out and the next one's place is taken. */
static void put_flag(struct writer *w, uint32_t bit)
{
	w->flags = w->flags << 1 | bit;
	if (++w->nflags < XPRESS_FLAG_BITS)
		return;
	put_word_at(w, w->flag_pos, w->flags);
	w->flag_pos = w->pos;
	w->pos += 4;
	w->flags = 0;
	w->nflags = 0;
}

static void put_literal(struct writer *w, uint8_t c)
{
	put8(w, c);
	put_flag(w, 0);
}

/* Section 2.3's match encoding; len in [3, XPRESS_MAX_MATCH], dist in [1, 8192]. */
static void put_match(struct writer *w, size_t len, size_t dist)
{
	uint32_t word = (uint32_t)(dist - 1) << 3;
	size_t rest = len - XPRESS_MIN_MATCH;

	if (rest < 7) {
		put16(w, word | (uint32_t)rest);
		put_flag(w, 1);
		return;
	}
	put16(w, word | 7);
	rest -= 7;
	if (w->half == NO_HALF_BYTE) {
		w->half = w->pos;
		put8(w, rest < 15 ? (uint32_t)rest : 15);
	} else {
		if (w->half < w->cap)
			w->out[w->half] |= (uint8_t)((rest < 15 ? rest : 15) << 4);
		w->half = NO_HALF_BYTE;
	}
	if (rest >= 15) {
		rest -= 15;
		if (rest < 255) {
			put8(w, (uint32_t)rest);
		} else {
			put8(w, 255);
			/* 16 bits of length - 3: at most 0xFFFF here, never 0. */
			put16(w, (uint32_t)(len - XPRESS_MIN_MATCH));
		}
	}
	put_flag(w, 1);
}

/* The flags not used yet are 1: a match flag with no input left ends the stream. */
static void put_end(struct writer *w)
{
	unsigned int unused = XPRESS_FLAG_BITS - w->nflags;
	uint64_t word = ((uint64_t)w->flags << unused) | ((1ULL << unused) - 1);

	put_word_at(w, w->flag_pos, (uint32_t)word);
}

/* ---------------------------------------------------------------------- */
/* Match finding: hash chains over the window                              */
/* ---------------------------------------------------------------------- */

#define HASH_BITS	15
#define MAX_CHAIN	48	/* candidates tried per position */
#define NICE_MATCH	512	/* long enough: stop looking */

struct matcher {
	const uint8_t *in;
	size_t n;
	size_t inserted;		/* positions below this are in the chains */
	int32_t head[1 << HASH_BITS];	/* newest position per hash, -1 none */
	int32_t prev[XPRESS_WINDOW];	/* the one before, by position % window */
};

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Add every position below upto that has 3 bytes to hash. */
static void insert_upto(struct matcher *m, size_t upto)
{
	for (; m->inserted < upto && m->inserted + XPRESS_MIN_MATCH <= m->n;
	     m->inserted++) {
		uint32_t h = hash3(m->in + m->inserted);

		m->prev[m->inserted % XPRESS_WINDOW] = m->head[h];
		m->head[h] = (int32_t)m->inserted;
	}
}

/* The longest match for position p within the window; 0 if under 3 bytes. */
static size_t longest_match(const struct matcher *m, size_t p, size_t *dist)
{
	size_t limit = m->n - p, best = 0;
	int chain = MAX_CHAIN;
	int32_t cand;

	if (limit < XPRESS_MIN_MATCH)
		return 0;
	if (limit > XPRESS_MAX_MATCH)
		limit = XPRESS_MAX_MATCH;
	cand = m->head[hash3(m->in + p)];
	/*
	 * Chains only go back: an entry of prev is overwritten by the
	 * position one window later, which is not inserted while cand is
	 * still within the window of p.
	 */
	while (cand >= 0 && p - (size_t)cand <= XPRESS_WINDOW && chain-- > 0) {
		const uint8_t *a = m->in + cand, *b = m->in + p;

		if (a[best] == b[best]) {
			size_t len = 0;

			while (len < limit && a[len] == b[len])
				len++;
			if (len > best) {
				best = len;
				*dist = p - (size_t)cand;
				if (len >= NICE_MATCH || len == limit)
					break;
			}
		}
		cand = m->prev[cand % XPRESS_WINDOW];
	}
	return best >= XPRESS_MIN_MATCH ? best : 0;
}

int etl_xpress_compress(const uint8_t *in, size_t n, uint8_t *out,
			size_t out_cap, size_t *out_len)
{
	struct writer w = {
		.out = out, .cap = out_cap, .pos = 4, .half = NO_HALF_BYTE,
	};
	struct matcher *m;
	size_t p = 0;

	if (n > INT32_MAX || out_cap < 4)
		return -1;
	m = malloc(sizeof(*m));
	if (!m)
		return -1;
	m->in = in;
	m->n = n;
	m->inserted = 0;
	memset(m->head, 0xFF, sizeof(m->head));

	while (p < n && !w.full) {
		size_t len, dist = 0, len2, dist2 = 0;

		insert_upto(m, p);
		len = longest_match(m, p, &dist);
		/* Lazy: a longer match one byte on is worth a literal first. */
		if (len && len < NICE_MATCH && p + 1 < n) {
			insert_upto(m, p + 1);
			len2 = longest_match(m, p + 1, &dist2);
			if (len2 > len) {
				put_literal(&w, in[p++]);
				len = len2;
				dist = dist2;
			}
		}
		if (!len) {
			put_literal(&w, in[p++]);
			continue;
		}
		put_match(&w, len, dist);
		p += len;
	}
	put_end(&w);
	free(m);
	if (w.full)
		return -1;
	*out_len = w.pos;
	return 0;
}
