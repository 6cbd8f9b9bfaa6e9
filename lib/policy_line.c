/* SPDX-License-Identifier: ISC */
/*
 * The otorun config line that allows one destination (oto.h, policy_line):
 * the one otolog --policy prints and otoask --save keeps, so that what a
 * person allowed "always" is what was asked and no more. Each line comes
 * with a note that says what it allows, or why there is none; the agent's
 * bytes in it are shown, never obeyed: printable ASCII as it is, '\'
 * doubled, any other byte \xNN, so that nothing in a name ends the
 * comment's line. Pure.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "oto.h"

/* s for a comment: printable ASCII, cut (with "...") to what fits. */
static void shown(char *buf, size_t size, const char *s)
{
	size_t at = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = c == '\\' ? 2 : c < 0x20 || c > 0x7e ? 4 : 1;

		if (at + need + 4 > size) {
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		if (c == '\\')
			at += (size_t)snprintf(buf + at, size - at, "\\\\");
		else if (need == 4)
			at += (size_t)snprintf(buf + at, size - at, "\\x%02x", c);
		else
			buf[at++] = (char)c;
	}
	buf[at] = 0;
}

/* An address as inet_pton reads one, and the family: 4, 6, or 0. */
static int addr_family(const char *s)
{
	unsigned char a[16];

	if (strlen(s) > 45)
		return 0;
	return inet_pton(AF_INET, s, a) == 1 ? 4 : inet_pton(AF_INET6, s, a) == 1 ? 6 : 0;
}

enum policy_kind policy_line(const struct policy_dest *d, char *line, size_t lsize, char *note,
			     size_t nsize)
{
	const char *name = d->name ? d->name : "", *addr = d->addr ? d->addr : "";
	const char *proto = d->proto ? d->proto : "";
	char s[POLICY_NAME_MAX + 8];
	int fam;

	line[0] = 0;
	if (*name) {
		if (!policy_name_ok(name)) {
			shown(s, sizeof(s), name);
			snprintf(note, nsize,
				 "\"%s\" is not a host name: no rule is written for it", s);
			return POLICY_NONE;
		}
		if (d->port > 65535) {
			snprintf(note, nsize, "port %u: no rule is written for it", d->port);
			return POLICY_NONE;
		}
		if (!d->port || d->port == 80 || d->port == 443) {
			snprintf(line, lsize, "--allow-name %s", name);
			snprintf(note, nsize,
				 "allows %s on ports 80 and 443 (its TLS SNI or HTTP Host checked)",
				 name);
			return POLICY_NAME;
		}
		snprintf(line, lsize, "--allow-name %s:%u", name, d->port);
		snprintf(note, nsize,
			 "allows %s on port %u, any protocol, what it sends not checked", name,
			 d->port);
		return POLICY_NAME_PORT;
	}
	fam = addr_family(addr);
	if (!fam || (strcmp(proto, "tcp") && strcmp(proto, "udp")) || !d->port || d->port > 65535) {
		shown(s, 64, addr);
		snprintf(note, nsize, "%s%s: no --allow or --allow-name can say it",
			 *addr ? "the destination " : "no destination", s);
		return POLICY_NONE;
	}
	snprintf(line, lsize, fam == 6 ? "--allow %s:[%s]:%u" : "--allow %s:%s:%u", proto, addr,
		 d->port);
	snprintf(note, nsize,
		 "an address decision: allows %s to %s port %u only, whatever name it serves",
		 proto, addr, d->port);
	return POLICY_ADDR;
}
