/* SPDX-License-Identifier: ISC */
/*
 * import: a CLI's login file, from the host, sealed whole into a store, so
 * an operator never copies a token by hand. The file is checked with its
 * profile first (every secret found once, a string without escapes, long
 * enough for a phantom), then sealed by seal itself, then reported: the
 * fields taken by name, never a value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "login.h"
#include "oto.h"
#include "otosecret.h"

#define PROFILE_MAX (16 * 1024)

static const char *const BUILTIN[] = { "claude", "codex", "gemini" };

/* A regular file's bytes, at most max, into locked memory (a login file holds tokens). */
static char *xread_file(const char *path, const char *what, size_t max, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	/* O_NONBLOCK: a FIFO named as the file would block the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		die(EXIT_REJECT, 0, "%s %s: a symbolic link: name the file it points to", what,
		    path);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open %s %s", what, path);
	if (fstat(fd, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat %s %s", what, path);
	if (!S_ISREG(st.st_mode))
		die(EXIT_REJECT, 0, "%s %s: not a regular file", what, path);
	buf = sodium_malloc(max + 1);
	if (!buf)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	n = fd_read_all(fd, buf, max);
	if (n < 0 && errno == EFBIG)
		die(EXIT_REJECT, 0, "%s %s: larger than %zu bytes", what, path, max);
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read %s %s", what, path);
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static void xprofile(const char *text, size_t len, const char *name, struct login_profile *p)
{
	const char *why;
	size_t line;

	if (login_profile_parse(text, len, p, &line, &why) < 0) {
		if (line)
			die(EXIT_REJECT, 0, "profile %s, line %zu: %s", name, line, why);
		die(EXIT_REJECT, 0, "profile %s: %s", name, why);
	}
}

/* auto: the one built-in profile any of whose secrets the file holds. */
static const char *xrecognise(const char *file, const char *in, size_t len, struct login_profile *p)
{
	static struct login_profile q;
	const char *found = NULL, *also = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(BUILTIN); i++) {
		const char *t = login_profile_text(BUILTIN[i]);

		xprofile(t, strlen(t), BUILTIN[i], &q);
		if (!login_profile_fits(&q, in, len))
			continue;
		if (found) {
			also = BUILTIN[i];
			break;
		}
		found = BUILTIN[i];
		*p = q;
	}
	if (also)
		die(EXIT_REJECT, 0,
		    "login file %s: fits more than one profile (%s, %s): name one with --profile",
		    file, found, also);
	if (!found)
		die(EXIT_REJECT, 0,
		    "login file %s: no profile recognised (tried claude, codex, gemini): name one "
		    "with "
		    "--profile or --profile-file",
		    file);
	return found;
}

/*
 * Seals NAME = the file's bytes by seal's own path (modes.c), fed one
 * "NAME:base64=DATA" line on stdin through a pipe: the store is written,
 * checked and replaced exactly as seal does it. A pipe's buffer is kernel
 * memory, never a file; it is made large enough to hold the line whole.
 */
