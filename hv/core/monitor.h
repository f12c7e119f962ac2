/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor monitor's input: a line editor for the bytes the console
 * input router (hv/core/console_input.h) sends to the monitor, and the parser
 * of the finished line into a command. Doing the command (printing a list,
 * stopping a partition) is the caller's, in root mode; this only decides
 * what was asked and says precisely what is wrong with a bad line.
 * Pure: host-testable.
 */
#ifndef TEMPO_HV_MONITOR_H
#define TEMPO_HV_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MONITOR_LINE_SIZE	128
/*
 * The most characters a line may hold. The editor keeps one more in buf
 * when a line overflows, so that the line it hands on is too long for the
 * parser too, which then says so; buf always has room for the NUL.
 */
#define MONITOR_LINE_MAX	(MONITOR_LINE_SIZE - 2)
#define MONITOR_ECHO_MAX	8	/* the least room monitor_line_byte's echo needs */
#define MONITOR_VCPU_MAX	255	/* a VCPU argument above this is refused */

struct monitor_line {
	char buf[MONITOR_LINE_SIZE];	/* NUL-terminated at all times */
	uint32_t len;
	bool overflow;			/* longer than MONITOR_LINE_MAX: the line is dropped */
	uint8_t esc;			/* inside a terminal escape sequence (arrow keys) */
	bool ready;			/* buf holds a finished line */
};

void monitor_line_reset(struct monitor_line *l);

/*
 * One byte from the operator. Returns 1 when a line is complete in buf (at
 * CR or LF; then call monitor_line_reset before the next byte: a byte that
 * comes without it starts a new line all the same), else 0. An
 * empty line is ignored (returns 0, echoes nothing), so the LF of a CR LF
 * pair makes no second line. Backspace and DEL erase one character. Tab is
 * taken as a space. Other control bytes, bytes above 0x7e and terminal
 * escape sequences (ESC [ ... or ESC O x, as arrow keys send) are dropped.
 * Past MONITOR_LINE_MAX characters nothing more is taken, not even
 * backspace, until the end of the line, which then comes back with
 * overflow set and MONITOR_LINE_MAX + 1 characters in buf, so that
 * monitor_parse answers "line too long".
 *
 * @echo (at least MONITOR_ECHO_MAX bytes, not NUL-terminated) gets what to
 * send back to the terminal, @echo_len its length (0: nothing): the
 * character, "\b \b" for an erase, "\r\n" at the end of a line, BEL when
 * the line first overflows.
 */
int monitor_line_byte(struct monitor_line *l, uint8_t b, char *echo, uint32_t *echo_len);

enum monitor_op {
	MON_HELP,
	MON_LIST,
	MON_STATS,
	MON_TRACE,
	MON_STOP,
	MON_RESTART,
	MON_MODE,
	MON_TICKS,
	MON_CONSOLE,
	/* start a partition that has ended (NAME, or N as Ctrl-T N numbers them) */
	MON_START,
	MON_REBOOT,	/* reset the machine */
};

struct monitor_cmd {
	enum monitor_op op;
	uint32_t part;	/* index into names: stats trace stop restart mode console start */
	uint32_t vcpu;	/* mode: 0..MONITOR_VCPU_MAX; the caller checks its vCPU count */
	uint32_t mode;	/* mode: what mode_of returned */
};

/*
 * Parse @line: words separated by spaces or tabs, case-sensitive, leading
 * and trailing blanks ignored. names[count] are the partitions' names; a
 * timer mode's name is resolved by @mode_of, which returns -1 for unknown
 * (NULL: none is known). Returns 0 with the command in @out, or -1 with
 * @out zeroed and a one-line message, no newline, in @err (@errlen 0:
 * none): no command, an unknown command, a missing argument (which, with
 * the usage), too many arguments, an unknown partition (a partition is its
 * name or, where no partition has that name, its number from 1 as Ctrl-T
 * numbers them: "start 2"), a VCPU that is not
 * a decimal number up to MONITOR_VCPU_MAX, an unknown timer mode, a line
 * longer than MONITOR_LINE_MAX.
 */
int monitor_parse(const char *line, const char *const *names, uint32_t count,
		  int (*mode_of)(const char *name), struct monitor_cmd *out, char *err,
		  size_t errlen);

/* The commands, one a line ending in '\n', each with what it does. */
const char *monitor_help(void);

#endif
