// UNIT: lib/cidr.c lib/opt.c cmd/otonet/dns.c cmd/otonet/parse.c
/* otonet's names, pure: DNS messages (parse, hide, chain), --allow-name (test_otonet_names: first
 * bytes). */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cidr.h"
#include "oto.h"
#include "otonet/otonet.h"

/* ---- building messages -------------------------------------------------- */

struct msg {
	uint8_t b[4096];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, unsigned int v)
{
	uint8_t x[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, x, 2);
}

static void put32(struct msg *m, uint32_t v)
{
	put16(m, v >> 16);
	put16(m, v & 0xffff);
}

/* A name in labels ("a.b"), or a pointer to off when name is NULL. */
static void name(struct msg *m, const char *s, int ptr)
{
	if (!s) {
		put16(m, 0xc000 | (unsigned int)ptr);
		return;
	}
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		uint8_t lb = (uint8_t)l;

		put(m, &lb, 1);
		put(m, s, l);
		s += l + !!dot;
	}
	put(m, "", 1);
}

static void header(struct msg *m, unsigned int flags, unsigned int an, unsigned int ns,
		   unsigned int ar)
{
	m->n = 0;
	put16(m, 0x1234);
	put16(m, flags);
	put16(m, 1);
	put16(m, an);
	put16(m, ns);
	put16(m, ar);
}

static void question(struct msg *m, const char *q, unsigned int type)
{
	name(m, q, 0);
	put16(m, type);
	put16(m, 1);
}

/* A record with its owner by pointer (ptr >= 0) or in full (owner). */
static void rr(struct msg *m, const char *owner, int ptr, unsigned int type, uint32_t ttl,
	       const void *rd, size_t rdlen)
{
	name(m, owner, ptr);
	put16(m, type);
	put16(m, 1);
	put32(m, ttl);
	put16(m, (unsigned int)rdlen);
	put(m, rd, rdlen);
}

static void rr_a(struct msg *m, const char *owner, int ptr, const char *addr, uint32_t ttl)
{
	uint8_t a[16];
	int v6 = strchr(addr, ':') != NULL;

	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, addr, a), 1);
	rr(m, owner, ptr, v6 ? DNS_T_AAAA : DNS_T_A, ttl, a, v6 ? 16 : 4);
}

static void rr_cname(struct msg *m, const char *owner, int ptr, const char *target)
{
	struct msg t = { .n = 0 };

	name(&t, target, 0);
	rr(m, owner, ptr, DNS_T_CNAME, 300, t.b, t.n);
}

/* Refused: 10/8 and 169.254/16 (what the relay's callback says of the special ranges). */
static int refused_private(void *ctx, const struct ipaddr *a)
{
	(void)ctx;
	return a->family == AF_INET && (a->a[0] == 10 || (a->a[0] == 169 && a->a[1] == 254));
}

static char got[16][64];
static uint32_t got_ttl[16];
static int ngot;

static void collect(void *ctx, const struct ipaddr *a, uint32_t ttl)
{
	(void)ctx;
	ipaddr_str(a, got[ngot], sizeof(got[0]));
	got_ttl[ngot++] = ttl;
}

/* ---- DNS ------------------------------------------------------------------ */

static void test_dns_parse_answer(void **state)
{
	struct msg m;
	struct dns_msg d;
	struct ipaddr a;
	char s[64];

	(void)state;
	header(&m, 0x8180, 2, 0, 0);
	question(&m, "WWW.Example.TEST", DNS_T_A);
	rr_a(&m, NULL, 12, "203.0.113.10", 30);
	rr_a(&m, NULL, 12, "2001:db8::1", 40);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_string_equal(d.qname, "www.example.test");
	assert_int_equal(d.qtype, DNS_T_A);
	assert_int_equal(d.nrr, 2);
	assert_int_equal(d.end, m.n);
	assert_int_equal(d.rr[0].ttl, 30);
	assert_int_equal(dns_rr_addr(m.b, &d.rr[1], &a), 0);
	assert_string_equal(ipaddr_str(&a, s, sizeof(s)), "2001:db8::1");
}

