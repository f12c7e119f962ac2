/* SPDX-License-Identifier: MIT */
/*
 * A partition's virtual PCI bus 0 (hv/core/chan_pci_abi.h): configuration
 * mechanism #1 at ports 0xCF8-0xCFF, a host bridge at 00:00.0 and one
 * function per channel at 00:N.0, N = the channel's local index + 1. Pure:
 * the hypervisor traps the ports, calls vpci_io_read() / vpci_io_write(),
 * and acts on the event a write returns (maps BAR2 where the guest moved
 * it, routes doorbells to the MSI the guest programmed).
 *
 * Ports (PCI Local Bus 3.0, 3.2.2.3.2). Only a 32-bit access to 0xCF8 is
 * CONFIG_ADDRESS; a PC passes narrower accesses to 0xCF8-0xCFB on to other
 * devices (0xCF9 byte-wide is the reset control register, hv/core/io_policy.h),
 * so vpci_claims() says which accesses are the bus's and the hypervisor
 * sends the rest where its I/O table says. CONFIG_ADDRESS keeps bit 31
 * (enable), bus 23:16, device 15:11, function 10:8 and register 7:2; bits
 * 30:24 and 1:0 read 0. CONFIG_DATA is 0xCFC-0xCFF, register + (port & 3),
 * 1, 2 or 4 bytes that stay inside the dword. Enable off, a bus other than 0,
 * a device with nothing there, a function other than 0, or a malformed
 * access: reads all ones, writes are dropped.
 *
 * The channel function's header (type 0; offsets 0x00-0xFF, no extended
 * space): the ABI's IDs, class and revision; command with only memory
 * space (bit 1, on at reset as firmware leaves a device it placed) and bus
 * master (bit 2) writable; status with the capability list bit (4); BAR0
 * 32-bit non-prefetchable, TEMPO_PCI_BAR0_SIZE; BAR1 0; BAR2/BAR3 one
 * 64-bit prefetchable BAR, the channel's size rounded up to a power of two;
 * BAR4/5, expansion ROM and CardBus CIS 0; capabilities pointer
 * TEMPO_PCI_CHAN_MSI_CAP; interrupt pin 0 (no INTx), interrupt line a
 * read/write byte with no effect (3.0, 6.2.4). BARs size as 3.0, 6.2.5.1
 * says: the read-only low bits (type, prefetchable, and the address bits
 * below the size) read back as they are, so writing all ones reads back the
 * size mask. Every other field is read-only; a 1- or 2-byte write changes
 * only its own bytes.
 *
 * The MSI capability (3.0, 6.8.1), 14 bytes: ID 0x05, next 0; message
 * control with 64-bit address capable (bit 7), one vector (MMC 0; MME
 * reads 0, since only one is offered), no per-vector masking, and the
 * enable bit (0) the only writable one; message address (bits 1:0 read 0),
 * upper address, and a 16-bit message data.
 *
 * Concurrency. The bus is the partition's: the hypervisor serialises the
 * accesses of its vCPUs (a per-partition lock around each vpci_io_write()
 * and the action on its event; Linux takes pci_config_lock itself, but a
 * hostile guest need not). The one thing another core reads is the MSI
 * route, vpci_msi_target(): each write that changes it publishes it with
 * a release store, so a sender's core may read it while the receiver's
 * vCPU reprograms it (it then sees the old route or the new one, never a
 * mix).
 */
#ifndef TEMPO_HV_CORE_VPCI_H
#define TEMPO_HV_CORE_VPCI_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/core/chan_pci_abi.h"
#include "hv/lib/pci_defs.h"

#define VPCI_MAX_CHANNELS	8	/* CONFIG_MAX_CHANNELS: devices 1..8 */
#define VPCI_PORT_FIRST		TEMPO_PCI_CF8
#define VPCI_PORT_LAST		(TEMPO_PCI_CFC + 3)

