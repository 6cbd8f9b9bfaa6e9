/* SPDX-License-Identifier: ISC */
/*
 * The granted entries, and nothing else, decrypted into locked memory; each
 * gets its phantom, the string the agent holds in its place: "oto-phantom-"
 * and letters, exactly as long as the value, so that a body the gateway
 * turns back from value to phantom keeps its Content-Length. The same at
 * every session of the store and the name (store_phantom.c), so that a CLI
 * which remembers an approved key does not ask again.
 *
 * In two steps: the store (sealed: nothing in it is secret without the key)
 * is read and checked, and the phantoms made, before the fork, so that the
 * chain's environment is known and a bad store or name stops everything
 * before it starts; the key is read and the values decrypted only by the
 * gateway, once it is in its own user namespace and not dumpable (main.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"

/*
 * The store's path: --store FILE's, or with --store-fd the one the kernel
 * names for that fd (otorun passes the store so), taken only when the
 * name still leads to the same file (its device and inode). NULL: none.
 */
static const char *store_path_of(const struct otogate_opts *o, char *buf, size_t size)
{
	struct stat a, b;
	char proc[64];
	ssize_t n;

	if (o->store_path)
		return o->store_path;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->store_fd);
	n = readlink(proc, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1 || buf[0] != '/')
		return NULL;
	buf[n] = 0;
	if (fstat(o->store_fd, &a) < 0 || stat(buf, &b) < 0 || !S_ISREG(a.st_mode) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return NULL;
	return buf;
}

/*
 * With --login: the store's directory, where a refresh's new tokens are
 * sealed (refresh.c, store_update), opened now while the host's files are
 * there, on GATE_STORE_DIRFD (the gateway's filter pins its *at() calls to
 * that number). A --store-fd with no path to its file (a pipe, a deleted
 * file): said once, and the tokens are the session's alone.
 */
