/* SPDX-License-Identifier: ISC */
/* What was wrong with a request, in one line, for each enum http_err. Pure. */
#include "oto.h"
#include "http.h"

static const char *const HTTP_ERR[] = {
	[HTTP_OK] = "ok",
	[HTTP_MORE] = "incomplete",
	[HTTP_EREQLINE] = "malformed request line",
	[HTTP_EURILONG] = "request line too long",
	[HTTP_EMETHOD] = "malformed method",
	[HTTP_ETARGET] = "request target not a path (origin form)",
	[HTTP_EVERSION] = "HTTP version not 1.1 or 1.0",
	[HTTP_ECRLF] = "line not ended by CRLF",
	[HTTP_ELINE] = "header line too long",
	[HTTP_EHEAD] = "request head too long",
	[HTTP_ECOUNT] = "too many header lines",
	[HTTP_EFOLD] = "folded header line",
	[HTTP_ENAME] = "malformed header name",
	[HTTP_EVALUE] = "control byte in a header value",
	[HTTP_EHOST] = "not exactly one Host header",
	[HTTP_ELENGTH] = "malformed or repeated Content-Length",
	[HTTP_ETE] = "unsupported Transfer-Encoding (only chunked, once, in HTTP/1.1)",
	[HTTP_ETELENGTH] = "both Transfer-Encoding and Content-Length",
	[HTTP_ECONNECT] = "CONNECT refused",
	[HTTP_EUPGRADE] = "an Upgrade (WebSocket, h2c) refused: the gateway relays plain HTTP",
	[HTTP_ECHUNK] = "malformed chunk framing",
	[HTTP_ECHUNKSIZE] = "chunk size or size line too large",
	[HTTP_ETRAILER] = "malformed or too large trailer",
	[HTTP_ESTATUS] = "malformed status line",
};
_Static_assert(ARRAY_SIZE(HTTP_ERR) == HTTP_ERR_COUNT_, "every enum http_err has its message");

const char *http_strerror(int err)
{
	if (err < 0 || err >= HTTP_ERR_COUNT_)
		return "unknown HTTP error";
	return HTTP_ERR[err];
}
