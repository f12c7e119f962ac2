// SPDX-License-Identifier: MIT
#include "guests/common/console.h"

#include "guests/common/x86.h"
#include "hv/lib/fmt.h"
#include "hv/lib/uart16550.h"

#define DEBUGCON_PORT	0xe9
/*
 * A line takes ~10 ms at 115200 baud. A holder that never lets go (a CPU
 * that faulted inside con_write) must not silence the others for good:
 * after this many TSC ticks the lock is taken anyway.
 */
#define CON_LOCK_TSC_LIMIT	200000000ull
#define CON_LINE_MAX		512

static bool debugcon_on = true;
static int con_lock;

void con_init(bool program_uart)
{
	/*
	 * Under Tempo (the firmware's UART is virtual and already set up) the
	 * 0xE9 copy would only double the exits per byte.
	 */
	debugcon_on = program_uart;
	if (program_uart)
		uart_init(UART_COM1_PORT);
	else
		uart_use(UART_COM1_PORT);
}

static void con_lock_take(void)
{
	uint64_t start = rdtsc();

	while (__atomic_exchange_n(&con_lock, 1, __ATOMIC_ACQUIRE)) {
		if (rdtsc() - start > CON_LOCK_TSC_LIMIT)
			return;
		cpu_relax();
	}
}

static void con_lock_drop(void)
{
	__atomic_store_n(&con_lock, 0, __ATOMIC_RELEASE);
}

void con_write(const char *s, size_t len)
{
	con_lock_take();
	for (size_t i = 0; i < len; i++) {
		if (debugcon_on)
			outb(DEBUGCON_PORT, (uint8_t)s[i]);
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
	con_lock_drop();
}

void con_printf(const char *fmt, ...)
{
	char line[CON_LINE_MAX];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = fmt_vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* A cut line still ends its line, so the next one starts clean. */
	if (n == sizeof(line) - 1)
		line[n - 1] = '\n';
	con_write(line, n);
}
