/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntklctl, the control library: its one public header. Every function
 * it exports is named ntkl_*.
 *
 *   ntkl_ctl.h      the /dev/ntkl ioctls
 *   ntkl_writer.h   a bound logger's buffers into an ETL file
 *   etl_file.h      an ETL file: create, complete, patch (also libntkl's)
 *   ntkl_errors.h   an errno as the ETW error and one line of advice
 *   ntkl_flags.h    -on FLAGS: names, group masks, formatting
 *   ntkl_opts.h     start/record/update options
 *   ntkl_state.h    the background writers' state; ntkl_show.h, query output
 *   ntkl_time_zone.h  the local time zone for the ETL header
 */
#ifndef NTKL_CONTROL_H
#define NTKL_CONTROL_H

#include "etl_file.h"
#include "ntkl_ctl.h"
#include "ntkl_errors.h"
#include "ntkl_flags.h"
#include "ntkl_opts.h"
#include "ntkl_profiles.h"
#include "ntkl_show.h"
#include "ntkl_stackwalk.h"
#include "ntkl_state.h"
#include "ntkl_time_zone.h"
#include "ntkl_writer.h"

#endif /* NTKL_CONTROL_H */
