/* SPDX-License-Identifier: ISC */
/*
 * otoconnect's files, each section below one of them. main.c picks the side:
 * client.c (the agent's: stdio to a Unix socket) or serve.c (the tool's: a
 * Unix socket to a program's stdio, one process per connection, relay.c
 * between them).
 */
#ifndef OTOCONNECT_H
#define OTOCONNECT_H

#include <stdnoreturn.h>
#include <sys/types.h>

#define CONNECT_MAX_DEFAULT  1 /* --max: one connection at a time */
#define CONNECT_MAX_LIMIT    1024
#define CONNECT_MODE_DEFAULT 0600

struct otoconnect_opts {
	const char *path;  /* the socket */
	int serve;	   /* --serve: listen on path, run argv per connection */
	unsigned long max; /* --max: tool processes at once */
	mode_t mode;	   /* --mode: the socket's permissions */
	int mode_set;
	char **argv; /* --serve: the tool */
};

/* ---- opts.c: the option loop; exits 0 (--help) or 100 ---- */
void xotoconnect_parse(struct otoconnect_opts *o, int argc, char **argv);

/* ---- parse.c: the option values. Each returns 0, or -1 with errno. Pure. ---- */
/* A socket path: not empty, fits sun_path with its NUL (ENAMETOOLONG), no newline. */
int connect_path_ok(const char *p);
/* --mode: octal, 0 to 0777, e.g. 600 or 0660 (EINVAL). */
int connect_parse_mode(const char *s, mode_t *out);

/* ---- client.c: stdin to the socket, the socket to stdout ---- */
noreturn void xclient_run(const struct otoconnect_opts *o);

/* ---- serve.c: the socket's connections, each to a new process of argv ---- */
noreturn void xserve_run(const struct otoconnect_opts *o);

/*
 * ---- relay.c: one connection, in its own process: argv run on two pipes,
 * and bytes alone copied between them and the connection sock (no
 * descriptor crosses); listener closed. Exits with the tool's code. ----
 */
noreturn void xrelay_run(const struct otoconnect_opts *o, int listener, int sock);

#endif
