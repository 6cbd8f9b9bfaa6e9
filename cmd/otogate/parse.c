/* SPDX-License-Identifier: ISC */
/* The option values, and the lines the gateway writes. Pure: no system call, no exit. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"

/* A host name's byte: letters, digits, '-', '.' (no '_': certificates never name one). */
static int host_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.';
}

/* Each label of a name (dots between, checked already) 63 bytes at most, as DNS has it. */
static int dns_labels_ok(const char *h)
{
	size_t n;

	for (; *h; h += n + (h[n] == '.')) {
		n = strcspn(h, ".");
		if (n > 63)
			return 0;
	}
	return 1;
}

/* Headers a credential never goes in: the framing, the host, the connection (the
 * hop-by-hop ones never reach the upstream: http_head_rewrite leaves them out). */
static const char *const NOT_CARRIER[] = {
	"host",	    "content-length",	"transfer-encoding",  "connection",	 "te",
	"upgrade",  "trailer",		"keep-alive",	      "accept-encoding", "range",
	"if-range", "proxy-connection", "proxy-authorization"
};

/* header=NAME: one more header that carries the credential. */
static int grant_header(char *o, struct grant *g, const char **why)
{
	size_t n = strlen(o);

	if (!n || n > GATE_MAX_HEADER_NAME) {
		*why = "header=: an empty name, or one longer than 64";
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!http_tchar((unsigned char)o[i])) {
			*why = "header=: not a header name (a token: letters, digits, -)";
			return -1;
		}
	for (size_t i = 0; i < ARRAY_SIZE(NOT_CARRIER); i++)
		if (!strcasecmp(o, NOT_CARRIER[i])) {
			*why = "header=: that header frames or routes the request, it carries "
			       "no credential";
			return -1;
		}
	for (size_t i = 0; i < g->nheaders; i++)
		if (!strcasecmp(o, g->headers[i])) {
			*why = "header=: the same header twice";
			return -1;
		}
	if (g->nheaders == GATE_MAX_CRED_HEADERS) {
		*why = "header=: at most 8 headers";
		return -1;
	}
	g->headers[g->nheaders++] = o;
	return 0;
}

/* One allow=METHOD:PREFIX more for g. */
static int grant_allow_add(char *spec, struct grant *g, const char **why)
{
	if (g->nallow == GATE_MAX_ALLOW) {
		*why = "allow=: at most 32 rules";
		return -1;
	}
	return allow_parse(spec, &g->allow[g->nallow++], why);
}

/* One ask=METHOD:PREFIX, or ask=writes, more for g. */
static int grant_ask_add(char *spec, struct grant *g, const char **why)
{
	if (!strcmp(spec, "writes")) {
		g->ask_writes = 1;
		return 0;
	}
	if (g->nask == GATE_MAX_ASK) {
		*why = "ask=: at most 32 rules";
		return -1;
	}
	if (allow_parse(spec, &g->ask[g->nask], why) < 0) {
		*why = "ask=: not METHOD:PATH-PREFIX (as allow=) or writes";
		return -1;
	}
	g->nask++;
	return 0;
}

/*
 * The grant's options after its URL, comma-separated (opts NULL: none):
 * header=NAME (into g->headers; without any, Authorization and x-api-key),
 * allow=METHOD:PREFIX (into g->allow), ask=METHOD:PREFIX (into g->ask) or
 * ask=writes, transparent.
 */
static int grant_options(char *opts, struct grant *g, const char **why)
{
	char *next;

	g->nheaders = 0;
	for (char *o = opts; o; o = next) {
		next = strchr(o, ',');
		if (next)
			*next++ = 0;
		if (!strcmp(o, "transparent")) {
			if (g->transparent) {
				*why = "transparent twice";
				return -1;
			}
			g->transparent = 1;
		} else if (!strncmp(o, "header=", 7)) {
			if (grant_header(o + 7, g, why) < 0)
				return -1;
		} else if (!strncmp(o, "allow=", 6)) {
			if (grant_allow_add(o + 6, g, why) < 0)
				return -1;
		} else if (!strncmp(o, "ask=", 4)) {
			if (grant_ask_add(o + 4, g, why) < 0)
				return -1;
		} else {
			*why = "unknown grant option (header=NAME, allow=METHOD:PATH-PREFIX, "
			       "ask=METHOD:PATH-PREFIX, ask=writes or transparent)";
			return -1;
		}
	}
	if (!g->nheaders) {
		g->headers[g->nheaders++] = "Authorization";
		g->headers[g->nheaders++] = "x-api-key";
	}
	return 0;
}

