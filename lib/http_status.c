/* SPDX-License-Identifier: ISC */
/*
 * The status the gateway answers a refused request with (RFC 9110, 15):
 * 414 and 431 for what is too long, 505 for another version, 501 for what
 * it does not do (another transfer coding, CONNECT), 400 otherwise; 502 for
 * an upstream's status line it cannot read. An Upgrade (a WebSocket's
 * handshake) is a 426 (the gateway's answer names plain HTTP/1.1 as the one
 * protocol it takes), the status a client trying a WebSocket first reads as
 * "not here, go on over HTTP": codex does so at once. It took a 501 as the
 * server's passing trouble and tried again, six times in about 6 s per
 * session; a 400 ended its turn with the gateway's reason. Pure.
 */
#include "http.h"

int http_status(int err)
{
	switch (err) {
	case HTTP_OK:
	case HTTP_MORE:
		return 0;
	case HTTP_EURILONG:
		return 414;
	case HTTP_ELINE:
	case HTTP_EHEAD:
	case HTTP_ECOUNT:
		return 431;
	case HTTP_EVERSION:
		return 505;
	case HTTP_ETE:
	case HTTP_ECONNECT:
		return 501;
	case HTTP_EUPGRADE:
		return 426;
	case HTTP_ESTATUS:
		return 502;
	default:
		return 400;
	}
}
