// SPDX-License-Identifier: GPL-2.0
/*
 * C++ and Rust names as people read them. WPA shows a PDB's names as they
 * are and undecorates only Microsoft's own mangling, so an Itanium-ABI
 * name (_Z...) or a Rust one (_R..., or _ZN...17h<hash>E) would stay
 * unreadable: libiberty's demangler (binutils' c++filt) turns them into
 * "ns::f(int)" here, once, before they go into the PDB.
 */
#include <libiberty/demangle.h>

#include "sym.h"

char *sym_demangle(const char *name)
{
	/* only mangled names: a C name is returned as NULL without a call */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* DMGL_AUTO: Rust first (its legacy names look like C++ ones), then C++ */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
