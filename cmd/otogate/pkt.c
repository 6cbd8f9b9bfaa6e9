/* SPDX-License-Identifier: ISC */
/*
 * A push's ref updates, read from its receive-pack request's body so that
 * the decider is asked about what the push changes (refs/heads/main
 * OLD..NEW), not only that it is one. git's pack-protocol: pkt-lines, each
 * four hex digits of length (its own four included) and a payload; the
 * update requests are "shallow OID" lines, then "OLD NEW REF" lines (the
 * first with its capabilities after a NUL), then a flush-pkt "0000"; the
 * pack follows. Pure: no system call, no exit.
 *
 * Read strictly, as the upstream's receive-pack reads it, and bounded: a
 * line it would refuse, a list longer than PKT_MAX_REFS, a line longer than
 * PKT_MAX_PAYLOAD, or a signed push (its updates inside a certificate) is
 * refused rather than asked about in part. The bytes may come in any
 * pieces: the parser keeps its place.
 */
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "otogate.h"

static int lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* A capability word among caps[0, n), space-separated. */
static int has_cap(const char *caps, size_t n, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e < n && caps[e] != ' ')
			e++;
		if (e - i == wl && !memcmp(caps + i, w, wl))
			return 1;
		i = e + 1;
	}
	return 0;
}

/* One payload, line[0, n): a shallow line or a command. 0, or -1 with c->err. */
static int pkt_line(struct pkt_cmds *c, const char *line, size_t n)
{
	const char *nul, *sp1, *sp2, *ref;
	size_t ol, rl, end;
	struct pkt_ref *r;

	if (n && line[n - 1] == '\n')
		n--;
	if (n > 8 && !memcmp(line, "shallow ", 8)) {
		if (c->n) {
			c->err = "a shallow line after a ref update";
			return -1;
		}
		if (!((n - 8 == 40 || n - 8 == 64) && lower_hex(line + 8, n - 8))) {
			c->err = "a shallow line without an object id";
			return -1;
		}
		if (++c->nshallow > PKT_MAX_SHALLOW) {
			c->err = "more than 64 shallow lines";
			return -1;
		}
		return 0;
	}
	if (n >= 9 && !memcmp(line, "push-cert", 9)) {
		c->err = "a signed push (push-cert): its ref updates are not read";
		return -1;
	}
	nul = memchr(line, 0, n);
	end = nul ? (size_t)(nul - line) : n;
	if (nul && c->n) {
		c->err = "capabilities after the first ref update";
		return -1;
	}
	sp1 = memchr(line, ' ', end);
	ol = sp1 ? (size_t)(sp1 - line) : 0;
	if (!(ol == 40 || ol == 64) || end < 2 * ol + 3 || line[2 * ol + 1] != ' ' ||
	    !lower_hex(line, ol) || !lower_hex(line + ol + 1, ol)) {
		c->err = "not a ref update (OLD NEW REF)";
		return -1;
	}
	sp2 = line + 2 * ol + 1;
	ref = sp2 + 1;
	rl = end - (size_t)(ref - line);
	if (!rl || rl > PKT_MAX_REF) {
		c->err = "a ref name empty or longer than 255 bytes";
		return -1;
	}
	for (size_t i = 0; i < rl; i++)
		if ((unsigned char)ref[i] <= 0x20 || ref[i] == 0x7f) {
			c->err = "a ref name with a blank or control byte";
			return -1;
		}
	if (c->n == PKT_MAX_REFS) {
		c->err = "more than 64 ref updates in one push";
		return -1;
	}
	r = &c->refs[c->n++];
	memcpy(r->old, line, ol);
	r->old[ol] = 0;
	memcpy(r->new, line + ol + 1, ol);
	r->new[ol] = 0;
	memcpy(r->name, ref, rl);
	r->name[rl] = 0;
	if (nul) {
		const char *caps = nul + 1;
		size_t cl = n - end - 1;

		c->report =
		    has_cap(caps, cl, "report-status") || has_cap(caps, cl, "report-status-v2");
		c->sideband =
		    has_cap(caps, cl, "side-band-64k") ? 2 : has_cap(caps, cl, "side-band");
	}
	return 0;
}

