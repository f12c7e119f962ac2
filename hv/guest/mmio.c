// SPDX-License-Identifier: MIT
/*
 * Trapped MMIO: an EPT violation on a page a device model answers for (a
 * channel function's BAR0 today). The exit gives the guest-physical address
 * and the direction, not the data: the instruction is fetched through the
 * guest's own page tables (hv/core/guest_walk.c) and decoded
 * (hv/core/mmio_decode.c); only plain MOVs are emulated, anything else
 * stops the partition with what was found. Every value the guest chose (its
 * page tables, the bytes at RIP, the register) is read through checked
 * helpers; nothing here dereferences a guest address.
 */
#include "hv/guest/mmio.h"

#include "hv/core/guest_walk.h"
#include "hv/core/mmio_decode.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/guest/inject.h"
#include "hv/guest/insn.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

/* EPT-violation exit qualification (SDM Vol. 3C 28.2.1, table 28-7) */
#define EPT_Q_READ		(1ull << 0)
#define EPT_Q_WRITE		(1ull << 1)
#define EPT_Q_FETCH		(1ull << 2)
#define EPT_Q_GLA_VALID		(1ull << 7)
#define EPT_Q_GLA_TRANSLATED	(1ull << 8)	/* the access itself, not a paging-structure read */

#define CS_AR_L			(1u << 13)
#define CS_AR_DB		(1u << 14)

/*
 * The bytes of the device's part the next call takes: an access within one
 * page is one transaction, as the CPU makes it (a read-to-clear register is
 * read once); the device's part of a page-crossing one goes in naturally
 * aligned pieces (hv/core/mmio_decode.h).
 */
static uint32_t mmio_piece_bytes(const void *ram, uint64_t gpa, uint32_t left)
{
	return ram ? mmio_chunk_bytes(gpa, left) : left;
}

static uint64_t low_bytes_mask(uint32_t n)
{
	return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
}

static bool guest_ram_read(void *ctx, uint64_t gpa, void *dst, uint32_t len)
{
	const void *src = gpa_to_hva((const struct partition *)ctx, gpa, len);

	if (!src)
		return false;
	memcpy(dst, src, len);
	return true;
}

static void paging_of_guest(struct guest_paging *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->cr0 = vmread(VMCS_GUEST_CR0);
	pg->cr3 = vmread(VMCS_GUEST_CR3);
	pg->cr4 = vmread(VMCS_GUEST_CR4);
	pg->efer = vmread(VMCS_GUEST_EFER);
	/* PAE under EPT: the CPU uses the PDPTEs it loaded into the VMCS (SDM 28.3.1.6) */
	if ((pg->cr0 & GW_CR0_PG) && (pg->cr4 & GW_CR4_PAE) && !(pg->efer & GW_EFER_LMA)) {
		pg->pdpte_valid = true;
		for (uint32_t i = 0; i < 4; i++)
			pg->pdpte[i] = vmread(VMCS_GUEST_PDPTE0 + 2 * i);
	}
}

static enum exit_action refuse(struct exit_ctx *x, uint64_t gpa, const char *why)
{
	fmt_snprintf(x->detail_buf, sizeof(x->detail_buf), "gpa=0x%lx %s", gpa, why);
	return exit_stop(x, "mmio", vmread(VMCS_EXIT_QUALIFICATION), x->detail_buf);
}

