/* SPDX-License-Identifier: ISC */
#include <string.h>

#include <sodium.h>

#include "login.h"

#define HEADER_MAX 2048 /* base64url characters: a JWT's header is far shorter */

static int b64url(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

int phantom_shape_of(const char *v, size_t len)
{
	unsigned char header[HEADER_MAX];
	size_t dot[2] = { 0, 0 }, ndots = 0, hlen;

	for (size_t i = 0; i < len; i++) {
		if (v[i] == '.') {
			if (ndots == 2)
				return PHANTOM_OPAQUE;
			dot[ndots++] = i;
		} else if (!b64url((unsigned char)v[i])) {
			return PHANTOM_OPAQUE;
		}
	}
	/* Three parts, none empty. */
	if (ndots != 2 || dot[0] == 0 || dot[1] == dot[0] + 1 || dot[1] + 1 == len)
		return PHANTOM_OPAQUE;
	if (dot[0] > HEADER_MAX ||
	    sodium_base642bin(header, sizeof(header), v, dot[0], NULL, &hlen, NULL,
			      sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
		return PHANTOM_OPAQUE;
	/* A header is a JSON object: "eyJ", "{", whatever the whitespace. */
	{
		size_t i = 0;

		while (i < hlen && (header[i] == ' ' || header[i] == '\t' || header[i] == '\n' ||
				    header[i] == '\r'))
			i++;
		if (i == hlen || header[i] != '{')
			return PHANTOM_OPAQUE;
	}
	if (json_scan((const char *)header, hlen, NULL, NULL, NULL) != JSON_OK)
		return PHANTOM_OPAQUE;
	return PHANTOM_JWT;
}
