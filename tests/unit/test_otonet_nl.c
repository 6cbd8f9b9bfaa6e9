// UNIT: lib/cidr.c lib/opt.c cmd/otonet/nl.c lib/fd_write_all.c
/*
 * otonet's rtnetlink batches (nl.c), against the kernel, in a network
 * namespace of this test's own (a new user namespace owns it; skipped where
 * none can be made). Only a batch's last request asks for an
 * acknowledgement: a refused one in the middle must still be reported, with
 * its name and errno, and the requests after it still done.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cidr.h"
#include "otonet/otonet.h"

static struct nl_batch b;
static int have_ns;

static struct cidr C(const char *s) {
	struct cidr c;

	assert_int_equal(cidr_parse(s, &c), 0);
	return c;
}

/* Where no user namespace can be made (a chroot, a locked-down container), each test skips. */
static int
setup(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		fprintf(stderr, "no user and network namespace here (%s): skipped\n",
			strerror(errno));
		return 0;
	}
	have_ns = nl_batch_open(&b) == 0;
	return have_ns ? 0 : -1;
}

static void route(const char *what, const char *dst, int ifindex, int replace)
{
	struct cidr c = C(dst);
	int type = ifindex ? RTN_UNICAST : RTN_PROHIBIT;

	assert_int_equal(nl_route_add(&b, what, type, &c, ifindex, NULL, replace, 0), 0);
}

/* All good: 0, and the routes are there (adding one again without replace: EEXIST). */
static void test_batch_ok(void **state)
{
	(void)state;
	if (!have_ns)
		skip();
	route("first", "198.51.100.0/24", 0, 1);
	route("second", "2001:db8:1::/48", 0, 1);
	assert_int_equal(nl_batch_send(&b), 0);
	route("again", "198.51.100.0/24", 0, 0);
	assert_int_equal(nl_batch_send(&b), -1);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(b.failed, "again");
}

/*
 * A refused request in the middle (no such interface): reported as that one,
 * with its errno, after the kernel did the one after it too; and the next
 * batch reads its own answer, not one left over.
 */
static void test_batch_error_in_middle(void **state)
{
	(void)state;
	if (!have_ns)
		skip();
	route("before", "192.0.2.0/25", 0, 1);
	route("the bad one", "192.0.2.128/25", 4242, 1);
	route("after", "203.0.113.0/24", 0, 1);
	route("last", "2001:db8:2::/48", 0, 1);
	assert_int_equal(nl_batch_send(&b), -1);
	assert_int_equal(errno, ENODEV);
	assert_string_equal(b.failed, "the bad one");
	route("after, again", "203.0.113.0/24", 0, 0);
	route("last, again", "2001:db8:2::/48", 0, 0);
	assert_int_equal(nl_batch_send(&b), -1);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(b.failed, "after, again");
	route("fresh", "192.0.2.128/25", 0, 1);
	assert_int_equal(nl_batch_send(&b), 0);
}

/* The last request refused: its error is the batch's answer. */
static void test_batch_error_last(void **state)
{
	(void)state;
	if (!have_ns)
		skip();
	route("fine", "198.18.0.0/15", 0, 1);
	route("refused last", "198.18.0.0/15", 0, 0);
	assert_int_equal(nl_batch_send(&b), -1);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(b.failed, "refused last");
}

/* A batch of its own, never sent: for a request's bytes. */
static struct nl_batch *fresh_batch(void)
{
	static struct nl_batch q;

	memset(&q, 0, sizeof(q));
	q.fd = -1;
	q.seq0 = 1;
	return &q;
}

/* q holds one request, want's len bytes but for its sequence number, 1. */
static void assert_one_request(const struct nl_batch *q, const unsigned char *want, size_t len)
{
	_Alignas(struct nlmsghdr) unsigned char got[64];

	assert_int_equal(q->n, 1);
	assert_int_equal(q->len, len);
	assert_true(len <= sizeof(got));
	memcpy(got, q->buf, len);
	assert_int_equal(((struct nlmsghdr *)got)->nlmsg_seq, 1);
	memset(got + 8, 0, 4);
	assert_memory_equal(got, want, len);
}

/*
 * The request that turns off a link's IPv6 address generation, byte for
 * byte: RTM_NEWLINK on the index, no flags, and IFLA_AF_SPEC (26) holding
 * AF_INET6 (10) holding IFLA_INET6_ADDR_GEN_MODE (8), one byte, 1 (none).
 * Queued only: the bytes are checked before any send.
 */
