/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The local time zone for an ETL header's TimeZone field.
 */
#ifndef NTKL_TIME_ZONE_H
#define NTKL_TIME_ZONE_H

#include <stdint.h>

#include "uapi/ntkl_etw.h"

/*
 * The local time zone (TZ, else /etc/localtime) as TIME_ZONE_INFORMATION:
 * Bias, StandardBias 0, DaylightBias, the zone's abbreviations as names,
 * and the year's transitions of now as Windows' recurring dates (year 0,
 * month, weekday, week of the month with 5 the last, the local time the
 * clocks show before they change). A zone without summer time has zero
 * dates and DaylightBias 0.
 */
void ntkl_time_zone(int64_t now, struct etw_time_zone_information *tz);

#endif /* NTKL_TIME_ZONE_H */
