/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ntkl control ABI: ioctls on /dev/ntkl.
 *
 * Rules (Documentation/process/botching-up-ioctls.rst): fixed-width fields,
 * explicit padding that must be zero, -ENOTTY for unknown commands.
 */
#ifndef _UAPI_NTKL_H
#define _UAPI_NTKL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NTKL_DEVICE_NAME	"ntkl"
#define NTKL_DEVICE_PATH	"/dev/ntkl"

/* ioctl type byte: 0xE7 is unused in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define NTKL_IOC_MAGIC		0xE7

#endif /* _UAPI_NTKL_H */
