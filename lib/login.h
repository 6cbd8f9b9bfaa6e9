/* SPDX-License-Identifier: ISC */
/*
 * login: a CLI's OAuth login file (Claude Code's, codex's, gemini-cli's)
 * with phantoms in place of its secrets, as pure code, one function to a
 * file:
 *
 *   - phantom_shape: the phantom of one secret, of its shape: as long as
 *     the value; a JWT keeps its header and claims (the CLIs read them:
 *     plan, account, expiry), only its signature is new; an opaque token
 *     keeps its recognisable prefix ("sk-ant-ort01-") and its punctuation,
 *     its letters and digits become random ones of the same set;
 *   - login_profile_parse: a profile, the configuration that says which
 *     fields of a login file are secrets, where the file lives, which
 *     hosts the access token is for and where it is refreshed: one line a
 *     fact, so a fourth CLI is a few lines, not code
 *     (login_profile_text: the three built in);
 *   - login_phantom: a login file's bytes and a profile: the phantom file
 *     (each secret's span replaced, every other byte kept) and the list of
 *     the fields taken;
 *   - login_expiry: when the access token expires, as the profile says to
 *     read it.
 *
 * A store entry holds a login file whole, as the CLI wrote it.
 */
#ifndef LOGIN_H
#define LOGIN_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* ---- phantom_shape.c, phantom_shape_of.c ---- */

/* Fills buf with n random bytes (libsodium's randombytes_buf in the tools). */
typedef void (*phantom_rand_fn)(uint8_t *buf, size_t n, void *arg);

enum phantom_kind { PHANTOM_OPAQUE, PHANTOM_JWT };
enum phantom_err {
	PHANTOM_OK = 0,
	PHANTOM_ESHORT, /* fewer than PHANTOM_MIN_RANDOM characters to replace */
	PHANTOM_ESAME,	/* the random bytes made the value itself */
	PHANTOM_NUM_ERR,
};
#define PHANTOM_MIN_RANDOM 16

/*
 * The shape of a value: PHANTOM_JWT when it is three non-empty base64url
 * parts joined by '.', the first decoding to a JSON object; else
 * PHANTOM_OPAQUE. Pure.
 */
int phantom_shape_of(const char *v, size_t len);
/*
 * Writes the phantom of v (len bytes) to out (len bytes, not terminated).
 * A JWT: its header and claims, and len - (the last '.' + 1) random
 * base64url characters (the last one canonical). An opaque value: its
 * prefix up to and including the last '-' or '_' among its first 16 bytes,
 * then each letter or digit replaced by a random one, of [0-9] when all of
 * them are digits, [0-9a-f] (or [0-9A-F]) when hex, [A-Za-z0-9] else; other bytes
 * kept. Returns an enum phantom_err: out is the phantom only when
 * PHANTOM_OK. Pure but for rnd.
 */
int phantom_shape(const char *v, size_t len, char *out, phantom_rand_fn rnd, void *arg);

/* ---- login_profile_parse.c, login_profile_text.c, login_role_name.c ---- */

#define LOGIN_MAX_SECRETS 4
#define LOGIN_MAX_HOSTS	  4
#define LOGIN_MAX_FILE	  255
#define LOGIN_MAX_URL	  511
#define LOGIN_MAX_FIELD	  63
#define LOGIN_MAX_LINE	  1024

/* What a secret is to the CLI: the Bearer token, the refresh token, an OpenID id_token. */
enum login_role { LOGIN_ACCESS, LOGIN_REFRESH, LOGIN_ID, LOGIN_NUM_ROLES };
/* How the expiry field reads: milliseconds or seconds since the epoch, RFC 3339, a JWT's exp. */
enum login_expiry { LOGIN_EXP_NONE, LOGIN_EXP_MS, LOGIN_EXP_S, LOGIN_EXP_RFC3339, LOGIN_EXP_JWT };
/* The token endpoint's request body. */
enum login_body { LOGIN_BODY_NONE, LOGIN_BODY_JSON, LOGIN_BODY_FORM };

