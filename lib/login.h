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
/* phantom_rand.c: the tools' phantom_rand_fn, libsodium's randombytes_buf (arg unused). */
void phantom_rand(uint8_t *buf, size_t n, void *arg);

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
/*
 * login_file_ok.c: whether s is a login file's path under the home: [A-Za-z0-9._-]
 * components joined by '/', none "." or "..", none empty, at most
 * LOGIN_MAX_FILE bytes. Pure.
 */
int login_file_ok(const char *s);
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

/* ---- login_refresh_*.c: the token endpoint's request and response ---- */

/*
 * A refresh goes through the gateway: the CLI posts its phantom refresh
 * token to the profile's token endpoint, the gateway swaps the real one in
 * (login_refresh_request), and turns the answer's new tokens into fresh
 * phantoms (login_refresh_response) before the CLI sees it. The store then
 * gets the login file the CLI would have written, with the new reals
 * (login_refresh_file).
 *
 * Each function takes a body whole, at most JSON_MAX_INPUT bytes: the
 * caller buffers a body until it ends (Content-Length, or the last chunk)
 * and refuses a longer one. A token split across reads is then no case of
 * its own; a part of a body is never passed, as it could read as a whole
 * one (a form cut after the field). They allocate nothing and make no
 * system call: what they need beyond their buffers is in a struct
 * login_refresh_work the caller keeps (about 300 KiB: one is enough for a
 * gateway, used by one call at a time).
 */

#include "http.h" /* struct http_repl: login_refresh_holds looks with the scrubber */

/* A token of the session: its real value, its phantom (as long), its role. */
struct login_pair {
	enum login_role role;
	const char *real, *phantom;
	size_t len;
};
/* Which of a pair's values login_refresh_holds looks for. */
enum login_side { LOGIN_SIDE_REAL, LOGIN_SIDE_PHANTOM };

#define LOGIN_REFRESH_MAX_PARAMS 64 /* a form's parameters; a refresh sends 3 to 5 */

struct login_refresh_work {
	struct http_repl repl;
	char out[JSON_MAX_INPUT + HTTP_REPL_HOLD];
	char mark[HTTP_MAX_SECRET];
};

enum login_refresh_err {
	LOGIN_REFRESH_OK = 0,
	LOGIN_REFRESH_ETOOBIG,	   /* a body longer than JSON_MAX_INPUT */
	LOGIN_REFRESH_ENOTOKEN,	   /* the profile has no token endpoint */
	LOGIN_REFRESH_ECTYPE,	   /* a Content-Type not the profile's body */
	LOGIN_REFRESH_EJSON,	   /* not strict JSON: *json_err says why */
	LOGIN_REFRESH_EFORM,	   /* not a clean form */
	LOGIN_REFRESH_EDUP,	   /* a key or a parameter twice */
	LOGIN_REFRESH_EKEY,	   /* the field's name escaped, encoded or nested */
	LOGIN_REFRESH_EMISSING,	   /* no refresh token field */
	LOGIN_REFRESH_ENOTSTR,	   /* the field is not a string */
	LOGIN_REFRESH_EESCAPE,	   /* a token holds an escape */
	LOGIN_REFRESH_ENOTPHANTOM, /* the field is not a refresh token's phantom */
	LOGIN_REFRESH_ESTRAY,	   /* a phantom elsewhere in the request */
	LOGIN_REFRESH_EENCODE,	   /* the real cannot be written as the phantom was */
	LOGIN_REFRESH_EECHO,	   /* a real token elsewhere in the response */
	LOGIN_REFRESH_ESWAP,	   /* a token field: another role's real, another field's value */
	LOGIN_REFRESH_ELEN,	   /* a token outside [HTTP_MIN_SECRET, HTTP_MAX_SECRET] */
	LOGIN_REFRESH_ESHORT,	   /* too short for a phantom */
	LOGIN_REFRESH_ESAME,	   /* the phantom came out as the value */
	LOGIN_REFRESH_EFILE,	   /* the login file: not JSON, a field twice, not a string */
	LOGIN_REFRESH_ENOSPC,	   /* the login file's output too small */
	LOGIN_REFRESH_NUM_ERR,
};

