/* SPDX-License-Identifier: ISC */
/*
 * Replace or add entries in a store file while other writers run at once (a
 * seal by hand, sessions saving refreshed logins) and a crash may come at any
 * instant: the file is always a whole old store or a whole new one.
 *
 * Writers take an exclusive flock on the store's directory: not on the store
 * (it is replaced, so the next writer would lock a file nobody opens again)
 * and not on a lock file (nothing but the store is ever left on the host).
 * Under the lock the store is read and verified again, so what another
 * writer added meanwhile is kept and the newest value of each name wins.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "oto.h"

#define TMP_SUFFIX   ".oto-tmp"
#define LOCK_POLL_MS 10

/* What one update holds; malloc'd (about 40 KB), so a small stack is enough. */
struct upd {
	int at;	  /* the caller's directory fd: every *at() call's base */
	int lock; /* the same directory, an open file description of our own: the flock */
	const char *name;
	char tmp[NAME_MAX + 1];
	int named; /* tmp exists in dir and is ours to remove */
	unsigned int flags;
	struct store_view v;
	char names[STORE_MAX_ENTRIES][STORE_MAX_NAME + 1];
	struct store_plain old[STORE_MAX_ENTRIES], all[STORE_MAX_ENTRIES];
};

/* Tests stop the writer here (SIGSTOP) to kill it at a chosen point. */
static void stop_at(const struct upd *u, unsigned int point)
{
	if (STORE_UPDATE_STOP_POINT(u->flags) == point)
		raise(SIGSTOP);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * LOCK_NB and a short nap rather than a blocking flock under an alarm: no
 * signal handler in a library, and the gateway's filter allows only a few
 * more calls (flock, nanosleep).
 */
static int lock_dir(int dir, unsigned int wait_ms)
{
	const struct timespec nap = { 0, LOCK_POLL_MS * 1000000L };
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (flock(dir, LOCK_EX | LOCK_NB) == 0)
			return STORE_UPD_OK;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return STORE_UPD_LOCK;
		if (ms_since(&t0) >= (long)wait_ms) {
			errno = EWOULDBLOCK;
			return STORE_UPD_BUSY;
		}
		nanosleep(&nap, NULL);
	}
}

