/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers around the /dev/ntkl ioctls (uapi/ntkl.h). Each returns 0
 * or a negative errno and never prints: the caller decides what to say
 * (ctl/ntkl_errors.h turns the errno into the ETW error and advice).
 *
 * A logger is selected by name (case-insensitive, as ETW) when the name
 * is not empty, else by id.
 */
#ifndef NTKL_CTL_H
#define NTKL_CTL_H

#include <stdint.h>

#include "uapi/ntkl.h"

/* The device path: $NTKL_DEVICE if set (tests), else /dev/ntkl. */
const char *ntkl_device_path(void);

/* Open the device read-write, close-on-exec; a descriptor or -errno. */
int ntkl_open(void);

/* Zeroed properties with size set and the logger selected by name. */
void ntkl_props_init(struct ntkl_properties *p, const char *name);

/* Copy name into p->logger_name; -ENAMETOOLONG if it does not fit. */
int ntkl_props_set_name(struct ntkl_properties *p, const char *name);

int ntkl_start(int fd, struct ntkl_properties *p);
int ntkl_stop(int fd, struct ntkl_properties *p);
int ntkl_query(int fd, struct ntkl_properties *p);
int ntkl_update(int fd, struct ntkl_properties *p);
int ntkl_flush(int fd, struct ntkl_properties *p);

/* QUERY on a bound descriptor: its logger, even once stopped. */
int ntkl_query_bound(int fd, struct ntkl_properties *p);

/*
 * Every running logger, sorted by id: *out is a malloc'd array of *count
 * properties (NULL when none). Retries if loggers start meanwhile.
 */
int ntkl_list(int fd, struct ntkl_properties **out, uint32_t *count);

/* Make fd the reader of the logger named name (if not empty) or id. */
int ntkl_bind(int fd, const char *name, uint32_t id);

/* Spin lock sampling (kernel-wide): 0 or -errno. */
int ntkl_get_spinlock_config(int fd, struct ntkl_spinlock_config *c);
int ntkl_set_spinlock_config(int fd, const struct ntkl_spinlock_config *c);

/* The sampled profile interval (kernel-wide, 100 ns units): 0 or -errno. */
int ntkl_get_profile_interval(int fd, uint32_t *interval);
int ntkl_set_profile_interval(int fd, uint32_t interval);

/* What the loaded module is (ABI, version, events): 0 or -errno (ENOTTY: older than ABI 2). */
int ntkl_get_version(int fd, struct ntkl_version *v);

#endif /* NTKL_CTL_H */
