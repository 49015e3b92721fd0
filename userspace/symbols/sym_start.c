// SPDX-License-Identifier: GPL-2.0
/*
 * The start routines of processes and threads: the functions a whole
 * user stack ends in. See sym_profile.h (struct sym_user_stacks).
 */
#include <string.h>

#include "sym_profile.h"

/*
 * Where a process or a thread begins: below these there is no caller to
 * walk to. The module's walk ends a stack there because their unwind data
 * says so (glibc's entry code marks its return address undefined,
 * cfi_undefined (rip): NTKL_USTOP_END), or, in a libc built without
 * unwind tables (musl), because the first libc frame above the program's
 * own code is the last one any walk reaches; there that frame is the one
 * that called main or the thread's function, and the stack is as whole
 * as that libc lets it be. Each name is one that sym_table_find() can
 * give (of aliases at one address, the last by name).
 */
static const char *const start_routines[] = {
	/*
	 * The psABI's process entry, crt1.o's (glibc's, musl's): a main
	 * thread's outermost frame. Also ld.so's own entry (untyped there:
	 * sym_elf.c names the entry point's symbol), where the dynamic
	 * linker maps a program's libraries and runs their constructors
	 * (_dl_start_user is a label inside it).
	 */
	"_start",
	/*
	 * glibc's callers of main, outermost when the walk cannot go on
	 * from them to _start (a crt1 with no unwind data or frame pointer):
	 * __libc_start_call_main (2.34 on) calls main and then exit;
	 * __libc_start_main, the exported name, calls it (main itself
	 * before 2.34); __libc_start_main_impl is 2.34's name of the same
	 * code, the one its aliases sort to.
	 */
	"__libc_start_call_main",
	"__libc_start_main",
	"__libc_start_main_impl",
	/*
	 * glibc's thread entry (nptl): calls the function given to
	 * pthread_create; outermost when the clone below it cannot be
	 * walked.
	 */
	"start_thread",
	/*
	 * glibc 2.34 on makes threads with clone3(), whose child side marks
	 * its return address undefined: a thread's outermost frame. One
	 * piece of code with three names (clone3, __clone3, __GI___clone3).
	 */
	"clone3",
	"__clone3",
	"__GI___clone3",
	/*
	 * clone(), the same for glibc's threads before 2.34 and for any
	 * child started by clone(fn, ...) (posix_spawn's); musl's __clone
	 * too (its child calls the thread's function with a zeroed frame
	 * pointer). Aliases: clone, __clone, __GI___clone.
	 */
	"clone",
	"__clone",
	"__GI___clone",
	/*
	 * musl, whose libc has no unwind tables (built with
	 * -fno-asynchronous-unwind-tables): _start_c is crt1's C half,
	 * called by _start; libc_start_main_stage2 calls main; start
	 * (pthread_create.c's) calls a thread's function, start_c
	 * (thrd_create's) a C11 thread's. "start" is a short name a program
	 * may use for a function of its own: such a stack counts as whole.
	 */
	"_start_c",
	"libc_start_main_stage2",
	"start",
	"start_c",
};

bool sym_start_routine(const char *function)
{
	/* a symbol table's name may carry its version (__libc_start_main@@GLIBC_2.34) */
	size_t len = strcspn(function, "@");

	for (size_t i = 0; i < sizeof(start_routines) / sizeof(start_routines[0]); i++)
		if (strlen(start_routines[i]) == len && !strncmp(start_routines[i], function, len))
			return true;
	return false;
}
