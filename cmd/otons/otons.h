/* SPDX-License-Identifier: ISC */
#ifndef OTONS_H
#define OTONS_H

#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

struct otons_opts {
	int unshare_flags;    /* CLONE_NEW* to create */
	const char *hostname; /* for a new uts namespace */
	uid_t uid;            /* ids inside the sandbox */
	gid_t gid;
	int have_uid, have_gid;
	const char *as; /* --as USER[:GROUP], needed when run by root */
	int die_with_parent;
	int mount_proc;
	char **argv; /* the next program */
};

/* opts.c: the option loop; exits 0 (--help) or 100 */
void xotons_parse(struct otons_opts *o, int argc, char **argv);

/* parse.c: namespace names. Pure */
int otons_ns_flag(const char *name); /* CLONE_NEW* for a namespace name, 0 if unknown */
/* The names of the CLONE_NEW* in flags, space-separated, into buf; the length, 0 if too long. */
size_t otons_ns_names(int flags, char *buf, size_t size);

/* ns.c: each dies 111 on failure */
void xotons_enter_userns(const struct otons_opts *o);
void xotons_unshare_rest(const struct otons_opts *o);
void xotons_caps_ambient(void);

/* The terminal the sandbox shares with the operator, as it was at start. */
struct otons_tty {
	int fd;		     /* -1: no terminal, nothing to restore */
	int opened;	     /* fd is /dev/tty, opened by us (else 0, 1 or 2) */
	pid_t pgrp;	     /* its foreground process group; -1: not our controlling terminal */
	struct termios attr; /* its modes */
};

/* tty.c */
void otons_tty_save(struct otons_tty *t);
void otons_tty_forget(struct otons_tty *t); /* in the children: close what save opened */
void otons_tty_restore(const struct otons_tty *t);

/* supervise.c: returns only in the program's process; the others exit */
void xotons_run(const struct otons_opts *o);

#endif
