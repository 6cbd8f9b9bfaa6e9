/* SPDX-License-Identifier: ISC */
/* The values of otoexec's options. Pure: no system call, no exit. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/resource.h>

#include "oto.h"
#include "otoexec.h"

static const struct {
	const char *name;
	int res;
} RLIMITS[] = {
	{ "as", RLIMIT_AS },
	{ "core", RLIMIT_CORE },
	{ "cpu", RLIMIT_CPU },
	{ "data", RLIMIT_DATA },
	{ "fsize", RLIMIT_FSIZE },
	{ "locks", RLIMIT_LOCKS },
	{ "memlock", RLIMIT_MEMLOCK },
	{ "msgqueue", RLIMIT_MSGQUEUE },
	{ "nice", RLIMIT_NICE },
	{ "nofile", RLIMIT_NOFILE },
	{ "nproc", RLIMIT_NPROC },
	{ "rss", RLIMIT_RSS },
	{ "rtprio", RLIMIT_RTPRIO },
	{ "rttime", RLIMIT_RTTIME },
	{ "sigpending", RLIMIT_SIGPENDING },
	{ "stack", RLIMIT_STACK },
};

static int rlim_value(const char *s, uint64_t *v)
{
	unsigned long n;

	if (!strcmp(s, "unlimited") || !strcmp(s, "infinity")) {
		*v = RLIM_INFINITY;
		return 0;
	}
	if (opt_ulong(s, ~0UL - 1, &n) < 0)
		return -1;
	*v = n;
	return 0;
}

int rlimit_parse(const char *s, struct rlim_opt *r)
{
	char name[16], val[48], *colon;
	const char *eq = strchr(s, '=');
	size_t i;

	if (!eq || (size_t)(eq - s) >= sizeof(name) || strlen(eq + 1) >= sizeof(val))
		return -1;
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = 0;
	strcpy(val, eq + 1);
	for (i = 0; i < ARRAY_SIZE(RLIMITS); i++)
		if (!strcmp(name, RLIMITS[i].name))
			break;
	if (i == ARRAY_SIZE(RLIMITS))
		return -1;
	r->resource = RLIMITS[i].res;
	colon = strchr(val, ':');
	if (colon)
		*colon = 0;
	if (rlim_value(val, &r->soft) < 0)
		return -1;
	if (!colon)
		r->hard = r->soft;
	else if (rlim_value(colon + 1, &r->hard) < 0)
		return -1;
	/* RLIM_INFINITY is the largest value, so this also orders 'unlimited'. */
	return r->soft > r->hard ? -1 : 0;
}

const char *rlimit_name(int resource)
{
	for (size_t i = 0; i < ARRAY_SIZE(RLIMITS); i++)
		if (RLIMITS[i].res == resource)
			return RLIMITS[i].name;
	return "?";
}

int cap_parse(const char *s)
{
	char buf[64] = "cap_";
	size_t off = 0, n = strlen(s);
	cap_value_t v;

	if (n == 0 || n > 40)
		return -1;
	if (!strncasecmp(s, "cap_", 4))
		off = 4;
	for (size_t i = off; i <= n; i++) {
		if (s[i] && !isalnum((unsigned char)s[i]) && s[i] != '_')
			return -1;
		buf[4 + i - off] = (char)tolower((unsigned char)s[i]);
	}
	/* libcap also takes numbers and "all"; only names are capabilities here. */
	if (!strcmp(buf, "cap_all") || cap_from_name(buf, &v) < 0 || v < 0)
		return -1;
	return (int)v;
}

int profile_is_builtin(const char *name)
{
	return !strcmp(name, "default") || !strcmp(name, "dev");
}

/*
 * Variables the dynamic loader, libc or a shell acts on at startup: what
 * glibc drops for setuid programs (its unsecvars) plus the shells' startup
 * files. Naming one is refused with 100 rather than dropped with a warning,
 * so a launcher finds its mistake at once instead of a silently different
 * agent.
 */
int env_name_refused(const char *name)
{
	static const char *const REFUSED[] = {
		"BASH_ENV",	    "ENV",	   "GCONV_PATH",     "GETCONF_DIR",  "HOSTALIASES",
		"LOCALDOMAIN",	    "LOCPATH",	   "MALLOC_TRACE",   "NIS_PATH",     "NLSPATH",
		"RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",	     "MUSL_LOCPATH", "SHELLOPTS",
		"BASHOPTS",	    "PS4",	   "GLIBC_TUNABLES",
	};

	if (!strncmp(name, "LD_", 3) || !strncmp(name, "MALLOC_", 7) ||
	    !strncmp(name, "BASH_FUNC_", 10))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(REFUSED); i++)
		if (!strcmp(name, REFUSED[i]))
			return 1;
	return 0;
}

int env_name_valid(const char *s, size_t n)
{
	if (n == 0 || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}
