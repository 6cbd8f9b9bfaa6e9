// UNIT: cmd/otogate/askline.c cmd/otogate/pkt.c cmd/otogate/allow.c cmd/otogate/parse.c lib/store_name_ok.c lib/opt.c lib/json_str.c lib/event_head.c
/* Unit tests of asking: ask= parsed and matched, the answer, otonet's lines renumbered, a push's
 * ref updates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "oto.h"
#include "otogate/otogate.h"

static struct grant g;
static char spec[8192];
static char buf[1 << 17];

static int grant(const char *s, const char **why)
{
	snprintf(spec, sizeof(spec), "K=https://api.test%s", s);
	return grant_parse(spec, &g, why);
}

static int asks(size_t rule, const char *m, const char *p)
{
	return ask_rule_match(&g.ask[rule], m, strlen(m), p, strlen(p));
}

static void test_ask_rules(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(grant(",ask=POST:/repos,ask=writes,allow=*:/", &why), 0);
	assert_int_equal(g.nask, 1);
	assert_int_equal(g.ask_writes, 1);
	assert_int_equal(g.nallow, 1);
	assert_true(asks(0, "POST", "/repos"));
	assert_true(asks(0, "POST", "/repos/x"));
	assert_false(asks(0, "POST", "/repository"));
	assert_false(asks(0, "GET", "/repos/x"));
	/* More, never less, than the upstream could read. */
	assert_true(asks(0, "post", "/repos/x"));
	assert_true(asks(0, "POST", "/%72epos/x"));
	assert_true(asks(0, "POST", "/rep%6Fs"));
	assert_true(asks(0, "POST", "/other%2Fx"));
	assert_true(asks(0, "POST", "/a/../repos"));
	assert_false(asks(0, "POST", "/%72eposx"));
	assert_int_equal(grant(",ask=POST", &why), -1);
	assert_string_equal(why, "ask=: not METHOD:PATH-PREFIX (as allow=) or writes");
}

static void test_answers(void **state)
{
	enum gate_decision d;
	uint32_t id;

	(void)state;
	assert_int_equal(gate_answer_parse("12 allow-once", 13, &id, &d), 0);
	assert_int_equal(id, 12);
	assert_int_equal(d, GATE_ALLOW_ONCE);
	assert_int_equal(gate_answer_parse("1 deny", 6, &id, &d), 0);
	assert_int_equal(d, GATE_DENY);
	assert_int_equal(gate_answer_parse("1 timeout", 9, &id, &d), -1);
	assert_int_equal(gate_answer_parse("01 deny", 7, &id, &d), -1);
	assert_int_equal(gate_answer_parse("1  deny", 7, &id, &d), -1);
	assert_int_equal(gate_answer_parse("4294967296 deny", 15, &id, &d), -1);
	assert_int_equal(gate_answer_parse("1 deny\r", 7, &id, &d), -1);
}

static void test_renumber(void **state)
{
	static const char NET[] = "{\"time\":\"t\",\"source\":\"ask\",\"session\":\"s\",\"id\":7,"
				  "\"proto\":\"tcp\",\"name\":\"\\\"id\\\":9\"}";
	char out[256];
	uint32_t was = 0;
	size_t n = gate_net_renumber(NET, strlen(NET), 1234, out, sizeof(out), &was);

	(void)state;
	assert_int_equal(was, 7);
	assert_int_equal(n, strlen(NET) + 3 + 1);
	assert_memory_equal(out, NET, 46);
	assert_memory_equal(out + 46, "1234,\"proto\"", 12);
	assert_int_equal(out[n - 1], '\n');
	assert_int_equal(gate_net_renumber("{\"id\":x}", 8, 1, out, sizeof(out), &was), 0);
	assert_int_equal(gate_net_renumber("{,\"id\":0}", 9, 1, out, sizeof(out), &was), 0);
	assert_int_equal(gate_net_renumber(NET, strlen(NET), 1, out, 10, &was), 0);
}

/* body[0, len) fed in pieces of step bytes: the last verdict. */
static int feed(struct pkt_cmds *c, const char *body, size_t len, size_t step)
{
	size_t used;
	int r = 0;

	memset(c, 0, sizeof(*c));
	for (size_t at = 0; at < len && r == 0; at += step)
		r = pkt_cmds_feed(c, body + at, len - at < step ? len - at : step, &used);
	return r;
}

static void test_push(void **state)
{
	static struct pkt_cmds c;
	char body[512], line[256];
	const char *o = "0000000000000000000000000000000000000000";
	const char *n = "1111111111111111111111111111111111111111";
	struct gate_question q = { .grant = "G",
				   .host = "h",
				   .method = "POST",
				   .method_len = 4,
				   .path = "/r/git-receive-pack",
				   .path_len = 19,
				   .length = 9,
				   .rule = "ask=writes",
				   .push = &c };
	struct timespec t = { 0 };
	int l = snprintf(line, sizeof(line), "%s %s refs/heads/main", o, n);
	size_t len, out;

	(void)state;
	len = (size_t)snprintf(body, sizeof(body), "%04x%s", l + 4 + 28, line);
	memcpy(body + len, "\0report-status side-band-64k", 28);
	len += 28;
	len += (size_t)snprintf(body + len, sizeof(body) - len, "0000PACK");
	for (size_t step = 1; step <= len; step++) {
		assert_int_equal(feed(&c, body, len - 4, step), 1);
		assert_int_equal(c.n, 1);
		assert_string_equal(c.refs[0].name, "refs/heads/main");
		assert_int_equal(c.report, 1);
		assert_int_equal(c.sideband, 2);
	}
	out = gate_question_format(buf, sizeof(buf), &t, "s", 3, &q);
	assert_non_null(memmem(
	    buf, out, ",\"refs\":[\"refs/heads/main 000000000000..111111111111\"],\"nrefs\":1}\n",
	    66));
	out = pkt_deny_format(buf, sizeof(buf), &c, "otogate: no");
	assert_non_null(memmem(buf, out, "ng refs/heads/main otogate: no\n", 31));
	assert_non_null(memmem(buf, out, "\r\n\r\n", 4));
	assert_int_equal(memcmp(buf + out - 4, "0000", 4), 0);
	assert_int_equal(feed(&c, "0004", 4, 4), -1);
	assert_string_equal(c.err,
			    "an empty, delimiter or reserved pkt-line among the ref updates");
	assert_int_equal(feed(&c, "0000", 4, 1), 1);
	assert_int_equal(c.n, 0);
	/* No report-status asked: no report to give (a 403 instead). */
	assert_int_equal(pkt_deny_format(buf, sizeof(buf), &c, "x"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ask_rules),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_renumber),
		cmocka_unit_test(test_push),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
