/* SPDX-License-Identifier: ISC */
/*
 * json: a strict, bounded reader of JSON (RFC 8259) for documents that hold
 * credentials: a CLI's login file, a token endpoint's body. It copies
 * nothing and builds no tree: it calls back once per scalar value with the
 * value's key path and its byte span in the input, so a caller replaces a
 * value by splicing its span and every other byte stays as it was.
 *
 * Strict where a looser reading would let two readers disagree on what a
 * document holds: a key twice in one object (after its escapes are
 * decoded: "access\u0054oken" is "accessToken"), invalid UTF-8, a lone
 * surrogate, a control character in a string, a byte order mark, anything
 * after the value. Bounded: JSON_MAX_INPUT bytes, JSON_MAX_DEPTH levels of
 * nesting, key paths of JSON_MAX_PATH bytes, JSON_MAX_KEYS keys in the
 * objects open at one point (so duplicates are found without allocating).
 */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>

#define JSON_MAX_INPUT (64 * 1024)
#define JSON_MAX_DEPTH 16
#define JSON_MAX_PATH  512
#define JSON_MAX_KEYS  512 /* keys held by the objects open at one point */

enum json_kind { JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE, JSON_NULL };

/*
 * One scalar value. path: its keys from the top, joined by '.', each as
 * decoded (escapes resolved); an array's element adds "[N]" ("scopes[0]").
 * A key that holds '.' makes a path another nesting also makes: a caller
 * that looks a path up counts its values, and refuses two. The span
 * [start, end) is a string's raw contents (quotes excluded, escapes as
 * written), or the whole token of another kind.
 */
struct json_value {
	const char *path; /* path_len bytes, not NUL-terminated */
	size_t path_len;
	enum json_kind kind;
	size_t start, end;
	int escaped; /* a string: it holds a backslash escape */
};

enum json_err {
	JSON_OK = 0,
	JSON_ETOOBIG,	 /* longer than JSON_MAX_INPUT */
	JSON_ESYNTAX,	 /* not JSON */
	JSON_EDEPTH,	 /* nested deeper than JSON_MAX_DEPTH */
	JSON_EUTF8,	 /* a string holds invalid UTF-8 */
	JSON_ESURROGATE, /* a \u escape of half a surrogate pair */
	JSON_EDUP,	 /* a key twice in one object */
	JSON_EPATH,	 /* a key path longer than JSON_MAX_PATH */
	JSON_EKEYS,	 /* more than JSON_MAX_KEYS keys in open objects */
	JSON_ESTOP,	 /* the callback stopped the scan */
	JSON_NUM_ERR,	 /* the count of the above, not an error */
};

/* Returns 0 to go on, anything else to stop the scan (JSON_ESTOP). */
typedef int (*json_scan_fn)(const struct json_value *v, void *arg);

/*
 * json_scan.c: reads in's len bytes as one JSON document and calls fn for
 * each scalar value, in order. Values are reported as they are met: a
 * caller acts only once the whole scan returned JSON_OK. Returns an enum
 * json_err; *at (when not NULL) is the offset where reading stopped. Pure.
 */
int json_scan(const char *in, size_t len, json_scan_fn fn, void *arg, size_t *at);
/* json_strerror.c: the message of an enum json_err. Pure. */
const char *json_strerror(int err);

#endif