static void test_dns_parse_malformed(void **state)
{
	struct msg m;
	struct dns_msg d;
	uint8_t a[5] = { 1, 2, 3, 4, 5 };

	(void)state;
	/* Short, truncated, a record past the end. */
	header(&m, 0x8180, 1, 0, 0);
	assert_int_equal(dns_parse(m.b, 11, &d), -1);
	question(&m, "a.test", DNS_T_A);
	rr_a(&m, NULL, 12, "10.0.0.1", 30);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_parse(m.b, m.n - 1, &d), -1);
	/* An A record of 5 bytes. */
	header(&m, 0x8180, 1, 0, 0);
	question(&m, "a.test", DNS_T_A);
	rr(&m, NULL, 12, DNS_T_A, 30, a, 5);
	assert_int_equal(dns_parse(m.b, m.n, &d), -1);
	/* A pointer to itself, and one forwards. */
	header(&m, 0x8180, 1, 0, 0);
	question(&m, "a.test", DNS_T_A);
	rr_a(&m, NULL, (int)m.n, "10.0.0.1", 30);
	assert_int_equal(dns_parse(m.b, m.n, &d), -1);
	header(&m, 0x8180, 1, 0, 0);
	question(&m, "a.test", DNS_T_A);
	rr_a(&m, NULL, (int)m.n + 2, "10.0.0.1", 30);
	assert_int_equal(dns_parse(m.b, m.n, &d), -1);
	/* A label with a dot in it ("a.inet" "test" is not a.inet.test). */
	header(&m, 0x8180, 0, 0, 0);
	question(&m, "x", DNS_T_A);
	m.b[13] = '.';
	assert_int_equal(dns_parse(m.b, m.n, &d), -1);
	/* Two questions. */
	header(&m, 0x8180, 0, 0, 0);
	m.b[5] = 2;
	question(&m, "a.test", DNS_T_A);
	question(&m, "b.test", DNS_T_A);
	assert_int_equal(dns_parse(m.b, m.n, &d), -1);
}

static void test_dns_hide_all_becomes_nxdomain(void **state)
{
	struct msg m;
	struct dns_msg d;
	size_t len, qend;

	(void)state;
	/* lan.test CNAME db.corp, db.corp A 10.77.0.5; glue 169.254.169.254. */
	header(&m, 0x8180, 2, 0, 1);
	question(&m, "lan.test", DNS_T_A);
	qend = m.n;
	rr_cname(&m, NULL, 12, "db.corp");
	rr_a(&m, "db.corp", 0, "10.77.0.5", 30);
	rr_a(&m, "ns.corp", 0, "169.254.169.254", 30);
	len = m.n;
	assert_int_equal(dns_parse(m.b, len, &d), 0);
	assert_int_equal(dns_hide(m.b, &d, refused_private, NULL), 2);
	/* NXDOMAIN, the question alone, the rest zeroed in place. */
	assert_int_equal(m.b[3] & 0xf, DNS_NXDOMAIN);
	assert_int_equal(m.b[2] & 0x80, 0x80);
	for (int i = 6; i < 12; i++)
		assert_int_equal(m.b[i], 0);
	for (size_t i = qend; i < len; i++)
		assert_int_equal(m.b[i], 0);
	assert_int_equal(dns_parse(m.b, qend, &d), 0);
	assert_int_equal(d.nrr, 0);
	assert_string_equal(d.qname, "lan.test");
}

static void test_dns_hide_mixed_keeps_public(void **state)
{
	struct msg m;
	struct dns_msg d;
	static const uint8_t zero[4];

	(void)state;
	header(&m, 0x8180, 2, 0, 0);
	question(&m, "mixed.test", DNS_T_A);
	rr_a(&m, NULL, 12, "10.1.2.3", 30);
	rr_a(&m, NULL, 12, "203.0.113.10", 30);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_hide(m.b, &d, refused_private, NULL), 1);
	assert_int_equal(m.b[3] & 0xf, DNS_NOERROR);
	/* The hidden record: another type, no address, no TTL; the length kept. */
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(d.nrr, 2);
	assert_int_equal(d.rr[0].type, DNS_T_HIDDEN);
	assert_int_equal(d.rr[0].ttl, 0);
	assert_memory_equal(m.b + d.rr[0].rdoff, zero, 4);
	ngot = 0;
	assert_int_equal(dns_chain(m.b, m.n, &d, collect, NULL), 1);
	assert_string_equal(got[0], "203.0.113.10");
	/* Nothing refused: nothing changes. */
	header(&m, 0x8180, 1, 0, 0);
	question(&m, "pub.test", DNS_T_A);
	rr_a(&m, NULL, 12, "203.0.113.10", 30);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_hide(m.b, &d, refused_private, NULL), 0);
	assert_int_equal(m.b[7], 1);
}

