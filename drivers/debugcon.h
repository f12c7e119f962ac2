/* SPDX-License-Identifier: MIT */
/* Port 0xE9: Bochs' and QEMU's debug console. */
#ifndef TEMPO_DRIVERS_DEBUGCON_H
#define TEMPO_DRIVERS_DEBUGCON_H

#define DEBUGCON_PORT 0xe9

void debugcon_enable(int on);
void debugcon_putc(char c);

#endif
