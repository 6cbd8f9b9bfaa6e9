// UNIT: cmd/otoask/parse.c lib/policy_line.c lib/policy_name_ok.c
/*
 * otoask's pure part: otonet's request lines read (and refused when they
 * are not what otonet writes: nothing else reaches the terminal), what is
 * shown, the keys, the config lines otorun reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otoask/otoask.h"

#define HEAD                                                                                       \
	"{\"time\":\"2026-12-04T21:30:02.120544Z\",\"source\":\"ask\",\"session\":\"5f0c9e1a0b\","

static int parse(const char *s, struct ask_req *q)
{
	return ask_req_parse(s, strlen(s), q);
}

static void test_otoask_requests(void **state)
{
	struct ask_req q;
	char buf[512];

	(void)state;
	assert_int_equal(parse(HEAD "\"id\":7,\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"dst\":"
				    "\"203.0.113.10\",\"port\":443,\"name\":\"new.example\"}",
			       &q),
			 0);
	assert_int_equal(q.id, 7);
	assert_int_equal(q.dns, 0);
	assert_int_equal(q.port, 443);
	assert_string_equal(q.name, "new.example");
	assert_string_equal(q.session, "5f0c9e1a0b");
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf, "new.example:443 (tcp to 203.0.113.10)");
	ask_config_line(&q, "allow-session", buf, sizeof(buf));
	assert_string_equal(buf, "# allow-session (ask 7): allows new.example on ports 80 and 443 "
				 "(its TLS SNI or HTTP Host checked)\n--allow-name new.example\n");
	assert_int_equal(parse(HEAD "\"id\":8,\"proto\":\"tcp\",\"src\":\"fd00::100\",\"dst\":"
				    "\"2001:db8::1\",\"port\":22}",
			       &q),
			 0);
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf, "[2001:db8::1]:22 (tcp)");
	ask_config_line(&q, "allow-once", buf, sizeof(buf));
	assert_string_equal(buf, "# allow-once (ask 8): an address decision: allows tcp to "
				 "2001:db8::1 port 22 only, whatever name it serves\n"
				 "--allow tcp:[2001:db8::1]:22\n");
	assert_int_equal(parse(HEAD "\"id\":9,\"proto\":\"udp\",\"src\":\"10.0.2.100\",\"name\":"
				    "\"x.example\",\"type\":\"AAAA\"}",
			       &q),
			 0);
	assert_int_equal(q.dns, 1);
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf, "x.example (dns AAAA)");
	ask_config_line(&q, "allow-session", buf, sizeof(buf));
	assert_string_equal(buf, "# allow-session (ask 9): allows x.example on ports 80 and 443 "
				 "(its TLS SNI or HTTP Host checked)\n--allow-name x.example\n");
}

#define GATE                                                                                       \
	"{\"time\":\"2026-12-04T21:30:02.120544Z\",\"source\":\"gate\",\"session\":"               \
	"\"5f0c9e1a0b\","

/*
 * otogate's questions (source "gate"): the grant and the request shown,
 * with a push's first ref and its count; one that lacks a field, or holds
 * a byte otogate never writes, is refused; --save keeps a comment alone.
 */
