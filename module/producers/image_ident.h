/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The identity of an image's code, for its DbgID_RSDS record: the GNU
 * build id (NT_GNU_BUILD_ID) its ELF notes carry, read where the code is
 * when the Image record is written (image_ident.c says how, for each kind
 * of image); for an ELF file without one, its size and modification time
 * (NTKL_DERIVED_ID_SIZE bytes, uapi/ntkl_etw.h). A length of 0: none
 * found (DbgID_NONE).
 */
#ifndef _NTKL_IMAGE_IDENT_H
#define _NTKL_IMAGE_IDENT_H

#include <linux/types.h>

struct file;
struct mm_struct;
struct module;

#define NTKL_BUILD_ID_MAX	20	/* a SHA-1's: what GNU ld writes */

struct ntkl_build_id {
	u8 id[NTKL_BUILD_ID_MAX];
	u8 len;
};

/* The kernel's own, found once at load (may sleep). */
void ntkl_build_id_find_kernel(void);
const struct ntkl_build_id *ntkl_build_id_kernel(void);

/* Never sleep: for probes, and for rundowns with preemption off. */
void ntkl_build_id_module(const struct module *mod, struct ntkl_build_id *bid);
void ntkl_build_id_vdso(const struct mm_struct *mm, struct ntkl_build_id *bid);
void ntkl_build_id_file(struct file *file, struct ntkl_build_id *bid);

#endif /* _NTKL_IMAGE_IDENT_H */
