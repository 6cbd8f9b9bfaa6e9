/* SPDX-License-Identifier: ISC */
/*
 * --login ENTRY=PROFILE: a CLI's OAuth login file, sealed whole in ENTRY
 * (otosecret import), kept outside. The view gets the same file with each
 * secret replaced by a phantom of its shape (lib/login.h), fresh at every
 * session, through a sealed memfd that otomount copies into the home
 * (OTO_LOGIN); each of the profile's hosts gets a transparent grant of its
 * own, which puts the real access token where the CLI sends its phantom
 * (Authorization) and scrubs every real of the file from the responses.
 *
 * In otogate's two steps: the profile is read, the grants made and the
 * memfd created (empty) before the fork, so the chain's environment is
 * known; the file is decrypted, its phantom made and the memfd filled and
 * sealed only by the gateway, before its go (xlogin_open), as the values
 * of the other grants are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sodium.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"

#define PROFILE_MAX (16 * 1024)

/* The profile named by PROFILE: a built-in name, or a file (a path holds a '/'). */
static void xprofile_read(struct gate_login *l, const char *prof)
{
	static char text[PROFILE_MAX + 1];
	const char *t = login_profile_text(prof), *why = NULL;
	size_t len, line = 0;
	ssize_t n;
	int fd;

	if (!strchr(prof, '/') && !t)
		die_usage("--login %s: no profile named %s (claude, codex, gemini, or a file's "
			  "path)",
			  l->spec, prof);
	if (t) {
		len = strlen(t);
	} else {
		fd = open(prof, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			die(EXIT_SYS, errno, "--login %s: unable to open the profile", l->spec);
		n = fd_read_all(fd, text, sizeof(text));
		close(fd);
		if (n < 0)
			die(EXIT_SYS, errno, "--login %s: unable to read the profile", l->spec);
		if ((size_t)n == sizeof(text))
			die(EXIT_REJECT, 0, "--login %s: the profile is longer than %d KiB",
			    l->spec, PROFILE_MAX >> 10);
		len = (size_t)n;
		t = text;
	}
	if (login_profile_parse(t, len, &l->p, &line, &why) < 0) {
		if (line)
			die(EXIT_REJECT, 0, "--login %s: profile line %zu: %s", l->spec, line, why);
		die(EXIT_REJECT, 0, "--login %s: profile: %s", l->spec, why);
	}
}

void xlogin_add(struct otogate_opts *o, const char *spec)
{
	struct gate_login *l;
	char *copy, *eq;

	if (o->nlogins == GATE_MAX_LOGINS)
		die_usage("too many --login (at most %d)", GATE_MAX_LOGINS);
	l = &o->logins[o->nlogins];
	l->spec = spec;
	l->memfd = -1;
	copy = strdup(spec);
	if (!copy)
		die(EXIT_SYS, 0, "unable to copy --login %s: out of memory", spec);
	eq = strchr(copy, '=');
	if (!eq || eq == copy || !eq[1])
		die_usage("--login %s: expected ENTRY=PROFILE", spec);
	*eq = 0;
	if (!store_name_ok(copy, strlen(copy)))
		die_usage("--login %s: ENTRY must be letters, digits and _", spec);
	for (size_t i = 0; i < o->nlogins; i++)
		if (!strcmp(o->logins[i].entry, copy))
			die_usage("--login %s: %s is a login already", spec, copy);
	l->entry = copy;
	xprofile_read(l, eq + 1);
	o->nlogins++;
}

/*
 * The token endpoint's parts, from a URL login_profile_parse took
 * (https://HOST[:PORT]/PATH): 0, or -1.
 */
static int token_split(struct gate_login *l)
{
	const char *u = l->p.token_url + 8, *slash, *colon;
	size_t hl;
	unsigned long port = 443;

	if (strncmp(l->p.token_url, "https://", 8))
		return -1;
	slash = strchr(u, '/');
	if (!slash)
		return -1;
	colon = memchr(u, ':', (size_t)(slash - u));
	hl = (size_t)((colon ? colon : slash) - u);
	if (!hl || hl > GATE_MAX_HOST)
		return -1;
	if (colon) {
		char *end;

		port = strtoul(colon + 1, &end, 10);
		if (end != slash || !port || port > 65535)
			return -1;
	}
	memcpy(l->token_host, u, hl);
	l->token_host[hl] = 0;
	l->token_port = (uint16_t)port;
	l->token_path = slash;
	return 0;
}

/* A transparent grant of l's for host:port, the (o->ngrants)th. Dies 100. */
static struct grant *xlogin_grant(struct otogate_opts *o, struct gate_login *l, const char *host,
				  uint16_t port)
{
	struct grant *g = &o->grants[o->ngrants];

	if (o->ngrants == GATE_MAX_GRANTS)
		die_usage("--login %s: a grant for each of its hosts passes the %d grants in all",
			  l->spec, GATE_MAX_GRANTS);
	memset(g, 0, sizeof(*g));
	g->name = l->entry;
	g->login = l;
	snprintf(g->host, sizeof(g->host), "%s", host);
	if (port == 443)
		snprintf(g->hosthdr, sizeof(g->hosthdr), "%s", host);
	else
		snprintf(g->hosthdr, sizeof(g->hosthdr), "%s:%u", host, (unsigned int)port);
	g->port = port;
	g->headers[0] = "Authorization";
	g->nheaders = 1;
	g->transparent = 1;
	for (size_t j = 0; j < o->ngrants; j++)
		if (o->grants[j].transparent && o->grants[j].port == port &&
		    !strcmp(o->grants[j].host, g->host))
			die_usage("--login %s: %s is transparent for %s already", l->spec,
				  o->grants[j].name, g->host);
	g->gw_port = (uint16_t)(GATE_FIRST_PORT + o->ngrants);
	o->ngrants++;
	return g;
}

void xlogin_grants(struct otogate_opts *o)
{
	for (size_t i = 0; i < o->nlogins; i++) {
		struct gate_login *l = &o->logins[i];
		int token_served = 0;

		for (size_t j = 0; j < o->ngrants; j++)
			if (!o->grants[j].login && !strcmp(o->grants[j].name, l->entry))
				die_usage("--login %s: %s is a --grant already", l->spec, l->entry);
		if (o->ngrants + l->p.nhosts > GATE_MAX_GRANTS)
			die_usage("--login %s: a grant for each of its %zu hosts passes the %d "
				  "grants in all",
				  l->spec, l->p.nhosts, GATE_MAX_GRANTS);
		l->grant0 = o->ngrants;
		if (l->p.token_url[0] && token_split(l) < 0)
			die_usage("--login %s: the token URL %s is not https://HOST[:PORT]/PATH",
				  l->spec, l->p.token_url);
		for (size_t h = 0; h < l->p.nhosts; h++) {
			xlogin_grant(o, l, l->p.host[h], 443);
			if (l->token_port == 443 && !strcmp(l->token_host, l->p.host[h]))
				token_served = 1;
		}
		/*
		 * The token endpoint's host, when no host of the profile is it: a
		 * grant that swaps nothing in any header (the refresh is swapped in
		 * its body, refresh.c), and scrubs every real from its answers.
		 */
		if (l->p.token_url[0] && !token_served) {
			struct grant *g = xlogin_grant(o, l, l->token_host, l->token_port);

			g->token_only = 1;
			g->nheaders = 0;
		}
	}
}

void xlogin_plan(struct otogate_opts *o, const struct store_view *v)
{
	for (size_t i = 0; i < o->nlogins; i++) {
		struct gate_login *l = &o->logins[i];
		int idx = store_find(v, l->entry);

		if (idx < 0)
			die(EXIT_REJECT, 0, "--login %s: no such name in the store", l->spec);
		l->index = idx;
		l->len = v->e[idx].value_len;
		if (l->len > JSON_MAX_INPUT)
			die(EXIT_REJECT, 0, "--login %s: the file is %zu bytes: at most %d",
			    l->spec, l->len, JSON_MAX_INPUT);
		/* The chain inherits it (main.c); otomount reads it after the go, sealed by then.
		 */
		l->memfd = memfd_create("oto-login", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (l->memfd < 0)
			die(EXIT_SYS, errno, "--login %s: unable to create a memfd", l->spec);
	}
}

size_t login_env_format(char *buf, size_t size, const struct otogate_opts *o)
{
	size_t at = 0;

	for (size_t i = 0; i < o->nlogins; i++) {
		int w = snprintf(buf + at, size - at, "%s%d:%s", i ? "," : "", o->logins[i].memfd,
				 o->logins[i].p.file);

		if (w < 0 || (size_t)w >= size - at)
			return 0;
		at += (size_t)w;
	}
	return at;
}

/* The file decrypted, its phantoms made: dies 101 on a file that does not fit the profile. */
static void xlogin_phantom(struct gate_login *l)
{
	struct login_field f[LOGIN_MAX_SECRETS];
	const struct login_secret *bad = NULL;
	int err, jerr = 0;
	size_t at = 0;

	l->phantom = malloc(l->len ? l->len : 1);
	if (!l->phantom)
		die(EXIT_SYS, errno, "--login %s: unable to allocate its phantom", l->spec);
	err = login_phantom(&l->p, (const char *)l->real, l->len, l->phantom, f, phantom_rand, NULL,
			    &bad, &jerr, &at);
	if (err == LOGIN_EJSON)
		die(EXIT_REJECT, 0, "--login %s: the file is not strict JSON: %s at byte %zu",
		    l->spec, json_strerror(jerr), at);
	if (err)
		die(EXIT_REJECT, 0, "--login %s: %s: %s", l->spec, bad ? bad->path : "-",
		    login_strerror(err));
	l->n = 0;
	for (size_t i = 0; i < l->p.nsecrets; i++) {
		size_t n = f[i].end - f[i].start;

		if (!f[i].present)
			continue;
		/* The scrubber's bounds: each real of the file is scrubbed from every response. */
		if (n < HTTP_MIN_SECRET || n > HTTP_MAX_SECRET)
			die(EXIT_REJECT, 0,
			    "--login %s: %s is %zu bytes: the gateway takes %d to %d", l->spec,
			    f[i].secret->path, n, HTTP_MIN_SECRET, HTTP_MAX_SECRET);
		if (f[i].secret->role == LOGIN_ACCESS &&
		    !http_value_ok((const char *)l->real + f[i].start, n))
			die(EXIT_REJECT, 0,
			    "--login %s: %s cannot stand in an HTTP header (a control byte, or "
			    "white space at an end)",
			    l->spec, f[i].secret->path);
		l->sreal[l->n] = l->real + f[i].start;
		l->sphantom[l->n] = l->phantom + f[i].start;
		l->slen[l->n] = n;
		l->role[l->n] = f[i].secret->role;
		l->n++;
	}
}

/* The grants' values: the access token and its phantom, copies of their own (grant's fields). */
static void xlogin_values(struct otogate_opts *o, struct gate_login *l)
{
	size_t a = 0;

	while (a < l->n && l->role[a] != LOGIN_ACCESS)
		a++;
	if (a == l->n)
		die(EXIT_REJECT, 0, "--login %s: no access token in the file", l->spec);
	for (size_t h = 0; h < o->ngrants; h++) {
		struct grant *g = &o->grants[h];

		if (g->login != l)
			continue;
		g->len = l->slen[a];
		g->real = sodium_malloc(g->len + 1);
		g->phantom = malloc(g->len + 1);
		if (!g->real || !g->phantom)
			die(EXIT_SYS, errno, "--login %s: unable to allocate its values", l->spec);
		memcpy(g->real, l->sreal[a], g->len);
		g->real[g->len] = 0;
		memcpy(g->phantom, l->sphantom[a], g->len);
		g->phantom[g->len] = 0;
	}
}

int login_table_add(struct login_table *t, enum login_role role, const void *real,
		    const void *phantom, size_t len)
{
	size_t drop = 0;

	if (len < HTTP_MIN_SECRET || len > HTTP_MAX_SECRET)
		return -1;
	pthread_mutex_lock(&t->lock);
	if (t->n == GATE_LOGIN_PAIRS) {
		/* The oldest not a refresh token's: a CLI may still send an older access. */
		while (drop < t->n && t->tok[drop].role == LOGIN_REFRESH)
			drop++;
		if (drop == t->n)
			drop = 0;
		for (size_t i = drop; i + 1 < t->n; i++) {
			uint8_t *keep = t->tok[i].real;

			memcpy(keep, t->tok[i + 1].real, t->tok[i + 1].len);
			t->tok[i].role = t->tok[i + 1].role;
			t->tok[i].len = t->tok[i + 1].len;
			memcpy(t->tok[i].phantom, t->tok[i + 1].phantom, t->tok[i + 1].len);
		}
		t->n--;
	}
	t->tok[t->n].role = role;
	t->tok[t->n].len = len;
	memcpy(t->tok[t->n].real, real, len);
	memcpy(t->tok[t->n].phantom, phantom, len);
	t->n++;
	atomic_fetch_add(&t->gen, 1);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* The session's table of tokens: the file's pairs, the file itself. Dies 111. */
static void xlogin_table(struct gate_login *l)
{
	struct login_table *t = calloc(1, sizeof(*t));
	uint8_t *slab = sodium_malloc(GATE_LOGIN_PAIRS * HTTP_MAX_SECRET);

	if (!t || !slab || !(t->file = sodium_malloc(JSON_MAX_INPUT)))
		die(EXIT_SYS, errno, "--login %s: unable to allocate its tokens", l->spec);
	pthread_mutex_init(&t->lock, NULL);
	for (size_t i = 0; i < GATE_LOGIN_PAIRS; i++)
		t->tok[i].real = slab + i * HTTP_MAX_SECRET;
	for (size_t i = 0; i < l->n; i++)
		login_table_add(t, l->role[i], l->sreal[i], l->sphantom[i], l->slen[i]);
	memcpy(t->file, l->real, l->len);
	t->file_len = l->len;
	l->t = t;
}

void xlogin_open(struct otogate_opts *o, const struct store_view *v, const uint8_t *key)
{
	const unsigned int seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

	for (size_t i = 0; i < o->nlogins; i++) {
		struct gate_login *l = &o->logins[i];

		l->real = sodium_malloc(l->len ? l->len : 1);
		if (!l->real)
			die(EXIT_SYS, errno, "unable to allocate locked memory for %s", l->entry);
		if (store_open(v, (uint32_t)l->index, key, l->real))
			die(EXIT_REJECT, 0, "--login %s: %s", l->spec,
			    store_strerror(STORE_EVERIFY));
		xlogin_phantom(l);
		xlogin_values(o, l);
		xlogin_table(l);
		/* The offset is the chain's too: back at the start for a reader that reads on. */
		if (fd_write_all(l->memfd, l->phantom, l->len) < 0 ||
		    lseek(l->memfd, 0, SEEK_SET) < 0 || fcntl(l->memfd, F_ADD_SEALS, seals) < 0)
			die(EXIT_SYS, errno, "--login %s: unable to write the phantom file",
			    l->spec);
		close(l->memfd);
		l->memfd = -1;
	}
}

/* ---- item: a login's phantom where its grant does not put the real value ---- */

/* Whether g puts the real value in header name[0, n) (for the access token's phantom). */
static int carries(const struct grant *g, const char *name, size_t n)
{
	for (size_t i = 0; i < g->nheaders; i++)
		if (strlen(g->headers[i]) == n && !strncasecmp(g->headers[i], name, n))
			return 1;
	return 0;
}

/* The places of phantom p (len bytes, of role) of login l in the head r: appended to out. */
static size_t sight(const struct gate_login *l, enum login_role role, const char *p, size_t len,
		    const struct grant *g, const char *buf, const struct http_req *r,
		    struct login_sight *out, size_t n, size_t max)
{
	const char *t = buf + r->target.off;
	const char *q = memchr(t, '?', r->target.len);
	size_t pl = q ? (size_t)(q - t) : r->target.len;
	struct login_sight w = { .login = l, .role = role };

	if (n < max && memmem(t, pl, p, len)) {
		w.where = "path";
		w.where_len = 4;
		out[n++] = w;
	}
	if (n < max && q && memmem(q, r->target.len - pl, p, len)) {
		w.where = "query";
		w.where_len = 5;
		out[n++] = w;
	}
	for (uint32_t h = 0; h < r->nheaders && n < max; h++) {
		const struct http_header *hd = &r->h[h];

		if (!memmem(buf + hd->value.off, hd->value.len, p, len))
			continue;
		/* Where its own grant swaps it: the real value goes out. */
		if (g && g->login == l && role == LOGIN_ACCESS &&
		    carries(g, buf + hd->name.off, hd->name.len))
			continue;
		w.where = buf + hd->name.off;
		w.where_len = hd->name.len;
		w.header = 1;
		out[n++] = w;
	}
	return n;
}

/* Whether p (len bytes) is one of the file's phantoms of l. */
static int in_file(const struct gate_login *l, const char *p, size_t len)
{
	for (size_t s = 0; s < l->n; s++)
		if (l->slen[s] == len && !memcmp(l->sphantom[s], p, len))
			return 1;
	return 0;
}

size_t login_seen(const struct otogate_opts *o, const struct grant *g, const char *buf,
		  const struct http_req *r, struct login_sight *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nlogins; i++) {
		const struct gate_login *l = &o->logins[i];
		struct login_table *t = l->t;

		for (size_t s = 0; s < l->n; s++)
			n = sight(l, l->role[s], l->sphantom[s], l->slen[s], g, buf, r, out, n,
				  max);
		if (!t)
			continue;
		/* The phantoms the session's refreshes gave out, as the file's. */
		pthread_mutex_lock(&t->lock);
		for (size_t k = 0; k < t->n; k++)
			if (!in_file(l, t->tok[k].phantom, t->tok[k].len))
				n = sight(l, t->tok[k].role, t->tok[k].phantom, t->tok[k].len, g,
					  buf, r, out, n, max);
		pthread_mutex_unlock(&t->lock);
	}
	return n;
}
