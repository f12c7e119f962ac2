// SPDX-License-Identifier: MIT
/* XCR0 rules (XSETBV) and the XSAVE area's size and limit, from synthetic CPUID 0xD. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/xcr0.h"

static void component(struct xsave_cpuid *c, uint32_t i, uint32_t offset, uint32_t size)
{
	c->supported |= 1ull << i;
	c->offset[i] = offset;
	c->size[i] = size;
}

/* Ivy Bridge: x87, SSE, AVX (CPUID 0xD.0 ECX = 832) */
static void ivy_bridge(struct xsave_cpuid *c)
{
	memset(c, 0, sizeof(*c));
	c->supported = XCR0_X87 | XCR0_SSE;
	component(c, 2, 576, 256);
	c->size_all = 832;
}

/* Skylake-SP: + MPX, AVX-512, PKRU (ECX = 2696), the offsets of real parts */
static void skylake_x(struct xsave_cpuid *c)
{
	ivy_bridge(c);
	component(c, 3, 960, 64);
	component(c, 4, 1024, 64);
	component(c, 5, 1088, 64);
	component(c, 6, 1152, 512);
	component(c, 7, 1664, 1024);
	component(c, 9, 2688, 8);
	c->size_all = 2696;
}

/* Sapphire Rapids: no MPX, + AMX (XTILECFG 64 at 2752, XTILEDATA 8192 at 2816) */
static void sapphire_rapids(struct xsave_cpuid *c)
{
	skylake_x(c);
	c->supported &= ~XCR0_MPX;
	c->size[3] = c->size[4] = c->offset[3] = c->offset[4] = 0;
	component(c, 17, 2752, 64);
	component(c, 18, 2816, 8192);
	c->size_all = 11008;
}

static void test_xsetbv_rules(void **state)
{
	const uint64_t all = 0x602ff;	/* a CPU with every user component to AMX */

	(void)state;
	assert_true(xsetbv_legal(0, 0, 0x1, all));
	assert_true(xsetbv_legal(0, 0, 0x3, all));
	assert_true(xsetbv_legal(0, 0, 0x7, all));
	assert_true(xsetbv_legal(0, 0, 0xe7, all));
	assert_true(xsetbv_legal(0, 0, 0x1f, all));
	assert_true(xsetbv_legal(0, 0, 0x60003, all));
	assert_true(xsetbv_legal(0, 0, 0x602ff, all));
	/* ECX names XCR0 only; CPL 0 only */
	assert_false(xsetbv_legal(1, 0, 0x3, all));
	assert_false(xsetbv_legal(0, 3, 0x3, all));
	/* x87 may not be cleared; AVX needs SSE */
	assert_false(xsetbv_legal(0, 0, 0x2, all));
	assert_false(xsetbv_legal(0, 0, 0x5, all));
	/* AVX-512: opmask, ZMM_Hi256, Hi16_ZMM all or none, and with AVX */
	assert_false(xsetbv_legal(0, 0, 0x27, all));
	assert_false(xsetbv_legal(0, 0, 0x67, all));
	assert_false(xsetbv_legal(0, 0, 0xc7, all));
	assert_false(xsetbv_legal(0, 0, 0xe3, all));
	/* MPX: BNDREGS and BNDCSR together */
	assert_false(xsetbv_legal(0, 0, 0xb, all));
	assert_false(xsetbv_legal(0, 0, 0x13, all));
	/* AMX: XTILECFG and XTILEDATA together */
	assert_false(xsetbv_legal(0, 0, 0x20003, all));
	assert_false(xsetbv_legal(0, 0, 0x40003, all));
	/* nothing the CPU (or the area) does not offer */
	assert_false(xsetbv_legal(0, 0, 0xe7, 0x7));
	assert_false(xsetbv_legal(0, 0, 0x1ull << 63 | 1, all));
	/* supervisor components (PT, CET, ...) are IA32_XSS's, even if "allowed" */
	assert_false(xsetbv_legal(0, 0, 0x103, ~0ull));
	assert_false(xsetbv_legal(0, 0, 0x1803, ~0ull));
}

static void test_sizes(void **state)
{
	struct xsave_cpuid c;

	(void)state;
	ivy_bridge(&c);
	assert_int_equal(xsave_size(&c, 0x3), 576);
	assert_int_equal(xsave_size(&c, 0x7), 832);
	skylake_x(&c);
	assert_int_equal(xsave_size(&c, 0x2ff), 2696);
	assert_int_equal(xsave_size(&c, 0xe7), 2688);
	sapphire_rapids(&c);
	assert_int_equal(xsave_size(&c, 0x602e7), 11008);
	/* a fixed 4 KiB area would be 6,912 bytes short of an AMX guest's state */
	assert_int_equal(xsave_size(&c, 0x602e7) - 4096, 6912);
}

