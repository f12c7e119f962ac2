// SPDX-License-Identifier: MIT
/*
 * xAPIC mode: IA32_APIC_BASE's state machine (hv/core/apic_base.c), the
 * register page as operations on the x2APIC paths (hv/core/xapic.c) and the
 * xAPIC ICR's destinations (icr_route_xapic, hv/core/icr.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/apic_base.h"
#include "hv/core/icr.h"
#include "hv/core/lapic_rules.h"
#include "hv/core/xapic.h"
#include "hv/lib/apic_defs.h"

static const struct apic_base_caps caps = { .maxphyaddr = 39, .x2apic = true };

/* ---- IA32_APIC_BASE ---- */

static struct apic_base_state state(enum apic_mode m)
{
	struct apic_base_state s;

	apic_base_init(&s, m, true);
	return s;
}

static void test_base_init_and_value(void **unused)
{
	struct apic_base_state s;

	(void)unused;
	apic_base_init(&s, APIC_MODE_XAPIC, true);
	assert_int_equal(apic_base_value(&s), 0xfee00900ull);	/* EN | BSP */
	apic_base_init(&s, APIC_MODE_X2APIC, false);
	assert_int_equal(apic_base_value(&s), 0xfee00c00ull);	/* EN | EXTD */
	apic_base_init(&s, APIC_MODE_DISABLED, false);
	assert_int_equal(apic_base_value(&s), 0xfee00000ull);
	assert_false(apic_base_page_decoded(&s));
	apic_base_init(&s, APIC_MODE_X2APIC, false);
	assert_false(apic_base_page_decoded(&s));
	apic_base_init(&s, APIC_MODE_XAPIC, false);
	assert_true(apic_base_page_decoded(&s));
}

/* SDM Vol. 3A 11.12.5, figure 11-27: every valid state against every EN/EXTD written. */
static void test_base_transitions(void **unused)
{
	static const struct {
		enum apic_mode from;
		uint64_t bits;
		enum apic_base_fault fault;
		enum apic_mode to;
		bool reset;
	} rows[] = {
		{ APIC_MODE_DISABLED, 0, APIC_BASE_OK, APIC_MODE_DISABLED, false },
		{ APIC_MODE_DISABLED, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_DISABLED,
		  false },
		{ APIC_MODE_DISABLED, APIC_BASE_EN, APIC_BASE_OK, APIC_MODE_XAPIC, false },
		{ APIC_MODE_DISABLED, APIC_BASE_EN | APIC_BASE_EXTD,
		  APIC_BASE_GP_DISABLED_TO_X2APIC, APIC_MODE_DISABLED, false },
		{ APIC_MODE_XAPIC, 0, APIC_BASE_OK, APIC_MODE_DISABLED, true },
		{ APIC_MODE_XAPIC, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_XAPIC, false },
		{ APIC_MODE_XAPIC, APIC_BASE_EN, APIC_BASE_OK, APIC_MODE_XAPIC, false },
		{ APIC_MODE_XAPIC, APIC_BASE_EN | APIC_BASE_EXTD, APIC_BASE_OK, APIC_MODE_X2APIC,
		  false },
		{ APIC_MODE_X2APIC, 0, APIC_BASE_OK, APIC_MODE_DISABLED, true },
		{ APIC_MODE_X2APIC, APIC_BASE_EXTD, APIC_BASE_GP_INVALID, APIC_MODE_X2APIC,
		  false },
		{ APIC_MODE_X2APIC, APIC_BASE_EN, APIC_BASE_GP_X2APIC_TO_XAPIC, APIC_MODE_X2APIC,
		  false },
		{ APIC_MODE_X2APIC, APIC_BASE_EN | APIC_BASE_EXTD, APIC_BASE_OK, APIC_MODE_X2APIC,
		  false },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct apic_base_state s = state(rows[i].from);
		uint64_t before = apic_base_value(&s);
		uint64_t value = APIC_BASE_DEFAULT | APIC_BASE_BSP | rows[i].bits;
		struct apic_base_write w = apic_base_write(&s, value, &caps);

		assert_int_equal(w.fault, rows[i].fault);
		assert_int_equal(w.state.mode, rows[i].to);
		assert_int_equal(w.reset, rows[i].reset);
		assert_int_equal(w.mode_changed, rows[i].to != rows[i].from);
		assert_false(w.base_moved);
		if (w.fault != APIC_BASE_OK) {
			assert_non_null(w.why);
			/* a #GP changes nothing */
			assert_int_equal(apic_base_value(&w.state), before);
		} else {
			assert_int_equal(apic_base_value(&w.state),
					 APIC_BASE_DEFAULT | APIC_BASE_BSP | rows[i].bits);
		}
		/* the input state is not touched */
		assert_int_equal(apic_base_value(&s), before);
	}
}

