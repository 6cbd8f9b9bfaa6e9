// UNIT: cmd/otolog/json.c cmd/otolog/lines.c cmd/otolog/event.c cmd/otolog/summary.c
// UNIT: cmd/otolog/text.c cmd/otolog/jsonout.c cmd/otolog/policy.c cmd/otolog/out.c
// UNIT: cmd/otolog/record.c lib/json_str.c lib/session_line.c lib/event_head.c
// UNIT: cmd/otons/parse.c lib/record_thin.c lib/policy_line.c lib/policy_name_ok.c
/*
 * Unit tests of otolog, all of it pure: the strict JSON reader, the lines
 * cut however the reads cut them, the summary, --json and --policy over
 * lines as the tools write them, and hostile ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "oto.h"
#include "otolog/otolog.h"
#include "otons/otons.h"

static struct json_obj *obj_new(void)
{
	struct json_obj *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	o->cap = LOG_LINE_MAX;
	o->buf = malloc(o->cap);
	assert_non_null(o->buf);
	return o;
}

static void obj_free(struct json_obj *o)
{
	free(o->buf);
	free(o);
}

static int parse(struct json_obj *o, const char *line, const char **why)
{
	*why = NULL;
	return json_parse(o, line, strlen(line), why);
}

static void test_json_reads(void **state)
{
	struct json_obj *o = obj_new();
	const struct json_val *v;
	unsigned long long u;
	long long n;
	const char *why;

	(void)state;
	assert_int_equal(parse(o,
			       "{\"a\":\"x\\\"y\\\\z\\/\\n\",\"n\":-12,\"f\":1.5e3,\"t\":true,"
			       "\"z\":null,\"l\":[\"p\",2,false] , \"e\":[]}",
			       &why),
			 0);
	assert_int_equal(o->nkv, 7);
	assert_string_equal(json_str_of(o, "a"), "x\"y\\z/\n");
	v = json_get(o, "n");
	assert_int_equal(v->type, JSON_NUM);
	assert_int_equal(json_int(v, &n), 0);
	assert_int_equal(n, -12);
	assert_int_equal(json_uint(v, 100, &u), -1);
	assert_int_equal(json_uint(json_get(o, "f"), 100000, &u), -1); /* not an integer */
	assert_string_equal(json_get(o, "f")->s, "1.5e3");
	assert_int_equal(json_get(o, "t")->type, JSON_TRUE);
	assert_int_equal(json_get(o, "z")->type, JSON_NULL);
	v = json_get(o, "l");
	assert_int_equal(v->type, JSON_ARR);
	assert_int_equal(v->n, 3);
	assert_string_equal(o->items[v->first].s, "p");
	assert_int_equal(o->items[v->first + 2].type, JSON_FALSE);
	assert_int_equal(json_get(o, "e")->n, 0);
	assert_null(json_get(o, "nope"));
	assert_null(json_str_of(o, "n"));
	/* \u00XX is the byte itself (json_str's way); above, UTF-8; a pair, one code point. */
	assert_int_equal(parse(o, "{\"s\":\"\\u00e9\\u0001\\u20ac\\ud83d\\ude00\"}", &why), 0);
	assert_memory_equal(json_str_of(o, "s"), "\xe9\x01\xe2\x82\xac\xf0\x9f\x98\x80", 10);
	/* The largest integer json_uint takes for max, and one past. */
	assert_int_equal(parse(o, "{\"a\":65535,\"b\":65536,\"c\":0}", &why), 0);
	assert_int_equal(json_uint(json_get(o, "a"), 65535, &u), 0);
	assert_int_equal(u, 65535);
	assert_int_equal(json_uint(json_get(o, "b"), 65535, &u), -1);
	assert_int_equal(json_uint(json_get(o, "c"), 65535, &u), 0);
	assert_int_equal(parse(o, "{}", &why), 0);
	assert_int_equal(o->nkv, 0);
	obj_free(o);
}

