// SPDX-License-Identifier: MIT
/*
 * The destination and vector rule of a partition's device interrupts
 * (hv/core/irq_route.c): each rule alone, then every vector and delivery
 * mode against a reference written here from the SDM's words, and the
 * hardware encodings of the answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/irq_route.h"

static struct irq_cpus cpus;
static struct irq_vector_set tempo;

/* Two CPUs, APIC ids 4 and 6, flat logical IDs 0x01 and 0x02; Tempo keeps 0xec-0xef. */
static int setup(void **state)
{
	(void)state;
	memset(&cpus, 0, sizeof(cpus));
	cpus.count = 2;
	cpus.apic_id[0] = 4;
	cpus.apic_id[1] = 6;
	cpus.logical_id[0] = 0x01;
	cpus.logical_id[1] = 0x02;
	memset(&tempo, 0, sizeof(tempo));
	for (unsigned int v = 0xec; v <= 0xef; v++)
		irq_vector_add(&tempo, (uint8_t)v);
	return 0;
}

static enum irq_verdict route(uint8_t vector, uint8_t delivery, bool logical, uint8_t dest,
			      struct irq_target *t)
{
	struct irq_request rq = {
		.vector = vector, .delivery = delivery, .logical = logical, .dest = dest,
	};
	struct irq_target dummy;

	return irq_route(&cpus, &tempo, &rq, t ? t : &dummy);
}

static void test_physical(void **state)
{
	struct irq_target t;

	(void)state;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 6, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
	assert_int_equal(t.cpu, 1);
	assert_int_equal(t.vector, 0x30);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 4, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 4);
	/* Tempo's CPU 0 and a CPU of another partition */
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0, NULL), IRQ_DEST_NOT_OURS);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 5, NULL), IRQ_DEST_NOT_OURS);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 5, NULL), IRQ_DEST_NOT_OURS);
}

/* 0xFF is every CPU: fixed cannot reach two with one entry, lowest priority picks one. */
static void test_broadcast(void **state)
{
	struct irq_target t;

	(void)state;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0xff, NULL), IRQ_DEST_SEVERAL);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 4);
	cpus.count = 1;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0xff, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 4);
}

static void test_vectors(void **state)
{
	(void)state;
	for (unsigned int v = 0; v < 32; v++)
		assert_int_equal(route((uint8_t)v, IRQ_DELIVERY_FIXED, false, 4, NULL),
				 IRQ_VECTOR_RESERVED);
	for (unsigned int v = 0xec; v <= 0xef; v++)
		assert_int_equal(route((uint8_t)v, IRQ_DELIVERY_LOWEST, false, 4, NULL),
				 IRQ_VECTOR_TEMPO);
	/* 16-31 the APIC delivers, but root mode would take them as exceptions */
	assert_int_equal(route(18, IRQ_DELIVERY_FIXED, false, 4, NULL), IRQ_VECTOR_RESERVED);
	assert_int_equal(route(32, IRQ_DELIVERY_FIXED, false, 4, NULL), IRQ_OK);
	assert_int_equal(route(0xeb, IRQ_DELIVERY_FIXED, false, 4, NULL), IRQ_OK);
	assert_int_equal(route(0xf0, IRQ_DELIVERY_FIXED, false, 4, NULL), IRQ_OK);
	assert_int_equal(route(0xff, IRQ_DELIVERY_FIXED, false, 4, NULL), IRQ_OK);
	/* a vector check comes first: a bad vector to a foreign CPU says vector */
	assert_int_equal(route(2, IRQ_DELIVERY_NMI, false, 0, NULL), IRQ_VECTOR_RESERVED);
}

static void test_delivery_modes(void **state)
{
	(void)state;
	for (unsigned int d = 0; d < 8; d++)
		assert_int_equal(route(0x40, (uint8_t)d, false, 4, NULL),
				 d <= IRQ_DELIVERY_LOWEST ? IRQ_OK : IRQ_DELIVERY_REFUSED);
}

