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
 * "key") into @val, NUL-terminated. A value longer than @val_size - 1 is
 * cut to that and, where @val_size > 1, its last character made '~', so
 * that it matches no word a caller compares it with (and shows as cut
 * where it is printed).
 * The last occurrence wins, as on Linux.
 */
bool cmdline_get(const char *cmdline, const char *key, char *val, size_t val_size);

/* Parse an unsigned decimal value; returns false if absent or malformed. */
bool cmdline_get_uint(const char *cmdline, const char *key, unsigned long *out);

/*
 * reboot=N: how many seconds after a stop (a malformed config, missing
 * ACPI, a fault, or the last partition's end with all_ended = reboot) Tempo
 * resets the machine, as Linux's panic=N; 0 halts for ever instead.
 *
 * The default reboots: a server that is reached over the network and a
 * serial console comes back to its boot loader by itself (and with a
 * one-shot `grub-reboot tempo`, to Debian), where a halt would need someone
 * at the rack or a power cycle. Ten seconds leave the last lines readable
 * on a console that is being watched, and are short against a reboot.
 */
#define CMDLINE_REBOOT_DEFAULT_S	10
#define CMDLINE_REBOOT_MAX_S		3600	/* an hour: longer is a typing error */

enum cmdline_reboot_result {
	CMDLINE_REBOOT_DEFAULT,		/* no reboot= given: the default */
	CMDLINE_REBOOT_GIVEN,		/* a valid reboot=N */
	CMDLINE_REBOOT_MALFORMED,	/* not a number of 0..CMDLINE_REBOOT_MAX_S: the default */
};

/*
 * The reboot delay in seconds from @cmdline into @delay_s. A malformed value
 * (not decimal digits, or above the maximum) gives the default, so a typing
 * error never leaves a remote machine halted; the caller warns about it.
 */
enum cmdline_reboot_result cmdline_reboot_delay(const char *cmdline, unsigned long *delay_s);

#endif