static void test_json_refuses(void **state)
{
	static const struct {
		const char *line, *why;
	} BAD[] = {
		{ "", "not a JSON object" },
		{ "[1]", "not a JSON object" },
		{ "{\"a\":1", "an object without its closing brace" },
		{ "{\"a\":1}x", "bytes after the object" },
		{ "{\"a\":1}\r", "bytes after the object" },
		{ "{\"a\":{\"b\":1}}", "a nested object" },
		{ "{\"a\":[[1]]}", "a nested array" },
		{ "{\"a\":[{}]}", "a nested object" },
		{ "{\"a\":1,\"a\":2}", "a key given twice" },
		{ "{a:1}", "a key that is not a string" },
		{ "{\"a\" 1}", "a key without its ':'" },
		{ "{\"a\":}", "not a value" },
		{ "{\"a\":\"x}", "a string without its closing quote" },
		{ "{\"a\":\"x\\", "a string without its closing quote" },
		{ "{\"a\":\"\\u0000\"}", "\\u0000 in a string" },
		{ "{\"a\":\"\\u12\"}", "a \\u escape without four hex digits" },
		{ "{\"a\":\"\\ude00\"}", "a lone low surrogate" },
		{ "{\"a\":\"\\ud83d\"}", "a high surrogate without its pair" },
		{ "{\"a\":\"\\ud83d\\u0041\"}", "a high surrogate without its pair" },
		{ "{\"a\":\"\\x41\"}", "an unknown escape in a string" },
		{ "{\"a\":\"\x01\"}", "a control byte in a string" },
		{ "{\"a\":\"\n\"}", "a control byte in a string" },
		{ "{\"a\":01}", "an object without its closing brace" },
		{ "{\"a\":1.}", "a number without digits after its point" },
		{ "{\"a\":1e}", "a number without digits in its exponent" },
		{ "{\"a\":-}", "not a value" },
		{ "{\"a\":+1}", "not a value" },
		{ "{\"a\":tru}", "not a value" },
		{ "{\"a\":[1,]}", "not a value" },
		{ "{\"a\":[1 2]}", "an array without its closing bracket" },
		{ "{\"a\":12345678901234567890123456789012345678901}",
		  "a number longer than 40 bytes" },
	};
	struct json_obj *o = obj_new();
	char line[2048];
	const char *why;
	size_t at;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
		assert_int_equal(parse(o, BAD[i].line, &why), -1);
		assert_string_equal(why, BAD[i].why);
	}
	/* 64 keys, then one more. */
	at = (size_t)snprintf(line, sizeof(line), "{");
	for (int i = 0; i < 64; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s\"k%d\":%d", i ? "," : "",
				       i, i);
	snprintf(line + at, sizeof(line) - at, "}");
	assert_int_equal(parse(o, line, &why), 0);
	snprintf(line + at, sizeof(line) - at, ",\"k64\":1}");
	assert_int_equal(parse(o, line, &why), -1);
	assert_string_equal(why, "more than 64 keys");
	/* A line longer than the buffer is never read. */
	o->cap = 8;
	assert_int_equal(parse(o, "{\"a\":\"bcd\"}", &why), -1);
	assert_string_equal(why, "the line is longer than the reader's buffer");
	obj_free(o);
}

/* The lines a callback saw, joined by '|'. */
struct seen {
	char text[256];
	unsigned long long last;
};

static int collect(void *ctx, const char *line, size_t len, unsigned long long lineno)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s%.*s", n ? "|" : "", (int)len, line);
	s->last = lineno;
	return 0;
}

static void test_lines_every_cut(void **state)
{
	static const char TEXT[] = "ab\n\ncde\nf";
	struct lines l;

	(void)state;
	/* Cut in two at every byte: the same lines, and the last one cut. */
	for (size_t cut = 0; cut <= sizeof(TEXT) - 1; cut++) {
		struct seen s = { "", 0 };

		assert_int_equal(lines_init(&l), 0);
		assert_int_equal(lines_feed(&l, TEXT, cut, collect, &s), 0);
		assert_int_equal(lines_feed(&l, TEXT + cut, sizeof(TEXT) - 1 - cut, collect, &s),
				 0);
		assert_string_equal(s.text, "ab||cde");
		assert_int_equal(s.last, 3);
		assert_int_equal(lines_end(&l), 1);
		assert_int_equal(l.lineno, 4);
		lines_free(&l);
	}
	/* One byte at a time. */
	{
		struct seen s = { "", 0 };

		assert_int_equal(lines_init(&l), 0);
		for (size_t i = 0; i < sizeof(TEXT) - 1; i++)
			assert_int_equal(lines_feed(&l, TEXT + i, 1, collect, &s), 0);
		assert_string_equal(s.text, "ab||cde");
		assert_int_equal(lines_end(&l), 1);
		lines_free(&l);
	}
}