static void test_logical_flat(void **state)
{
	struct irq_target t;

	(void)state;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x02, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x03, NULL), IRQ_DEST_SEVERAL);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, true, 0x03, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 4);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, true, 0x06, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x04, NULL), IRQ_DEST_NOT_OURS);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x00, NULL), IRQ_DEST_NOT_OURS);
	/* CPUs in x2APIC mode (logical ID 0 here) answer no 8-bit logical destination */
	cpus.logical_id[0] = cpus.logical_id[1] = 0;
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, true, 0xff, NULL), IRQ_DEST_NOT_OURS);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x01, NULL), IRQ_DEST_NOT_OURS);
}

static void test_logical_cluster(void **state)
{
	struct irq_target t;

	(void)state;
	cpus.logical_model = IRQ_LOGICAL_CLUSTER;
	cpus.count = 3;
	cpus.logical_id[0] = 0x11;	/* cluster 1, member 0 */
	cpus.logical_id[1] = 0x12;	/* cluster 1, member 1 */
	cpus.logical_id[2] = 0x21;	/* cluster 2, member 0 */
	cpus.apic_id[2] = 8;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x12, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x21, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 8);
	/* flat would match 0x22 & 0x12; cluster 2 has no member 1 */
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x22, NULL), IRQ_DEST_NOT_OURS);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x13, NULL), IRQ_DEST_SEVERAL);
	/* cluster 15: member 0 of every cluster */
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0xf1, NULL), IRQ_DEST_SEVERAL);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, true, 0xf1, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 4);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0xf2, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
}

/* An APIC id above 255: no compatibility-format message reaches it. */
static void test_wide_apic_id(void **state)
{
	struct irq_target t;

	(void)state;
	cpus.apic_id[0] = 300;
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);		/* the one that can be reached */
	/* 300 & 0xff = 44 is a different CPU, never this one */
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 44, NULL), IRQ_DEST_NOT_OURS);
	cpus.count = 1;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0xff, NULL), IRQ_DEST_WIDE);
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, NULL), IRQ_DEST_WIDE);
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, true, 0x01, NULL), IRQ_DEST_WIDE);
	cpus.any_apic_id = true;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0xff, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 300);
}

/* APIC id 255: an 8-bit 0xFF is the broadcast, so no message names that CPU alone. */
static void test_apic_id_255(void **state)
{
	struct irq_target t;

	(void)state;
	cpus.apic_id[0] = 0xff;
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, &t), IRQ_OK);
	assert_int_equal(t.apic_id, 6);
	cpus.count = 1;
	assert_int_equal(route(0x30, IRQ_DELIVERY_FIXED, false, 0xff, NULL), IRQ_DEST_WIDE);
}

static void test_no_cpus(void **state)
{
	(void)state;
	cpus.count = 0;
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, NULL), IRQ_DEST_NOT_OURS);
	cpus.count = IRQ_MAX_CPUS + 1;
	assert_int_equal(route(0x30, IRQ_DELIVERY_LOWEST, false, 0xff, NULL), IRQ_DEST_NOT_OURS);
}

/* The reference: the rules of irq_route.h, in their order, for physical destinations. */
static enum irq_verdict reference(uint8_t vector, uint8_t delivery, uint8_t dest)
{
	if (vector < 32)
		return IRQ_VECTOR_RESERVED;
	if (vector >= 0xec && vector <= 0xef)
		return IRQ_VECTOR_TEMPO;
	if (delivery > 1)
		return IRQ_DELIVERY_REFUSED;
	if (dest != 4 && dest != 6 && dest != 0xff)
		return IRQ_DEST_NOT_OURS;
	if (dest == 0xff && delivery == 0)
		return IRQ_DEST_SEVERAL;
	return IRQ_OK;
}

