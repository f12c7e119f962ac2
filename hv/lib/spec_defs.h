/* SPDX-License-Identifier: MIT */
/*
 * Speculation-control constants, definitions only (safe in assembly): the
 * core's plan (hv/core/spec.c) names what VM entry does with them and
 * arch/x86/vmx_entry.S does it.
 */
#ifndef TEMPO_HV_LIB_SPEC_DEFS_H
#define TEMPO_HV_LIB_SPEC_DEFS_H

/* What VM entry does before VMLAUNCH/VMRESUME (spec_entry_mode) */
#define SPEC_ENTRY_NONE		0
#define SPEC_ENTRY_L1D_FLUSH	1	/* IA32_FLUSH_CMD.L1D_FLUSH: L1TF, buffers too */
#define SPEC_ENTRY_VERW		2	/* VERW with MD_CLEAR: MDS / TAA buffers */

/* Write-only command MSRs: only bit 0 is defined (SDM Vol. 4 Table 2-2) */
#define PRED_CMD_IBPB		(1 << 0)	/* IA32_PRED_CMD (0x49) */
#define FLUSH_CMD_L1D		(1 << 0)	/* IA32_FLUSH_CMD (0x10B) */

#endif