static void test_lines_bound(void **state)
{
	char *big = malloc(LOG_LINE_MAX + 2);
	struct seen s = { "", 0 };
	struct lines l;

	(void)state;
	assert_non_null(big);
	/* LOG_LINE_MAX bytes with the newline: read. One more: counted, skipped, never in part. */
	memset(big, 'x', LOG_LINE_MAX + 1);
	big[LOG_LINE_MAX - 1] = '\n';
	assert_int_equal(lines_init(&l), 0);
	assert_int_equal(lines_feed(&l, big, LOG_LINE_MAX, collect, &s), 0);
	assert_int_equal(s.last, 1);
	assert_int_equal(l.overlong, 0);
	big[LOG_LINE_MAX - 1] = 'x';
	big[LOG_LINE_MAX] = '\n';
	s.text[0] = 0;
	/* In pieces: the bound holds across reads. */
	assert_int_equal(lines_feed(&l, big, 1000, collect, &s), 0);
	assert_int_equal(lines_feed(&l, big + 1000, LOG_LINE_MAX + 1 - 1000, collect, &s), 0);
	assert_int_equal(lines_feed(&l, "ok\n", 3, collect, &s), 0);
	assert_string_equal(s.text, "ok");
	assert_int_equal(s.last, 3);
	assert_int_equal(l.overlong, 1);
	/* A too long last line without its newline is overlong, not cut. */
	assert_int_equal(lines_feed(&l, big, LOG_LINE_MAX, collect, &s), 0);
	assert_int_equal(lines_end(&l), 0);
	assert_int_equal(l.overlong, 2);
	lines_free(&l);
	free(big);
}

/* A session as the tools write it (tests/otolog/recorded.log has a real one). */
static const char STREAM[] =
    "{\"time\":\"2026-12-04T21:00:00.000001Z\",\"source\":\"session\",\"session\":\"s1\","
    "\"verdict\":\"open\",\"stage\":\"otonet\",\"uid\":65534,\"account\":\"nobody\","
    "\"role\":\"member\",\"person\":\"alice\",\"chain\":[\"/bin/otonet\",\"--as\",\"nobody\","
    "\"--\",\"otons\",\"--\",\"/usr/bin/otoexec\",\"--\",\"sh\"]}\n"
    "{\"time\":\"2026-12-04T21:00:00.100000Z\",\"source\":\"net\",\"session\":\"s1\","
    "\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"dst\":\"10.0.0.1\",\"port\":80,"
    "\"verdict\":\"deny\",\"rule\":\"special:10.0.0.0/8\"}\n"
    "{\"time\":\"2026-12-04T21:00:00.100001Z\",\"source\":\"net\",\"session\":\"s1\","
    "\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"dst\":\"203.0.113.10\",\"port\":9002,"
    "\"verdict\":\"allow\",\"rule\":\"public\"}\n"
    "{\"time\":\"2026-12-04T21:00:00.200000Z\",\"source\":\"dns\",\"session\":\"s1\","
    "\"verdict\":\"deny\",\"proto\":\"udp\",\"src\":\"10.0.2.100\",\"name\":\"a.inet.test\","
    "\"type\":\"A\",\"outcome\":\"nxdomain\",\"rule\":\"no-name\",\"records\":0}\n"
    "{\"time\":\"2026-12-04T21:00:00.300000Z\",\"source\":\"seccomp\",\"session\":\"s1\","
    "\"verdict\":\"deny\",\"pid\":7,\"comm\":\"python3\",\"exe\":\"/usr/bin/python3\","
    "\"syscall\":\"ptrace\",\"nr\":101,\"args\":[0,0,0,0,0,0],\"errno\":\"EPERM\","
    "\"count\":1}\n"
    "{\"time\":\"2026-12-04T21:00:00.300001Z\",\"source\":\"seccomp\",\"session\":\"s1\","
    "\"verdict\":\"deny\",\"pid\":7,\"comm\":\"python3\",\"exe\":\"/usr/bin/python3\","
    "\"syscall\":\"mount\",\"nr\":165,\"args\":[0,0,0,0,0,0],\"errno\":\"EPERM\","
    "\"count\":1}\n"
    "{\"time\":\"2026-12-04T21:00:00.400000Z\",\"source\":\"session\",\"session\":\"s1\","
    "\"verdict\":\"close\",\"exit\":3,\"signal\":0,\"duration_ms\":400.123}\n";

