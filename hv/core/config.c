// SPDX-License-Identifier: MIT
/*
 * Partition configuration parser and platform check. The text arrives as a
 * boot module, so it is outside input: it is read only through spans bounded
 * by @len (no NUL terminator is assumed, and NUL bytes are refused rather
 * than taken as an end), every number is overflow-checked before use, and
 * every value is range-checked before it is stored. Errors give the line and
 * quote what was found, cut short and with unprintable bytes escaped, so a
 * binary file passed by mistake cannot garble the console.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/core/chan_pci_abi.h"
#include "hv/core/config.h"
#include "hv/core/devassign.h"
#include "hv/core/guest_ram.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

/* The RAM below a guest's MMIO window ends at the window, rounded down to 2 MiB. */
_Static_assert(GUEST_RAM_LOW_MAX == (CONFIG_GUEST_MMIO_START & ~(CONFIG_MEM_ALIGN - 1)),
	       "guest_ram.h's low RAM must end below the guest MMIO window");

_Static_assert(CONFIG_GUEST_CHAN_BAR_END == TEMPO_PCI_MMIO_WINDOW_END &&
	       CONFIG_GUEST_MMIO_START == TEMPO_PCI_BAR0_BASE,
	       "the channels' BAR0 window is where chan_pci_abi.h puts it");

#define TICK_US_MAX	1000000
#define WATCHDOG_MS_MAX	60000
#define IRQ_STORM_PER_MS_MAX	1000000
#define QUOTE_MAX	40			/* characters of found text in a message */
#define QUOTE_BUF	(QUOTE_MAX + 4)		/* room for "..." and the NUL */
#define NAME_CHARS	"A-Z a-z 0-9 _ . -"

/* Part of the text; never NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

enum section {
	SEC_NONE,
	SEC_HYPERVISOR,
	SEC_PARTITION,
	SEC_SCHEDULE,
	SEC_CHANNEL,
	SEC_SKIP,	/* after a section header that was refused: its keys are not read */
};

enum part_key {
	KEY_CPUS,
	KEY_MEMORY,
	KEY_BASE,
	KEY_IMAGE,
	KEY_CMDLINE,
	KEY_MODULES,
	KEY_TIMER,
	KEY_CONSOLE,
	KEY_RESTART,
	KEY_RESTART_LIMIT,
	KEY_RESTART_WINDOW,
	KEY_DEBUG_EXIT,
	KEY_FW_CFG,
	KEY_TIMER_ADVANCE,
	KEY_PCI,
	KEY_PORTS,
	KEY_MMIO,
	KEY_IRQS,
	KEY_COUNT,
};

static const char *const part_keys[KEY_COUNT] = {
	[KEY_CPUS] = "cpus",
	[KEY_MEMORY] = "memory",
	[KEY_BASE] = "base",
	[KEY_IMAGE] = "image",
	[KEY_CMDLINE] = "cmdline",
	[KEY_MODULES] = "modules",
	[KEY_TIMER] = "timer",
	[KEY_CONSOLE] = "console",
	[KEY_RESTART] = "restart",
	[KEY_RESTART_LIMIT] = "restart_limit",
	[KEY_RESTART_WINDOW] = "restart_window_s",
	[KEY_DEBUG_EXIT] = "debug_exit",
	[KEY_FW_CFG] = "fw_cfg",
	[KEY_TIMER_ADVANCE] = "timer_advance",
	[KEY_PCI] = "pci",
	[KEY_PORTS] = "ports",
	[KEY_MMIO] = "mmio",
	[KEY_IRQS] = "irqs",
};

static const char *const restart_names[] = {
	[RESTART_NEVER] = "never",
	[RESTART_ON_FAILURE] = "on-failure",
	[RESTART_ALWAYS] = "always",
};

const char *restart_policy_name(enum restart_policy r)
{
	return (unsigned int)r < ARRAY_SIZE(restart_names) ? restart_names[r] : "?";
}

static const enum part_key required_keys[] = { KEY_CPUS, KEY_MEMORY, KEY_IMAGE };

/* The longest frame fits the uint32_t frame_us, so summing windows cannot wrap. */
_Static_assert((uint64_t)CONFIG_MAX_WINDOWS * CONFIG_MAX_WINDOW_US <= UINT32_MAX,
	       "a frame's sum must fit frame_us");

/*
 * A window's partition as written. Names may refer to partitions further
 * down, so they are resolved once the whole file is read; the line is kept
 * for the errors that resolving finds.
 */
struct window_ref {
	struct span name;		/* empty: idle */
	uint32_t line;
};

struct parser {
	struct hv_config *out;
	struct config_error *errs;	/* the first @cap errors found go here */
	uint32_t cap;
	uint32_t error_count;		/* every error found, kept or not */
	uint32_t sec_errors;		/* errors in the open section */
	uint32_t cpus_bad;		/* partitions whose cpus are missing or wrong, by index */
	uint32_t line;			/* of the statement being parsed */
	enum section sec;
	uint32_t all_ended_line;	/* 0: all_ended not set yet */
	uint32_t hypervisor_line;	/* 0: no [hypervisor] yet */
	uint32_t tick_line;		/* 0: tick_us not set yet */
	uint32_t watchdog_line;		/* 0: watchdog_ms not set yet */
	uint32_t slack_line;		/* 0: tick_slack_us not set yet */
	uint32_t storm_line;		/* 0: irq_storm_per_ms not set yet */
	struct partition_config *part;	/* the open [partition], if sec says so */
	uint32_t key_line[KEY_COUNT];	/* per key of the open partition; 0: unset */
	struct schedule_config *sched;	/* the open [schedule], if sec says so */
	uint32_t frame_line;		/* 0: frame_us not set in the open schedule */
	uint64_t frame_us;		/* as given there */
	/* [schedule][window], parallel to out->schedules; only config_parse has it. */
	struct window_ref (*refs)[CONFIG_MAX_WINDOWS];
	struct channel_config *chan;	/* the open [channel], if sec says so */
	uint32_t size_line;		/* 0: size not set in the open channel */
	uint32_t doorbell_line;		/* 0: doorbell_limit not set in the open channel */
	/* [channel][peer] names as written, resolved like the windows' (config_parse). */
	struct span (*peer_names)[CONFIG_MAX_PEERS];
};

/*
 * Record an error at the current line and carry on: the caller drops the
 * statement, the parser goes on with the next line, so one run names every
 * mistake. Past @cap errors they are counted, not kept.
 */
