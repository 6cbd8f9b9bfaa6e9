/* SPDX-License-Identifier: ISC */
/* The pure parts of otoprobe: parsers, classifiers, escaping. No system calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoprobe.h"

const char *const NS_NAMES[] = { "user", "mnt", "pid", "ipc", "uts", "cgroup", "net" };
_Static_assert(ARRAY_SIZE(NS_NAMES) == NS_COUNT, "a name for each namespace");

int ns_is_initial(int ns, unsigned long ino)
{
	/* The kernel gives the initial namespaces these inodes, on every boot. */
	static const unsigned long INIT_INO[NS_COUNT] = {
		[NS_USER] = 0xEFFFFFFDUL, [NS_MNT] = 0xEFFFFFF8UL, [NS_PID] = 0xEFFFFFFCUL,
		[NS_IPC] = 0xEFFFFFFFUL,  [NS_UTS] = 0xEFFFFFFEUL, [NS_CGROUP] = 0xEFFFFFFBUL,
		[NS_NET] = 0xEFFFFFF9UL,
	};

	return ns >= 0 && ns < NS_COUNT && ino == INIT_INO[ns];
}

int hostns_parse(const char *s, int *ns, unsigned long *id)
{
	char name[16], num[32];

	if (opt_split2(s, name, sizeof(name), num, sizeof(num)) < 0)
		goto bad;
	if (opt_ulong(num, 0xffffffffUL, id) < 0 || *id == 0)
		goto bad;
	for (int i = 0; i < NS_COUNT; i++) {
		if (!strcmp(name, NS_NAMES[i])) {
			*ns = i;
			return 0;
		}
	}
bad:
	errno = EINVAL;
	return -1;
}

int status_field(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) || p[klen] != ':')
			continue;
		p += klen + 1;
		p += strspn(p, " \t");
		size_t n = strcspn(p, "\n");
		if (n >= size) {
			errno = ERANGE;
			return -1;
		}
		memcpy(out, p, n);
		out[n] = 0;
		return 0;
	}
	errno = ENOENT;
	return -1;
}

/* mountinfo escapes space, tab, newline and backslash as \NNN (octal). */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

/*
 * "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue"
 * fields: id parent dev root mountpoint options [optional...] - fstype source super
 */
int mountinfo_parse(char *line, struct mountinfo_ent *e)
{
	char *f[6], *save = NULL, *tok;
	int n = 0;

	line[strcspn(line, "\n")] = 0;
	for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
		f[n++] = tok;
	if (n < 6)
		goto bad;
	/* The optional fields end at a lone "-"; the file system type follows. */
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " ", &save);
	if (!tok || !(tok = strtok_r(NULL, " ", &save)))
		goto bad;
	e->mountpoint = f[4];
	e->options = f[5];
	e->fstype = tok;
	unescape_octal(e->mountpoint);
	e->writable = !strcmp(e->options, "rw") || !strncmp(e->options, "rw,", 3);
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

enum verdict uidmap_verdict(const char *text)
{
	unsigned long in, out, count;
	int n, lines = 0;

	for (const char *p = text; *p;) {
		if (sscanf(p, " %lu %lu %lu%n", &in, &out, &count, &n) != 3)
			return V_GAP; /* unreadable: do not call it contained */
		lines++;
		/* The initial namespace maps everything onto itself. */
		if (in == 0 && out == 0 && count == 4294967295UL)
			return V_GAP;
		if (out == 0 && count > 0)
			return V_GAP;
		p += n;
		p += strspn(p, " \t\n");
	}
	return lines ? V_OK : V_GAP;
}

enum verdict syscall_verdict(int err, const int *extra, size_t nextra)
{
	if (err == EPERM || err == EACCES || err == ENOSYS)
		return V_OK;
	for (size_t i = 0; i < nextra; i++)
		if (err && err == extra[i])
			return V_OK;
	return V_GAP;
}

