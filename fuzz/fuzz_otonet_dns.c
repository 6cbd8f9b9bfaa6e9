// FUZZ: cmd/otonet/dns.c lib/cidr.c
/*
 * DNS questions are the agent's, answers the host resolver's: judge a
 * question, parse anything, hide and bind without a crash (a flow's first bytes:
 * fuzz_otonet_names). The input's first byte picks what half of the runs also do: the message, its
 * addresses hidden, must then hold no refused address.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cidr.h"
#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int refused(void *ctx, const struct ipaddr *a)
{
	(void)ctx;
	return cidr_special(a) != NULL;
}

/* ctx: 1 after dns_hide, when no refused address may reach the bindings. */
static void bound(void *ctx, const struct ipaddr *a, uint32_t ttl)
{
	(void)ttl;
	if (*(int *)ctx && cidr_special(a))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dns_msg d;
	static uint8_t m[65536];
	struct ipaddr a;
	size_t n;
	int hidden = 0;

	if (size < 1)
		return 0;
	n = size - 1 > sizeof(m) ? sizeof(m) : size - 1;
	memcpy(m, data + 1, n);
	/* The agent's side: a question judged whole, its reverse name read. */
	if (!dns_question_refused(m, n, &d)) {
		struct cidr c;

		if (d.end != n)
			abort();
		if (dns_rev_prefix(d.qname, &c) == 0 &&
		    c.len > (c.addr.family == AF_INET ? 32U : 128U))
			abort();
	}
	if (dns_parse(m, n, &d) < 0)
		return 0;
	name_match("*.inet.test", d.qname);
	if (data[0] & 1) {
		dns_hide(m, &d, refused, NULL);
		hidden = 1;
		/*
		 * What the agent gets holds no refused address. (It may not parse
		 * again: a name that pointed into a hidden record's type, which
		 * no resolver writes, now points at other bytes. The stub drops it.)
		 */
		if (dns_parse(m, n, &d) < 0)
			return 0;
		for (size_t i = 0; i < d.nrr; i++)
			if (dns_rr_addr(m, &d.rr[i], &a) == 0 && cidr_special(&a))
				abort();
	}
	dns_chain(m, n, &d, bound, &hidden);
	if (data[0] & 2)
		dns_rcode(m, &d, DNS_NXDOMAIN);
	return 0;
}
