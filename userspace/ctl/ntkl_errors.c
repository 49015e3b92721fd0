// SPDX-License-Identifier: GPL-2.0
/*
 * errno -> ETW error name and advice. See ntkl_errors.h; the map is
 * uapi/ntkl.h's, plus the errors of opening the device.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ntkl_ctl.h"
#include "ntkl_errors.h"
#include "ntkl_show.h"
#include "uapi/ntkl_bounds.h"

const char *ntkl_etw_error_name(int err, enum ntkl_op op)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EEXIST:
		return "ERROR_ALREADY_EXISTS";
	case ENOSPC:
		return "ERROR_NO_SYSTEM_RESOURCES";
	case ENOENT:
		/* no device node is a missing file; no logger, a missing instance */
		return op == NTKL_OP_OPEN ? "ERROR_FILE_NOT_FOUND" :
					    "ERROR_WMI_INSTANCE_NOT_FOUND";
	case ENODEV:
	case ENXIO:
		return "ERROR_DEV_NOT_EXIST";
	case EINVAL:
	case ENAMETOOLONG:
		return "ERROR_INVALID_PARAMETER";
	case EPERM:
	case EACCES:
		return "ERROR_ACCESS_DENIED";
	case E2BIG:
		return "ERROR_MORE_DATA";
	case EBUSY:
		return op == NTKL_OP_BIND ? "ERROR_ACTIVE_CONNECTIONS" : "ERROR_BUSY";
	case ENOTTY:
	case EOPNOTSUPP:
		return "ERROR_NOT_SUPPORTED";
	case ENOMEM:
		return "ERROR_NOT_ENOUGH_MEMORY";
	case EFAULT:
		return "ERROR_NOACCESS";
	case EINTR:
		return "ERROR_CANCELLED";
	default:
		return "ERROR_GEN_FAILURE";
	}
}

/* A growing string in a fixed buffer; output past the end is dropped. */
struct text {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < t->size - t->len ? (size_t)n : t->size - t->len - 1;
}

