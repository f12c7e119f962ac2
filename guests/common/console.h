/* SPDX-License-Identifier: MIT */
/*
 * Guest console: every byte goes to the debug port 0xE9 and to the 16550 at
 * 0x3F8 (polled, bounded). Whole lines are written under one lock so lines
 * from several CPUs do not interleave.
 */
#ifndef TEMPO_GUESTS_COMMON_CONSOLE_H
#define TEMPO_GUESTS_COMMON_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * @program_uart: set 115200 8N1 (bare metal). Under a hypervisor the UART
 * belongs to it, so the guest only writes bytes.
 */
void con_init(bool program_uart);
void con_write(const char *s, size_t len);
void con_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
