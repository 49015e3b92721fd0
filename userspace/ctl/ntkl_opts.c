// SPDX-License-Identifier: GPL-2.0
/*
 * xperf-style logger options. See ntkl_opts.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "ntkl_opts.h"

/* a logger that walks stacks: this many times the default buffers */
#define STACK_BUFFERS_FACTOR	4

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum value_kind { V_NONE, V_NUMBER, V_FLAGS, V_CLOCK, V_PATH, V_HOOKS, V_PROFILE };

static const struct {
	const char *name;
	unsigned int bit;
	enum value_kind kind;
} options[] = {
	{ "on", NTKL_OPT_ON, V_FLAGS },
	{ "buffersize", NTKL_OPT_BUFFERSIZE, V_NUMBER },
	{ "minbuffers", NTKL_OPT_MINBUFFERS, V_NUMBER },
	{ "maxbuffers", NTKL_OPT_MAXBUFFERS, V_NUMBER },
	{ "clock", NTKL_OPT_CLOCK, V_CLOCK },
	{ "buffering", NTKL_OPT_BUFFERING, V_NONE },
	{ "flushtimer", NTKL_OPT_FLUSHTIMER, V_NUMBER },
	{ "f", NTKL_OPT_FILE, V_PATH },
	{ "o", NTKL_OPT_OUTPUT, V_PATH },
	{ "setprofint", NTKL_OPT_SETPROFINT, V_NUMBER },
	{ "owned", NTKL_OPT_OWNED, V_NONE },
	{ "compress", NTKL_OPT_COMPRESS, V_NONE },
	{ "stackwalk", NTKL_OPT_STACKWALK, V_HOOKS },
	{ "stackcaching", NTKL_OPT_STACKCACHING, V_NONE },
	{ "nostackcaching", NTKL_OPT_NOSTACKCACHING, V_NONE },
	{ "nounwind", NTKL_OPT_NOUNWIND, V_NONE },
	{ "profile", NTKL_OPT_PROFILE, V_PROFILE },
};

static const char *const clock_names[] = {
	[NTKL_CLOCK_QPC] = "qpc",
	[NTKL_CLOCK_SYSTEM] = "system",
	[NTKL_CLOCK_CYCLE] = "cycle",
};

const char *ntkl_clock_name(uint32_t clock_type)
{
	if (clock_type < ARRAY_SIZE(clock_names))
		return clock_names[clock_type];
	return NULL;
}

bool ntkl_opts_is_option(const char *arg)
{
	return arg[0] == '-' && arg[1] != '\0';
}

/*
 * A number option's value, checked against its range here, before any
 * module is asked: the message names the value and the range, not the
 * module. unit follows the range in the message ("KB", "s").
 */
static int parse_number(const char *opt, const char *v, uint32_t min, uint32_t max,
			const char *unit, uint32_t *out, char *err, size_t err_size)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 0);
	if (!*v || *end || v[0] == '-' || (errno && errno != ERANGE)) {
		snprintf(err, err_size, "bad %s value '%s': a number is expected, %u..%u %s",
			 opt, v, min, max, unit);
		return -1;
	}
	if (errno == ERANGE || n < min || n > max) {
		snprintf(err, err_size, "bad %s value '%s': out of bounds: %u..%u %s",
			 opt, v, min, max, unit);
		return -1;
	}
	*out = (uint32_t)n;
	return 0;
}

/* -profile NAME: its flags and stacks, but not over the user's own -on, -stackwalk. */
static int take_profile(struct ntkl_logger_opts *o, const char *value, char *err,
			size_t err_size)
{
	const struct ntkl_profile *p = ntkl_profile_find(value);
	char names[256], ferr[512];
	bool own_on = (o->seen & NTKL_OPT_ON) && !(o->from_profile & NTKL_OPT_ON);
	bool own_sw = (o->seen & NTKL_OPT_STACKWALK) && !(o->from_profile & NTKL_OPT_STACKWALK);

	if (!p) {
		snprintf(err, err_size, "unknown -profile '%s': the profiles are %s", value,
			 ntkl_profile_names(names, sizeof(names)));
		return -1;
	}
	o->profile = p->name;
	if (!own_on) {
		if (ntkl_flags_parse(p->flags, &o->flags, ferr, sizeof(ferr))) {
			snprintf(err, err_size, "-profile %s: %s", p->name, ferr);
			return -1;
		}
		o->seen |= NTKL_OPT_ON;
		o->from_profile |= NTKL_OPT_ON;
	}
	if (!own_sw) {
		memset(&o->stackwalk, 0, sizeof(o->stackwalk));
		if (ntkl_stackwalk_parse(p->stackwalk, &o->stackwalk, ferr, sizeof(ferr))) {
			snprintf(err, err_size, "-profile %s: %s", p->name, ferr);
			return -1;
		}
		o->seen |= NTKL_OPT_STACKWALK;
		o->from_profile |= NTKL_OPT_STACKWALK;
	}
	return 1;
}