/* CONFIG_ADDRESS (PCI 3.0, 3.2.2.3.2, figure 3-2) */
#define VPCI_CF8_ENABLE		0x80000000u
#define VPCI_CF8_MASK		0x80fffffcu	/* what the latch keeps: bits 30:24, 1:0 read 0 */
#define VPCI_BDF(bus, dev, fn)	PCI_BDF(bus, dev, fn)

/* What the hypervisor fills in at build, one per channel of the partition. */
struct vpci_chan_desc {
	uint64_t size;		/* the channel's bytes (4 KiB or more) */
	uint64_t bar2_gpa;	/* where this peer sees it: BAR2 at reset. Must be aligned to
				 * the BAR's size (size rounded up to a power of two) */
};

struct vpci_fn {
	uint16_t command;	/* PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER at most */
	uint8_t interrupt_line;
	uint32_t bar0;		/* BAR0's address bits (31:12) */
	uint64_t bar2;		/* BAR2/BAR3's address bits (63:log2 of bar2_size) */
	uint64_t bar2_size;	/* a power of two */
	uint16_t msi_control;	/* PCI_MSI_FLAGS_ENABLE or 0 */
	uint32_t msi_address_lo;	/* bits 1:0 clear */
	uint32_t msi_address_hi;
	uint16_t msi_data;
	uint32_t msi_route;	/* published for other cores: see vpci_msi_target() */
};

struct vpci_bus {
	uint32_t config_address;	/* the 0xCF8 latch, VPCI_CF8_MASK bits */
	uint32_t chan_count;		/* functions at devices 1..chan_count */
	struct vpci_chan_desc desc[VPCI_MAX_CHANNELS];	/* for vpci_reset() */
	struct vpci_fn fn[VPCI_MAX_CHANNELS];	/* fn[i] is device i + 1 */
};

/* Where a BAR is and whether it decodes (the guest-physical range is live). */
struct vpci_window {
	uint64_t gpa;
	uint64_t size;
	bool decodes;
};

/*
 * What a config write changed, for the hypervisor to act on. A BAR's bit is
 * set when the range it decodes changed: decoding went on or off, or the
 * address moved while it decodes. A BAR moved while memory decode is off
 * (Linux sizes BARs that way) is no event; turning decode back on is, with
 * the address then current. VPCI_EV_MSI: a message control, address or
 * data register changed value, or the route vpci_msi_target() gives did
 * (bus master going on or off changes it too).
 */
#define VPCI_EV_BAR0	(1u << 0)
#define VPCI_EV_BAR2	(1u << 1)
#define VPCI_EV_MSI	(1u << 2)

struct vpci_event {
	uint32_t changed;	/* VPCI_EV_*; 0: nothing for the hypervisor to do */
	uint32_t chan;		/* the function's channel (local index = device - 1) */
	struct vpci_window bar0_was, bar0;	/* before and after the write */
	struct vpci_window bar2_was, bar2;
};

/*
 * The bus at reset: the host bridge and @count channel functions from
 * @chans (BAR0 of channel i at TEMPO_PCI_BAR0_BASE + i * TEMPO_PCI_BAR0_SIZE,
 * BAR2 at the desc's bar2_gpa, memory decode on, MSI off), every BAR
 * decoding. False, with the bus left empty (the host bridge only), for more
 * than VPCI_MAX_CHANNELS, a size under 4 KiB, or a bar2_gpa that is 0, not
 * aligned to the BAR's size, too close to 2^64 for the BAR to fit, or one
 * at which the BAR reads as a sizing probe (see vpci_bar2()).
 */
bool vpci_init(struct vpci_bus *b, const struct vpci_chan_desc *chans, uint32_t count);

/* Back to the state vpci_init() left (a partition restart). */
void vpci_reset(struct vpci_bus *b);

/* Is an access of @size bytes at @port the bus's (else it is some other device's)? */
bool vpci_claims(uint16_t port, uint8_t size);

