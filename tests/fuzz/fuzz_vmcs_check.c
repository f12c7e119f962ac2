// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the VMCS checker (hv/lib/vmcs_check.c) on any image.
 * The checker runs before every VM entry of a VMCS_CHECK build, so it must
 * never crash, loop or read outside the image, whatever the fields hold.
 * Small inputs damage a valid image Tempo builds (near-valid images reach
 * the rules that depend on others holding); long ones are the image.
 *
 * Input: [0] bit 7 set and the rest as long as the image: the rest is the
 * image; otherwise [0] % 5 picks the valid image (protected, SIPI, 64-bit
 * Linux, APIC virtualization, virtual-8086) and every three bytes after it
 * are a patch: a little-endian offset into the image and the byte to write.
 * It checks what hv/lib/vmcs_check.h promises (that the steady rules read
 * only the steady part, and that vmcs_check_since, remembering a check of
 * the valid image, answers for a patched one as vmcs_check does, among
 * them) and traps when a promise fails. ASan and UBSan catch the rest.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/lib/vmcs_check.h"
#include "tests/unit/vmcs_images.h"

static struct vmcs_image base_image(uint8_t pick)
{
	switch (pick % 5) {
	case 1:
		return img_sipi();
	case 2:
		return img_long64();
	case 3:
		return img_apicv();
	case 4:
		return img_v86();
	default:
		return img_protected();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmcs_image m;
	struct vmcs_image other;
	struct vmcs_check_result r, again, steady, per_entry;
	uint64_t flagged = 0;
	uint32_t kept;
	bool raw;

	if (size == 0)
		return 0;
	raw = (data[0] & 0x80) && size - 1 >= sizeof(m);
	if (raw) {
		memcpy(&m, data + 1, sizeof(m));
	} else {
		uint8_t *p = (uint8_t *)&m;

		m = base_image(data[0]);
		for (size_t i = 1; i + 3 <= size; i += 3)
			p[(data[i] | (size_t)data[i + 1] << 8) % sizeof(m)] = data[i + 2];
	}

	if (vmcs_check(&m, &r) != r.count)
		abort();
	kept = r.count < VMCS_CHECK_KEPT ? r.count : VMCS_CHECK_KEPT;
	for (uint32_t i = 0; i < kept; i++) {
		const struct vmcs_violation *v = &r.v[i];

		if (v->rule >= VMCS_RULE_COUNT || v->field >= VMCS_F_COUNT ||
		    v->field2 >= VMCS_F_COUNT || v->field == VMCS_F_NONE ||
		    !vmcs_check_broke(&r, (enum vmcs_rule)v->rule))
			abort();
		if (!vmcs_rule_desc(v->rule)->id[0] || !vmcs_field_name(v->field)[0])
			abort();
	}
	/* a rule flagged with no violation counted, or the other way round */
	for (size_t w = 0; w < sizeof(r.rules) / sizeof(r.rules[0]); w++)
		flagged |= r.rules[w];
	if ((r.count == 0) != (flagged == 0))
		abort();
	/* pure: the same image, the same answer */
	vmcs_check(&m, &again);
	if (!img_results_same(&r, &again))
		abort();
	/*
	 * The steady rules read only the steady part (vmx_check.c runs them
	 * only when it changed): the per-entry part overwritten with the
	 * input's bytes leaves their answer as it was.
	 */
	vmcs_check_parts(&m, &steady, VMCS_CHECK_STEADY);
	vmcs_check_parts(&m, &per_entry, VMCS_CHECK_PER_ENTRY);
	if (steady.count + per_entry.count != r.count)
		abort();
	for (size_t w = 0; w < sizeof(r.rules) / sizeof(r.rules[0]); w++)
		if ((steady.rules[w] | per_entry.rules[w]) != r.rules[w])
			abort();
	other = m;
	for (size_t b = VMCS_IMAGE_STEADY_END; b < sizeof(other); b++)
		((uint8_t *)&other)[b] ^= (uint8_t)(data[b % size] + b);
	vmcs_check_parts(&other, &again, VMCS_CHECK_STEADY);
	if (!img_results_same(&steady, &again))
		abort();
	/*
	 * vmcs_check_since, remembering a check of the valid image, on the
	 * damaged one: the parts left out (their inputs unchanged) change
	 * nothing in the answer.
	 */
	if (!raw) {
		struct vmcs_image base = base_image(data[0]);
		struct vmcs_check_memo memo = { 0 };

		if (vmcs_check_since(&base, &again, &memo, 0) != 0)
			abort();
		vmcs_check_since(&m, &again, &memo, img_same_parts(&base, &m));
		if (!img_results_same(&r, &again))
			abort();
	}
	return 0;
}