static void test_every_request(void **state)
{
	(void)state;
	for (unsigned int v = 0; v < 256; v++)
		for (unsigned int d = 0; d < 8; d++)
			for (unsigned int dest = 0; dest < 256; dest += 1) {
				struct irq_target t = { .apic_id = 0xdead };
				enum irq_verdict got = route((uint8_t)v, (uint8_t)d, false,
							     (uint8_t)dest, &t);

				assert_int_equal(got, reference((uint8_t)v, (uint8_t)d,
								(uint8_t)dest));
				if (got != IRQ_OK) {
					assert_int_equal(t.apic_id, 0xdead);
					continue;
				}
				assert_int_equal(t.vector, v);
				assert_true(t.apic_id == 4 || t.apic_id == 6);
				if (dest != 0xff)
					assert_int_equal(t.apic_id, dest);
			}
}

static void test_rte_decode(void **state)
{
	struct irq_request rq;

	(void)state;
	irq_request_from_rte(0x0600000000012a45ull | IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW |
			     IOAPIC_RTE_DEST_LOGICAL, &rq);
	assert_int_equal(rq.vector, 0x45);
	assert_int_equal(rq.delivery, 2);
	assert_true(rq.logical);
	assert_true(rq.level);
	assert_true(rq.active_low);
	assert_int_equal(rq.dest, 0x06);
	irq_request_from_rte(0xff00000000000031ull, &rq);
	assert_int_equal(rq.vector, 0x31);
	assert_int_equal(rq.delivery, 0);
	assert_false(rq.logical);
	assert_false(rq.level);
	assert_false(rq.active_low);
	assert_int_equal(rq.dest, 0xff);
}

static void test_msi_decode(void **state)
{
	struct irq_request rq;

	(void)state;
	assert_int_equal(irq_request_from_msi(0xfee06000, 0, 0x0141, &rq), IRQ_OK);
	assert_int_equal(rq.dest, 6);
	assert_int_equal(rq.vector, 0x41);
	assert_int_equal(rq.delivery, IRQ_DELIVERY_LOWEST);
	assert_false(rq.logical);
	assert_false(rq.level);
	/* the trigger bits and bits 31:16 are ignored; bit 2 is logical; bit 3 (RH) ignored */
	assert_int_equal(irq_request_from_msi(0xfee0200c, 0, 0xabcdc030, &rq), IRQ_OK);
	assert_true(rq.logical);
	assert_false(rq.level);
	assert_int_equal(rq.vector, 0x30);
	assert_int_equal(rq.delivery, 0);
	/* anything but an interrupt message */
	assert_int_equal(irq_request_from_msi(0xfee00000, 1, 0x30, &rq), IRQ_MSI_ADDRESS);
	assert_int_equal(irq_request_from_msi(0xfed00000, 0, 0x30, &rq), IRQ_MSI_ADDRESS);
	assert_int_equal(irq_request_from_msi(0x00001000, 0, 0x30, &rq), IRQ_MSI_ADDRESS);
	assert_int_equal(irq_request_from_msi(0xfee00010, 0, 0x30, &rq), IRQ_MSI_ADDRESS);
	assert_int_equal(irq_request_from_msi(0xfee00800, 0, 0x30, &rq), IRQ_MSI_ADDRESS);
}

static void test_encodings(void **state)
{
	struct irq_target t = { .apic_id = 6, .vector = 0x41, .level = true, .active_low = true };
	uint32_t lo, hi, data;

	(void)state;
	assert_int_equal(irq_target_rte(&t, false), 0x060000000000a041ull);
	assert_int_equal(irq_target_rte(&t, true), 0x060000000001a041ull);
	t.level = t.active_low = false;
	assert_int_equal(irq_target_rte(&t, false), 0x0600000000000041ull);
	irq_target_msi(&t, &lo, &hi, &data);
	assert_int_equal(lo, 0xfee06000);
	assert_int_equal(hi, 0);
	assert_int_equal(data, 0x41);
	/* what was encoded decodes to the same request, routed to the same CPU */
	{
		struct irq_request rq;
		struct irq_target back;

		assert_int_equal(irq_request_from_msi(lo, hi, data, &rq), IRQ_OK);
		assert_int_equal(irq_route(&cpus, &tempo, &rq, &back), IRQ_OK);
		assert_int_equal(back.apic_id, 6);
		irq_request_from_rte(irq_target_rte(&t, false), &rq);
		assert_int_equal(irq_route(&cpus, &tempo, &rq, &back), IRQ_OK);
		assert_int_equal(back.apic_id, 6);
	}
}