static void test_base_reserved_bits(void **unused)
{
	static const enum apic_mode modes[] = { APIC_MODE_DISABLED, APIC_MODE_XAPIC,
						APIC_MODE_X2APIC };

	(void)unused;
	for (size_t m = 0; m < 3; m++) {
		struct apic_base_state s = state(modes[m]);
		uint64_t v = apic_base_value(&s);

		for (int bit = 0; bit < 64; bit++) {
			struct apic_base_write w = apic_base_write(&s, v ^ (1ull << bit), &caps);
			bool reserved = bit <= 7 || bit == 9 || bit >= 39;

			if (reserved) {
				assert_int_equal(w.fault, APIC_BASE_GP_RESERVED);
				continue;
			}
			/* 8: BSP, ignored; 10, 11: EXTD, EN; 12..38: the base */
			if (bit == 8) {
				assert_int_equal(w.fault, APIC_BASE_OK);
				assert_true(w.state.bsp);
				assert_int_equal(apic_base_value(&w.state), v);
				assert_false(w.base_moved || w.mode_changed || w.reset);
			} else if (bit >= 12) {
				assert_int_equal(w.fault, APIC_BASE_OK);
				assert_true(w.base_moved);
				assert_int_equal(w.state.base, (v ^ (1ull << bit)) & ~0xfffull);
				assert_false(w.mode_changed);
			}
		}
	}
}

static void test_base_maxphyaddr_and_no_x2apic(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	struct apic_base_caps narrow = { .maxphyaddr = 36, .x2apic = false };
	struct apic_base_caps wide = { .maxphyaddr = 52, .x2apic = true };

	(void)unused;
	assert_int_equal(apic_base_write(&s, (1ull << 35) | APIC_BASE_EN, &narrow).fault,
			 APIC_BASE_OK);
	assert_int_equal(apic_base_write(&s, (1ull << 36) | APIC_BASE_EN, &narrow).fault,
			 APIC_BASE_GP_RESERVED);
	assert_int_equal(apic_base_write(&s, (1ull << 51) | APIC_BASE_EN, &wide).fault,
			 APIC_BASE_OK);
	assert_int_equal(apic_base_write(&s, (1ull << 52) | APIC_BASE_EN, &wide).fault,
			 APIC_BASE_GP_RESERVED);
	/* no x2APIC in CPUID: EXTD is a reserved bit */
	assert_int_equal(apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_EN | APIC_BASE_EXTD,
					 &narrow).fault,
			 APIC_BASE_GP_RESERVED);
}

static void test_base_relocation(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	struct apic_base_write w;

	(void)unused;
	/* kvm-unit-tests' test_apicbase: disable, then enable at 0xfed40000 */
	w = apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_BSP, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.reset);
	s = w.state;
	w = apic_base_write(&s, 0xfed40000ull | APIC_BASE_BSP | APIC_BASE_EN, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.base_moved && w.mode_changed && !w.reset);
	assert_int_equal(w.state.base, 0xfed40000ull);
	assert_true(apic_base_page_decoded(&w.state));
	s = w.state;
	/* the same value again: nothing moves */
	w = apic_base_write(&s, apic_base_value(&s), &caps);
	assert_false(w.base_moved || w.mode_changed || w.reset);
	/* back, while enabled: moved, no reset */
	w = apic_base_write(&s, APIC_BASE_DEFAULT | APIC_BASE_BSP | APIC_BASE_EN, &caps);
	assert_true(w.base_moved && !w.reset);
	/* a move into x2APIC mode is taken too (the page is not decoded there) */
	w = apic_base_write(&s, 0xfec00000ull | APIC_BASE_EN | APIC_BASE_EXTD, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	assert_true(w.base_moved);
	assert_false(apic_base_page_decoded(&w.state));
	/* and out of it while disabling */
	s = w.state;
	w = apic_base_write(&s, APIC_BASE_DEFAULT, &caps);
	assert_true(w.base_moved && w.reset);
}

/* kvm-unit-tests' test_enable_x2apic, from xAPIC mode. */
static void test_base_kvm_unit_tests_sequence(void **unused)
{
	struct apic_base_state s = state(APIC_MODE_XAPIC);
	uint64_t base = apic_base_value(&s) & ~(APIC_BASE_EN | APIC_BASE_EXTD);
	struct apic_base_write w;

	(void)unused;
	/* enable_x2apic() */
	w = apic_base_write(&s, base | APIC_BASE_EN | APIC_BASE_EXTD, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EN, &caps).fault,
			 APIC_BASE_GP_X2APIC_TO_XAPIC);
	w = apic_base_write(&s, base, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EN | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_DISABLED_TO_X2APIC);
	w = apic_base_write(&s, base | APIC_BASE_EN, &caps);
	assert_int_equal(w.fault, APIC_BASE_OK);
	s = w.state;
	assert_int_equal(apic_base_write(&s, base | APIC_BASE_EXTD, &caps).fault,
			 APIC_BASE_GP_INVALID);
	assert_int_equal(s.mode, APIC_MODE_XAPIC);
}

static void test_base_undecoded_reads(void **unused)
{
	(void)unused;
	assert_int_equal(apic_base_undecoded_read(1), 0xff);
	assert_int_equal(apic_base_undecoded_read(2), 0xffff);
	assert_int_equal(apic_base_undecoded_read(4), 0xffffffffull);
	assert_int_equal(apic_base_undecoded_read(8), ~0ull);
}

/* ---- the register page ---- */

