// SPDX-License-Identifier: MIT
/* Unit tests for hv/lib/fmt.c (the printk/snprintf formatter). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hv/lib/fmt.h"

/*
 * No format attribute: lets the tests hand the formatter the malformed or
 * non-standard formats the compiler would otherwise refuse.
 */
static int raw(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Format into a roomy buffer and compare with the expected literal. */
#define EXPECT(fn, want, ...) do {						\
	char b_[512];								\
	int n_;									\
	memset(b_, 0x5a, sizeof(b_));						\
	n_ = fn(b_, sizeof(b_), __VA_ARGS__);					\
	assert_string_equal(b_, want);						\
	assert_int_equal(n_, strlen(want));					\
} while (0)

#define EXPECT_FMT(want, ...) EXPECT(fmt_snprintf, want, __VA_ARGS__)
#define EXPECT_RAW(want, ...) EXPECT(raw, want, __VA_ARGS__)

/* Standard cases must also agree with the host C library. */
#define SAME_AS_LIBC(...) do {							\
	char a_[256], b_[256];							\
	int na_ = fmt_snprintf(a_, sizeof(a_), __VA_ARGS__);			\
	int nb_ = snprintf(b_, sizeof(b_), __VA_ARGS__);			\
	assert_string_equal(a_, b_);						\
	assert_int_equal(na_, nb_);						\
} while (0)

static void test_plain_text(void **state)
{
	(void)state;
	EXPECT_FMT("", "%s", "");
	EXPECT_RAW("", "");
	EXPECT_RAW("hello, world\n", "hello, world\n");
	EXPECT_FMT("100%", "100%%");
	EXPECT_FMT("%%", "%%%%");
}

static void test_signed(void **state)
{
	(void)state;
	EXPECT_FMT("0", "%d", 0);
	EXPECT_FMT("42", "%d", 42);
	EXPECT_FMT("-42", "%i", -42);
	EXPECT_FMT("2147483647", "%d", INT_MAX);
	EXPECT_FMT("-2147483648", "%d", INT_MIN);
	EXPECT_FMT("-9223372036854775808", "%ld", (long)INT64_MIN);
	EXPECT_FMT("-9223372036854775808", "%lld", (long long)INT64_MIN);
	EXPECT_FMT("9223372036854775807", "%lli", (long long)INT64_MAX);
	EXPECT_FMT("-1", "%zd", (ssize_t)-1);
	EXPECT_FMT("123456789012", "%zd", (ssize_t)123456789012LL);
	SAME_AS_LIBC("%d|%i|%ld|%lld", -7, 7, -70000000000L, 1LL << 40);
}

static void test_unsigned(void **state)
{
	(void)state;
	EXPECT_FMT("0", "%u", 0u);
	EXPECT_FMT("4294967295", "%u", UINT_MAX);
	EXPECT_FMT("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	EXPECT_FMT("18446744073709551615", "%lu", (unsigned long)UINT64_MAX);
	EXPECT_FMT("18446744073709551615", "%zu", (size_t)SIZE_MAX);
	EXPECT_FMT("ffffffffffffffff", "%llx", (unsigned long long)UINT64_MAX);
	EXPECT_FMT("FFFFFFFFFFFFFFFF", "%llX", (unsigned long long)UINT64_MAX);
	EXPECT_FMT("1777777777777777777777", "%llo", (unsigned long long)UINT64_MAX);
	EXPECT_FMT("deadbeef", "%x", 0xdeadbeefu);
	EXPECT_FMT("DEADBEEF", "%X", 0xdeadbeefu);
	EXPECT_FMT("755", "%o", 0755u);
	EXPECT_FMT("0", "%x", 0u);
	EXPECT_FMT("0", "%o", 0u);
	EXPECT_FMT("ff", "%zx", (size_t)255);
	/* Without 'l' only the int is consumed: the next argument stays aligned. */
	EXPECT_FMT("ffffffff 7", "%x %d", 0xffffffffu, 7);
	SAME_AS_LIBC("%u %x %X %o %lu %llx %zu", 3000000000u, 0xabcu, 0xabcu, 8u,
		     123456789UL, 0x123456789abcULL, (size_t)77);
}

static void test_char_string_percent(void **state)
{
	(void)state;
	EXPECT_FMT("x", "%c", 'x');
	EXPECT_FMT("[a][bc]", "[%c][%s]", 'a', "bc");
	EXPECT_RAW("(null)", "%s", (char *)NULL);
	EXPECT_RAW("[  (null)]", "[%8s]", (char *)NULL);
	EXPECT_FMT("%", "%%");
	EXPECT_FMT("a%b", "a%%b");
	SAME_AS_LIBC("%c%c%s%%", 'o', 'k', "!");
}

/* A NUL from %c counts as one character and lands in the buffer. */
static void test_char_nul(void **state)
{
	char b[8];
	int n;

	(void)state;
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "a%cb", 0);
	assert_int_equal(n, 3);
	assert_memory_equal(b, "a\0b\0", 4);

	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%3c|", 0);
	assert_int_equal(n, 4);
	assert_memory_equal(b, "  \0|\0", 5);

	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%-3c|", 0);
	assert_int_equal(n, 4);
	assert_memory_equal(b, "\0  |\0", 5);
}

