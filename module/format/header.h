/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header buffer (header.c): the first buffer a reader gets, and the
 * HeaderExtension payload rundowns copy.
 */
#ifndef _NTKL_FORMAT_HEADER_H
#define _NTKL_FORMAT_HEADER_H

#include "ntkl.h"

void ntkl_header_build(struct ntkl_logger *lg);
void ntkl_header_extension(const struct ntkl_logger *lg, struct etw_header_extension *ext);

#endif /* _NTKL_FORMAT_HEADER_H */