__attribute__((format(printf, 2, 3)))
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	ps->sec_errors++;
	if (ps->error_count++ >= ps->cap)
		return -1;
	ps->errs[ps->error_count - 1].line = ps->line;
	va_start(ap, fmt);
	fmt_vsnprintf(ps->errs[ps->error_count - 1].msg, sizeof(ps->errs[0].msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- spans ---- */

static struct span span_from(const char *p, size_t n)
{
	struct span s = { p, n };

	return s;
}

static struct span advance(struct span s, size_t k)
{
	return span_from(s.p + k, s.n - k);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static struct span trim_left(struct span s)
{
	while (s.n && is_blank(s.p[0]))
		s = advance(s, 1);
	return s;
}

static struct span trim_right(struct span s)
{
	while (s.n && is_blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

static struct span trim(struct span s)
{
	return trim_right(trim_left(s));
}

/* Everything before a '#'. Quoted cmdlines are handled before this is used. */
static struct span strip_comment(struct span s)
{
	size_t i = 0;

	while (i < s.n && s.p[i] != '#')
		i++;
	return span_from(s.p, i);
}

static bool span_eq(struct span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && !memcmp(s.p, lit, n);
}

/* Split @s at its first blank: the word before it, the rest trimmed. */
static struct span first_word(struct span s, struct span *rest)
{
	size_t i = 0;

	while (i < s.n && !is_blank(s.p[i]))
		i++;
	*rest = trim_left(advance(s, i));
	return span_from(s.p, i);
}

/*
 * Render @s for a message: printable ASCII as is, anything else as \xNN, cut
 * to @max characters with "..." when longer. @buf needs @max + 4 bytes.
 */
static const char *quote_n(char *buf, size_t max, struct span s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		bool plain = c >= 0x20 && c < 0x7f && c != '\\';
		size_t w = plain ? 1 : c == '\\' || c == '\t' ? 2 : 4;

		if (o + w > max) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (plain) {
			buf[o++] = (char)c;
		} else if (c == '\\' || c == '\t') {
			buf[o++] = '\\';
			buf[o++] = c == '\t' ? 't' : '\\';
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	buf[o] = 0;
	return buf;
}

static const char *quote(char *buf, struct span s)
{
	return quote_n(buf, QUOTE_MAX, s);
}

/* ---- values ---- */

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

enum num_result {
	NUM_OK,
	NUM_BAD,	/* not a number */
	NUM_BIG,	/* does not fit in 64 bits */
};

/* A whole span as decimal or 0x hex, at least one digit, no sign. */
static enum num_result parse_u64(struct span s, uint64_t *v)
{
	unsigned int base = 10;
	uint64_t x = 0;

	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		base = 16;
		s = advance(s, 2);
	}
	if (!s.n)
		return NUM_BAD;
	for (size_t i = 0; i < s.n; i++) {
		unsigned int d = (unsigned int)digit_value(s.p[i]);

		if (d >= base)
			return NUM_BAD;
		if (x > (UINT64_MAX - d) / base)
			return NUM_BIG;
		x = x * base + d;
	}
	*v = x;
	return NUM_OK;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Names become C strings that are compared and printed, hence the charset. */
static int take_name(struct parser *ps, const char *what, struct span s, char *dst)
{
	char q[QUOTE_BUF];
	bool ok = s.n > 0;

	if (s.n >= CONFIG_NAME_LEN)
		return fail(ps, "%s: name '%s' is longer than %d characters", what, quote(q, s),
			    CONFIG_NAME_LEN - 1);

	for (size_t i = 0; i < s.n; i++)
		ok = ok && is_name_char(s.p[i]);
	if (!ok)
		return fail(ps, "%s: expected a name of 1-%d characters from " NAME_CHARS
			    ", found '%s'", what, CONFIG_NAME_LEN - 1, quote(q, s));
	memcpy(dst, s.p, s.n);
	dst[s.n] = 0;
	return 0;
}

static int take_cpus(struct parser *ps, struct span v, struct cpuset *set)
{
	char q[QUOTE_BUF];
	struct span rest = v;

	memset(set, 0, sizeof(*set));
	if (!v.n)
		return fail(ps, "cpus: expected a list such as 0,2-3, found ''");
	for (;;) {
		struct span item, lo_s, hi_s;
		uint64_t lo, hi;
		size_t i = 0, dash = 0;

		while (i < rest.n && rest.p[i] != ',')
			i++;
		item = trim(span_from(rest.p, i));
		while (dash < item.n && item.p[dash] != '-')
			dash++;
		lo_s = trim(span_from(item.p, dash));
		hi_s = dash < item.n ? trim(advance(item, dash + 1)) : lo_s;
		if (!item.n)
			return fail(ps, "cpus: empty entry in '%s'", quote(q, v));
		if (parse_u64(lo_s, &lo) != NUM_OK || parse_u64(hi_s, &hi) != NUM_OK)
			return fail(ps, "cpus: expected a CPU number or range N-M, found '%s'",
				    quote(q, item));
		if (lo > hi)
			return fail(ps, "cpus: range '%s' runs backwards", quote(q, item));
		if (hi >= CONFIG_MAX_CPUS)
			return fail(ps, "cpus: CPU %llu is out of range (0-%d)",
				    (unsigned long long)hi, CONFIG_MAX_CPUS - 1);
		for (uint64_t c = lo; c <= hi; c++) {
			if (cpuset_has(set, (uint32_t)c))
				return fail(ps, "cpus: CPU %llu is listed twice",
					    (unsigned long long)c);
			cpuset_add(set, (uint32_t)c);
		}
		if (cpuset_count(set) > CONFIG_MAX_VCPUS)
			return fail(ps, "cpus: more than %d CPUs in one partition (one vCPU each)",
				    CONFIG_MAX_VCPUS);
		if (i == rest.n)
			return 0;
		rest = advance(rest, i + 1);
	}
}

/* A number of bytes with an optional K, M or G suffix (either case), as @key's value. */
static int take_size(struct parser *ps, const char *key, const char *example, struct span v,
		     uint64_t *bytes)
{
	char q[QUOTE_BUF];
	struct span num = v;
	unsigned int shift = 0;
	uint64_t x;
	enum num_result r;

	if (v.n) {
		switch (v.p[v.n - 1]) {
		case 'K':
		case 'k':
			shift = 10;
			break;
		case 'M':
		case 'm':
			shift = 20;
			break;
		case 'G':
		case 'g':
			shift = 30;
			break;
		}
		if (shift)
			num.n--;
	}
	r = parse_u64(num, &x);
	if (r == NUM_BAD)
		return fail(ps, "%s: expected a size such as %s, found '%s'", key, example,
			    quote(q, v));
	if (r == NUM_BIG || x > UINT64_MAX >> shift)
		return fail(ps, "%s: '%s' is too large", key, quote(q, v));
	*bytes = x << shift;
	return 0;
}

static int take_memory(struct parser *ps, struct span v, uint64_t *bytes)
{
	char q[QUOTE_BUF];
	uint64_t x;

	if (take_size(ps, "memory", "512M or 0x20000000", v, &x))
		return -1;
	if (!x)
		return fail(ps, "memory: must be more than 0, found '%s'", quote(q, v));
	if (x % CONFIG_MEM_ALIGN)
		return fail(ps, "memory: %s is not a multiple of 2 MiB", quote(q, v));
	if (x > CONFIG_MAX_MEMORY)
		return fail(ps, "memory: %s is more than a partition can have (%llu TiB: its RAM "
			    "must end below 256 TiB guest-physical, the reach of 4-level EPT)",
			    quote(q, v), (unsigned long long)(CONFIG_MAX_MEMORY >> 40));
	*bytes = x;
	return 0;
}

/* A decimal or 0x address, @align aligned (4 KiB or 2 MiB), as @key's value. */
static int take_addr(struct parser *ps, const char *key, struct span v, uint64_t align,
		     uint64_t *addr)
{
	char q[QUOTE_BUF];
	enum num_result r = parse_u64(v, addr);

	if (r == NUM_BAD)
		return fail(ps, "%s: expected an address such as 0x10000000, found '%s'", key,
			    quote(q, v));
	if (r == NUM_BIG)
		return fail(ps, "%s: '%s' is too large", key, quote(q, v));
	if (*addr % align)
		return fail(ps, "%s: %s is not %llu %s aligned", key, quote(q, v),
			    (unsigned long long)(align >= 1u << 20 ? align >> 20 : align >> 10),
			    align >= 1u << 20 ? "MiB" : "KiB");
	return 0;
}

static int take_base(struct parser *ps, struct span v, uint64_t *base)
{
	if (take_addr(ps, "base", v, CONFIG_MEM_ALIGN, base))
		return -1;
	if (!*base)
		return fail(ps, "base: must not be 0 (leave base out to have memory carved)");
	return 0;
}

/*
 * Quotes are optional, so a command line with a '#' or leading blanks can be
 * written; inside them only \" and \\ are escapes, and anything else after a
 * backslash is refused rather than guessed at.
 */
static int take_cmdline(struct parser *ps, struct span rest, char *dst)
{
	char q[QUOTE_BUF];
	size_t o = 0, i;

	if (!rest.n || rest.p[0] != '"') {
		struct span v = trim_right(strip_comment(rest));

		if (v.n >= CONFIG_CMDLINE_LEN)
			return fail(ps, "cmdline: longer than %d characters",
				    CONFIG_CMDLINE_LEN - 1);
		memcpy(dst, v.p, v.n);
		dst[v.n] = 0;
		return 0;
	}
	for (i = 1; i < rest.n && rest.p[i] != '"'; i++) {
		char c = rest.p[i];

		if (c == '\\') {
			if (i + 1 == rest.n) {
				i = rest.n;	/* a final backslash escapes nothing */
				break;
			}
			c = rest.p[++i];
			if (c != '"' && c != '\\')
				return fail(ps, "cmdline: unknown escape '%s' (only \\\" and \\\\)",
					    quote(q, span_from(rest.p + i - 1, 2)));
		}
		if (o == CONFIG_CMDLINE_LEN - 1)
			return fail(ps, "cmdline: longer than %d characters",
				    CONFIG_CMDLINE_LEN - 1);
		dst[o++] = c;
	}
	if (i >= rest.n)
		return fail(ps, "cmdline: expected a closing '\"', found the end of the line");
	dst[o] = 0;
	rest = trim(strip_comment(advance(rest, i + 1)));
	if (rest.n)
		return fail(ps, "cmdline: expected the end of the line after the closing '\"', "
			    "found '%s'", quote(q, rest));
	return 0;
}

static int take_modules(struct parser *ps, struct partition_config *p, struct span v)
{
	char q[QUOTE_BUF];
	struct span rest = v, word;

	if (!v.n)
		return fail(ps, "modules: expected module names, found ''");
	while (rest.n) {
		word = first_word(rest, &rest);
		if (p->module_count == CONFIG_MAX_MODULES)
			return fail(ps, "modules: too many modules (at most %d), found '%s'",
				    CONFIG_MAX_MODULES, quote(q, v));
		if (take_name(ps, "modules", word, p->modules[p->module_count]))
			return -1;
		for (uint32_t j = 0; j < p->module_count; j++)
			if (!strcmp(p->modules[j], p->modules[p->module_count]))
				return fail(ps, "modules: '%s' is listed twice", p->modules[j]);
		p->module_count++;
	}
	return 0;
}

/* base + memory must be an address range that exists, whichever came first. */
static int check_range(struct parser *ps)
{
	struct partition_config *p = ps->part;

	if (ps->key_line[KEY_BASE] && ps->key_line[KEY_MEMORY] &&
	    p->base > UINT64_MAX - p->memory_bytes)
		return fail(ps, "base 0x%llx + memory 0x%llx runs past the end of the address space",
			    (unsigned long long)p->base, (unsigned long long)p->memory_bytes);
	return 0;
}

/* The first time @key is set in its section: note the line; a second time is refused. */
static int set_once(struct parser *ps, uint32_t *line, const char *key)
{
	if (*line)
		return fail(ps, "duplicate key '%s' (first set on line %u)", key, *line);
	*line = ps->line;
	return 0;
}

/* A decimal or 0x number in [lo, hi]. */
static int take_u32(struct parser *ps, const char *key, struct span v, uint32_t lo, uint32_t hi,
		    uint32_t *out)
{
	char q[QUOTE_BUF];
	uint64_t x;
	enum num_result r = parse_u64(v, &x);

	if (r == NUM_BAD)
		return fail(ps, "%s: expected a number, found '%s'", key, quote(q, v));
	if (r == NUM_BIG || x < lo || x > hi)
		return fail(ps, "%s: %s is out of range (%u-%u)", key, quote(q, v), lo, hi);
	*out = (uint32_t)x;
	return 0;
}

/* ---- statements ---- */

static int take_on_off(struct parser *ps, const char *key, struct span v, bool *out)
{
	char q[QUOTE_BUF];

	if (span_eq(v, "on") || span_eq(v, "off")) {
		*out = span_eq(v, "on");
		return 0;
	}
	return fail(ps, "%s: expected on or off, found '%s'", key, quote(q, v));
}

/* pci, ports, mmio, irqs: hv/core/devassign.c parses them, every refusal with this line. */
static int take_devices(struct parser *ps, struct partition_config *p, const char *key,
			struct span v)
{
	char err[DEV_MSG_LEN];
	int k = devassign_key(key, strlen(key));

	if (k < 0 || devassign_parse(&p->dev, (enum dev_key)k, v.p, v.n, ps->line, err,
				     sizeof(err)))
		return fail(ps, "%s", k < 0 ? key : err);
	return 0;
}

static int part_statement(struct parser *ps, struct span key, struct span rest)
{
	struct partition_config *p = ps->part;
	struct span v = trim_right(strip_comment(rest));
	char q[QUOTE_BUF];
	int k;

	for (k = 0; k < KEY_COUNT; k++)
		if (span_eq(key, part_keys[k]))
			break;
	if (k == KEY_COUNT)
		return fail(ps, "unknown key '%s' in [partition %s] (expected cpus, memory, base, "
			    "image, cmdline, modules, timer, console, restart, restart_limit, "
			    "restart_window_s, debug_exit, fw_cfg, timer_advance, pci, ports, mmio, "
			    "irqs)",
			    quote_n(q, 24, key), p->name);
	if (set_once(ps, &ps->key_line[k], part_keys[k]))
		return -1;

	switch ((enum part_key)k) {
	case KEY_CPUS:
		if (!take_cpus(ps, v, &p->cpus))
			return 0;
		/* its windows are not checked against CPUs it does not have */
		ps->cpus_bad |= 1u << (p - ps->out->partitions);
		return -1;
	case KEY_MEMORY:
		if (take_memory(ps, v, &p->memory_bytes))
			return -1;
		return check_range(ps);
	case KEY_BASE:
		if (take_base(ps, v, &p->base))
			return -1;
		return check_range(ps);
	case KEY_IMAGE:
		return take_name(ps, "image", v, p->image);
	case KEY_CMDLINE:
		return take_cmdline(ps, rest, p->cmdline);
	case KEY_MODULES:
		return take_modules(ps, p, v);
	case KEY_TIMER:
		p->timer = timer_mode_parse(v.p, (uint32_t)v.n);
		if (p->timer == TIMER_MODE_COUNT)
			return fail(ps, "timer: expected direct, inject, emulated or pv-lazy, "
				    "found '%s'", quote(q, v));
		return 0;
	case KEY_CONSOLE:
		return take_on_off(ps, part_keys[k], v, &p->console);
	case KEY_DEBUG_EXIT:
		return take_on_off(ps, part_keys[k], v, &p->debug_exit);
	case KEY_FW_CFG:
		return take_on_off(ps, part_keys[k], v, &p->fw_cfg);
	case KEY_TIMER_ADVANCE:
		return take_on_off(ps, part_keys[k], v, &p->timer_advance);
	case KEY_RESTART:
		for (uint32_t r = 0; r < ARRAY_SIZE(restart_names); r++)
			if (span_eq(v, restart_names[r])) {
				p->restart = (enum restart_policy)r;
				return 0;
			}
		return fail(ps, "restart: expected never, on-failure or always, found '%s'",
			    quote(q, v));
	case KEY_RESTART_LIMIT:
		return take_u32(ps, "restart_limit", v, 1, CONFIG_MAX_RESTART_LIMIT,
				&p->restart_limit);
	case KEY_RESTART_WINDOW:
		return take_u32(ps, "restart_window_s", v, 0, CONFIG_MAX_RESTART_WINDOW_S,
				&p->restart_window_s);
	case KEY_PCI:
	case KEY_PORTS:
	case KEY_MMIO:
	case KEY_IRQS:
		return take_devices(ps, p, part_keys[k], v);
	case KEY_COUNT:
		break;
	}
	return 0;
}

static const char *const all_ended_names[] = {
	[ALL_ENDED_REBOOT] = "reboot",
	[ALL_ENDED_HALT] = "halt",
	[ALL_ENDED_MONITOR] = "monitor",
};

const char *all_ended_name(enum all_ended_action a)
{
	return (unsigned int)a < ARRAY_SIZE(all_ended_names) ? all_ended_names[a] : "?";
}

static int take_all_ended(struct parser *ps, struct span v)
{
	char q[QUOTE_BUF];

	if (set_once(ps, &ps->all_ended_line, "all_ended"))
		return -1;
	for (uint32_t a = 0; a < ARRAY_SIZE(all_ended_names); a++)
		if (span_eq(v, all_ended_names[a])) {
			ps->out->all_ended = (enum all_ended_action)a;
			return 0;
		}
	return fail(ps, "all_ended: expected reboot, halt or monitor, found '%s'", quote(q, v));
}

static int hv_statement(struct parser *ps, struct span key, struct span rest)
{
	struct span v = trim_right(strip_comment(rest));
	bool tick = span_eq(key, "tick_us"), slack = span_eq(key, "tick_slack_us");
	bool storm = span_eq(key, "irq_storm_per_ms");
	uint32_t *line = tick ? &ps->tick_line : slack ? &ps->slack_line :
			 storm ? &ps->storm_line : &ps->watchdog_line;
	const char *name = tick ? "tick_us" : slack ? "tick_slack_us" :
			   storm ? "irq_storm_per_ms" : "watchdog_ms";
	uint64_t max = tick || slack ? TICK_US_MAX : storm ? IRQ_STORM_PER_MS_MAX : WATCHDOG_MS_MAX;
	uint64_t min = storm ? 1 : 0;
	char q[QUOTE_BUF];
	uint64_t x;
	enum num_result r;

	if (span_eq(key, "all_ended"))
		return take_all_ended(ps, v);
	if (!tick && !slack && !storm && !span_eq(key, "watchdog_ms"))
		return fail(ps, "unknown key '%s' in [hypervisor] (expected tick_us, "
			    "tick_slack_us, watchdog_ms, irq_storm_per_ms, all_ended)", quote(q, key));
	if (set_once(ps, line, name))
		return -1;
	r = parse_u64(v, &x);
	if (r == NUM_BAD)
		return fail(ps, "%s: expected a number of %s, found '%s'", name,
			    tick || slack ? "microseconds" : storm ? "interrupts" : "milliseconds",
			    quote(q, v));
	if (r == NUM_BIG || x > max || x < min)
		return fail(ps, "%s: '%s' is out of range (%lu-%lu)", name, quote(q, v),
			    (unsigned long)min, (unsigned long)max);
	if (storm)
		ps->out->irq_storm_per_ms = (uint32_t)x;
	else if (tick)
		ps->out->tick_us = (uint32_t)x;
	else if (slack)
		ps->out->tick_slack_us = (uint32_t)x;
	else
		ps->out->watchdog_ms = (uint32_t)x;
	return 0;
}

/*
 * tick_slack_us, once both keys are known: defaults to tick_us / 4; one set
 * must stay below tick_us, so a placed tick never reaches the next grid time
 * (no tick is ever missed for it). Tickless: no tick to place.
 */
static int check_slack(struct parser *ps)
{
	struct hv_config *c = ps->out;

	if (!ps->slack_line) {
		c->tick_slack_us = c->tick_us / CONFIG_DEFAULT_SLACK_DIV;
		return 0;
	}
	if (c->tick_us && c->tick_slack_us >= c->tick_us) {
		ps->line = ps->slack_line;
		return fail(ps, "tick_slack_us: %u is not below tick_us (%u)", c->tick_slack_us,
			    c->tick_us);
	}
	if (!c->tick_us)
		c->tick_slack_us = 0;
	return 0;
}

static int take_frame(struct parser *ps, struct span v)
{
	char q[QUOTE_BUF];
	uint64_t x;
	enum num_result r;

	if (set_once(ps, &ps->frame_line, "frame_us"))
		return -1;
	r = parse_u64(v, &x);
	if (r == NUM_BAD)
		return fail(ps, "frame_us: expected a number of microseconds, found '%s'",
			    quote(q, v));
	if (r == NUM_BIG || x < CONFIG_MIN_WINDOW_US ||
	    x > (uint64_t)CONFIG_MAX_WINDOWS * CONFIG_MAX_WINDOW_US)
		return fail(ps, "frame_us: '%s' is out of range (%d-%llu)", quote(q, v),
			    CONFIG_MIN_WINDOW_US,
			    (unsigned long long)CONFIG_MAX_WINDOWS * CONFIG_MAX_WINDOW_US);
	ps->frame_us = x;
	return 0;
}

/* "NAME LENGTH" or "idle LENGTH"; the name is resolved at the end of the file. */
static int take_window(struct parser *ps, struct span v)
{
	struct schedule_config *s = ps->sched;
	struct window_ref *ref;
	struct window_config *w;
	struct span name, len_s;
	char q[QUOTE_BUF], scratch[CONFIG_NAME_LEN];
	uint64_t x;
	enum num_result r;

	if (s->window_count == CONFIG_MAX_WINDOWS)
		return fail(ps, "too many windows in [schedule %u] (at most %d)", s->cpu,
			    CONFIG_MAX_WINDOWS);
	name = first_word(v, &len_s);
	if (!name.n || !len_s.n)
		return fail(ps, "window: expected a partition name (or idle) and a length in "
			    "microseconds, such as 'rt0 400', found '%s'", quote(q, v));
	if (span_eq(name, "idle"))
		name.n = 0;
	else if (take_name(ps, "window", name, scratch))
		return -1;
	r = parse_u64(len_s, &x);
	if (r == NUM_BAD)
		return fail(ps, "window: expected a length in microseconds, found '%s'",
			    quote(q, len_s));
	if (r == NUM_BIG || x > CONFIG_MAX_WINDOW_US)
		return fail(ps, "window: length '%s' is out of range (%d-%d microseconds)",
			    quote(q, len_s), CONFIG_MIN_WINDOW_US, CONFIG_MAX_WINDOW_US);
	if (x < CONFIG_MIN_WINDOW_US)
		return fail(ps, "window: %llu us is shorter than the minimum of %d us",
			    (unsigned long long)x, CONFIG_MIN_WINDOW_US);

	ref = &ps->refs[s - ps->out->schedules][s->window_count];
	ref->name = name;
	ref->line = ps->line;
	w = &s->windows[s->window_count++];
	w->partition = -1;		/* until resolve_windows() */
	w->length_us = (uint32_t)x;
	s->frame_us += (uint32_t)x;	/* bounded by the _Static_assert above */
	return 0;
}

static int sched_statement(struct parser *ps, struct span key, struct span rest)
{
	struct span v = trim_right(strip_comment(rest));
	char q[QUOTE_BUF];

	if (span_eq(key, "window"))
		return take_window(ps, v);
	if (span_eq(key, "frame_us"))
		return take_frame(ps, v);
	return fail(ps, "unknown key '%s' in [schedule %u] (expected frame_us, window)",
		    quote(q, key), ps->sched->cpu);
}

/*
 * "NAME rw|ro [GPA]". The name is resolved at the end of the file, the
 * address checked and a missing one chosen once every channel is known.
 */
static int take_peer(struct parser *ps, struct span v)
{
	struct channel_config *c = ps->chan;
	struct span *names = ps->peer_names[c - ps->out->channels];
	struct channel_peer *pe;
	struct span name, access, gpa, rest;
	char q[QUOTE_BUF], scratch[CONFIG_NAME_LEN];

	if (c->peer_count == CONFIG_MAX_PEERS)
		return fail(ps, "too many peers in [channel %s] (at most %d)", c->name,
			    CONFIG_MAX_PEERS);
	name = first_word(v, &rest);
	access = first_word(rest, &rest);
	gpa = first_word(rest, &rest);
	if (!access.n)
		return fail(ps, "peer: expected a partition name, rw or ro, and optionally an "
			    "address, such as 'rt0 rw' or 'linux ro 0x80000000', found '%s'",
			    quote(q, v));
	if (take_name(ps, "peer", name, scratch))
		return -1;
	if (!span_eq(access, "rw") && !span_eq(access, "ro"))
		return fail(ps, "peer: expected rw or ro after the name, found '%s'",
			    quote(q, access));
	if (rest.n)
		return fail(ps, "peer: expected the end of the line after the address, found '%s'",
			    quote(q, rest));
	for (uint32_t j = 0; j < c->peer_count; j++)
		if (span_eq(names[j], scratch))
			return fail(ps, "peer: '%s' is listed twice in [channel %s] (first on "
				    "line %u)", scratch, c->name, c->peers[j].line);
	pe = &c->peers[c->peer_count];
	if (gpa.n && take_addr(ps, "peer", gpa, CONFIG_CHANNEL_MIN, &pe->gpa))
		return -1;
	pe->gpa_given = gpa.n > 0;
	pe->writable = span_eq(access, "rw");
	pe->line = ps->line;
	names[c->peer_count++] = name;
	return 0;
}

static int chan_statement(struct parser *ps, struct span key, struct span rest)
{
	struct channel_config *c = ps->chan;
	struct span v = trim_right(strip_comment(rest));
	bool size = span_eq(key, "size");
	char q[QUOTE_BUF];
	uint64_t x;

	if (span_eq(key, "peer"))
		return take_peer(ps, v);
	if (!size && !span_eq(key, "doorbell_limit"))
		return fail(ps, "unknown key '%s' in [channel %s] (expected size, peer, "
			    "doorbell_limit)", quote_n(q, 24, key), c->name);
	if (set_once(ps, size ? &ps->size_line : &ps->doorbell_line,
		     size ? "size" : "doorbell_limit"))
		return -1;
	if (!size)
		return take_u32(ps, "doorbell_limit", v, 1, CONFIG_MAX_DOORBELL_LIMIT,
				&c->doorbell_limit);
	if (take_size(ps, "size", "64K or 0x10000", v, &x))
		return -1;
	if (x < CONFIG_CHANNEL_MIN || x > CONFIG_CHANNEL_MAX)
		return fail(ps, "size: %s is out of range (4K-1G)", quote(q, v));
	if (x % CONFIG_CHANNEL_MIN)
		return fail(ps, "size: %s is not a multiple of 4 KiB", quote(q, v));
	c->size = x;
	return 0;
}

/*
 * Leaving a [partition]: its required keys must all have been given. Leaving
 * a [schedule]: it has windows, and frame_us, if given, is their sum. Leaving
 * a [channel]: it has a size and two peers or more.
 */
static int end_section(struct parser *ps)
{
	if (ps->sec == SEC_CHANNEL) {
		const struct channel_config *c = ps->chan;
		uint32_t line = ps->line;

		int rc = 0;

		ps->line = c->line;
		if (!ps->size_line)
			rc = fail(ps, "channel '%s' is missing 'size'", c->name);
		/* a peer line that was refused would make this a second error about it */
		else if (c->peer_count < 2 && !ps->sec_errors)
			rc = fail(ps, "channel '%s' needs at least 2 peers (found %u)", c->name,
				  c->peer_count);
		ps->line = line;
		return rc;
	}
	if (ps->sec == SEC_SCHEDULE) {
		struct schedule_config *s = ps->sched;
		uint32_t line = ps->line;
		int rc = 0;

		/* with a window or frame_us refused, the sum is not what was meant */
		if (ps->sec_errors)
			return 0;
		if (!s->window_count) {
			ps->line = s->line;
			rc = fail(ps, "[schedule %u] has no windows", s->cpu);
		} else if (ps->frame_line && ps->frame_us != s->frame_us) {
			ps->line = ps->frame_line;
			rc = fail(ps, "frame_us: %llu is not the sum of the windows (%u us)",
				  (unsigned long long)ps->frame_us, s->frame_us);
		}
		ps->line = line;
		return rc;
	}
	if (ps->sec != SEC_PARTITION)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(required_keys); i++) {
		uint32_t line = ps->line;

		if (ps->key_line[required_keys[i]])
			continue;
		if (required_keys[i] == KEY_CPUS)
			ps->cpus_bad |= 1u << (ps->part - ps->out->partitions);
		ps->line = ps->part->line;
		fail(ps, "partition '%s' is missing '%s'", ps->part->name,
		     part_keys[required_keys[i]]);
		ps->line = line;
	}
	return 0;
}

static int begin_partition(struct parser *ps, struct span name)
{
	struct hv_config *cfg = ps->out;
	struct partition_config *p;

	if (cfg->partition_count == CONFIG_MAX_PARTITIONS)
		return fail(ps, "too many partitions (at most %d)", CONFIG_MAX_PARTITIONS);
	p = &cfg->partitions[cfg->partition_count];
	if (take_name(ps, "partition name", name, p->name))
		return -1;
	/* A window naming "idle" must mean one thing. */
	if (!strcmp(p->name, "idle"))
		return fail(ps, "partition name: 'idle' is reserved (a [schedule] window where "
			    "no vCPU runs)");
	for (uint32_t i = 0; i < cfg->partition_count; i++)
		if (!strcmp(cfg->partitions[i].name, p->name))
			return fail(ps, "duplicate partition name '%s' (first on line %u)",
				    p->name, cfg->partitions[i].line);
	p->timer = TIMER_DIRECT;
	p->console = true;
	p->timer_advance = true;
	p->restart = RESTART_NEVER;
	p->restart_limit = CONFIG_DEFAULT_RESTART_LIMIT;
	p->restart_window_s = CONFIG_DEFAULT_RESTART_WINDOW_S;
	p->line = ps->line;
	cfg->partition_count++;
	ps->part = p;
	ps->sec = SEC_PARTITION;
	memset(ps->key_line, 0, sizeof(ps->key_line));
	return 0;
}

static int begin_hypervisor(struct parser *ps)
{
	if (ps->hypervisor_line)
		return fail(ps, "duplicate [hypervisor] section (first on line %u)",
			    ps->hypervisor_line);
	ps->hypervisor_line = ps->line;
	ps->sec = SEC_HYPERVISOR;
	return 0;
}

static int begin_channel(struct parser *ps, struct span name)
{
	struct hv_config *cfg = ps->out;
	struct channel_config *c;

	if (cfg->channel_count == CONFIG_MAX_CHANNELS)
		return fail(ps, "too many channels (at most %d)", CONFIG_MAX_CHANNELS);
	c = &cfg->channels[cfg->channel_count];
	if (take_name(ps, "channel name", name, c->name))
		return -1;
	for (uint32_t i = 0; i < cfg->channel_count; i++)
		if (!strcmp(cfg->channels[i].name, c->name))
			return fail(ps, "duplicate channel name '%s' (first on line %u)", c->name,
				    cfg->channels[i].line);
	c->doorbell_limit = CONFIG_DEFAULT_DOORBELL_LIMIT;
	c->line = ps->line;
	cfg->channel_count++;
	ps->chan = c;
	ps->sec = SEC_CHANNEL;
	ps->size_line = 0;
	ps->doorbell_line = 0;
	return 0;
}

static int begin_schedule(struct parser *ps, struct span num)
{
	struct hv_config *cfg = ps->out;
	struct schedule_config *s;
	char q[QUOTE_BUF];
	uint64_t cpu;
	enum num_result r;

	r = parse_u64(num, &cpu);
	if (r == NUM_BAD)
		return fail(ps, "schedule: expected a CPU number, found '%s'", quote(q, num));
	if (r == NUM_BIG || cpu >= CONFIG_MAX_CPUS)
		return fail(ps, "schedule: CPU %s is out of range (0-%d)", quote(q, num),
			    CONFIG_MAX_CPUS - 1);
	for (uint32_t i = 0; i < cfg->schedule_count; i++)
		if (cfg->schedules[i].cpu == cpu)
			return fail(ps, "duplicate [schedule %llu] section (first on line %u)",
				    (unsigned long long)cpu, cfg->schedules[i].line);
	if (cfg->schedule_count == CONFIG_MAX_SCHEDULES)
		return fail(ps, "too many schedules (at most %d)", CONFIG_MAX_SCHEDULES);
	s = &cfg->schedules[cfg->schedule_count++];
	s->cpu = (uint32_t)cpu;
	s->line = ps->line;
	ps->sched = s;
	ps->sec = SEC_SCHEDULE;
	ps->frame_line = 0;
	ps->frame_us = 0;
	return 0;
}

/* @s starts with '['. */
static int parse_header(struct parser *ps, struct span s)
{
	struct span inner, word, rest;
	char q[QUOTE_BUF];
	size_t close = 1;

	while (close < s.n && s.p[close] != ']')
		close++;
	if (close == s.n || trim_right(strip_comment(advance(s, close + 1))).n)
		goto bad;
	inner = trim(span_from(s.p + 1, close - 1));
	word = first_word(inner, &rest);
	/*
	 * The section before is complete. Until this one is accepted its keys
	 * are skipped: read into the one before, each would be a second error.
	 */
	end_section(ps);
	ps->sec = SEC_SKIP;
	ps->sec_errors = 0;
	if (span_eq(word, "hypervisor") && !rest.n)
		return begin_hypervisor(ps);
	if (span_eq(word, "partition") && rest.n)
		return begin_partition(ps, rest);
	if (span_eq(word, "channel") && rest.n)
		return begin_channel(ps, rest);
	if (span_eq(word, "schedule") && rest.n)
		return begin_schedule(ps, rest);
bad:
	if (ps->sec != SEC_SKIP) {
		end_section(ps);
		ps->sec = SEC_SKIP;
		ps->sec_errors = 0;
	}
	return fail(ps, "expected '[hypervisor]', '[partition NAME]', '[channel NAME]' or "
		    "'[schedule CPU]', found '%s'", quote(q, trim_right(strip_comment(s))));
}

static int parse_line(struct parser *ps, struct span line)
{
	struct span s, key, rest;
	char q[QUOTE_BUF];
	size_t k = 0;

	for (size_t i = 0; i < line.n; i++) {
		unsigned char c = (unsigned char)line.p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(ps, "unexpected control byte 0x%02x in column %zu "
				    "(only tab, and CR before LF, are allowed)", c, i + 1);
	}
	s = trim_left(line);
	if (!s.n || s.p[0] == '#')
		return 0;
	if (s.p[0] == '[')
		return parse_header(ps, s);

	while (k < s.n && is_key_char(s.p[k]))
		k++;
	key = span_from(s.p, k);
	rest = trim_left(advance(s, k));
	if (!key.n || !rest.n || rest.p[0] != '=')
		return fail(ps, "expected 'key = value', found '%s'",
			    quote(q, trim_right(strip_comment(s))));
	rest = trim_left(advance(rest, 1));
	if (ps->sec == SEC_SKIP)
		return 0;
	if (ps->sec == SEC_NONE)
		return fail(ps, "key outside a section: '%s' comes before any [hypervisor], "
			    "[partition NAME], [channel NAME] or [schedule CPU]", quote(q, key));
	if (ps->sec == SEC_HYPERVISOR)
		return hv_statement(ps, key, rest);
	if (ps->sec == SEC_SCHEDULE)
		return sched_statement(ps, key, rest);
	if (ps->sec == SEC_CHANNEL)
		return chan_statement(ps, key, rest);
	return part_statement(ps, key, rest);
}

/* ---- channels ---- */

/* [a, a + n) and [b, b + m) share a byte; no end is computed, so none wraps. */
static bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
	return a <= b ? b - a < n : a - b < m;
}

/* Channel @ch's peer that is partition @part, or NULL. */
static const struct channel_peer *peer_of(const struct hv_config *cfg, uint32_t ch,
					  uint32_t part)
{
	const struct channel_config *c = &cfg->channels[ch];

	for (uint32_t i = 0; i < c->peer_count; i++)
		if (c->peers[i].partition == part)
			return &c->peers[i];
	return NULL;
}

/* A PCI BAR's alignment: @size rounded up to a power of two, at least 4 KiB. */
static uint64_t bar_align(uint64_t size)
{
	uint64_t a = CONFIG_CHANNEL_MIN;

	while (a < size && a < 1ull << 63)
		a <<= 1;
	return a;
}

/*
 * Does a PCI BAR of @size at @gpa read as a sizing probe: its low dword all
 * of its address bits, the last BAR-sized range below a 4 GiB boundary? The
 * virtual PCI bus never decodes such a BAR (hv/core/vpci.h) and refuses it.
 * Below the 64 GiB limit the high dword never reads as one.
 */
static bool bar_reads_as_probe(uint64_t gpa, uint64_t size)
{
	uint32_t mask = (uint32_t)~(bar_align(size) - 1);

	return mask && ((uint32_t)gpa & mask) == mask;
}

uint64_t channel_align(uint64_t size)
{
	uint64_t a = CONFIG_MEM_ALIGN;

	while (a < size && a < 1ull << 63)
		a <<= 1;
	return a;
}

/*
 * Where the first thing that [a, a + size of @ch) runs into in partition
 * @part ends: the MMIO window, or a channel placed before @ch (see
 * channel_place). 0: nothing.
 */
static uint64_t blocked_until(const struct hv_config *cfg, uint32_t ch, uint32_t part,
			      uint64_t a)
{
	uint64_t size = cfg->channels[ch].size;

	if (bar_reads_as_probe(a, size))
		return (a | 0xffffffffull) + 1;	/* the next 4 GiB boundary */
	if (overlaps(a, size, CONFIG_GUEST_MMIO_START,
		     CONFIG_GUEST_MMIO_END - CONFIG_GUEST_MMIO_START))
		return CONFIG_GUEST_MMIO_END;
	for (uint32_t i = 0; i < cfg->channel_count; i++) {
		const struct channel_peer *o = i == ch ? NULL : peer_of(cfg, i, part);

		if (o && (o->gpa_given || i < ch) && overlaps(a, size, o->gpa, cfg->channels[i].size))
			return o->gpa + cfg->channels[i].size;
	}
	return 0;
}

uint64_t channel_place(const struct hv_config *cfg, uint32_t ch, uint32_t peer)
{
	const struct channel_config *c = &cfg->channels[ch];
	uint32_t part = c->peers[peer].partition;
	uint64_t ram_end = guest_ram_end(cfg->partitions[part].memory_bytes);
	uint64_t align = channel_align(c->size), a, end;

	if (ram_end > CONFIG_GUEST_PHYS_LIMIT || c->size > CONFIG_CHANNEL_MAX)
		return 0;
	/* Each step jumps past what was in the way, so the search ends. */
	for (a = ALIGN_UP(ram_end, align); a <= CONFIG_GUEST_PHYS_LIMIT - c->size;
	     a = ALIGN_UP(end, align)) {
		end = blocked_until(cfg, ch, part, a);
		if (!end)
			return a;
		if (end <= a || end > CONFIG_GUEST_PHYS_LIMIT)
			return 0;	/* no room past it (or a hand-built range wraps) */
	}
	return 0;
}

int32_t channel_local_index(const struct hv_config *cfg, uint32_t part, uint32_t ch)
{
	int32_t n = 0;

	if (ch >= cfg->channel_count || !peer_of(cfg, ch, part))
		return -1;
	for (uint32_t i = 0; i < ch; i++)
		n += peer_of(cfg, i, part) != NULL;
	return n;
}

int32_t channel_by_local_index(const struct hv_config *cfg, uint32_t part, uint32_t local)
{
	for (uint32_t i = 0; i < cfg->channel_count; i++)
		if (peer_of(cfg, i, part) && !local--)
			return (int32_t)i;
	return -1;
}

static int overlap(struct parser *ps, const char *peer, const struct channel_config *c,
		   uint64_t gpa, const char *what, uint64_t start, uint64_t end)
{
	return fail(ps, "peer '%s': channel '%s' at 0x%llx-0x%llx overlaps %s at 0x%llx-0x%llx",
		    peer, c->name, (unsigned long long)gpa, (unsigned long long)(gpa + c->size - 1),
		    what, (unsigned long long)start, (unsigned long long)(end - 1));
}

/*
 * Peer @pi of channel @ci at its gpa: 4 KiB aligned, below the guest-physical
 * limit, clear of its partition's RAM and of the MMIO window, not where its
 * BAR reads as a sizing probe, and clear of the partition's channels before @ci (with @given_only, those whose address is
 * given: the others are not placed yet). @ci's size is known to be in range.
 */
static int check_gpa(struct parser *ps, const struct hv_config *cfg, uint32_t ci, uint32_t pi,
		     bool given_only)
{
	const struct channel_config *c = &cfg->channels[ci];
	const struct channel_peer *pe = &c->peers[pi];
	const struct partition_config *p = &cfg->partitions[pe->partition];
	char what[CONFIG_NAME_LEN + 12];

	if (pe->gpa % CONFIG_CHANNEL_MIN)
		return fail(ps, "peer '%s': channel '%s' at 0x%llx is not 4 KiB aligned", p->name,
			    c->name, (unsigned long long)pe->gpa);
	/*
	 * Each peer sees the channel through a PCI BAR (hv/core/chan_pci_abi.h),
	 * which is aligned to its size, a power of two; 2 MiB or more also
	 * spares the hypervisor's page pool the 4 KiB pages of a large channel.
	 */
	if (pe->gpa % bar_align(c->size))
		return fail(ps, "peer '%s': channel '%s' at 0x%llx is not aligned to %llu KiB, its "
			    "size rounded up to a power of two (it is a PCI BAR)", p->name, c->name,
			    (unsigned long long)pe->gpa,
			    (unsigned long long)(bar_align(c->size) >> 10));
	if (pe->gpa > CONFIG_GUEST_PHYS_LIMIT - c->size)
		return fail(ps, "peer '%s': channel '%s' at 0x%llx (0x%llx bytes) runs past the "
			    "64 GiB guest-physical limit", p->name, c->name,
			    (unsigned long long)pe->gpa, (unsigned long long)c->size);
	if (guest_ram_overlaps(p->memory_bytes, pe->gpa, c->size)) {
		bool low = pe->gpa < guest_ram_low(p->memory_bytes);

		return overlap(ps, p->name, c, pe->gpa, "its RAM", low ? 0 : GUEST_RAM_HIGH_BASE,
			       low ? guest_ram_low(p->memory_bytes) :
				     guest_ram_end(p->memory_bytes));
	}
	if (overlaps(pe->gpa, c->size, CONFIG_GUEST_MMIO_START,
		     CONFIG_GUEST_MMIO_END - CONFIG_GUEST_MMIO_START))
		return overlap(ps, p->name, c, pe->gpa, "the MMIO window", CONFIG_GUEST_MMIO_START,
			       CONFIG_GUEST_MMIO_END);
	if (bar_reads_as_probe(pe->gpa, c->size))
		return fail(ps, "peer '%s': channel '%s' at 0x%llx: its %llu KiB PCI BAR would end "
			    "at a 4 GiB boundary, where it reads as being sized and never decodes",
			    p->name, c->name, (unsigned long long)pe->gpa,
			    (unsigned long long)(bar_align(c->size) >> 10));
	for (uint32_t i = 0; i < ci; i++) {
		const struct channel_config *oc = &cfg->channels[i];
		const struct channel_peer *o = peer_of(cfg, i, pe->partition);

		if (o && (o->gpa_given || !given_only) &&
		    overlaps(pe->gpa, c->size, o->gpa, oc->size)) {
			fmt_snprintf(what, sizeof(what), "channel '%s'", oc->name);
			return overlap(ps, p->name, c, pe->gpa, what, o->gpa, o->gpa + oc->size);
		}
	}
	return 0;
}

/* ---- resolving, once the whole file is read ---- */

/* The index of the partition called @name, or partition_count. */
static uint32_t partition_index(const struct hv_config *cfg, struct span name)
{
	uint32_t k = 0;

	while (k < cfg->partition_count && !span_eq(name, cfg->partitions[k].name))
		k++;
	return k;
}

/*
 * Every partition is known now: turn window names into indexes. A window's
 * partition must run on the window's CPU; that is checked here, not in
 * config_validate, because only here is the window's line still known.
 */
static int resolve_windows(struct parser *ps)
{
	struct hv_config *cfg = ps->out;
	char q[QUOTE_BUF];

	for (uint32_t i = 0; i < cfg->schedule_count; i++) {
		struct schedule_config *s = &cfg->schedules[i];

		for (uint32_t w = 0; w < s->window_count; w++) {
			const struct window_ref *ref = &ps->refs[i][w];
			const struct partition_config *p;
			uint32_t k;

			if (!ref->name.n)
				continue;	/* idle: already -1 */
			ps->line = ref->line;
			k = partition_index(cfg, ref->name);
			if (k == cfg->partition_count) {
				fail(ps, "window: no partition named '%s' (expected the name of "
				     "a [partition NAME] section, or idle)", quote(q, ref->name));
				continue;
			}
			p = &cfg->partitions[k];
			s->windows[w].partition = (int32_t)k;
			if (!cpuset_has(&p->cpus, s->cpu) && !(ps->cpus_bad & (1u << k)))
				fail(ps, "window '%s' on line %u: partition '%s' does not use "
				     "CPU %u", p->name, ref->line, p->name, s->cpu);
		}
	}
	return ps->error_count ? -1 : 0;
}

enum peer_pass {
	PASS_NAME,	/* the peer's partition, by name */
	PASS_GIVEN,	/* a given address checked */
	PASS_DEFAULT,	/* a missing one chosen: after every given one, in file order */
	PASS_COUNT,
};

static int resolve_peer(struct parser *ps, enum peer_pass pass, uint32_t ci, uint32_t pi)
{
	struct hv_config *cfg = ps->out;
	const struct channel_config *c = &cfg->channels[ci];
	struct channel_peer *pe = &cfg->channels[ci].peers[pi];
	char q[QUOTE_BUF];

	ps->line = pe->line;
	if (pass == PASS_NAME) {
		pe->partition = partition_index(cfg, ps->peer_names[ci][pi]);
		if (pe->partition == cfg->partition_count)
			return fail(ps, "peer: no partition named '%s' (expected the name of a "
				    "[partition NAME] section)", quote(q, ps->peer_names[ci][pi]));
		return 0;
	}
	if (pe->gpa_given)
		return pass == PASS_GIVEN ? check_gpa(ps, cfg, ci, pi, true) : 0;
	if (pass == PASS_GIVEN)
		return 0;
	pe->gpa = channel_place(cfg, ci, pi);
	if (!pe->gpa)
		return fail(ps, "peer '%s': no room below 64 GiB for channel '%s' (0x%llx bytes, "
			    "aligned to 0x%llx, above its RAM and its other channels)",
			    cfg->partitions[pe->partition].name, c->name,
			    (unsigned long long)c->size, (unsigned long long)channel_align(c->size));
	return 0;
}

/*
 * Peers as windows: names may refer to partitions further down. Then the
 * addresses: every given one is checked before any default is chosen, so a
 * default never takes a range the file gives (channel_place).
 */
static int resolve_channels(struct parser *ps)
{
	const struct hv_config *cfg = ps->out;

	for (int pass = 0; pass < PASS_COUNT; pass++) {
		/*
		 * Addresses only once all else is right: they depend on every
		 * peer's partition and RAM, and on each other.
		 */
		if (pass != PASS_NAME && ps->error_count)
			return -1;
		for (uint32_t c = 0; c < cfg->channel_count; c++)
			for (uint32_t i = 0; i < cfg->channels[c].peer_count; i++)
				if (resolve_peer(ps, (enum peer_pass)pass, c, i) &&
				    pass != PASS_NAME)
					return -1;
	}
	return ps->error_count ? -1 : 0;
}

/* A parser that keeps the first @cap errors in @list (at least one place). */
static void parser_init(struct parser *ps, struct config_error *list, uint32_t cap)
{
	memset(ps, 0, sizeof(*ps));
	ps->errs = list;
	ps->cap = cap;
	list[0].line = 0;
	list[0].msg[0] = 0;
}

static void parse_text(struct parser *ps, const char *text, size_t len)
{
	struct hv_config *out = ps->out;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	out->tick_us = CONFIG_DEFAULT_TICK_US;
	out->irq_storm_per_ms = CONFIG_DEFAULT_IRQ_STORM_PER_MS;
	out->all_ended = ALL_ENDED_REBOOT;
	if (len > CONFIG_MAX_TEXT) {
		fail(ps, "config is %zu bytes, more than the %d allowed", len, CONFIG_MAX_TEXT);
		return;
	}
	if (!text && len) {
		fail(ps, "config text is missing");
		return;
	}
	while (pos < len) {
		size_t start = pos, end;

		ps->line++;
		while (pos < len && text[pos] != '\n')
			pos++;
		end = pos;
		if (pos < len)
			pos++;
		/* CRLF line ends; any other CR is refused as a control byte. */
		if (end > start && text[end - 1] == '\r')
			end--;
		/* an error is recorded; the next line is read all the same */
		parse_line(ps, span_from(text + start, end - start));
	}
	end_section(ps);
	check_slack(ps);
	if (!out->partition_count) {
		ps->line = 0;
		fail(ps, "no [partition] section");
		return;
	}
	resolve_windows(ps);
	resolve_channels(ps);
}

/* Parse into @out, keeping the first @cap errors in @list; returns how many were found. */
static uint32_t parse(const char *text, size_t len, struct hv_config *out,
		      struct config_error *list, uint32_t cap)
{
	struct window_ref refs[CONFIG_MAX_SCHEDULES][CONFIG_MAX_WINDOWS];	/* 3 KiB */
	struct span peer_names[CONFIG_MAX_CHANNELS][CONFIG_MAX_PEERS];		/* 1 KiB */
	struct parser ps;

	parser_init(&ps, list, cap);
	ps.out = out;
	ps.refs = refs;
	ps.peer_names = peer_names;
	if (!out)
		fail(&ps, "no place to put the config");
	else
		parse_text(&ps, text, len);
	return ps.error_count;
}

int config_parse(const char *text, size_t len, struct hv_config *out, struct config_error *err)
{
	struct config_error scratch;

	return parse(text, len, out, err ? err : &scratch, 1) ? -1 : 0;
}

int config_parse_all(const char *text, size_t len, struct hv_config *out,
		     struct config_errors *errs)
{
	struct config_error scratch;
	uint32_t n = parse(text, len, out, errs ? errs->list : &scratch,
			   errs ? CONFIG_MAX_ERRORS : 1);

	if (errs)
		errs->count = n;
	return n ? -1 : 0;
}

/* ---- the platform check ---- */

/* "hello, partitions", cut with "..." so it fits @size. */
static void module_list(char *buf, size_t size, const struct config_platform *plat)
{
	uint32_t count = MIN(plat->module_count, (uint32_t)ARRAY_SIZE(plat->module_names));
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < count; i++) {
		char q[QUOTE_BUF];
		const char *name = plat->module_names[i];
		size_t n;

		if (!name)
			continue;
		quote(q, span_from(name, strnlen(name, QUOTE_MAX + 1)));
		n = strlen(q);
		/* Every step leaves room for ", ..." should the next name not fit. */
		if (o + (o ? 2 : 0) + n + 6 > size) {
			memcpy(buf + o, o ? ", ..." : "...", o ? 6 : 4);
			return;
		}
		if (o) {
			memcpy(buf + o, ", ", 2);
			o += 2;
		}
		memcpy(buf + o, q, n + 1);
		o += n;
	}
	if (!o)
		memcpy(buf, "none", 5);
}

static bool have_module(const struct config_platform *plat, const char *name)
{
	uint32_t count = MIN(plat->module_count, (uint32_t)ARRAY_SIZE(plat->module_names));

	for (uint32_t i = 0; i < count; i++)
		if (plat->module_names[i] && !strcmp(plat->module_names[i], name))
			return true;
	return false;
}

static const struct schedule_config *schedule_of(const struct hv_config *cfg, uint32_t cpu)
{
	for (uint32_t i = 0; i < cfg->schedule_count; i++)
		if (cfg->schedules[i].cpu == cpu)
			return &cfg->schedules[i];
	return NULL;
}

static bool has_window(const struct schedule_config *s, uint32_t part)
{
	for (uint32_t w = 0; w < s->window_count; w++)
		if (s->windows[w].partition == (int32_t)part)
			return true;
	return false;
}

/*
 * What config_parse already guarantees about schedules, checked again so a
 * hand-built config cannot index past an array or wrap a sum. Sets
 * @sched_mask to the CPUs that have a schedule.
 */
static int check_schedule_shape(struct parser *ps, const struct hv_config *cfg,
				struct cpuset *sched_mask)
{
	memset(sched_mask, 0, sizeof(*sched_mask));
	if (cfg->schedule_count > CONFIG_MAX_SCHEDULES)
		return fail(ps, "too many schedules (at most %d)", CONFIG_MAX_SCHEDULES);
	for (uint32_t i = 0; i < cfg->schedule_count; i++) {
		const struct schedule_config *s = &cfg->schedules[i];
		uint64_t sum = 0;

		ps->line = s->line;
		if (s->cpu >= CONFIG_MAX_CPUS)
			return fail(ps, "schedule: CPU %u is out of range (0-%d)", s->cpu,
				    CONFIG_MAX_CPUS - 1);
		if (cpuset_has(sched_mask, s->cpu))
			return fail(ps, "duplicate [schedule %u] section (first on line %u)", s->cpu,
				    schedule_of(cfg, s->cpu)->line);
		cpuset_add(sched_mask, s->cpu);
		if (!s->window_count)
			return fail(ps, "[schedule %u] has no windows", s->cpu);
		if (s->window_count > CONFIG_MAX_WINDOWS)
			return fail(ps, "too many windows in [schedule %u] (at most %d)", s->cpu,
				    CONFIG_MAX_WINDOWS);
		for (uint32_t w = 0; w < s->window_count; w++) {
			const struct window_config *wc = &s->windows[w];

			if (wc->partition < -1 || wc->partition >= (int32_t)cfg->partition_count)
				return fail(ps, "[schedule %u]: window %u is for partition %d, which "
					    "does not exist", s->cpu, w + 1, wc->partition);
			if (wc->length_us < CONFIG_MIN_WINDOW_US ||
			    wc->length_us > CONFIG_MAX_WINDOW_US)
				return fail(ps, "[schedule %u]: window %u is %u us long (%d-%d allowed)",
					    s->cpu, w + 1, wc->length_us, CONFIG_MIN_WINDOW_US,
					    CONFIG_MAX_WINDOW_US);
			sum += wc->length_us;
		}
		if (sum != s->frame_us)
			return fail(ps, "[schedule %u]: frame_us %u is not the sum of the windows "
				    "(%llu us)", s->cpu, s->frame_us, (unsigned long long)sum);
	}
	return 0;
}

/* Schedules against the platform and the partitions, once every partition is checked. */
static int check_schedules(struct parser *ps, const struct hv_config *cfg,
			   const struct config_platform *plat)
{
	struct cpuset used = { { 0 } };

	for (uint32_t i = 0; i < cfg->partition_count; i++)
		cpuset_or(&used, &cfg->partitions[i].cpus);
	for (uint32_t i = 0; i < cfg->schedule_count; i++) {
		const struct schedule_config *s = &cfg->schedules[i];

		ps->line = s->line;
		if (s->cpu >= plat->cpu_count) {
			fail(ps, "[schedule %u]: CPU %u does not exist (the MADT lists %u)",
			     s->cpu, s->cpu, plat->cpu_count);
			continue;
		}
		if (!cpuset_has(&used, s->cpu)) {
			fail(ps, "[schedule %u]: no partition uses CPU %u", s->cpu, s->cpu);
			continue;
		}
		for (uint32_t w = 0; w < s->window_count; w++) {
			const struct partition_config *p;

			if (s->windows[w].partition < 0)
				continue;
			p = &cfg->partitions[s->windows[w].partition];
			/* config_parse refuses this at the window's line; not kept here. */
			if (!cpuset_has(&p->cpus, s->cpu))
				fail(ps, "window '%s' in [schedule %u]: partition '%s' does "
				     "not use CPU %u", p->name, s->cpu, p->name, s->cpu);
		}
	}
	return 0;
}

/* Adds @bytes to the host RAM asked for so far; false, and nothing added, if it would not fit. */
static bool fits(uint64_t *total, uint64_t bytes, const struct config_platform *plat)
{
	if (*total > UINT64_MAX - bytes || *total + bytes > plat->usable_bytes)
		return false;
	*total += bytes;
	return true;
}

/*
 * Channels, once every partition is checked: what config_parse guarantees,
 * again for a hand-built config, and their host RAM on top of @total, what
 * the partitions take. The line is the channel's section.
 */
/* What config_parse guarantees about channel @ci, again for a hand-built config. */
static int check_channel(struct parser *ps, const struct hv_config *cfg, uint32_t ci)
{
	const struct channel_config *c = &cfg->channels[ci];

	if (c->size < CONFIG_CHANNEL_MIN || c->size > CONFIG_CHANNEL_MAX ||
	    c->size % CONFIG_CHANNEL_MIN)
		return fail(ps, "channel '%s': size 0x%llx is not a multiple of 4 KiB from "
			    "4 KiB to 1 GiB", c->name, (unsigned long long)c->size);
	if (c->doorbell_limit < 1 || c->doorbell_limit > CONFIG_MAX_DOORBELL_LIMIT)
		return fail(ps, "channel '%s': doorbell_limit %u is out of range (1-%d)",
			    c->name, c->doorbell_limit, CONFIG_MAX_DOORBELL_LIMIT);
	if (c->peer_count < 2 || c->peer_count > CONFIG_MAX_PEERS)
		return fail(ps, "channel '%s' has %u peers (2-%d allowed)", c->name,
			    c->peer_count, CONFIG_MAX_PEERS);
	for (uint32_t i = 0; i < c->peer_count; i++) {
		uint32_t part = c->peers[i].partition;

		if (part >= cfg->partition_count)
			return fail(ps, "channel '%s': peer %u is for partition %u, which does "
				    "not exist", c->name, i + 1, part);
		if (peer_of(cfg, ci, part) != &c->peers[i])	/* not the first */
			return fail(ps, "channel '%s': partition '%s' is a peer twice",
				    c->name, cfg->partitions[part].name);
	}
	return 0;
}

static int check_channels(struct parser *ps, const struct hv_config *cfg,
			  const struct config_platform *plat, uint64_t total)
{
	uint32_t errors = ps->error_count;

	if (cfg->channel_count > CONFIG_MAX_CHANNELS)
		return fail(ps, "too many channels (at most %d)", CONFIG_MAX_CHANNELS);
	for (uint32_t ci = 0; ci < cfg->channel_count; ci++) {
		ps->line = cfg->channels[ci].line;
		check_channel(ps, cfg, ci);
	}
	/* an address check reads every channel of a peer: all must be sound first */
	if (ps->error_count != errors)
		return -1;
	for (uint32_t ci = 0; ci < cfg->channel_count; ci++) {
		const struct channel_config *c = &cfg->channels[ci];
		uint64_t cost = ALIGN_UP(c->size, CONFIG_MEM_ALIGN);
		bool gpa_ok = true;

		ps->line = c->line;
		for (uint32_t i = 0; i < c->peer_count; i++)
			gpa_ok = !check_gpa(ps, cfg, ci, i, false) && gpa_ok;
		if (!gpa_ok)
			continue;
		if (!fits(&total, cost, plat))
			fail(ps, "channel '%s': memory does not fit (%llu MiB asked for so far, "
			     "partitions and channels together, %llu MiB usable)", c->name,
			     (unsigned long long)((total >> 20) + (cost >> 20)),
			     (unsigned long long)(plat->usable_bytes >> 20));
	}
	return 0;
}

/* ---- devices (hv/core/devassign.h) ---- */

/*
 * Where the guest sees @p's emulated devices: an mmio = range, mapped at its
 * own address, may not hide one of them (nor its RAM or channels).
 */
static const char *guest_region_at(const struct partition_config *p, uint64_t base, uint64_t size,
				   bool has_channels, uint64_t *first, uint64_t *end)
{
	if (overlaps(base, size, CONFIG_GUEST_XAPIC_BASE, CONFIG_GUEST_REG_PAGE)) {
		*first = CONFIG_GUEST_XAPIC_BASE;
		*end = CONFIG_GUEST_XAPIC_BASE + CONFIG_GUEST_REG_PAGE;
		return "its xAPIC page";
	}
	if ((p->dev.given & (1u << DEV_KEY_IRQS)) &&
	    overlaps(base, size, CONFIG_GUEST_IOAPIC_BASE, CONFIG_GUEST_REG_PAGE)) {
		*first = CONFIG_GUEST_IOAPIC_BASE;
		*end = CONFIG_GUEST_IOAPIC_BASE + CONFIG_GUEST_REG_PAGE;
		return "its virtual IOAPIC";
	}
	if (has_channels && overlaps(base, size, CONFIG_GUEST_MMIO_START,
				     CONFIG_GUEST_CHAN_BAR_END - CONFIG_GUEST_MMIO_START)) {
		*first = CONFIG_GUEST_MMIO_START;
		*end = CONFIG_GUEST_CHAN_BAR_END;
		return "its channels' PCI registers";
	}
	return NULL;
}

/* Partition @i's mmio = ranges against its own guest-physical map. */
static void check_mmio_map(struct parser *ps, const struct hv_config *cfg, uint32_t i)
{
	const struct partition_config *p = &cfg->partitions[i];
	bool has_channels = false;

	for (uint32_t c = 0; c < cfg->channel_count && !has_channels; c++)
		has_channels = peer_of(cfg, c, i) != NULL;
	ps->line = p->dev.line[DEV_KEY_MMIO];
	for (uint32_t k = 0; k < p->dev.mmio_count && k < DEV_MAX_MMIO; k++) {
		uint64_t base = p->dev.mmio[k].base, size = p->dev.mmio[k].size, first, end;
		const char *what;

		if (!size || base > UINT64_MAX - size)
			continue;	/* devassign_parse never makes one */
		if (guest_ram_overlaps(p->memory_bytes, base, size)) {
			fail(ps, "mmio: 0x%llx+0x%llx overlaps the RAM of partition '%s' (0x0-0x%llx%s): "
			     "a range is mapped at its own address", (unsigned long long)base,
			     (unsigned long long)size, p->name,
			     (unsigned long long)(guest_ram_low(p->memory_bytes) - 1),
			     guest_ram_high(p->memory_bytes) ? " and from 4 GiB" : "");
			continue;
		}
		what = guest_region_at(p, base, size, has_channels, &first, &end);
		if (what) {
			fail(ps, "mmio: 0x%llx+0x%llx overlaps %s (0x%llx-0x%llx), which Tempo "
			     "emulates there", (unsigned long long)base, (unsigned long long)size,
			     what, (unsigned long long)first, (unsigned long long)(end - 1));
			continue;
		}
		for (uint32_t c = 0; c < cfg->channel_count; c++) {
			const struct channel_peer *pe = peer_of(cfg, c, i);

			if (pe && overlaps(base, size, pe->gpa, cfg->channels[c].size)) {
				fail(ps, "mmio: 0x%llx+0x%llx overlaps channel '%s' (0x%llx-0x%llx): "
				     "give the channel another address", (unsigned long long)base,
				     (unsigned long long)size, cfg->channels[c].name,
				     (unsigned long long)pe->gpa,
				     (unsigned long long)(pe->gpa + cfg->channels[c].size - 1));
				break;
			}
		}
	}
}

/*
 * Every partition's devices against each other and the machine
 * (devassign_check), each refusal at its key's line. Without a machine
 * (tempo-config check alone) only what is the same on every PC is Tempo's:
 * the fixed legacy ports, its console on COM1 and port 0xE9.
 */
static void check_devices(struct parser *ps, const struct hv_config *cfg,
			  const struct config_platform *plat)
{
	struct dev_partition parts[CONFIG_MAX_PARTITIONS];
	struct dev_refusal refusals[CONFIG_MAX_ERRORS];
	struct dev_reserved reserved[16];
	struct dev_machine any = { .unknown = true, .reserved = reserved };
	const struct dev_platform pc = { .console_port = CONFIG_CONSOLE_PORT, .debugcon = true };
	const struct dev_machine *m = plat->machine;
	uint32_t count;
	bool some = false;

	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		parts[i] = (struct dev_partition){ cfg->partitions[i].name, &cfg->partitions[i].dev };
		some |= cfg->partitions[i].dev.given != 0;
	}
	if (!some)
		return;
	if (!m) {
		any.reserved_count = MIN(devassign_reserved(&pc, reserved, ARRAY_SIZE(reserved)),
					 (uint32_t)ARRAY_SIZE(reserved));
		m = &any;
	}
	count = devassign_check(parts, cfg->partition_count, m, refusals, ARRAY_SIZE(refusals));
	for (uint32_t k = 0; k < count && k < ARRAY_SIZE(refusals); k++) {
		ps->line = refusals[k].line;
		fail(ps, "%s", refusals[k].msg);
	}
	if (count > ARRAY_SIZE(refusals)) {
		ps->line = 0;
		fail(ps, "%u more device refusals", count - (uint32_t)ARRAY_SIZE(refusals));
	}
	for (uint32_t i = 0; i < cfg->partition_count; i++)
		check_mmio_map(ps, cfg, i);
}

/*
 * One partition against the platform and the partitions before it. Each
 * finding is its own error; only a partition with no CPUs or too many is
 * not looked at further.
 */
static void check_partition(struct parser *ps, const struct hv_config *cfg, uint32_t i,
			    const struct config_platform *plat, const struct cpuset *sched_mask,
			    const char *have, uint64_t *total)
{
	const struct partition_config *p = &cfg->partitions[i];
	int beyond = cpuset_next(&p->cpus, plat->cpu_count);

	ps->line = p->line;
	if (cpuset_empty(&p->cpus)) {
		fail(ps, "partition '%s' has no CPUs", p->name);
		return;
	}
	if (cpuset_count(&p->cpus) > CONFIG_MAX_VCPUS) {
		fail(ps, "partition '%s': more than %d CPUs", p->name, CONFIG_MAX_VCPUS);
		return;
	}
	if (beyond >= 0)
		fail(ps, "partition '%s': CPU %d does not exist (the MADT lists %u)", p->name,
		     beyond, plat->cpu_count);
	for (uint32_t j = 0; j < i; j++) {
		const struct partition_config *o = &cfg->partitions[j];
		int both = cpuset_first_common(&p->cpus, &o->cpus, sched_mask);

		if (both >= 0)
			fail(ps, "CPU %d is given to both '%s' and '%s'; add a [schedule %d] "
			     "section to share it", both, o->name, p->name, both);
	}
	/* On a scheduled CPU a partition runs only in its windows. */
	for (int c = cpuset_first(&p->cpus); c >= 0; c = cpuset_next(&p->cpus, (uint32_t)c + 1)) {
		const struct schedule_config *s;

		if (!cpuset_has(sched_mask, (uint32_t)c))
			continue;
		s = schedule_of(cfg, (uint32_t)c);
		if (!has_window(s, i))
			fail(ps, "partition '%s' uses CPU %u but has no window in [schedule %u] "
			     "(line %u)", p->name, s->cpu, s->cpu, s->line);
		/*
		 * direct hands the guest the real LAPIC timer, which cannot be
		 * switched away from it at a window's end.
		 */
		else if (!timer_mode(p->timer)->may_share_core)
			fail(ps, "partition '%s': timer = %s needs a dedicated core, but CPU %u "
			     "is shared by [schedule %u] (line %u); use inject, emulated or "
			     "pv-lazy", p->name, timer_mode_name(p->timer), s->cpu, s->cpu,
			     s->line);
	}
	if (!have_module(plat, p->image))
		fail(ps, "image '%s' not found among the boot modules (have: %s)", p->image, have);
	if (p->module_count > CONFIG_MAX_MODULES)
		fail(ps, "partition '%s': too many modules (at most %d)", p->name,
		     CONFIG_MAX_MODULES);
	for (uint32_t m = 0; m < MIN(p->module_count, (uint32_t)CONFIG_MAX_MODULES); m++)
		if (!have_module(plat, p->modules[m]))
			fail(ps, "module '%s' not found among the boot modules (have: %s)",
			     p->modules[m], have);
	if (!p->memory_bytes) {
		fail(ps, "partition '%s' has no memory", p->name);
		return;
	}
	if (p->memory_bytes % CONFIG_MEM_ALIGN || p->memory_bytes > CONFIG_MAX_MEMORY) {
		fail(ps, "partition '%s': memory is not a multiple of 2 MiB up to 255 TiB",
		     p->name);
		return;
	}
	if (p->base && p->base > UINT64_MAX - p->memory_bytes) {
		fail(ps, "partition '%s': base + memory runs past the end of the address space",
		     p->name);
		return;
	}
	for (uint32_t j = 0; j < i && p->base; j++) {
		const struct partition_config *o = &cfg->partitions[j];

		if (o->base && p->base < o->base + o->memory_bytes &&
		    o->base < p->base + p->memory_bytes)
			fail(ps, "'%s' at 0x%llx-0x%llx overlaps '%s' at 0x%llx-0x%llx", p->name,
			     (unsigned long long)p->base,
			     (unsigned long long)(p->base + p->memory_bytes - 1), o->name,
			     (unsigned long long)o->base,
			     (unsigned long long)(o->base + o->memory_bytes - 1));
	}
	if (!fits(total, p->memory_bytes, plat))
		fail(ps, "partition '%s': memory does not fit (%llu MiB asked for so far, %llu MiB "
		     "usable)", p->name,
		     (unsigned long long)((*total >> 20) + (p->memory_bytes >> 20)),
		     (unsigned long long)(plat->usable_bytes >> 20));
}

static uint32_t validate(const struct hv_config *cfg, const struct config_platform *plat,
			 struct config_error *list, uint32_t cap)
{
	struct parser ps;
	uint64_t total = 0;
	struct cpuset sched_mask;
	char have[72];	/* keeps the longest "not found" message within err->msg */

	parser_init(&ps, list, cap);
	if (!cfg || !plat) {
		fail(&ps, "no config or platform to check");
		return ps.error_count;
	}
	if (!cfg->partition_count)
		fail(&ps, "no [partition] section");
	else if (cfg->partition_count > CONFIG_MAX_PARTITIONS)
		fail(&ps, "too many partitions (at most %d)", CONFIG_MAX_PARTITIONS);
	else if (!check_schedule_shape(&ps, cfg, &sched_mask)) {
		module_list(have, sizeof(have), plat);
		for (uint32_t i = 0; i < cfg->partition_count; i++)
			check_partition(&ps, cfg, i, plat, &sched_mask, have, &total);
		check_schedules(&ps, cfg, plat);
		check_channels(&ps, cfg, plat, total);
		check_devices(&ps, cfg, plat);
	}
	return ps.error_count;
}

int config_validate(const struct hv_config *cfg, const struct config_platform *plat,
		    struct config_error *err)
{
	struct config_error scratch;

	return validate(cfg, plat, err ? err : &scratch, 1) ? -1 : 0;
}

int config_validate_all(const struct hv_config *cfg, const struct config_platform *plat,
			struct config_errors *errs)
{
	struct config_error scratch;
	uint32_t n = validate(cfg, plat, errs ? errs->list : &scratch,
			      errs ? CONFIG_MAX_ERRORS : 1);

	if (errs)
		errs->count = n;
	return n ? -1 : 0;
}