static void test_pointer(void **state)
{
	(void)state;
	EXPECT_FMT("0x1234", "%p", (void *)0x1234);
	EXPECT_FMT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
	EXPECT_FMT("0x0", "%p", NULL);
	EXPECT_FMT("  0x1234", "%8p", (void *)0x1234);
	EXPECT_FMT("0x1234  |", "%-8p|", (void *)0x1234);
	EXPECT_RAW("0x0000000000001234", "%018p", (void *)0x1234);
}

static void test_width_and_flags(void **state)
{
	(void)state;
	EXPECT_FMT("   42", "%5d", 42);
	EXPECT_FMT("00042", "%05d", 42);
	EXPECT_FMT("-0042", "%05d", -42);
	EXPECT_FMT("  -42", "%5d", -42);
	EXPECT_FMT("42   |", "%-5d|", 42);
	EXPECT_FMT("-42  |", "%-5d|", -42);
	/* '-' wins over '0', as in C. */
	EXPECT_RAW("42   |", "%-05d|", 42);
	EXPECT_RAW("42   |", "%0-5d|", 42);
	EXPECT_FMT("12345", "%3d", 12345);
	EXPECT_FMT("000000ff", "%08x", 0xffu);
	EXPECT_FMT("0x00ff", "0x%04x", 0xffu);
	EXPECT_FMT("0000000000000000FFFF", "%020llX", 0xffffULL);
	EXPECT_FMT("   ab", "%5s", "ab");
	EXPECT_FMT("ab   |", "%-5s|", "ab");
	EXPECT_FMT("  z", "%3c", 'z');
	EXPECT_FMT("z  |", "%-3c|", 'z');
	EXPECT_RAW("%", "%5%");
	SAME_AS_LIBC("[%8d][%-8d][%08d][%08x][%-8s][%8s]", -5, 5, -5, 0xbeefu, "l", "r");
}

static void test_star_width(void **state)
{
	(void)state;
	EXPECT_FMT("    7", "%*d", 5, 7);
	EXPECT_FMT("7    |", "%*d|", -5, 7);
	EXPECT_FMT("00007", "%0*d", 5, 7);
	EXPECT_FMT("   ab", "%*s", 5, "ab");
	EXPECT_FMT("ab   |", "%*s|", -5, "ab");
	EXPECT_FMT("7", "%*d", 0, 7);
	SAME_AS_LIBC("[%*d][%*x][%-*s]", 6, -3, 4, 0xau, 3, "q");
}

static void test_precision_string(void **state)
{
	(void)state;
	EXPECT_FMT("abc", "%.3s", "abcdef");
	EXPECT_FMT("ab", "%.3s", "ab");
	EXPECT_FMT("", "%.0s", "abc");
	EXPECT_FMT("", "%.s", "abc");
	EXPECT_FMT("   ab", "%5.2s", "abcdef");
	EXPECT_FMT("ab   |", "%-5.2s|", "abcdef");
	EXPECT_FMT("abcd", "%.*s", 4, "abcdefgh");
	/* A negative '*' precision is taken as none, as in C. */
	EXPECT_FMT("abcdefgh", "%.*s", -1, "abcdefgh");
	EXPECT_RAW("(nu", "%.3s", (char *)NULL);
	SAME_AS_LIBC("[%.2s][%6.3s][%-6.1s][%.*s]", "xyz", "xyz", "xyz", 2, "xyz");
}

