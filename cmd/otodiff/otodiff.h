/* SPDX-License-Identifier: ISC */
/*
 * otodiff's files, each section below one of them. main.c: the steps;
 * opts.c: the command line; scan.c: a session's upper layers against the
 * host's trees, into a list of changes; show.c: the list and the diffs;
 * textdiff.c: a unified diff of two texts (pure); named.c: which changes
 * the host runs later; commit.c: the changes
 * applied; rm.c: a tree removed without following a symlink.
 */
#ifndef OTODIFF_H
#define OTODIFF_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "oto.h"

enum otodiff_mode { MODE_LIST, MODE_COMMIT, MODE_DISCARD };

struct otodiff_opts {
	enum otodiff_mode mode;
	int summary;		     /* --summary: the list alone, no diffs */
	int allow_protected;	     /* --allow-protected */
	unsigned long long max_size; /* --max-size: a file past it is not committed */
	const char *dir;	     /* the session directory */
};

/* ---- opts.c: the option loop. Exits 0 (--help, --version). Dies on bad usage: 100 ---- */
void xotodiff_parse(struct otodiff_opts *o, int argc, char **argv);

/* ---- parse.c. Pure. ---- */
/*
 * Returns what an upper layer's entry is, from its lstat mode, rdev and the
 * value of its user.overlay.opaque xattr (NULL: none).
 */
enum upper_kind { U_FILE, U_DIR, U_OPAQUE_DIR, U_LINK, U_WHITEOUT, U_SETID, U_DEVICE, U_OTHER };
enum upper_kind upper_kind(mode_t mode, dev_t rdev, const char *opaque, size_t opaque_len);
/*
 * Writes bytes for a person's eyes, on a terminal: printable ASCII as it is,
 * '\' doubled, every other byte escaped (\n, \t, \ooo), TAB left as it is
 * where tab is set (a diff's lines: Makefiles need it).
 */
void bytes_show(FILE *f, const char *p, size_t n, int tab);
/* Returns whether n bytes at p are printable ASCII (TAB too where tab is set): shown as is. */
int text_plain(const char *p, size_t n, int tab);
/* Writes a path shown (TAB escaped too). Returns 1 when a byte of it was not printable ASCII. */
int path_show(FILE *f, const char *path);
/* Returns the same, in a static buffer (cut at 4 * PATH_MAX bytes), for a message. */
const char *path_shown(const char *path);
/* Returns whether len bytes hold a NUL (not text, for the diff). */
int is_binary(const char *buf, size_t len);

/* ---- textdiff.c: writes a unified diff (3 lines of context) of a and b to f ---- */
/* Returns 0, or -1 when the texts are past the bound (lines, or the LCS table's cells). Pure. */
#define TEXTDIFF_MAX_LINES 100000
#define TEXTDIFF_MAX_CELLS (4UL << 20) /* 16 MiB of lengths */
int textdiff(FILE *f, const char *a, size_t alen, const char *b, size_t blen);

/* ---- scan.c: the changes of a session ---- */
enum change_kind { C_ADD, C_MOD, C_DEL, C_MODE, C_SKIP, C_RENAME, C_NUM_KINDS };
enum node { N_NONE, N_FILE, N_DIR, N_LINK, N_OTHER };

struct change {
	enum change_kind kind;
	size_t tree;	/* the session's tree (index in its record) */
	char *rel;	/* relative to the tree's top, "" the top itself */
	char *from;	/* C_RENAME: the path deleted */
	enum node up;	/* what the upper layer has (C_DEL: N_NONE) */
	enum node host; /* what the host has at the start of the commit */
	mode_t up_mode; /* permission bits, upper */
	mode_t host_mode;
	off_t up_size, up_alloc; /* a file's: apparent size, bytes allocated (st_blocks) */
	off_t host_size;
	int origin;	/* the upper file was copied up (user.overlay.origin) */
	int hidden;	/* a C_DEL shown (and applied) as a C_RENAME's from */
	int runs_later; /* named.c: the host runs it later (its path, or its from's) */
	size_t from_tree;
	const char *why; /* C_SKIP */
};

struct cowdir {
	struct cow_session rec;
	int dir;		  /* the session directory (O_PATH) */
	int upper[COW_TREES_MAX]; /* DIR/upper/NAME */
	int host[COW_TREES_MAX];  /* each tree's top on the host, checked against the record */
	struct change *c;
	size_t n, cap;
	unsigned long entries;	     /* bound: SCAN_MAX_ENTRIES */
	int stale;		     /* an overlay was last mounted under another boot */
	unsigned long long max_size; /* --max-size, for the list's mark */
};
#define SCAN_MAX_ENTRIES 1000000UL
#define MAX_SIZE_DEFAULT (64ULL << 20)
#define SCAN_MAX_DEPTH	 512

/*
 * Opens the session in dir: its record read and checked, the trees opened.
 * Dies on failure: 101 on a record that is not a session's or a host tree
 * that is not the one the session started on, 111 on a system call.
 */
void xsession_open(struct cowdir *s, const char *dir);
/*
 * Finds every change of every tree, in s->c (pre-order: a directory before
 * what is in it). Dies on failure: 101 on a tree too deep, a path too long,
 * too many entries; 111 on a system call.
 */
void xscan(struct cowdir *s);
/*
 * Finds deleted files whose content an added one has: one C_RENAME each (for
 * the list). Never exits.
 */
void xscan_renames(struct cowdir *s);
/*
 * Opens path beneath dirfd, no symlink followed, never above it ("" dirfd
 * itself). Returns the fd, or -1 with errno.
 */
int open_beneath(int dirfd, const char *path, int flags);
/* Opens an absolute path, no symlink followed anywhere in it: the fd, or -1 with errno. */
int open_nofollow(const char *path, int flags);
/* Returns whether two regular files hold the same bytes: 1, 0, or -1 with errno. */
int same_content(int a, int b);
/* Returns the path in the view of a change's rel (/work/a/b), in a static buffer. */
const char *view_path(const struct cowdir *s, size_t tree, const char *rel);

/* ---- named.c: each change's runs_later set (protect_runs_later, and repositories' configs) ----
 */
void scan_runs_later(struct cowdir *s);

/* ---- show.c: the list (and the diffs) on stdout ---- */
/* Writes the list, and the diffs. Dies on failure: 111. */
void xshow(const struct cowdir *s, const struct otodiff_opts *o);
/* Returns whether a change brings a file's bytes past --max-size to the host. */
int over_max(const struct cowdir *s, const struct change *c);
/* Writes one change's line: "added /work/x", as the list and the commit say it. */
void show_line(FILE *f, const struct cowdir *s, const struct change *c);

/* ---- commit.c: the changes applied to the host, refused whole on a conflict ---- */
/* Returns 0. Dies on failure: 101 on a conflict (nothing committed), 111 on a system call. */
int xcommit(struct cowdir *s, const struct otodiff_opts *o);

/* ---- rm.c: a tree removed, never following a symlink ---- */
/* Removes name under dirfd. Returns 0, or -1 with errno. */
int rm_tree(int dirfd, const char *name);
/* Opens a directory to read, its mode opened up. Returns the fd, or -1 with errno. */
int rm_open_at(int dirfd, const char *name);

#endif