/* SDM Vol. 3A table 11-1, written out again: offset, x2APIC MSR, R, W. */
static const struct {
	uint32_t offset, msr;
	bool r, w;
} page[] = {
	{ 0x020, 0x802, true, true },	/* ID: writable in xAPIC mode */
	{ 0x030, 0x803, true, false },	/* version */
	{ 0x080, 0x808, true, true },	/* TPR */
	{ 0x090, 0, true, false },	/* APR */
	{ 0x0a0, 0x80a, true, false },	/* PPR */
	{ 0x0b0, 0x80b, false, true },	/* EOI */
	{ 0x0c0, 0, true, false },	/* RRD */
	{ 0x0d0, 0x80d, true, true },	/* LDR */
	{ 0x0e0, 0, true, true },	/* DFR */
	{ 0x0f0, 0x80f, true, true },	/* SVR */
	{ 0x100, 0x810, true, false }, { 0x110, 0x811, true, false },
	{ 0x120, 0x812, true, false }, { 0x130, 0x813, true, false },
	{ 0x140, 0x814, true, false }, { 0x150, 0x815, true, false },
	{ 0x160, 0x816, true, false }, { 0x170, 0x817, true, false },	/* ISR */
	{ 0x180, 0x818, true, false }, { 0x190, 0x819, true, false },
	{ 0x1a0, 0x81a, true, false }, { 0x1b0, 0x81b, true, false },
	{ 0x1c0, 0x81c, true, false }, { 0x1d0, 0x81d, true, false },
	{ 0x1e0, 0x81e, true, false }, { 0x1f0, 0x81f, true, false },	/* TMR */
	{ 0x200, 0x820, true, false }, { 0x210, 0x821, true, false },
	{ 0x220, 0x822, true, false }, { 0x230, 0x823, true, false },
	{ 0x240, 0x824, true, false }, { 0x250, 0x825, true, false },
	{ 0x260, 0x826, true, false }, { 0x270, 0x827, true, false },	/* IRR */
	{ 0x280, 0x828, true, true },	/* ESR */
	{ 0x2f0, 0x82f, true, true },	/* LVT CMCI */
	{ 0x300, 0x830, true, true },	/* ICR low */
	{ 0x310, 0, true, true },	/* ICR high */
	{ 0x320, 0x832, true, true }, { 0x330, 0x833, true, true },
	{ 0x340, 0x834, true, true }, { 0x350, 0x835, true, true },
	{ 0x360, 0x836, true, true }, { 0x370, 0x837, true, true },	/* LVTs */
	{ 0x380, 0x838, true, true },	/* timer initial count */
	{ 0x390, 0x839, true, false },	/* timer current count */
	{ 0x3e0, 0x83e, true, true },	/* timer divide configuration */
};

static int page_row(uint32_t offset)
{
	for (size_t i = 0; i < sizeof(page) / sizeof(page[0]); i++)
		if (page[i].offset == offset)
			return (int)i;
	return -1;
}

static void test_page_table(void **unused)
{
	(void)unused;
	for (uint32_t off = 0; off < 0x1000; off += 16) {
		struct xapic_reg_info info = xapic_reg(off);
		int i = page_row(off);

		if (i < 0) {
			assert_null(info.name);
			assert_false(info.readable || info.writable);
			assert_int_equal(info.msr, 0);
			continue;
		}
		assert_non_null(info.name);
		assert_int_equal(info.msr, page[i].msr);
		assert_int_equal(info.readable, page[i].r);
		assert_int_equal(info.writable, page[i].w);
	}
}

/*
 * Version registers (SDM Vol. 3A 11.4.8): Max LVT Entry in bits 23:16 is
 * the LVT count less one. 6 counts CMCI; Bochs' 0x00050014 does not.
 */
#define LVR_CMCI	0x00060015u
#define LVR_NO_CMCI	0x00050014u

/* Every slot, 32-bit aligned read and write: the operation the page makes of it. */
static void test_page_every_slot(void **unused)
{
	struct xapic_regs r;

	(void)unused;
	for (uint32_t off = 0; off < 0x1000; off += 16) {
		int i = page_row(off);
		struct xapic_op rd, wr;

		xapic_regs_init(&r, 3, LVR_CMCI);
		rd = xapic_access(&r, off, 4, false, 0);
		wr = xapic_access(&r, off, 4, true, 0);
		if (i < 0 || !page[i].r) {
			assert_int_equal(rd.kind, XAPIC_OP_DONE);
			assert_int_equal(rd.value, 0);
		} else if (off == 0x020 || off == 0x090 || off == 0x0c0 || off == 0x0d0 ||
			   off == 0x0e0 || off == 0x300 || off == 0x310) {
			assert_int_equal(rd.kind, XAPIC_OP_DONE);	/* the model's own */
		} else {
			assert_int_equal(rd.kind, XAPIC_OP_MSR_READ);
			assert_int_equal(rd.msr, 0x800 + off / 16);
			assert_int_equal(rd.msr, page[i].msr);
		}
		if (i < 0 || !page[i].w) {
			assert_int_equal(wr.kind, XAPIC_OP_NONE);
		} else if (off == 0x020 || off == 0x0d0 || off == 0x0e0 || off == 0x310) {
			assert_int_equal(wr.kind, XAPIC_OP_DONE);
		} else if (off == 0x300) {
			assert_int_equal(wr.kind, XAPIC_OP_SEND_IPI);
		} else {
			assert_int_equal(wr.kind, XAPIC_OP_MSR_WRITE);
			assert_int_equal(wr.msr, page[i].msr);
		}
	}
}

static struct xapic_op wr32(struct xapic_regs *r, uint32_t off, uint32_t v)
{
	return xapic_access(r, off, 4, true, v);
}

static uint64_t rd_model(struct xapic_regs *r, uint32_t off, uint32_t size)
{
	struct xapic_op op = xapic_access(r, off, size, false, 0);

	assert_int_equal(op.kind, XAPIC_OP_DONE);
	return op.value;
}

