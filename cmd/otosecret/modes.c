/* SPDX-License-Identifier: ISC */
/* keygen, seal, list and phantom: the modes that make and read stores outside a chain. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "http.h"
#include "oto.h"
#include "otosecret.h"

void xotosecret_keygen(const struct otosecret_opts *o)
{
	uint8_t *key = sodium_malloc(STORE_KEY_BYTES);
	char *text = sodium_malloc(KEY_TEXT_MAX);
	struct stat st;
	int fd = 1, len;

	if (!key || !text)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	if (o->out) {
		fd = open(o->out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			die(EXIT_SYS, errno, "unable to create %s", o->out);
	} else if (fstat(1, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) &&
		   fchmod(1, st.st_mode & 0700) < 0) {
		/* "keygen > FILE" made FILE with the umask's mode: a key must be owner-only. */
		die(EXIT_SYS, errno, "unable to make the key file on stdout mode 0600");
	}
	randombytes_buf(key, STORE_KEY_BYTES);
	len = key_encode(key, text, KEY_TEXT_MAX);
	if (len < 0 || fd_write_all(fd, text, (size_t)len) < 0 || (o->out && close(fd) < 0)) {
		int err = errno;

		if (o->out)
			unlink(o->out);
		die(EXIT_SYS, err, "unable to write the key");
	}
	sodium_free(text);
	sodium_free(key);
}

void xotosecret_list(const struct otosecret_opts *o)
{
	static struct store_view v;
	size_t len;
	uint8_t *buf = xstore_load(o->store_fd, o->store_path, &len, 0, 0);
	int err = store_parse(buf, len, &v);

	if (err)
		die(EXIT_REJECT, 0, "store %s: %s", o->store_path ? o->store_path : "--store-fd",
		    store_strerror(err));
	for (uint32_t i = 0; i < v.count; i++)
		printf("%.*s\n", (int)v.e[i].name_len, v.e[i].name);
	if (fflush(stdout) == EOF)
		die(EXIT_SYS, errno, "unable to write to stdout");
	free(buf);
}

/*
 * The phantom otogate gives the agent for o->name: the operator's way to set
 * a CLI up with it (Claude Code's approved keys) once, without the key.
 */
void xotosecret_phantom(const struct otosecret_opts *o)
{
	static struct store_view v;
	const char *what = o->store_path ? o->store_path : "--store-fd";
	size_t len;
	uint8_t *buf = xstore_load(o->store_fd, o->store_path, &len, 0, 0);
	int err = store_parse(buf, len, &v), i;
	char *phantom;

	if (err)
		die(EXIT_REJECT, 0, "store %s: %s", what, store_strerror(err));
	i = store_find(&v, o->name);
	if (i < 0)
		die(EXIT_REJECT, 0, "store %s: no entry %s (otosecret list names them)", what,
		    o->name);
	/* The gateway's bounds (otogate.h): it would refuse to grant this value. */
	len = v.e[i].value_len;
	if (len < HTTP_MIN_SECRET || len > HTTP_MAX_SECRET)
		die(EXIT_REJECT, 0, "%s: the value is %zu bytes: otogate takes %d to %d", o->name,
		    len, HTTP_MIN_SECRET, HTTP_MAX_SECRET);
	phantom = malloc(len + 1);
	if (!phantom || store_phantom(&v, (uint32_t)i, phantom) < 0)
		die(EXIT_SYS, errno, "unable to derive the phantom of %s", o->name);
	printf("%s\n", phantom);
	if (fflush(stdout) == EOF)
		die(EXIT_SYS, errno, "unable to write to stdout");
	free(phantom);
	free(buf);
}

/* ---- seal ---- */

#define LINE_MAX_BYTES (128 * 1024) /* a base64 line for the largest value fits */

struct reader {
	uint8_t *buf; /* locked: it holds values */
	size_t len, line_no;
	size_t consumed; /* the bytes the last line returned took: dropped next */
	int eof;
};

