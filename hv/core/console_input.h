/* SPDX-License-Identifier: MIT */
/*
 * Where a byte typed on the physical COM1 goes. Input feeds one target at a
 * time, a partition (by its index in the configuration) or the hypervisor
 * monitor; Ctrl-T followed by a command key moves the focus. This decides
 * only; the caller delivers the byte (vuart_rx_push, or the monitor's line
 * editor) and prints what the result asks for. Pure: host-testable.
 */
#ifndef TEMPO_HV_CONSOLE_INPUT_H
#define TEMPO_HV_CONSOLE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#define CONSOLE_ESCAPE	0x14	/* Ctrl-T */

struct console_input {
	uint32_t targets;	/* partitions 0..targets-1; index `targets` is the monitor */
	uint32_t focus;		/* current target */
	bool escaped;		/* Ctrl-T seen, waiting for the command key */
};

enum cin_kind { CIN_NONE, CIN_BYTE, CIN_FOCUS, CIN_HELP, CIN_NO_PARTITION };

struct cin_result {
	enum cin_kind kind;
	uint8_t byte;
	uint32_t target;
};

/* Focus on partition 0, or on the monitor when there is no partition. */
void console_input_init(struct console_input *ci, uint32_t partitions);

/*
 * One received byte: CIN_BYTE -> deliver `byte` to `target` (a partition
 * index, or == targets for the monitor); CIN_FOCUS -> focus changed to
 * `target` (the caller prints a line saying so; it is returned even when
 * the key names the target already focused, so the operator sees where
 * input goes); CIN_HELP -> the caller prints the key help;
 * CIN_NO_PARTITION -> a digit named no partition: `target` is the index it
 * named, the focus stays, and the caller says so; CIN_NONE -> swallowed.
 *
 * Keys after Ctrl-T: n next target (the partitions in order, then the
 * monitor, then round again), p previous, m the monitor, 1..9 partition 1..9
 * by position (index 0..8; CIN_NO_PARTITION if there is none), ? or h help, Ctrl-T a
 * literal 0x14 for the focus; anything else is swallowed. Each ends the
 * escape.
 */
struct cin_result console_input_byte(struct console_input *ci, uint8_t b);

/* By name, from the monitor's `console NAME`; ignores out of range. */
void console_input_focus(struct console_input *ci, uint32_t target);

/* The key help, several lines each ending in '\n', for the operator and docs. */
const char *console_input_help(void);

#endif
