/* SPDX-License-Identifier: ISC */
/*
 * DNS messages the relay carries between the agent and the host's resolver,
 * and the names they hold (otonet.h, "dns.c"). Pure: no system call, no
 * exit. The relay calls these on every answer (names.c); the fuzz target
 * fuzz_otonet_dns.c feeds them arbitrary bytes.
 *
 * Every change is made in place and keeps the message's length, so that the
 * same code serves UDP and the length-prefixed messages of DNS over TCP.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "be.h"
#include "oto.h"
#include "otonet.h"

/*
 * A label's bytes are printable ASCII (letters lowercased): not a dot, which
 * would make a text that is not its name (["a.inet", "test"] reads
 * "a.inet.test"), nor a space, a control byte, '"' or '\\' (the name goes
 * into the JSON log as it is). A name with another byte is refused.
 */
static int label_char(uint8_t c)
{
	return c > 0x20 && c < 0x7f && c != '.' && c != '"' && c != '\\';
}

int dns_name(const uint8_t *m, size_t len, size_t off, char *out, size_t *next)
{
	size_t o = 0, pos = off, lim = off; /* a pointer goes strictly backwards */
	int jumps = 0;

	*next = 0;
	for (;;) {
		uint8_t l;

		if (pos >= len)
			return -1;
		l = m[pos];
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (pos + 1 >= len || ++jumps > 64)
				return -1;
			to = (size_t)(l & 0x3f) << 8 | m[pos + 1];
			if (!*next)
				*next = pos + 2;
			if (to >= lim)
				return -1;
			lim = to;
			pos = to;
			continue;
		}
		if (l & 0xc0)
			return -1;
		if (!l) {
			if (!*next)
				*next = pos + 1;
			break;
		}
		if (pos + 1 + l > len || o + l + 1 > DNS_NAME_MAX - 1)
			return -1;
		if (o)
			out[o++] = '.';
		for (size_t i = 0; i < l; i++) {
			uint8_t c = m[pos + 1 + i];

			if (!label_char(c))
				return -1;
			out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		pos += 1 + (size_t)l;
	}
	out[o] = 0;
	return 0;
}

int dns_parse(const uint8_t *m, size_t len, struct dns_msg *d)
{
	char name[DNS_NAME_MAX];
	size_t pos;
	unsigned int counts[3];

	memset(d, 0, offsetof(struct dns_msg, rr));
	if (len < 12 || len > 65535)
		return -1;
	d->id = be16_get(m);
	d->flags = be16_get(m + 2);
	if (be16_get(m + 4) != 1)
		return -1;
	for (int s = 0; s < 3; s++)
		counts[s] = be16_get(m + 6 + 2 * s);
	if (counts[0] + counts[1] + counts[2] > DNS_MAX_RR)
		return -1;
	if (dns_name(m, len, 12, d->qname, &pos) < 0 || pos + 4 > len)
		return -1;
	d->qtype = be16_get(m + pos);
	d->qend = (uint16_t)(pos + 4);
	pos += 4;
	for (int s = 0; s < 3; s++) {
		for (unsigned int i = 0; i < counts[s]; i++) {
			struct dns_rr *rr = &d->rr[d->nrr];
			size_t rd;

			rr->off = (uint16_t)pos;
			if (dns_name(m, len, pos, name, &pos) < 0 || pos + 10 > len)
				return -1;
			rr->type = be16_get(m + pos);
			rr->cls = be16_get(m + pos + 2);
			rr->ttl = (uint32_t)be16_get(m + pos + 4) << 16 | be16_get(m + pos + 6);
			rr->rdlen = be16_get(m + pos + 8);
			rd = pos + 10;
			if (rd + rr->rdlen > len)
				return -1;
			rr->typeoff = (uint16_t)pos;
			rr->rdoff = (uint16_t)rd;
			rr->section = (uint8_t)(s + 1);
			if (rr->type == DNS_T_A && rr->rdlen != 4)
				return -1;
			if (rr->type == DNS_T_AAAA && rr->rdlen != 16)
				return -1;
			if (rr->type == DNS_T_CNAME) {
				size_t end;

				if (dns_name(m, len, rd, name, &end) < 0 || end != rd + rr->rdlen)
					return -1;
			}
			pos = rd + rr->rdlen;
			d->nrr++;
		}
	}
	d->end = (uint16_t)pos;
	return 0;
}

int dns_rr_addr(const uint8_t *m, const struct dns_rr *rr, struct ipaddr *a)
{
	/* Any class: an address is hidden whatever class it claims. */
	if (rr->type != DNS_T_A && rr->type != DNS_T_AAAA)
		return -1;
	memset(a, 0, sizeof(*a));
	a->family = rr->type == DNS_T_A ? AF_INET : AF_INET6;
	memcpy(a->a, m + rr->rdoff, rr->rdlen);
	return 0;
}

