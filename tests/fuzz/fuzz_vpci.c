// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a partition's virtual PCI bus (hv/core/vpci.c) and its
 * channel functions' BAR0 registers (hv/core/chan_regs.c), driven as a
 * hostile guest drives them. The input builds a bus of 0-15 channel
 * functions (sizes and BAR2 addresses valid or not: vpci_init must refuse
 * the bad ones and only those) and a register block per function, then runs
 * a sequence of port, config-space and BAR0 accesses, doorbells and resets.
 * After every step the target checks what hv/core/vpci.h and
 * hv/core/chan_regs.h promise, against a model of its own where it can, and
 * traps when a promise fails. ASan and UBSan catch the rest.
 *
 * Input: [0] the channel count (bits 3:0; more than 8 is refused), bit 4:
 * a NULL table. Per channel: a form byte (bit 7: a raw 64-bit size, else a
 * 16-bit count shifted by bits 4:0; bit 6: a raw 64-bit BAR2 address, else a
 * 16-bit multiple of the BAR's size), the size and address, then the
 * register block: peer count, self, access, a 32-bit doorbell limit and a
 * name (a length byte and its bytes). Then operations, one byte each and its
 * arguments, until the input ends (missing bytes read 0).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/chan_regs.h"
#include "hv/core/vpci.h"
#include "hv/lib/lib.h"

#define MAX_DESCS	15
#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

/* ---- the model's own arithmetic ---- */

static uint32_t width_mask(uint8_t size)
{
	return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

/* BAR2's size for @size bytes, or 0 where no power of two of 64 bits holds it. */
static uint64_t bar2_bytes(uint64_t size)
{
	uint64_t s = 0x1000;

	while (s < size) {
		if (s == 1ull << 63)
			return 0;
		s <<= 1;
	}
	return s;
}

/* Would a dword of the BAR at @gpa read as a sizing probe (vpci.h: then it never decodes)? */
static bool probe_address(uint64_t gpa, uint64_t bar_bytes)
{
	uint64_t mask = ~(bar_bytes - 1);
	uint32_t lo = (uint32_t)mask, hi = (uint32_t)(mask >> 32);

	return (lo && ((uint32_t)gpa & lo) == lo) || (hi && ((uint32_t)(gpa >> 32) & hi) == hi);
}

/*
 * What vpci_init must take: a size of 4 KiB or more with a BAR2 size, an
 * address that is not 0, aligned to that size, with the BAR below 2^64, and
 * at which the BAR decodes (the hypervisor maps the channel there at boot).
 */
static bool desc_ok(const struct vpci_chan_desc *d)
{
	uint64_t s = bar2_bytes(d->size);

	return d->size >= 0x1000 && s && d->bar2_gpa && !(d->bar2_gpa & (s - 1)) &&
	       d->bar2_gpa - 1 <= UINT64_MAX - s && !probe_address(d->bar2_gpa, s);
}

static bool window_moved(struct vpci_window was, struct vpci_window now)
{
	return was.decodes != now.decodes || (now.decodes && was.gpa != now.gpa);
}

static bool window_equal(struct vpci_window a, struct vpci_window b)
{
	return a.gpa == b.gpa && a.size == b.size && a.decodes == b.decodes;
}

/* ---- the state under test, and what the model expects of it ---- */

struct msi_view {
	bool on;
	uint8_t vector, dest;
	bool logical;
};

struct chan_model {
	bool valid;			/* chan_regs_init took the desc */
	struct chan_regs_desc desc;
	char name_buf[64];		/* the desc's name, NUL-terminated somewhere */
	uint8_t names[TEMPO_PCI_BAR0_SIZE];	/* what NAME and PEER_NAMES read, by offset */
	bool intr_status;
	uint32_t received, intr_mask;
	int32_t ring_result;
};

static struct vpci_bus bus;
static struct chan_regs regs[VPCI_MAX_CHANNELS];
static struct chan_model model[VPCI_MAX_CHANNELS];
static struct vpci_chan_desc descs[MAX_DESCS];
static uint32_t fn_reset_dwords[VPCI_MAX_CHANNELS][PCI_CONFIG_SIZE / 4];
static uint32_t host_dwords[PCI_CONFIG_SIZE / 4];
static uint32_t chan_count;

static const char *const peer_name_pool[] = {
	"rt0", "linux", "", "logger-with-a-long-name-0123456", "exactly-thirty-one-characters-x",
	"thirty-two-characters-and-more-!!", "p6", "a-name-that-is-far-longer-than-the-field-is",
};

static struct msi_view msi_of(uint32_t i)
{
	struct msi_view m = { 0 };

	m.on = vpci_msi_target(&bus.fn[i], &m.vector, &m.dest, &m.logical);
	return m;
}

static uint32_t cfg_dword(uint32_t dev, uint32_t reg)
{
	return vpci_config_read(&bus, VPCI_BDF(0, dev, 0), reg, 4);
}

/* The bits of function @i's dword @reg a write may change: they differ from reset only there. */
static uint32_t writable_bits(uint32_t i, uint32_t reg)
{
	uint64_t bar2_mask = ~(bar2_bytes(bus.desc[i].size) - 1);

	switch (reg) {
	case PCI_COMMAND:
		return PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	case PCI_BAR0:
		return ~(uint32_t)(TEMPO_PCI_BAR0_SIZE - 1);
	case PCI_BAR2:
		return 0xfffffff0u & (uint32_t)bar2_mask;
	case PCI_BAR3:
		return (uint32_t)(bar2_mask >> 32);
	case PCI_INTERRUPT_LINE:
		return 0xff;
	case TEMPO_PCI_CHAN_MSI_CAP:
		return (uint32_t)PCI_MSI_FLAGS_ENABLE << 16;
	case TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_ADDRESS_LO:
		return 0xfffffffcu;
	case TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_ADDRESS_HI:
		return 0xffffffffu;
	case TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_DATA_64:
		return 0xffff;
	}
	return 0;
}

/* ---- the invariants, after every step ---- */

static void check_windows(uint32_t i)
{
	const struct vpci_fn *f = &bus.fn[i];
	struct vpci_window w0 = vpci_bar0(f), w2 = vpci_bar2(f);
	uint64_t s2 = bar2_bytes(bus.desc[i].size);
	uint32_t command = cfg_dword(i + 1, PCI_COMMAND);
	uint64_t bar2 = (cfg_dword(i + 1, PCI_BAR2) & ~0xfull) |
			(uint64_t)cfg_dword(i + 1, PCI_BAR3) << 32;

	CHECK(w0.size == TEMPO_PCI_BAR0_SIZE);
	CHECK(w0.gpa == (cfg_dword(i + 1, PCI_BAR0) & ~0xfu));
	if (w0.decodes)
		CHECK(w0.gpa && !(w0.gpa & (w0.size - 1)) && w0.gpa + w0.size <= 1ull << 32 &&
		      (command & PCI_COMMAND_MEMORY));
	CHECK(w2.size == s2 && s2 >= 0x1000 && !(s2 & (s2 - 1)) && s2 >= bus.desc[i].size);
	CHECK(w2.gpa == bar2);
	if (w2.decodes)
		CHECK(w2.gpa && !(w2.gpa & (s2 - 1)) && w2.gpa - 1 <= UINT64_MAX - s2 &&
		      (command & PCI_COMMAND_MEMORY));
}

/* The route vpci_msi_target() gives, from the registers as config space reads them. */
static void check_msi(uint32_t i)
{
	uint32_t command = cfg_dword(i + 1, PCI_COMMAND);
	uint32_t control = cfg_dword(i + 1, TEMPO_PCI_CHAN_MSI_CAP) >> 16;
	uint32_t lo = cfg_dword(i + 1, TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_ADDRESS_LO);
	uint32_t hi = cfg_dword(i + 1, TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_ADDRESS_HI);
	uint32_t data = cfg_dword(i + 1, TEMPO_PCI_CHAN_MSI_CAP + PCI_MSI_DATA_64);
	uint32_t mode = (data >> 8) & 7;
	uint8_t vector = (uint8_t)data;
	struct msi_view m = msi_of(i);
	bool want = (command & PCI_COMMAND_MASTER) && (control & PCI_MSI_FLAGS_ENABLE) && !hi &&
		    (lo & 0xfff00000u) == 0xfee00000u && !(lo & 0xff0) && mode <= 1 &&
		    vector >= TEMPO_CHANNEL_VECTOR_MIN && vector <= TEMPO_CHANNEL_VECTOR_MAX;

	CHECK(m.on == want);
	if (!m.on)
		return;
	CHECK(m.vector >= 0x20 && m.vector <= 0xec && m.vector == vector);
	CHECK(m.dest == (uint8_t)(lo >> 12) && m.logical == !!(lo & 4));
}

static void check_bus(void)
{
	uint32_t latch = vpci_io_read(&bus, TEMPO_PCI_CF8, 4);

	CHECK(bus.chan_count == chan_count);
	CHECK(latch == bus.config_address && !(latch & ~VPCI_CF8_MASK));
	for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
		CHECK(cfg_dword(0, reg) == host_dwords[reg / 4]);
	for (uint32_t i = 0; i < chan_count; i++) {
		for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
			CHECK(((cfg_dword(i + 1, reg) ^ fn_reset_dwords[i][reg / 4]) &
			       ~writable_bits(i, reg)) == 0);
		check_windows(i);
		check_msi(i);
	}
	/* nothing answers past the last function, on another function or bus */
	if (chan_count < 31)
		CHECK(cfg_dword(chan_count + 1, 0) == 0xffffffffu);
	CHECK(vpci_config_read(&bus, VPCI_BDF(0, 0, 1), 0, 4) == 0xffffffffu);
	CHECK(vpci_config_read(&bus, VPCI_BDF(1, 0, 0), 0, 2) == 0xffff);
}

static uint32_t regs_read32(uint32_t i, uint32_t offset)
{
	uint64_t v = chan_regs_read(&regs[i], offset, 4);

	CHECK(v <= 0xffffffffu);
	return (uint32_t)v;
}

/* The fields fixed at init, and those only this model's steps change (no side effects). */
static void check_regs(uint32_t i)
{
	const struct chan_model *m = &model[i];
	const struct chan_regs_desc *d = &m->desc;

	CHECK(regs_read32(i, TEMPO_CHAN_MAGIC) == TEMPO_CHAN_MAGIC_VALUE);
	CHECK(regs_read32(i, TEMPO_CHAN_VERSION) == TEMPO_CHAN_VERSION_VALUE);
	CHECK(regs_read32(i, TEMPO_CHAN_IV_POSITION) == (m->valid ? d->self : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_PEER_COUNT) == (m->valid ? d->peer_count : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_ACCESS) == (m->valid ? d->access : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_SIZE_LO) == (m->valid ? (uint32_t)d->size : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_SIZE_HI) == (m->valid ? (uint32_t)(d->size >> 32) : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_DOORBELL_LIMIT) == (m->valid ? d->doorbell_limit : 0));
	CHECK(regs_read32(i, TEMPO_CHAN_DOORBELL) == 0);
	CHECK(regs_read32(i, TEMPO_CHAN_RECEIVED) == m->received);
	CHECK(regs_read32(i, TEMPO_CHAN_RING_RESULT) == (uint32_t)m->ring_result);
	CHECK(regs_read32(i, TEMPO_CHAN_INTR_MASK) == m->intr_mask);
}

static void check_names(uint32_t i)
{
	for (uint32_t off = TEMPO_CHAN_NAME; off < CHAN_REGS_PEER_NAMES_END; off += 4)
		if (off < TEMPO_CHAN_NAME + TEMPO_CHAN_NAME_LEN || off >= TEMPO_CHAN_PEER_NAMES)
			CHECK(regs_read32(i, off) == rd32(&model[i].names[off]));
}

static void check_all(void)
{
	check_bus();
	for (uint32_t i = 0; i < chan_count; i++)
		check_regs(i);
}

/* ---- building ---- */

static void name_model(uint8_t *dst, const char *s)
{
	for (uint32_t k = 0; s && k < TEMPO_CHAN_NAME_LEN - 1 && s[k]; k++)
		dst[k] = (uint8_t)s[k];
}

static void build_regs(struct input *in, uint32_t i)
{
	struct chan_model *m = &model[i];
	struct chan_regs_desc *d = &m->desc;
	uint32_t len, pick;
	bool ok;

	memset(m, 0, sizeof(*m));
	d->peer_count = (uint32_t)take(in, 1) & 0x0f;
	d->self = (uint32_t)take(in, 1) & 0x0f;
	d->access = (uint32_t)take(in, 1);
	d->doorbell_limit = (uint32_t)take(in, 4);
	d->size = descs[i].size;
	len = (uint32_t)take(in, 1) % sizeof(m->name_buf);
	for (uint32_t k = 0; k < len; k++)
		m->name_buf[k] = (char)take(in, 1);	/* a NUL inside ends it early */
	d->name = len ? m->name_buf : NULL;
	pick = (uint32_t)take(in, 1);
	for (uint32_t k = 0; k < TEMPO_CHANNEL_MAX_PEERS; k++)
		d->peer_names[k] = (pick >> k) & 1 ? NULL :
				   peer_name_pool[(pick + k) % ARRAY_SIZE(peer_name_pool)];

	ok = chan_regs_init(&regs[i], d);
	m->valid = d->peer_count >= 1 && d->peer_count <= TEMPO_CHANNEL_MAX_PEERS &&
		   d->self < d->peer_count;
	CHECK(ok == m->valid);
	if (!ok) {
		static const struct chan_regs zero;

		CHECK(!memcmp(&regs[i], &zero, sizeof(zero)));
		return;
	}
	name_model(&m->names[TEMPO_CHAN_NAME], d->name);
	for (uint32_t k = 0; k < d->peer_count; k++)
		name_model(&m->names[TEMPO_CHAN_PEER_NAMES + k * TEMPO_CHAN_NAME_LEN],
			   d->peer_names[k]);
}

static bool build(struct input *in)
{
	uint32_t head = (uint32_t)take(in, 1), count = head & 0x0f;
	bool null_table = head & 0x10, want = count <= VPCI_MAX_CHANNELS && !(count && null_table);

	memset(descs, 0, sizeof(descs));
	for (uint32_t i = 0; i < count; i++) {
		uint32_t form = (uint32_t)take(in, 1);
		struct vpci_chan_desc *d = &descs[i];

		d->size = (form & 0x80) ? take(in, 8) : take(in, 2) << (form & 31);
		d->bar2_gpa = (form & 0x40) ? take(in, 8) : take(in, 2) * bar2_bytes(d->size);
		want &= desc_ok(d);
		if (i < VPCI_MAX_CHANNELS)
			build_regs(in, i);
	}

	CHECK(vpci_init(&bus, null_table ? NULL : descs, count) == want);
	chan_count = want ? count : 0;
	CHECK(bus.chan_count == chan_count);
	for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
		host_dwords[reg / 4] = cfg_dword(0, reg);
	CHECK(host_dwords[0] == ((uint32_t)TEMPO_PCI_HOST_DEVICE << 16 | TEMPO_PCI_HOST_VENDOR));
	for (uint32_t i = 0; i < chan_count; i++) {
		struct vpci_window w0 = vpci_bar0(&bus.fn[i]), w2 = vpci_bar2(&bus.fn[i]);

		/* at reset: BAR0 at its place, BAR2 at the desc's address, both decoding */
		CHECK(w0.decodes && w0.gpa == TEMPO_PCI_BAR0_BASE + i * TEMPO_PCI_BAR0_SIZE);
		CHECK(w2.decodes && w2.gpa == descs[i].bar2_gpa);
		CHECK(!msi_of(i).on);
		for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
			fn_reset_dwords[i][reg / 4] = cfg_dword(i + 1, reg);
		check_names(i);
	}
	return true;
}

/* ---- the operations ---- */

/* Which channel function (its index) a config access at @bdf, @offset, @size writes, or -1. */
static int32_t target_fn(uint32_t bdf, uint32_t offset, uint8_t size)
{
	uint32_t dev = (bdf >> 3) & 0x1f;

	if ((size != 1 && size != 2 && size != 4) || offset >= PCI_CONFIG_SIZE ||
	    (offset & 3) + size > 4 || bdf >> 8 || (bdf & 7) || !dev || dev > chan_count ||
	    bdf > 0xffff)
		return -1;
	return (int32_t)dev - 1;
}

/* A config read through either path: all ones where nothing answers, else the dword's bytes. */
static void check_config_read(uint32_t bdf, uint32_t offset, uint8_t size, uint32_t got)
{
	uint32_t dev = (bdf >> 3) & 0x1f;
	bool valid = (size == 1 || size == 2 || size == 4) && offset < PCI_CONFIG_SIZE &&
		     (offset & 3) + size <= 4;

	if (!valid || bdf >> 8 || (bdf & 7) || dev > chan_count) {
		CHECK(got == width_mask(size));
		return;
	}
	CHECK(got == ((vpci_config_read(&bus, bdf, offset & ~3u, 4) >> (offset & 3) * 8) &
		      width_mask(size)));
}

struct before {
	struct vpci_bus bus;
	struct vpci_window w0[VPCI_MAX_CHANNELS], w2[VPCI_MAX_CHANNELS];
	struct msi_view msi[VPCI_MAX_CHANNELS];
	uint32_t dwords[VPCI_MAX_CHANNELS][PCI_CONFIG_SIZE / 4];
};

static struct before was;

static void snapshot(void)
{
	was.bus = bus;
	for (uint32_t i = 0; i < chan_count; i++) {
		was.w0[i] = vpci_bar0(&bus.fn[i]);
		was.w2[i] = vpci_bar2(&bus.fn[i]);
		was.msi[i] = msi_of(i);
		for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
			was.dwords[i][reg / 4] = cfg_dword(i + 1, reg);
	}
}

static bool msi_regs_changed(uint32_t i)
{
	for (uint32_t reg = TEMPO_PCI_CHAN_MSI_CAP; reg < TEMPO_PCI_CHAN_MSI_CAP + 16; reg += 4)
		if (cfg_dword(i + 1, reg) != was.dwords[i][reg / 4])
			return true;
	return false;
}

/* A config write of @size bytes of @value at @offset reached function @fn (-1: none). */
static void check_write(int32_t fn, uint32_t offset, uint8_t size, uint32_t value,
			uint32_t ret, const struct vpci_event *ev)
{
	struct msi_view m;
	uint32_t bytes, reg = offset & ~3u, expect = 0, i;

	CHECK(ret == ev->changed);
	CHECK(!(ev->changed & ~(VPCI_EV_BAR0 | VPCI_EV_BAR2 | VPCI_EV_MSI)));
	if (fn < 0) {
		CHECK(!ev->changed);
		CHECK(!memcmp(bus.fn, was.bus.fn, sizeof(bus.fn)));
		return;
	}
	i = (uint32_t)fn;
	for (uint32_t k = 0; k < chan_count; k++)
		if (k != i)
			CHECK(!memcmp(&bus.fn[k], &was.bus.fn[k], sizeof(bus.fn[k])));
	/* the write's own bytes took its value, where they are writable; nothing else moved */
	bytes = width_mask(size) << (offset & 3) * 8;
	for (uint32_t r = 0; r < PCI_CONFIG_SIZE; r += 4) {
		uint32_t old = was.dwords[i][r / 4], wb = writable_bits(i, r) & bytes, want = old;

		if (r == reg)
			want = (old & ~wb) | ((value << (offset & 3) * 8) & wb);
		CHECK(cfg_dword(i + 1, r) == want);
	}

	CHECK(ev->chan == i);
	CHECK(window_equal(ev->bar0_was, was.w0[i]) && window_equal(ev->bar2_was, was.w2[i]));
	CHECK(window_equal(ev->bar0, vpci_bar0(&bus.fn[i])));
	CHECK(window_equal(ev->bar2, vpci_bar2(&bus.fn[i])));
	if (window_moved(was.w0[i], ev->bar0))
		expect |= VPCI_EV_BAR0;
	if (window_moved(was.w2[i], ev->bar2))
		expect |= VPCI_EV_BAR2;
	m = msi_of(i);
	if (m.on != was.msi[i].on ||
	    (m.on && (m.vector != was.msi[i].vector || m.dest != was.msi[i].dest ||
		      m.logical != was.msi[i].logical)) ||
	    msi_regs_changed(i))
		expect |= VPCI_EV_MSI;
	CHECK(ev->changed == expect);
}

static void op_io_read(struct input *in)
{
	uint16_t port = (uint16_t)(0xcf4 + (take(in, 1) & 0x0f));
	uint8_t size = (uint8_t)take(in, 1);
	uint32_t got, bdf, offset;

	size = size & 0x80 ? size : (size & 7);
	got = vpci_io_read(&bus, port, size);
	CHECK(!(got & ~width_mask(size)));
	if (port == TEMPO_PCI_CF8 && size == 4) {
		CHECK(got == bus.config_address);
		return;
	}
	if (port < TEMPO_PCI_CFC || port > TEMPO_PCI_CFC + 3 ||
	    !(bus.config_address & VPCI_CF8_ENABLE)) {
		CHECK(got == width_mask(size));
		return;
	}
	bdf = (bus.config_address >> 8) & 0xffff;
	offset = (bus.config_address & 0xfc) + (port & 3u);
	check_config_read(bdf, offset, size, got);
}

static void op_io_write(struct input *in, bool aimed)
{
	uint16_t port = (uint16_t)(0xcf4 + (take(in, 1) & 0x0f));
	uint8_t size = (uint8_t)take(in, 1);
	uint32_t value = (uint32_t)take(in, 4), ret, bdf = 0, offset = 0;
	struct vpci_event ev;
	int32_t fn = -1;
	bool data_port;

	size = size & 0x80 ? size : (size & 7);
	if (aimed) {
		/* CONFIG_ADDRESS for a device near the bus's, a register in the header or MSI */
		port = TEMPO_PCI_CF8;
		size = 4;
		value = VPCI_CF8_ENABLE | (value & 0x0f) << 11 | (value >> 4 & 0x3f) << 2 |
			(value & 0x8000 ? value & 0x7f0700ffu : 0);
	}
	data_port = port >= TEMPO_PCI_CFC && port <= TEMPO_PCI_CFC + 3;
	if (data_port && (bus.config_address & VPCI_CF8_ENABLE)) {
		bdf = (bus.config_address >> 8) & 0xffff;
		offset = (bus.config_address & 0xfc) + (port & 3u);
		fn = target_fn(bdf, offset, size);
	}
	snapshot();
	ret = vpci_io_write(&bus, port, size, value, &ev);
	if (port == TEMPO_PCI_CF8 && size == 4) {
		CHECK(!ret && !ev.changed);
		CHECK(bus.config_address == (value & VPCI_CF8_MASK));
		CHECK(!memcmp(bus.fn, was.bus.fn, sizeof(bus.fn)));
		return;
	}
	CHECK(bus.config_address == was.bus.config_address);
	check_write(fn, offset, size, value, ret, &ev);
}

static void op_config_read(struct input *in)
{
	uint32_t bdf = (uint32_t)take(in, 2), offset = (uint32_t)take(in, 2) & 0x1ff;
	uint8_t size = (uint8_t)take(in, 1) & 7;

	if (bdf & 0x8000)
		bdf = VPCI_BDF(0, bdf % 10, 0);
	check_config_read(bdf, offset, size, vpci_config_read(&bus, bdf, offset, size));
}

static void op_config_write(struct input *in)
{
	uint32_t bdf = (uint32_t)take(in, 2), offset = (uint32_t)take(in, 2) & 0x1ff;
	uint8_t size = (uint8_t)take(in, 1) & 7;
	uint32_t value = (uint32_t)take(in, 4), ret;
	struct vpci_event ev;

	if (bdf & 0x8000)
		bdf = VPCI_BDF(0, bdf % 10, 0);
	if (offset & 0x100)
		offset &= 0x4f;		/* the header's first registers and the MSI capability */
	snapshot();
	ret = vpci_config_write(&bus, bdf, offset, size, value, &ev);
	CHECK(bus.config_address == was.bus.config_address);
	check_write(target_fn(bdf, offset, size), offset, size, value, ret, &ev);
}

static void op_find_bar0(struct input *in)
{
	uint32_t pick = (uint32_t)take(in, 1), offset = 0xdeadbeef;
	uint64_t gpa = take(in, 8);
	int32_t got;

	if (chan_count && !(pick & 0x80))
		gpa = vpci_bar0(&bus.fn[pick % chan_count]).gpa + (gpa & 0x1fff) - 0x800;
	got = vpci_find_bar0(&bus, gpa, &offset);
	for (uint32_t i = 0; i < chan_count; i++) {
		struct vpci_window w = vpci_bar0(&bus.fn[i]);
		bool covers = w.decodes && gpa >= w.gpa && gpa - w.gpa < w.size;

		if (covers) {
			CHECK(got == (int32_t)i && offset == gpa - w.gpa);
			return;
		}
	}
	CHECK(got == -1);
}

static void op_reset(void)
{
	vpci_reset(&bus);
	for (uint32_t i = 0; i < chan_count; i++) {
		chan_regs_reset(&regs[i]);
		model[i].intr_status = false;
		model[i].received = 0;
		model[i].intr_mask = 0;
		model[i].ring_result = 0;
	}
	CHECK(bus.config_address == 0);
	for (uint32_t i = 0; i < chan_count; i++) {
		CHECK(!msi_of(i).on);
		CHECK(vpci_bar0(&bus.fn[i]).decodes && vpci_bar2(&bus.fn[i]).decodes);
		for (uint32_t reg = 0; reg < PCI_CONFIG_SIZE; reg += 4)
			CHECK(cfg_dword(i + 1, reg) == fn_reset_dwords[i][reg / 4]);
	}
}

static uint64_t expected_bytes(const struct chan_model *m, uint32_t offset, uint8_t size)
{
	uint64_t v = 0;

	for (uint32_t k = 0; k < size; k++)
		v |= (uint64_t)m->names[offset + k] << (8 * k);
	return v;
}

static void op_regs_read(struct input *in)
{
	uint32_t i = (uint32_t)take(in, 1) % chan_count, offset = (uint32_t)take(in, 2);
	uint8_t size = (uint8_t)take(in, 1);
	struct chan_model *m = &model[i];
	uint64_t got;
	bool in_names;

	if (offset & 0x8000)
		offset = (uint32_t)take(in, 4);		/* far past BAR0 */
	else
		offset &= 0x1fff;
	size = size & 0x80 ? size : (size & 0xf);
	got = chan_regs_read(&regs[i], offset, size);
	if ((size != 1 && size != 2 && size != 4 && size != 8) || offset >= TEMPO_PCI_BAR0_SIZE) {
		CHECK(got == 0);
		return;
	}
	in_names = (offset >= TEMPO_CHAN_NAME &&
		    offset + size <= TEMPO_CHAN_NAME + TEMPO_CHAN_NAME_LEN) ||
		   (offset >= TEMPO_CHAN_PEER_NAMES && offset + size <= CHAN_REGS_PEER_NAMES_END);
	if (in_names) {
		CHECK(got == expected_bytes(m, offset, size));
		return;
	}
	if (size != 4 || (offset & 3)) {
		CHECK(got == 0);
		return;
	}
	CHECK(got <= 0xffffffffu);
	if (offset == TEMPO_CHAN_INTR_STATUS) {
		CHECK(got == m->intr_status);
		m->intr_status = false;
		CHECK(regs_read32(i, TEMPO_CHAN_INTR_STATUS) == 0);	/* the read cleared it */
	} else if (offset > TEMPO_CHAN_RECEIVED) {
		CHECK(got == 0);
	} else {
		CHECK(got == regs_read32(i, offset));	/* no other read has a side effect */
	}
	check_names(i);
}

static void op_regs_write(struct input *in)
{
	uint32_t i = (uint32_t)take(in, 1) % chan_count, offset = (uint32_t)take(in, 2) & 0x1fff;
	uint8_t size = (uint8_t)take(in, 1) & 0xf;
	uint64_t value = take(in, 8);
	struct chan_model *m = &model[i];
	struct chan_ring ring;
	bool doorbell;
	uint32_t peer = ((uint32_t)value >> 16) & 0xffff;

	if (value & 0x100)
		offset &= 0x3c;		/* the registers, aligned or not */
	doorbell = size == 4 && offset == TEMPO_CHAN_DOORBELL;
	ring = chan_regs_write(&regs[i], offset, size, value);
	CHECK(ring.ring == doorbell);
	if (size == 4 && offset == TEMPO_CHAN_INTR_MASK)
		m->intr_mask = (uint32_t)value;
	if (!ring.ring)
		return;
	CHECK(ring.peer < 0xffff || ring.peer == TEMPO_CHANNEL_ALL_PEERS);
	CHECK(ring.peer == (peer == 0xffff ? TEMPO_CHANNEL_ALL_PEERS : peer));
	m->ring_result = (int32_t)(value >> 32);	/* what the ring returned */
	chan_regs_ring_done(&regs[i], m->ring_result);
}

static void op_doorbell(struct input *in)
{
	uint32_t i = (uint32_t)take(in, 1) % chan_count;

	chan_regs_doorbell(&regs[i]);
	model[i].intr_status = true;
	model[i].received++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint32_t steps = 0;

	build(&in);
	check_all();
	while (in.left && steps++ < 4096) {
		uint32_t op = (uint32_t)take(&in, 1) % 11;

		if (op >= 7 && op <= 9 && !chan_count)
			op = 3;
		switch (op) {
		case 0:
			op_io_read(&in);
			break;
		case 1:
			op_io_write(&in, false);
			break;
		case 2:
			op_io_write(&in, true);
			break;
		case 3:
			op_config_read(&in);
			break;
		case 4:
			op_config_write(&in);
			break;
		case 5:
			op_find_bar0(&in);
			break;
		case 6:
			op_reset();
			break;
		case 7:
			op_regs_read(&in);
			break;
		case 8:
			op_regs_write(&in);
			break;
		case 9:
			op_doorbell(&in);
			break;
		case 10:
			op_io_write(&in, false);
			break;
		}
		check_all();
	}
	return 0;
}