struct login_secret {
	char path[JSON_MAX_PATH + 1]; /* the JSON key path, as json_scan writes it */
	enum login_role role;
	int optional; /* a file without it is taken all the same */
};

struct login_profile {
	char file[LOGIN_MAX_FILE + 1]; /* the login file, relative to the home */
	struct login_secret secret[LOGIN_MAX_SECRETS];
	size_t nsecrets;
	char expiry[JSON_MAX_PATH + 1];
	enum login_expiry expiry_as;
	char host[LOGIN_MAX_HOSTS][254]; /* where the access token goes, as a Bearer */
	size_t nhosts;
	char token_url[LOGIN_MAX_URL + 1]; /* https://HOST[:PORT]/PATH */
	enum login_body token_body;
	char token_field[LOGIN_MAX_FIELD + 1]; /* the refresh token's field in that body */
};

/*
 * Parses a profile's text (len bytes), one fact a line, '#' to the end of
 * a line a comment:
 *   file PATH                    the login file under the home (required)
 *   secret KEYPATH ROLE [optional]  ROLE access (one, required), refresh, id
 *   expiry KEYPATH ms|s|rfc3339|jwt
 *   host NAME                    repeatable, at least one
 *   token URL json|form FIELD    where the refresh token is sent, in FIELD
 *                                (required with a refresh secret, only then)
 * Returns 0, or -1 with *line (1-based; 0: the profile as a whole) and
 * *why set. Pure.
 */
int login_profile_parse(const char *text, size_t len, struct login_profile *p, size_t *line,
			const char **why);
/* The built-in profile named name (claude, codex, gemini): its text, or NULL. Pure. */
const char *login_profile_text(const char *name);
/* "access", "refresh", "id". Pure. */
const char *login_role_name(enum login_role role);

/* ---- login_phantom.c, login_expiry.c ---- */

/* A secret field of a login file, found and replaced. */
struct login_field {
	const struct login_secret *secret; /* in the profile */
	size_t start, end;		   /* the value's span in the file */
	int present;			   /* 0: an optional secret the file lacks */
	enum phantom_kind shape;
};

enum login_err {
	LOGIN_OK = 0,
	LOGIN_EJSON,	/* the file is not strict JSON: *json_err says why */
	LOGIN_EMISSING, /* a secret field is not in the file */
	LOGIN_ETWICE,	/* a secret field's path is there twice */
	LOGIN_ENOTSTR,	/* a secret field is not a string */
	LOGIN_EESCAPE,	/* a secret field holds an escape */
	LOGIN_ESHORT,	/* a secret is too short for a phantom */
	LOGIN_ESAME,	/* the phantom came out as the value */
	LOGIN_NUM_ERR,
};

/*
 * Reads in's len bytes (a login file) with p: writes the phantom file to
 * out (len bytes too: a phantom is as long as its value), and the fields
 * to f (p->nsecrets of them, in the profile's order). Refuses a file that
 * is not strict JSON, where a secret is missing (and not optional), there twice, not a
 * string, or holds an escape. Returns an enum login_err; *bad (when not
 * NULL) is the offending secret, *json_err and *at the reader's error and
 * where. Pure but for rnd.
 */
int login_phantom(const struct login_profile *p, const char *in, size_t len, char *out,
		  struct login_field *f, phantom_rand_fn rnd, void *arg,
		  const struct login_secret **bad, int *json_err, size_t *at);
/*
 * Whether in (len bytes, strict JSON) holds any of p's secret paths: how
 * "auto" recognises a profile. Pure.
 */
int login_profile_fits(const struct login_profile *p, const char *in, size_t len);
/*
 * When the access token expires, in seconds since the epoch, read from
 * in (a login file, len bytes) as p->expiry_as says. Returns 0, or -1:
 * no expiry in the profile, no such field, or one that does not read as a
 * time from 1970 to 9999. Pure.
 */
int login_expiry(const struct login_profile *p, const char *in, size_t len, int64_t *when);
/* The message of an enum login_err. Pure. */
const char *login_strerror(int err);

#endif
