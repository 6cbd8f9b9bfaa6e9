/* SPDX-License-Identifier: ISC */
/*
 * http: what otogate reads of the agent's HTTP/1.1 and changes in it, as pure
 * code (no system call, no allocation, no exit), one function to a file
 * (lib/http_*.c):
 *
 *   - http_req_parse: an incremental parser of a request's head, strict where
 *     a looser reading could let the gateway and the upstream disagree on
 *     where a request ends (request smuggling): CRLF only, no folding, one
 *     Content-Length or Transfer-Encoding "chunked" and never both, no
 *     CONNECT, no Upgrade;
 *   - http_resp_parse: the upstream's response head, and where its body ends
 *     (RFC 9112, 6.3), the same header lines and limits as a request's
 *     (http_head_line, http_header_line);
 *   - http_body_feed: where a body ends (Content-Length, chunked, or the
 *     connection's close), and the data in it, so the next message of a
 *     kept-alive connection starts where it should, and a chunked response
 *     can be decoded before the replacer looks into it;
 *   - http_head_rewrite: the head again, with a phantom replaced by the real
 *     value in the headers a grant names only: never in another header, the
 *     method, the path, the query, a header's name, or the body; the
 *     hop-by-hop headers left out;
 *   - http_repl_*: a streaming scrubber for responses, turning every
 *     occurrence of the real value, as it is and in its common encodings,
 *     back into the phantom whatever the buffer boundaries, without ever
 *     letting out a prefix that the next bytes could complete. It sees bytes,
 *     not framing: fed a chunked body raw, it would miss a value cut by a
 *     chunk's size line. So the gateway feeds it the decoded data
 *     (http_body_feed) and frames what comes out itself (chunked); the
 *     phantom is as long as the value, in every form, so a Content-Length
 *     stays right.
 *
 * Lengths and offsets are into the caller's buffer: the parser copies nothing.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Limits. A line counts its CRLF. */
#define HTTP_MAX_LINE	    8192  /* the request line, a header line, a trailer line */
#define HTTP_MAX_HEAD	    65536 /* the whole head, up to its empty line */
#define HTTP_MAX_HEADERS    100	  /* header lines in a head, or trailer lines after a body */
#define HTTP_MAX_CHUNK_LINE 1024  /* a chunk's size line, with its extensions */
#define HTTP_MAX_SECRET	    4096  /* the longest value http_repl scrubs */

/*
 * What the functions return: HTTP_OK (done), HTTP_MORE (feed more bytes),
 * or an error, each with its message (http_strerror) and the status the
 * gateway answers with (http_status).
 */
enum http_err {
	HTTP_OK = 0,
	HTTP_MORE,	 /* incomplete: more bytes are needed */
	HTTP_EREQLINE,	 /* a request line that is not METHOD SP TARGET SP VERSION */
	HTTP_EURILONG,	 /* a request line longer than HTTP_MAX_LINE */
	HTTP_EMETHOD,	 /* a method that is not a token */
	HTTP_ETARGET,	 /* a target not in origin form ("/..."), or with a byte outside it */
	HTTP_EVERSION,	 /* not HTTP/1.1 or HTTP/1.0 */
	HTTP_ECRLF,	 /* a line ended by a bare LF, or a CR inside a line */
	HTTP_ELINE,	 /* a header line longer than HTTP_MAX_LINE */
	HTTP_EHEAD,	 /* a head longer than HTTP_MAX_HEAD */
	HTTP_ECOUNT,	 /* more than HTTP_MAX_HEADERS header (or trailer) lines */
	HTTP_EFOLD,	 /* a header line starting with white space (obsolete folding) */
	HTTP_ENAME,	 /* a header name that is not a token, or white space before ':' */
	HTTP_EVALUE,	 /* a header value with a control byte */
	HTTP_EHOST,	 /* HTTP/1.1 without exactly one Host */
	HTTP_ELENGTH,	 /* a Content-Length that is not one decimal number, or twice */
	HTTP_ETE,	 /* a Transfer-Encoding other than "chunked", or twice, or in 1.0 */
	HTTP_ETELENGTH,	 /* both Transfer-Encoding and Content-Length */
	HTTP_ECONNECT,	 /* the CONNECT method */
	HTTP_EUPGRADE,	 /* an Upgrade header (WebSocket, h2c) */
	HTTP_ECHUNK,	 /* a malformed chunk size line, or a chunk not ended by CRLF */
	HTTP_ECHUNKSIZE, /* a chunk size above 2^60, or a size line too long */
	HTTP_ETRAILER,	 /* a malformed or too long trailer */
	HTTP_ESTATUS,	 /* a response's status line that is not VERSION SP 3DIGIT [SP REASON] */
	HTTP_ERR_COUNT_, /* the number of values (not an error) */
};
/* http_strerror.c: one line saying what was wrong ("CONNECT refused"). */
const char *http_strerror(int err);
/* http_status.c: the HTTP status the gateway answers a request's err with: 400, 414, 431,
 * 501 or 505 (0 for HTTP_OK and HTTP_MORE). An upstream's response it cannot read is a 502,
 * whatever the error (HTTP_ESTATUS, which only a response earns, is 502 here). */
