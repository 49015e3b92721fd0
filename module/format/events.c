// SPDX-License-Identifier: GPL-2.0
/*
 * The module's copy of the event and layout tables, expanded from their one
 * definition in uapi/ntkl_events.h. The redaction walker reads them; the
 * writers use the same definition's compile-time constants.
 */
#include <linux/stddef.h>

#include "uapi/ntkl_event_table.h"
