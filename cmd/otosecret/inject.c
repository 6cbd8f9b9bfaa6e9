/* SPDX-License-Identifier: ISC */
/*
 * Injection is all or nothing: every entry of the store is authenticated and
 * every used one decrypted before the first file, fd or variable exists; a
 * failure while placing removes the files already made.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <sodium.h>

#include "oto.h"
#include "otosecret.h"

uint8_t **xinject_decrypt(const struct store_view *v, struct otosecret_opts *o, const uint8_t *key)
{
	/* plain[nuses] is the one locked block that holds every value. */
	uint8_t **plain = calloc(o->nuses + 1, sizeof(*plain)), *p;
	size_t total = 0;

	if (!plain)
		die(EXIT_SYS, errno, "unable to decrypt the store: out of memory");
	for (size_t i = 0; i < o->nuses; i++) {
		o->uses[i].index = store_find(v, o->uses[i].name);
		if (o->uses[i].index < 0)
			die(EXIT_REJECT, 0, "--use %s: no such name in the store", o->uses[i].name);
		/* env: room for "VAR=" before the value, so the block is the environment string. */
		total += v->e[o->uses[i].index].value_len + 1;
		if (o->uses[i].how == HOW_ENV)
			total += strlen(o->uses[i].target) + 1;
	}
	/*
	 * One sodium_malloc for all: each one costs an mmap, guard pages, mprotect
	 * and mlock, and 100 of them would dominate the run time.
	 */
	p = plain[o->nuses] = sodium_malloc(total);
	if (!p)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	/*
	 * Every entry, used or not: a store with one tampered byte anywhere is
	 * refused, so a forged store cannot pass as long as the forged entry is
	 * not the one asked for. Verification alone decrypts nothing.
	 */
	for (uint32_t i = 0; i < v->count; i++)
		if (store_verify(v, i, key))
			die(EXIT_REJECT, 0, "entry %u (%.*s): %s", i, (int)v->e[i].name_len,
			    v->e[i].name, store_strerror(STORE_EVERIFY));
	for (size_t i = 0; i < o->nuses; i++) {
		const struct use *u = &o->uses[i];
		const struct store_entry *e = &v->e[u->index];

		if (u->how == HOW_ENV) {
			size_t tl = strlen(u->target);

			memcpy(p, u->target, tl);
			p[tl] = '=';
			p += tl + 1;
		}
		/* +1: a NUL after the value, for the environment. */
		plain[i] = p;
		p += e->value_len + 1;
		if (store_open(v, (uint32_t)u->index, key, plain[i]))
			die(EXIT_REJECT, 0, "--use %s: %s", u->name, store_strerror(STORE_EVERIFY));
		plain[i][e->value_len] = 0;
		if (u->how == HOW_ENV && memchr(plain[i], 0, e->value_len))
			die(EXIT_REJECT, 0,
			    "--use %s: the value holds a NUL byte: use file= or fd=", u->name);
	}
	return plain;
}

static int on_tmpfs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -1;
	return sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
}