/*
 * An SVCB or HTTPS record's ipv4hint and ipv6hint addresses (RFC 9460):
 * each refused one zeroed in place. The number zeroed, or -1 when the data
 * does not read as priority, target name (uncompressed) and parameters.
 */
static int hide_hints(uint8_t *m, const struct dns_rr *rr,
		      int (*refused)(void *ctx, const struct ipaddr *a), void *ctx)
{
	size_t pos = rr->rdoff + 2, end = (size_t)rr->rdoff + rr->rdlen;
	int n = 0;

	if (rr->rdlen < 3)
		return -1;
	while (pos < end && m[pos]) {
		if (m[pos] & 0xc0)
			return -1;
		pos += 1 + (size_t)m[pos];
	}
	if (pos >= end)
		return -1;
	pos++;
	while (pos < end) {
		size_t key, len, w;

		if (pos + 4 > end)
			return -1;
		key = be16_get(m + pos);
		len = be16_get(m + pos + 2);
		pos += 4;
		if (pos + len > end)
			return -1;
		w = key == 4 ? 4 : key == 6 ? 16 : 0;
		if (w && len % w)
			return -1;
		for (size_t k = 0; w && k < len; k += w) {
			struct ipaddr a = { .family = w == 4 ? AF_INET : AF_INET6 };

			memcpy(a.a, m + pos + k, w);
			if (refused(ctx, &a)) {
				memset(m + pos + k, 0, w);
				n++;
			}
		}
		pos += len;
	}
	return n;
}

/* rr made a record of the private-use type, TTL 0, its data zeroed. */
static void hide_rr(uint8_t *m, struct dns_rr *rr)
{
	be16_put(m + rr->typeoff, DNS_T_HIDDEN);
	memset(m + rr->typeoff + 4, 0, 4);
	memset(m + rr->rdoff, 0, rr->rdlen);
	rr->type = DNS_T_HIDDEN;
}

int dns_hide(uint8_t *m, struct dns_msg *d, int (*refused)(void *ctx, const struct ipaddr *a),
	     void *ctx)
{
	int removed = 0, left = 0, gone = 0; /* gone, left: addresses of the answer section */

	for (size_t i = 0; i < d->nrr; i++) {
		struct dns_rr *rr = &d->rr[i];
		struct ipaddr a;

		if (rr->type == DNS_T_SVCB || rr->type == DNS_T_HTTPS) {
			int k = hide_hints(m, rr, refused, ctx);

			/* Unreadable, it may hold hints: hidden whole. */
			if (k < 0) {
				hide_rr(m, rr);
				k = 1;
			}
			removed += k;
			continue;
		}
		if (dns_rr_addr(m, rr, &a) < 0)
			continue;
		if (!refused(ctx, &a)) {
			left += rr->section == 1;
			continue;
		}
		/* A record of a private-use type, TTL 0, its data zeroed: the address is gone. */
		hide_rr(m, rr);
		removed++;
		gone += rr->section == 1;
	}
	if (gone && !left)
		dns_rcode(m, d, DNS_NXDOMAIN);
	return removed;
}

size_t dns_rcode(uint8_t *m, struct dns_msg *d, int rcode)
{
	/* An answer (QR), recursion available, the agent's RD kept; no records. */
	uint16_t flags = (uint16_t)((d->flags & 0x7900) | 0x8080 | (rcode & 0xf));

	be16_put(m + 2, flags);
	memset(m + 6, 0, 6);
	memset(m + d->qend, 0, d->end > d->qend ? d->end - d->qend : 0);
	d->flags = flags;
	d->nrr = 0;
	return d->qend;
}

/* Is name among the n names of set? */
static int in_set(char (*set)[DNS_NAME_MAX], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(set[i], name))
			return 1;
	return 0;
}

int dns_chain(const uint8_t *m, size_t len, const struct dns_msg *d,
	      void (*fn)(void *ctx, const struct ipaddr *a, uint32_t ttl), void *ctx)
{
	char set[DNS_MAX_CHAIN][DNS_NAME_MAX], name[DNS_NAME_MAX], target[DNS_NAME_MAX];
	int n = 1, grew = 1, found = 0;
	size_t next;

	if ((d->flags & 0xf) != DNS_NOERROR)
		return 0;
	memcpy(set[0], d->qname, sizeof(set[0]));
	/* The names the question leads to by CNAME, in any order, at most DNS_MAX_CHAIN. */
	for (int pass = 0; grew && pass < DNS_MAX_CHAIN; pass++) {
		grew = 0;
		for (size_t i = 0; i < d->nrr && n < DNS_MAX_CHAIN; i++) {
			const struct dns_rr *rr = &d->rr[i];

			if (rr->section != 1 || rr->type != DNS_T_CNAME)
				continue;
			if (dns_name(m, len, rr->off, name, &next) < 0 ||
			    dns_name(m, len, rr->rdoff, target, &next) < 0)
				return -1;
			if (in_set(set, n, name) && !in_set(set, n, target)) {
				memcpy(set[n++], target, sizeof(set[0]));
				grew = 1;
			}
		}
	}
	for (size_t i = 0; i < d->nrr; i++) {
		const struct dns_rr *rr = &d->rr[i];
		struct ipaddr a;

		if (rr->section != 1 || dns_rr_addr(m, rr, &a) < 0)
			continue;
		if (dns_name(m, len, rr->off, name, &next) < 0)
			return -1;
		if (in_set(set, n, name)) {
			fn(ctx, &a, rr->ttl);
			found++;
		}
	}
	return found;
}

