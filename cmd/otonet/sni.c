/* SPDX-License-Identifier: ISC */
/*
 * The name a connection's first bytes give (otonet.h, "sni.c"): a TLS
 * ClientHello's server_name, an HTTP/1 request's Host. Pure: the relay
 * calls these on the agent's first segment of a flow a name allowed
 * (names.c); the fuzz target fuzz_otonet_dns.c feeds them arbitrary bytes.
 */
#include <string.h>
#include <strings.h>

#include "otonet.h"

/* s (n bytes) as a name's text into out: the characters of dns_name, a trailing dot dropped. */
static int name_text(const uint8_t *s, size_t n, char *out)
{
	size_t label = 0;

	if (n && s[n - 1] == '.')
		n--;
	if (!n || n >= DNS_NAME_MAX)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '.') {
			if (!label)
				return -1;
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			   c == '_') {
			label++;
		} else if (c >= 'A' && c <= 'Z') {
			c = (uint8_t)(c + 32);
			label++;
		} else {
			return -1;
		}
		out[i] = (char)c;
	}
	if (!label)
		return -1;
	out[n] = 0;
	return 0;
}

static size_t get16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

int tls_sni(const uint8_t *d, size_t n, char *out)
{
	size_t rec, pos, end, hs;

	/* A handshake record of TLS 1.0 to 1.3 (the ClientHello's record says 3.1 or less). */
	if (n < 3 || d[0] != 0x16 || d[1] != 3 || d[2] > 4)
		return 0;
	if (n < 9)
		return -1;
	rec = get16(d + 3);
	if (5 + rec > n || d[5] != 1)
		return -1;
	hs = (size_t)d[6] << 16 | get16(d + 7);
	if (hs + 4 > rec)
		return -1;
	end = 9 + hs;
	pos = 9 + 2 + 32; /* version, random */
	if (pos + 1 > end)
		return -1;
	pos += 1 + d[pos]; /* session id */
	if (pos + 2 > end)
		return -1;
	pos += 2 + get16(d + pos); /* cipher suites */
	if (pos + 1 > end)
		return -1;
	pos += 1 + d[pos]; /* compression methods */
	if (pos + 2 > end)
		return -1;
	if (pos + 2 + get16(d + pos) > end)
		return -1;
	end = pos + 2 + get16(d + pos);
	pos += 2;
	while (pos + 4 <= end) {
		size_t type = get16(d + pos), len = get16(d + pos + 2), list, q;

		pos += 4;
		if (pos + len > end)
			return -1;
		if (type != 0) {
			pos += len;
			continue;
		}
		/* server_name: a list of one host_name (type 0). */
		if (len < 5)
			return -1;
		list = get16(d + pos);
		q = pos + 2;
		if (list + 2 != len || d[q] != 0 || 3 + get16(d + q + 1) != list)
			return -1;
		return name_text(d + q + 3, get16(d + q + 1), out) < 0 ? -1 : 1;
	}
	return -1; /* a ClientHello without a name */
}

int http_host(const uint8_t *d, size_t n, char *out)
{
	static const char *const METHOD[] = { "GET ",	  "HEAD ",  "POST ",  "PUT ",	 "DELETE ",
					      "OPTIONS ", "PATCH ", "TRACE ", "CONNECT " };
	const uint8_t *end = NULL, *line, *host = NULL;
	size_t hostlen = 0, m;
	int is_http = 0;

	for (size_t i = 0; i < sizeof(METHOD) / sizeof(METHOD[0]); i++) {
		m = strlen(METHOD[i]);
		if (n >= m && !memcmp(d, METHOD[i], m)) {
			is_http = 1;
			break;
		}
	}
	if (!is_http)
		return 0;
	/* The origin-form target only: an absolute one would name a host of its own. */
	if (n <= m || d[m] != '/')
		return -1;
	for (size_t i = 0; i + 3 < n; i++) {
		if (!memcmp(d + i, "\r\n\r\n", 4)) {
			end = d + i + 2;
			break;
		}
	}
	if (!end)
		return -1;
	line = memchr(d, '\n', (size_t)(end - d));
	if (!line)
		return -1;
	for (line++; line < end;) {
		const uint8_t *eol = memchr(line, '\n', (size_t)(end - line));
		size_t ll = (size_t)(eol - line);

		if (ll >= 5 && !strncasecmp((const char *)line, "host:", 5)) {
			const uint8_t *v = line + 5, *ve = eol;

			if (host)
				return -1; /* two Host headers: which one the server takes is
					      unknown */
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			host = v;
			hostlen = (size_t)(ve - v);
			/* Its port, if any (a bracketed IPv6 literal is no name). */
			for (size_t k = 0; k < hostlen; k++) {
				if (host[k] == ':') {
					hostlen = k;
					break;
				}
			}
		}
		line = eol + 1;
	}
	if (!host)
		return -1;
	return name_text(host, hostlen, out) < 0 ? -1 : 1;
}
