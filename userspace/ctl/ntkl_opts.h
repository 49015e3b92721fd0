/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The logger options ntkl start, record and update share, spelled as
 * xperf's: one dash (two work too), case-insensitive, the value as the
 * next argument or after '=':
 *
 *	-on FLAGS -buffersize KB -minbuffers N -maxbuffers N
 *	-clock qpc|system|cycle -buffering -flushtimer S -f FILE -o FILE
 *	-setprofint N -stackwalk HOOKS -stackcaching -profile NAME
 *
 * Values are checked for form here (a number, a known clock, known flags);
 * bounds are the module's to check, so its ETW error names the problem.
 */
#ifndef NTKL_OPTS_H
#define NTKL_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ntkl_flags.h"
#include "ntkl_profiles.h"
#include "ntkl_stackwalk.h"
#include "uapi/ntkl.h"

/* Which options a command takes. */
enum ntkl_opt_bits {
	NTKL_OPT_ON		= 1 << 0,
	NTKL_OPT_BUFFERSIZE	= 1 << 1,
	NTKL_OPT_MINBUFFERS	= 1 << 2,
	NTKL_OPT_MAXBUFFERS	= 1 << 3,
	NTKL_OPT_CLOCK		= 1 << 4,
	NTKL_OPT_BUFFERING	= 1 << 5,
	NTKL_OPT_FLUSHTIMER	= 1 << 6,
	NTKL_OPT_FILE		= 1 << 7,	/* -f FILE */
	NTKL_OPT_OUTPUT		= 1 << 8,	/* -o FILE, the same */
	NTKL_OPT_SETPROFINT	= 1 << 9,	/* the kernel-wide profile interval */
	NTKL_OPT_OWNED		= 1 << 10,	/* NTKL_MODE_OWNED */
	NTKL_OPT_COMPRESS	= 1 << 11,	/* the writer compresses */
	NTKL_OPT_STACKWALK	= 1 << 12,	/* the events whose stacks are walked */
	NTKL_OPT_PROFILE	= 1 << 13,	/* a named set of -on and -stackwalk */
	NTKL_OPT_STACKCACHING	= 1 << 14,	/* NTKL_LOGGER_OPT_STACK_CACHING */
	NTKL_OPT_NOSTACKCACHING	= 1 << 15,	/* every stack written whole */
	NTKL_OPT_NOUNWIND	= 1 << 16,	/* NTKL_LOGGER_OPT_FRAME_POINTERS */
};

struct ntkl_logger_opts {
	unsigned int seen;		/* NTKL_OPT_* given */
	struct ntkl_flags flags;	/* -on */
	uint32_t buffer_size_kb;
	uint32_t minimum_buffers;
	uint32_t maximum_buffers;
	uint32_t clock_type;		/* NTKL_CLOCK_*, 0 if not given */
	uint32_t flush_timer;
	uint32_t profile_interval;	/* -setprofint, 100 ns units */
	bool buffering;
	bool owned;			/* -owned */
	bool compress;			/* -compress */
	bool stack_caching;		/* -stackcaching */
	bool no_stack_caching;		/* -nostackcaching */
	bool no_unwind;			/* -nounwind: user stacks by frame pointers */
	const char *file;		/* -f or -o */
	struct ntkl_stackwalk stackwalk;	/* -stackwalk */
	/*
	 * -profile: the NTKL_OPT_ON and NTKL_OPT_STACKWALK bits of seen
	 * that came from it (an -on or -stackwalk of the user's wins, in
	 * any order).
	 */
	const char *profile;
	unsigned int from_profile;
};

/*
 * If argv[*i] is one of the allowed options, take it (and its value) into
 * o and move *i past it: 1. Not an option of this set: 0. A bad value or
 * a missing one: -1 with a one-line reason in err.
 */
int ntkl_opts_take(int argc, char **argv, int *i, unsigned int allowed,
		   struct ntkl_logger_opts *o, char *err, size_t err_size);

/* true if arg looks like an option ("-x", "--x"; not "-" alone). */
bool ntkl_opts_is_option(const char *arg);

/*
 * What no single option can say about itself (-minbuffers above
 * -maxbuffers), checked before the module is opened: 0, or -1 with one
 * line in err.
 */
int ntkl_opts_check(const struct ntkl_logger_opts *o, char *err, size_t err_size);

/*
 * Does the logger write its stacks by key? With -stackwalk or
 * -stackcaching, unless -nostackcaching.
 */
bool ntkl_opts_stack_caching(const struct ntkl_logger_opts *o);

/* Properties for START from the options: mode, sizes, clock, flags. */
void ntkl_opts_to_props(const struct ntkl_logger_opts *o, struct ntkl_properties *p);

/* "qpc" for NTKL_CLOCK_QPC...; NULL if unknown. */
const char *ntkl_clock_name(uint32_t clock_type);

#endif /* NTKL_OPTS_H */
