/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace's image loaded from this machine (sym_load.c): its functions
 * and its build-id now.
 */
#ifndef NTKL_SYM_LOAD_H
#define NTKL_SYM_LOAD_H

#include "sym.h"
#include "sym_trace.h"

enum sym_kind { SYM_KIND_KERNEL, SYM_KIND_MODULE, SYM_KIND_VDSO, SYM_KIND_FILE };

/* What images are loaded with; zero it, set the paths (NULL: the defaults). */
struct sym_loader {
	const char *kallsyms_path;	/* NULL: /proc/kallsyms */
	const char *debug_root;		/* NULL: /usr/lib/debug */
	struct sym_kallsyms ksyms;	/* read once, at the first kernel image */
	int ksyms_state;		/* 0 unread, 1 read, -1 failed */
	char ksyms_err[512];
};

enum sym_kind sym_kind_of(const struct sym_trace_image *img);

/* A Windows image's name (\\SystemRoot\\..., C:\\...): Microsoft's server names it. */
bool sym_is_windows_path(const char *path);

/* The last component of path. */
const char *sym_base_name(const char *path);

/*
 * img's functions into t and its build-id now into id: the id's length
 * (0: it has none; an ELF file without one: the identity its size and
 * modification time give, struct ntkl_derived_id), or -1 with one line
 * in why: what cannot be read, what WPA shows for it and the fix.
 */
int sym_load(struct sym_loader *ld, const struct sym_trace_image *img, struct sym_table *t,
	     uint8_t id[SYM_BUILD_ID_MAX], char *why, size_t why_size);

/*
 * sym_load(), then the identity: the GUID the build-id rule gives (its
 * first 16 bytes) into guid, which must be the trace's DbgID_RSDS GUID
 * if it has one. 0, or -1 with one line in why (no build-id, DbgID_NONE,
 * replaced since the trace, or what sym_load() says).
 */
int sym_load_checked(struct sym_loader *ld, const struct sym_trace_image *img,
		     struct sym_table *t, uint8_t guid[16], char *why, size_t why_size);

void sym_loader_free(struct sym_loader *ld);

#endif /* NTKL_SYM_LOAD_H */
