// SPDX-License-Identifier: MIT
/* The monitor's line editor and command parser. */
#include "hv/core/monitor.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define BS	0x08
#define ESC	0x1b
#define DEL	0x7f
#define BEL	0x07

enum { ESC_NONE, ESC_START, ESC_SEQ };

void monitor_line_reset(struct monitor_line *l)
{
	memset(l, 0, sizeof(*l));
}

/*
 * Inside ESC [ ... or ESC O x: true while @b belongs to the sequence. Only
 * a byte that cannot be part of one (a CR, say) ends it early and is taken
 * as itself, so a stray ESC never eats the end of a line.
 */
static bool in_escape(struct monitor_line *l, uint8_t b)
{
	if (l->esc == ESC_START) {
		if (b == ESC)
			return true;
		if (b == '[' || b == 'O') {
			l->esc = ESC_SEQ;
			return true;
		}
		l->esc = ESC_NONE;
		/* ESC and a character is Alt and that character: dropped */
		return b >= 0x20 && b <= 0x7e;
	}
	/* parameters and intermediates 0x20-0x3f, then a final 0x40-0x7e */
	if (b >= 0x20 && b <= 0x3f)
		return true;
	l->esc = ESC_NONE;
	return b >= 0x40 && b <= 0x7e;
}

int monitor_line_byte(struct monitor_line *l, uint8_t b, char *echo, uint32_t *echo_len)
{
	uint32_t n = 0;
	int done = 0;

	/* a caller that forgot the reset must not get the line twice (CR LF) */
	if (l->ready)
		monitor_line_reset(l);
	if (l->esc != ESC_NONE && in_escape(l, b))
		goto out;
	switch (b) {
	case '\r':
	case '\n':
		/* nothing typed: a lone Enter, or the LF after a CR */
		if (!l->len)
			break;
		echo[n++] = '\r';
		echo[n++] = '\n';
		l->ready = true;
		done = 1;
		break;
	case BS:
	case DEL:
		/* an overflowed line is lost whatever is erased */
		if (l->overflow || !l->len)
			break;
		l->buf[--l->len] = 0;
		echo[n++] = '\b';
		echo[n++] = ' ';
		echo[n++] = '\b';
		break;
	case ESC:
		l->esc = ESC_START;
		break;
	case '\t':
		/* a tab would move the cursor further than one erase takes back */
		b = ' ';
		/* fall through */
	default:
		if (b < 0x20 || b > 0x7e || l->overflow)
			break;
		if (l->len == MONITOR_LINE_MAX) {
			l->overflow = true;
			echo[n++] = BEL;
		} else {
			echo[n++] = (char)b;
		}
		l->buf[l->len++] = (char)b;
		l->buf[l->len] = 0;
		break;
	}
out:
	*echo_len = n;
	return done;
}

struct cmd_def {
	const char *name;
	enum monitor_op op;
	uint8_t args;
	const char *arg[3];	/* the arguments' names, as the usage gives them */
};

static const struct cmd_def cmds[] = {
	{ "help", MON_HELP, 0, { 0 } },
	{ "list", MON_LIST, 0, { 0 } },
	{ "stats", MON_STATS, 1, { "NAME" } },
	{ "trace", MON_TRACE, 1, { "NAME" } },
	{ "stop", MON_STOP, 1, { "NAME" } },
	{ "restart", MON_RESTART, 1, { "NAME" } },
	{ "mode", MON_MODE, 3, { "NAME", "VCPU", "MODE" } },
	{ "ticks", MON_TICKS, 0, { 0 } },
	{ "console", MON_CONSOLE, 1, { "NAME" } },
	{ "start", MON_START, 1, { "NAME|N" } },
	{ "reboot", MON_REBOOT, 0, { 0 } },
};

/* The command, its three arguments, and one more to tell "too many". */
#define MAX_WORDS	5
/* Quoted words are cut here: no name is longer (CONFIG_NAME_LEN) and the error stays one line. */
#define QUOTE		"\"%.40s\""

static size_t usage(const struct cmd_def *c, char *buf, size_t size)
{
	size_t n = fmt_scnprintf(buf, size, "%s", c->name);

	for (uint32_t i = 0; i < c->args; i++)
		n += fmt_scnprintf(buf + n, size - n, " %s", c->arg[i]);
	return n;
}

