/* SPDX-License-Identifier: MIT */
/* 16550 UART on COM1, polled, 115200 8N1. */
#ifndef TEMPO_HV_LIB_UART16550_H
#define TEMPO_HV_LIB_UART16550_H

#include <stdbool.h>

#define UART_COM1_PORT 0x3f8

/* Returns false when no UART answers at the port (output is then dropped). */
bool uart_init(unsigned short port);
/* Write to the UART at @port as someone else set it up (a guest under Tempo). */
void uart_use(unsigned short port);
void uart_putc(char c);
/* A received byte, if one is waiting (LSR.DR): never waits. */
bool uart_getc(unsigned char *c);
/* Wait until every byte written has left the wire (before a power-off or emulator exit). */
void uart_flush(void);

#endif