int grant_parse(char *spec, struct grant *g, const char **why)
{
	static const char SCHEME[] = "https://";
	char *eq = strchr(spec, '='), *h, *end, *colon, *opts;
	size_t hl;
	unsigned long port = 443;
	struct in_addr a4;

	memset(g, 0, sizeof(*g));
	if (!eq) {
		*why = "not NAME=https://HOST[:PORT]";
		return -1;
	}
	*eq = 0;
	if (!store_name_ok(spec, strlen(spec))) {
		*why = "not a valid name ([A-Za-z_][A-Za-z0-9_]*, at most 64)";
		return -1;
	}
	g->name = spec;
	if (strncmp(eq + 1, SCHEME, sizeof(SCHEME) - 1)) {
		*why = "the upstream must be https://HOST[:PORT]";
		return -1;
	}
	h = eq + 1 + sizeof(SCHEME) - 1;
	opts = strchr(h, ',');
	if (opts)
		*opts++ = 0;
	if (grant_options(opts, g, why) < 0)
		return -1;
	end = h + strlen(h);
	/* A trailing "/" is allowed; any other path, query or user part is not. */
	if (end > h && end[-1] == '/')
		end--;
	colon = memchr(h, ':', (size_t)(end - h));
	if (colon) {
		char num[8];
		size_t nl = (size_t)(end - colon - 1);

		if (!nl || nl >= sizeof(num)) {
			*why = "not a port number (1 to 65535)";
			return -1;
		}
		memcpy(num, colon + 1, nl);
		num[nl] = 0;
		if (opt_ulong(num, 65535, &port) < 0 || !port) {
			*why = "not a port number (1 to 65535)";
			return -1;
		}
		end = colon;
	}
	hl = (size_t)(end - h);
	if (!hl || hl > GATE_MAX_HOST) {
		*why = "no host, or a host longer than 253";
		return -1;
	}
	for (size_t i = 0; i < hl; i++)
		if (!host_char((unsigned char)h[i])) {
			*why = "the host must be a DNS name or an IPv4 address (no path, user or "
			       "IPv6)";
			return -1;
		}
	if (h[0] == '.' || h[0] == '-' || h[hl - 1] == '.' || strstr(h, "..")) {
		*why = "not a host name";
		return -1;
	}
	memcpy(g->host, h, hl);
	g->host[hl] = 0;
	for (size_t i = 0; i < hl; i++)
		if (g->host[i] >= 'A' && g->host[i] <= 'Z')
			g->host[i] = (char)(g->host[i] - 'A' + 'a');
	g->port = (uint16_t)port;
	g->is_ip = inet_pton(AF_INET, g->host, &a4) == 1;
	/* The relay knows a transparent host by the answers its DNS gave for the name. */
	if (g->transparent && g->is_ip) {
		*why = "transparent needs a host name: an address is never looked up";
		return -1;
	}
	if (g->transparent && !dns_labels_ok(g->host)) {
		*why = "transparent needs a DNS name (labels of 63 bytes at most)";
		return -1;
	}
	if (port == 443)
		snprintf(g->hosthdr, sizeof(g->hosthdr), "%s", g->host);
	else
		snprintf(g->hosthdr, sizeof(g->hosthdr), "%s:%lu", g->host, port);
	return 0;
}

int gate_fd_parse(const char *s)
{
	unsigned long v;

	if (opt_ulong(s, 65535, &v) < 0)
		return -1;
	return (int)v;
}

