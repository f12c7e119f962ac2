// SPDX-License-Identifier: MIT
#include "hv/lib/log.h"

#include <stdarg.h>
#include <stdbool.h>

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

static int log_level = LOG_INFO;
/*
 * One line at a time on the wire, whichever CPU prints. A CPU that cannot get
 * the lock in a bounded time prints anyway: a dump from a dying CPU matters
 * more than tidy output.
 */
static volatile int console_lock;
#define CONSOLE_LOCK_SPINS 50000000u

static bool lock_console(void)
{
	for (unsigned int i = 0; i < CONSOLE_LOCK_SPINS; i++) {
		if (!__atomic_exchange_n(&console_lock, 1, __ATOMIC_ACQUIRE))
			return true;
		asm volatile("pause");
	}
	return false;
}

static void unlock_console(void)
{
	__atomic_store_n(&console_lock, 0, __ATOMIC_RELEASE);
}

void log_set_level(int level)
{
	log_level = level < LOG_EMERG ? LOG_EMERG : level > LOG_DEBUG ? LOG_DEBUG : level;
}

int log_get_level(void)
{
	return log_level;
}

void log_printf(int level, const char *fmt, ...)
{
	char buf[LOG_LINE_MAX];
	va_list ap;
	bool locked;
	int n;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		/*
		 * Cut, but a line stays a line: the next one must not run on
		 * after it where a script reads lines (a format ending in a
		 * newline is a line).
		 */
		size_t len = strlen(fmt);

		n = sizeof(buf) - 1;
		if (len && fmt[len - 1] == '\n')
			buf[n - 1] = '\n';
	}
	locked = lock_console();
	console_write(buf, n);
	if (locked)
		unlock_console();
}