static void test_names(void **state)
{
	(void)state;
	for (unsigned int v = 0; v < IRQ_VERDICT_COUNT; v++) {
		assert_non_null(irq_verdict_name((enum irq_verdict)v));
		assert_null(strchr(irq_verdict_name((enum irq_verdict)v), ' '));
	}
	assert_string_equal(irq_verdict_name(IRQ_OK), "ok");
	assert_string_equal(irq_verdict_name(IRQ_VERDICT_COUNT), "unknown");
}

/*
 * A masked physical entry keeps the vector the pin last went live on, so
 * the EOI that follows the mask (Tempo's on the exit path, the stop's)
 * matches it: a level line masked with the guest's vector in it (exit
 * path) or with another partition's (a refused entry) kept Remote IRR.
 */
static void test_keep_vector(void **state)
{
	const uint64_t masked = IOAPIC_RTE_MASKED | IOAPIC_RTE_LEVEL | (1ull << 56);
	uint8_t hw = 0;

	(void)state;
	/* never live: a masked entry is written as it is */
	assert_int_equal(irq_rte_keep_vector(masked | 0x41, &hw), masked | 0x41);
	assert_int_equal(hw, 0);
	/* live on Tempo's 0x52 */
	assert_int_equal(irq_rte_keep_vector(IOAPIC_RTE_LEVEL | 0x52, &hw), IOAPIC_RTE_LEVEL | 0x52);
	assert_int_equal(hw, 0x52);
	/* masked with the guest's 0x41 (or a refused 0xec): carries 0x52 */
	assert_int_equal(irq_rte_keep_vector(masked | 0x41, &hw), masked | 0x52);
	assert_int_equal(irq_rte_keep_vector(masked | 0xec, &hw), masked | 0x52);
	assert_int_equal(hw, 0x52);
	/* live again on 0x53: that one from now on */
	irq_rte_keep_vector(0x53, &hw);
	assert_int_equal(irq_rte_keep_vector(masked, &hw), masked | 0x53);
	/* all ones masked: only the vector byte changes */
	assert_int_equal(irq_rte_keep_vector(~0ull, &hw), (~0ull & ~0xffull) | 0x53);
}

/*
 * A direct level input in service when its partition stops: remote IRR
 * set, so the entry is masked with its vector and trigger kept (the EOI
 * register matches entries by vector) and that vector ended. Anything else
 * needs no EOI.
 */
static void test_stop_eoi(void **state)
{
	uint64_t in_service = IOAPIC_RTE_LEVEL | IOAPIC_RTE_REMOTE_IRR | (1ull << 56) | 0x61;
	uint64_t masked = 0;
	uint8_t vector = 0;

	(void)state;
	assert_true(irq_rte_stop_eoi(in_service, &masked, &vector));
	assert_int_equal(vector, 0x61);
	assert_true(masked & IOAPIC_RTE_MASKED);
	assert_true(masked & IOAPIC_RTE_LEVEL);
	assert_int_equal(masked & 0xff, 0x61);
	assert_int_equal(masked >> 56, 1);
	/* the guest had masked it itself, in its handler: still in service */
	assert_true(irq_rte_stop_eoi(in_service | IOAPIC_RTE_MASKED, &masked, &vector));
	assert_true(masked & IOAPIC_RTE_MASKED);
	masked = 0x1234;
	vector = 0x55;
	/* edge (remote IRR is undefined there), level not in service, all ones but edge */
	assert_false(irq_rte_stop_eoi(IOAPIC_RTE_REMOTE_IRR | 0x61, &masked, &vector));
	assert_false(irq_rte_stop_eoi(IOAPIC_RTE_LEVEL | 0x61, &masked, &vector));
	assert_false(irq_rte_stop_eoi(~IOAPIC_RTE_LEVEL, &masked, &vector));
	assert_false(irq_rte_stop_eoi(0, &masked, &vector));
	assert_int_equal(masked, 0x1234);
	assert_int_equal(vector, 0x55);
	assert_true(irq_rte_stop_eoi(~0ull, &masked, &vector));
	assert_int_equal(vector, 0xff);
}