/* The whole of otolog over text, in mode: its output (the caller frees it). */
static char *run(const char *text, enum otolog_mode mode, int follow, struct otolog *keep)
{
	struct otolog c;
	char *r;

	assert_int_equal(otolog_init(&c, mode, follow), 0);
	/* Two pieces, cut in the middle of a line. */
	assert_int_equal(otolog_feed(&c, text, strlen(text) / 2), 0);
	assert_int_equal(otolog_feed(&c, text + strlen(text) / 2, strlen(text) - strlen(text) / 2),
			 0);
	assert_int_equal(otolog_end(&c), 0);
	r = strdup(c.out.buf ? c.out.buf : "");
	if (keep) {
		keep->read = c.read;
		keep->malformed = c.malformed;
		keep->unknown = c.unknown;
		keep->cut = c.cut;
		keep->lines.overlong = c.lines.overlong;
		keep->lines.lineno = c.lines.lineno;
		keep->bad_line = c.bad_line;
		keep->bad_why = c.bad_why;
		keep->bad_key = c.bad_key;
	}
	otolog_fini(&c);
	return r;
}

static void test_summary_text(void **state)
{
	char *t = run(STREAM, MODE_TEXT, 0, NULL);

	(void)state;
	assert_string_equal(t,
			    "session s1\n"
			    "  opened by otonet as nobody (uid 65534), role member, person alice\n"
			    "  chain otonet otons otoexec sh\n"
			    "  from 2026-12-04T21:00:00.000001Z to 2026-12-04T21:00:00.400000Z\n"
			    "  closed after 400.123 ms, exit 3\n"
			    "  allowed 1 flow, 0 DNS answers\n"
			    "  refused, network:\n"
			    "         1  tcp 10.0.0.1 port 80: special:10.0.0.0/8\n"
			    "  refused, DNS:\n"
			    "         1  a.inet.test A: no-name (nxdomain)\n"
			    "  refused, system calls:\n"
			    "         1  mount by python3\n"
			    "         1  ptrace by python3\n");
	free(t);
}

static void test_summary_json(void **state)
{
	char *t = run(STREAM, MODE_JSON, 0, NULL);

	(void)state;
	assert_string_equal(
	    t, "{\"session\":\"s1\",\"stage\":\"otonet\",\"account\":\"nobody\",\"uid\":65534,"
	       "\"role\":\"member\",\"person\":\"alice\",\"chain\":\"otonet otons otoexec sh\","
	       "\"start\":\"2026-12-04T21:00:00.000001Z\",\"end\":\"2026-12-04T21:00:00.400000Z\","
	       "\"opened\":true,\"closed\":true,\"exit\":3,\"signal\":0,\"duration_ms\":400.123,"
	       "\"allowed_net\":1,\"allowed_dns\":0,\"not_counted\":0,"
	       "\"net\":[{\"count\":1,\"proto\":\"tcp\",\"dst\":\"10.0.0.1\",\"port\":80,"
	       "\"name\":null,\"rule\":\"special:10.0.0.0/8\"}],"
	       "\"dns\":[{\"count\":1,\"name\":\"a.inet.test\",\"type\":\"A\",\"rule\":\"no-name\","
	       "\"outcome\":\"nxdomain\"}],"
	       "\"seccomp\":[{\"count\":1,\"syscall\":\"mount\",\"comm\":\"python3\"},"
	       "{\"count\":1,\"syscall\":\"ptrace\",\"comm\":\"python3\"}],"
	       "\"landlock\":[],\"gate\":[],\"asked\":[]}\n");
	free(t);
}

static void test_policy(void **state)
{
	char *t = run(STREAM, MODE_POLICY, 0, NULL);

	(void)state;
	assert_string_equal(
	    t, "# otorun config lines (otorun --config FILE) that would have allowed what\n"
	       "# was refused or asked; review each before you use it.\n"
	       "# session s1\n"
	       "# wanted 1 time: tcp 10.0.0.1 port 80 refused (special:10.0.0.0/8). WARNING: a "
	       "private destination (special:10.0.0.0/8): grant it only deliberately\n"
	       "# an address decision: allows tcp to 10.0.0.1 port 80 only, whatever name it "
	       "serves\n"
	       "#--allow tcp:10.0.0.1:80\n"
	       "# wanted 1 time: the name a.inet.test (A) refused (no-name)\n"
	       "# allows a.inet.test on ports 80 and 443 (its TLS SNI or HTTP Host checked)\n"
	       "--allow-name a.inet.test\n"
	       "# wanted 1 time: ptrace refused, by python3\n"
	       "# allows ptrace, process_vm_readv, process_vm_writev and perf_event_open\n"
	       "# (the agent's own processes only), and personality(ADDR_NO_RANDOMIZE)\n"
	       "--profile dev\n"
	       "# wanted 1 time: mount refused, by python3: no otorun option allows it; a "
	       "profile file of your own does (otoexec(1), Profiles; --profile FILE)\n");
	free(t);
}

