// SPDX-License-Identifier: MIT
/* Where the log's lines go: the serial port and the 0xE9 debug console. */
#include "hv/lib/log.h"

#include "drivers/debugcon.h"
#include "hv/lib/uart16550.h"

void console_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
		debugcon_putc(s[i]);
	}
}