static void xseal_by_seal(const struct otosecret_opts *o, const char *name, const char *in,
			  size_t len)
{
	static struct otosecret_opts so;
	size_t b64 = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	size_t n = strlen(name), total = n + 8 + b64;
	char *line = sodium_malloc(total);
	int p[2], size;

	if (!line)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	memcpy(line, name, n);
	memcpy(line + n, ":base64=", 8);
	sodium_bin2base64(line + n + 8, b64, (const unsigned char *)in, len,
			  sodium_base64_VARIANT_ORIGINAL);
	line[total - 1] = '\n'; /* over the encoder's NUL */
	if (pipe2(p, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make a pipe");
	size = fcntl(p[1], F_SETPIPE_SZ, (int)total);
	if (size < 0 || (size_t)size < total)
		die(EXIT_SYS, errno, "unable to make a pipe of %zu bytes", total);
	if (fd_write_all(p[1], line, total) < 0)
		die(EXIT_SYS, errno, "unable to write to a pipe");
	close(p[1]);
	sodium_free(line);
	/* stdin becomes the pipe: a key on fd 0 moves first. */
	so = *o;
	if (so.key_fd == 0 && (so.key_fd = fcntl(0, F_DUPFD_CLOEXEC, 3)) < 0)
		die(EXIT_SYS, errno, "unable to move --key-fd 0");
	if (dup2(p[0], 0) < 0)
		die(EXIT_SYS, errno, "unable to read the pipe on stdin");
	close(p[0]);
	xotosecret_seal(&so);
}

void xotosecret_import(const struct otosecret_opts *o)
{
	static struct login_profile p;
	struct login_field f[LOGIN_MAX_SECRETS];
	const struct login_secret *bad = NULL;
	char entry[STORE_MAX_NAME + 1], *in, *out, *text;
	const char *pname = o->profile;
	size_t len, tlen, at;
	int64_t when;
	int err, jerr;

	/* 1. The login file and its profile, named or recognised. */
	in = xread_file(o->login, "login file", JSON_MAX_INPUT, &len);
	jerr = json_scan(in, len, NULL, NULL, &at);
	if (jerr != JSON_OK)
		die(EXIT_REJECT, 0, "login file %s: not strict JSON at byte %zu: %s", o->login, at,
		    json_strerror(jerr));
	if (o->profile_file) {
		text = xread_file(o->profile_file, "profile", PROFILE_MAX, &tlen);
		xprofile(text, tlen, o->profile_file, &p);
		sodium_free(text);
		pname = o->profile_file;
	} else if (!pname || !strcmp(pname, "auto")) {
		pname = xrecognise(o->login, in, len, &p);
	} else {
		const char *t = login_profile_text(pname); /* opts.c checked the name */

		xprofile(t, strlen(t), pname, &p);
	}

	/* 2. Every secret found once, a plain string, with a phantom of its shape. */
	out = sodium_malloc(len + 1);
	if (!out)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	err = login_phantom(&p, in, len, out, f, phantom_rand, NULL, &bad, &jerr, &at);
	if (err != LOGIN_OK)
		die(EXIT_REJECT, 0, "login file %s: profile %s: %s %s", o->login, pname,
		    bad ? bad->path : "the file", login_strerror(err));
	sodium_free(out);

	/* 3. Sealed whole, as the CLI wrote it. */
	if (o->name) {
		snprintf(entry, sizeof(entry), "%s", o->name);
	} else if (o->profile_file) {
		snprintf(entry, sizeof(entry), "LOGIN");
	} else {
		size_t i;

		for (i = 0; i < 16 && pname[i]; i++)
			entry[i] = (char)(pname[i] - (pname[i] >= 'a' && pname[i] <= 'z' ? 32 : 0));
		snprintf(entry + i, sizeof(entry) - i, "_LOGIN");
	}
	xseal_by_seal(o, entry, in, len);

	/* 4. What was taken, by name. */
	printf("profile %s\nentry %s\nfile %s\n", pname, entry, p.file);
	for (size_t i = 0; i < p.nsecrets; i++) {
		if (!f[i].present) {
			printf("field %s %s absent\n", p.secret[i].path,
			       login_role_name(p.secret[i].role));
			continue;
		}
		printf("field %s %s %s %zu\n", p.secret[i].path, login_role_name(p.secret[i].role),
		       f[i].shape == PHANTOM_JWT ? "jwt" : "opaque", f[i].end - f[i].start);
	}
	if (login_expiry(&p, in, len, &when) == 0) {
		time_t t = (time_t)when;
		struct tm tm;
		char buf[32];

		if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
			die(EXIT_SYS, 0, "unable to format the expiry");
		printf("expires %s%s\n", buf, when <= (int64_t)time(NULL) ? " (past)" : "");
	} else {
		printf("expires unknown\n");
	}
	if (fflush(stdout) == EOF)
		die(EXIT_SYS, errno, "unable to write to stdout");
	sodium_free(in);
}