int ntkl_opts_take(int argc, char **argv, int *i, unsigned int allowed,
		   struct ntkl_logger_opts *o, char *err, size_t err_size)
{
	const char *arg = argv[*i], *name, *eq, *value = NULL;
	char ferr[512];
	size_t len;
	size_t k;

	if (!ntkl_opts_is_option(arg))
		return 0;
	name = arg + 1 + (arg[1] == '-');
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	for (k = 0; k < ARRAY_SIZE(options); k++)
		if (strlen(options[k].name) == len &&
		    !strncasecmp(options[k].name, name, len))
			break;
	if (k == ARRAY_SIZE(options) || !(options[k].bit & allowed))
		return 0;

	if (options[k].kind == V_NONE) {
		if (eq) {
			snprintf(err, err_size, "-%s takes no value", options[k].name);
			return -1;
		}
	} else if (eq) {
		value = eq + 1;
	} else if (*i + 1 < argc) {
		value = argv[++*i];
	} else {
		snprintf(err, err_size, "-%s needs a value", options[k].name);
		return -1;
	}
	o->seen |= options[k].bit;
	(*i)++;
	/* the user's own -on or -stackwalk replaces a profile's */
	if (options[k].bit & (NTKL_OPT_ON | NTKL_OPT_STACKWALK) & o->from_profile) {
		o->from_profile &= ~options[k].bit;
		if (options[k].bit == NTKL_OPT_STACKWALK)
			memset(&o->stackwalk, 0, sizeof(o->stackwalk));
	}

	switch (options[k].bit) {
	case NTKL_OPT_ON:
		if (ntkl_flags_parse(value, &o->flags, ferr, sizeof(ferr))) {
			snprintf(err, err_size, "-on %s: %s", value, ferr);
			return -1;
		}
		if (ntkl_flags_warnings(value, &o->flags, ferr, sizeof(ferr)))
			fputs(ferr, stderr);
		return 1;
	case NTKL_OPT_BUFFERSIZE:
		return parse_number("-buffersize", value, NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB,
				    "KB", &o->buffer_size_kb, err, err_size) ? -1 : 1;
	case NTKL_OPT_MINBUFFERS:
		return parse_number("-minbuffers", value, 0, NTKL_MAX_BUFFERS, "buffers",
				    &o->minimum_buffers, err, err_size) ? -1 : 1;
	case NTKL_OPT_MAXBUFFERS:
		return parse_number("-maxbuffers", value, 0, NTKL_MAX_BUFFERS,
				    "buffers (0: the default)", &o->maximum_buffers, err,
				    err_size) ? -1 : 1;
	case NTKL_OPT_FLUSHTIMER:
		return parse_number("-flushtimer", value, 0, NTKL_MAX_FLUSH_TIMER, "s",
				    &o->flush_timer, err, err_size) ? -1 : 1;
	case NTKL_OPT_SETPROFINT:
		return parse_number("-setprofint", value, NTKL_PROFILE_INTERVAL_MIN,
				    NTKL_PROFILE_INTERVAL_MAX, "(100 ns units, as xperf -SetProfInt)",
				    &o->profile_interval, err, err_size) ? -1 : 1;
	case NTKL_OPT_STACKWALK:
		if (ntkl_stackwalk_parse(value, &o->stackwalk, ferr, sizeof(ferr))) {
			snprintf(err, err_size, "-stackwalk %s: %s", value, ferr);
			return -1;
		}
		return 1;
	case NTKL_OPT_PROFILE:
		return take_profile(o, value, err, err_size);
	case NTKL_OPT_CLOCK:
		for (uint32_t c = NTKL_CLOCK_QPC; c <= NTKL_CLOCK_CYCLE; c++) {
			if (!strcasecmp(value, clock_names[c])) {
				o->clock_type = c;
				return 1;
			}
		}
		snprintf(err, err_size, "unknown -clock '%s': qpc, system or cycle", value);
		return -1;
	case NTKL_OPT_BUFFERING:
		o->buffering = true;
		return 1;
	case NTKL_OPT_OWNED:
		o->owned = true;
		return 1;
	case NTKL_OPT_COMPRESS:
		o->compress = true;
		return 1;
	case NTKL_OPT_STACKCACHING:
		o->stack_caching = true;
		return 1;
	case NTKL_OPT_NOSTACKCACHING:
		o->no_stack_caching = true;
		return 1;
	case NTKL_OPT_NOUNWIND:
		o->no_unwind = true;
		return 1;
	default:	/* -f, -o */
		if (!*value) {
			snprintf(err, err_size, "-%s needs a file name", options[k].name);
			return -1;
		}
		o->file = value;
		return 1;
	}
}

