/* SPDX-License-Identifier: ISC */
/*
 * otosecret's files, each section below one of them. main.c: the steps;
 * opts.c: the command line (dies 100); parse.c: the option values, input.c:
 * seal's stdin lines (pure, both); modes.c: keygen, seal and list, the modes
 * outside a chain (die 101 or 111); import.c: a CLI's login file sealed by
 * seal (dies 101 or 111); inject.c: the chain's mode, all or
 * nothing (dies 101 or 111). The store format and the key are in lib/.
 */
#ifndef OTOSECRET_H
#define OTOSECRET_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

/* The store format and the key (store_*.c, key_*.c, xkey_load, xstore_load) are in lib/. */

/* ---- input.c: seal's stdin lines ---- */
enum input_kind { INPUT_SKIP, INPUT_LITERAL, INPUT_BASE64, INPUT_PROMPT, INPUT_BAD };
/*
 * Classifies one line (no newline): NAME=VALUE, NAME:base64=DATA, NAME (the
 * value is the next line), or empty/#comment. name_len and the value's
 * start and length are set. Returns its enum input_kind. Pure.
 */
int input_line(const char *line, size_t len, size_t *name_len, const char **val, size_t *val_len);

/* ---- opts.c ---- */
enum how { HOW_ENV, HOW_FILE, HOW_FD };
struct use {
	const char *name; /* the entry's name in the store */
	enum how how;
	const char *target; /* env: the variable; file: the path */
	int fd;		    /* fd: the number */
	int index;	    /* the entry, once the store is parsed */
};
enum mode { MODE_CHAIN, MODE_KEYGEN, MODE_SEAL, MODE_LIST, MODE_PHANTOM, MODE_IMPORT, MODE_NUM };
struct otosecret_opts {
	enum mode mode;
	int store_fd, key_fd;		   /* -1 when unset */
	const char *store_path, *key_path; /* NULL when unset */
	const char *out;		   /* keygen --out */
	const char *name;		   /* phantom's NAME, import's --name */
	const char *profile;		   /* import: claude, codex, gemini, auto */
	const char *profile_file;	   /* import: a profile's file */
	const char *login;		   /* import: the login file */
	struct use uses[STORE_MAX_ENTRIES];
	size_t nuses;
	char **argv; /* the next program */
};
/* The option loop. Exits 0 (--help, --version). Dies on bad usage: 100. */
void xotosecret_parse(struct otosecret_opts *o, int argc, char **argv);

/* ---- parse.c: the option values. Pure. ---- */
/* Parses "NAME[:HOW]" into u. Returns 0, or -1 with a reason. */
int use_parse(char *spec, struct use *u, const char **why);
int secret_fd_parse(const char *s); /* returns an fd number, 0 to 65535, or -1 */

/* ---- modes.c: each dies on failure: 101 or 111 ---- */
void xotosecret_keygen(const struct otosecret_opts *o);
void xotosecret_seal(const struct otosecret_opts *o);
void xotosecret_list(const struct otosecret_opts *o);
void xotosecret_phantom(const struct otosecret_opts *o);

/* ---- import.c: dies on failure: 101 or 111 ---- */
void xotosecret_import(const struct otosecret_opts *o);

/* ---- inject.c ---- */
/*
 * Verifies every entry, decrypts the used ones. Returns the plaintexts.
 * Dies on failure, before anything is injected: 101, or 111 (no memory).
 */
uint8_t **xinject_decrypt(const struct store_view *v, struct otosecret_opts *o, const uint8_t *key);
/*
 * Creates files and fds, all or nothing. Returns the new environment. Dies
 * on failure: 101 (a file that is refused or already there) or 111.
 */
char **xinject_place(const struct store_view *v, const struct otosecret_opts *o, uint8_t **plain);
/*
 * Execs with env, the new environment. Dies on failure (127 or 126), the
 * locked block freed (wiped) first.
 */
noreturn void xinject_exec(char **argv, char **env, uint8_t **plain, size_t nuses);

#endif