enum verdict connect_verdict(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case ENETUNREACH:
	case EHOSTUNREACH:
	case ENETDOWN:
	case EADDRNOTAVAIL:
	case EAFNOSUPPORT:
	case ECONNREFUSED:
		return V_OK;
	default:
		/* Connected, timed out (the packet left and nothing refused it), or an
		 * error that says nothing about a wall in between. */
		return V_GAP;
	}
}

int env_name_is_secret(const char *name)
{
	static const char *const words[] = { "KEY",	 "TOKEN",      "SECRET",     "PASSWORD",
					     "PASSWD",	 "PASSPHRASE", "CREDENTIAL", "AUTH",
					     "SESSION",	 "COOKIE",     "PRIVATE",    "BEARER",
					     "SIGNATURE" };
	static const char *const prefixes[] = { "AWS_",	   "AZURE_",  "GOOGLE_", "GCP_", "GH_",
						"GITHUB_", "GITLAB_", "NPM_",	 "PYPI_" };
	char up[256];
	size_t n = strlen(name), i;

	if (n >= sizeof(up))
		n = sizeof(up) - 1;
	for (i = 0; i < n; i++)
		up[i] = (name[i] >= 'a' && name[i] <= 'z') ? (char)(name[i] - 32) : name[i];
	up[n] = 0;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(up, words[i]))
			return 1;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(up, prefixes[i], strlen(prefixes[i])))
			return 1;
	return n >= 4 && !strcmp(up + n - 4, "_PAT");
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0], need, min, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	for (unsigned int i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

static void put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, (*len)++)
		if (*len + 1 < size)
			out[*len] = s[i];
	if (size)
		out[*len < size ? *len : size - 1] = 0;
}

size_t json_escape(char *out, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;
	char esc[8];

	if (size)
		out[0] = 0;
	while (*p) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(out, size, &len, esc, 2);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			put(out, size, &len, esc, 6);
			p++;
		} else if ((n = utf8_len(p)) > 0) {
			put(out, size, &len, (const char *)p, n);
			p += n;
		} else {
			put(out, size, &len, "\\ufffd", 6);
			p++;
		}
	}
	return len;
}

size_t text_escape(char *out, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;
	char esc[8];

	if (size)
		out[0] = 0;
	while (*p) {
		/*
		 * A name planted by the agent must not drive the auditor's
		 * terminal: controls, the backslash and what is not UTF-8 are
		 * escaped (U+0080..U+009F are C1 controls: CSI is U+009B).
		 */
		if (*p >= 0x20 && *p != 0x7f && *p != '\\' && (n = utf8_len(p)) > 0 &&
		    !(n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			put(out, size, &len, (const char *)p, n);
			p += n;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			put(out, size, &len, esc, 4);
			p++;
		}
	}
	return len;
}

const char *errno_name(int err, char *buf, size_t size)
{
	static const struct {
		int err;
		const char *name;
	} NAMES[] = {
		{ EPERM, "EPERM" },
		{ ENOENT, "ENOENT" },
		{ ESRCH, "ESRCH" },
		{ EINTR, "EINTR" },
		{ EIO, "EIO" },
		{ ENOEXEC, "ENOEXEC" },
		{ EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" },
		{ EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" },
		{ ENODEV, "ENODEV" },
		{ ENOTDIR, "ENOTDIR" },
		{ EINVAL, "EINVAL" },
		{ EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" },
		{ ENOSPC, "ENOSPC" },
		{ ENOSYS, "ENOSYS" },
		{ EOVERFLOW, "EOVERFLOW" },
		{ EUSERS, "EUSERS" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EOPNOTSUPP, "EOPNOTSUPP" },
		{ EAFNOSUPPORT, "EAFNOSUPPORT" },
		{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
		{ ENETDOWN, "ENETDOWN" },
		{ ENETUNREACH, "ENETUNREACH" },
		{ ECONNRESET, "ECONNRESET" },
		{ ETIMEDOUT, "ETIMEDOUT" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ EHOSTUNREACH, "EHOSTUNREACH" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(NAMES); i++)
		if (NAMES[i].err == err)
			return NAMES[i].name;
	snprintf(buf, size, "errno %d", err);
	return buf;
}
