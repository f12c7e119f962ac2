/* SPDX-License-Identifier: MIT */
/* Constants shared by the fuzzer's assembly and C. */
#ifndef TEMPO_GUESTS_FUZZ_LAYOUT_H
#define TEMPO_GUESTS_FUZZ_LAYOUT_H

#define FZ_CS32		0x08
#define FZ_DS		0x10
#define FZ_CS64		0x18
#define FZ_STACK_SIZE	0x8000
#define FZ_STUB_SIZE	16

#endif
