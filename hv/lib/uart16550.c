// SPDX-License-Identifier: MIT
/* The hypervisor's, the EFI loader's and the guests' serial port. */
#include "hv/lib/uart16550.h"

#include "hv/lib/x86.h"

#define UART_THR	0	/* transmit holding (DLAB=0) */
#define UART_DLL	0	/* divisor latch low (DLAB=1) */
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
#define LSR_TEMT	0x40	/* the FIFO and the shift register both empty */
#define UART_CLOCK_HZ	1843200
#define UART_BAUD	115200
/* A byte at 115200 baud takes ~87 us; give up long after that. */
#define UART_SPIN_LIMIT	1000000

static unsigned short uart_port;
static bool uart_present;

void uart_use(unsigned short port)
{
	uart_port = port;
	uart_present = true;
}

bool uart_init(unsigned short port)
{
	unsigned int divisor = UART_CLOCK_HZ / 16 / UART_BAUD;

	uart_port = port;
	/* The scratch register tells a UART from an empty port (reads 0xff). */
	outb(port + UART_SCR, 0x5a);
	if (inb(port + UART_SCR) != 0x5a) {
		uart_present = false;
		return false;
	}
	outb(port + UART_IER, 0x00);		/* polled: no interrupts */
	outb(port + UART_LCR, LCR_DLAB);
	outb(port + UART_DLL, divisor & 0xff);
	outb(port + UART_DLM, divisor >> 8);
	outb(port + UART_LCR, LCR_8N1);
	outb(port + UART_FCR, 0x07);		/* FIFO on, cleared */
	outb(port + UART_MCR, 0x03);		/* DTR, RTS */
	uart_present = true;
	return true;
}

#define LSR_DR		0x01	/* a received byte waits in RBR */

bool uart_getc(unsigned char *c)
{
	if (!uart_present || !(inb(uart_port + UART_LSR) & LSR_DR))
		return false;
	*c = inb(uart_port + UART_THR);	/* RBR: the same offset, read */
	return true;
}

void uart_putc(char c)
{
	unsigned int spins = 0;

	if (!uart_present)
		return;
	while (!(inb(uart_port + UART_LSR) & LSR_THRE)) {
		if (++spins > UART_SPIN_LIMIT) {
			uart_present = false;	/* wedged: stop waiting on it */
			return;
		}
		cpu_relax();
	}
	outb(uart_port + UART_THR, (uint8_t)c);
}

void uart_flush(void)
{
	unsigned int spins = 0;

	while (uart_present && !(inb(uart_port + UART_LSR) & LSR_TEMT) &&
	       ++spins <= UART_SPIN_LIMIT)
		cpu_relax();
}