/* Reserved bits are dropped and the value goes where the WRMSR would. */
static void test_page_write_values(void **unused)
{
	struct xapic_regs r;
	struct xapic_op op;

	(void)unused;
	xapic_regs_init(&r, 0, LVR_CMCI);
	op = wr32(&r, XAPIC_TPR, 0x12345678);
	assert_int_equal(op.msr, X2APIC_TPR);
	assert_int_equal(op.value, 0x78);
	op = wr32(&r, XAPIC_SVR, 0xffffffff);
	assert_int_equal(op.msr, X2APIC_SVR);
	assert_int_equal(op.value, 0x13ff);
	op = wr32(&r, XAPIC_EOI, 0xdeadbeef);	/* any value is an EOI */
	assert_int_equal(op.kind, XAPIC_OP_MSR_WRITE);
	assert_int_equal(op.msr, X2APIC_EOI);
	assert_int_equal(op.value, 0);
	op = wr32(&r, XAPIC_ESR, 0x12);
	assert_int_equal(op.msr, X2APIC_ESR);
	assert_int_equal(op.value, 0);
	op = wr32(&r, XAPIC_TIMER_ICR, 0xffffffff);
	assert_int_equal(op.msr, X2APIC_TIMER_ICR);
	assert_int_equal(op.value, 0xffffffff);
	op = wr32(&r, XAPIC_TIMER_DCR, 0xffffffff);
	assert_int_equal(op.msr, X2APIC_TIMER_DCR);
	assert_int_equal(op.value, 0xb);
	/* LVTs: reserved bits dropped (timer: mode kept, delivery mode not writable) */
	op = wr32(&r, XAPIC_LVT_TIMER, 0xfffbffff);	/* periodic, masked, every other bit */
	assert_int_equal(op.kind, XAPIC_OP_MSR_WRITE);
	assert_int_equal(op.msr, X2APIC_LVT_TIMER);
	assert_int_equal(op.value, 0x000310ff);
	op = wr32(&r, XAPIC_LVT_TIMER, APIC_LVT_TIMER_PERIODIC | 0x40);
	assert_int_equal(op.value, APIC_LVT_TIMER_PERIODIC | 0x40);
	/* the reserved timer mode 11b: the whole write is dropped */
	op = wr32(&r, XAPIC_LVT_TIMER, (3u << 17) | 0x40);
	assert_int_equal(op.kind, XAPIC_OP_NONE);
	op = wr32(&r, XAPIC_LVT_LINT0, 0xffffffff);
	assert_int_equal(op.msr, X2APIC_LVT_LINT0);
	assert_int_equal(op.value, 0x1f7ff);
	op = wr32(&r, XAPIC_LVT_ERROR, 0xffffffff);
	assert_int_equal(op.value, 0x110ff);
	op = wr32(&r, XAPIC_LVT_CMCI, 0xffffffff);
	assert_int_equal(op.msr, X2APIC_LVT_CMCI);
	assert_int_equal(op.value, 0x117ff);
	/* every value the page hands on passes the x2APIC path's own check */
	for (uint32_t off = XAPIC_LVT_TIMER; off <= XAPIC_LVT_ERROR; off += 16)
		for (int bit = 0; bit < 32; bit++) {
			op = wr32(&r, off, 1u << bit);
			if (op.kind == XAPIC_OP_MSR_WRITE)
				assert_true(lapic_lvt_write_ok(op.msr, op.value));
		}
}

/*
 * LVT CMCI at 0x2F0 exists only where the LVR counts it, as its x2APIC MSR
 * does (lapic_lvt_present): elsewhere reads are 0 and writes dropped, at
 * every width, and the slots beside it are untouched.
 */
static void test_page_cmci_follows_lvr(void **unused)
{
	static const uint32_t lvrs_without[] = { LVR_NO_CMCI, 0, 0x0005ffff, 0xff00ffff };
	static const uint32_t lvrs_with[] = { LVR_CMCI, 0x00ff0000, 0xffffffff };
	struct xapic_regs r;
	struct xapic_op op;

	(void)unused;
	for (uint32_t i = 0; i < sizeof(lvrs_without) / sizeof(lvrs_without[0]); i++) {
		xapic_regs_init(&r, 1, lvrs_without[i]);
		for (uint32_t size = 1; size <= 4; size *= 2) {
			op = xapic_access(&r, XAPIC_LVT_CMCI, size, false, 0);
			assert_int_equal(op.kind, XAPIC_OP_DONE);
			assert_int_equal(op.value, 0);
		}
		op = xapic_access(&r, XAPIC_LVT_CMCI + 1, 1, false, 0);
		assert_int_equal(op.kind, XAPIC_OP_DONE);
		assert_int_equal(op.value, 0);
		assert_int_equal(wr32(&r, XAPIC_LVT_CMCI, 0x10040).kind, XAPIC_OP_NONE);
		assert_int_equal(wr32(&r, XAPIC_LVT_CMCI, 0).kind, XAPIC_OP_NONE);
		/* its neighbours: ESR below, ICR low above, and the other LVTs */
		assert_int_equal(xapic_access(&r, XAPIC_ESR, 4, false, 0).kind, XAPIC_OP_MSR_READ);
		assert_int_equal(wr32(&r, XAPIC_ICR_LOW, 0x40).kind, XAPIC_OP_SEND_IPI);
		op = xapic_access(&r, XAPIC_LVT_THERMAL, 4, false, 0);
		assert_int_equal(op.kind, XAPIC_OP_MSR_READ);
		assert_int_equal(op.msr, X2APIC_LVT_THERMAL);
		assert_int_equal(wr32(&r, XAPIC_LVT_LINT0, 0x10000).kind, XAPIC_OP_MSR_WRITE);
	}
	for (uint32_t i = 0; i < sizeof(lvrs_with) / sizeof(lvrs_with[0]); i++) {
		xapic_regs_init(&r, 1, lvrs_with[i]);
		op = xapic_access(&r, XAPIC_LVT_CMCI, 4, false, 0);
		assert_int_equal(op.kind, XAPIC_OP_MSR_READ);
		assert_int_equal(op.msr, X2APIC_LVT_CMCI);
		op = wr32(&r, XAPIC_LVT_CMCI, 0x10040);
		assert_int_equal(op.kind, XAPIC_OP_MSR_WRITE);
		assert_int_equal(op.msr, X2APIC_LVT_CMCI);
		assert_int_equal(op.value, 0x10040);
	}
	/* an INIT keeps the version: the slot stays absent */
	xapic_regs_init(&r, 1, LVR_NO_CMCI);
	xapic_regs_init(&r, r.id, r.lvr);
	assert_int_equal(wr32(&r, XAPIC_LVT_CMCI, 0x10040).kind, XAPIC_OP_NONE);
}