/* Returns 0, or the exit code with errno set and *why naming the problem. */
static int place_file(const char *path, const uint8_t *val, size_t len, const char **why)
{
	char dir[4096], base[4096];
	int dfd, fd, t, saved;

	if (strlen(path) >= sizeof(dir)) {
		*why = "path too long";
		errno = ENAMETOOLONG;
		return EXIT_REJECT;
	}
	strcpy(dir, path);
	strcpy(base, path);
	dfd = open(dirname(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*why = "unable to open its directory";
		return EXIT_SYS;
	}
	/* Checked on the directory first, so nothing is ever written to a disk. */
	t = on_tmpfs(dfd);
	if (t <= 0) {
		saved = errno;
		close(dfd);
		*why = "not on a tmpfs (refusing a persistent file system)";
		errno = t < 0 ? saved : 0;
		return t < 0 ? EXIT_SYS : EXIT_REJECT;
	}
	/* O_EXCL|O_NOFOLLOW: never an existing file, never through a planted symlink. */
	fd =
	    openat(dfd, basename(base), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	saved = errno;
	close(dfd);
	if (fd < 0) {
		errno = saved;
		*why = saved == EEXIST ? "already exists" : "unable to create";
		return saved == EEXIST ? EXIT_REJECT : EXIT_SYS;
	}
	if (fchmod(fd, 0400) < 0 || fd_write_all(fd, val, len) < 0) {
		saved = errno;
		close(fd);
		unlink(path);
		errno = saved;
		*why = "unable to write";
		return EXIT_SYS;
	}
	if (close(fd) < 0) {
		saved = errno;
		unlink(path);
		errno = saved;
		*why = "unable to write";
		return EXIT_SYS;
	}
	return 0;
}

static int place_fd(const char *name, int target, const uint8_t *val, size_t len)
{
	char mname[80] = "otosecret:";
	int m, saved;

	strncat(mname, name, sizeof(mname) - strlen(mname) - 1);
	m = memfd_create(mname, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m < 0)
		return -1;
	/* Sealed against writes, resizing and new seals: the program can only read it. */
	if (fd_write_all(m, val, len) < 0 ||
	    fcntl(m, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
	    lseek(m, 0, SEEK_SET) < 0)
		goto fail;
	if (m == target)
		return fd_cloexec(m, 0);
	/* dup2 clears close-on-exec on the copy: that one is for the program. */
	if (dup2(m, target) < 0)
		goto fail;
	close(m);
	return 0;
fail:
	saved = errno;
	close(m);
	errno = saved;
	return -1;
}

/* The exec's environment: the inherited strings, then the "VAR=VALUE" ones in the locked block. */
static char **xbuild_env(const struct otosecret_opts *o, uint8_t **plain)
{
	size_t n = 0, k = 0;
	char **env_new;

	for (char **e = environ; e && *e; e++)
		n++;
	env_new = calloc(n + o->nuses + 1, sizeof(char *));
	if (!env_new)
		die(EXIT_SYS, errno, "unable to build the environment: out of memory");
	/* Inherited variables of the same name are replaced, not doubled. */
	for (char **e = environ; e && *e; e++) {
		int replaced = 0;

		for (size_t i = 0; i < o->nuses && !replaced; i++) {
			size_t tl = strlen(o->uses[i].target);

			replaced = o->uses[i].how == HOW_ENV &&
				   !strncmp(*e, o->uses[i].target, tl) &&
				   ((*e)[tl] == '=' || (*e)[tl] == 0);
		}
		if (!replaced)
			env_new[k++] = *e;
	}
	for (size_t i = 0; i < o->nuses; i++)
		if (o->uses[i].how == HOW_ENV)
			env_new[k++] = (char *)plain[i] - strlen(o->uses[i].target) - 1;
	env_new[k] = NULL;
	return env_new;
}

char **xinject_place(const struct store_view *v, const struct otosecret_opts *o, uint8_t **plain)
{
	size_t done;
	int code = 0, err = 0;
	const char *why = NULL;

	for (done = 0; done < o->nuses; done++) {
		const struct use *u = &o->uses[done];
		size_t vl = v->e[u->index].value_len;

		if (u->how == HOW_FILE)
			code = place_file(u->target, plain[done], vl, &why);
		else if (u->how == HOW_FD && place_fd(u->name, u->fd, plain[done], vl) < 0)
			code = EXIT_SYS, why = "unable to place a sealed memfd";
		if (code) {
			err = errno;
			break;
		}
		/* Written to its file or memfd: our copy goes at once. */
		if (u->how != HOW_ENV)
			sodium_memzero(plain[done], vl);
		debugx("%s: injected", u->name);
	}
	if (code) {
		/* Nothing partial: remove the files made before this failure. */
		for (size_t i = 0; i < done; i++)
			if (o->uses[i].how == HOW_FILE)
				unlink(o->uses[i].target);
		die(code, err, "--use %s: %s", o->uses[done].name, why);
	}
	return xbuild_env(o, plain);
}

void xinject_exec(char **argv, char **env, uint8_t **plain, size_t nuses)
{
	char **old = environ;

	/*
	 * musl's execvp passes environ: point it at env, the strings
	 * xinject_place built. The locked block is not freed (an munmap and
	 * TLB flush for memory the exec discards anyway): what is left in it is
	 * the environment itself.
	 */
	environ = env;
	execvp(argv[0], argv);
	{
		int err = errno;

		/* die() reads OTO_STATUS_FD: give it the environment without the secrets. */
		environ = old;
		sodium_free(plain[nuses]);
		xexec_fail(argv[0], err, NULL);
	}
}
