// SPDX-License-Identifier: MIT
/*
 * Device assignment: the config keys' values and the checks of an
 * assignment against the other partitions and the machine
 * (hv/core/devassign.h). The values are outside input: every number is
 * bounded, every list counted, and a message names what was found.
 */
#include "hv/core/devassign.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define ITEM_SHOWN	40	/* characters of a bad item quoted in a message */
#define CLASS_BRIDGE	0x06	/* base class */

struct span {
	const char *p;
	size_t n;
};

static const char *const key_names[DEV_KEY_COUNT] = {
	[DEV_KEY_PCI] = "pci",
	[DEV_KEY_PORTS] = "ports",
	[DEV_KEY_MMIO] = "mmio",
	[DEV_KEY_IRQS] = "irqs",
};

const char *devassign_key_name(enum dev_key k)
{
	return (unsigned int)k < DEV_KEY_COUNT ? key_names[k] : "?";
}

int devassign_key(const char *key, size_t len)
{
	for (int k = 0; k < DEV_KEY_COUNT; k++)
		if (strlen(key_names[k]) == len && !memcmp(key, key_names[k], len))
			return k;
	return -1;
}

/* ---- spans and numbers ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static struct span trim(struct span s)
{
	while (s.n && is_blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && is_blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

/*
 * @s as a message may quote it: cut to ITEM_SHOWN characters, anything
 * unprintable (a config is outside input) shown as '?', so a message stays
 * one line.
 */
struct quoted {
	char s[ITEM_SHOWN + 1];
};

static struct quoted quote(struct span s)
{
	struct quoted q;
	size_t n = MIN(s.n, (size_t)ITEM_SHOWN);

	for (size_t i = 0; i < n; i++)
		q.s[i] = s.p[i] >= 0x20 && s.p[i] < 0x7f ? s.p[i] : '?';
	q.s[n] = 0;
	return q;
}

/* Split @s at the first @c: the part before in *@head, after in *@tail. */
static bool split(struct span s, char c, struct span *head, struct span *tail)
{
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] != c)
			continue;
		*head = (struct span){ s.p, i };
		*tail = (struct span){ s.p + i + 1, s.n - i - 1 };
		return true;
	}
	return false;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1 to @max_digits hex digits, no prefix: a bus, device or function number. */
static bool take_hex(struct span s, size_t max_digits, uint32_t *v)
{
	*v = 0;
	if (!s.n || s.n > max_digits)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		int d = hex_digit(s.p[i]);

		if (d < 0)
			return false;
		*v = *v * 16 + (uint32_t)d;
	}
	return true;
}

/* A number in hex (0x) or decimal, at most @max. */
static bool take_num(struct span s, uint64_t max, uint64_t *v)
{
	uint64_t base = 10;

	*v = 0;
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		base = 16;
		s.p += 2;
		s.n -= 2;
	}
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		int d = hex_digit(s.p[i]);

		if (d < 0 || (uint64_t)d >= base || *v > (max - (uint64_t)d) / base)
			return false;
		*v = *v * base + (uint64_t)d;
	}
	return true;
}

/* A size: a number with an optional K, M or G (binary) suffix. */
static bool take_size(struct span s, uint64_t *v)
{
	unsigned int shift = 0;

	if (s.n) {
		switch (s.p[s.n - 1]) {
		case 'K': case 'k':
			shift = 10;
			break;
		case 'M': case 'm':
			shift = 20;
			break;
		case 'G': case 'g':
			shift = 30;
			break;
		}
		if (shift)
			s.n--;
	}
	return take_num(s, UINT64_MAX >> shift, v) && (*v <<= shift, true);
}

/* ---- the four values ---- */

struct parse {
	struct dev_assignment *a;
	enum dev_key key;
	char *err;
	size_t errlen;
};

static int fail(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse *ps, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!ps->errlen)
		return -1;
	n = fmt_scnprintf(ps->err, ps->errlen, "%s: ", key_names[ps->key]);
	va_start(ap, fmt);
	fmt_vscnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int expected(struct parse *ps, const char *what, struct span item)
{
	return fail(ps, "expected %s, found '%s'", what, quote(item).s);
}

static bool overlap(uint64_t a_first, uint64_t a_last, uint64_t b_first, uint64_t b_last)
{
	return a_first <= b_last && b_first <= a_last;
}

