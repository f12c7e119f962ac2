// SPDX-License-Identifier: MIT
#include "hv/core/cmdline.h"

#include "hv/lib/lib.h"

bool cmdline_get(const char *cmdline, const char *key, char *val, size_t val_size)
{
	size_t klen = strlen(key);
	bool found = false;
	const char *p = cmdline;

	if (!cmdline || !klen)
		return false;
	while (*p) {
		const char *w, *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		end = p;
		if ((size_t)(end - w) >= klen && !memcmp(w, key, klen) &&
		    (w + klen == end || w[klen] == '=')) {
			const char *v = w + klen == end ? end : w + klen + 1;
			size_t n = end - v;

			found = true;
			if (val_size) {
				bool cut = n >= val_size;

				if (cut)
					n = val_size - 1;
				memcpy(val, v, n);
				val[n] = 0;
				/* "test=vmcs_break_regsX" must not read as vmcs_break_regs */
				if (cut && n)
					val[n - 1] = '~';
			}
		}
	}
	return found;
}

bool cmdline_get_uint(const char *cmdline, const char *key, unsigned long *out)
{
	char buf[24];
	unsigned long v = 0;

	if (!cmdline_get(cmdline, key, buf, sizeof(buf)) || !buf[0])
		return false;
	for (const char *p = buf; *p; p++) {
		unsigned long d = (unsigned long)(*p - '0');

		if (*p < '0' || *p > '9' || v > (~0ul - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

enum cmdline_reboot_result cmdline_reboot_delay(const char *cmdline, unsigned long *delay_s)
{
	unsigned long v;

	*delay_s = CMDLINE_REBOOT_DEFAULT_S;
	if (!cmdline_get(cmdline, "reboot", NULL, 0))
		return CMDLINE_REBOOT_DEFAULT;
	if (!cmdline_get_uint(cmdline, "reboot", &v) || v > CMDLINE_REBOOT_MAX_S)
		return CMDLINE_REBOOT_MALFORMED;
	*delay_s = v;
	return CMDLINE_REBOOT_GIVEN;
}
