// SPDX-License-Identifier: MIT
#include "guests/common/console.h"

#include "guests/common/x86.h"
#include "hv/lib/fmt.h"

#define DEBUGCON_PORT	0xe9
#define UART_PORT	0x3f8
#define UART_THR	0
#define UART_DLL	0
#define UART_IER	1
#define UART_DLM	1
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_SCR	7
#define LCR_DLAB	0x80
#define LCR_8N1		0x03
#define LSR_THRE	0x20
#define UART_DIVISOR	1	/* 1843200 Hz / 16 / 115200 */
/* A byte at 115200 baud takes ~87 us; give up long after that. */
#define UART_SPIN_LIMIT	1000000
/*
 * A line takes ~10 ms at 115200 baud. A holder that never lets go (a CPU
 * that faulted inside con_write) must not silence the others for good:
 * after this many TSC ticks the lock is taken anyway.
 */
#define CON_LOCK_TSC_LIMIT	200000000ull
#define CON_LINE_MAX		512

static bool uart_present;
static bool debugcon_on = true;
static int con_lock;

void con_init(bool program_uart)
{
	uart_present = true;
	/*
	 * Under Tempo (the firmware's UART is virtual and already set up) the
	 * 0xE9 copy would only double the exits per byte.
	 */
	debugcon_on = program_uart;
	if (!program_uart)
		return;
	/* The scratch register tells a UART from an empty port (reads 0xff). */
	outb(UART_PORT + UART_SCR, 0x5a);
	if (inb(UART_PORT + UART_SCR) != 0x5a) {
		uart_present = false;
		return;
	}
	outb(UART_PORT + UART_IER, 0x00);	/* polled: no interrupts */
	outb(UART_PORT + UART_LCR, LCR_DLAB);
	outb(UART_PORT + UART_DLL, UART_DIVISOR & 0xff);
	outb(UART_PORT + UART_DLM, UART_DIVISOR >> 8);
	outb(UART_PORT + UART_LCR, LCR_8N1);
	outb(UART_PORT + UART_FCR, 0x07);	/* FIFO on, cleared */
	outb(UART_PORT + UART_MCR, 0x03);	/* DTR, RTS */
}

static void uart_putc(char c)
{
	unsigned int spins = 0;

	if (!uart_present)
		return;
	while (!(inb(UART_PORT + UART_LSR) & LSR_THRE)) {
		if (++spins > UART_SPIN_LIMIT) {
			uart_present = false;	/* wedged: stop waiting on it */
			return;
		}
		cpu_relax();
	}
	outb(UART_PORT + UART_THR, (uint8_t)c);
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
