/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Linux return value as the NTSTATUS Windows would give the same
 * failure: the one mapping of the records that carry a status (SysClExit,
 * FileIo OperationEnd's NtStatus). docs/linux-to-nt.md lists it.
 */
#ifndef _NTKL_FORMAT_NTSTATUS_H
#define _NTKL_FORMAT_NTSTATUS_H

#include <linux/errno.h>
#include <linux/types.h>

#include "uapi/ntkl_etw.h"

/* ret: 0 or more succeeded; -errno failed (an errno Windows has no word for: UNSUCCESSFUL) */
static inline u32 ntkl_ntstatus(long ret)
{
	if (ret >= 0)
		return ETW_STATUS_SUCCESS;
	switch (-ret) {
	case ENOENT:
		return ETW_STATUS_OBJECT_NAME_NOT_FOUND;
	case EACCES:
	case EPERM:
		return ETW_STATUS_ACCESS_DENIED;
	case EEXIST:
		return ETW_STATUS_OBJECT_NAME_COLLISION;
	case ENOSPC:
	case EDQUOT:
		return ETW_STATUS_DISK_FULL;
	case EROFS:
		return ETW_STATUS_MEDIA_WRITE_PROTECTED;
	case EISDIR:
		return ETW_STATUS_FILE_IS_A_DIRECTORY;
	case ENOTDIR:
		return ETW_STATUS_NOT_A_DIRECTORY;
	case ENOTEMPTY:
		return ETW_STATUS_DIRECTORY_NOT_EMPTY;
	case ENAMETOOLONG:
		return ETW_STATUS_NAME_TOO_LONG;
	case EXDEV:
		return ETW_STATUS_NOT_SAME_DEVICE;
	case EBADF:
		return ETW_STATUS_INVALID_HANDLE;
	case EINVAL:
		return ETW_STATUS_INVALID_PARAMETER;
	case EFAULT:
		return ETW_STATUS_ACCESS_VIOLATION;
	case ENOMEM:
		return ETW_STATUS_NO_MEMORY;
	case EIO:
		return ETW_STATUS_IO_DEVICE_ERROR;
	case EFBIG:
		return ETW_STATUS_FILE_TOO_LARGE;
	case EOPNOTSUPP:
		return ETW_STATUS_NOT_SUPPORTED;
	case EINTR:
	case ERESTARTSYS:
	case ERESTARTNOINTR:
	case ERESTARTNOHAND:
		return ETW_STATUS_CANCELLED;
	default:
		return ETW_STATUS_UNSUCCESSFUL;
	}
}

#endif /* _NTKL_FORMAT_NTSTATUS_H */
