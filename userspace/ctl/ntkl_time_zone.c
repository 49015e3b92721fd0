// SPDX-License-Identifier: GPL-2.0
/*
 * The local time zone as an ETL header's TIME_ZONE_INFORMATION. See
 * ntkl_time_zone.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ntkl_time_zone.h"

static void ascii_to_utf16(const char *src, uint16_t *dst, size_t units)
{
	size_t i;

	memset(dst, 0, units * 2);
	for (i = 0; src && src[i] && i + 1 < units; i++)
		dst[i] = (unsigned char)src[i];
}

/* Windows' recurring date of a transition: the wall clock before it. */
static void transition_date(time_t t, long old_gmtoff, struct etw_systemtime *d)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	time_t wall = t + old_gmtoff;
	struct tm tm;
	int days;

	gmtime_r(&wall, &tm);
	days = mdays[tm.tm_mon];
	if (tm.tm_mon == 1 && ((tm.tm_year % 4 == 0 && tm.tm_year % 100 != 0) ||
			       (tm.tm_year + 1900) % 400 == 0))
		days = 29;
	memset(d, 0, sizeof(*d));
	d->month = (uint16_t)(tm.tm_mon + 1);
	d->day_of_week = (uint16_t)tm.tm_wday;
	/* the n-th such weekday of the month; 5 if it is the last */
	d->day = tm.tm_mday + 7 > days ? 5 : (uint16_t)((tm.tm_mday - 1) / 7 + 1);
	d->hour = (uint16_t)tm.tm_hour;
	d->minute = (uint16_t)tm.tm_min;
	d->second = (uint16_t)tm.tm_sec;
}

/* The first second in (lo, hi] whose tm_isdst differs from lo's. */
static time_t find_change(time_t lo, time_t hi)
{
	struct tm a, m;

	localtime_r(&lo, &a);
	while (hi - lo > 1) {
		time_t mid = lo + (hi - lo) / 2;

		localtime_r(&mid, &m);
		if (m.tm_isdst == a.tm_isdst && m.tm_gmtoff == a.tm_gmtoff)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

void ntkl_time_zone(int64_t now, struct etw_time_zone_information *tz)
{
	time_t t = (time_t)now, year_start, step, when;
	struct tm tm, prev, cur;
	long std_off, dst_off;
	bool have_std = false, have_dst = false;
	char std_name[32] = "", dst_name[32] = "";

	memset(tz, 0, sizeof(*tz));
	tzset();
	localtime_r(&t, &tm);
	tm.tm_mon = 0;
	tm.tm_mday = 1;
	tm.tm_hour = 0;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	year_start = mktime(&tm);
	std_off = tm.tm_gmtoff;
	dst_off = tm.tm_gmtoff;
	/*
	 * Walk the year by days, each change found to the second. Days, not
	 * hours: no zone changes twice in a day, and the writer does this as a
	 * capture begins, beside the workload (by hours it was some millions
	 * of instructions, a tenth of what a second of switch records costs).
	 */
	localtime_r(&year_start, &prev);
	for (step = year_start; step < year_start + 366 * 86400; step += 86400) {
		time_t next = step + 86400;

		localtime_r(&next, &cur);
		if (cur.tm_isdst != prev.tm_isdst || cur.tm_gmtoff != prev.tm_gmtoff) {
			when = find_change(step, next);
			localtime_r(&when, &cur);
			if (cur.tm_isdst > 0 && !have_dst) {
				/* summer time begins: DaylightDate, in standard time */
				transition_date(when, prev.tm_gmtoff, &tz->daylight_date);
				have_dst = true;
			} else if (cur.tm_isdst == 0 && !have_std) {
				transition_date(when, prev.tm_gmtoff, &tz->standard_date);
				have_std = true;
			}
		}
		if (cur.tm_isdst > 0) {
			dst_off = cur.tm_gmtoff;
			snprintf(dst_name, sizeof(dst_name), "%s", cur.tm_zone ? cur.tm_zone : "");
		} else {
			std_off = cur.tm_gmtoff;
			snprintf(std_name, sizeof(std_name), "%s", cur.tm_zone ? cur.tm_zone : "");
		}
		prev = cur;
	}
	tz->bias = (int32_t)(-std_off / 60);
	tz->standard_bias = 0;
	if (have_dst && have_std) {
		tz->daylight_bias = (int32_t)(-(dst_off - std_off) / 60);
	} else {
		memset(&tz->standard_date, 0, sizeof(tz->standard_date));
		memset(&tz->daylight_date, 0, sizeof(tz->daylight_date));
		tz->daylight_bias = 0;
	}
	ascii_to_utf16(std_name, tz->standard_name, 32);
	ascii_to_utf16(dst_name[0] ? dst_name : std_name, tz->daylight_name, 32);
}