/* A decimal number 0..MONITOR_VCPU_MAX, nothing else (no sign, no hex). */
static bool parse_vcpu(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint32_t)(*s - '0');
		/* checked each digit, so v cannot wrap however long the word */
		if (v > MONITOR_VCPU_MAX)
			return false;
	}
	*out = v;
	return true;
}

/*
 * "N", 1 to @count, as Ctrl-T N numbers the partitions: its index, else
 * @count. Only for a word that is no partition's name.
 */
static uint32_t partition_number(const char *word, uint32_t count)
{
	uint32_t n = 0;

	if (!*word || strlen(word) > 4)
		return count;
	for (const char *p = word; *p; p++) {
		if (*p < '0' || *p > '9')
			return count;
		n = n * 10 + (uint32_t)(*p - '0');
	}
	return n >= 1 && n <= count ? n - 1 : count;
}

int monitor_parse(const char *line, const char *const *names, uint32_t count,
		  int (*mode_of)(const char *name), struct monitor_cmd *out, char *err,
		  size_t errlen)
{
	const struct fmt_err e = { err, errlen };
	char copy[MONITOR_LINE_SIZE], use[MONITOR_LINE_SIZE];
	char *w[MAX_WORDS];
	uint32_t words = 0, args;
	size_t len = strnlen(line, MONITOR_LINE_SIZE);
	const struct cmd_def *c = NULL;
	struct monitor_cmd cmd = { 0 };

	if (len > MONITOR_LINE_MAX)
		return fmt_fail(&e, out, sizeof(*out), "line too long (at most %d characters)",
				MONITOR_LINE_MAX);
	memcpy(copy, line, len + 1);
	/* split in place; words past MAX_WORDS are only counted */
	for (char *p = copy;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (words < MAX_WORDS)
			w[words] = p;
		words++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	if (!words)
		return fmt_fail(&e, out, sizeof(*out), "no command (try \"help\")");
	for (uint32_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(w[0], cmds[i].name))
			c = &cmds[i];
	if (!c)
		return fmt_fail(&e, out, sizeof(*out), "unknown command " QUOTE " (try \"help\")",
				w[0]);
	usage(c, use, sizeof(use));
	args = words - 1;
	if (args < c->args)
		return fmt_fail(&e, out, sizeof(*out), "%s: missing %s (usage: %s)", c->name,
				c->arg[args], use);
	if (args > c->args)
		return fmt_fail(&e, out, sizeof(*out), "%s: too many arguments (usage: %s)",
				c->name, use);
	cmd.op = c->op;
	if (c->args >= 1) {
		uint32_t i;

		for (i = 0; i < count; i++)
			if (names && names[i] && !strcmp(w[1], names[i]))
				break;
		if (i == count)
			i = partition_number(w[1], count);
		if (i == count)
			return fmt_fail(&e, out, sizeof(*out),
					"%s: unknown partition " QUOTE " (see \"list\")", c->name, w[1]);
		cmd.part = i;
	}
	if (c->op == MON_MODE) {
		int m;

		if (!parse_vcpu(w[2], &cmd.vcpu))
			return fmt_fail(&e, out, sizeof(*out),
					"mode: VCPU " QUOTE " is not a number from 0 to %d", w[2],
					MONITOR_VCPU_MAX);
		m = mode_of ? mode_of(w[3]) : -1;
		if (m < 0)
			return fmt_fail(&e, out, sizeof(*out), "mode: unknown timer mode " QUOTE,
					w[3]);
		cmd.mode = (uint32_t)m;
	}
	*out = cmd;
	return 0;
}

const char *monitor_help(void)
{
	return "help                 this list\n"
	       "list                 the partitions: state, cores, vCPUs, timer modes\n"
	       "stats NAME           a partition's exit counts\n"
	       "trace NAME           a partition's last timer events, per vCPU\n"
	       "stop NAME            stop a partition, with its report\n"
	       "restart NAME         boot a partition again from its image\n"
	       "mode NAME VCPU MODE  switch a vCPU's timer mode\n"
	       "ticks                the host ticks of each core\n"
	       "console NAME         send console input to partition NAME\n"
	       "start NAME|N         start a partition that has ended (N: as Ctrl-T N)\n"
	       "reboot               reset the machine\n"
	       "Ctrl-T then ? lists the console keys.\n";
}