static void test_page_model_registers(void **unused)
{
	struct xapic_regs r;
	struct xapic_op op;

	(void)unused;
	xapic_regs_init(&r, 7, LVR_CMCI);
	assert_int_equal(rd_model(&r, XAPIC_ID, 4), 0x07000000);
	assert_int_equal(rd_model(&r, XAPIC_LDR, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_DFR, 4), 0xffffffff);
	assert_int_equal(rd_model(&r, XAPIC_ICR_LOW, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_ICR_HIGH, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_APR, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_RRD, 4), 0);

	/* ID: bits 31:24 */
	assert_int_equal(wr32(&r, XAPIC_ID, 0x2a123456).kind, XAPIC_OP_DONE);
	assert_int_equal(r.id, 0x2a);
	assert_int_equal(rd_model(&r, XAPIC_ID, 4), 0x2a000000);
	/* LDR: bits 31:24 */
	wr32(&r, XAPIC_LDR, 0xffffffff);
	assert_int_equal(rd_model(&r, XAPIC_LDR, 4), 0xff000000);
	/* DFR: 31:28 the model, 27:0 ones */
	wr32(&r, XAPIC_DFR, 0);
	assert_int_equal(rd_model(&r, XAPIC_DFR, 4), XAPIC_DFR_CLUSTER);
	wr32(&r, XAPIC_DFR, 0x12345678);
	assert_int_equal(rd_model(&r, XAPIC_DFR, 4), 0x1fffffff);
	wr32(&r, XAPIC_DFR, 0xffffffff);
	assert_int_equal(rd_model(&r, XAPIC_DFR, 4), XAPIC_DFR_FLAT);
	/* ICR_HIGH: bits 31:24, and writing it sends nothing */
	op = wr32(&r, XAPIC_ICR_HIGH, 0x03abcdef);
	assert_int_equal(op.kind, XAPIC_OP_DONE);
	assert_int_equal(rd_model(&r, XAPIC_ICR_HIGH, 4), 0x03000000);
	/* ICR_LOW: sends; reserved bits and delivery status read 0 */
	op = wr32(&r, XAPIC_ICR_LOW, 0xfffff000 | ICR_DELIVERY_FIXED | 0x40);
	assert_int_equal(op.kind, XAPIC_OP_SEND_IPI);
	assert_int_equal(op.value, ICR_SHORTHAND_MASK | ICR_TRIGGER_LEVEL | ICR_LEVEL_ASSERT |
					   0x40);
	assert_int_equal(rd_model(&r, XAPIC_ICR_LOW, 4), op.value);
	assert_false(rd_model(&r, XAPIC_ICR_LOW, 4) & ICR_DELIVERY_STATUS);
	/* INIT keeps the ID, the rest resets */
	xapic_regs_init(&r, r.id, r.lvr);
	assert_int_equal(rd_model(&r, XAPIC_ID, 4), 0x2a000000);
	assert_int_equal(rd_model(&r, XAPIC_LDR, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_DFR, 4), 0xffffffff);
}

