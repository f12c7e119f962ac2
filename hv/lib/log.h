/* SPDX-License-Identifier: MIT */
/* Console logging with levels; the level in force comes from loglevel=. */
#ifndef TEMPO_HV_LOG_H
#define TEMPO_HV_LOG_H

enum log_level {
	LOG_EMERG = 0,	/* always printed: fatal errors, exception dumps */
	LOG_ERR = 1,
	LOG_WARN = 2,
	LOG_INFO = 3,	/* default */
	LOG_DEBUG = 4,
};

/* The longest line one log_printf prints, newline and all (longer: cut, its newline kept). */
#define LOG_LINE_MAX 512

void log_set_level(int level);
int log_get_level(void);
void log_printf(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Raw console write of @n bytes, regardless of level (drivers/console.c). */
void console_write(const char *s, unsigned long n);

#define log_emerg(...) log_printf(LOG_EMERG, __VA_ARGS__)
#define log_err(...) log_printf(LOG_ERR, "ERROR: " __VA_ARGS__)
#define log_warn(...) log_printf(LOG_WARN, "WARNING: " __VA_ARGS__)
#define log_info(...) log_printf(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_printf(LOG_DEBUG, __VA_ARGS__)

#endif
