// FUZZ: lib/login_refresh_request.c lib/login_refresh_response.c lib/login_refresh_holds.c
// FUZZ: lib/login_refresh_file.c lib/login_refresh_strerror.c lib/http_repl_init.c
// FUZZ: lib/http_repl_scan.c lib/json_scan.c lib/phantom_shape.c lib/phantom_shape_of.c
// FUZZ: lib/login_profile_parse.c lib/login_profile_text.c lib/login_role_name.c
// FUZZ: lib/policy_name_ok.c
/*
 * The refresh's rewriting (lib/login_refresh_*.c) over any bytes. The first
 * byte chooses: a JSON request (claude's profile), a form request
 * (gemini's), a token endpoint's answer, or a login file's update; the rest
 * is the body. No input may crash it or read out of bounds. Kept: an
 * output as long as its input, never written past; a request changed in
 * one run of bytes only, outside which no known real or phantom remains;
 * an answer changed at its new tokens only, holding no real, old or new,
 * in any form; an updated login file that is strict JSON again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "login.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AT   "sk-ant-oat01-Aa1bB2cC3dD4eE5fF6gG7hH8"
#define AT_P "sk-ant-oat01-Qw3eR4tY5uI6oP7aS8dF9gH"
#define RT   "1//0gJk3Lm9Qw2Er5Ty8Ui1Op4As7Df0Gh3"
#define RT_P "7//9xPq2Wn8Ze4Rt6Yu1Io3Pa5Sd7Fg9Hj2"
#define RT2  "sk-ant-ort01-Zz1yY2xX3wW4vV5uU6tT7sS8"
#define RT2P "sk-ant-ort01-Mm9nN8bB7vV6cC5xX4zZ3aA2"

static const struct login_pair KNOWN[] = {
	{ LOGIN_ACCESS, AT, AT_P, sizeof(AT) - 1 },
	{ LOGIN_REFRESH, RT, RT_P, sizeof(RT) - 1 },
	{ LOGIN_REFRESH, RT2, RT2P, sizeof(RT2) - 1 },
};
#define NKNOWN (sizeof(KNOWN) / sizeof(KNOWN[0]))

static struct login_refresh_work W;
static char out[JSON_MAX_INPUT + 64], copy[JSON_MAX_INPUT];

static void fixed(uint8_t *buf, size_t n, void *arg)
{
	uint8_t *seed = arg;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)((*seed)++ * 151 + 17);
}

static void guard(size_t len)
{
	memset(out + len, 0xa5, 64);
}

static void guarded(size_t len)
{
	for (size_t i = len; i < len + 64; i++)
		if ((uint8_t)out[i] != 0xa5)
			abort();
}

static void profile(const char *name, struct login_profile *p)
{
	const char *t = login_profile_text(name), *why;
	size_t line;

	if (login_profile_parse(t, strlen(t), p, &line, &why))
		abort();
}

static void request(const char *name, const char *ctype, const char *in, size_t len)
{
	static struct login_profile p;
	size_t used = NKNOWN, a = 0, b = len;
	int jerr, err;

	profile(name, &p);
	guard(len);
	err = login_refresh_request(&p, ctype, strlen(ctype), in, len, KNOWN, NKNOWN, out, &used,
				    &W, &jerr);
	guarded(len);
	if (err < 0 || err >= LOGIN_REFRESH_NUM_ERR || !login_refresh_strerror(err))
		abort();
	if (err != LOGIN_REFRESH_OK)
		return;
	if (used >= NKNOWN || KNOWN[used].role != LOGIN_REFRESH)
		abort();
	/* One run of changed bytes, as long as the real's escaped form at most. */
	while (a < len && out[a] == in[a])
		a++;
	while (b > a && out[b - 1] == in[b - 1])
		b--;
	if (b - a > 3 * KNOWN[used].len)
		abort();
	/* Outside it, nothing known: blank it and look (a body that held a real is not judged). */
	if (login_refresh_holds(in, len, KNOWN, NKNOWN, LOGIN_SIDE_REAL, &W) != -1)
		return;
	memcpy(copy, out, len);
	memset(copy + a, '.', b - a);
	if (login_refresh_holds(copy, len, KNOWN, NKNOWN, LOGIN_SIDE_REAL, &W) != -1 ||
	    login_refresh_holds(copy, len, KNOWN, NKNOWN, LOGIN_SIDE_PHANTOM, &W) != -1)
		abort();
}

static void response(const char *in, size_t len)
{
	struct login_pair fresh[LOGIN_NUM_ROLES];
	size_t nf = 99;
	int64_t exp;
	uint8_t seed = (uint8_t)len;
	int jerr, err;

	guard(len);
	err = login_refresh_response(in, len, KNOWN, NKNOWN, out, fresh, &nf, &exp, fixed, &seed,
				     &W, &jerr);
	guarded(len);
	if (err < 0 || err >= LOGIN_REFRESH_NUM_ERR || !login_refresh_strerror(err))
		abort();
	if (err != LOGIN_REFRESH_OK) {
		if (nf != 0)
			abort();
		return;
	}
	if (nf > LOGIN_NUM_ROLES || exp < -1)
		abort();
	for (size_t i = 0; i < len; i++) {
		int inside = 0;

		for (size_t k = 0; k < nf; k++)
			inside |= in + i >= fresh[k].real && in + i < fresh[k].real + fresh[k].len;
		if (!inside && out[i] != in[i])
			abort();
	}
	for (size_t k = 0; k < nf; k++)
		if (fresh[k].phantom != out + (fresh[k].real - in) ||
		    !memcmp(fresh[k].phantom, fresh[k].real, fresh[k].len))
			abort();
	if (login_refresh_holds(out, len, KNOWN, NKNOWN, LOGIN_SIDE_REAL, &W) != -1 ||
	    login_refresh_holds(out, len, fresh, nf, LOGIN_SIDE_REAL, &W) != -1)
		abort();
}

static void file(const char *in, size_t len)
{
	static struct login_profile p;
	static char file_out[JSON_MAX_INPUT * 2];
	size_t n;

	for (int k = 0; k < 3; k++) {
		profile(k == 0 ? "claude" : k == 1 ? "codex" : "gemini", &p);
		if (login_refresh_file(&p, in, len, KNOWN, NKNOWN, (int64_t)len, 1766000000,
				       file_out, sizeof(file_out), &n) != LOGIN_REFRESH_OK)
			continue;
		if (n > sizeof(file_out) || json_scan(file_out, n, NULL, NULL, NULL) != JSON_OK)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data + 1;

	if (size < 1 || size - 1 > JSON_MAX_INPUT)
		return 0;
	switch (data[0] % 4) {
	case 0:
		request("claude", "application/json", in, size - 1);
		break;
	case 1:
		request("gemini", "application/x-www-form-urlencoded", in, size - 1);
		break;
	case 2:
		response(in, size - 1);
		break;
	default:
		file(in, size - 1);
		break;
	}
	return 0;
}