int pkt_cmds_feed(struct pkt_cmds *c, const char *buf, size_t len, size_t *used)
{
	size_t i = 0;

	*used = 0;
	if (c->err)
		return -1;
	if (c->done)
		return 1;
	while (i < len) {
		if (c->nhex < 4) {
			int v = 0;

			c->hex[c->nhex++] = buf[i++];
			if (c->nhex < 4)
				continue;
			for (int k = 0; k < 4; k++) {
				int h = http_hex((unsigned char)c->hex[k]);

				if (h < 0) {
					c->err = "a pkt-line length that is not four hex digits";
					return -1;
				}
				v = v * 16 + h;
			}
			if (v == 0) {
				c->done = 1;
				c->bytes += i;
				*used = i;
				return 1;
			}
			if (v < 5) {
				c->err = "an empty, delimiter or reserved pkt-line among the ref "
					 "updates";
				return -1;
			}
			if ((size_t)v - 4 > PKT_MAX_PAYLOAD) {
				c->err = "a ref update's pkt-line longer than 1024 bytes";
				return -1;
			}
			c->want = (size_t)v - 4;
			c->have = 0;
			continue;
		}
		{
			size_t take = c->want - c->have < len - i ? c->want - c->have : len - i;

			memcpy(c->line + c->have, buf + i, take);
			c->have += take;
			i += take;
		}
		if (c->have == c->want) {
			if (pkt_line(c, c->line, c->have) < 0)
				return -1;
			c->nhex = 0;
		}
	}
	c->bytes += len;
	*used = len;
	return 0;
}

/* One pkt-line of payload p[0, n) at buf + at: the new length (past size: does not fit). */
static size_t pkt_put(char *buf, size_t size, size_t at, const char *p, size_t n)
{
	if (at + n + 4 <= size) {
		char hex[5];

		snprintf(hex, sizeof(hex), "%04zx", n + 4);
		memcpy(buf + at, hex, 4);
		memcpy(buf + at + 4, p, n);
	}
	return at + n + 4;
}

size_t pkt_deny_format(char *buf, size_t size, const struct pkt_cmds *c, const char *why)
{
	char line[PKT_MAX_REF + 512], head[160];
	size_t rn = 0, at, body, max, chunks, src;
	int hl;

	if (!c->report || !c->done)
		return 0;
	/* The report's length first, to place it: each pkt-line, its 4 digits and payload. */
	rn = 4 + 10;
	for (size_t i = 0; i < c->n; i++)
		rn += 4 +
		      (size_t)snprintf(line, sizeof(line), "ng %s %.400s\n", c->refs[i].name, why);
	rn += 4;
	max = c->sideband == 2 ? 65515 : 995;
	chunks = c->sideband ? (rn + max - 1) / max : 0;
	body = c->sideband ? rn + 5 * chunks + 4 : rn;
	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-receive-pack-result\r\n"
		      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		      body);
	/* The report is written at buf's end, then moved forward into its bands. */
	if (hl < 0 || (size_t)hl + body + rn > size)
		return 0;
	src = size - rn;
	at = pkt_put(buf, size, src, "unpack ok\n", 10);
	for (size_t i = 0; i < c->n; i++)
		at = pkt_put(
		    buf, size, at, line,
		    (size_t)snprintf(line, sizeof(line), "ng %s %.400s\n", c->refs[i].name, why));
	memcpy(buf + at, "0000", 4);
	memcpy(buf, head, (size_t)hl);
	at = (size_t)hl;
	if (!c->sideband) {
		memmove(buf + at, buf + src, rn);
		return at + rn;
	}
	for (size_t off = 0; off < rn; off += max) {
		size_t n = rn - off < max ? rn - off : max;
		char hex[5];

		snprintf(hex, sizeof(hex), "%04zx", n + 5);
		memmove(buf + at + 5, buf + src + off, n);
		memcpy(buf + at, hex, 4);
		buf[at + 4] = 1;
		at += n + 5;
	}
	memcpy(buf + at, "0000", 4);
	return at + 4;
}
