/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control side: the logger table and its operations (logger.c), who
 * may do what (access.c), the device (device.c) and its ioctls (ioctl.c).
 */
#ifndef _NTKL_CONTROL_H
#define _NTKL_CONTROL_H

#include <linux/types.h>

#include "ntkl.h"

struct file;

/* logger.c: the table and control operations */
int ntkl_logger_control(const struct file *file, unsigned int cmd, struct ntkl_properties *p);
void ntkl_logger_stop_owned(const struct file *file);
unsigned int ntkl_logger_list(struct ntkl_properties *props);
bool ntkl_logger_selected(const struct ntkl_logger *lg, const struct ntkl_properties *p);
void ntkl_logger_put(struct ntkl_logger *lg);
struct ntkl_logger *ntkl_logger_get_by_id(u32 id);
struct ntkl_logger *ntkl_logger_get_by_name(const char *name);
void ntkl_logger_fill(struct ntkl_logger *lg, struct ntkl_properties *p);
void ntkl_logger_stop_all(void);
int ntkl_logger_set_stack_tracing(const struct ntkl_stack_tracing *st, const u16 *hooks);
int ntkl_logger_get_stack_tracing(struct ntkl_stack_tracing *st, u16 *hooks, u32 room);

/* access.c: who may do what (its top comment) */
bool ntkl_may_trace(void);
bool ntkl_may_set_global(void);
void ntkl_owner_set(struct ntkl_logger *lg);
void ntkl_owner_put(struct ntkl_logger *lg);
int ntkl_may_manage(const struct ntkl_logger *lg);
u32 ntkl_owner_uid(const struct ntkl_logger *lg);
/* device.c: the bound reader's next buffer where it lies (NEXT_BUFFER) */
long ntkl_reader_next(struct file *file, struct ntkl_next_buffer *nb, void __user *arg,
		      u32 usize);
/* ioctl.c: a struct's copy to user memory, by uapi/ntkl.h's size rule */
int ntkl_copy_out(void __user *arg, u32 usize, void *k, size_t ksize);

/* control/ioctl.c */
long ntkl_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _NTKL_CONTROL_H */