static int take_pci(struct parse *ps, struct span item)
{
	static const char what[] = "BB:DD.F in hex (00:19.0)";
	struct dev_assignment *a = ps->a;
	struct span seg, rest, bus, devfn, dev, fn;
	uint32_t s = 0, b, d, f;
	uint16_t bdf;

	rest = item;
	if (split(rest, ':', &seg, &bus) && split(bus, ':', &bus, &devfn)) {
		/* SSSS:BB:DD.F */
		if (!take_hex(seg, 4, &s))
			return expected(ps, what, item);
	} else if (!split(item, ':', &bus, &devfn)) {
		return expected(ps, what, item);
	}
	if (!take_hex(bus, 2, &b) || !split(devfn, '.', &dev, &fn) || !take_hex(dev, 2, &d) ||
	    !take_hex(fn, 1, &f))
		return expected(ps, what, item);
	if (s)
		return fail(ps, "'%s': segment %x: Tempo uses segment 0 only",
			    quote(item).s, s);
	if (d > 0x1f || f > 7)
		return fail(ps, "'%s': device %x and function %x must be at most 1f and 7",
			    quote(item).s, d, f);
	bdf = (uint16_t)(b << 8 | d << 3 | f);
	for (uint32_t i = 0; i < a->pci_count; i++)
		if (a->pci[i] == bdf)
			return fail(ps, "%02x:%02x.%x listed twice", b, d, f);
	if (a->pci_count >= DEV_MAX_PCI)
		return fail(ps, "at most %u functions", DEV_MAX_PCI);
	a->pci[a->pci_count++] = bdf;
	return 0;
}

/* FIRST-LAST or one number into @lo and @hi; else the error, naming @what is expected. */
static int take_range(struct parse *ps, struct span item, const char *what, uint64_t *lo,
		      uint64_t *hi)
{
	struct span first, last;

	if (split(item, '-', &first, &last)) {
		if (!take_num(trim(first), UINT64_MAX, lo) || !take_num(trim(last), UINT64_MAX, hi))
			return expected(ps, what, item);
	} else if (!take_num(item, UINT64_MAX, lo)) {
		return expected(ps, what, item);
	} else {
		*hi = *lo;
	}
	return 0;
}

static int take_ports(struct parse *ps, struct span item)
{
	struct dev_assignment *a = ps->a;
	uint64_t lo, hi;
	int r = take_range(ps, item, "FIRST-LAST or a port (0x2f8-0x2ff)", &lo, &hi);

	if (r)
		return r;
	if (hi > 0xffff)
		return fail(ps, "'%s': ports end at 0xffff", quote(item).s);
	if (hi < lo)
		return fail(ps, "'%s': the last port is below the first",
			    quote(item).s);
	for (uint32_t i = 0; i < a->port_count; i++)
		if (overlap(lo, hi, a->ports[i].first, a->ports[i].last))
			return fail(ps, "0x%llx-0x%llx overlaps 0x%x-0x%x, listed before",
				    (unsigned long long)lo, (unsigned long long)hi,
				    a->ports[i].first, a->ports[i].last);
	if (a->port_count >= DEV_MAX_PORTS)
		return fail(ps, "at most %u ranges", DEV_MAX_PORTS);
	a->ports[a->port_count++] = (struct dev_port_range){ (uint16_t)lo, (uint16_t)hi };
	return 0;
}

#define DEV_MMIO_LIMIT	(1ull << 48)

static int take_mmio(struct parse *ps, struct span item)
{
	struct dev_assignment *a = ps->a;
	struct span b, s;
	uint64_t base, size;

	if (!split(item, '+', &b, &s) || !take_num(trim(b), UINT64_MAX, &base) ||
	    !take_size(trim(s), &size))
		return expected(ps, "BASE+SIZE (0xfed00000+0x1000 or 0xfe000000+64K)", item);
	if (!size || (base | size) & (DEV_MMIO_GRAIN - 1))
		return fail(ps, "0x%llx+0x%llx: base and size must be multiples of 4 KiB, the size "
			    "not 0", (unsigned long long)base, (unsigned long long)size);
	/* the EPT's four levels map 48 bits of guest-physical space (SDM Vol. 3C 29.3.2) */
	if (base >= DEV_MMIO_LIMIT || size > DEV_MMIO_LIMIT - base)
		return fail(ps, "0x%llx+0x%llx runs past 2^48, the top of what the EPT maps",
			    (unsigned long long)base, (unsigned long long)size);
	for (uint32_t i = 0; i < a->mmio_count; i++)
		if (overlap(base, base + (size - 1), a->mmio[i].base,
			    a->mmio[i].base + (a->mmio[i].size - 1)))
			return fail(ps, "0x%llx+0x%llx overlaps 0x%llx+0x%llx, listed before",
				    (unsigned long long)base, (unsigned long long)size,
				    (unsigned long long)a->mmio[i].base,
				    (unsigned long long)a->mmio[i].size);
	if (a->mmio_count >= DEV_MAX_MMIO)
		return fail(ps, "at most %u ranges", DEV_MAX_MMIO);
	a->mmio[a->mmio_count++] = (struct dev_mmio_range){ base, size };
	return 0;
}