/* The store as it is now, under the lock: *buf NULL when it is missing and may be made. */
static int read_store(struct upd *u, uint8_t **buf, size_t *len, struct stat *st, int *detail)
{
	/* O_NONBLOCK: a FIFO planted under the store's name must not hang the writer. */
	int fd = openat(u->at, u->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t cap;
	ssize_t n;

	*buf = NULL;
	if (fd < 0 && errno == ENOENT && (u->flags & STORE_UPDATE_CREATE))
		return STORE_UPD_OK;
	if (fd < 0)
		return STORE_UPD_READ;
	if (fstat(fd, st) < 0) {
		close(fd);
		return STORE_UPD_READ;
	}
	/* DESIGN.md: a store others may write could be swapped for an older one of the same id. */
	if (!S_ISREG(st->st_mode) || (st->st_mode & 077)) {
		close(fd);
		errno = 0;
		return S_ISREG(st->st_mode) ? STORE_UPD_MODE : STORE_UPD_NOTREG;
	}
	/* Its size and one byte more, not STORE_MAX_SIZE: a megabyte mapped and unmapped at
	 * every refresh of a login (otogate) costs a page fault and a TLB flush each time. */
	cap = st->st_size < STORE_MAX_SIZE ? (size_t)st->st_size + 1 : STORE_MAX_SIZE;
	*buf = malloc(cap);
	n = *buf ? fd_read_all(fd, *buf, cap) : -1;
	close(fd);
	if (n < 0 && errno == EFBIG && cap < STORE_MAX_SIZE) {
		/* Grew while read, under our lock: a writer that does not take it. */
		errno = EBUSY;
		return STORE_UPD_READ;
	}
	if (n < 0 && errno == EFBIG) {
		*detail = STORE_ETOOBIG;
		return STORE_UPD_STORE;
	}
	if (n < 0)
		return *buf ? STORE_UPD_READ : STORE_UPD_MEM;
	*len = (size_t)n;
	return STORE_UPD_OK;
}

/* Every entry authenticated and opened into pool (locked memory), named in u->old. */
static int open_all(struct upd *u, const uint8_t *key, uint8_t **pool, int *detail)
{
	size_t total = 1, off = 0;

	for (uint32_t i = 0; i < u->v.count; i++)
		total += u->v.e[i].value_len;
	*pool = sodium_malloc(total);
	if (!*pool)
		return STORE_UPD_MEM;
	for (uint32_t i = 0; i < u->v.count; i++) {
		const struct store_entry *e = &u->v.e[i];

		if (store_open(&u->v, i, key, *pool + off)) {
			*detail = STORE_EVERIFY;
			return STORE_UPD_STORE;
		}
		memcpy(u->names[i], e->name, e->name_len);
		u->names[i][e->name_len] = 0;
		u->old[i] = (struct store_plain){ u->names[i], *pool + off, e->value_len };
		off += e->value_len;
	}
	return STORE_UPD_OK;
}

/* O_TMPFILE was refused for a reason other than the caller's rights: a file system without it. */
static int tmpfile_unsupported(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOENT;
}

/*
 * Gives the unnamed file the temporary name: AT_EMPTY_PATH (Linux 6.10
 * lets the file's opener do it), else through /proc (older kernels); -1
 * when neither works, and the caller writes a named file instead.
 */
static int link_tmpfile(struct upd *u, int fd)
{
	char proc[64];

	if (linkat(fd, "", u->at, u->tmp, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, u->at, u->tmp, AT_SYMLINK_FOLLOW);
}

/*
 * The new store, synced, under u->tmp. With tmpfile, an unnamed file first
 * (a writer killed while writing leaves nothing); returns -2 when that
 * cannot be done here, to be tried again without.
 */
static int write_tmp(struct upd *u, const uint8_t *out, size_t size, const struct stat *old,
		     int tmpfile)
{
	struct stat st;
	int fd = -1, r = STORE_UPD_TEMP, err;

	if (tmpfile) {
		fd = openat(u->at, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return tmpfile_unsupported(errno) ? -2 : STORE_UPD_TEMP;
	}
	/* Left by a writer killed between naming it and the rename: under the lock, ours. */
	if (unlinkat(u->at, u->tmp, 0) < 0 && errno != ENOENT)
		goto fail;
	if (!tmpfile) {
		fd = openat(u->at, u->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0)
			goto fail;
		u->named = 1;
	}
	/* The old store's owner (root sealing an account's store); the mode owner-only, whatever
	 * the umask. */
	r = STORE_UPD_OWNER;
	if (old && (fstat(fd, &st) < 0 || ((st.st_uid != old->st_uid || st.st_gid != old->st_gid) &&
					   fchown(fd, old->st_uid, old->st_gid) < 0)))
		goto fail;
	r = STORE_UPD_TEMP;
	if (fchmod(fd, 0600) < 0 || fd_write_all(fd, out, size) < 0 || fsync(fd) < 0)
		goto fail;
	stop_at(u, 2);
	if (tmpfile && link_tmpfile(u, fd) < 0) {
		r = errno == EEXIST ? STORE_UPD_TEMP : -2;
		goto fail;
	}
	u->named = 1;
	if (close(fd) < 0 && errno != EINTR) {
		fd = -1;
		goto fail;
	}
	stop_at(u, 3);
	return STORE_UPD_OK;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	if (u->named && unlinkat(u->at, u->tmp, 0) == 0)
		u->named = 0;
	errno = err;
	return r;
}

static int update_locked(struct upd *u, const uint8_t *key, const struct store_plain *pe,
			 uint32_t n, int *detail)
{
	uint8_t id[STORE_ID_BYTES], *buf, *out = NULL, *pool = NULL;
	struct stat st;
	size_t len = 0, size;
	int r, count, err;

	r = read_store(u, &buf, &len, &st, detail);
	if (r)
		return r;
	randombytes_buf(id, sizeof(id));
	u->v.count = 0;
	if (buf) {
		r = *detail = store_parse(buf, len, &u->v);
		if (r) {
			r = STORE_UPD_STORE;
			goto out;
		}
		/* The same id: every phantom derived from it stays the same. */
		memcpy(id, u->v.id, sizeof(id));
		r = open_all(u, key, &pool, detail);
		if (r)
			goto out;
	}
	stop_at(u, 1);
	count = store_merge(u->all, u->old, u->v.count, pe, n);
	size = count < 0 ? 0 : store_size(u->all, (uint32_t)count);
	r = STORE_UPD_LIMIT;
	if (!size)
		goto out;
	r = STORE_UPD_MEM;
	out = malloc(size);
	if (!out)
		goto out;
	r = STORE_UPD_LIMIT;
	if (store_build(id, u->all, (uint32_t)count, key, out, size) < 0)
		goto out;
	r = -2;
	if (!(u->flags & STORE_UPDATE_NO_TMPFILE))
		r = write_tmp(u, out, size, buf ? &st : NULL, 1);
	if (r == -2)
		r = write_tmp(u, out, size, buf ? &st : NULL, 0);
	if (r)
		goto out;
	r = STORE_UPD_RENAME;
	if (renameat(u->at, u->tmp, u->at, u->name) < 0)
		goto out;
	u->named = 0;
	stop_at(u, 4);
	/* The rename itself lasts only once the directory is on disk. */
	r = !(u->flags & STORE_UPDATE_DIR_LATER) && fsync(u->lock) < 0 ? STORE_UPD_SYNC
								       : STORE_UPD_OK;
out:
	err = errno;
	if (u->named)
		unlinkat(u->at, u->tmp, 0);
	sodium_free(pool); /* wipes the old values */
	free(out);
	free(buf);
	errno = err;
	return r;
}

int store_update(int dirfd, const char *name, const uint8_t *key, const struct store_plain *pe,
		 uint32_t n, unsigned int flags, unsigned int wait_ms, int *detail)
{
	size_t nl = strlen(name);
	struct upd *u;
	int r, err, unused;

	if (!detail)
		detail = &unused;
	*detail = 0;
	if (!nl || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return STORE_UPD_DIR;
	}
	if (nl + sizeof(TMP_SUFFIX) > NAME_MAX + 1) {
		errno = ENAMETOOLONG;
		return STORE_UPD_DIR;
	}
	u = malloc(sizeof(*u));
	if (!u)
		return STORE_UPD_MEM;
	u->name = name;
	u->named = 0;
	u->flags = flags;
	memcpy(u->tmp, name, nl);
	memcpy(u->tmp + nl, TMP_SUFFIX, sizeof(TMP_SUFFIX));
	/*
	 * An open file description of our own for the flock: one shared with
	 * the caller's fd (a forked child's, another thread's) would not
	 * exclude. Every other call takes dirfd itself, so that a seccomp
	 * filter can pin their directory argument to its number.
	 */
	u->at = dirfd;
	u->lock = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (u->lock < 0) {
		r = STORE_UPD_DIR;
	} else {
		r = lock_dir(u->lock, wait_ms);
		if (!r)
			r = update_locked(u, key, pe, n, detail);
	}
	err = errno;
	if (u->lock >= 0)
		close(u->lock); /* releases the lock */
	free(u);
	errno = err;
	return r;
}