/*
 * The refresh request: ctype (ctype_len bytes, the one Content-Type
 * header's value; the caller refuses a request with two) and the body in
 * (len bytes) as the agent sent it to p's token endpoint; known, the
 * session's pairs (nknown, any role). Writes to out (len bytes: the
 * Content-Length stays) the body with the phantom in p->token_field
 * replaced by its real value, written as the client wrote the phantom
 * (JSON: a string without escape; a form: each byte literal or %HH as the
 * phantom's was). *used is the pair. Refused: ctype not p->token_body's
 * (application/json or application/x-www-form-urlencoded, each with an
 * optional charset=utf-8); not strict JSON (the field at the top, its key
 * unescaped) or not a clean form ('&' between name=value parameters,
 * unreserved bytes, '+' and %HH only; at most LOGIN_REFRESH_MAX_PARAMS);
 * a name twice (a form's compared decoded); the field missing, or not a
 * refresh pair's phantom; any known phantom left anywhere in out, in any
 * form login_refresh_holds sees. Returns an enum login_refresh_err; out
 * is the body to send only when LOGIN_REFRESH_OK. Pure.
 */
int login_refresh_request(const struct login_profile *p, const char *ctype, size_t ctype_len,
			  const char *in, size_t len, const struct login_pair *known, size_t nknown,
			  char *out, size_t *used, struct login_refresh_work *w, int *json_err);
/*
 * The token endpoint's 2xx answer, in (len bytes, strict JSON); known, the
 * session's pairs. Each top-level access_token, refresh_token, id_token
 * that is a string gets a fresh phantom of its shape (phantom_shape, rnd):
 * out (len bytes) is the body with each replaced, fresh[0, *nfresh) the
 * new pairs (real in in, phantom in out). *expires_in: the answer's
 * expires_in, whole seconds up to ten years, or -1. Refused (the agent
 * gets a 502, never this body): not JSON, a token with an escape or of a
 * length outside the scrubber's, a token field holding a known real of
 * another role (a known refresh token in refresh_token is a provider that
 * does not rotate, and is taken) or another field's value, and any known
 * or new real left anywhere in out (login_refresh_holds). Returns an enum
 * login_refresh_err. Pure but for rnd.
 */
int login_refresh_response(const char *in, size_t len, const struct login_pair *known,
			   size_t nknown, char *out, struct login_pair *fresh, size_t *nfresh,
			   int64_t *expires_in, phantom_rand_fn rnd, void *arg,
			   struct login_refresh_work *w, int *json_err);
/*
 * Whether body (len bytes, any bytes: a 4xx answer, any content type)
 * holds the real value (or the phantom, as side says) of one of the n
 * pairs, in any form the response scrubber knows (http.h): as it is in
 * either case, percent-encoded, JSON-escaped (\/ or \u00HH) freely mixed,
 * base64 or base64url at each alignment, hexadecimal. Returns the first
 * such pair's index, -1 for none, or -2 for a value whose length the
 * scrubber does not take (refuse the body). Pure.
 */
int login_refresh_holds(const char *body, size_t len, const struct login_pair *pairs, size_t n,
			enum login_side side, struct login_refresh_work *w);
/*
 * The new real login file: in (len bytes), the store's file for p, with
 * the secret fields of the roles in fresh (nfresh pairs, their reals)
 * replaced and the others kept, and p's expiry (ms or s) set to now +
 * expires_in seconds when expires_in >= 0. A field the file lacks is
 * added at the top when its path is a top-level key (gemini's id_token),
 * else left out. Writes out (size bytes), *out_len. Returns an enum
 * login_refresh_err: EFILE for a file that is not strict JSON, a field
 * there twice or not of its kind; EESCAPE for a real that needs one;
 * ENOSPC. Pure.
 */
int login_refresh_file(const struct login_profile *p, const char *in, size_t len,
		       const struct login_pair *fresh, size_t nfresh, int64_t expires_in,
		       int64_t now, char *out, size_t size, size_t *out_len);
/* The message of an enum login_refresh_err. Pure. */
const char *login_refresh_strerror(int err);

#endif
