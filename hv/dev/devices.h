/* SPDX-License-Identifier: MIT */
/*
 * A partition's own devices (docs/devices.md): ports and memory ranges
 * passed through (hv/dev/devices.c), IOAPIC inputs behind its virtual
 * IOAPIC (hv/dev/irqs.c).
 */
#ifndef TEMPO_HV_DEV_DEVICES_H
#define TEMPO_HV_DEV_DEVICES_H

#include <stddef.h>
#include <stdint.h>

struct partition;


/*
 * The end-of-run line of each partition with devices: DEVICES partition=
 * ports= port_exits= mmio= irqs= irq_path= irq_exits= irq_waited=
 * irq_filtered= irq_storms= irq_eois= (docs/devices.md).
 */
void devices_report(void);

/*
 * Let @p's guest reach ports [@first, @last] with no exit (its I/O bitmap,
 * made on first use), at build: ports = and an assigned function's I/O
 * BARs. -1 with @err for a port a device of its own already answers.
 */
int devices_pass_ports(struct partition *p, uint16_t first, uint16_t last, char *err,
		       size_t errlen);

/* irqs.c's keys of that line for @p ("" without inputs). */
void irqs_report_line(const struct partition *p, char *buf, size_t len);

#endif