int http_status(int err);

/* A token's byte (RFC 9110, 5.6.2): a method, a header name. */
static inline int http_tchar(unsigned char c)
{
	static const char other[] = "!#$%&'*+-.^_`|~";

	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	for (size_t i = 0; i < sizeof(other) - 1; i++)
		if (c == (unsigned char)other[i])
			return 1;
	return 0;
}

/* Where a string lies in the caller's buffer. */
struct http_span {
	uint32_t off, len;
};
struct http_header {
	struct http_span name, value; /* the value without its surrounding white space */
};

/*
 * http_head_line.c: the next line of a head in buf[0, len), from *pos (the
 * bytes read so far) and *line (where the current line starts), both 0 at
 * first and kept between calls: HTTP_OK with the line in buf[*at, *end)
 * (without its CRLF), HTTP_MORE, HTTP_ECRLF, HTTP_EHEAD past HTTP_MAX_HEAD,
 * or too_long for a line past HTTP_MAX_LINE.
 */
int http_head_line(uint32_t *pos, uint32_t *line, const char *buf, size_t len, int too_long,
		   uint32_t *at, uint32_t *end);

/* What the header lines say, gathered as they are read (http_header_line). */
enum {
	HTTP_F_LENGTH = 1,    /* a Content-Length: length */
	HTTP_F_CHUNKED = 2,   /* Transfer-Encoding: chunked */
	HTTP_F_CLOSE = 4,     /* Connection: close */
	HTTP_F_KEEPALIVE = 8, /* Connection: keep-alive */
};
enum http_which { HTTP_H_OTHER, HTTP_H_HOST, HTTP_H_UPGRADE };
struct http_fields {
	unsigned int flags;
	uint64_t length;
	enum http_which which; /* the last line's header, when the caller must decide */
};
/*
 * http_header_line.c: the header line buf[at, end) (no CRLF) into h, its value
 * without surrounding white space, and into f what it says: HTTP_MORE, or
 * HTTP_EFOLD, HTTP_ENAME, HTTP_EVALUE, HTTP_ELENGTH (not one number below
 * 10^18, or a second one), HTTP_ETE (not "chunked", or twice).
 */
int http_header_line(const char *buf, uint32_t at, uint32_t end, struct http_header *h,
		     struct http_fields *f);

/* A body's framing, and how far it has been read (http_body_feed). */
enum http_body_kind {
	HTTP_BODY_NONE,
	HTTP_BODY_LENGTH,
	HTTP_BODY_CHUNKED,
	HTTP_BODY_CLOSE, /* a response's: everything until the upstream closes */
};
struct http_body {
	enum http_body_kind kind;
	uint64_t left;	   /* LENGTH: bytes to come; CHUNKED: of the current chunk */
	int state;	   /* CHUNKED: where in the framing (http_body_feed.c) */
	uint32_t line;	   /* CHUNKED: bytes of the current size or trailer line so far */
	uint32_t trailers; /* CHUNKED: trailer lines so far */
	uint64_t data;	   /* data bytes so far (without the chunk framing) */
	int err;	   /* a sticky error */
};

/*
 * A request head. Zero it, then call http_req_parse with the bytes received
 * so far, again and again as more arrive: the buffer only grows, and what was
 * passed once is never changed. The parser resumes where it stopped, so the
 * whole is read once however it is split.
 */
