/* SPDX-License-Identifier: ISC */
#ifndef OTOSECRET_H
#define OTOSECRET_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

/* ---- store.c: the sealed store format (see the comment at its top) ---- */
#define STORE_MAGIC	  "OTOSECRT"
#define STORE_VERSION	  1
#define STORE_ID_BYTES	  16
#define STORE_HDR_BYTES	  32 /* magic 8, version 1, reserved 3, id 16, count 4 */
#define STORE_ENTRY_FIXED 29 /* name length 1, value length 4, nonce 24 */
#define STORE_NONCE_BYTES 24
#define STORE_TAG_BYTES	  16
#define STORE_KEY_BYTES	  32
#define STORE_MAX_ENTRIES 256
#define STORE_MAX_NAME	  64
#define STORE_MAX_VALUE	  65536
#define STORE_MAX_SIZE	  (1024 * 1024)
#define STORE_AD_MAX	  (STORE_HDR_BYTES + 4 + 1 + STORE_MAX_NAME)

enum store_err {
	STORE_OK = 0,
	STORE_ETOOBIG,	 /* larger than STORE_MAX_SIZE */
	STORE_ESHORT,	 /* ends inside the header or an entry */
	STORE_EMAGIC,	 /* not a store */
	STORE_EVERSION,	 /* a version this program does not read */
	STORE_ERESERVED, /* reserved header bytes not zero */
	STORE_ECOUNT,	 /* more entries than STORE_MAX_ENTRIES */
	STORE_ENAME,	 /* a name of bad length or characters */
	STORE_EVALUE,	 /* a value longer than STORE_MAX_VALUE */
	STORE_EDUP,	 /* a name twice */
	STORE_ETRAILING, /* bytes after the last entry */
	STORE_EVERIFY,	 /* an entry fails authentication: wrong key or tampered */
};

struct store_entry {
	const char *name; /* not NUL-terminated: name_len bytes */
	size_t name_len;
	const uint8_t *nonce;
	const uint8_t *ct; /* value_len + STORE_TAG_BYTES */
	size_t value_len;
};

struct store_view {
	const uint8_t *hdr; /* the STORE_HDR_BYTES bound into every entry */
	const uint8_t *id;
	uint32_t count;
	struct store_entry e[STORE_MAX_ENTRIES];
};

/* A value to seal, with its name (a C string). */
struct plain_entry {
	const char *name;
	const uint8_t *value;
	size_t value_len;
};

const char *store_strerror(int err);
int store_name_ok(const char *name, size_t len); /* [A-Za-z_][A-Za-z0-9_]*, 1..64. Pure. */
int store_parse(const uint8_t *buf, size_t len, struct store_view *v); /* enum store_err. Pure. */
int store_find(const struct store_view *v, const char *name);	       /* index or -1. Pure. */
size_t store_ad(const struct store_view *v, uint32_t i, uint8_t ad[STORE_AD_MAX]);
/* Authenticate entry i without decrypting it: STORE_OK or STORE_EVERIFY. */
int store_verify(const struct store_view *v, uint32_t i, const uint8_t *key);
/* Decrypt entry i into out (value_len bytes): STORE_OK or STORE_EVERIFY. */
int store_open(const struct store_view *v, uint32_t i, const uint8_t *key, uint8_t *out);
/* The size of a store holding these entries, or 0 past a limit. Pure. */
size_t store_size(const struct plain_entry *pe, uint32_t n);
/* Seal n entries under key into out (store_size bytes), with fresh nonces. */
int store_build(const uint8_t id[STORE_ID_BYTES], const struct plain_entry *pe, uint32_t n,
		const uint8_t *key, uint8_t *out, size_t outsz);

/* ---- key.c: the key's text form "oto-key-1:BASE64URL\n" ---- */
#define KEY_PREFIX   "oto-key-1:"
#define KEY_TEXT_MAX 128
int key_encode(const uint8_t key[STORE_KEY_BYTES], char *out, size_t outsz); /* length or -1 */
int key_decode(const char *text, size_t len, uint8_t key[STORE_KEY_BYTES]);  /* 0 or -1. Pure. */

/* ---- input.c: seal's stdin lines ---- */
enum input_kind { INPUT_SKIP, INPUT_LITERAL, INPUT_BASE64, INPUT_PROMPT, INPUT_BAD };
/*
 * Classify one line (no newline): NAME=VALUE, NAME:base64=DATA, NAME (the
 * value is the next line), or empty/#comment. name_len and the value's
 * start and length are set. Pure.
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
enum mode { MODE_CHAIN, MODE_KEYGEN, MODE_SEAL, MODE_LIST };
struct otosecret_opts {
	enum mode mode;
	int store_fd, key_fd;		   /* -1 when unset */
	const char *store_path, *key_path; /* NULL when unset */
	const char *out;		   /* keygen --out */
	struct use uses[STORE_MAX_ENTRIES];
	size_t nuses;
	char **argv; /* the next program */
};
/* The option loop; exits 0 (--help) or 100. */
void xotosecret_parse(struct otosecret_opts *o, int argc, char **argv);

/* ---- parse.c: the option values. Pure ---- */
/* Parse "NAME[:HOW]" into u: 0, or -1 with a reason. */
int use_parse(char *spec, struct use *u, const char **why);
int secret_fd_parse(const char *s); /* an fd number, 0 to 65535, or -1 */

/* ---- io.c ---- */
int io_write_all(int fd, const void *buf, size_t len);
/* Read a key (fd or path), refuse group/other access, decode into locked memory; dies on failure.
 */
uint8_t *xkey_load(int fd, const char *path);
/* Read the store (fd or path) into a malloc'd buffer; dies on failure. */
uint8_t *xstore_load(int fd, const char *path, size_t *len, int missing_ok, int owner_only);

/* ---- modes.c: each dies 101 or 111 on failure ---- */
void xotosecret_keygen(const struct otosecret_opts *o);
void xotosecret_seal(const struct otosecret_opts *o);
void xotosecret_list(const struct otosecret_opts *o);

/* ---- inject.c ---- */
/* Verify every entry, decrypt the used ones; dies (101) before anything is injected. */
uint8_t **xinject_decrypt(const struct store_view *v, struct otosecret_opts *o,
			  const uint8_t *key);
/* Create files and fds, build the new environment; all or nothing, or die. */
void xinject_place(const struct store_view *v, const struct otosecret_opts *o, uint8_t **plain);
/* Exec with the new environment; on failure the locked block is freed (wiped) first. */
noreturn void xinject_exec(char **argv, uint8_t **plain, size_t nuses);

#endif