/* An HTTPS record's address hints: the refused ones zeroed, the rest kept. */
static void test_dns_hide_https_hints(void **state)
{
	struct msg m, rd = { .n = 0 };
	struct dns_msg d;
	uint8_t v4[8] = { 10, 77, 0, 5, 203, 0, 113, 10 }, v6[16] = { 0xfd, 0, [15] = 1 };
	static const uint8_t zero[16];
	size_t hints;

	(void)state;
	put16(&rd, 1);	  /* priority */
	name(&rd, "", 0); /* target: the owner */
	put16(&rd, 1);	  /* alpn */
	put16(&rd, 3);
	put(&rd, "\2h2", 3);
	put16(&rd, 4); /* ipv4hint */
	put16(&rd, 8);
	hints = rd.n;
	put(&rd, v4, 8);
	put16(&rd, 6); /* ipv6hint */
	put16(&rd, 16);
	put(&rd, v6, 16);
	header(&m, 0x8180, 1, 0, 0);
	question(&m, "svc.test", DNS_T_HTTPS);
	rr(&m, NULL, 12, DNS_T_HTTPS, 300, rd.b, rd.n);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_hide(m.b, &d, refused_private, NULL), 1);
	assert_int_equal(m.b[3] & 0xf, DNS_NOERROR);
	assert_memory_equal(m.b + d.rr[0].rdoff + hints, zero, 4);
	assert_memory_equal(m.b + d.rr[0].rdoff + hints + 4, v4 + 4, 4);
	assert_memory_equal(m.b + d.rr[0].rdoff + hints + 12, v6,
			    16); /* fd00::1: not refused here */
	/* Data that does not read (a hint of 5 bytes): the record hidden whole. */
	m.b[d.rr[0].rdoff + hints - 1] = 5;
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_hide(m.b, &d, refused_private, NULL), 1);
	assert_int_equal(d.rr[0].type, DNS_T_HIDDEN);
	assert_memory_equal(m.b + d.rr[0].rdoff, zero, 16);
}

static void test_dns_chain_follows_cnames(void **state)
{
	struct msg m;
	struct dns_msg d;

	(void)state;
	/* a.inet.test CNAME b.cdn.test CNAME c.cdn.test A x; unrelated.test A y. */
	header(&m, 0x8180, 5, 0, 1);
	question(&m, "a.inet.test", DNS_T_A);
	rr_a(&m, "c.cdn.test", 0, "203.0.113.3", 20);
	rr_cname(&m, NULL, 12, "b.cdn.test");
	rr_cname(&m, "b.cdn.test", 0, "c.cdn.test");
	rr_a(&m, "unrelated.test", 0, "203.0.113.99", 20);
	rr_a(&m, NULL, 12, "2001:db8::7", 90);
	rr_a(&m, "c.cdn.test", 0, "203.0.113.4", 20); /* additional: not in the answer */
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	ngot = 0;
	assert_int_equal(dns_chain(m.b, m.n, &d, collect, NULL), 2);
	assert_string_equal(got[0], "203.0.113.3");
	assert_int_equal(got_ttl[0], 20);
	assert_string_equal(got[1], "2001:db8::7");
	/* An NXDOMAIN leads nowhere. */
	m.b[3] = 0x83;
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_chain(m.b, m.n, &d, collect, NULL), 0);
}

/* A reverse name's prefix as text, or NULL when it is not one. */
static const char *rev(const char *name)
{
	static char buf[64];
	struct cidr c;

	if (dns_rev_prefix(name, &c) < 0)
		return NULL;
	return cidr_str(&c, buf, sizeof(buf));
}