static void test_otoask_gate_requests(void **state)
{
	struct ask_req q;
	char buf[512];

	(void)state;
	assert_int_equal(
	    parse(GATE "\"id\":3,\"grant\":\"GH_TOKEN\",\"method\":\"POST\",\"host\":"
		       "\"git.example.test\",\"path\":\"/p.git/git-receive-pack\",\"length\":423,"
		       "\"rule\":\"ask=POST:/p.git\",\"refs\":[\"refs/heads/main 1a2b..3c4d\","
		       "\"refs/heads/x 0000..5e6f\"],\"nrefs\":2}",
		  &q),
	    0);
	assert_int_equal(q.id, 3);
	assert_int_equal(q.gate, 1);
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf,
			    "GH_TOKEN: POST git.example.test/p.git/git-receive-pack (423 bytes; "
			    "refs/heads/main 1a2b..3c4d, 2 refs)");
	ask_config_line(&q, "allow-session", buf, sizeof(buf));
	assert_string_equal(buf,
			    "# allow-session (ask 3): POST on git.example.test/p.git/"
			    "git-receive-pack (grant GH_TOKEN, ask=POST:/p.git): no line for a "
			    "request\n");
	assert_int_equal(parse(GATE
			       "\"id\":4,\"grant\":\"NPM\",\"method\":\"PUT\",\"host\":\"n.test\","
			       "\"path\":\"/pkg\",\"length\":null,\"rule\":\"ask=writes\"}",
			       &q),
			 0);
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf, "NPM: PUT n.test/pkg (a body of unknown length)");
	assert_int_equal(parse(GATE
			       "\"id\":5,\"grant\":\"NPM\",\"method\":\"DELETE\",\"host\":"
			       "\"n.test\",\"path\":\"/pkg\",\"length\":0,\"rule\":\"ask=writes\"}",
			       &q),
			 0);
	ask_req_show(&q, buf, sizeof(buf));
	assert_string_equal(buf, "NPM: DELETE n.test/pkg (0 bytes)");
	/* No host; a path that is no path; an escape in a value; a length that is none. */
	assert_int_equal(parse(GATE "\"id\":6,\"grant\":\"G\",\"method\":\"POST\",\"path\":\"/\","
				    "\"length\":0}",
			       &q),
			 -1);
	assert_int_equal(parse(GATE "\"id\":6,\"grant\":\"G\",\"method\":\"POST\",\"host\":\"h\","
				    "\"path\":\"x\",\"length\":0}",
			       &q),
			 -1);
	assert_int_equal(parse(GATE "\"id\":6,\"grant\":\"G\",\"method\":\"POST\",\"host\":\"h\","
				    "\"path\":\"/\\u001b[2J\",\"length\":0}",
			       &q),
			 -1);
	assert_int_equal(parse(GATE "\"id\":6,\"grant\":\"G\",\"method\":\"POST\",\"host\":\"h\","
				    "\"path\":\"/\",\"length\":-1}",
			       &q),
			 -1);
}

/*
 * The agent chooses the names: a DNS label may hold '*', ':' or a blank.
 * What --save keeps of such a name is a comment alone, never a rule that
 * a later session would load (--allow-name *.amazonaws.com opens a whole
 * cloud; exfil.example:22 a port the person never saw).
 */
static void test_otoask_saves_no_rule_for_a_name_that_is_none(void **state)
{
	static const char *const names[] = { "*.amazonaws.com", "exfil.example:22", "a b.example",
					     "x.example.",	"-x.example",	    "x-.example",
					     "a..example",	"example",	    "1.2.3.4",
					     "a_b.example" };
	struct ask_req q;
	char line[512], buf[800];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(line, sizeof(line),
			 HEAD "\"id\":3,\"proto\":\"udp\",\"src\":\"10.0.2.100\",\"name\":\"%s\","
			      "\"type\":\"A\"}",
			 names[i]);
		assert_int_equal(parse(line, &q), 0);
		ask_config_line(&q, "allow-session", buf, sizeof(buf));
		/* One line, a comment: nothing otorun --config would read as an option. */
		assert_int_equal(buf[0], '#');
		assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);
		assert_non_null(strstr(buf, "is not a host name: no rule is written for it\n"));
		/* A flow's name alike, with its address: still no line (not the address either). */
		snprintf(line, sizeof(line),
			 HEAD "\"id\":4,\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"dst\":"
			      "\"203.0.113.10\",\"port\":443,\"name\":\"%s\"}",
			 names[i]);
		assert_int_equal(parse(line, &q), 0);
		ask_config_line(&q, "allow-once", buf, sizeof(buf));
		assert_int_equal(buf[0], '#');
		assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);
	}
	/* A name on another port: that port, as the relay allowed it for the session. */
	assert_int_equal(parse(HEAD "\"id\":5,\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"dst\":"
				    "\"203.0.113.10\",\"port\":22,\"name\":\"git.example\"}",
			       &q),
			 0);
	ask_config_line(&q, "allow-session", buf, sizeof(buf));
	assert_string_equal(buf,
			    "# allow-session (ask 5): allows git.example on port 22, any "
			    "protocol, what it sends not checked\n--allow-name git.example:22\n");
}