static int take_irqs(struct parse *ps, struct span item)
{
	struct dev_assignment *a = ps->a;
	uint64_t lo, hi;
	int r = take_range(ps, item, "a GSI or FIRST-LAST (3, 16-19)", &lo, &hi);

	if (r)
		return r;
	if (hi >= DEV_GSI_LIMIT)
		return fail(ps, "'%s': GSIs end at %u", quote(item).s,
			    DEV_GSI_LIMIT - 1);
	if (hi < lo)
		return fail(ps, "'%s': the last GSI is below the first",
			    quote(item).s);
	for (uint64_t g = lo; g <= hi; g++) {
		for (uint32_t i = 0; i < a->irq_count; i++)
			if (a->irqs[i] == g)
				return fail(ps, "GSI %llu listed twice", (unsigned long long)g);
		if (a->irq_count >= DEV_MAX_IRQS)
			return fail(ps, "at most %u GSIs", DEV_MAX_IRQS);
		a->irqs[a->irq_count++] = (uint32_t)g;
	}
	return 0;
}

static void clear_key(struct dev_assignment *a, enum dev_key key)
{
	switch (key) {
	case DEV_KEY_PCI:
		a->pci_count = 0;
		memset(a->pci, 0, sizeof(a->pci));
		break;
	case DEV_KEY_PORTS:
		a->port_count = 0;
		memset(a->ports, 0, sizeof(a->ports));
		break;
	case DEV_KEY_MMIO:
		a->mmio_count = 0;
		memset(a->mmio, 0, sizeof(a->mmio));
		break;
	default:
		a->irq_count = 0;
		memset(a->irqs, 0, sizeof(a->irqs));
		break;
	}
}

int devassign_parse(struct dev_assignment *a, enum dev_key key, const char *value, size_t len,
		    uint32_t line, char *err, size_t errlen)
{
	struct parse ps = { a, key, err, errlen };
	struct span rest = { value, len }, item;
	bool more = true;

	if (errlen)
		err[0] = 0;
	if ((unsigned int)key >= DEV_KEY_COUNT) {
		fmt_snprintf(err, errlen, "device key %d unknown", (int)key);
		return -1;
	}
	if (a->given & (1u << key))
		return fail(&ps, "given twice (first on line %u)", a->line[key]);
	clear_key(a, key);
	if (!trim(rest).n) {
		fail(&ps, "expected a list, found nothing");
		return -1;
	}
	while (more) {
		int r;

		more = split(rest, ',', &item, &rest);
		if (!more)
			item = rest;
		item = trim(item);
		if (!item.n) {
			r = fail(&ps, "an empty item in the list");
		} else {
			switch (key) {
			case DEV_KEY_PCI:
				r = take_pci(&ps, item);
				break;
			case DEV_KEY_PORTS:
				r = take_ports(&ps, item);
				break;
			case DEV_KEY_MMIO:
				r = take_mmio(&ps, item);
				break;
			default:
				r = take_irqs(&ps, item);
				break;
			}
		}
		if (r) {
			clear_key(a, key);
			return -1;
		}
	}
	a->given |= 1u << key;
	a->line[key] = line;
	return 0;
}

/* ---- what Tempo keeps ---- */