static void test_plan(void **state)
{
	struct xsave_cpuid c;
	struct xsave_plan p;

	(void)state;
	ivy_bridge(&c);
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0x7);
	assert_int_equal(p.area_bytes, 832);

	/* MPX (BNDREGS, BNDCSR) is never offered: BNDCFGS has no row */
	skylake_x(&c);
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0x2e7);
	assert_int_equal(p.area_bytes, 2696);

	/* AMX fits the 16 KiB area: the guest gets it, and room for it */
	sapphire_rapids(&c);
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0x602e7);
	assert_int_equal(p.area_bytes, 11008);
	assert_true(p.area_bytes <= XSAVE_AREA_MAX);

	/* an area of 4 KiB: AMX is left out whole, the rest stays */
	p = xsave_plan_make(&c, 4096);
	assert_int_equal(p.xcr0_allowed, 0x2e7);
	assert_int_equal(p.area_bytes, 2696);

	/* 2 KiB: Hi16_ZMM does not fit, so no AVX-512 at all; PKRU past it goes too */
	p = xsave_plan_make(&c, 2048);
	assert_int_equal(p.xcr0_allowed, 0x7);
	assert_int_equal(p.area_bytes, 832);

	/* Bochs 2.7 tigerlake: PKRU in EDX:EAX, sub-leaf 9 all zeros: left out */
	skylake_x(&c);
	c.supported &= ~XCR0_MPX;
	c.size[3] = c.size[4] = c.offset[3] = c.offset[4] = 0;
	c.size[9] = c.offset[9] = 0;
	c.size_all = 2752;
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0xe7);
	assert_int_equal(p.area_bytes, 2688);

	/* a CPU that lists a supervisor bit in EDX:EAX does not get it into XCR0 */
	skylake_x(&c);
	c.supported |= 1ull << 8;
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0x2e7);

	/* no XSAVE (nothing supported): nothing allowed */
	memset(&c, 0, sizeof(c));
	p = xsave_plan_make(&c, XSAVE_AREA_MAX);
	assert_int_equal(p.xcr0_allowed, 0);
	/* every plan's mask is itself legal XCR0 */
	sapphire_rapids(&c);
	for (uint32_t max = 576; max <= XSAVE_AREA_MAX; max += 64) {
		p = xsave_plan_make(&c, max);
		assert_true(xsetbv_legal(0, 0, p.xcr0_allowed, p.xcr0_allowed));
		assert_true(p.area_bytes <= max);
		assert_true(xsave_size(&c, p.xcr0_allowed) <= p.area_bytes);
	}
}

/* CPUID 7.0 EDX: AMX-BF16 (22), AMX-TILE (24), AMX-INT8 (25) */
#define AMX_EDX		((1u << 22) | (1u << 24) | (1u << 25))

static void test_cpuid_filter(void **state)
{
	uint32_t a, b, c, d;

	(void)state;
	/* leaf 7 on an AMX CPU whose guests may not have AMX */
	a = 0;
	b = 0xd19f4fbb;	/* AVX512F, DQ, CD, BW, VL ... */
	c = 0x1bc05fee;
	d = 0x03c1c010 | AMX_EDX;
	xcr0_filter_cpuid(0x2e7, 2752, 7, 0, &a, &b, &c, &d);
	assert_int_equal(d & AMX_EDX, 0);
	assert_int_not_equal(d & (1u << 23), 0);	/* AVX512_FP16 stays */
	assert_int_not_equal(b & (1u << 16), 0);	/* AVX-512 stays */
	xcr0_filter_cpuid(0x7, 832, 7, 0, &a, &b, &c, &d);
	assert_int_equal(b & ((1u << 16) | (1u << 30) | (1u << 31)), 0);
	assert_int_equal(d & (1u << 23), 0);
	assert_int_equal(c & (1u << 11), 0);
	/* PKU (ECX[3]) only with PKRU's component */
	c = 1u << 3;
	xcr0_filter_cpuid(0x2e7, 2752, 7, 0, &a, &b, &c, &d);
	assert_int_equal(c, 1u << 3);
	xcr0_filter_cpuid(0xe7, 2688, 7, 0, &a, &b, &c, &d);
	assert_int_equal(c, 0);

	/* leaf 0xD sub-leaf 0: component bits and the all-allowed size */
	a = 0x602e7;
	b = 576;
	c = 11008;
	d = 0;
	xcr0_filter_cpuid(0x2e7, 2752, 0xd, 0, &a, &b, &c, &d);
	assert_int_equal(a, 0x2e7);
	assert_int_equal(b, 576);
	assert_int_equal(c, 2752);
	/* sub-leaf 18 (XTILEDATA) reads as absent; sub-leaf 5 stays */
	a = 8192, b = 2816, c = 0, d = 0;
	xcr0_filter_cpuid(0x2e7, 2752, 0xd, 18, &a, &b, &c, &d);
	assert_int_equal(a | b | c | d, 0);
	a = 64, b = 1088, c = 0, d = 0;
	xcr0_filter_cpuid(0x2e7, 2752, 0xd, 5, &a, &b, &c, &d);
	assert_int_equal(a, 64);
	assert_int_equal(b, 1088);
	/* supervisor components (PT 8, CET 11/12) read as absent: IA32_XSS offers none */
	for (uint32_t i = 0; i < 3; i++) {
		static const uint32_t sup[] = { 8, 11, 12 };

		a = 128, b = 0, c = 1, d = 0;
		xcr0_filter_cpuid(0x2e7, 2752, 0xd, sup[i], &a, &b, &c, &d);
		assert_int_equal(a | b | c | d, 0);
	}
	/* sub-leaf 1: XSAVEOPT, XSAVEC, XGETBV1 stay; XFD (bit 4) goes */
	a = 0x1f, b = 0, c = 0, d = 0;
	xcr0_filter_cpuid(0x602e7, 11008, 0xd, 1, &a, &b, &c, &d);
	assert_int_equal(a, 0xf);
	/* the AMX palette leaf */
	a = 1, b = 0x4000, c = 0, d = 0;
	xcr0_filter_cpuid(0x2e7, 2752, 0x1d, 0, &a, &b, &c, &d);
	assert_int_equal(a | b, 0);
	a = 1, b = 0x4000;
	xcr0_filter_cpuid(0x602e7, 11008, 0x1d, 0, &a, &b, &c, &d);
	assert_int_equal(a, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xsetbv_rules),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_cpuid_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