static void test_otoask_refused_requests(void **state)
{
	static const char *const bad[] = {
		"",
		"{}",
		HEAD "\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":443}", /* no id */
		HEAD "\"id\":0,\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":443}", /* id 0 */
		HEAD "\"id\":1,\"proto\":\"tcp\",\"port\":443}",	     /* no dst */
		HEAD "\"id\":1,\"proto\":\"tcp\",\"dst\":\"203.0.113.10\"}", /* no port */
		HEAD "\"id\":1,\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":65536}",
		HEAD
		"\"id\":1,\"proto\":\"tcp\",\"dst\":\"a\\u001b[2J\",\"port\":1}", /* a backslash */
		HEAD "\"id\":1,\"proto\":\"tcp\",\"dst\":\"a\x1b[2J\",\"port\":1}", /* ESC */
		HEAD "\"id\":1,\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":1,\"name\":\"x",
		HEAD "\"id\":1,\"proto\":\"udp\",\"type\":\"A\"}", /* DNS without a name */
	};
	struct ask_req q;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(parse(bad[i], &q), -1);
}

/* otorun's session line: who asks, read as the label; anything else is not one. */
static void test_otoask_session_lines(void **state)
{
	static const char *const bad[] = {
		"{\"source\":\"session\",\"person\":\"p\"}",
		"{\"source\":\"session\",\"session\":\"\",\"person\":\"p\"}",
		"{\"source\":\"session\",\"session\":\"s\",\"id\":1,\"person\":\"p\"}",
		"{\"source\":\"session\",\"session\":\"s\",\"person\":\"\x1b[8m\"}",
		"{\"source\":\"session\",\"session\":\"s\",\"agent\":\"a\\u001b\"}",
		"{\"source\":\"session\",\"session\":\"s\",\"person\":\"p\"",
		"{\"source\":\"session\",\"session\":\"s\",\"person\":\"p}",
		"{\"source\":\"ask\",\"session\":\"s\",\"person\":\"p\"}",
	};
	struct ask_session ss;
	char buf[256], big[300];
	const char *ok = "{\"time\":\"2026-12-04T21:30:01.004211Z\",\"source\":\"session\","
			 "\"session\":\"5f0c9e1a0b\",\"person\":\"alice\",\"agent\":\"claude as "
			 "oto\"}";

	(void)state;
	assert_true(ask_is_session_line(ok, strlen(ok)));
	assert_int_equal(ask_session_parse(ok, strlen(ok), &ss), 0);
	assert_string_equal(ss.id, "5f0c9e1a0b");
	ask_session_label(&ss, buf, sizeof(buf));
	assert_string_equal(buf, "alice: claude as oto");
	strcpy(ss.person, "");
	ask_session_label(&ss, buf, sizeof(buf));
	assert_string_equal(buf, "claude as oto");
	strcpy(ss.agent, "");
	ask_session_label(&ss, buf, sizeof(buf));
	assert_string_equal(buf, "session 5f0c9e1a");
	/* A question is not a session line. */
	assert_false(ask_is_session_line(HEAD "\"id\":1}", strlen(HEAD "\"id\":1}")));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(ask_session_parse(bad[i], strlen(bad[i]), &ss), -1);
	/* A person past 63 bytes does not read. */
	snprintf(big, sizeof(big),
		 "{\"source\":\"session\",\"session\":\"s\",\"person\":\"%064d\"}", 0);
	assert_int_equal(ask_session_parse(big, strlen(big), &ss), -1);
}

static void test_otoask_keys(void **state)
{
	(void)state;
	assert_string_equal(ask_key('y'), "allow-once");
	assert_string_equal(ask_key('a'), "allow-session");
	assert_string_equal(ask_key('n'), "deny");
	assert_string_equal(ask_key('\r'), "deny");
	assert_null(ask_key('x'));
	assert_null(ask_key(' '));
	assert_null(ask_key(3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_otoask_requests),
		cmocka_unit_test(test_otoask_gate_requests),
		cmocka_unit_test(test_otoask_saves_no_rule_for_a_name_that_is_none),
		cmocka_unit_test(test_otoask_refused_requests),
		cmocka_unit_test(test_otoask_session_lines),
		cmocka_unit_test(test_otoask_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