/* One partition a vector, machine-wide; uses counted; a release by a non-owner changes nothing. */
static void test_vector_owners(void **state)
{
	static struct irq_vector_owners o;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(irq_vector_owner(&o, 0x61), 0);
	assert_true(irq_vector_claim(&o, 0x61, 1));
	assert_true(irq_vector_claim(&o, 0x61, 1));	/* its second entry on the vector */
	assert_false(irq_vector_claim(&o, 0x61, 2));	/* another partition's EOI would end ours */
	assert_false(irq_vector_claim(&o, 0x62, 0));	/* owner 0 is nobody */
	assert_int_equal(irq_vector_owner(&o, 0x62), 0);
	assert_true(irq_vector_claim(&o, 0x62, 2));
	irq_vector_release(&o, 0x61, 2);		/* not its: nothing */
	irq_vector_release(&o, 0x61, 0);
	assert_int_equal(irq_vector_owner(&o, 0x61), 1);
	irq_vector_release(&o, 0x61, 1);
	assert_false(irq_vector_claim(&o, 0x61, 2));	/* one use left */
	irq_vector_release(&o, 0x61, 1);
	assert_int_equal(irq_vector_owner(&o, 0x61), 0);
	irq_vector_release(&o, 0x61, 1);		/* once too often: nothing */
	assert_int_equal(o.uses[0x61], 0);
	assert_true(irq_vector_claim(&o, 0x61, 2));
	/* a reset gives back all of a partition's, and no one else's */
	assert_true(irq_vector_claim(&o, 0xc0, 3));
	assert_true(irq_vector_claim(&o, 0xc1, 3));
	irq_vector_release_all(&o, 3);
	irq_vector_release_all(&o, 0);
	assert_int_equal(irq_vector_owner(&o, 0xc0), 0);
	assert_int_equal(irq_vector_owner(&o, 0xc1), 0);
	assert_int_equal(irq_vector_owner(&o, 0x61), 2);
	assert_int_equal(irq_vector_owner(&o, 0x62), 2);
	/* every vector, its count to the limit */
	for (uint32_t v = 0; v < 256; v++)
		assert_true(irq_vector_claim(&o, (uint8_t)v, 2));
	o.uses[0x70] = UINT16_MAX;
	assert_false(irq_vector_claim(&o, 0x70, 2));
	assert_int_equal(o.uses[0x70], UINT16_MAX);
}

