// SPDX-License-Identifier: MIT
/* The partition hooks (hv/state/hooks.h), in the section linker.ld sorts by their order. */
#include "hv/state/hooks.h"

extern const struct part_hook __part_hooks_start[], __part_hooks_end[];

int part_hooks_init(struct partition *p, const struct hv_config *cfg, char *err, size_t errlen)
{
	for (const struct part_hook *h = __part_hooks_start; h < __part_hooks_end; h++)
		if (h->init && h->init(p, cfg, err, errlen))
			return -1;
	return 0;
}

void part_hooks_reset(struct partition *p)
{
	for (const struct part_hook *h = __part_hooks_start; h < __part_hooks_end; h++)
		if (h->reset)
			h->reset(p);
}

void part_hooks_stop(struct partition *p)
{
	for (const struct part_hook *h = __part_hooks_start; h < __part_hooks_end; h++)
		if (h->stop)
			h->stop(p);
}

void part_hooks_vcpu_reset(struct vcpu *v)
{
	for (const struct part_hook *h = __part_hooks_start; h < __part_hooks_end; h++)
		if (h->vcpu_reset)
			h->vcpu_reset(v);
}
