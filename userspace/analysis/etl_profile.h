/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampled profile of an ETL file: SampledProfile events (0x0F2E)
 * counted per CPU and per thread, the interval the file's
 * CollectionStart/SetInterval events give, and each thread's process and
 * name, each process's one name, from the model (etl/etl_model.h: the
 * latest Thread event in time; the Process records' image name as WPA
 * shows it, else the leader's). The idle thread (0) is process 0, "Idle".
 *
 * Each sample's IP is looked up in the file's images at its time
 * (etl/etl_images.h): a kernel IP among the kernel's, a user IP among its
 * thread's process's; samples are counted per image name, and how many
 * resolved.
 *
 * The achieved sample rate is the samples per CPU (the header's
 * NumberOfProcessors) per second of the collection (the span of
 * etl_record_is_activity()'s records, as ntkl report's duration): beside
 * the requested one (1 / interval) it shows samples the timer missed.
 *
 * Only records whose layout applies (version 2 for SampledProfile, 3 for
 * the interval events, the Thread events' version 3) are read; a short
 * one is an error naming it.
 */
#ifndef NTKL_ETL_PROFILE_H
#define NTKL_ETL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_images.h"
#include "etl/etl_reader.h"
#include "etl_filter.h"

struct etl_model;

struct etl_profile_thread {
	uint32_t tid;
	uint32_t pid;			/* UINT32_MAX: no Thread event named it */
	unsigned long samples;
	char name[64];			/* the Thread event's ThreadName, UTF-8 */
	int64_t named_at;		/* the time of the Thread event that named it */
};

struct etl_profile_process {
	uint32_t pid;
	unsigned long samples;
	char name[64];			/* its leader's thread name, or "" */
};

struct etl_profile_module {
	char name[96];			/* the image's file name; "?" for no image */
	unsigned long samples;
};

struct etl_profile {
	unsigned long samples;		/* SampledProfile events (in the filter's window) */
	unsigned long user_samples;	/* whose IP is a user address */
	uint32_t ncpus;			/* 1 + the highest CPU with a sample */
	unsigned long *cpu;		/* samples per CPU (its buffers' ProcessorIndex) */
	unsigned long *cpu_idle;	/* of which in the idle thread (ThreadId 0) */
	/* 100 ns: the first timer CollectionStart's, else SetInterval's; 0 if none */
	uint32_t interval;
	uint32_t cpus;			/* the header's NumberOfProcessors, or ncpus if more */
	/*
	 * The collection (etl_record_is_activity(): first to last record of
	 * activity, else of any data record), in seconds; the achieved rate
	 * is samples / cpus / duration_s, the requested 1e7 / interval.
	 */
	double duration_s;
	double achieved_hz, requested_hz;	/* per CPU; requested 0 without an interval */
	unsigned long collection_starts, collection_ends, set_intervals;
	/* every thread seen, sampled or named; sorted by samples, most first */
	struct etl_profile_thread *threads;
	size_t nthreads;
	/* processes with samples, most first */
	struct etl_profile_process *procs;
	size_t nprocs;
	/* images by samples, most first; kernel and user IPs that resolved */
	struct etl_profile_module *modules;
	size_t nmodules;
	unsigned long kernel_resolved, user_resolved;
};

/* Read f's samples into p. 0, or -1 with err set; etl_profile_free() either way. */
int etl_profile_read(const struct etl_file *f, struct etl_profile *p, struct etl_error *err);

/*
 * The same with flt (etl_filter.h; NULL: all): samples in its window
 * only, per CPU and in the rate; the tables of the threads it selects,
 * in its order. cpu[] may then count samples the tables leave out.
 */
int etl_profile_read_filtered(const struct etl_file *f, struct etl_profile *p,
			      const struct etl_filter *flt, struct etl_error *err);

/*
 * The same inside another pass with its model (etl_model_read_all()):
 * begin (NULL, err set, out of memory), the walker to add to the pass,
 * then end with the pass's model, or NULL if the walk failed: 0, or -1
 * with err set. end frees the reader.
 */
struct etl_profile_reader *etl_profile_begin(struct etl_profile *p, const struct etl_filter *flt,
					     struct etl_error *err);
struct etl_walker etl_profile_walker(struct etl_profile_reader *rd);
int etl_profile_end(struct etl_profile_reader *rd, const struct etl_file *f,
		    const struct etl_model *m);

void etl_profile_free(struct etl_profile *p);

#endif /* NTKL_ETL_PROFILE_H */