static void test_page_widths(void **unused)
{
	struct xapic_regs r;
	struct xapic_op op;

	(void)unused;
	xapic_regs_init(&r, 0x5a, LVR_CMCI);
	/* narrow reads inside bytes 0-3 */
	assert_int_equal(rd_model(&r, XAPIC_ID + 3, 1), 0x5a);
	assert_int_equal(rd_model(&r, XAPIC_ID + 2, 2), 0x5a00);
	assert_int_equal(rd_model(&r, XAPIC_ID + 0, 2), 0);
	op = xapic_access(&r, XAPIC_TPR + 1, 1, false, 0);
	assert_int_equal(op.kind, XAPIC_OP_MSR_READ);
	assert_int_equal(op.msr, X2APIC_TPR);
	assert_int_equal(xapic_read_finish(&op, 0xa1b2c3d4), 0xc3);
	op = xapic_access(&r, XAPIC_TPR + 2, 2, false, 0);
	assert_int_equal(xapic_read_finish(&op, 0xa1b2c3d4), 0xa1b2);
	op = xapic_access(&r, XAPIC_VERSION, 4, false, 0);
	/* bits 63:32 of the x2APIC form are not on the page */
	assert_int_equal(xapic_read_finish(&op, 0x1234567800050014ull), 0x00050014);
	/* reads that reach past byte 3, or are 8 bytes wide, read 0 */
	assert_int_equal(rd_model(&r, XAPIC_ID + 2, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_ID + 3, 2), 0);
	assert_int_equal(rd_model(&r, XAPIC_ID, 8), 0);
	assert_int_equal(rd_model(&r, XAPIC_TPR, 8), 0);
	assert_int_equal(rd_model(&r, XAPIC_ID + 4, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_ID + 12, 4), 0);
	assert_int_equal(rd_model(&r, XAPIC_TPR, 3), 0);
	/* reads of write-only and reserved registers read 0 */
	assert_int_equal(rd_model(&r, XAPIC_EOI, 4), 0);
	assert_int_equal(rd_model(&r, 0x3f0, 4), 0);	/* SELF IPI: x2APIC only */
	assert_int_equal(rd_model(&r, 0x400, 4), 0);
	assert_int_equal(rd_model(&r, 0xffc, 4), 0);
	/* the page's end, and past it */
	assert_int_equal(rd_model(&r, 0xfff, 1), 0);
	assert_int_equal(rd_model(&r, 0xffe, 4), 0);
	assert_int_equal(rd_model(&r, 0x1000, 4), 0);
	assert_int_equal(rd_model(&r, 0xffffffff, 8), 0);
	/* writes: 4 bytes at a slot's start only */
	assert_int_equal(xapic_access(&r, XAPIC_TPR, 1, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_TPR, 2, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_TPR, 8, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_TPR + 4, 4, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_TPR + 1, 4, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_ID + 3, 1, true, 0x10).kind, XAPIC_OP_NONE);
	assert_int_equal(r.id, 0x5a);
	assert_int_equal(xapic_access(&r, XAPIC_EOI, 2, true, 0).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, XAPIC_ICR_LOW, 8, true, 0x40).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, 0x3f0, 4, true, 0x40).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, 0xffc, 4, true, 0x40).kind, XAPIC_OP_NONE);
	assert_int_equal(xapic_access(&r, 0x1000, 4, true, 0x40).kind, XAPIC_OP_NONE);
	/* a 4-byte write's upper operand bits (an 8-byte register source) are not there */
	assert_int_equal(xapic_access(&r, XAPIC_TPR, 4, true, 0xff00000010ull).value, 0x10);
}

/* ---- the xAPIC ICR's destinations ---- */

#define LOW(mode, vec)	((mode) | ICR_LEVEL_ASSERT | (vec))
#define HIGH(dest)	((uint32_t)(dest) << 24)

/* n xAPIC vCPUs with ids @ids, flat model, LDR 1 << index. */
static void flat_partition(struct icr_xapic_dest *d, const uint8_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct xapic_regs r;

		xapic_regs_init(&r, ids[i], LVR_CMCI);
		r.ldr = (1u << i) << 24;
		d[i] = icr_xapic_dest_of(&r, APIC_MODE_XAPIC, ids[i]);
	}
}

static void test_route_physical(void **unused)
{
	static const uint8_t ids[] = { 0, 2, 4 };
	struct icr_xapic_dest d[3];
	struct icr_route r;

	(void)unused;
	flat_partition(d, ids, 3);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(4));
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 1u << 2);
	assert_int_equal(r.vector, 0x40);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(1));
	assert_int_equal(r.verdict, ICR_DENY);
	assert_true(r.outside);
	assert_non_null(r.why);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(0xff));
	assert_int_equal(r.verdict, ICR_SEND);	/* as x2APIC's 0xffffffff: the partition's vCPUs */
	assert_int_equal(r.targets, 7);
	/* ICR_HIGH's low bits are not the destination */
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(2) | 0x00ffffff);
	assert_int_equal(r.targets, 1u << 1);
	/* an ID written by the guest is the one its IPIs reach */
	{
		struct xapic_regs x;

		xapic_regs_init(&x, 4, LVR_CMCI);
		wr32(&x, XAPIC_ID, 9u << 24);
		d[2] = icr_xapic_dest_of(&x, APIC_MODE_XAPIC, 4);
	}
	assert_int_equal(icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(4)).verdict,
			 ICR_DENY);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(9));
	assert_int_equal(r.targets, 1u << 2);
	/* two vCPUs with one ID: both take it, as two APICs on the bus would */
	d[1].id = 9;
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(9));
	assert_int_equal(r.targets, (1u << 1) | (1u << 2));
}

static void test_route_logical_flat(void **unused)
{
	static const uint8_t ids[] = { 0, 1, 2 };
	struct icr_xapic_dest d[3];
	struct icr_route r;
	uint32_t low = LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_DEST_LOGICAL;

	(void)unused;
	flat_partition(d, ids, 3);	/* LDRs 1, 2, 4 */
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x03));
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 3);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x07));
	assert_int_equal(r.targets, 7);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x0c));	/* bit 3: nobody here */
	assert_int_equal(r.verdict, ICR_DENY);
	assert_true(r.outside);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0xff));
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 7);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0));
	assert_int_equal(r.verdict, ICR_IGNORE);
	/* two vCPUs in one logical group */
	d[1].logical_id = 0x05;
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x04));
	assert_int_equal(r.targets, (1u << 1) | (1u << 2));
}