/* "; " between the problems found, none before the first. */
static void add_problem(struct text *t, bool *any, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_problem(struct text *t, bool *any, const char *fmt, ...)
{
	char one[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(one, sizeof(one), fmt, ap);
	va_end(ap);
	add(t, "%s%s", *any ? "; " : "", one);
	*any = true;
}

/* START refused a property: name each one out of bounds (uapi/ntkl_bounds.h), or list them all. */
static void start_einval(struct text *t, const struct ntkl_properties *p)
{
	uint32_t bad = p ? ntkl_start_props_out_of_bounds(p) : 0;
	bool any = false;

	if (bad & 1u << NTKL_PROP_NAME)
		add_problem(t, &any, "logger names are 1..%d bytes", NTKL_NAME_MAX - 1);
	if (bad & 1u << NTKL_PROP_BUFFER_SIZE)
		add_problem(t, &any, "-buffersize %u is outside %u..%u KB",
			    p->buffer_size_kb, NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB);
	if (bad & 1u << NTKL_PROP_MIN_BUFFERS)
		add_problem(t, &any, "-minbuffers %u is above %u",
			    p->minimum_buffers, NTKL_MAX_BUFFERS);
	if (bad & 1u << NTKL_PROP_MAX_BUFFERS)
		add_problem(t, &any, "-maxbuffers %u is above %u",
			    p->maximum_buffers, NTKL_MAX_BUFFERS);
	if (bad & 1u << NTKL_PROP_MIN_ABOVE_MAX)
		add_problem(t, &any, "-minbuffers %u is above -maxbuffers %u",
			    p->minimum_buffers, p->maximum_buffers);
	if (bad & 1u << NTKL_PROP_MODE)
		add_problem(t, &any, "log file mode 0x%x has bits ntkl does not support (0x%x)",
			    p->log_file_mode, p->log_file_mode & ~NTKL_MODES_ALLOWED);
	if (bad & 1u << NTKL_PROP_CLOCK)
		add_problem(t, &any, "clock type %u is not qpc (1), system (2) or cycle (3)",
			    p->clock_type);
	if (bad & 1u << NTKL_PROP_FLUSH_TIMER)
		add_problem(t, &any, "-flushtimer %u is above %u s",
			    p->flush_timer, NTKL_MAX_FLUSH_TIMER);
	if (!any && p && (p->logger_options & NTKL_LOGGER_OPT_FRAME_POINTERS)) {
		add(t, "%s", "-nounwind needs a module of control ABI 7 or later, which an older one refuses (ntkl --version tells): load the module built with this tool");
		return;
	}
	if (!any && p && p->logger_options) {
		/* longer than add_problem()'s line */
		add(t, "%s", "stack caching (-stackcaching, the default with -stackwalk) needs a module of control ABI 6 or later, which an older one refuses (ntkl --version tells): load the module built with this tool, or give -nostackcaching");
		return;
	}
	if (!any)
		add(t, "the bounds are -buffersize %u..%u KB, -minbuffers and -maxbuffers up to %u (minimum <= maximum), -flushtimer 0..%u s, -clock qpc|system|cycle",
		    NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB, NTKL_MAX_BUFFERS,
		    NTKL_MAX_FLUSH_TIMER);
}

/* UPDATE refused: only flags and the flush timer change. */
static void update_einval(struct text *t, const struct ntkl_properties *p,
			  const struct ntkl_properties *cur)
{
	bool any = false;

	if (p && cur && p->maximum_buffers && p->maximum_buffers != cur->maximum_buffers)
		add_problem(t, &any, "-maxbuffers %u: a running logger keeps the buffers it started with (-maxbuffers %u); stop it and start it with -maxbuffers %u",
			    p->maximum_buffers, cur->maximum_buffers, p->maximum_buffers);
	if (p && cur && p->flush_timer > ntkl_flush_timer_max(cur->log_file_mode))
		add_problem(t, &any, "-flushtimer %u is above %u s",
			    p->flush_timer, NTKL_MAX_FLUSH_TIMER);
	if (!any)
		add(t, "a running logger changes only -on and -flushtimer (1..%u s)",
		    NTKL_MAX_FLUSH_TIMER);
}

/*
 * EACCES on a logger: another user started it (access.c in the module).
 * Its owner comes from the logger as queried (ctx->current), if known.
 */
static void not_owner(struct text *t, const struct ntkl_error_ctx *ctx, const char *name)
{
	char owner[64] = "another user";

	if (ctx->current)
		ntkl_owner_str(ctx->current, owner, sizeof(owner));
	if (!strcmp(owner, "-"))
		snprintf(owner, sizeof(owner), "another user");
	add(t, "logger %s belongs to %s: only its owner or root (CAP_SYS_ADMIN) may stop, change, flush or read it; ask them, or run as root",
	    name ? name : "", owner);
}

const char *ntkl_error_advice(const struct ntkl_error_ctx *ctx, int err,
			      char *buf, size_t size)
{
	const char *name = ctx->logger && *ctx->logger ? ctx->logger : NULL;
	struct text t = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	if (err < 0)
		err = -err;
	switch (err) {
	case EEXIST:
		if (name)
			add(&t, "a logger named %s is running: stop it (ntkl stop %s) or pick another name",
			    name, name);
		else
			add(&t, "a logger with that name is running: stop it or pick another name");
		break;
	case ENOSPC:
		add(&t, "all %d loggers are in use: ntkl list", NTKL_MAX_LOGGERS);
		break;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		if (ctx->op == NTKL_OP_OPEN)
			add(&t, "the ntkl module is not loaded: modprobe ntkl (or scripts/vm-run)");
		else if (name)
			add(&t, "no logger named %s is running: ntkl list shows those that are",
			    name);
		else
			add(&t, "no such logger is running: ntkl list shows those that are");
		break;
	case EINVAL:
		if (ctx->op == NTKL_OP_START)
			start_einval(&t, ctx->asked);
		else if (ctx->op == NTKL_OP_UPDATE)
			update_einval(&t, ctx->asked, ctx->current);
		else if (ctx->op == NTKL_OP_SPINLOCK)
			add(&t, "spin=N needs N >= %d, acquire=N >= %d, contention=N >= %d, hold=N 0 or >= %d",
			    NTKL_SPIN_THRESHOLD_MIN, NTKL_ACQUIRE_SAMPLE_RATE_MIN,
			    NTKL_CONTENTION_SAMPLE_RATE_MIN, NTKL_HOLD_THRESHOLD_MIN);
		else if (ctx->op == NTKL_OP_PROFILE_INTERVAL)
			add(&t, "the interval is %d..%d (100 ns units, as xperf -SetProfInt), source 0 (the timer)",
			    NTKL_PROFILE_INTERVAL_MIN, NTKL_PROFILE_INTERVAL_MAX);
		else
			add(&t, "the module refused the request as malformed: the ntkl module and this tool may not match (rebuild both)");
		break;
	case ENAMETOOLONG:
		add(&t, "logger names are 1..%d bytes", NTKL_NAME_MAX - 1);
		break;
	case EACCES:
		if (ctx->op == NTKL_OP_OPEN) {
			add(&t, "/dev/ntkl is for root and the group tracing (make install's udev rule): sudo usermod -aG tracing $USER and log in again, or run as root");
			break;
		}
		not_owner(&t, ctx, name);
		break;
	case EPERM:
		if (ctx->machine_wide)
			add(&t, "this setting is machine-wide: changing it needs CAP_SYS_ADMIN (run as root)");
		else
			add(&t, "needs CAP_PERFMON (or CAP_SYS_ADMIN): run as root, or sudo setcap cap_perfmon+ep $(command -v ntkl)");
		break;
	case E2BIG:
		add(&t, "loggers started while listing them: try again");
		break;
	case EBUSY:
		if (ctx->op != NTKL_OP_BIND)
			break;
		add(&t, "logger %s already has a reader: a logger started with -f is read by its own writer until it stops (ntkl query %s shows it), and only one ntkl save runs at a time",
		    name ? name : "", name ? name : "NAME");
		break;
	case ENOTTY:
		add(&t, "the ntkl module loaded does not know this request (it is older than this ntkl command, ABI %d: ntkl --version tells): load the module built with this tool (rmmod ntkl; insmod ntkl.ko)",
		    NTKL_ABI_VERSION);
		break;
	case ENOMEM:
		if (ctx->op == NTKL_OP_START)
			add(&t, "the buffers do not fit in kernel memory: ask for fewer (-maxbuffers) or smaller (-buffersize) ones");
		break;
	case EFAULT:
		add(&t, "a bug in ntkl: please report it");
		break;
	case EOPNOTSUPP:
		if (ctx->op == NTKL_OP_START || ctx->op == NTKL_OP_UPDATE)
			add(&t, "PROFILE needs a perf cpu-clock counter on every CPU, which this kernel refused (dmesg says why): try without PROFILE");
		break;
	default:
		break;
	}
	return buf;
}

const char *ntkl_error_format(const struct ntkl_error_ctx *ctx, const char *what,
			      int err, char *buf, size_t size)
{
	char advice[512];

	if (err < 0)
		err = -err;
	ntkl_error_advice(ctx, err, advice, sizeof(advice));
	snprintf(buf, size, "ntkl %s: %s: %s (%s)%s%s", ctx->cmd, what,
		 strerror(err), ntkl_etw_error_name(err, ctx->op),
		 advice[0] ? ": " : "", advice);
	return buf;
}

void ntkl_error_print(FILE *out, const struct ntkl_error_ctx *ctx,
		      const char *what, int err)
{
	char line[1024];

	fprintf(out, "%s\n", ntkl_error_format(ctx, what, err, line, sizeof(line)));
}

int ntkl_open_device(const char *cmd)
{
	struct ntkl_error_ctx ctx = { .cmd = cmd, .op = NTKL_OP_OPEN };
	char what[300];
	int fd = ntkl_open();

	if (fd >= 0)
		return fd;
	snprintf(what, sizeof(what), "cannot open %s", ntkl_device_path());
	ntkl_error_print(stderr, &ctx, what, fd);
	return -1;
}