size_t gateway_env_format(char *buf, size_t size, int fd, const struct grant *g, size_t n)
{
	size_t len;
	int w = snprintf(buf, size, "%d:", fd);

	if (w < 0 || (size_t)w >= size)
		return 0;
	len = (size_t)w;
	for (size_t i = 0; i < n; i++) {
		if (g[i].transparent)
			w = snprintf(buf + len, size - len, "%s%u=%s:%u", i ? "," : "",
				     (unsigned int)g[i].gw_port, g[i].host,
				     (unsigned int)g[i].port);
		else
			w = snprintf(buf + len, size - len, "%s%u", i ? "," : "",
				     (unsigned int)g[i].gw_port);
		if (w < 0 || (size_t)w >= size - len)
			return 0;
		len += (size_t)w;
	}
	return len;
}

/* s[0, len) as a JSON string's inside; the agent's bytes, so every odd one escaped. */
static size_t json_put(char *buf, size_t size, size_t at, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			if (at + 6 < size)
				snprintf(buf + at, 7, "\\u%04x", c);
			at += 6;
		} else {
			if (at < size)
				buf[at] = (char)c;
			at++;
		}
	}
	return at;
}

static size_t put(char *buf, size_t size, size_t at, const char *s)
{
	size_t l = strlen(s);

	if (at < size)
		memcpy(buf + at, s, at + l <= size ? l : size - at);
	return at + l;
}

size_t gate_log_format(char *buf, size_t size, const struct gate_logrec *r)
{
	char num[128];
	const char *q = memchr(r->path, '?', r->path_len);
	size_t at = 0;

	snprintf(num, sizeof(num), "{\"time\":%lld.%03ld,\"grant\":\"", r->sec, r->msec);
	at = put(buf, size, at, num);
	at = json_put(buf, size, at, r->grant, strlen(r->grant));
	at = put(buf, size, at, "\",\"method\":\"");
	at = json_put(buf, size, at, r->method, r->method_len);
	at = put(buf, size, at, "\",\"host\":\"");
	at = json_put(buf, size, at, r->host, strlen(r->host));
	at = put(buf, size, at, "\",\"path\":\"");
	at = json_put(buf, size, at, r->path, q ? (size_t)(q - r->path) : r->path_len);
	snprintf(num, sizeof(num), "\",\"status\":%d,\"bytes_up\":%llu,\"bytes_down\":%llu",
		 r->status, r->up, r->down);
	at = put(buf, size, at, num);
	if (r->error) {
		at = put(buf, size, at, ",\"error\":\"");
		at = json_put(buf, size, at, r->error, strlen(r->error));
		at = put(buf, size, at, "\"");
	}
	at = put(buf, size, at, "}\n");
	return at <= size ? at : 0;
}

size_t gate_sight_format(char *buf, size_t size, long long sec, long msec, const char *grant,
			 const char *host, const char *role, const char *where, size_t where_len,
			 int header)
{
	char num[64];
	size_t at;

	snprintf(num, sizeof(num), "{\"time\":%lld.%03ld,\"grant\":\"", sec, msec);
	at = put(buf, size, 0, num);
	at = json_put(buf, size, at, grant, strlen(grant));
	at = put(buf, size, at, "\",\"host\":\"");
	at = json_put(buf, size, at, host, strlen(host));
	at = put(buf, size, at, "\",\"verdict\":\"pass\",\"phantom\":\"");
	at = put(buf, size, at, role);
	at = put(buf, size, at, "\",\"where\":\"");
	if (header)
		at = put(buf, size, at, "header ");
	at = json_put(buf, size, at, where, where_len);
	at = put(buf, size, at, "\"}\n");
	return at <= size ? at : 0;
}

static const char *reason(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 414:
		return "URI Too Long";
	case 421:
		return "Misdirected Request";
	case 426:
		return "Upgrade Required";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Error";
	}
}

size_t gate_error_format(char *buf, size_t size, int status, const char *why)
{
	/* A 426 names the protocols the server takes (RFC 9110, 15.5.22): here, plain HTTP/1.1. */
	int w = snprintf(buf, size,
			 "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\notogate: %s\n",
			 status, reason(status), status == 426 ? "Upgrade: HTTP/1.1\r\n" : "",
			 strlen(why) + 10, why);

	return w < 0 || (size_t)w >= size ? 0 : (size_t)w;
}