/* The remappable form of Tempo's physical entries (VT-d spec 5.1.5.1), and what it refuses. */
static void test_rte_remap(void **state)
{
	const struct vtd_irte_req sentinel = { .dest_apic_id = 0xdead, .vector = 0x99 };
	const uint64_t live = 0x0600000000000000ull | IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW |
			      0x41;
	struct vtd_irte_req irte = sentinel;
	struct vtd_entry128 e;
	uint64_t out;

	(void)state;
	/* level, active low, to APIC 6: the entry keeps no destination, the IRTE has it */
	assert_true(irq_rte_remap(live, 17, 0x00f8, false, &out, &irte));
	assert_int_equal(out, IOAPIC_RTE_REMAPPABLE | 17ull << 49 | IOAPIC_RTE_LEVEL |
			 IOAPIC_RTE_ACTIVE_LOW | 0x41);
	assert_int_equal(irte.dest_apic_id, 6);
	assert_int_equal(irte.vector, 0x41);
	assert_true(irte.level);
	assert_int_equal(irte.source_id, 0x00f8);
	assert_false(irte.x2apic);
	/* the driver takes it: vector and trigger equal the entry's, source-id exact */
	assert_int_equal(vtd_irte_remapped(&irte, &e), VTD_OK);
	assert_int_equal((e.lo >> 16) & 0xff, 0x41);
	assert_true(e.lo & VTD_IRTE_TM);
	assert_int_equal((e.lo >> 40) & 0xff, 6);
	assert_int_equal(e.hi, VTD_IRTE_SVT_SID | 0x00f8);

	/* edge, active high, index with bit 15: bit 11 carries it; read-only bits not copied */
	assert_true(irq_rte_remap(0x0200000000000030ull | IOAPIC_RTE_REMOTE_IRR |
				  IOAPIC_RTE_DELIVERY_STATUS, 0x8005, 0x10, true, &out, &irte));
	assert_int_equal(out, IOAPIC_RTE_REMAPPABLE | 5ull << 49 | IOAPIC_RTE_INDEX15 | 0x30);
	assert_false(irte.level);
	assert_true(irte.x2apic);
	assert_int_equal(irte.dest_apic_id, 2);
	/* every index round-trips */
	for (uint32_t i = 0; i <= 0xffff; i += 0x1111) {
		assert_true(irq_rte_remap(0x30, (uint16_t)i, 0, false, &out, &irte));
		assert_int_equal(((out >> 49) & 0x7fff) | ((out >> 11) & 1) << 15, i);
	}

	/* masked: no IRTE needed, the kept vector and the trigger stay in the entry */
	irte = sentinel;
	assert_false(irq_rte_remap(live | IOAPIC_RTE_MASKED, 17, 0xf8, false, &out, &irte));
	assert_int_equal(out, IOAPIC_RTE_REMAPPABLE | 17ull << 49 | IOAPIC_RTE_LEVEL |
			 IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_MASKED | 0x41);
	assert_memory_equal(&irte, &sentinel, sizeof(irte));
}

/* An entry Tempo never writes live is masked and leaves the IRTE alone. */
static void test_rte_remap_hostile(void **state)
{
	static const uint64_t bad[] = {
		0x0200000000000000ull,	/* vector 0 */
		0x020000000000000full,	/* an exception vector */
		0x020000000000001full,	/* below 32 */
		0x0200000000000130ull,	/* lowest priority */
		0x0200000000000230ull,	/* SMI */
		0x0200000000000430ull,	/* NMI */
		0x0200000000000530ull,	/* INIT */
		0x0200000000000730ull,	/* ExtINT */
		0x0200000000000830ull,	/* logical destination */
	};
	const struct vtd_irte_req sentinel = { .dest_apic_id = 0xdead, .vector = 0x99 };
	struct vtd_irte_req irte;
	uint64_t out;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		irte = sentinel;
		assert_false(irq_rte_remap(bad[i] | IOAPIC_RTE_LEVEL, 3, 0xf8, false, &out, &irte));
		/* masked; no delivery mode, destination mode or destination leaks into it */
		assert_int_equal(out, IOAPIC_RTE_REMAPPABLE | 3ull << 49 | IOAPIC_RTE_LEVEL |
				 IOAPIC_RTE_MASKED | (bad[i] & 0xff));
		assert_memory_equal(&irte, &sentinel, sizeof(irte));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_physical, setup),
		cmocka_unit_test_setup(test_broadcast, setup),
		cmocka_unit_test_setup(test_vectors, setup),
		cmocka_unit_test_setup(test_delivery_modes, setup),
		cmocka_unit_test_setup(test_logical_flat, setup),
		cmocka_unit_test_setup(test_logical_cluster, setup),
		cmocka_unit_test_setup(test_wide_apic_id, setup),
		cmocka_unit_test_setup(test_apic_id_255, setup),
		cmocka_unit_test_setup(test_no_cpus, setup),
		cmocka_unit_test_setup(test_every_request, setup),
		cmocka_unit_test_setup(test_rte_decode, setup),
		cmocka_unit_test_setup(test_msi_decode, setup),
		cmocka_unit_test_setup(test_encodings, setup),
		cmocka_unit_test_setup(test_names, setup),
		cmocka_unit_test_setup(test_keep_vector, setup),
		cmocka_unit_test_setup(test_stop_eoi, setup),
		cmocka_unit_test_setup(test_vector_owners, setup),
		cmocka_unit_test_setup(test_rte_remap, setup),
		cmocka_unit_test_setup(test_rte_remap_hostile, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