static const struct dev_reserved fixed_ports[] = {
	{ DEV_SPACE_PORT, 0x20, 0x21, "the master PIC (kept masked)" },
	{ DEV_SPACE_PORT, 0x40, 0x43, "the PIT (TSC calibration)" },
	{ DEV_SPACE_PORT, 0x60, 0x60, "the 8042 (its reset line)" },
	{ DEV_SPACE_PORT, 0x64, 0x64, "the 8042 (its reset line)" },
	{ DEV_SPACE_PORT, 0x70, 0x77, "the RTC index and the NMI mask" },
	{ DEV_SPACE_PORT, 0x92, 0x92, "port 0x92 (its reset bit)" },
	{ DEV_SPACE_PORT, 0xa0, 0xa1, "the slave PIC (kept masked)" },
	{ DEV_SPACE_PORT, 0x4d0, 0x4d1, "the PICs' edge/level registers" },
	{ DEV_SPACE_PORT, 0xcf8, 0xcff, "the PCI configuration ports and reset control" },
};

static void add(struct dev_reserved *out, uint32_t max, uint32_t *n, enum dev_space space,
		uint64_t first, uint64_t last, const char *what)
{
	if (*n < max)
		out[*n] = (struct dev_reserved){ space, first, last, what };
	(*n)++;
}

/*
 * A block of @len ports at @port (0: none), @len 0 meaning @least; kept
 * inside the 16-bit port space (a FADT is outside input).
 */
static void add_port_block(struct dev_reserved *out, uint32_t max, uint32_t *n, uint32_t port,
			   uint32_t len, uint32_t least, const char *what)
{
	if (!port || port > 0xffff)
		return;
	if (!len)
		len = least;
	add(out, max, n, DEV_SPACE_PORT, port, MIN(port + len - 1, 0xffffu), what);
}

uint32_t devassign_reserved(const struct dev_platform *p, struct dev_reserved *out,
			    uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ARRAY_SIZE(fixed_ports); i++)
		add(out, max, &n, fixed_ports[i].space, fixed_ports[i].first, fixed_ports[i].last,
		    fixed_ports[i].what);
	if (p->console_port)
		add(out, max, &n, DEV_SPACE_PORT, p->console_port,
		    MIN((uint32_t)p->console_port + 7, 0xffffu), "Tempo's console UART");
	if (p->debugcon)
		add(out, max, &n, DEV_SPACE_PORT, 0xe9, 0xe9, "Tempo's debug port");
	if (p->lapic_phys)
		add(out, max, &n, DEV_SPACE_MMIO, p->lapic_phys, p->lapic_phys + 0xfff,
		    "the LAPIC registers");
	for (uint32_t i = 0; i < p->ioapic_count && i < ARRAY_SIZE(p->ioapic_phys); i++)
		add(out, max, &n, DEV_SPACE_MMIO, p->ioapic_phys[i] & ~0xfffull,
		    (p->ioapic_phys[i] & ~0xfffull) + 0xfff, "an IOAPIC's registers");
	if (p->hpet_in_use && p->hpet_phys)
		add(out, max, &n, DEV_SPACE_MMIO, p->hpet_phys & ~0xfffull,
		    (p->hpet_phys & ~0xfffull) + 0xfff, "the HPET (Tempo calibrates with it)");
	for (uint32_t i = 0; i < p->ecam_count && i < ARRAY_SIZE(p->ecam); i++)
		if (p->ecam[i].size)
			add(out, max, &n, DEV_SPACE_MMIO, p->ecam[i].base,
			    p->ecam[i].base + (p->ecam[i].size - 1),
			    "PCI configuration space (ECAM)");
	for (uint32_t i = 0; i < p->ram_count && p->ram; i++)
		if (p->ram[i].size)
			add(out, max, &n, DEV_SPACE_MMIO, p->ram[i].base,
			    p->ram[i].base + (p->ram[i].size - 1), "RAM");
	add_port_block(out, max, &n, p->smi_cmd_port, 1, 1,
		       "the FADT's SMI command port (it enters SMM)");
	add_port_block(out, max, &n, p->pm1a_evt_port, p->pm1_evt_len, 4,
		       "the FADT's PM1a event block");
	add_port_block(out, max, &n, p->pm1b_evt_port, p->pm1_evt_len, 4,
		       "the FADT's PM1b event block");
	add_port_block(out, max, &n, p->pm1a_cnt_port, p->pm1_cnt_len, 2,
		       "the FADT's PM1a control block (SLP_EN powers the machine off)");
	add_port_block(out, max, &n, p->pm1b_cnt_port, p->pm1_cnt_len, 2,
		       "the FADT's PM1b control block (SLP_EN powers the machine off)");
	add_port_block(out, max, &n, p->pm_tmr_port, p->pm_tmr_len, 4, "the ACPI PM timer");
	/* 0xCF9 is in the fixed list already */
	if (p->reset_reg_valid && p->reset_reg_io && p->reset_reg_addr != 0xcf9)
		add_port_block(out, max, &n,
			       p->reset_reg_addr > 0xffff ? 0 : (uint32_t)p->reset_reg_addr, 1, 1,
			       "the FADT's reset register");
	else if (p->reset_reg_valid && !p->reset_reg_io && p->reset_reg_addr)
		add(out, max, &n, DEV_SPACE_MMIO, p->reset_reg_addr & ~0xfffull,
		    (p->reset_reg_addr & ~0xfffull) + 0xfff, "the FADT's reset register");
	for (uint32_t i = 0; i < p->drhd_count && i < ARRAY_SIZE(p->drhd); i++)
		if (p->drhd[i].size && p->drhd[i].base + (p->drhd[i].size - 1) >= p->drhd[i].base)
			add(out, max, &n, DEV_SPACE_MMIO, p->drhd[i].base & ~0xfffull,
			    p->drhd[i].base + (p->drhd[i].size - 1),
			    "a VT-d remapping unit's registers (DMAR)");
	if (p->tpm)
		add(out, max, &n, DEV_SPACE_MMIO, DEV_TPM_PHYS, DEV_TPM_PHYS + DEV_TPM_SIZE - 1,
		    "the TPM's locality pages");
	return n;
}

