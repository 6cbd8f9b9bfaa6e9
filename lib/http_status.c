/* SPDX-License-Identifier: ISC */
/*
 * The status the gateway answers a refused request with (RFC 9110, 15):
 * 414 and 431 for what is too long, 505 for another version, 501 for what
 * it does not do (another transfer coding, CONNECT, Upgrade), 400 otherwise;
 * 502 for an upstream's status line it cannot read. Pure.
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
	case HTTP_EUPGRADE:
		return 501;
	case HTTP_ESTATUS:
		return 502;
	default:
		return 400;
	}
}