/* otons' lines for the first ten refusals of a call, then the 100th: 100 in all. */
static void test_counts_between_lines(void **state)
{
	char *text = calloc(1, 16384), *t;
	size_t at = 0;
	static const int COUNTS[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100 };

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < ARRAY_SIZE(COUNTS); i++)
		at += (size_t)snprintf(
		    text + at, 16384 - at,
		    "{\"time\":\"T\",\"source\":\"seccomp\",\"session\":\"s\",\"verdict\":\"deny\","
		    "\"comm\":\"%s\",\"syscall\":\"ptrace\",\"count\":%d}\n"
		    "{\"time\":\"T\",\"source\":\"landlock\",\"session\":\"s\",\"verdict\":"
		    "\"deny\","
		    "\"comm\":\"lldeny\",\"blockers\":\"fs.read_file\",\"path\":\"/etc/%s\","
		    "\"count\":%d}\n",
		    i < 4 ? "gdb" : "strace", COUNTS[i], i ? "hostname" : "passwd", COUNTS[i]);
	t = run(text, MODE_TEXT, 0, NULL);
	assert_non_null(strstr(t, "  refused, system calls:\n"
				  "        96  ptrace by strace\n"
				  "         4  ptrace by gdb\n"
				  "  refused, Landlock:\n"
				  "        99  fs.read_file /etc/hostname by lldeny\n"
				  "         1  fs.read_file /etc/passwd by lldeny\n"));
	free(t);
	t = run(text, MODE_POLICY, 0, NULL);
	assert_non_null(
	    strstr(t, "# wanted 100 times: ptrace refused, by strace; ptrace refused, by gdb\n"));
	assert_non_null(strstr(t, "--landlock-ro /etc/hostname\n"));
	free(t);
	free(text);
}

/*
 * otonet's thinned lines: a kind's first line has no count, the later ones
 * its count; 1000 refusals of one destination in 12 lines count 1000. A
 * stage's budget lines are no event: the summary says what went unwritten.
 */
static void test_net_counts_and_budget(void **state)
{
	char *text = calloc(1, 16384), *t;
	size_t at = 0;
	static const int COUNTS[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 1000 };

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < ARRAY_SIZE(COUNTS); i++) {
		char c[32] = "";

		if (COUNTS[i] > 1)
			snprintf(c, sizeof(c), ",\"count\":%d", COUNTS[i]);
		at += (size_t)snprintf(
		    text + at, 16384 - at,
		    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"proto\":\"tcp\","
		    "\"src\":\"10.0.2.100\",\"dst\":\"10.1.0.10\",\"port\":9,\"verdict\":\"deny\","
		    "\"rule\":\"special:10.0.0.0/8\"%s}\n"
		    "{\"time\":\"T\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"allow\","
		    "\"proto\":\"udp\",\"src\":\"10.0.2.100\",\"name\":\"a.test\",\"type\":\"A\","
		    "\"outcome\":\"answered\",\"rule\":\"dns\",\"records\":1%s}\n",
		    c, c);
	}
	at += (size_t)snprintf(
	    text + at, 16384 - at,
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"budget\","
	    "\"rule\":\"budget-spent\",\"budget\":4096,\"written\":24,\"unwritten\":1}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"budget\","
	    "\"rule\":\"budget-end\",\"budget\":4096,\"written\":24,\"unwritten\":7}\n"
	    "{\"time\":\"T\",\"source\":\"seccomp\",\"session\":\"s\",\"verdict\":\"budget\","
	    "\"rule\":\"budget-end\",\"budget\":4096,\"written\":20,\"unwritten\":5}\n");
	t = run(text, MODE_TEXT, 0, NULL);
	assert_non_null(strstr(t, "  allowed 0 flows, 1000 DNS answers\n"
				  "  record budget spent: 12 lines not written\n"));
	assert_non_null(strstr(t, "      1000  tcp 10.1.0.10 port 9: special:10.0.0.0/8\n"));
	assert_null(strstr(t, "malformed"));
	free(t);
	t = run(text, MODE_JSON, 0, NULL);
	assert_non_null(strstr(t, "\"allowed_dns\":1000,\"not_counted\":0,\"unwritten\":12"));
	free(t);
	free(text);
}

