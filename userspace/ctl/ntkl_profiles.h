/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named recording profiles, as WPR's built-in ones (wpr -start CPU):
 * `ntkl record -profile cpu` and `ntkl start NAME -profile latency` turn
 * on a set of -on FLAGS and -stackwalk HOOKS chosen for one question. An
 * -on or -stackwalk given beside -profile replaces that half of it.
 *
 * The table here is the one README.md's "Profiles" table shows; the CLI
 * test (scripts/test_cli) compares the two.
 */
#ifndef NTKL_PROFILES_H
#define NTKL_PROFILES_H

#include <stddef.h>
#include <stdio.h>

struct ntkl_profile {
	const char *name;		/* lower case; matched case-insensitively */
	const char *flags;		/* for -on */
	const char *stackwalk;		/* for -stackwalk ("none": no stacks) */
	const char *question;		/* what it answers, for the help */
};

/* The profiles, ended by a NULL name. */
extern const struct ntkl_profile ntkl_profiles[];

/* The profile called name (any case), or NULL. */
const struct ntkl_profile *ntkl_profile_find(const char *name);

/* "cpu, latency, ...": the names, for an error line. */
const char *ntkl_profile_names(char *buf, size_t size);

/*
 * For usage texts, three lines per profile, each starting with indent:
 *	name      question:
 *	          -on FLAGS
 *	          -stackwalk HOOKS
 */
void ntkl_profiles_help(FILE *out, const char *indent);

#endif /* NTKL_PROFILES_H */