enum exit_action mmio_emulate(struct vcpu *v, struct exit_ctx *x, uint64_t gpa,
			      const struct mmio_device *dev)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint32_t cs_ar = (uint32_t)vmread(VMCS_GUEST_CS_AR);
	uint64_t rip = vmread(VMCS_GUEST_RIP), linear, intr, next_rip, seg_base, start, dev_gpa;
	uint64_t regs[16];
	uint32_t first, dev_off, dev_len, ram_off = 0;
	uint8_t *ram = NULL;
	struct guest_mem mem = { guest_ram_read, v->part };
	struct guest_paging pg;
	struct mmio_access a;
	enum mmio_cpu_mode mode;
	enum mmio_decode_result r;
	struct gw_walk stop;
	uint8_t insn[X86_INSN_MAX_BYTES];
	uint32_t got;

	/*
	 * Only the final access of an instruction is emulated: not a fetch
	 * from the device, not the guest's page walk through it, not an
	 * access made while delivering an event (pushing a frame onto a
	 * stack there).
	 */
	if (q & EPT_Q_FETCH)
		return refuse(x, gpa, "instruction fetch from a device");
	if ((q & (EPT_Q_GLA_VALID | EPT_Q_GLA_TRANSLATED)) !=
	    (EPT_Q_GLA_VALID | EPT_Q_GLA_TRANSLATED))
		return refuse(x, gpa, "page-table walk through a device");
	if (vmread(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID)
		return refuse(x, gpa, "access during event delivery");
	paging_of_guest(&pg);
	mode = mmio_cpu_mode(pg.efer & GW_EFER_LMA, cs_ar & CS_AR_L, cs_ar & CS_AR_DB);
	linear = mode == MMIO_CPU_64 ? rip : (vmread(VMCS_GUEST_CS_BASE) + rip) & 0xffffffffull;
	got = guest_fetch(&pg, &mem, linear, GW_ACCESS_FETCH | (guest_cpl() == 3 ? GW_ACCESS_USER : 0),
			  insn, sizeof(insn), &stop);
	r = mmio_decode(insn, got, mode, &a);
	if (r != MMIO_DECODE_OK) {
		fmt_snprintf(x->detail_buf, sizeof(x->detail_buf), "gpa=0x%lx insn %s (%u bytes read)",
			     gpa, mmio_decode_result_name(r), got);
		return exit_stop(x, "mmio", q, x->detail_buf);
	}
	if (a.store != !!(q & EPT_Q_WRITE))
		return refuse(x, gpa, "the instruction and the exit disagree on the direction");
	next_rip = rip + a.insn_bytes;
	if (mode != MMIO_CPU_64)
		next_rip &= mode == MMIO_CPU_32 ? 0xffffffffull : 0xffffull;
	for (uint32_t i = 0; i < 16; i++)
		regs[i] = read_gpr(v, i);
	/* 64-bit mode adds only FS's and GS's bases (SDM Vol. 3A 3.4.4) */
	seg_base = mode == MMIO_CPU_64 && a.seg < 4 ? 0 : vmread(VMCS_GUEST_ES_BASE + 2 * a.seg);
	start = seg_base + mmio_effective_address(&a, regs, next_rip);
	if (mode != MMIO_CPU_64)
		start &= 0xffffffffull;
	/*
	 * The exit's linear address (valid with bit 7) is a byte of the
	 * operand, in the page the exit's GPA is in; an access that crosses
	 * into another page is split there as the CPU splits it: the device's
	 * bytes go to the device, the others to guest RAM through the guest's
	 * own page walk (hv/core/guest_walk.c). Not RAM there (a second device,
	 * nothing mapped): refused.
	 */
	linear = vmread(VMCS_GUEST_LINEAR_ADDR);
	if (linear - start >= a.size_bytes || (linear & (PAGE_SIZE - 1)) != (gpa & (PAGE_SIZE - 1)))
		return refuse(x, gpa, "the exit's linear address is not the instruction's operand");
	first = PAGE_SIZE - (start & (PAGE_SIZE - 1));
	if (first >= a.size_bytes) {
		dev_off = 0, dev_len = a.size_bytes;
	} else if (linear - start < first) {
		dev_off = 0, dev_len = first;		/* device, then the next page */
		ram_off = first;
	} else {
		/* a page, then the device */
		dev_off = first, dev_len = a.size_bytes - first;
		ram_off = 0;
	}
	dev_gpa = gpa - (linear - start - dev_off);
	if (dev_len != a.size_bytes) {
		struct gw_walk w;
		uint32_t access = (a.store ? GW_ACCESS_WRITE : 0) |
				  (guest_cpl() == 3 ? GW_ACCESS_USER : 0);
		uint64_t ram_linear = start + ram_off;

		if (mode != MMIO_CPU_64)
			ram_linear &= 0xffffffffull;
		if (guest_walk(&pg, &mem, ram_linear, access, &w) != GW_OK)
			return refuse(x, gpa, "the other page of a page-crossing access does not translate");
		ram = gpa_to_hva(v->part, w.gpa, a.size_bytes - dev_len);
		if (!ram)
			return refuse(x, gpa, "an access crosses from a device into a page not RAM");
	}
	if (a.store) {
		uint64_t value = a.src_imm ? a.imm : mmio_store_value(&a, read_gpr(v, a.reg));

		if (ram)
			memcpy(ram, (uint8_t *)&value + ram_off, a.size_bytes - dev_len);
		for (uint32_t o = 0, n; o < dev_len; o += n) {
			n = mmio_piece_bytes(ram, dev_gpa + o, dev_len - o);
			dev->write(v, dev->ctx, dev_gpa + o, (uint8_t)n,
				   (value >> (8 * (dev_off + o))) & low_bytes_mask(n));
		}
	} else {
		uint64_t data = 0, reg;

		if (ram)
			memcpy((uint8_t *)&data + ram_off, ram, a.size_bytes - dev_len);
		for (uint32_t o = 0, n; o < dev_len; o += n) {
			n = mmio_piece_bytes(ram, dev_gpa + o, dev_len - o);
			uint64_t piece = dev->read(v, dev->ctx, dev_gpa + o, (uint8_t)n);

			data |= (piece & low_bytes_mask(n)) << (8 * (dev_off + o));
		}
		reg = mmio_load_apply(&a, read_gpr(v, a.reg), data);
		if ((a.reg & 15) == 4)
			vmwrite(VMCS_GUEST_RSP, reg);
		else
			*gpr(v, a.reg) = reg;
	}
	vmwrite(VMCS_GUEST_RIP, next_rip);
	/* the emulated instruction ends STI / MOV SS blocking (SDM 25.4.2) */
	intr = vmread(VMCS_GUEST_INTERRUPTIBILITY);
	if (intr & 3)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY, intr & ~3ull);
	emulated_access_trap(a.store ? DT_ACCESS_WRITE : DT_ACCESS_READ, start, a.size_bytes);
	return EXIT_RESUME;
}
