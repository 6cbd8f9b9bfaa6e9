// UNIT: lib/cidr.c lib/opt.c cmd/otonet/filter.c cmd/otonet/pkt.c cmd/otonet/parse.c
/* otonet's pure code: address classes, the filter, packet parsing and building. */
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

static struct ipaddr ipa(const char *s)
{
	struct ipaddr a;

	assert_int_equal(ipaddr_parse(s, &a), 0);
	return a;
}

static const char *special(const char *s)
{
	struct ipaddr a = ipa(s);

	return cidr_special(&a);
}

/* Each range: an address just inside at both ends, and just outside at both. */
static const struct {
	const char *addr;
	const char *range; /* NULL: global */
} CASES[] = {
	{ "0.0.0.0", "0.0.0.0/8" },
	{ "0.255.255.255", "0.0.0.0/8" },
	{ "1.0.0.0", NULL },
	{ "9.255.255.255", NULL },
	{ "10.0.0.0", "10.0.0.0/8" },
	{ "10.0.0.1", "10.0.0.0/8" },
	{ "10.255.255.255", "10.0.0.0/8" },
	{ "11.0.0.0", NULL },
	{ "100.63.255.255", NULL },
	{ "100.64.0.0", "100.64.0.0/10" },
	{ "100.64.0.1", "100.64.0.0/10" },
	{ "100.127.255.255", "100.64.0.0/10" },
	{ "100.128.0.0", NULL },
	{ "126.255.255.255", NULL },
	{ "127.0.0.0", "127.0.0.0/8" },
	{ "127.0.0.1", "127.0.0.0/8" },
	{ "127.255.255.255", "127.0.0.0/8" },
	{ "128.0.0.0", NULL },
	{ "169.253.255.255", NULL },
	{ "169.254.0.0", "169.254.0.0/16" },
	{ "169.254.169.254", "169.254.0.0/16" },
	{ "169.254.255.255", "169.254.0.0/16" },
	{ "169.255.0.0", NULL },
	{ "172.15.255.255", NULL },
	{ "172.16.0.0", "172.16.0.0/12" },
	{ "172.16.0.1", "172.16.0.0/12" },
	{ "172.31.255.255", "172.16.0.0/12" },
	{ "172.32.0.0", NULL },
	{ "191.255.255.255", NULL },
	{ "192.0.0.0", "192.0.0.0/24" },
	{ "192.0.0.192", "192.0.0.0/24" },
	{ "192.0.0.255", "192.0.0.0/24" },
	{ "192.0.1.0", NULL },
	{ "192.0.2.0", "192.0.2.0/24" },
	{ "192.0.2.255", "192.0.2.0/24" },
	{ "192.0.3.0", NULL },
	{ "192.88.98.255", NULL },
	{ "192.88.99.0", "192.88.99.0/24" },
	{ "192.88.99.255", "192.88.99.0/24" },
	{ "192.88.100.0", NULL },
	{ "192.167.255.255", NULL },
	{ "192.168.0.0", "192.168.0.0/16" },
	{ "192.168.1.1", "192.168.0.0/16" },
	{ "192.168.255.255", "192.168.0.0/16" },
	{ "192.169.0.0", NULL },
	{ "198.17.255.255", NULL },
	{ "198.18.0.0", "198.18.0.0/15" },
	{ "198.18.0.1", "198.18.0.0/15" },
	{ "198.19.255.255", "198.18.0.0/15" },
	{ "198.20.0.0", NULL },
	{ "198.51.99.255", NULL },
	{ "198.51.100.0", "198.51.100.0/24" },
	{ "198.51.100.255", "198.51.100.0/24" },
	{ "198.51.101.0", NULL },
	{ "203.0.112.255", NULL },
	{ "203.0.113.0", "203.0.113.0/24" },
	{ "203.0.113.255", "203.0.113.0/24" },
	{ "203.0.114.0", NULL },
	{ "223.255.255.255", NULL },
	{ "224.0.0.0", "224.0.0.0/4" },
	{ "224.0.0.1", "224.0.0.0/4" },
	{ "239.255.255.255", "224.0.0.0/4" },
	{ "240.0.0.0", "240.0.0.0/4" },
	{ "255.255.255.254", "240.0.0.0/4" },
	{ "255.255.255.255", "255.255.255.255/32" },
	{ "8.8.8.8", NULL },
	{ "1.1.1.1", NULL },
	/* IPv6 */
	{ "::", "::/128" },
	{ "::1", "::1/128" },
	{ "::2", "::/96" },
	{ "::a00:1", "::/96" }, /* compatible 10.0.0.1 */
	{ "::ffff:ffff", "::/96" },
	{ "::1:0:0", "not-2000::/3" },
	{ "::fffe:ffff:ffff", "not-2000::/3" },
	{ "::ffff:0:0", "::ffff:0:0/96" },
	{ "::ffff:10.0.0.1", "::ffff:0:0/96" },
	{ "::ffff:8.8.8.8", "::ffff:0:0/96" }, /* even a public one: refused whole */
	{ "::ffff:255.255.255.255", "::ffff:0:0/96" },
	{ "64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "not-2000::/3" },
	{ "64:ff9b::", "64:ff9b::/96" },
	{ "64:ff9b::a9fe:a9fe", "64:ff9b::/96" },
	{ "64:ff9b::ffff:ffff", "64:ff9b::/96" },
	{ "64:ff9b::1:0:0", "not-2000::/3" },
	{ "64:ff9b:1::", "64:ff9b:1::/48" },
	{ "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "64:ff9b:1::/48" },
	{ "64:ff9b:2::", "not-2000::/3" },
	{ "100::", "100::/64" },
	{ "100::ffff:ffff:ffff:ffff", "100::/64" },
	{ "100:0:0:1::", "not-2000::/3" },
	{ "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "not-2000::/3" },
	{ "2000::", NULL },
	{ "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", NULL },
	{ "2001::", "2001::/32" },
	{ "2001:0:a9fe:a9fe::1", "2001::/32" }, /* Teredo */
	{ "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "2001::/32" },
	{ "2001:1::1", "2001::/23" },
	{ "2001:2::1", "2001::/23" },
	{ "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", "2001::/23" },
	{ "2001:200::", NULL },
	{ "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", NULL },
	{ "2001:db8::", "2001:db8::/32" },
	{ "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db8::/32" },
	{ "2001:db9::", NULL },
	{ "2001:4860:4860::8888", NULL },
	{ "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", NULL },
	{ "2002::", "2002::/16" },
	{ "2002:a9fe:a9fe::1", "2002::/16" },
	{ "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2002::/16" },
	{ "2003::", NULL },
	{ "2606:4700::1111", NULL },
	{ "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", NULL },
	{ "3fff::", "3fff::/20" },
	{ "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff::/20" },
	{ "3fff:1000::", NULL },
	{ "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", NULL },
	{ "4000::", "not-2000::/3" },
	{ "5f00::1", "5f00::/16" },
	{ "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "not-2000::/3" },
	{ "fc00::", "fc00::/7" },
	{ "fd00::1", "fc00::/7" },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::/7" },
	{ "fe00::", "not-2000::/3" },
	{ "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "not-2000::/3" },
	{ "fe80::", "fe80::/10" },
	{ "fe80::1", "fe80::/10" },
	{ "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::/10" },
	{ "fec0::", "fec0::/10" },
	{ "fec0::1", "fec0::/10" },
	{ "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::/10" },
	{ "ff00::", "ff00::/8" },
	{ "ff02::1", "ff00::/8" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ff00::/8" },
};

static void test_special_ranges(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		const char *got = special(CASES[i].addr);

		if (!CASES[i].range) {
			if (got)
				fail_msg("%s: expected global, got %s", CASES[i].addr, got);
		} else if (!got || strcmp(got, CASES[i].range)) {
			fail_msg("%s: expected %s, got %s", CASES[i].addr, CASES[i].range,
				 got ? got : "global");
		}
	}
}

/* Every table entry parses back to itself: the text is the range. */
static void test_special_table_text(void **state)
{
	size_t n;
	const struct cidr_special_range *t = cidr_special_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct cidr c;
		char buf[80];

		assert_int_equal(cidr_parse(t[i].text, &c), 0);
		assert_int_equal(c.len, t[i].range.len);
		assert_true(ipaddr_equal(&c.addr, &t[i].range.addr));
		/* Printed and parsed again, the same range (spelling may differ). */
		struct cidr back;

		assert_int_equal(cidr_parse(cidr_str(&c, buf, sizeof(buf)), &back), 0);
		assert_true(ipaddr_equal(&back.addr, &c.addr) && back.len == c.len);
	}
}

static void test_cidr_parse(void **state)
{
	struct cidr c;
	struct ipaddr a;
	const char *bad[] = { "",	    "/8",	   "10.0.0.0/", "10.0.0.0/33", "10.0.0.1/8",
			      "fd00::/129", "fd00::1/8",   "10.0.0",	"1.2.3.4/-1",  "[fd00::]/8",
			      "x",	    "10.0.0.0/8x", NULL };

	(void)state;
	assert_int_equal(cidr_parse("203.0.113.0/24", &c), 0);
	assert_int_equal(c.len, 24);
	a = ipa("203.0.113.255");
	assert_true(cidr_contains(&c, &a));
	a = ipa("203.0.114.0");
	assert_false(cidr_contains(&c, &a));
	a = ipa("::ffff:203.0.113.1"); /* another family never matches */
	assert_false(cidr_contains(&c, &a));
	assert_int_equal(cidr_parse("2001:db8:1::/64", &c), 0);
	a = ipa("2001:db8:1::ffff");
	assert_true(cidr_contains(&c, &a));
	a = ipa("2001:db8:2::");
	assert_false(cidr_contains(&c, &a));
	assert_int_equal(cidr_parse("0.0.0.0/0", &c), 0);
	a = ipa("1.2.3.4");
	assert_true(cidr_contains(&c, &a));
	assert_int_equal(cidr_parse("10.1.2.3", &c), 0);
	assert_int_equal(c.len, 32);
	assert_int_equal(cidr_parse("100.64.0.0/10", &c), 0);
	a = ipa("100.127.0.1");
	assert_true(cidr_contains(&c, &a));
	a = ipa("100.128.0.1");
	assert_false(cidr_contains(&c, &a));
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		if (cidr_parse(bad[i], &c) != -1 || errno != EINVAL)
			fail_msg("cidr_parse accepted %s", bad[i]);
	}
	assert_int_equal(ipaddr_parse("[fd00::3]", &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(ipaddr_parse("[10.0.0.1]", &a), -1);
}

static struct filter *base_filter(void)
{
	static struct filter f;

	memset(&f, 0, sizeof(f));
	f.dns4 = ipa("10.0.2.3");
	f.dns6 = ipa("fd00::3");
	f.allow[0] = (struct net_rule){ PROTO_TCP, ipa("10.1.0.10"), 8086 };
	f.allow[1] = (struct net_rule){ PROTO_UDP, ipa("fd12::5"), 53 };
	f.nallow = 2;
	f.host[0] = ipa("203.0.113.1");
	f.host[1] = ipa("192.0.2.9");
	f.nhost = 2;
	cidr_parse("203.0.113.0/24", &f.pub[0]);
	f.npub = 1;
	return &f;
}

static void expect(const struct filter *f, int proto, const char *dst, uint16_t port,
		   enum verdict v, const char *rule)
{
	struct decision d;
	struct ipaddr a = ipa(dst);

	filter_decide(f, proto, &a, port, &d);
	if (d.verdict != v || strcmp(d.rule, rule))
		fail_msg("%d %s:%u: expected %s %s, got %s %s", proto, dst, port,
			 v == V_ALLOW ? "allow" : "deny", rule,
			 d.verdict == V_ALLOW ? "allow" : "deny", d.rule);
}

static void test_filter_order(void **state)
{
	struct filter *f = base_filter();

	(void)state;
	expect(f, PROTO_TCP, "10.1.0.10", 8086, V_ALLOW, "exception");
	expect(f, PROTO_TCP, "10.1.0.10", 8087, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_UDP, "10.1.0.10", 8086, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_TCP, "10.1.0.11", 8086, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_UDP, "fd12::5", 53, V_ALLOW, "exception");
	expect(f, PROTO_TCP, "fd12::5", 53, V_DENY, "special:fc00::/7");
	expect(f, PROTO_UDP, "10.0.2.3", 53, V_ALLOW, "dns");
	expect(f, PROTO_TCP, "10.0.2.3", 53, V_ALLOW, "dns");
	expect(f, PROTO_UDP, "fd00::3", 53, V_ALLOW, "dns");
	expect(f, PROTO_TCP, "10.0.2.3", 54, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_ICMP, "10.0.2.3", 0, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_TCP, "10.0.2.2", 53, V_DENY, "special:10.0.0.0/8");
	/* The host's own address stays closed inside a --public range. */
	expect(f, PROTO_TCP, "203.0.113.1", 80, V_DENY, "host-address");
	expect(f, PROTO_TCP, "203.0.113.10", 80, V_ALLOW, "public");
	expect(f, PROTO_TCP, "192.0.2.9", 80, V_DENY, "host-address");
	expect(f, PROTO_TCP, "198.51.100.1", 80, V_DENY, "special:198.51.100.0/24");
	expect(f, PROTO_TCP, "8.8.8.8", 443, V_ALLOW, "public");
	expect(f, PROTO_ICMP, "8.8.8.8", 0, V_ALLOW, "public");
	expect(f, PROTO_TCP, "2606:4700::1111", 443, V_ALLOW, "public");
	expect(f, PROTO_TCP, "::ffff:10.1.0.10", 8086, V_DENY, "special:::ffff:0:0/96");
	expect(f, PROTO_TCP, "64:ff9b::a9fe:a9fe", 80, V_DENY, "special:64:ff9b::/96");
	f->no_public = 1;
	expect(f, PROTO_TCP, "8.8.8.8", 443, V_DENY, "no-public");
	expect(f, PROTO_TCP, "203.0.113.10", 80, V_DENY, "no-public");
	expect(f, PROTO_TCP, "10.1.0.10", 8086, V_ALLOW, "exception");
	expect(f, PROTO_UDP, "10.0.2.3", 53, V_ALLOW, "dns");
	expect(f, PROTO_TCP, "10.0.0.1", 80, V_DENY, "special:10.0.0.0/8");
}

static const char *pin(const struct filter *f, const char *s)
{
	struct ipaddr a = ipa(s);

	return filter_pin_refused(f, &a);
}

/* An --allow name's answer: never the host, link-local or metadata; a LAN is fine. */
static void test_filter_pin_refused(void **state)
{
	struct filter *f = base_filter();

	(void)state;
	assert_string_equal(pin(f, "127.0.0.1"), "a loopback address");
	assert_string_equal(pin(f, "127.9.9.9"), "a loopback address");
	assert_string_equal(pin(f, "::1"), "a loopback address");
	assert_string_equal(pin(f, "::ffff:127.0.0.1"), "a loopback address");
	assert_string_equal(pin(f, "0.0.0.0"), "an address of this host");
	assert_string_equal(pin(f, "::"), "an address of this host");
	assert_string_equal(pin(f, "169.254.169.254"), "the cloud metadata address");
	assert_string_equal(pin(f, "::ffff:169.254.169.254"), "the cloud metadata address");
	assert_string_equal(pin(f, "fd00:ec2::254"), "a cloud metadata address");
	assert_string_equal(pin(f, "100.100.100.200"), "a cloud metadata address");
	assert_string_equal(pin(f, "169.254.1.1"), "a link-local address");
	assert_string_equal(pin(f, "fe80::1"), "a link-local address");
	assert_string_equal(pin(f, "203.0.113.1"), "an address of the host itself");
	assert_string_equal(pin(f, "::ffff:203.0.113.1"), "an address of the host itself");
	assert_null(pin(f, "10.1.0.10"));
	assert_null(pin(f, "192.168.1.1"));
	assert_null(pin(f, "fd12::5"));
	assert_null(pin(f, "203.0.113.10"));
	assert_null(pin(f, "100.100.100.201"));
}

/* otogate's ports on 10.0.2.4 and fd00::4, TCP only; nothing else there. */
static void test_filter_gateway(void **state)
{
	struct filter *f = base_filter();

	(void)state;
	expect(f, PROTO_TCP, "10.0.2.4", 8001, V_DENY, "special:10.0.0.0/8");
	assert_int_equal(ipaddr_parse("10.0.2.4", &f->gw4), 0);
	assert_int_equal(ipaddr_parse("fd00::4", &f->gw6), 0);
	f->gw_port[0] = 8001;
	f->gw_port[1] = 8003;
	f->ngw = 2;
	f->no_public = 1;
	expect(f, PROTO_TCP, "10.0.2.4", 8001, V_ALLOW, "gateway");
	expect(f, PROTO_TCP, "fd00::4", 8003, V_ALLOW, "gateway");
	expect(f, PROTO_TCP, "10.0.2.4", 8002, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_UDP, "10.0.2.4", 8001, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_ICMP, "10.0.2.4", 0, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_TCP, "10.0.2.5", 8001, V_DENY, "special:10.0.0.0/8");
	expect(f, PROTO_TCP, "::ffff:10.0.2.4", 8001, V_DENY, "special:::ffff:0:0/96");
	expect(f, PROTO_TCP, "10.0.2.3", 8001, V_DENY, "special:10.0.0.0/8");
}

static void test_gateway_parse(void **state)
{
	static const char *const bad[] = {
		"",
		"5",
		"5:",
		":8001",
		"2:8001",
		"05:8001",
		"5:08001",
		"5:0",
		"5:65536",
		"5:8001,",
		"5:8001,,8002",
		"5:8001,8001",
		"5: 8001",
		"5:8001 ",
		"-5:8001",
		"5:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		"99999999:1",
		/* transparent grants' entries: PORT=HOST:HPORT */
		"5:8001=",
		"5:8001=a.test",
		"5:8001=a.test:",
		"5:8001=a.test:0",
		"5:8001=a.test:65536",
		"5:8001=*.a.test:443",
		"5:8001=a..test:443",
		"5:8001=a test:443",
		"5:8001=a.test:443,8001",
		"5:8001,8001=a.test:443",
		"5:8001=a.test:443,8002=A.test:443",
		"5:8001=a.test:443=b.test:443",
		"5:8001=a.test:443,",
		"5:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17=a.test:443",
	};
	uint16_t ports[NET_MAX_GATEWAY];
	struct gate_host gates[NET_MAX_GATEWAY];
	size_t n, ng;
	int fd;

	(void)state;
	assert_int_equal(gateway_parse("5:8001", &fd, ports, &n, gates, &ng), 0);
	assert_int_equal(fd, 5);
	assert_int_equal(n, 1);
	assert_int_equal(ports[0], 8001);
	assert_int_equal(gateway_parse("12:8001,443,65535,1", &fd, ports, &n, gates, &ng), 0);
	assert_int_equal(fd, 12);
	assert_int_equal(n, 4);
	assert_int_equal(ports[1], 443);
	assert_int_equal(ports[2], 65535);
	assert_int_equal(ports[3], 1);
	assert_int_equal(
	    gateway_parse("3:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &fd, ports, &n, gates, &ng),
	    0);
	assert_int_equal(n, 16);
	assert_int_equal(ng, 0);
	assert_int_equal(gateway_parse("7:8001,8002=Git.Example.test.:9443,8003=github.com:443",
				       &fd, ports, &n, gates, &ng),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(ports[0], 8001);
	assert_int_equal(ng, 2);
	assert_string_equal(gates[0].name, "git.example.test");
	assert_int_equal(gates[0].port, 9443);
	assert_int_equal(gates[0].gw_port, 8002);
	assert_string_equal(gates[1].name, "github.com");
	assert_int_equal(gates[1].gw_port, 8003);
	/* One host on two ports: two grants. */
	assert_int_equal(
	    gateway_parse("7:8001=a.test:443,8002=a.test:8443", &fd, ports, &n, gates, &ng), 0);
	assert_int_equal(ng, 2);
	assert_int_equal(gateway_parse(NULL, &fd, ports, &n, gates, &ng), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (gateway_parse(bad[i], &fd, ports, &n, gates, &ng) != -1 || errno != EINVAL)
			fail_msg("gateway_parse accepted <%s>", bad[i]);
	}
}

static void test_rule_split(void **state)
{
	char host[64];
	int proto;
	uint16_t port;
	const char *bad[] = { "tcp:1.2.3.4",
			      "icmp:1.2.3.4:80",
			      "tcp::80",
			      "tcp:1.2.3.4:0",
			      "tcp:1.2.3.4:65536",
			      "tcp:fd00::1:80",
			      "TCP:1.2.3.4:80",
			      "tcp:x:8x",
			      "",
			      NULL };

	(void)state;
	assert_int_equal(rule_split("tcp:10.1.0.10:8086", &proto, host, sizeof(host), &port), 0);
	assert_int_equal(proto, PROTO_TCP);
	assert_string_equal(host, "10.1.0.10");
	assert_int_equal(port, 8086);
	assert_int_equal(rule_split("udp:[fd00::1]:53", &proto, host, sizeof(host), &port), 0);
	assert_int_equal(proto, PROTO_UDP);
	assert_string_equal(host, "[fd00::1]");
	assert_int_equal(port, 53);
	assert_int_equal(rule_split("tcp:db.lan:5432", &proto, host, sizeof(host), &port), 0);
	assert_string_equal(host, "db.lan");
	for (int i = 0; bad[i]; i++)
		if (rule_split(bad[i], &proto, host, sizeof(host), &port) != -1)
			fail_msg("rule_split accepted %s", bad[i]);
}

static void test_resolv_first(void **state)
{
	struct ipaddr a;

	(void)state;
	assert_int_equal(
	    resolv_first("# c\nsearch x\nnameserver 10.1.0.10\nnameserver 8.8.8.8\n", &a), 0);
	assert_true(ipaddr_equal(&a, &(struct ipaddr){ AF_INET, { 10, 1, 0, 10 } }));
	assert_int_equal(resolv_first("nameserver  fe80::1%eth0", &a), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(resolv_first("nameserver bogus\nnameserver 127.0.0.53\n", &a), 0);
	assert_int_equal(a.a[0], 127);
	assert_int_equal(resolv_first("search lan\n", &a), -1);
	assert_int_equal(resolv_first("", &a), -1);
}

/* ---- packets ---- */

static uint8_t buf[70000];

static size_t make_tcp4(uint8_t flags, size_t dlen)
{
	struct ipaddr s = ipa("10.0.2.100"), d = ipa("203.0.113.10");

	memset(buf + 40, 'x', dlen);
	return pkt_tcp(buf, &s, &d, 40000, 80, 1000, 2000, flags, 512, dlen);
}

static void test_pkt_tcp_roundtrip(void **state)
{
	struct pkt p;
	size_t n;
	struct ipaddr s = ipa("fd00::100"), d = ipa("2001:db8:1::10");

	(void)state;
	n = make_tcp4(TH_ACK | TH_PSH, 100);
	assert_int_equal(n, 140);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	assert_int_equal(p.proto, PROTO_TCP);
	assert_int_equal(p.family, AF_INET);
	assert_int_equal(p.sport, 40000);
	assert_int_equal(p.dport, 80);
	assert_int_equal(p.seq, 1000);
	assert_int_equal(p.ack, 2000);
	assert_int_equal(p.flags, TH_ACK | TH_PSH);
	assert_int_equal(p.win, 512);
	assert_int_equal(p.dlen, 100);
	assert_int_equal(p.data[99], 'x');
	/* A trailing pad after the IP total length is ignored. */
	assert_int_equal(pkt_parse(buf, n + 10, &p), 0);
	assert_int_equal(p.dlen, 100);

	n = pkt_synack(buf, &s, &d, 1, 2, 7, 8, 65535, 65460, 7);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(p.flags, TH_SYN | TH_ACK);
	assert_int_equal(p.mss, 65460);
	assert_int_equal(p.wscale, 7);
	n = pkt_synack(buf, &s, &d, 1, 2, 7, 8, 65535, 1400, -1);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	assert_int_equal(p.wscale, -1);
	assert_int_equal(p.mss, 1400);
}

static void test_pkt_checksums(void **state)
{
	struct pkt p;
	size_t n;

	(void)state;
	/* RFC 1071's example: the sum of 00 01 f2 03 f4 f5 f6 f7 is ddf2. */
	const uint8_t ex[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	uint16_t ck = pkt_csum(ex, sizeof(ex), 0);
	const uint8_t *cb = (const uint8_t *)&ck;

	assert_int_equal(cb[0], (uint8_t)~0xdd);
	assert_int_equal(cb[1], (uint8_t)~0xf2);
	n = make_tcp4(TH_ACK, 11); /* an odd length */
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	buf[n - 1] ^= 1; /* payload bit */
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	n = make_tcp4(TH_ACK, 10);
	buf[8] ^= 1; /* TTL: the IP header checksum */
	assert_int_equal(pkt_parse(buf, n, &p), -1);
}

static void test_pkt_malformed(void **state)
{
	struct pkt p;
	size_t n;

	(void)state;
	n = make_tcp4(TH_ACK, 10);
	for (size_t cut = 0; cut < n; cut++)
		assert_int_equal(pkt_parse(buf, cut, &p), -1);
	/* A fragment, then the MF bit: dropped. */
	n = make_tcp4(TH_ACK, 10);
	buf[6] = 0x20;
	buf[10] = buf[11] = 0;
	uint16_t ck = pkt_csum(buf, 20, 0);
	memcpy(buf + 10, &ck, 2);
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	/* IHL below 5, version 5, a TCP data offset past the end. */
	n = make_tcp4(TH_ACK, 10);
	buf[0] = 0x44;
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	n = make_tcp4(TH_ACK, 10);
	buf[0] = 0x55;
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	n = make_tcp4(TH_ACK, 0);
	buf[32] = 0xf0;
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	/*
	 * IPv4 options (four NOPs, header and checksums right): dropped, as
	 * IPv6 extension headers are. The UDP datagram moves 4 bytes on.
	 */
	{
		struct ipaddr s = ipa("10.0.2.100"), d = ipa("203.0.113.10");

		n = pkt_udp(buf, &s, &d, 1000, 9005, 4);
		assert_int_equal(pkt_parse(buf, n, &p), 0);
		memmove(buf + 24, buf + 20, n - 20);
		memset(buf + 20, 1, 4);
		buf[0] = 0x46;
		buf[3] += 4;
		buf[10] = buf[11] = 0;
		ck = pkt_csum(buf, 24, 0);
		memcpy(buf + 10, &ck, 2);
		assert_int_equal(pkt_parse(buf, n + 4, &p), -1);
	}
	/* IPv6 with an extension header (hop-by-hop) is dropped. */
	{
		struct ipaddr s = ipa("fd00::100"), d = ipa("2001:db8:1::10");

		n = pkt_udp(buf, &s, &d, 1000, 53, 4);
		assert_int_equal(pkt_parse(buf, n, &p), 0);
		buf[6] = 0;
		assert_int_equal(pkt_parse(buf, n, &p), -1);
		n = pkt_udp(buf, &s, &d, 1000, 53, 4);
		buf[5] += 1; /* payload length beyond what was read */
		assert_int_equal(pkt_parse(buf, n, &p), -1);
	}
	assert_int_equal(pkt_parse(buf, 0, &p), -1);
}

static void test_pkt_udp_echo_icmp(void **state)
{
	struct pkt p;
	size_t n;
	struct ipaddr s = ipa("10.0.2.100"), d = ipa("8.8.8.8"), gw = ipa("10.0.2.2");
	struct ipaddr s6 = ipa("fd00::100"), d6 = ipa("2001:4860::8888");
	static uint8_t err[2000];

	(void)state;
	memcpy(buf + 28, "abcd", 4);
	n = pkt_udp(buf, &s, &d, 5353, 53, 4);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	assert_int_equal(p.proto, PROTO_UDP);
	assert_int_equal(p.dlen, 4);
	assert_memory_equal(p.data, "abcd", 4);
	/* An ICMP "administratively prohibited" quoting it. */
	n = pkt_icmp_err(err, sizeof(err), &gw, buf, n, 0);
	assert_int_equal(n, 20 + 8 + 32);
	assert_int_equal(err[20], 3);
	assert_int_equal(err[21], 13);
	assert_int_equal(pkt_csum(err + 20, n - 20, 0), 0);
	assert_memory_equal(err + 16, s.a, 4);
	/* An echo request: parsed; an echo reply is not (only requests come in). */
	n = pkt_echo_reply(buf, &s, &d, 7, 9, 0);
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	buf[20] = 8;
	buf[22] = buf[23] = 0;
	uint16_t ck = pkt_csum(buf + 20, 8, 0);
	memcpy(buf + 22, &ck, 2);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	assert_int_equal(p.proto, PROTO_ICMP);
	assert_int_equal(p.sport, 7);
	assert_int_equal(p.echo_seq, 9);
	/* IPv6 UDP with a zero checksum is invalid. */
	n = pkt_udp(buf, &s6, &d6, 1, 2, 0);
	assert_int_equal(pkt_parse(buf, n, &p), 0);
	buf[46] = buf[47] = 0;
	assert_int_equal(pkt_parse(buf, n, &p), -1);
	n = pkt_udp(buf, &s6, &d6, 1, 2, 0);
	{
		struct ipaddr gw6 = ipa("fd00::2");
		size_t m = pkt_icmp_err(err, sizeof(err), &gw6, buf, n, 1);

		assert_int_equal(err[40], 1);
		assert_int_equal(err[41], 4);
		assert_int_equal(pkt_parse(err, m, &p), -1); /* not an echo request */
	}
}

/* The virtio_net_hdr in front of each packet on the TUN, checked strictly. */
static void test_pkt_vnet(void **state)
{
	static uint8_t vb[70000];
	uint8_t *ip = vb + VNET_HLEN;
	struct ipaddr s = ipa("10.0.2.100"), d = ipa("203.0.113.10");
	struct ipaddr s6 = ipa("fd00::100"), d6 = ipa("2001:db8:1::10");
	struct pkt p;
	size_t n;

	(void)state;
	/* No header fields: the packet as pkt_parse takes it, checksum checked. */
	memset(vb, 0, VNET_HLEN);
	memset(ip + 40, 'x', 3000);
	n = pkt_tcp(ip, &s, &d, 40000, 80, 1000, 2000, TH_ACK, 512, 3000);
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	assert_ptr_equal(p.ip, ip);
	assert_int_equal(p.dlen, 3000);
	ip[45] ^= 1;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	ip[45] ^= 1;
	assert_int_equal(pkt_parse_vnet(vb, 9, &p), -1);
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN, &p), -1);

	/* A partial checksum and segmentation, as the relay writes them. */
	n = pkt_tcp_partial(ip, &s, &d, 40000, 80, 1000, 2000, TH_ACK, 512, 3000);
	pkt_vnet(vb, ip, 3000, 1460);
	assert_int_equal(vb[0], 1);  /* VIRTIO_NET_HDR_F_NEEDS_CSUM */
	assert_int_equal(vb[1], 1);  /* VIRTIO_NET_HDR_GSO_TCPV4 */
	assert_int_equal(vb[2], 40); /* hdr_len */
	assert_int_equal(vb[4] | vb[5] << 8, 1460);
	assert_int_equal(vb[6], 20); /* csum_start */
	assert_int_equal(vb[8], 16); /* csum_offset */
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	assert_int_equal(p.dlen, 3000);
	/* ... whose checksum field holds the pseudo-header's sum, not the whole. */
	assert_int_equal(pkt_parse(ip, n, &p), -1);
	/* The checksum elsewhere than the TCP checksum field: refused. */
	vb[6] = 22;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[6] = 20;
	vb[8] = 6;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[8] = 16;
	/* Flags other than NEEDS_CSUM and DATA_VALID: refused. */
	vb[0] = 1 | 4;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[0] = 1;
	/* Segmentation of the other family, of UDP, of zero-byte pieces, unknown. */
	vb[1] = 4;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[1] = 3;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[1] = 5;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[1] = 0x80; /* ECN without a GSO type */
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[1] = 0x81;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	vb[1] = 1;
	vb[4] = vb[5] = 0;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[4] = 0xb4;
	vb[5] = 0x05;
	/* hdr_len past the packet's end; segmentation without NEEDS_CSUM. */
	vb[2] = 0xff;
	vb[3] = 0xff;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[2] = 40;
	vb[3] = 0;
	vb[0] = 0;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	/* A gso_size with no GSO type. */
	memset(vb, 0, VNET_HLEN);
	n = pkt_tcp(ip, &s, &d, 40000, 80, 1000, 2000, TH_ACK, 512, 3000);
	vb[4] = 1;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);

	/* IPv6: the same, at its own offsets; up to the largest IP packet. */
	memset(ip + 60, 'y', 65000);
	n = pkt_tcp_partial(ip, &s6, &d6, 40000, 80, 1, 2, TH_ACK, 512, 65000);
	pkt_vnet(vb, ip, 65000, 1440);
	assert_int_equal(vb[1], 4); /* VIRTIO_NET_HDR_GSO_TCPV6 */
	assert_int_equal(vb[6], 40);
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(p.dlen, 65000);
	/* A segment no longer than gso_size needs no segmentation. */
	n = pkt_tcp_partial(ip, &s6, &d6, 40000, 80, 1, 2, TH_ACK, 512, 1000);
	pkt_vnet(vb, ip, 1000, 1440);
	assert_int_equal(vb[1], 0);
	assert_int_equal(vb[4] | vb[5] << 8, 0);
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);

	/* UDP: a partial checksum at its own field only; never segmented. */
	memset(vb, 0, VNET_HLEN);
	n = pkt_udp(ip, &s, &d, 5000, 53, 100);
	vb[0] = 1;
	vb[6] = 20;
	vb[8] = 6;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	assert_int_equal(p.proto, PROTO_UDP);
	vb[8] = 16;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	vb[8] = 6;
	vb[1] = 1;
	vb[4] = 1;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
	/* ICMP: never a partial checksum. */
	memset(vb, 0, VNET_HLEN);
	n = pkt_echo_reply(ip, &s, &d, 7, 1, 10);
	ip[20] = 8;
	ip[22] = ip[23] = 0;
	{
		uint16_t ck = pkt_csum(ip + 20, n - 20, 0);

		memcpy(ip + 22, &ck, 2);
	}
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), 0);
	vb[0] = 1;
	vb[6] = 20;
	vb[8] = 2;
	assert_int_equal(pkt_parse_vnet(vb, VNET_HLEN + n, &p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_ranges),	  cmocka_unit_test(test_special_table_text),
		cmocka_unit_test(test_cidr_parse),	  cmocka_unit_test(test_filter_order),
		cmocka_unit_test(test_rule_split),	  cmocka_unit_test(test_resolv_first),
		cmocka_unit_test(test_pkt_tcp_roundtrip), cmocka_unit_test(test_pkt_checksums),
		cmocka_unit_test(test_pkt_malformed),	  cmocka_unit_test(test_pkt_udp_echo_icmp),
		cmocka_unit_test(test_pkt_vnet),	  cmocka_unit_test(test_filter_gateway),
		cmocka_unit_test(test_gateway_parse),	  cmocka_unit_test(test_filter_pin_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
