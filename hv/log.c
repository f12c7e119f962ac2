// SPDX-License-Identifier: MIT
#include "hv/log.h"

#include <stdarg.h>

#include "drivers/debugcon.h"
#include "drivers/uart16550.h"
#include "hv/fmt.h"

static int log_level = LOG_INFO;

void log_set_level(int level)
{
	log_level = level < LOG_EMERG ? LOG_EMERG : level > LOG_DEBUG ? LOG_DEBUG : level;
}

int log_get_level(void)
{
	return log_level;
}

void console_write(const char *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
		debugcon_putc(s[i]);
	}
}

void log_printf(int level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	console_write(buf, n);
}