/* The next line of stdin, without its newline, valid until the next call. */
static int xnext_line(struct reader *r, const char **line, size_t *len)
{
	uint8_t *nl;

	/* Drop (and wipe) what the previous call returned. */
	if (r->consumed) {
		memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
		sodium_memzero(r->buf + r->len - r->consumed, r->consumed);
		r->len -= r->consumed;
		r->consumed = 0;
	}
	while (!(nl = memchr(r->buf, '\n', r->len)) && !r->eof) {
		ssize_t n;

		if (r->len == LINE_MAX_BYTES)
			die(EXIT_REJECT, 0, "stdin line %zu: longer than %d bytes", r->line_no + 1,
			    LINE_MAX_BYTES);
		n = read(0, r->buf + r->len, LINE_MAX_BYTES - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(EXIT_SYS, errno, "unable to read stdin");
		if (n == 0)
			r->eof = 1;
		r->len += (size_t)n;
	}
	if (!nl && r->len == 0)
		return -1;
	r->line_no++;
	*line = (const char *)r->buf;
	*len = nl ? (size_t)(nl - r->buf) : r->len;
	r->consumed = nl ? *len + 1 : r->len;
	return 0;
}

struct sealed {
	char name[STORE_MAX_NAME + 1];
	uint8_t *value; /* sodium_malloc'd */
	size_t len;
};

static void xput_entry(struct sealed *s, uint32_t *n, const char *name, size_t nl,
		       const uint8_t *val, size_t vl, int b64, size_t line_no)
{
	uint32_t i;
	uint8_t *v;
	size_t out_len = vl;

	if (vl > (b64 ? 4 * ((STORE_MAX_VALUE + 2) / 3) : STORE_MAX_VALUE))
		die(EXIT_REJECT, 0, "stdin line %zu: %.*s: value longer than %d bytes", line_no,
		    (int)nl, name, STORE_MAX_VALUE);
	v = sodium_malloc(vl + 1);
	if (!v)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	if (b64) {
		if (sodium_base642bin(v, vl + 1, (const char *)val, vl, NULL, &out_len, NULL,
				      sodium_base64_VARIANT_ORIGINAL) ||
		    out_len > STORE_MAX_VALUE)
			die(EXIT_REJECT, 0, "stdin line %zu: %.*s: not valid base64", line_no,
			    (int)nl, name);
	} else {
		memcpy(v, val, vl);
	}
	for (i = 0; i < *n; i++)
		if (strlen(s[i].name) == nl && !memcmp(s[i].name, name, nl))
			break;
	if (i == *n) {
		if (*n == STORE_MAX_ENTRIES)
			die(EXIT_REJECT, 0, "more than %d entries", STORE_MAX_ENTRIES);
		memcpy(s[i].name, name, nl);
		s[i].name[nl] = 0;
		(*n)++;
	} else {
		/* Replacing: the old value is wiped. */
		sodium_free(s[i].value);
	}
	s[i].value = v;
	s[i].len = out_len;
}

/* Read the value of a "NAME" line: the next line, with echo off on a terminal. */
static int xread_hidden(struct reader *r, const char *name, size_t nl, const char **val, size_t *vl)
{
	struct termios old, quiet;
	int tty = isatty(0) && tcgetattr(0, &old) == 0, rc;

	if (tty) {
		char prompt[96];
		int n = snprintf(prompt, sizeof(prompt), "%.*s: ", (int)nl, name);

		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		(void)!write(2, prompt, (size_t)n);
		if (tcsetattr(0, TCSAFLUSH, &quiet) < 0)
			die(EXIT_SYS, errno, "unable to turn off the terminal's echo");
	}
	rc = xnext_line(r, val, vl);
	if (tty) {
		tcsetattr(0, TCSAFLUSH, &old);
		(void)!write(2, "\n", 1);
	}
	return rc;
}

/*
 * Into the store at path, under the lock on its directory (store_update.c):
 * what another writer sealed meanwhile is kept, a crash leaves the old store
 * or the new, never half.
 */
static void xupdate_store(const char *path, const uint8_t *key, const struct store_plain *pe,
			  uint32_t n)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	unsigned int wait_ms, flags = STORE_UPDATE_CREATE;
	char dir[4096];
	int dfd, r, detail;

	wait_ms = (unsigned int)xtest_switch("OTO_TEST_SEAL_WAIT_MS", STORE_UPDATE_WAIT_MS, 0,
					     STORE_UPDATE_WAIT_MS, "the wait for the store's lock");
	flags |= STORE_UPDATE_STOP(
	    xtest_switch("OTO_TEST_SEAL_STOP", 0, 0, 4, "a SIGSTOP while writing the store"));
	if (xtest_switch("OTO_TEST_SEAL_NO_TMPFILE", 0, 0, 1, "no O_TMPFILE for the store"))
		flags |= STORE_UPDATE_NO_TMPFILE;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			  path) >= (int)sizeof(dir))
		die(EXIT_SYS, ENAMETOOLONG, "store %s: unable to open its directory", path);
	if (!*name)
		die(EXIT_REJECT, 0, "store %s: names a directory, not a file", path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die(EXIT_SYS, errno, "store %s: unable to open its directory %s", path, dir);
	r = store_update(dfd, name, key, pe, n, flags, wait_ms, &detail);
	if (r == STORE_UPD_BUSY)
		die(EXIT_SYS, 0, "store %s: %s (%u ms); nothing was written", path,
		    store_update_strerror(r, 0), wait_ms);
	if (r >= STORE_UPD_NOTREG)
		die(EXIT_REJECT, 0, "store %s: %s", path, store_update_strerror(r, detail));
	if (r)
		die(EXIT_SYS, errno, "store %s: %s", path, store_update_strerror(r, 0));
	close(dfd);
}