/* Questions and their answers, joined by id; one never answered is pending. */
static void test_asked(void **state)
{
	static const char ASKED[] =
	    "{\"time\":\"T1\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":1,"
	    "\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":443,\"name\":\"new.inet.test\"}\n"
	    "{\"time\":\"T2\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"allow\","
	    "\"rule\":\"ask\",\"decision\":\"allow-once\",\"ask\":1}\n"
	    "{\"time\":\"T3\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":2,"
	    "\"proto\":\"tcp\",\"dst\":\"203.0.113.11\",\"port\":8443}\n"
	    "{\"time\":\"T4\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"rule\":\"ask\",\"decision\":\"timeout\",\"ask\":2,\"proto\":\"tcp\","
	    "\"dst\":\"203.0.113.11\",\"port\":8443}\n"
	    "{\"time\":\"T5\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"ask\","
	    "\"ask\":\"q3\",\"name\":\"later.inet.test\"}\n";
	/*
	 * A person's deny is never an allow line; a name the agent chose that
	 * is no host name (a DNS label may hold '*' or ':') is never a rule.
	 */
	static const char DENIED[] =
	    "{\"time\":\"T1\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":1,"
	    "\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":443,\"name\":\"no.inet.test\"}\n"
	    "{\"time\":\"T2\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"rule\":\"ask\",\"decision\":\"deny\",\"ask\":1}\n"
	    "{\"time\":\"T3\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":2,"
	    "\"proto\":\"udp\",\"name\":\"*.amazonaws.com\",\"type\":\"A\"}\n"
	    "{\"time\":\"T4\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"allow\","
	    "\"rule\":\"ask\",\"decision\":\"allow-session\",\"ask\":2}\n"
	    "{\"time\":\"T5\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":3,"
	    "\"proto\":\"udp\",\"name\":\"exfil.example:22\",\"type\":\"A\"}\n"
	    "{\"time\":\"T6\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"allow\","
	    "\"rule\":\"ask\",\"decision\":\"allow-session\",\"ask\":3}\n"
	    "{\"time\":\"T7\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"ask\",\"ask\":4,"
	    "\"proto\":\"tcp\",\"dst\":\"203.0.113.10\",\"port\":443,\"name\":\"a:22.cdn.example\"}"
	    "\n"
	    "{\"time\":\"T8\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"allow\","
	    "\"rule\":\"ask\",\"decision\":\"allow-session\",\"ask\":4}\n";
	char *t;

	(void)state;
	t = run(ASKED, MODE_TEXT, 0, NULL);
	assert_string_equal(t, "session s\n"
			       "  no open line (the record's start is not in this stream)\n"
			       "  from T1 to T5\n"
			       "  no close line (still running, or the record was cut)\n"
			       "  asked:\n"
			       "         1  name later.inet.test: pending\n"
			       "         1  tcp 203.0.113.11 port 8443: timeout\n"
			       "         1  tcp new.inet.test port 443: allow-once\n");
	free(t);
	t = run(ASKED, MODE_POLICY, 0, NULL);
	assert_non_null(strstr(t, "# wanted 1 time: tcp 203.0.113.11 port 8443 asked, answered "
				  "timeout\n# an address decision: allows tcp to 203.0.113.11 port "
				  "8443 only, whatever name it serves\n"
				  "--allow tcp:203.0.113.11:8443\n"));
	assert_non_null(strstr(t, "--allow-name new.inet.test\n"));
	assert_non_null(strstr(t, "--allow-name later.inet.test\n"));
	free(t);
	t = run(ASKED, MODE_TEXT, 1, NULL);
	assert_non_null(strstr(t, "T1 s net asked tcp 203.0.113.10 port 443 (new.inet.test), "
				  "question 1\n"
				  "T2 s net answered tcp new.inet.test port 443: allow-once\n"));
	assert_non_null(strstr(t, "T5 s dns asked name later.inet.test, question q3\n"));
	free(t);
	t = run(DENIED, MODE_POLICY, 0, NULL);
	assert_string_equal(
	    t, "# otorun config lines (otorun --config FILE) that would have allowed what\n"
	       "# was refused or asked; review each before you use it.\n"
	       "# session s\n"
	       "# wanted 1 time: tcp a:22.cdn.example port 443 asked, answered allow-session: "
	       "\"a:22.cdn.example\" is not a host name: no rule is written for it\n"
	       "# wanted 1 time: tcp no.inet.test port 443 asked, answered deny: denied by a "
	       "person, so no line allows it\n"
	       "# wanted 1 time: the name *.amazonaws.com asked, answered allow-session: "
	       "\"*.amazonaws.com\" is not a host name: no rule is written for it\n"
	       "# wanted 1 time: the name exfil.example:22 asked, answered allow-session: "
	       "\"exfil.example:22\" is not a host name: no rule is written for it\n");
	free(t);
}

