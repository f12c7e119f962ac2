// SPDX-License-Identifier: MIT
#include "drivers/debugcon.h"

#include "arch/x86/cpu.h"

/* On by default: on real hardware a write to 0xE9 is harmless (POST card). */
static int debugcon_on = 1;

void debugcon_enable(int on)
{
	debugcon_on = on;
}

void debugcon_putc(char c)
{
	if (debugcon_on)
		outb(DEBUGCON_PORT, (uint8_t)c);
}