static void test_addrgen_none_bytes(void **state)
{
	static const unsigned char WANT[] = {
		48, 0, 0,  0, 16, 0, 1,	 0,		/* length, RTM_NEWLINK, NLM_F_REQUEST */
		0,  0, 0,  0, 0,  0, 0,	 0,		/* seq (below), pid */
		0,  0, 0,  0, 7,  0, 0,	 0,		/* AF_UNSPEC, type, index 7 */
		0,  0, 0,  0, 0,  0, 0,	 0,		/* flags, change: none */
		16, 0, 26, 0, 12, 0, 10, 0, 5, 0, 8, 0, /* the nest, the nest, the mode */
		1,  0, 0,  0,				/* IN6_ADDR_GEN_MODE_NONE, padding */
	};
	struct nl_batch *q = fresh_batch();

	(void)state;
	assert_int_equal(nl_link_addrgen_none(q, "addrgen", 7), 0);
	assert_one_request(q, WANT, sizeof(WANT));
	assert_string_equal(q->what[0], "addrgen");
}

/* And the kernel takes it: lo's addr_gen_mode, as its sysctl reads, is 1 after. */
static void test_addrgen_none_kernel(void **state)
{
	char buf[8] = "";
	int fd;

	(void)state;
	if (!have_ns)
		skip();
	assert_int_equal(nl_link_addrgen_none(&b, "lo's addrgen", (int)if_nametoindex("lo")), 0);
	assert_int_equal(nl_batch_send(&b), 0);
	fd = open("/proc/sys/net/ipv6/conf/lo/addr_gen_mode", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		skip(); /* IPv6 off in this kernel */
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, "1\n");
}

/*
 * noqueue as a link's root qdisc, byte for byte: RTM_NEWQDISC (36),
 * NLM_F_REQUEST | NLM_F_EXCL | NLM_F_CREATE, a struct tcmsg on the index
 * with TC_H_ROOT as its parent, and TCA_KIND (1) "noqueue"; marked optional.
 */
static void test_qdisc_noqueue_bytes(void **state)
{
	static const unsigned char WANT[] = {
		48,  0,	  0,   0,   36,	 0,   1,   6,	/* length, RTM_NEWQDISC, flags */
		0,   0,	  0,   0,   0,	 0,   0,   0,	/* seq (below), pid */
		0,   0,	  0,   0,   7,	 0,   0,   0,	/* AF_UNSPEC, padding, index 7 */
		0,   0,	  0,   0,   255, 255, 255, 255, /* handle: the kernel's; parent: root */
		0,   0,	  0,   0,   12,	 0,   1,   0,	/* info; TCA_KIND, 12 bytes */
		'n', 'o', 'q', 'u', 'e', 'u', 'e', 0,
	};
	struct nl_batch *q = fresh_batch();

	(void)state;
	assert_int_equal(nl_qdisc_noqueue(q, "no queue", 7), 0);
	assert_one_request(q, WANT, sizeof(WANT));
	assert_true(q->optional[0]);
}

/*
 * The kernel takes it on a link that is down (lo, here); refused (again, so
 * EEXIST; or on no link, ENODEV), it fails nothing and is kept as skipped,
 * while a refused request that is not optional, after it, still fails the
 * batch.
 */
static void test_qdisc_noqueue_optional_kernel(void **state)
{
	int lo = (int)if_nametoindex("lo");

	(void)state;
	if (!have_ns)
		skip();
	nl_batch_close(&b);
	assert_int_equal(nl_batch_open(&b), 0); /* skipped starts empty */
	assert_int_equal(nl_qdisc_noqueue(&b, "lo's first", lo), 0);
	route("fine", "198.51.100.0/24", 0, 1);
	assert_int_equal(nl_batch_send(&b), 0);
	assert_string_equal(b.skipped, "");
	assert_int_equal(nl_qdisc_noqueue(&b, "lo's again", lo), 0);
	assert_int_equal(nl_qdisc_noqueue(&b, "no link", 4242), 0);
	route("after", "198.51.100.0/24", 0, 1);
	assert_int_equal(nl_batch_send(&b), 0);
	assert_string_equal(b.skipped, "no link");
	assert_int_equal(b.skipped_errno, ENODEV);
	assert_int_equal(nl_qdisc_noqueue(&b, "lo's third", lo), 0);
	route("refused", "198.51.100.0/24", 0, 0);
	assert_int_equal(nl_batch_send(&b), -1);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(b.failed, "refused");
	assert_string_equal(b.skipped, "lo's third");
	assert_int_equal(b.skipped_errno, EEXIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_ok),
		cmocka_unit_test(test_batch_error_in_middle),
		cmocka_unit_test(test_batch_error_last),
		cmocka_unit_test(test_addrgen_none_bytes),
		cmocka_unit_test(test_addrgen_none_kernel),
		cmocka_unit_test(test_qdisc_noqueue_bytes),
		cmocka_unit_test(test_qdisc_noqueue_optional_kernel),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
