/* SPDX-License-Identifier: ISC */
/*
 * What a connection's first bytes are, and the name they give (otonet.h,
 * "sni.c"): a TLS ClientHello's server_name, whole however many records and
 * segments it spans; the first-bytes classifier that says whether a prefix
 * is TLS, HTTP, neither, or still undecided. Pure: the relay calls these on
 * the bytes it holds for a flow a name allowed (names.c); the fuzz targets
 * fuzz_otonet_dns.c and fuzz_otonet_names.c feed them arbitrary bytes.
 */
#include <string.h>

#include "be.h"
#include "http.h"
#include "otonet.h"

int name_text(const uint8_t *s, size_t n, char *out)
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

/*
 * The server_name of a whole ClientHello message m (its 4-byte handshake
 * header first, len bytes): HELLO_NAME, HELLO_NONAME, or HELLO_BAD.
 */
static int hello_sni(const uint8_t *m, size_t len, char *out)
{
	size_t pos, end = len;

	pos = 4 + 2 + 32; /* header, version, random */
	if (pos + 1 > end)
		return HELLO_BAD;
	pos += 1 + m[pos]; /* session id */
	if (pos + 2 > end)
		return HELLO_BAD;
	pos += 2 + be16_get(m + pos); /* cipher suites */
	if (pos + 1 > end)
		return HELLO_BAD;
	pos += 1 + m[pos]; /* compression methods */
	if (pos == end)
		return HELLO_NONAME; /* no extensions at all */
	if (pos + 2 > end || pos + 2 + be16_get(m + pos) != end)
		return HELLO_BAD;
	pos += 2;
	while (pos + 4 <= end) {
		size_t type = be16_get(m + pos), n = be16_get(m + pos + 2), list, q;

		pos += 4;
		if (pos + n > end)
			return HELLO_BAD;
		if (type != 0) {
			pos += n;
			continue;
		}
		/* server_name: a list of one host_name (type 0). */
		if (n < 5)
			return HELLO_BAD;
		list = be16_get(m + pos);
		q = pos + 2;
		if (list + 2 != n || m[q] != 0 || 3 + (size_t)be16_get(m + q + 1) != list)
			return HELLO_BAD;
		return name_text(m + q + 3, be16_get(m + q + 1), out) < 0 ? HELLO_NONAME
									  : HELLO_NAME;
	}
	return pos == end ? HELLO_NONAME : HELLO_BAD;
}

int tls_hello(const uint8_t *d, size_t n, size_t max, uint8_t *scratch, char *out, size_t *end)
{
	size_t want = 0, have = 0, pos = 0;
	const uint8_t *msg = NULL;

	/*
	 * Walk the handshake records (type 22, version 3.0 to 3.4, a fragment
	 * of 1 to 2^14 bytes) until their fragments hold the whole message
	 * that the first one begins: its length is in its first four bytes.
	 * Only the headers are read until then, so a hello arriving a byte at
	 * a time costs one pass over a few record headers per segment.
	 */
	for (;;) {
		size_t rec;

		if (n - pos < 5) {
			/* What there is of a header must be a handshake record's. */
			if ((n > pos && d[pos] != 0x16) || (n > pos + 1 && d[pos + 1] != 3) ||
			    (n > pos + 2 && d[pos + 2] > 4))
				return HELLO_BAD;
			return pos + 5 > max ? HELLO_LONG : HELLO_MORE;
		}
		rec = be16_get(d + pos + 3);
		if (d[pos] != 0x16 || d[pos + 1] != 3 || d[pos + 2] > 4 || !rec || rec > 16384)
			return HELLO_BAD;
		if (pos + 5 + rec > max)
			return HELLO_LONG;
		if (!pos) {
			/* The handshake header whole in the first record (every client's way). */
			if (rec < 4)
				return HELLO_BAD;
			if (n < 9)
				return n - 5 > 0 && d[5] != 1 ? HELLO_BAD : HELLO_MORE;
			if (d[5] != 1) /* not a ClientHello */
				return HELLO_BAD;
			want = 4 + ((size_t)d[6] << 16 | be16_get(d + 7));
			if (want + 5 > max)
				return HELLO_LONG;
		}
		if (n - pos - 5 < rec)
			return HELLO_MORE;
		/* The message must end with a record: nothing else shares it. */
		if (have + rec > want)
			return HELLO_BAD;
		have += rec;
		pos += 5 + rec;
		if (have == want)
			break;
	}
	if (pos == 5 + want) {
		msg = d + 5; /* in one record, as nearly every client sends it */
	} else {
		size_t o = 0;

		for (size_t p = 0; p < pos; p += 5 + be16_get(d + p + 3)) {
			memcpy(scratch + o, d + p + 5, be16_get(d + p + 3));
			o += be16_get(d + p + 3);
		}
		msg = scratch;
	}
	*end = pos;
	return hello_sni(msg, want, out);
}

enum sniff sniff_first(const uint8_t *d, size_t n)
{
	if (!n)
		return SNIFF_MORE;
	if (d[0] == 0x16) {
		if ((n > 1 && d[1] != 3) || (n > 2 && d[2] > 4))
			return SNIFF_NEITHER;
		return SNIFF_TLS;
	}
	/* A request line begins with a method, a token, then one space. */
	for (size_t i = 0; i < n && i < HTTP_MAX_LINE; i++) {
		if (d[i] == ' ')
			return i ? SNIFF_HTTP : SNIFF_NEITHER;
		if (!http_tchar(d[i]))
			return SNIFF_NEITHER;
	}
	return n < HTTP_MAX_LINE ? SNIFF_MORE : SNIFF_NEITHER;
}
