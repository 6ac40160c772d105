/* vs_escape_controls and vs_escape_bytes (common/error.c): what a
 * message may carry to the terminal and the results file. Control
 * characters and bytes that are not UTF-8 become visible escapes;
 * well-formed UTF-8 stays. Expected strings are written out by hand from
 * RFC 3629's table. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

static const char *escaped(const char *in)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s", in);
	vs_escape_controls(buf, sizeof buf);
	return buf;
}

START_TEST(controls_become_escapes)
{
	ck_assert_str_eq(escaped("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
	ck_assert_str_eq(escaped("x\ny\tz\x7f"), "x\\ny\\tz\\x7f");
}
END_TEST

START_TEST(utf8_kept_other_bytes_escaped)
{
	/* kept: 2-, 3- and 4-byte forms (deg sign, euro sign, U+1F697) */
	ck_assert_str_eq(escaped("45\xc2\xb0 \xe2\x82\xac \xf0\x9f\x9a\x97"),
	                 "45\xc2\xb0 \xe2\x82\xac \xf0\x9f\x9a\x97");
	/* a plugin's bytes that are not UTF-8 */
	ck_assert_str_eq(escaped("\xff\xfe ok"), "\\xff\\xfe ok");
	/* overlong '/', a surrogate, past U+10FFFF, a lone continuation */
	ck_assert_str_eq(escaped("\xc0\xaf"), "\\xc0\\xaf");
	ck_assert_str_eq(escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	ck_assert_str_eq(escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	ck_assert_str_eq(escaped("a\x80"), "a\\x80");
	/* a sequence cut short by the end of the text */
	ck_assert_str_eq(escaped("b\xe2\x82"), "b\\xe2\\x82");
}
END_TEST

/* C1 controls (U+0080 to U+009F) are well-formed UTF-8 a terminal acts
 * on (U+009B CSI as ESC [), the bidirectional overrides and isolates
 * show what follows in another order: each escaped as its bytes. Their
 * neighbours stay: U+00A0, U+2029, U+202F, U+2065, U+206A. */
START_TEST(c1_and_bidi_escaped)
{
	ck_assert_str_eq(escaped("\xc2\x80" "a\xc2\x85" "b\xc2\x9b" "2J\xc2\x9f"),
	                 "\\xc2\\x80a\\xc2\\x85b\\xc2\\x9b" "2J\\xc2\\x9f");
	ck_assert_str_eq(escaped("\xc2\xa0"), "\xc2\xa0");
	ck_assert_str_eq(escaped("x\xe2\x80\xaay\xe2\x80\xaez"),
	                 "x\\xe2\\x80\\xaay\\xe2\\x80\\xaez");
	ck_assert_str_eq(escaped("\xe2\x81\xa6" "a\xe2\x81\xa9"),
	                 "\\xe2\\x81\\xa6" "a\\xe2\\x81\\xa9");
	ck_assert_str_eq(escaped("\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5"
	                         "\xe2\x81\xaa"),
	                 "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
	char buf[64];
	ck_assert_uint_eq(vs_escape_bytes(buf, sizeof buf, "\xc2\x9b", 2), 8);
	ck_assert_str_eq(buf, "\\xc2\\x9b");
}
END_TEST

START_TEST(truncated_to_fit)
{
	char buf[8] = "\x01\x02\x03";
	vs_escape_controls(buf, sizeof buf);
	ck_assert_str_eq(buf, "\\x01");
}
END_TEST

/* By length: a NUL is one more control character, and a sequence the
 * length cuts short is not UTF-8 (the bytes past it are not read). */
START_TEST(bytes_by_length)
{
	char buf[64];
	ck_assert_uint_eq(vs_escape_bytes(buf, sizeof buf, "a\0\x1b", 3), 9);
	ck_assert_str_eq(buf, "a\\x00\\x1b");
	vs_escape_bytes(buf, sizeof buf, "b\xe2\x82\xac", 3);
	ck_assert_str_eq(buf, "b\\xe2\\x82");
	vs_escape_bytes(buf, sizeof buf, "b\xe2\x82\xac", 4);
	ck_assert_str_eq(buf, "b\xe2\x82\xac");
	/* truncated to fit, never inside an escape */
	ck_assert_uint_eq(vs_escape_bytes(buf, 6, "\0\0", 2), 4);
	ck_assert_str_eq(buf, "\\x00");
}
END_TEST

TCase *escape_tcase(void);
TCase *escape_tcase(void)
{
	TCase *tc = tcase_create("escape");
	tcase_add_test(tc, controls_become_escapes);
	tcase_add_test(tc, utf8_kept_other_bytes_escaped);
	tcase_add_test(tc, c1_and_bidi_escaped);
	tcase_add_test(tc, truncated_to_fit);
	tcase_add_test(tc, bytes_by_length);
	return tc;
}
