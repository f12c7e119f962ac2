/* SPDX-License-Identifier: MIT */
/*
 * A partition's console bytes as the operator's terminal may see them: its
 * control bytes and escape sequences could move the cursor, clear the
 * screen or retitle the window, and so redraw what Tempo printed (a stop
 * report, another partition's lines). They are shown escaped, as a
 * terminal multiplexer's log or `cat -v` shows them; text passes as is:
 *  - printable ASCII and TAB: as is (LF ends the line and CR is dropped,
 *    by the line assembler, hv/core/vuart.c);
 *  - the other C0 controls and DEL: caret notation, ESC as "^[", BEL as
 *    "^G", NUL as "^@", DEL as "^?";
 *  - valid UTF-8 (RFC 3629: shortest form, no surrogates, up to
 *    U+10FFFF): as is, but the C1 controls U+0080-U+009F (U+009B is a CSI
 *    to some terminals) as "\xc2\x9b";
 *  - every byte of anything else (a stray continuation byte, an overlong
 *    or cut sequence, 0xF5-0xFF): "\xNN", lower-case hex.
 * A sequence may come split across writes: its first bytes wait in the
 * state until the rest arrives or something else shows it cut.
 * Pure and host-testable (tests/unit/test_vuart.c).
 */
#ifndef TEMPO_HV_CONS_ESCAPE_H
#define TEMPO_HV_CONS_ESCAPE_H

#include <stdint.h>

/* The most one byte can produce: three held bytes and itself, each "\xNN". */
#define CONS_ESCAPE_OUT_MAX	16

struct cons_escape {
	uint8_t held[4];	/* a UTF-8 sequence, as it arrives */
	uint8_t held_len;
	uint8_t need;		/* its length (2-4), 0 when none is held */
};

/* Byte @c of the output: what to print for it now (0 .. CONS_ESCAPE_OUT_MAX chars) in @out. */
uint32_t cons_escape_byte(struct cons_escape *e, uint8_t c, char *out);

/* The line ends: a sequence still held is cut, its bytes escaped into @out. */
uint32_t cons_escape_end(struct cons_escape *e, char *out);

#endif