static void test_route_logical_cluster(void **unused)
{
	static const uint8_t ldr[] = { 0x11, 0x12, 0x21 };
	struct icr_xapic_dest d[3];
	struct icr_route r;
	uint32_t low = LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_DEST_LOGICAL;

	(void)unused;
	for (uint32_t i = 0; i < 3; i++) {
		struct xapic_regs x;

		xapic_regs_init(&x, (uint8_t)i, LVR_CMCI);
		wr32(&x, XAPIC_DFR, 0);
		wr32(&x, XAPIC_LDR, (uint32_t)ldr[i] << 24);
		d[i] = icr_xapic_dest_of(&x, APIC_MODE_XAPIC, i);
		assert_true(d[i].cluster);
		assert_int_equal(d[i].logical_id, ldr[i]);
	}
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x13));
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 3);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x11));
	assert_int_equal(r.targets, 1);
	r = icr_route_xapic(d, 3, 2, low, HIGH(0x21));
	assert_int_equal(r.targets, 4);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x14));	/* cluster 1, APIC bit 2: nobody */
	assert_true(r.verdict == ICR_DENY && r.outside);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x31));	/* cluster 3: nobody */
	assert_true(r.verdict == ICR_DENY && r.outside);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x10));	/* empty mask */
	assert_int_equal(r.verdict, ICR_IGNORE);
	r = icr_route_xapic(d, 3, 0, low, HIGH(0xff));	/* the broadcast: all three */
	assert_true(r.verdict == ICR_SEND && r.targets == 7);
	/* the flat reading of 0x13 would name bit 4 too: the cluster model does not */
	r = icr_route_xapic(d, 3, 0, low, HIGH(0x12));
	assert_int_equal(r.targets, 2);
}

static void test_route_shorthands(void **unused)
{
	static const uint8_t ids[] = { 0, 1, 2 };
	struct icr_xapic_dest d[3];
	struct icr_route r;

	(void)unused;
	flat_partition(d, ids, 3);
	/* the destination field is ignored with a shorthand */
	r = icr_route_xapic(d, 3, 1, LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_SHORTHAND_SELF,
			    HIGH(0xff));
	assert_int_equal(r.targets, 2);
	r = icr_route_xapic(d, 3, 1, LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_SHORTHAND_ALL,
			    HIGH(0x77));
	assert_int_equal(r.verdict, ICR_SEND);
	assert_int_equal(r.targets, 7);
	r = icr_route_xapic(d, 3, 1, LOW(ICR_DELIVERY_INIT, 0) | ICR_SHORTHAND_OTHERS, 0);
	assert_int_equal(r.verdict, ICR_INIT);
	assert_int_equal(r.targets, 5);
	/* a vCPU with its APIC off takes nothing */
	d[2].enabled = false;
	r = icr_route_xapic(d, 3, 1, LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_SHORTHAND_OTHERS, 0);
	assert_int_equal(r.targets, 1);
	/* alone: all-excluding-self names nobody */
	r = icr_route_xapic(d, 1, 0, LOW(ICR_DELIVERY_FIXED, 0x30) | ICR_SHORTHAND_OTHERS, 0);
	assert_int_equal(r.verdict, ICR_IGNORE);
}

static void test_route_delivery_modes(void **unused)
{
	static const uint8_t ids[] = { 0, 1 };
	struct icr_xapic_dest d[2];
	struct icr_route r;

	(void)unused;
	flat_partition(d, ids, 2);
	r = icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_INIT, 0), HIGH(1));
	assert_int_equal(r.verdict, ICR_INIT);
	assert_int_equal(r.targets, 2);
	/* INIT level de-assert: a no-op */
	r = icr_route_xapic(d, 2, 0, ICR_DELIVERY_INIT | ICR_TRIGGER_LEVEL, HIGH(1));
	assert_int_equal(r.verdict, ICR_IGNORE);
	r = icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_SIPI, 0x9a), HIGH(1));
	assert_int_equal(r.verdict, ICR_SIPI);
	assert_int_equal(r.vector, 0x9a);
	assert_int_equal(r.targets, 2);
	r = icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_FIXED, 0x0f), HIGH(1));
	assert_true(r.verdict == ICR_DENY && !r.outside);
	/* the x2APIC path's delivery rules, the same in xAPIC mode */
	assert_int_equal(icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_LOWEST, 0x40), HIGH(1)).verdict,
			 ICR_SEND);
	assert_int_equal(icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_NMI, 0), HIGH(1)).verdict,
			 ICR_NMI);
	assert_int_equal(icr_route_xapic(d, 2, 0, LOW(ICR_DELIVERY_SMI, 0), HIGH(1)).verdict,
			 ICR_DENY);
	assert_int_equal(icr_route_xapic(d, 2, 0, LOW(3u << 8, 0), HIGH(1)).verdict, ICR_DENY);
	assert_int_equal(icr_route_xapic(d, 2, 0, LOW(7u << 8, 0), HIGH(1)).verdict, ICR_DENY);
}

/*
 * The same partition addressed in both forms: with xAPIC ids equal to the
 * x2APIC ids, every physical destination, delivery mode, shorthand and
 * level gives the same route (the "same meaning" the two paths promise).
 */