static void test_dns_rcode_and_ptr(void **state)
{
	struct msg m;
	struct dns_msg d;

	(void)state;
	header(&m, 0x0100, 0, 0, 0);
	question(&m, "refused.test", DNS_T_A);
	assert_int_equal(dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(dns_rcode(m.b, &d, DNS_NXDOMAIN), m.n);
	assert_int_equal(m.b[2], 0x81); /* QR, RD kept */
	assert_int_equal(m.b[3], 0x83); /* RA, NXDOMAIN */
	assert_int_equal(m.b[0], 0x12);
	assert_string_equal(rev("5.0.77.10.in-addr.arpa"), "10.77.0.5/32");
	assert_string_equal(
	    rev("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa"),
	    "fd00::1/128");
	/* A zone above an address, and a name under one: the same addresses. */
	assert_string_equal(rev("77.10.in-addr.arpa"), "10.77.0.0/16");
	assert_string_equal(rev("10.in-addr.arpa"), "10.0.0.0/8");
	assert_string_equal(rev("in-addr.arpa"), "0.0.0.0/0");
	assert_string_equal(rev("0/25.1.168.192.in-addr.arpa"), "192.168.1.0/24");
	assert_string_equal(rev("_x.5.0.77.10.in-addr.arpa"), "10.77.0.5/32");
	assert_string_equal(rev("9.5.0.77.10.in-addr.arpa"), "10.77.0.5/32");
	assert_string_equal(rev("5.0.77.256.in-addr.arpa"), "0.0.0.0/0");
	assert_string_equal(rev("5.0.077.10.in-addr.arpa"), "10.0.0.0/8");
	assert_string_equal(rev("d.f.ip6.arpa"), "fd00::/8");
	assert_string_equal(rev("ip6.arpa"), "::/0");
	assert_string_equal(rev("ab.d.f.ip6.arpa"), "fd00::/8");
	assert_null(rev("a.test"));
	assert_null(rev("xin-addr.arpa"));
	assert_null(rev("in-addr.arpa.test"));
}

/* One plain question, or the reason it is not. */
static void test_dns_question_refused(void **state)
{
	/* clang-format off */
	static const struct { const char *hex, *why; } T[] = {
		{ "12340100000100000000000002616e07312d322d332d3403646e7304746573740000010001", NULL },
		{ "43210100000100000000000102616e07312d322d332d3403646e7304746573740000010001"
		  "0000291000000000000000", NULL },
		/* UPDATE, NOTIFY, a response */
		{ "12342800000100000001000004636f72700000060001047770616404636f727000000100010000003c"
		  "00040a000001", "dns-opcode" },
		{ "12342000000100000000000004636f72700000060001", "dns-opcode" },
		{ "123481800001000000000000016104696e657404746573740000010001", "dns-response" },
		/* two questions, none, an answer, bytes after, an additional that is not OPT */
		{ "123401000002000000000000016104696e657404746573740000010001016204696e657404746573"
		  "740000010001", "dns-shape" },
		{ "123401000000000000000000", "dns-shape" },
		{ "123401000001000100000000016104696e657404746573740000010001016104696e65740474657374"
		  "00000100010000003c000401020304", "dns-shape" },
		{ "123401000001000000000000016104696e6574047465737400000100017878", "dns-shape" },
		{ "123401000001000000000001016104696e657404746573740000010001016104696e65740474657374"
		  "00000100010000003c000401020304", "dns-shape" },
		/* an OPT whose owner is not the root */
		{ "123401000001000000000001016104696e657404746573740000010001c00c00291000000000000000",
		  "dns-shape" },
		{ "12340000000100000000000004636f72700000fc0001", "dns-type" },
		{ "12340000000100000000000004636f72700000fb0001", "dns-type" },
		{ "1234010000010000000000000776657273696f6e0462696e640000100003", "dns-class" },
		{ "123401000001000000000000ffffffff", "dns-malformed" },
		{ "deadbeef", "dns-malformed" },
		{ "", "dns-malformed" },
	};
	/* clang-format on */
	static struct dns_msg d;

	(void)state;
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
		uint8_t m[256];
		size_t n = strlen(T[i].hex) / 2;
		const char *why;

		for (size_t k = 0; k < n; k++)
			sscanf(T[i].hex + 2 * k, "%2hhx", &m[k]);
		why = dns_question_refused(m, n, &d);
		if (T[i].why == NULL ? why != NULL : why == NULL || strcmp(why, T[i].why))
			fail_msg("case %zu: %s, expected %s", i, why ? why : "(null)",
				 T[i].why ? T[i].why : "(null)");
	}
	assert_null(dns_question_refused(
	    (const uint8_t
		 *)"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01\x61\x00\x00\x01\x00\x01",
	    19, &d));
	assert_string_equal(d.qname, "a");
}

static void test_name_match_and_rules(void **state)
{
	char pat[DNS_NAME_MAX];
	uint16_t port;

	(void)state;
	assert_true(name_match("*.inet.test", "a.inet.test"));
	assert_true(name_match("*.inet.test", "b.a.inet.test"));
	assert_false(name_match("*.inet.test", "inet.test"));
	assert_false(name_match("*.inet.test", "xinet.test"));
	assert_false(name_match("*.inet.test", "other.test"));
	assert_true(name_match("files.example.org", "files.example.org"));
	assert_false(name_match("files.example.org", "a.files.example.org"));
	assert_int_equal(name_rule_parse("*.Example.NET.:443", pat, &port), 0);
	assert_string_equal(pat, "*.example.net");
	assert_int_equal(port, 443);
	assert_int_equal(name_rule_parse("files.example.org", pat, &port), 0);
	assert_string_equal(pat, "files.example.org");
	assert_int_equal(port, 0);
	assert_int_equal(name_rule_parse("localhost", pat, &port), 0);
	static const char *const BAD[] = { "",	      "*.test",	      "*",	 "a..b",
					   ".a",      "a.*.b",	      "*a.test", "a.test:0",
					   "a.test:", "a.test:65536", "a b",	 "a.test:x",
					   "*.",      "a.test:01" };
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		errno = 0;
		assert_int_equal(name_rule_parse(BAD[i], pat, &port), -1);
		assert_int_equal(errno, EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dns_parse_answer),
		cmocka_unit_test(test_dns_parse_malformed),
		cmocka_unit_test(test_dns_hide_all_becomes_nxdomain),
		cmocka_unit_test(test_dns_hide_mixed_keeps_public),
		cmocka_unit_test(test_dns_hide_https_hints),
		cmocka_unit_test(test_dns_chain_follows_cnames),
		cmocka_unit_test(test_dns_rcode_and_ptr),
		cmocka_unit_test(test_name_match_and_rules),
		cmocka_unit_test(test_dns_question_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