/* ---- the checks ---- */

struct check {
	const struct dev_partition *parts;
	uint32_t n;
	const struct dev_machine *m;
	struct dev_refusal *out;
	uint32_t max;
	uint32_t count;
	uint32_t part;		/* the partition being checked */
	enum dev_key key;
};

static void refuse(struct check *c, enum dev_reason why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void refuse(struct check *c, enum dev_reason why, const char *fmt, ...)
{
	struct dev_refusal *r;
	va_list ap;
	size_t n;

	if (c->count++ >= c->max)
		return;
	r = &c->out[c->count - 1];
	r->partition = c->part;
	r->key = c->key;
	r->line = c->parts[c->part].a->line[c->key];
	r->reason = why;
	n = fmt_scnprintf(r->msg, sizeof(r->msg), "%s: ", key_names[c->key]);
	va_start(ap, fmt);
	fmt_vscnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
	va_end(ap);
}

static const char *part_name(const struct check *c, uint32_t i)
{
	return c->parts[i].name ? c->parts[i].name : "?";
}

static const struct dev_fn_info *machine_fn(const struct dev_machine *m, uint16_t bdf)
{
	for (uint32_t i = 0; i < m->fn_count && m->fns; i++)
		if (m->fns[i].bdf == bdf)
			return &m->fns[i];
	return NULL;
}

/* The partition (other than @self) that has function @bdf, or -1. */
static int32_t fn_owner(const struct check *c, uint16_t bdf, uint32_t self)
{
	for (uint32_t i = 0; i < c->n; i++) {
		const struct dev_assignment *a = c->parts[i].a;

		if (i == self || !a)
			continue;
		for (uint32_t k = 0; k < a->pci_count && k < DEV_MAX_PCI; k++)
			if (a->pci[k] == bdf)
				return (int32_t)i;
	}
	return -1;
}

static bool has_fn(const struct dev_assignment *a, uint16_t bdf)
{
	for (uint32_t k = 0; k < a->pci_count && k < DEV_MAX_PCI; k++)
		if (a->pci[k] == bdf)
			return true;
	return false;
}

static bool has_irq(const struct dev_assignment *a, uint32_t gsi)
{
	for (uint32_t k = 0; k < a->irq_count && k < DEV_MAX_IRQS; k++)
		if (a->irqs[k] == gsi)
			return true;
	return false;
}

int32_t devassign_intx_gsi(const struct dev_fn_info *f)
{
	if (f->interrupt_pin < 1 || f->interrupt_pin > 4 || !f->interrupt_line ||
	    f->interrupt_line == 0xff)
		return -1;
	return f->interrupt_line;
}

#define intx_gsi(f)	devassign_intx_gsi(f)

#define BDF_ARGS(bdf)	(bdf) >> 8, ((bdf) >> 3) & 0x1f, (bdf) & 7

static void check_pci(struct check *c, const struct dev_assignment *a)
{
	for (uint32_t k = 0; k < a->pci_count && k < DEV_MAX_PCI; k++) {
		uint16_t bdf = a->pci[k];
		const struct dev_fn_info *f = machine_fn(c->m, bdf);
		int32_t other = -1;

		for (uint32_t j = 0; j < c->part && other < 0; j++)
			if (c->parts[j].a && has_fn(c->parts[j].a, bdf))
				other = (int32_t)j;
		if (other >= 0)
			refuse(c, DEV_REASON_TWICE, "%02x:%02x.%x is also given to partition '%s'",
			       BDF_ARGS(bdf), part_name(c, (uint32_t)other));
		if (c->m->unknown)
			continue;
		if (!f) {
			refuse(c, DEV_REASON_NO_FUNCTION, "%02x:%02x.%x: no such function on this "
			       "machine", BDF_ARGS(bdf));
			continue;
		}
		if ((f->header_type & 0x7f) != 0 || (f->class_code >> 16) == CLASS_BRIDGE)
			refuse(c, DEV_REASON_BRIDGE, "%02x:%02x.%x is a bridge (class 0x%06x, "
			       "header type %u): what is behind it, and its windows, are shared",
			       BDF_ARGS(bdf), f->class_code, f->header_type & 0x7f);
		/*
		 * Its INTx: Tempo reads no _PRT, so the GSI is the line firmware
		 * wrote, and the partition must own that input (irqs =) for the
		 * guest to take the interrupt through its virtual IOAPIC.
		 */
		else if (intx_gsi(f) >= 0 && !has_irq(a, (uint32_t)intx_gsi(f)))
			refuse(c, DEV_REASON_INTX_GSI, "%02x:%02x.%x: its INT%c reaches GSI %d "
			       "(the interrupt line firmware wrote): give the partition irqs = %d "
			       "too", BDF_ARGS(bdf), 'A' + f->interrupt_pin - 1, intx_gsi(f),
			       intx_gsi(f));
	}
}

/*
 * A range of @space [@first, @last] of partition c->part (@shown in
 * messages) against the earlier partitions' ranges, Tempo's, and every
 * BAR of the machine: one of a function another partition has is a clash
 * (found here whichever partition comes first), one of a function nobody
 * has must be given with pci =.
 */
static void check_range(struct check *c, enum dev_space space, uint64_t first, uint64_t last,
			const char *shown)
{
	const struct dev_machine *m = c->m;

	for (uint32_t j = 0; j < c->part; j++) {
		const struct dev_assignment *o = c->parts[j].a;
		bool hit = false;

		if (!o)
			continue;
		if (space == DEV_SPACE_PORT)
			for (uint32_t k = 0; k < o->port_count && k < DEV_MAX_PORTS && !hit; k++)
				hit = overlap(first, last, o->ports[k].first, o->ports[k].last);
		else
			for (uint32_t k = 0; k < o->mmio_count && k < DEV_MAX_MMIO && !hit; k++)
				hit = overlap(first, last, o->mmio[k].base,
					      o->mmio[k].base + (o->mmio[k].size - 1));
		if (hit)
			refuse(c, DEV_REASON_TWICE, "%s overlaps a range given to partition '%s'",
			       shown, part_name(c, j));
	}
	for (uint32_t k = 0; k < m->reserved_count && m->reserved; k++) {
		const struct dev_reserved *r = &m->reserved[k];

		if (r->space == space && overlap(first, last, r->first, r->last))
			refuse(c, DEV_REASON_RESERVED, "%s overlaps %s (0x%llx-0x%llx): Tempo "
			       "keeps it", shown, r->what ? r->what : "a range",
			       (unsigned long long)r->first, (unsigned long long)r->last);
	}
	for (uint32_t i = 0; i < m->fn_count && m->fns && !m->unknown; i++) {
		const struct dev_fn_info *f = &m->fns[i];

		for (uint32_t b = 0; b < 6; b++) {
			const struct dev_bar *bar = &f->bar[b];
			int32_t owner;

			if (!bar->size || bar->io != (space == DEV_SPACE_PORT) ||
			    bar->base > UINT64_MAX - (bar->size - 1) ||
			    !overlap(first, last, bar->base, bar->base + (bar->size - 1)))
				continue;
			owner = fn_owner(c, f->bdf, c->part);
			if (owner >= 0)
				refuse(c, DEV_REASON_TWICE, "%s overlaps BAR%u of %02x:%02x.%x, "
				       "given to partition '%s'", shown, b, BDF_ARGS(f->bdf),
				       part_name(c, (uint32_t)owner));
			else if (!has_fn(c->parts[c->part].a, f->bdf))
				refuse(c, DEV_REASON_FUNCTION_BAR, "%s overlaps BAR%u of "
				       "%02x:%02x.%x: give the function with pci = instead", shown,
				       b, BDF_ARGS(f->bdf));
		}
	}
}

static void check_ports(struct check *c, const struct dev_assignment *a)
{
	char shown[32];

	for (uint32_t k = 0; k < a->port_count && k < DEV_MAX_PORTS; k++) {
		fmt_snprintf(shown, sizeof(shown), "0x%x-0x%x", a->ports[k].first,
			     a->ports[k].last);
		check_range(c, DEV_SPACE_PORT, a->ports[k].first, a->ports[k].last, shown);
	}
}

static void check_mmio(struct check *c, const struct dev_assignment *a)
{
	char shown[48];

	for (uint32_t k = 0; k < a->mmio_count && k < DEV_MAX_MMIO; k++) {
		const struct dev_mmio_range *r = &a->mmio[k];

		if (!r->size || r->base > UINT64_MAX - (r->size - 1))
			continue;	/* devassign_parse never makes one */
		fmt_snprintf(shown, sizeof(shown), "0x%llx+0x%llx", (unsigned long long)r->base,
			     (unsigned long long)r->size);
		check_range(c, DEV_SPACE_MMIO, r->base, r->base + (r->size - 1), shown);
	}
}

static bool gsi_exists(const struct dev_machine *m, uint32_t gsi)
{
	for (uint32_t i = 0; i < m->gsi_range_count && m->gsis; i++)
		if (gsi >= m->gsis[i].first && gsi - m->gsis[i].first < m->gsis[i].count)
			return true;
	return false;
}

static void check_irqs(struct check *c, const struct dev_assignment *a)
{
	const struct dev_machine *m = c->m;

	for (uint32_t k = 0; k < a->irq_count && k < DEV_MAX_IRQS; k++) {
		uint32_t gsi = a->irqs[k];

		for (uint32_t j = 0; j < c->part; j++) {
			const struct dev_assignment *o = c->parts[j].a;
			bool hit = false;

			for (uint32_t i = 0; o && i < o->irq_count && i < DEV_MAX_IRQS; i++)
				hit |= o->irqs[i] == gsi;
			if (hit)
				refuse(c, DEV_REASON_TWICE,
				       "GSI %u is also given to partition '%s'", gsi,
				       part_name(c, j));
		}
		if (!m->unknown && !gsi_exists(m, gsi)) {
			char have[64] = "none";
			size_t n = 0;

			for (uint32_t i = 0; i < m->gsi_range_count && m->gsis && i < 3; i++) {
				const struct dev_gsi_range *g = &m->gsis[i];

				n += fmt_scnprintf(have + n, sizeof(have) - n, "%s%u-%u",
						   i ? ", " : "", g->first,
						   g->first + (g->count ? g->count - 1 : 0));
			}
			if (m->gsi_range_count > 3)
				fmt_scnprintf(have + n, sizeof(have) - n, ", ...");
			refuse(c, DEV_REASON_NO_GSI, "GSI %u: no IOAPIC input has it (this machine "
			       "has GSIs %s)", gsi, have);
		}
	}
}

uint32_t devassign_check(const struct dev_partition *parts, uint32_t n,
			 const struct dev_machine *m, struct dev_refusal *out, uint32_t max)
{
	struct check c = { .parts = parts, .n = n, .m = m, .out = out, .max = out ? max : 0 };

	for (c.part = 0; c.part < n; c.part++) {
		const struct dev_assignment *a = parts[c.part].a;

		if (!a)
			continue;
		c.key = DEV_KEY_PCI;
		check_pci(&c, a);
		c.key = DEV_KEY_PORTS;
		check_ports(&c, a);
		c.key = DEV_KEY_MMIO;
		check_mmio(&c, a);
		c.key = DEV_KEY_IRQS;
		check_irqs(&c, a);
	}
	return c.count;
}
