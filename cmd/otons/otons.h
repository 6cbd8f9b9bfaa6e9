/* SPDX-License-Identifier: ISC */
#ifndef OTONS_H
#define OTONS_H

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

/* opts.c */
void otons_parse(struct otons_opts *o, int argc, char **argv);
int otons_ns_flag(const char *name); /* CLONE_NEW* for a namespace name, 0 if unknown. Pure. */

/* ns.c */
void otons_enter_userns(const struct otons_opts *o);
void otons_unshare_rest(const struct otons_opts *o);
void otons_caps_ambient(void);

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

/* supervise.c */
void otons_run(const struct otons_opts *o);

#endif