int ntkl_opts_check(const struct ntkl_logger_opts *o, char *err, size_t err_size)
{
	if (o->minimum_buffers && o->maximum_buffers &&
	    o->minimum_buffers > o->maximum_buffers) {
		snprintf(err, err_size, "-minbuffers %u is above -maxbuffers %u: give a minimum <= the maximum",
			 o->minimum_buffers, o->maximum_buffers);
		return -1;
	}
	if (o->stack_caching && o->no_stack_caching) {
		snprintf(err, err_size, "-stackcaching and -nostackcaching contradict each other: give one");
		return -1;
	}
	return 0;
}

/*
 * Stack caching wherever stacks are walked, unless -nostackcaching: each
 * stack as references to keys and each key's frames once. It won on
 * every workload measured (docs/linux-to-nt.md): a CSwitch's stack, the
 * same wait from the same call sites, 40 bytes instead of 94; Profile's,
 * though a sample's kernel part begins at the interrupted IP, 0.50 to
 * 0.61 of the bytes, CPU-bound gzip and sha256sum too (their hot loops
 * and idle CPUs repeat).
 */
bool ntkl_opts_stack_caching(const struct ntkl_logger_opts *o)
{
	if (o->no_stack_caching)
		return false;
	return o->stack_caching || o->stackwalk.count > 0;
}

static bool takes_syscall(const struct ntkl_flags *f)
{
	struct perfinfo_groupmask gm;

	memcpy(gm.masks, f->group_masks, sizeof(gm.masks));
	return (f->enable_flags & EVENT_TRACE_FLAG_SYSTEMCALL) || perf_group_is_on(&gm, PERF_SYSCALL);
}

void ntkl_opts_to_props(const struct ntkl_logger_opts *o, struct ntkl_properties *p)
{
	p->buffer_size_kb = o->buffer_size_kb;
	p->minimum_buffers = o->minimum_buffers;
	p->maximum_buffers = o->maximum_buffers;
	/*
	 * A stack after each event triples the data or more (CSwitch: 40
	 * bytes, 136 with its stack): with the default buffers a writer that
	 * falls behind for some tens of milliseconds makes the logger lose
	 * events (make bench's CSWITCH with stacks did, now and then). So a
	 * logger that walks stacks gets STACK_BUFFERS_FACTOR times the
	 * default unless -maxbuffers says otherwise. So does one that takes
	 * SYSCALL: two records a system call, a burst of 20,000 getppid()
	 * makes a megabyte in some milliseconds, and make bench's logger lost a
	 * third of such a burst with the default buffers (as trace-cmd with
	 * its own defaults lost an eighth).
	 */
	if (!o->maximum_buffers && (o->stackwalk.count || takes_syscall(&o->flags))) {
		long cpus = sysconf(_SC_NPROCESSORS_CONF);
		uint64_t n = (uint64_t)STACK_BUFFERS_FACTOR * NTKL_DEFAULT_BUFFERS_PER_CPU *
			     (uint64_t)(cpus > 0 ? cpus : 1);

		p->maximum_buffers = n < NTKL_MAX_BUFFERS ? (uint32_t)n : NTKL_MAX_BUFFERS;
	}
	p->clock_type = o->clock_type;
	p->flush_timer = o->flush_timer;
	/* a file logger writes its buffers in order, as ETW's sequential mode */
	p->log_file_mode = o->buffering ? NTKL_MODE_BUFFERING : NTKL_MODE_SEQUENTIAL;
	if (o->owned)
		p->log_file_mode |= NTKL_MODE_OWNED;
	if (ntkl_opts_stack_caching(o))
		p->logger_options |= NTKL_LOGGER_OPT_STACK_CACHING;
	if (o->no_unwind)
		p->logger_options |= NTKL_LOGGER_OPT_FRAME_POINTERS;
	p->enable_flags = o->flags.enable_flags;
	memcpy(p->group_masks, o->flags.group_masks, sizeof(p->group_masks));
}