struct http_req {
	/* the parser's state */
	uint32_t pos;	      /* bytes read */
	uint32_t line;	      /* where the current line starts */
	int done, err;	      /* once done, err (HTTP_OK or an error) is returned again */
	int seen_line;	      /* the request line was read */
	struct http_fields f; /* what the headers said so far */
	/* the head, once complete */
	uint32_t head_len; /* bytes up to and with the empty line: the body starts here */
	struct http_span method, target;
	int minor;	/* HTTP/1.minor: 0 or 1 */
	int keep_alive; /* the connection may carry another request after this one */
	uint32_t nheaders;
	struct http_header h[HTTP_MAX_HEADERS];
	int host; /* the index of Host in h, or -1 (set with the request line) */
	struct http_body body;
};
/*
 * http_req_parse.c: read the head in buf[0, len): HTTP_OK once it is complete
 * (r->head_len and the rest set; the body, if any, follows in buf from
 * r->head_len), HTTP_MORE while it is not, or an error. Empty lines before the
 * request line are skipped (RFC 9112 2.2). Once HTTP_OK or an error, it stays.
 */
int http_req_parse(struct http_req *r, const char *buf, size_t len);

/*
 * A response head, read as a request's (zero it, then call again as bytes
 * arrive). Its framing (RFC 9112, 6.3) depends on the request: head says it
 * was a HEAD, whose response has no body whatever its headers say.
 */
struct http_resp {
	uint32_t pos, line; /* the parser's state, as in struct http_req */
	int done, err;
	int seen_line;
	struct http_fields f;
	uint32_t head_len; /* bytes up to and with the empty line */
	int minor;	   /* HTTP/1.minor */
	int status;	   /* 100 to 599 */
	struct http_span reason;
	uint32_t nheaders;
	struct http_header h[HTTP_MAX_HEADERS];
	int keep_alive; /* the connection may carry another response after this one */
	struct http_body body;
};
/*
 * http_resp_parse.c: HTTP_OK once the head is complete, HTTP_MORE, or an
 * error (sticky). No body for a HEAD, a 1xx, 204 or 304; chunked; a
 * Content-Length; else everything until the upstream closes (no keep-alive).
 * A 1xx is interim: the final response's head follows from head_len (parse
 * it with a zeroed struct). 101 (Switching Protocols) is HTTP_EUPGRADE: the
 * gateway never asks for one. An Upgrade header is only an offer, passed over.
 */
int http_resp_parse(struct http_resp *r, const char *buf, size_t len, int head);

/*
 * http_body_feed.c: read the next bytes of a body, buf[0, len) (those after the
 * head, then each new read). On return *used bytes were the body's, framing
 * and data; of them, buf[*doff, *doff + *dlen) is data (a chunk's bytes, or
 * all of a Content-Length body), *dlen 0 when none. At most one run of data
 * per call: call again with what is left. HTTP_OK: the body ended at *used
 * (the next request starts there); HTTP_MORE: all of buf was the body's and
 * more is to come; or an error (sticky). Trailers are read and passed over.
 * HTTP_BODY_CLOSE: every byte is data, and it never ends here (HTTP_MORE).
 */
int http_body_feed(struct http_body *b, const char *buf, size_t len, size_t *used, size_t *doff,
		   size_t *dlen);

/*
 * http_value_ok.c: whether bytes may stand in a header value: visible
 * ASCII, space, tab and bytes from 0x80, no other control byte (no CR, LF,
 * NUL), not starting or ending with white space, and not empty.
 */
int http_value_ok(const char *v, size_t len);

/*
 * http_list_has.c: whether the list v[0, n) (a header's comma-separated
 * value) holds token[0, len), whatever its case. Pure.
 */
int http_list_has(const char *v, size_t n, const char *token, size_t len);

/*
 * What http_head_rewrite puts where. The credential goes into the headers
 * names lists (compared whatever their case) and nowhere else: in each such
 * value every occurrence of from becomes to, and in an Authorization of the
 * Basic scheme, inside its base64 (decoded, replaced, encoded again). A from
 * in any other header stays as it came.
 */
struct http_rewrite {
	const char *from, *to; /* the phantom, the real value */
	size_t from_len, to_len;
	const char *const *names; /* the headers that carry the credential */
	size_t nnames;
	const char *host; /* Host's value upstream, or NULL: the agent's */
	size_t host_len;
	/*
	 * Nothing comes back in a form the response's scrubber cannot read:
	 * Accept-Encoding becomes "identity" (a gzip or deflate echo of the value
	 * would pass unseen), and Range and If-Range are dropped (slices of an
	 * echo, each too short to be the value, joined by the agent).
	 */
	int identity;
};