static void test_route_same_as_x2apic(void **unused)
{
	static const uint32_t x2ids[] = { 0, 2, 4, 6 };
	static const uint8_t ids[] = { 0, 2, 4, 6 };
	struct icr_xapic_dest d[4];

	(void)unused;
	flat_partition(d, ids, 4);
	for (uint32_t dest = 0; dest < 0xff; dest++)
		for (uint32_t mode = 0; mode < 8; mode++)
			for (uint32_t sh = 0; sh < 4; sh++)
				for (uint32_t lvl = 0; lvl < 2; lvl++) {
					uint32_t low = (mode << 8) | (sh << 18) |
						       (lvl ? ICR_LEVEL_ASSERT : 0) | 0x31;
					uint32_t self = dest % 4;
					struct icr_route a = icr_route(
						x2ids, 4, self, ((uint64_t)dest << 32) | low);
					struct icr_route b =
						icr_route_xapic(d, 4, self, low, HIGH(dest));

					assert_int_equal(a.verdict, b.verdict);
					assert_int_equal(a.outside, b.outside);
					if (a.verdict != ICR_DENY) {
						assert_int_equal(a.targets, b.targets);
						assert_int_equal(a.vector, b.vector);
					}
				}
	/* and the broadcasts, each in its own width */
	assert_int_equal(icr_route(x2ids, 4, 0, (0xffffffffull << 32) | 0x31).verdict,
			 icr_route_xapic(d, 4, 0, 0x31, HIGH(0xff)).verdict);
	assert_int_equal(
		icr_route(x2ids, 4, 0, (0xffffffffull << 32) | ICR_DEST_LOGICAL | 0x31).verdict,
		icr_route_xapic(d, 4, 0, ICR_DEST_LOGICAL | 0x31, HIGH(0xff)).verdict);
}

/* vCPUs not in xAPIC mode, as an xAPIC sender's destinations. */
static void test_route_mixed_modes(void **unused)
{
	struct xapic_regs x[3];
	struct icr_xapic_dest d[3];
	struct icr_route r;

	(void)unused;
	for (uint32_t i = 0; i < 3; i++) {
		xapic_regs_init(&x[i], (uint8_t)i, LVR_CMCI);
		x[i].ldr = (1u << i) << 24;
	}
	d[0] = icr_xapic_dest_of(&x[0], APIC_MODE_XAPIC, 0);
	d[1] = icr_xapic_dest_of(&x[1], APIC_MODE_X2APIC, 0x101);	/* x2APIC id above 0xff */
	d[2] = icr_xapic_dest_of(&x[2], APIC_MODE_DISABLED, 2);
	assert_true(d[1].x2apic && d[1].enabled);
	assert_int_equal(d[1].id, 0x101);
	assert_false(d[2].enabled);
	/* x2APIC mode: matched by its whole x2APIC id, so 0x01 is nobody */
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_INIT, 0), HIGH(0x01));
	assert_true(r.verdict == ICR_DENY && r.outside);
	d[1] = icr_xapic_dest_of(&x[1], APIC_MODE_X2APIC, 0x01);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_INIT, 0), HIGH(0x01));
	assert_int_equal(r.verdict, ICR_INIT);
	assert_int_equal(r.targets, 2);
	/* ... and never logically */
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40) | ICR_DEST_LOGICAL, HIGH(0x02));
	assert_true(r.verdict == ICR_DENY && r.outside);
	/* disabled: one of the partition's, but it takes nothing */
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40), HIGH(0x02));
	assert_int_equal(r.verdict, ICR_IGNORE);
	r = icr_route_xapic(d, 3, 0, LOW(ICR_DELIVERY_FIXED, 0x40) | ICR_SHORTHAND_ALL, 0);
	assert_int_equal(r.targets, 3);
}

/* The x2APIC form says when it refused a destination outside the partition. */
static void test_x2apic_outside_flag(void **unused)
{
	static const uint32_t ids[] = { 0, 2, 4 };

	(void)unused;
	assert_true(icr_route(ids, 3, 0, (5ull << 32) | 0x40).outside);
	assert_false(icr_route(ids, 3, 0, (0xffffffffull << 32) | 0x40).outside);
	assert_false(icr_route(ids, 3, 0, (2ull << 32) | ICR_DELIVERY_SMI).outside);
	assert_true(icr_route(ids, 3, 0, (0x00000008ull << 32) | ICR_DEST_LOGICAL | 0x40).outside);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_init_and_value),
		cmocka_unit_test(test_base_transitions),
		cmocka_unit_test(test_base_reserved_bits),
		cmocka_unit_test(test_base_maxphyaddr_and_no_x2apic),
		cmocka_unit_test(test_base_relocation),
		cmocka_unit_test(test_base_kvm_unit_tests_sequence),
		cmocka_unit_test(test_base_undecoded_reads),
		cmocka_unit_test(test_page_table),
		cmocka_unit_test(test_page_every_slot),
		cmocka_unit_test(test_page_cmci_follows_lvr),
		cmocka_unit_test(test_page_write_values),
		cmocka_unit_test(test_page_model_registers),
		cmocka_unit_test(test_page_widths),
		cmocka_unit_test(test_route_physical),
		cmocka_unit_test(test_route_logical_flat),
		cmocka_unit_test(test_route_logical_cluster),
		cmocka_unit_test(test_route_shorthands),
		cmocka_unit_test(test_route_delivery_modes),
		cmocka_unit_test(test_route_same_as_x2apic),
		cmocka_unit_test(test_route_mixed_modes),
		cmocka_unit_test(test_x2apic_outside_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
