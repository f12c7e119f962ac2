/* SPDX-License-Identifier: MIT */
/*
 * Kernel command line: space-separated words, each "key" or "key=value".
 * Host-testable.
 */
#ifndef TEMPO_HV_CMDLINE_H
#define TEMPO_HV_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Find @key. Returns true when present; copies its value (empty for a bare
 * "key") into @val, truncated to @val_size - 1 and NUL-terminated. The last
 * occurrence wins, as on Linux.
 */
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t val_size);

/* Parse an unsigned decimal value; returns false if absent or malformed. */
bool cmdline_get_uint(const char *cmdline, const char *key, unsigned long *out);

#endif
