/* SPDX-License-Identifier: MIT */
/*
 * XCR0 and the XSAVE area, decided from CPUID leaf 0xD (SDM Vol. 1 13.2-13.4,
 * Vol. 3A 2.6). Pure: the callers pass the CPUID values in, so the host unit
 * tests (tests/unit/test_xcr0.c) can describe any CPU, AMX ones included.
 */
#ifndef TEMPO_HV_XCR0_H
#define TEMPO_HV_XCR0_H

#include <stdbool.h>
#include <stdint.h>

/* State components, XCR0 bit = component number (SDM Vol. 1 Table 13-1) */
#define XCR0_X87		(1ull << 0)
#define XCR0_SSE		(1ull << 1)
#define XCR0_AVX		(1ull << 2)
#define XCR0_BNDREGS		(1ull << 3)
#define XCR0_BNDCSR		(1ull << 4)
#define XCR0_OPMASK		(1ull << 5)
#define XCR0_ZMM_HI256		(1ull << 6)
#define XCR0_HI16_ZMM		(1ull << 7)
#define XCR0_PKRU		(1ull << 9)
#define XCR0_XTILECFG		(1ull << 17)
#define XCR0_XTILEDATA		(1ull << 18)
#define XCR0_MPX		(XCR0_BNDREGS | XCR0_BNDCSR)
#define XCR0_AVX512		(XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)
#define XCR0_AMX		(XCR0_XTILECFG | XCR0_XTILEDATA)
/*
 * Supervisor state components, managed through IA32_XSS and never in XCR0
 * (SDM Vol. 1 13.2): PT (8), PASID (10), CET_U (11), CET_S (12), HDC (13),
 * UINTR (14), LBR (15), HWP (16).
 */
#define XCR0_SUPERVISOR		((1ull << 8) | (0x7full << 10))

/* The legacy region (512 bytes) and the XSAVE header (64) (SDM Vol. 1 13.4) */
#define XSAVE_LEGACY_BYTES	512u
#define XSAVE_HEADER_BYTES	64u
#define XSAVE_MIN_BYTES		(XSAVE_LEGACY_BYTES + XSAVE_HEADER_BYTES)
#define XSAVE_COMPONENTS	64

/*
 * The largest per-vCPU area Tempo allocates (4 pages): enough for every
 * component up to AMX (11,008 bytes on Sapphire Rapids). Components past it
 * are not offered to guests.
 */
#define XSAVE_AREA_MAX		16384u

/* What CPUID leaf 0xD says (standard, non-compacted format). */
struct xsave_cpuid {
	uint64_t supported;	/* sub-leaf 0 EDX:EAX: XCR0 bits the CPU supports */
	uint32_t size_all;	/* sub-leaf 0 ECX: area for every supported component */
	uint32_t size[XSAVE_COMPONENTS];	/* sub-leaf i EAX (i >= 2) */
	uint32_t offset[XSAVE_COMPONENTS];	/* sub-leaf i EBX (i >= 2) */
};

struct xsave_plan {
	uint64_t xcr0_allowed;	/* the XCR0 bits a guest may set */
	uint32_t area_bytes;	/* standard-format area for all of them */
};

/*
 * Would XSETBV with ECX=@ecx, EDX:EAX=@value at CPL @cpl be legal on a CPU
 * whose guests may enable @allowed? ECX 0, CPL 0, x87 set, AVX needs SSE,
 * the AVX-512 three all or none and with AVX, MPX both or neither, AMX both
 * or neither, nothing outside @allowed, no supervisor component (SDM Vol. 1
 * 13.3, Vol. 2B XSETBV).
 */
bool xsetbv_legal(uint32_t ecx, uint32_t cpl, uint64_t value, uint64_t allowed);

/* Bytes of a standard-format XSAVE area that holds the components in @mask. */
uint32_t xsave_size(const struct xsave_cpuid *c, uint64_t mask);

/*
 * The guests' XCR0 limit and area size: every supported user component
 * whose state ends within @area_max bytes, the groups kept whole (a group
 * loses all its bits when one does not fit, AVX-512 goes with AVX).
 */
struct xsave_plan xsave_plan_make(const struct xsave_cpuid *c, uint32_t area_max);

/*
 * Hide from a guest's CPUID what @allowed leaves out: leaf 0xD's component
 * bits, sizes and sub-leaves, and the leaf 7 feature flags (AVX-512, MPX,
 * AMX, PKU) and AMX leaves 0x1D/0x1E whose state it could not enable; and
 * XFD (leaf 0xD.1 EAX[4]), whose MSRs guests may not use.
 */
void xcr0_filter_cpuid(uint64_t allowed, uint32_t size_allowed, uint32_t leaf, uint32_t sub,
		       uint32_t *eax, uint32_t *ebx, uint32_t *ecx, uint32_t *edx);

#endif
