/* SPDX-License-Identifier: ISC */
/*
 * Whether a header's comma-separated list (RFC 9110, 5.6.1: Connection's,
 * say) holds a token, compared whatever its case. Empty elements and the
 * white space around each are skipped, as a recipient must. Pure.
 */
#include <strings.h>

#include "http.h"

int http_list_has(const char *v, size_t n, const char *token, size_t len)
{
	size_t i = 0;

	while (i < n) {
		size_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == len && !strncasecmp(v + s, token, len))
			return 1;
	}
	return 0;
}