static void test_truncation(void **state)
{
	char b[8];
	int n;

	(void)state;
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%s", "0123456789");
	assert_int_equal(n, 10);
	assert_string_equal(b, "0123456");

	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%d-%d", 1234, 5678);
	assert_int_equal(n, 9);
	assert_string_equal(b, "1234-56");

	/* Exactly fitting output. */
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%s", "0123456");
	assert_int_equal(n, 7);
	assert_string_equal(b, "0123456");

	/* Size 1: only the terminator. */
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, 1, "%s", "abc");
	assert_int_equal(n, 3);
	assert_int_equal(b[0], 0);
	assert_int_equal((unsigned char)b[1], 0x5a);

	/* Size 0: nothing written, not even the terminator; NULL is fine. */
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, 0, "%s", "abc");
	assert_int_equal(n, 3);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal((unsigned char)b[i], 0x5a);
	n = fmt_snprintf(NULL, 0, "%d %s", -12345, "xyz");
	assert_int_equal(n, 10);

	/* Wide padding counts fully in the return value. */
	memset(b, 0x5a, sizeof(b));
	n = fmt_snprintf(b, sizeof(b), "%300d", 1);
	assert_int_equal(n, 300);
	assert_string_equal(b, "       ");
}

/* Exact-size buffers: the formatter must stop at size - 1 and terminate there. */
static void test_truncation_every_size(void **state)
{
	const char *want = "id=-17 name=cpu0 addr=0xfee00000";

	(void)state;
	for (size_t size = 0; size <= strlen(want) + 1; size++) {
		char *b = malloc(size ? size : 1);
		int n;

		assert_non_null(b);
		n = fmt_snprintf(size ? b : NULL, size, "id=%d name=%s addr=0x%x", -17, "cpu0",
				 0xfee00000u);
		assert_int_equal(n, strlen(want));
		if (size) {
			assert_int_equal(strlen(b), size - 1);
			assert_memory_equal(b, want, size - 1);
		}
		free(b);
	}
}

static void test_unknown_conversion(void **state)
{
	(void)state;
	EXPECT_RAW("%q", "%q");
	EXPECT_RAW("a%qb", "a%qb");
	EXPECT_RAW("%5q", "%5q");
	EXPECT_RAW("%-08q", "%-08q");
	EXPECT_RAW("%lq", "%lq");
	EXPECT_RAW("%llq", "%llq");
	EXPECT_RAW("%zq", "%zq");
	/* Unsupported flag: echoed, and no argument is consumed. */
	EXPECT_RAW("%+d 7", "%+d %d", 7);
	/* The argument after an unknown conversion is still the next one used. */
	EXPECT_RAW("%y 5", "%y %d", 5);
}

static void test_trailing_percent(void **state)
{
	(void)state;
	EXPECT_RAW("%", "%");
	EXPECT_RAW("abc%", "abc%");
	EXPECT_RAW("abc%-", "abc%-");
	EXPECT_RAW("abc%0", "abc%0");
	EXPECT_RAW("abc%12", "abc%12");
	EXPECT_RAW("abc%l", "abc%l");
	EXPECT_RAW("abc%ll", "abc%ll");
	EXPECT_RAW("abc%z", "abc%z");
	EXPECT_RAW("abc%.", "abc%.");
	EXPECT_RAW("abc%5.2", "abc%5.2");
	EXPECT_RAW("7%", "%d%", 7);
}

/*
 * "%.Ns" must not read past the N-th byte: the array need not be
 * NUL-terminated (C11 7.21.6.1p8). The array here is exactly 3 bytes on the
 * heap, so any read of a 4th byte is an ASan heap-buffer-overflow.
 */
static void test_precision_unterminated(void **state)
{
	char *s = malloc(3);
	char b[16];
	int n;

	(void)state;
	assert_non_null(s);
	memcpy(s, "abc", 3);
	n = fmt_snprintf(b, sizeof(b), "[%.3s]", s);
	assert_int_equal(n, 5);
	assert_string_equal(b, "[abc]");
	n = fmt_snprintf(b, sizeof(b), "[%.*s]", 2, s);
	assert_int_equal(n, 4);
	assert_string_equal(b, "[ab]");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_char_string_percent),
		cmocka_unit_test(test_char_nul),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_width_and_flags),
		cmocka_unit_test(test_star_width),
		cmocka_unit_test(test_precision_string),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_truncation_every_size),
		cmocka_unit_test(test_unknown_conversion),
		cmocka_unit_test(test_trailing_percent),
		cmocka_unit_test(test_precision_unterminated),
	};

	return cmocka_run_group_tests_name("fmt", tests, NULL, NULL);
}