void xotosecret_seal(const struct otosecret_opts *o)
{
	static struct store_view v;
	static struct sealed s[STORE_MAX_ENTRIES];
	static struct store_plain pe[STORE_MAX_ENTRIES];
	uint8_t id[STORE_ID_BYTES], *old, *out, *key = xkey_load(o->key_fd, o->key_path);
	struct reader r = { 0 };
	uint32_t n = 0;
	size_t len = 0, size, nl, vl;
	const char *line, *val;

	/*
	 * Adding to a store: a wrong key or a bad store is said before a value
	 * is typed. store_update reads and verifies it again under its lock.
	 */
	old = o->store_path ? xstore_load(-1, o->store_path, &len, 1, 1) : NULL;
	if (old) {
		int err = store_parse(old, len, &v);

		if (!err)
			for (uint32_t i = 0; i < v.count && !err; i++)
				err = store_verify(&v, i, key);
		if (err)
			die(EXIT_REJECT, 0, "store %s: %s", o->store_path, store_strerror(err));
		free(old);
	}
	r.buf = sodium_malloc(LINE_MAX_BYTES);
	if (!r.buf)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	while (xnext_line(&r, &line, &len) == 0) {
		size_t no = r.line_no;

		switch (input_line(line, len, &nl, &val, &vl)) {
		case INPUT_SKIP:
			break;
		case INPUT_LITERAL:
			xput_entry(s, &n, line, nl, (const uint8_t *)val, vl, 0, no);
			break;
		case INPUT_BASE64:
			xput_entry(s, &n, line, nl, (const uint8_t *)val, vl, 1, no);
			break;
		case INPUT_PROMPT: {
			char name[STORE_MAX_NAME + 1];

			/* The line is reused by the next read: keep the name. */
			memcpy(name, line, nl);
			name[nl] = 0;
			if (xread_hidden(&r, name, nl, &val, &vl) < 0)
				die(EXIT_REJECT, 0, "stdin line %zu: %s: no value follows", no,
				    name);
			xput_entry(s, &n, name, nl, (const uint8_t *)val, vl, 0, no);
			break;
		}
		case INPUT_BAD:
		default:
			die(EXIT_REJECT, 0,
			    "stdin line %zu: not NAME=VALUE, NAME:base64=DATA or NAME", no);
		}
	}
	for (uint32_t i = 0; i < n; i++)
		pe[i] = (struct store_plain){ s[i].name, s[i].value, s[i].len };
	if (o->store_path) {
		xupdate_store(o->store_path, key, pe, n);
	} else {
		size = store_size(pe, n);
		if (!size)
			die(EXIT_REJECT, 0, "the store would be larger than 1 MiB");
		randombytes_buf(id, sizeof(id));
		out = malloc(size);
		if (!out || store_build(id, pe, n, key, out, size) < 0)
			die(EXIT_SYS, errno, "unable to build the store");
		if (fd_write_all(1, out, size) < 0)
			die(EXIT_SYS, errno, "unable to write the store to stdout");
		free(out);
	}
	for (uint32_t i = 0; i < n; i++) {
		debugx("sealed %s", s[i].name);
		sodium_free(s[i].value);
	}
	sodium_free(r.buf);
	sodium_free(key);
}