/* What the agent chose never reaches a terminal or a config line as it is. */
static void test_hostile_values(void **state)
{
	static const char EVIL[] =
	    "{\"time\":\"T\",\"source\":\"landlock\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"comm\":\"\\u001b[2Jx\",\"blockers\":\"fs.write_file\","
	    "\"path\":\"/w/a\\n--allow tcp:10.0.0.1:22\"}\n"
	    "{\"time\":\"T\",\"source\":\"dns\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"name\":\"x.test\\n--profile dev\",\"rule\":\"no-name\"}\n"
	    "{\"time\":\"T\",\"source\":\"landlock\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"comm\":\"sh\",\"blockers\":\"fs.write_file,fs.truncate\",\"path\":\"/w/b c\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"proto\":\"tcp\",\"dst\":\"10.0.0.1\",\"port\":80,\"rule\":\"special:\\u001b[2J\"}\n";
	char *t = run(EVIL, MODE_TEXT, 0, NULL);

	(void)state;
	assert_non_null(strstr(t, "fs.write_file /w/a\\x0a--allow tcp:10.0.0.1:22 by \\x1b[2Jx\n"));
	assert_non_null(strstr(t, "x.test\\x0a--profile dev: no-name\n"));
	free(t);
	t = run(EVIL, MODE_POLICY, 0, NULL);
	/* Every line a comment but the one plain path's. */
	for (const char *l = t; *l; l = strchr(l, '\n') + 1)
		assert_true(*l == '#' || !strncmp(l, "--landlock-rw /w/b c\n", 21));
	assert_non_null(strstr(t, "--landlock-rw /w/b c\n"));
	/* The rule a private destination's warning names, escaped too (found by fuzz_otolog). */
	assert_non_null(strstr(t, "WARNING: a private destination (special:\\x1b[2J)"));
	free(t);
}

static void test_bad_lines_counted(void **state)
{
	static const char MIXED[] =
	    "not json\n"
	    "{\"time\":\"T\",\"source\":\"seccomp\",\"session\":\"s\",\"verdict\":\"deny\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"bad id\",\"verdict\":\"deny\","
	    "\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":1,\"rule\":\"no-public\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"maybe\","
	    "\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":1,\"rule\":\"no-public\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":\"1\",\"rule\":\"no-public\"}\n"
	    "{\"time\":\"T\",\"source\":\"future\",\"session\":\"s\",\"verdict\":\"deny\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\",\"session\":\"s\",\"verdict\":\"deny\","
	    "\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":1,\"rule\":\"no-public\"}\n"
	    "{\"time\":\"T\",\"source\":\"net\"";
	struct otolog k;
	char *t, warn[512];

	(void)state;
	t = run(MIXED, MODE_TEXT, 0, &k);
	assert_int_equal(k.read, 1);
	assert_int_equal(k.malformed, 5);
	assert_int_equal(k.unknown, 1);
	assert_int_equal(k.cut, 1);
	assert_int_equal(otolog_skipped(&k), 6);
	otolog_skipped_text(&k, warn, sizeof(warn));
	assert_string_equal(warn, "7 of 8 lines not read: 5 malformed (the first, line 1: not a "
				  "JSON object), 1 without its newline (cut), 1 of a source otolog "
				  "does not know");
	assert_non_null(strstr(t, "         1  tcp 1.2.3.4 port 1: no-public\n"));
	free(t);
	/* otogate's own line: no source, no session. */
	t = run("{\"time\":1733.120,\"grant\":\"api\",\"method\":\"POST\",\"host\":\"api.test\","
		"\"path\":\"/v1\",\"status\":403,\"bytes_up\":0,\"bytes_down\":0,"
		"\"error\":\"method not allowed\"}\n",
		MODE_TEXT, 0, &k);
	assert_string_equal(t, "requests outside any session (otogate's own log)\n"
			       "  gateway requests:\n"
			       "         1  api.test 403 (grant api): method not allowed\n"
			       "  nothing refused\n");
	free(t);
	t = run("{\"time\":1733.120,\"grant\":\"api\",\"method\":\"POST\",\"host\":\"api.test\","
		"\"path\":\"/v1\",\"status\":403,\"error\":\"method not allowed\"}\n"
		"{\"time\":1733.121,\"grant\":\"api\",\"host\":\"api.test\",\"status\":200}\n",
		MODE_POLICY, 0, &k);
	assert_non_null(strstr(t, "# session (none)\n# wanted 1 time: api.test answered 403 by the "
				  "gateway (method not allowed), grant api: its --grant decides "
				  "(otogate(1), allow=)\n"));
	assert_null(strstr(t, " 200 "));
	free(t);
}

