// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl wrappers for /dev/ntkl. See ntkl_ctl.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ntkl_ctl.h"

const char *ntkl_device_path(void)
{
	const char *path = getenv("NTKL_DEVICE");

	return path && *path ? path : NTKL_DEVICE_PATH;
}

int ntkl_open(void)
{
	int fd = open(ntkl_device_path(), O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int ntkl_props_set_name(struct ntkl_properties *p, const char *name)
{
	size_t len = strlen(name);

	if (len >= sizeof(p->logger_name))
		return -ENAMETOOLONG;
	memset(p->logger_name, 0, sizeof(p->logger_name));
	memcpy(p->logger_name, name, len);
	return 0;
}

void ntkl_props_init(struct ntkl_properties *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	if (name)
		/* too long a name stays empty; callers check with set_name */
		(void)ntkl_props_set_name(p, name);
}

static int do_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, cmd, arg);
	while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int ntkl_start(int fd, struct ntkl_properties *p)
{
	return do_ioctl(fd, NTKL_IOC_START, p);
}

int ntkl_stop(int fd, struct ntkl_properties *p)
{
	return do_ioctl(fd, NTKL_IOC_STOP, p);
}

int ntkl_query(int fd, struct ntkl_properties *p)
{
	return do_ioctl(fd, NTKL_IOC_QUERY, p);
}

int ntkl_update(int fd, struct ntkl_properties *p)
{
	return do_ioctl(fd, NTKL_IOC_UPDATE, p);
}

int ntkl_flush(int fd, struct ntkl_properties *p)
{
	return do_ioctl(fd, NTKL_IOC_FLUSH, p);
}

int ntkl_query_bound(int fd, struct ntkl_properties *p)
{
	ntkl_props_init(p, NULL);
	return do_ioctl(fd, NTKL_IOC_QUERY, p);
}

static int by_id(const void *a, const void *b)
{
	const struct ntkl_properties *x = a, *y = b;

	return (x->logger_id > y->logger_id) - (x->logger_id < y->logger_id);
}

int ntkl_list(int fd, struct ntkl_properties **out, uint32_t *count)
{
	/* room for every logger: E2BIG only if the table ever grows */
	uint32_t cap = NTKL_MAX_LOGGERS;

	*out = NULL;
	*count = 0;
	for (;;) {
		struct ntkl_properties *props = calloc(cap, sizeof(*props));
		struct ntkl_list l = {
			.size = sizeof(l),
			.count = cap,
			.props_size = sizeof(*props),
		};
		int ret;

		if (!props)
			return -ENOMEM;
		l.props = (uintptr_t)props;
		ret = do_ioctl(fd, NTKL_IOC_LIST, &l);
		if (ret == -E2BIG && l.count > cap) {
			free(props);
			cap = l.count;
			continue;
		}
		if (ret) {
			free(props);
			return ret;
		}
		qsort(props, l.count, sizeof(*props), by_id);
		if (l.count) {
			*out = props;
		} else {
			free(props);
		}
		*count = l.count;
		return 0;
	}
}

int ntkl_bind(int fd, const char *name, uint32_t id)
{
	struct ntkl_bind b;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.logger_id = id;
	if (name) {
		if (strlen(name) >= sizeof(b.logger_name))
			return -ENAMETOOLONG;
		strcpy(b.logger_name, name);
	}
	return do_ioctl(fd, NTKL_IOC_BIND, &b);
}

int ntkl_get_spinlock_config(int fd, struct ntkl_spinlock_config *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	return ioctl(fd, NTKL_IOC_GET_SPINLOCK_CONFIG, c) ? -errno : 0;
}

int ntkl_set_spinlock_config(int fd, const struct ntkl_spinlock_config *c)
{
	return ioctl(fd, NTKL_IOC_SET_SPINLOCK_CONFIG, c) ? -errno : 0;
}

int ntkl_get_profile_interval(int fd, uint32_t *interval)
{
	struct ntkl_profile_interval p = { .size = sizeof(p) };

	if (ioctl(fd, NTKL_IOC_GET_PROFILE_INTERVAL, &p))
		return -errno;
	*interval = p.interval;
	return 0;
}

int ntkl_set_profile_interval(int fd, uint32_t interval)
{
	struct ntkl_profile_interval p = { .size = sizeof(p), .interval = interval };

	return ioctl(fd, NTKL_IOC_SET_PROFILE_INTERVAL, &p) ? -errno : 0;
}

int ntkl_get_version(int fd, struct ntkl_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	return ioctl(fd, NTKL_IOC_GET_VERSION, v) ? -errno : 0;
}