int name_match(const char *pattern, const char *name)
{
	size_t pl, nl = strlen(name);

	if (pattern[0] != '*')
		return !strcmp(pattern, name);
	/* "*.suffix": a name under suffix, never suffix itself. */
	pattern++;
	pl = strlen(pattern);
	return nl > pl && !strcmp(name + nl - pl, pattern);
}

/*
 * The host's resolver gets questions and nothing else: a DNS UPDATE could
 * plant a name (wpad) in a resolver that takes unsigned updates, a NOTIFY
 * makes it fetch a zone, a zone transfer maps a network, and bytes that are
 * not DNS reach whatever parser the resolver has. Only an EDNS OPT record
 * may ride along: stubs send one (glibc's edns0, dig, systemd).
 */
const char *dns_question_refused(const uint8_t *m, size_t len, struct dns_msg *d)
{
	/* clang-format off */
	static const uint16_t NO_TYPE[] = {
		41,  /* OPT: a record, never a question */
		249, /* TKEY */
		250, /* TSIG */
		251, /* IXFR */
		252, /* AXFR */
		253, /* MAILB */
		254, /* MAILA */
	};
	/* clang-format on */
	unsigned int ar;

	memset(d, 0, offsetof(struct dns_msg, rr));
	if (len < 12)
		return "dns-malformed";
	if (m[2] & 0x80)
		return "dns-response";
	if (m[2] & 0x78)
		return "dns-opcode";
	ar = be16_get(m + 10);
	if (be16_get(m + 4) != 1 || be16_get(m + 6) || be16_get(m + 8) || ar > 1)
		return "dns-shape";
	if (dns_parse(m, len, d) < 0)
		return "dns-malformed";
	if (d->end != len)
		return "dns-shape";
	/* The one additional record is an OPT owned by the root. */
	if (ar && (d->rr[0].type != 41 || d->rr[0].off + 1 != d->rr[0].typeoff))
		return "dns-shape";
	if (be16_get(m + d->qend - 2) != 1)
		return "dns-class";
	for (size_t i = 0; i < ARRAY_SIZE(NO_TYPE); i++)
		if (d->qtype == NO_TYPE[i])
			return "dns-type";
	return NULL;
}

/* The prefix of the labels of a reverse name left of its zone, in octets or nibbles. */
int dns_rev_prefix(const char *name, struct cidr *c)
{
	static const char V4[] = "in-addr.arpa", V6[] = "ip6.arpa";
	size_t n = strlen(name), z;
	int v6, max, got = 0;
	const char *end;

	memset(c, 0, sizeof(*c));
	if (n >= sizeof(V4) - 1 && !strcmp(name + n - (sizeof(V4) - 1), V4) &&
	    (n == sizeof(V4) - 1 || name[n - sizeof(V4)] == '.'))
		v6 = 0, z = sizeof(V4) - 1;
	else if (n >= sizeof(V6) - 1 && !strcmp(name + n - (sizeof(V6) - 1), V6) &&
		 (n == sizeof(V6) - 1 || name[n - sizeof(V6)] == '.'))
		v6 = 1, z = sizeof(V6) - 1;
	else {
		errno = EINVAL;
		return -1;
	}
	c->addr.family = v6 ? AF_INET6 : AF_INET;
	max = v6 ? 32 : 4;
	/*
	 * Labels are read from the zone leftwards while they are octets (or
	 * nibbles); a name under them (RFC 2317's "0/25", a service label)
	 * belongs to the same addresses.
	 */
	end = name + n - z;
	while (end > name && got < max) {
		const char *start = end - 1; /* the dot before the zone or label */
		unsigned int v = 0;
		size_t k;

		while (start > name && start[-1] != '.')
			start--;
		k = (size_t)(end - 1 - start);
		if (!k || k > (v6 ? 1U : 3U))
			break;
		for (size_t i = 0; i < k; i++) {
			char ch = start[i];
			int d = ch >= '0' && ch <= '9'	       ? ch - '0'
				: v6 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
							       : -1;

			if (d < 0)
				goto done;
			v = v * (v6 ? 16 : 10) + (unsigned int)d;
		}
		if (v > 255 || (!v6 && k > 1 && start[0] == '0'))
			break;
		if (v6)
			c->addr.a[got / 2] |= (uint8_t)(got % 2 ? v : v << 4);
		else
			c->addr.a[got] = (uint8_t)v;
		got++;
		end = start;
	}
done:
	c->len = (unsigned int)got * (v6 ? 4 : 8);
	return 0;
}