/*
 * Lines made by the writers themselves (lib/session_line.c, otons'
 * seccomp and Landlock formatters), with what the agent chooses in them: a
 * program's name with a quote and an escape byte, a path the audit wrote in
 * hex with a blank and a newline.
 */
static void test_writers_lines(void **state)
{
	static const char *const ARGV[] = {
		"/opt/oto/bin/otons", "--log-fd", "3", "--", "/opt/oto/bin/otoexec", "--",
		"/w/agent",	      "run",	  NULL
	};
	static const char BODY[] = "domain=1e5c09ee7 blockers=fs.write_file,fs.truncate "
				   "path=2F746D702F6120620A dev=\"vda\" ino=12";
	static const char SYS[] = "arch=c000003e syscall=257 success=no exit=-13 pid=4242 "
				  "comm=6361742078 exe=\"/usr/bin/cat\"";
	struct session sn = { .id = "w1" };
	struct timespec t = { .tv_sec = 1764568800, .tv_nsec = 123456789 };
	struct otons_refusal rf = { .session = "w1",
				    .pid = 42,
				    .comm = "py\"\x1b",
				    .exe = "/p",
				    .name = "unshare",
				    .nr = 272,
				    .count = 1 };
	char *text = calloc(1, 65536), *out;
	size_t at = 0;

	(void)state;
	assert_non_null(text);
	at += session_open_line(text + at, 65536 - at, &t, &sn, "otons", 1000, "agent", ARGV);
	at += (size_t)otons_refusal_format(text + at, 65536 - at, &t, &rf);
	rf.count = 2;
	at += (size_t)otons_refusal_format(text + at, 65536 - at, &t, &rf);
	at += (size_t)otons_landlock_format(text + at, 65536 - at, &t, "w1", 4242, BODY,
					    strlen(BODY), SYS, strlen(SYS), 1);
	at += session_close_line(text + at, 65536 - at, &t, &sn, 137, SESSION_END_EXIT, 0,
				 1500000000LL);
	assert_int_equal(strlen(text), at);
	out = run(text, MODE_TEXT, 0, NULL);
	assert_string_equal(out,
			    "session w1\n"
			    "  opened by otons as agent (uid 1000)\n"
			    "  chain otons otoexec agent\n"
			    "  from 2025-12-01T06:00:00.123456Z to 2025-12-01T06:00:00.123456Z\n"
			    "  closed after 1500.000 ms, exit 137 (signal 9)\n"
			    "  refused, system calls:\n"
			    "         2  unshare by py\"\\x1b\n"
			    "  refused, Landlock:\n"
			    "         1  fs.write_file,fs.truncate /tmp/a b\\x0a by cat x\n");
	free(out);
	out = run(text, MODE_POLICY, 0, NULL);
	/* The path holds a newline: a comment, never a line. */
	assert_non_null(strstr(out, "# wanted 1 time: fs.write_file,fs.truncate of /tmp/a b\\x0a "
				    "refused, by cat x: no otorun option allows it\n"));
	free(out);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reads),
		cmocka_unit_test(test_json_refuses),
		cmocka_unit_test(test_lines_every_cut),
		cmocka_unit_test(test_lines_bound),
		cmocka_unit_test(test_summary_text),
		cmocka_unit_test(test_summary_json),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_counts_between_lines),
		cmocka_unit_test(test_asked),
		cmocka_unit_test(test_net_counts_and_budget),
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_bad_lines_counted),
		cmocka_unit_test(test_writers_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
