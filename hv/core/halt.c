// SPDX-License-Identifier: MIT
#include "hv/core/halt.h"

bool halt_partition_forever(const enum halt_view *views, uint32_t count)
{
	bool forever = false;

	for (uint32_t i = 0; i < count; i++) {
		if (views[i] == HALT_LIVE)
			return false;
		if (views[i] == HALT_FOREVER)
			forever = true;
	}
	return forever;
}
