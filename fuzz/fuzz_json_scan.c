// FUZZ: lib/json_scan.c lib/json_strerror.c lib/phantom_shape.c lib/phantom_shape_of.c
// FUZZ: lib/login_phantom.c lib/login_profile_parse.c lib/login_profile_text.c
// FUZZ: lib/login_role_name.c lib/login_expiry.c lib/login_profile_fits.c lib/policy_name_ok.c
// FUZZ: lib/login_file_ok.c
/*
 * The strict JSON reader (lib/json_scan.c) over any bytes: an operator's
 * login file now, a token endpoint's body at the gateway later. No input
 * may crash it or make it read out of bounds. Kept: every span lies in the
 * input, a string's span holds no raw quote and no control byte, paths stay
 * within their bound, the same input scans the same way twice; and a
 * document read as a login file (each built-in profile) turns into a
 * phantom file as long as it, equal to it outside the secrets' spans.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "login.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	const uint8_t *in;
	size_t len, n;
	uint64_t sum; /* of every span and path length, to compare two scans */
};

static int one(const struct json_value *v, void *arg)
{
	struct check *c = arg;

	if (v->start > v->end || v->end > c->len || v->path_len > JSON_MAX_PATH)
		abort();
	if (v->kind == JSON_STRING) {
		for (size_t i = v->start; i < v->end; i++) {
			if (c->in[i] < 0x20)
				abort();
			if (c->in[i] == '"' && (i == v->start || c->in[i - 1] != '\\'))
				abort();
		}
		if (v->start == 0 || c->in[v->start - 1] != '"' || c->in[v->end] != '"')
			abort();
	} else if (v->start == v->end) {
		abort();
	}
	c->n++;
	c->sum = c->sum * 31 + v->start * 7 + v->end * 3 + v->path_len + (uint64_t)v->kind;
	return 0;
}

static void fixed(uint8_t *buf, size_t n, void *arg)
{
	uint8_t *seed = arg;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)((*seed)++ * 151 + 17);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const NAMES[] = { "claude", "codex", "gemini" };
	static struct login_profile p;
	static char out[JSON_MAX_INPUT];
	struct check a = { data, size, 0, 0 }, b = { data, size, 0, 0 };
	struct login_field f[LOGIN_MAX_SECRETS];
	size_t at1, at2, line;
	int e1, e2;

	e1 = json_scan((const char *)data, size, one, &a, &at1);
	e2 = json_scan((const char *)data, size, one, &b, &at2);
	if (e1 != e2 || at1 != at2 || a.n != b.n || a.sum != b.sum || at1 > size || e1 < 0 ||
	    e1 >= JSON_NUM_ERR || !json_strerror(e1))
		abort();
	if (e1 != JSON_OK)
		return 0;
	for (size_t k = 0; k < sizeof(NAMES) / sizeof(NAMES[0]); k++) {
		const char *why, *t = login_profile_text(NAMES[k]);
		uint8_t seed = (uint8_t)size;
		int64_t when;
		int jerr;

		if (login_profile_parse(t, strlen(t), &p, &line, &why))
			abort();
		(void)login_expiry(&p, (const char *)data, size, &when);
		if (login_phantom(&p, (const char *)data, size, out, f, fixed, &seed, NULL, &jerr,
				  &at1) != LOGIN_OK)
			continue;
		/* Outside the spans, the same bytes; inside, as long, and another value. */
		for (size_t i = 0, s = 0; i < size; i++) {
			int inside = 0;

			for (s = 0; s < p.nsecrets; s++)
				inside |= f[s].present && i >= f[s].start && i < f[s].end;
			if (!inside && out[i] != (char)data[i])
				abort();
		}
		for (size_t s = 0; s < p.nsecrets; s++)
			if (f[s].present &&
			    !memcmp(out + f[s].start, data + f[s].start, f[s].end - f[s].start))
				abort();
		/* The phantom file is JSON again, with the same values at the same places. */
		{
			struct check c = { (const uint8_t *)out, size, 0, 0 };

			if (json_scan(out, size, one, &c, NULL) != JSON_OK || c.n != a.n ||
			    c.sum != a.sum)
				abort();
		}
	}
	return 0;
}
