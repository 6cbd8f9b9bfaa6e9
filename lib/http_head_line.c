/* SPDX-License-Identifier: ISC */
/*
 * The next line of a head, request's or response's, as its bytes arrive:
 * CRLF only (a bare LF, or a CR inside the line, is refused), within
 * HTTP_MAX_LINE a line with its CRLF and HTTP_MAX_HEAD in all. Each byte is
 * looked at once, however the head is cut into reads. Pure.
 */
#include <string.h>

#include "http.h"

int http_head_line(uint32_t *pos, uint32_t *line, const char *buf, size_t len, int too_long,
		   uint32_t *at, uint32_t *end)
{
	size_t lim = len;
	const char *nl;

	if (*pos >= len)
		return HTTP_MORE;
	if (lim > (size_t)*line + HTTP_MAX_LINE)
		lim = (size_t)*line + HTTP_MAX_LINE;
	if (lim > HTTP_MAX_HEAD)
		lim = HTTP_MAX_HEAD;
	nl = memchr(buf + *pos, '\n', lim - *pos);
	if (!nl) {
		*pos = (uint32_t)lim;
		if (lim == len)
			return HTTP_MORE;
		return lim == HTTP_MAX_HEAD ? HTTP_EHEAD : too_long;
	}
	*at = *line;
	*pos = *line = (uint32_t)(nl + 1 - buf);
	if (nl == buf + *at || nl[-1] != '\r')
		return HTTP_ECRLF;
	*end = (uint32_t)(nl - 1 - buf);
	if (memchr(buf + *at, '\r', *end - *at))
		return HTTP_ECRLF;
	return HTTP_OK;
}