static void xstore_dir(struct otogate_opts *o)
{
	static char found[4096];
	const char *path, *slash;
	char *dir;
	int fd;

	o->store_dir = -1;
	if (!o->nlogins)
		return;
	path = store_path_of(o, found, sizeof(found));
	if (!path) {
		warnx("--store-fd %d: no directory to seal a refresh's new tokens in: they are "
		      "kept for this session only (--store FILE keeps them)",
		      o->store_fd);
		return;
	}
	slash = strrchr(path, '/');
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		die(EXIT_SYS, errno, "unable to copy the store's path");
	o->store_name = strdup(slash ? slash + 1 : path);
	if (!o->store_name)
		die(EXIT_SYS, errno, "unable to copy the store's path");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open the store's directory %s", dir);
	if (fcntl(GATE_STORE_DIRFD, F_GETFD) >= 0 || errno != EBADF)
		die(EXIT_SYS, 0, "fd %d is open: otogate keeps the store's directory there",
		    GATE_STORE_DIRFD);
	if (dup3(fd, GATE_STORE_DIRFD, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to keep the store's directory on fd %d",
		    GATE_STORE_DIRFD);
	close(fd);
	free(dir);
	o->store_dir = GATE_STORE_DIRFD;
}

void xsecrets_plan(struct otogate_opts *o, struct gate_secrets *s)
{
	size_t len;
	struct stat st;
	int err;

	if (sodium_init() < 0)
		die(EXIT_SYS, 0, "unable to initialise libsodium");
	/* Before the store's fd is read and closed: its path, with --store-fd. */
	xstore_dir(o);
	s->store = xstore_load(o->store_fd, o->store_path, &len, 0, 1);
	err = store_parse(s->store, len, &s->v);
	if (err)
		die(EXIT_REJECT, 0, "store %s: %s", o->store_path ? o->store_path : "--store-fd",
		    store_strerror(err));
	for (size_t i = 0; i < o->ngrants; i++) {
		struct grant *g = &o->grants[i];
		int idx;
		size_t n;

		/* A login's: its values come from its file (login.c). */
		if (g->login)
			continue;
		idx = store_find(&s->v, g->name);
		if (idx < 0)
			die(EXIT_REJECT, 0, "--grant %s: no such name in the store", g->name);
		n = s->v.e[idx].value_len;
		/*
		 * A short value would be found, and replaced, in responses that
		 * never held it; a long one is more than the replacer holds.
		 */
		if (n < GATE_MIN_SECRET || n > HTTP_MAX_SECRET)
			die(EXIT_REJECT, 0,
			    "--grant %s: the value is %zu bytes: the gateway takes %d to %d",
			    g->name, n, GATE_MIN_SECRET, HTTP_MAX_SECRET);
		s->index_of[i] = idx;
		g->len = n;
		g->phantom = malloc(n + 1);
		if (!g->phantom)
			die(EXIT_SYS, errno, "unable to allocate the phantom of %s", g->name);
		if (store_phantom(&s->v, (uint32_t)idx, g->phantom) < 0)
			die(EXIT_SYS, errno, "unable to derive the phantom of %s", g->name);
	}
	xlogin_plan(o, &s->v);
	/*
	 * The key stays unread for now: opened here (the file may be root's, and
	 * the gateway will not be), checked as xkey_load checks it, and kept
	 * close-on-exec so that the chain never holds it.
	 */
	if (o->key_path) {
		o->key_fd = open(o->key_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (o->key_fd < 0) {
			int e = errno;
			char why[512];

			die_hint(EXIT_SYS, e, store_file_why(o->key_path, e, 1, why, sizeof(why)),
				 "unable to open key %s", o->key_path);
		}
		if (fstat(o->key_fd, &st) < 0)
			die(EXIT_SYS, errno, "unable to stat key %s", o->key_path);
		if (S_ISREG(st.st_mode) && (st.st_mode & 077))
			die(EXIT_REJECT, 0,
			    "key %s is accessible by group or others (mode %04o): chmod 600",
			    o->key_path, (unsigned int)(st.st_mode & 07777));
	} else if (fcntl(o->key_fd, F_SETFD, FD_CLOEXEC) < 0) {
		die_usage("--key-fd %d: not an open file descriptor", o->key_fd);
	}
}

void xsecrets_open(struct otogate_opts *o, struct gate_secrets *s)
{
	uint8_t *key = xkey_load(o->key_fd, NULL);

	/* A store with one tampered byte anywhere is refused; verifying decrypts nothing. */
	for (uint32_t i = 0; i < s->v.count; i++)
		if (store_verify(&s->v, i, key))
			die(EXIT_REJECT, 0, "entry %u (%.*s): %s", i, (int)s->v.e[i].name_len,
			    s->v.e[i].name, store_strerror(STORE_EVERIFY));
	for (size_t i = 0; i < o->ngrants; i++) {
		struct grant *g = &o->grants[i];

		if (g->login)
			continue;
		g->real = sodium_malloc(g->len + 1);
		if (!g->real)
			die(EXIT_SYS, errno, "unable to allocate locked memory for %s", g->name);
		if (store_open(&s->v, (uint32_t)s->index_of[i], key, g->real))
			die(EXIT_REJECT, 0, "--grant %s: %s", g->name,
			    store_strerror(STORE_EVERIFY));
		g->real[g->len] = 0;
		/*
		 * A value sealed as what `otosecret phantom` printed for it: the
		 * agent would hold the value itself.
		 */
		if (!memcmp(g->real, g->phantom, g->len))
			die(EXIT_REJECT, 0,
			    "--grant %s: the value is its own phantom: seal the real value",
			    g->name);
		/* It goes into request headers: it must be a valid header value. */
		if (!http_value_ok((const char *)g->real, g->len))
			die(EXIT_REJECT, 0,
			    "--grant %s: the value cannot stand in an HTTP header (a control byte, "
			    "or white space at an end)",
			    g->name);
	}
	xlogin_open(o, &s->v, key);
	/* A login's refreshed file is sealed under it (refresh.c): kept, locked. */
	if (o->nlogins) {
		o->key = key;
	} else {
		sodium_memzero(key, STORE_KEY_BYTES);
		sodium_free(key);
	}
	free(s->store);
	s->store = NULL;
}
