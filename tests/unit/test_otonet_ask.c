// UNIT: cmd/otonet/askline.c
/*
 * The decider's answer line (askline.c), pure: exactly "ID DECISION", every
 * other shape refused, every id and word at its edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "otonet/otonet.h"

static int parse(const char *s, uint32_t *id, enum ask_decision *d)
{
	return ask_answer_parse(s, strlen(s), id, d);
}

static void test_ask_answers(void **state)
{
	uint32_t id = 0;
	enum ask_decision d = ASK_TIMEOUT;

	(void)state;
	assert_int_equal(parse("1 allow-once", &id, &d), 0);
	assert_int_equal(id, 1);
	assert_int_equal(d, ASK_ALLOW_ONCE);
	assert_int_equal(parse("42 allow-session", &id, &d), 0);
	assert_int_equal(id, 42);
	assert_int_equal(d, ASK_ALLOW_SESSION);
	assert_int_equal(parse("4294967295 deny", &id, &d), 0);
	assert_int_equal(id, 4294967295U);
	assert_int_equal(d, ASK_DENY);
	assert_string_equal(ask_decision_name[ASK_GONE], "decider-gone");
	assert_string_equal(ask_decision_name[ASK_LIMIT], "limit");
}

static void test_ask_garbage(void **state)
{
	static const char *const bad[] = {
		"",
		" ",
		"1",
		"1 ",
		"0 deny",
		"01 deny",
		"-1 deny",
		"+1 deny",
		"4294967296 deny",
		"99999999999999999999 deny",
		"1  deny",
		" 1 deny",
		"1 deny ",
		"1 deny\r",
		"1\tdeny",
		"1 Deny",
		"1 allow",
		"1 allow-onc",
		"1 allow-once2",
		"1 timeout",
		"1 decider-gone",
		"1 limit",
		"{\"id\":1,\"decision\":\"allow-once\"}",
		"x deny",
	};
	uint32_t id = 7;
	enum ask_decision d = ASK_TIMEOUT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], &id, &d), -1);
		assert_int_equal(id, 7);
	}
	/* A NUL inside is a byte like any other: not an answer. */
	assert_int_equal(ask_answer_parse("1 deny\0x", 8, &id, &d), -1);
	assert_int_equal(ask_answer_parse("1 de\0ny", 7, &id, &d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ask_answers),
		cmocka_unit_test(test_ask_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
