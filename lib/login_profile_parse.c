/* SPDX-License-Identifier: ISC */
/*
 * A profile is read by an operator and by the gateway: every value is
 * checked where it enters, a path that would leave the home, a host that
 * is no host name, a token endpoint that is not https.
 */
#include <stdlib.h>
#include <string.h>

#include "login.h"
#include "oto.h"

#define MAX_WORDS 5

/* A key path: printable ASCII, no space (the line's separator). */
static int keypath_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > JSON_MAX_PATH)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return 0;
	return 1;
}

/* https://HOST[:PORT]/PATH, HOST a host name, PORT 1 to 65535, PATH printable. */
static int url_ok(const char *s)
{
	char host[254];
	const char *h, *end;
	size_t n;

	if (strncmp(s, "https://", 8) || strlen(s) > LOGIN_MAX_URL)
		return 0;
	h = s + 8;
	end = h + strcspn(h, ":/");
	n = (size_t)(end - h);
	if (n == 0 || n >= sizeof(host))
		return 0;
	memcpy(host, h, n);
	host[n] = 0;
	if (!policy_name_ok(host))
		return 0;
	if (*end == ':') {
		char *stop;
		unsigned long port = strtoul(end + 1, &stop, 10);

		if (stop == end + 1 || end[1] < '1' || end[1] > '9' || port > 65535 || *stop != '/')
			return 0;
		end = stop;
	}
	if (*end != '/')
		return 0;
	for (; *end; end++)
		if (*end <= ' ' || *end > '~')
			return 0;
	return 1;
}

/* A body's field name: [A-Za-z0-9_.-]. */
static int field_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > LOGIN_MAX_FIELD)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

static int word_of(const char *w, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (words[i] && !strcmp(w, words[i]))
			return (int)i;
	return -1;
}

/* One line's words, in place: returns how many, or -1 past MAX_WORDS. */
static int split(char *line, char **w)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
}

static const char *one_line(char **w, int n, struct login_profile *p, int *seen)
{
	static const char *const EXPIRY[] = { [LOGIN_EXP_MS] = "ms",
					      [LOGIN_EXP_S] = "s",
					      [LOGIN_EXP_RFC3339] = "rfc3339",
					      [LOGIN_EXP_JWT] = "jwt" };
	static const char *const BODY[] = {
		[LOGIN_BODY_JSON] = "json", [LOGIN_BODY_FORM] = "form"
	};
	int k;

	if (!strcmp(w[0], "file")) {
		if (n != 2)
			return "expected: file PATH";
		if (seen[0]++)
			return "a second file line";
		if (!login_file_ok(w[1]))
			return "file: expected a path under the home, without . or .. components";
		strcpy(p->file, w[1]);
	} else if (!strcmp(w[0], "secret")) {
		struct login_secret *s = &p->secret[p->nsecrets];

		if ((n != 3 && n != 4) || (n == 4 && strcmp(w[3], "optional")))
			return "expected: secret KEYPATH access|refresh|id [optional]";
		if (!keypath_ok(w[1]))
			return "secret: expected a key path of printable bytes, at most 512";
		for (k = 0; k < LOGIN_NUM_ROLES; k++)
			if (!strcmp(w[2], login_role_name((enum login_role)k)))
				break;
		if (k == LOGIN_NUM_ROLES)
			return "secret: expected the role access, refresh or id";
		for (size_t i = 0; i < p->nsecrets; i++) {
			if (p->secret[i].role == (enum login_role)k)
				return "secret: a second secret of that role";
			if (!strcmp(p->secret[i].path, w[1]))
				return "secret: that key path twice";
		}
		if (p->nsecrets == LOGIN_MAX_SECRETS)
			return "secret: more than 4";
		strcpy(s->path, w[1]);
		s->role = (enum login_role)k;
		s->optional = n == 4;
		if (s->optional && s->role == LOGIN_ACCESS)
			return "secret: the access token cannot be optional";
		p->nsecrets++;
	} else if (!strcmp(w[0], "expiry")) {
		if (n != 3)
			return "expected: expiry KEYPATH ms|s|rfc3339|jwt";
		if (seen[1]++)
			return "a second expiry line";
		if (!keypath_ok(w[1]))
			return "expiry: expected a key path of printable bytes, at most 512";
		k = word_of(w[2], EXPIRY, ARRAY_SIZE(EXPIRY));
		if (k < 0)
			return "expiry: expected ms, s, rfc3339 or jwt";
		strcpy(p->expiry, w[1]);
		p->expiry_as = (enum login_expiry)k;
	} else if (!strcmp(w[0], "host")) {
		if (n != 2)
			return "expected: host NAME";
		if (strlen(w[1]) >= sizeof(p->host[0]) || !policy_name_ok(w[1]))
			return "host: expected a host name";
		if (p->nhosts == LOGIN_MAX_HOSTS)
			return "host: more than 4";
		for (size_t i = 0; i < p->nhosts; i++)
			if (!strcmp(p->host[i], w[1]))
				return "host: that name twice";
		strcpy(p->host[p->nhosts++], w[1]);
	} else if (!strcmp(w[0], "token")) {
		if (n != 4)
			return "expected: token URL json|form FIELD";
		if (seen[2]++)
			return "a second token line";
		if (!url_ok(w[1]))
			return "token: expected https://HOST[:PORT]/PATH";
		k = word_of(w[2], BODY, ARRAY_SIZE(BODY));
		if (k < 0)
			return "token: expected the body json or form";
		if (!field_ok(w[3]))
			return "token: expected a field name of [A-Za-z0-9_.-], at most 63";
		strcpy(p->token_url, w[1]);
		p->token_body = (enum login_body)k;
		strcpy(p->token_field, w[3]);
	} else {
		return "expected file, secret, expiry, host or token";
	}
	return NULL;
}

int login_profile_parse(const char *text, size_t len, struct login_profile *p, size_t *line,
			const char **why)
{
	char buf[LOGIN_MAX_LINE + 1];
	int seen[3] = { 0 }, access = 0, refresh = 0;
	size_t at = 0, no = 0;

	memset(p, 0, sizeof(*p));
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char *w[MAX_WORDS];
		int nw;

		*line = ++no;
		if (n > LOGIN_MAX_LINE) {
			*why = "a line longer than 1024 bytes";
			return -1;
		}
		memcpy(buf, text + at, n);
		buf[n] = 0;
		at += n + (nl != NULL);
		if (strlen(buf) != n) {
			*why = "a NUL byte";
			return -1;
		}
		nw = split(buf, w);
		if (nw < 0) {
			*why = "more words than any line takes";
			return -1;
		}
		if (nw && (*why = one_line(w, nw, p, seen)))
			return -1;
	}
	*line = 0;
	for (size_t i = 0; i < p->nsecrets; i++) {
		access |= p->secret[i].role == LOGIN_ACCESS;
		refresh |= p->secret[i].role == LOGIN_REFRESH;
	}
	if (!p->file[0])
		*why = "no file line";
	else if (!access)
		*why = "no secret of the role access";
	else if (!p->nhosts)
		*why = "no host line: the access token would go nowhere";
	else if (refresh && !p->token_url[0])
		*why = "a refresh secret and no token line";
	else if (!refresh && p->token_url[0])
		*why = "a token line and no refresh secret";
	else
		return 0;
	return -1;
}
