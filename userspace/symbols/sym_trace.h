/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ntkl symbols needs from a trace: its images with their full file
 * names (Image DCStart, DCEnd, Load, UnLoad), the identity the trace gives
 * each (the DbgID_RSDS or DbgID_NONE record written just before it), and
 * how many sampled IPs and stack frames fall in each.
 *
 * The images, their identities and the threads' processes are the
 * model's (etl/etl_model.h, etl_images.h: a DbgID record belongs to the
 * Image record it directly precedes in its CPU's buffers, with the same
 * ImageBase, ProcessId and time), read in the same pass as the addresses;
 * an address is in the image its process had loaded there last before
 * its time.
 *
 * A stack's user part is its frames below 2^63, of a StackWalk record or
 * of the frames a stack key reference resolves to (a StackKeyUser's, or
 * of a stack whose user part is short, kernel and user frames in one
 * key): its outermost frame, the last of them, is marked, so that
 * sym_functions_of() can tell how the walk ended. A stack with no user
 * frame (a kernel thread's, the idle thread's) has none.
 */
#ifndef NTKL_SYM_TRACE_H
#define NTKL_SYM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "etl/etl.h"

struct sym_trace_image {
	uint64_t base, size;
	uint32_t pid;			/* 0: a kernel image */
	char *path;			/* the Image record's FileName, UTF-8 */
	bool has_rsds;			/* a DbgID_RSDS record names its PDB */
	bool has_none;			/* a DbgID_NONE record: no identity */
	uint8_t guid[16];		/* as stored (Windows byte order) */
	uint32_t age;
	char pdb_name[256];
	unsigned long hits;		/* sampled IPs and stack frames in it */
	int64_t first_time;		/* its first Image record's (Load, DCStart) */
};

/* a SampledProfile IP, or a StackWalk frame, that lies in an image */
struct sym_trace_sample {
	size_t image;			/* index in v */
	uint64_t addr;
	bool frame;			/* a stack frame, not a sample's IP */
	bool outermost;			/* the outermost frame of a stack's user part */
};

struct sym_trace {
	struct sym_trace_image *v;	/* sorted by pid, base */
	size_t n;
	struct sym_trace_sample *samples;
	size_t nsamples;
	unsigned long all_samples;	/* SampledProfile events, in an image or not */
	unsigned long missed[2][2];	/* [kernel][frame]: addresses in no image */
	unsigned long rsds_records, none_records;
	unsigned long kernel_addrs, kernel_missed;	/* kernel IPs and frames; in no image */
	unsigned long user_addrs, user_missed;
	unsigned long user_ends_missed;	/* user stacks whose outermost frame is in no image */
};

/* Read f into t. 0, or -1 with err; sym_trace_free() either way. */
int sym_trace_read(const struct etl_file *f, struct sym_trace *t, struct etl_error *err);
void sym_trace_free(struct sym_trace *t);

/*
 * The same in a pass of the caller's (report's): sym_trace_gather() with
 * every record of its etl_model_read() pass, then sym_trace_from_model()
 * with that model.
 */
struct sym_trace_addr;

struct sym_trace_addrs {
	struct sym_trace_addr *v;	/* SampledProfile IPs, StackWalk frames */
	size_t n, cap;
	/* cached stacks: their keys' definitions, and the references, taken at the end */
	struct etl_stack_keys keys;
	struct etl_stack_ref *refs;
	size_t nrefs, refs_cap;
};

/*
 * Take r's addresses if it is a SampledProfile or StackWalk record (a
 * stack key's reference or definition: kept for the end). 0, or -1 out
 * of memory.
 */
int sym_trace_gather(struct sym_trace_addrs *a, const struct etl_record *r);

/*
 * t from m's images and the addresses in a (its stack key references
 * resolved first). 0, or -1 out of memory; sym_trace_free() either way.
 */
int sym_trace_from_model(struct sym_trace *t, const struct etl_model *m,
			 struct sym_trace_addrs *a);

void sym_trace_addrs_free(struct sym_trace_addrs *a);

#endif /* NTKL_SYM_TRACE_H */
