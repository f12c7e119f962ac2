// SPDX-License-Identifier: MIT
/* The console input router: Ctrl-T and its command keys, the focus. */
#include "hv/core/console_input.h"

void console_input_init(struct console_input *ci, uint32_t partitions)
{
	ci->targets = partitions;
	ci->focus = 0;	/* == partitions, the monitor, when there is none */
	ci->escaped = false;
}

static struct cin_result result(enum cin_kind kind, uint8_t byte, uint32_t target)
{
	struct cin_result r = { .kind = kind, .byte = byte, .target = target };

	return r;
}

static struct cin_result focus_on(struct console_input *ci, uint32_t target)
{
	ci->focus = target;
	return result(CIN_FOCUS, 0, target);
}

struct cin_result console_input_byte(struct console_input *ci, uint8_t b)
{
	/* the monitor makes targets + 1 places to cycle through */
	uint32_t places = ci->targets + 1;

	if (!ci->escaped) {
		if (b == CONSOLE_ESCAPE) {
			ci->escaped = true;
			return result(CIN_NONE, 0, ci->focus);
		}
		return result(CIN_BYTE, b, ci->focus);
	}
	ci->escaped = false;
	switch (b) {
	case 'n':
		return focus_on(ci, (ci->focus + 1) % places);
	case 'p':
		return focus_on(ci, (ci->focus + places - 1) % places);
	case 'm':
		return focus_on(ci, ci->targets);
	case '1' ... '9':
		/* said, not ignored: the operator would otherwise type into the old focus */
		if ((uint32_t)(b - '1') >= ci->targets)
			return result(CIN_NO_PARTITION, 0, (uint32_t)(b - '1'));
		return focus_on(ci, (uint32_t)(b - '1'));
	case '?':
	case 'h':
		return result(CIN_HELP, 0, ci->focus);
	case CONSOLE_ESCAPE:
		/* twice: the guest wanted the byte itself (an editor's key, say) */
		return result(CIN_BYTE, CONSOLE_ESCAPE, ci->focus);
	default:
		/* a mistyped key must not leak into the guest as if typed there */
		return result(CIN_NONE, 0, ci->focus);
	}
}

void console_input_focus(struct console_input *ci, uint32_t target)
{
	if (target <= ci->targets)
		ci->focus = target;
}

const char *console_input_help(void)
{
	return "Console keys: Ctrl-T, then\n"
	       "  n       next: the partitions in order, then the monitor\n"
	       "  p       previous\n"
	       "  m       the monitor\n"
	       "  1..9    partition 1..9, in the configuration's order\n"
	       "  ? or h  this help\n"
	       "  Ctrl-T  a Ctrl-T for the current target\n"
	       "Any other key after Ctrl-T is ignored.\n";
}