/*
 * http_head_rewrite.c: the head parsed into r from buf, written into out:
 * the request line as it came, each header as "Name: value", the credential
 * put where w says, the Host header's value replaced by w->host when it is
 * not NULL, w->identity's changes; CRLF line ends, the empty line last.
 * The headers that end at the gateway are left out: Connection, Keep-Alive,
 * Proxy-Connection, Proxy-Authorization, TE, Trailer, Upgrade, and each one
 * Connection names but Host, Content-Length and Transfer-Encoding. Nothing
 * else changes: not the method, path or query, not a header's name, and not
 * the body, which the caller forwards as it is. The length written,
 * *count the replacements; or -1 with errno EINVAL (r not complete, from
 * empty, to or host not a valid header value: http_value_ok) or ENOSPC (out
 * too small; 2 * r->head_len + 2 * (r->head_len / from_len + 1) * to_len +
 * host_len + 64 always suffices).
 */
ssize_t http_head_rewrite(const char *buf, const struct http_req *r, const struct http_rewrite *w,
			  char *out, size_t outsz, unsigned int *count);

/*
 * The streaming scrubber of responses: every occurrence of the real value
 * (HTTP_MIN_SECRET to HTTP_MAX_SECRET bytes) in a stream becomes the
 * phantom, of the same length, in the same form, left to right and not
 * overlapping, however the stream is cut into buffers. The forms:
 *
 *   - the text form, byte by byte: each byte of the value as itself in
 *     either case (an upper- or lower-cased echo), percent-encoded (%HH, in
 *     either case), a JSON \u00HH escape, or JSON's \/, \" and \\ for
 *     those three; mixed freely (an encoder that escapes some bytes only);
 *   - base64, standard and URL-safe, at each of the three alignments the
 *     value can have in a longer encoded string: the characters that the
 *     value's bits alone decide (the one or two at each end that it shares
 *     with its neighbours stay: a few bits of the first and last bytes);
 *   - hexadecimal, in either case.
 *
 * A JSON two-byte escape (\/) of the value is as long as two of the
 * phantom's bytes, which are letters: the phantom's byte, twice. Bytes that
 * could still begin an occurrence are held back (fewer than the longest
 * form, 6 bytes to the value's byte) until the next bytes say whether they
 * do: no prefix of any form that later completes ever leaves. Any other
 * transformation (compression, a form of its own) is not seen: the gateway
 * asks for identity (struct http_rewrite) and refuses an encoded body.
 */
#define HTTP_MIN_SECRET 16 /* shorter, a form would be found where it never was */
#define HTTP_REPL_FIXED 7  /* base64 and base64url at 3 alignments, hexadecimal */
#define HTTP_REPL_HOLD	(6 * HTTP_MAX_SECRET)
struct http_repl_form {
	uint16_t len;
	uint8_t ci; /* either case matches */
	uint8_t real[2 * HTTP_MAX_SECRET], phantom[2 * HTTP_MAX_SECRET];
};
struct http_repl {
	const uint8_t *real, *phantom;
	size_t len;
	size_t nfixed;
	struct http_repl_form fixed[HTTP_REPL_FIXED];
	uint8_t first[256];	/* the bytes a form can begin with */
	uint8_t pair[256][256]; /* the pairs of bytes a form can begin with */
	size_t held;		/* hold[0, held): bytes not let out yet */
	uint8_t hold[HTTP_REPL_HOLD];
};
/*
 * http_repl_init.c: 0, or -1/EINVAL for a length outside [HTTP_MIN_SECRET,
 * HTTP_MAX_SECRET]. real and phantom (len bytes each) must stay valid while
 * it is used; the phantom's bytes should be letters, digits and '-', which
 * every form leaves as they are.
 */
int http_repl_init(struct http_repl *r, const void *real, const void *phantom, size_t len);
/* The most bytes http_repl_feed writes for len bytes in, with what is held. */
static inline size_t http_repl_max(const struct http_repl *r, size_t len)
{
	return r->held + len;
}
/*
 * http_repl_scan.c: the next len bytes of the stream; writes into out
 * (http_repl_max(r, len) bytes) what may leave now, and returns its length.
 * With final, the stream ends there: nothing is held, and the scrubber is
 * then as new, for the next stream.
 */
size_t http_repl_scan(struct http_repl *r, const void *in, size_t len, void *out, int final);
static inline size_t http_repl_feed(struct http_repl *r, const void *in, size_t len, void *out)
{
	return http_repl_scan(r, in, len, out, 0);
}
/* At the end of the stream: the held bytes, scrubbed, into out (held bytes at most); their
 * number. */
static inline size_t http_repl_flush(struct http_repl *r, void *out)
{
	return http_repl_scan(r, NULL, 0, out, 1);
}

/* A hex digit's value (either case), or -1: chunk sizes, percent escapes. Pure. */
static inline int http_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