/* An IN of @size (1, 2 or 4) bytes from @port; all ones where nothing answers. */
uint32_t vpci_io_read(const struct vpci_bus *b, uint16_t port, uint8_t size);

/*
 * An OUT of @value (@size bytes) to @port. Fills *@ev (always) and returns
 * ev->changed.
 */
uint32_t vpci_io_write(struct vpci_bus *b, uint16_t port, uint8_t size, uint32_t value,
		       struct vpci_event *ev);

/*
 * Which function and register an access of @size bytes to CONFIG_DATA at
 * @port reaches through the latch now: true with *@bdf and *@offset (the
 * register plus port & 3), false for CONFIG_ADDRESS itself, an access the
 * bus does not claim, or the enable bit off. For a caller that puts
 * other functions on the bus (an assigned device's, hv/core/pci_assign.h)
 * beside the channels: it sends the access there instead of to
 * vpci_io_read() / vpci_io_write().
 */
bool vpci_data_target(const struct vpci_bus *b, uint16_t port, uint8_t size, uint32_t *bdf,
		       uint32_t *offset);

/*
 * Configuration space by address, as CONFIG_DATA reaches it (and as a
 * memory-mapped mechanism would): @bdf from VPCI_BDF(), @offset 0..0xFF,
 * @size 1, 2 or 4 inside one dword. Anything else reads all ones (cut to
 * @size) and writes nothing.
 */
uint32_t vpci_config_read(const struct vpci_bus *b, uint32_t bdf, uint32_t offset, uint8_t size);
uint32_t vpci_config_write(struct vpci_bus *b, uint32_t bdf, uint32_t offset, uint8_t size,
			   uint32_t value, struct vpci_event *ev);

/*
 * BAR0 and BAR2 now. A BAR decodes when memory space is on and it is not 0
 * and not in the middle of a sizing probe: a dword (of the two, for BAR2)
 * that holds all of its writable bits set is taken for a probe. So BAR2 of
 * size S at an address whose low dword is ~(S - 1) (the last S bytes below
 * a 4 GiB boundary: 4 KiB at 0x1FFFFF000, 1 GiB at 7 GiB) never decodes;
 * vpci_init() refuses such an address, and the config places none there.
 */
struct vpci_window vpci_bar0(const struct vpci_fn *f);
struct vpci_window vpci_bar2(const struct vpci_fn *f);

/*
 * The interrupt a doorbell to this function raises: true with the vector,
 * the 8-bit destination (address bits 19:12) and its mode (address bit 2:
 * logical) when bus master is on (an MSI is a memory write the function
 * makes: PCI 3.0, 6.2.2; a Linux driver calls pci_set_master()), MSI is on,
 * and the message is an interrupt Tempo delivers:
 * address 0xFEExxxxx with upper address 0 and bits 11:4 clear (no extended
 * destination ID is offered), delivery mode (data 10:8) fixed or lowest
 * priority (delivered as fixed to the destination), and a vector a channel
 * may bind (TEMPO_CHANNEL_VECTOR_MIN..MAX, hv/core/hypercall_abi.h; Tempo's
 * own are refused as the bind hypercall refuses them). The trigger mode
 * bits are ignored: it is an edge. False otherwise: the doorbell is dropped
 * and counted. Safe from any core (an acquire load of what the last
 * config write that changed it published).
 */
bool vpci_msi_target(const struct vpci_fn *f, uint8_t *vector, uint8_t *dest, bool *logical);

/*
 * The channel whose BAR0 decodes @gpa (its local index, with the offset
 * into BAR0 in *@offset), or -1. The lowest index wins where a guest has
 * put two BAR0s on top of each other.
 */
int32_t vpci_find_bar0(const struct vpci_bus *b, uint64_t gpa, uint32_t *offset);

/* BAR2's size for a channel of @size bytes: a power of two, at least 4 KiB; 0 past 2^63. */
uint64_t vpci_bar2_size(uint64_t size);

#endif
