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
 *     value in header values only: never in the method, the path, the query,
 *     a header's name, or the body;
 *   - http_repl_*: a streaming replacer for responses, turning every
 *     occurrence of the real value back into the phantom whatever the buffer
 *     boundaries, without ever letting out a prefix of the real value that the
 *     next bytes could complete. It sees bytes, not framing: fed a chunked
 *     body raw, it would miss a value cut by a chunk's size line, and a
 *     replacement of another length breaks a Content-Length. So the gateway
 *     feeds it the decoded data (http_body_feed) and frames what comes out
 *     itself (chunked), or gives the phantom the real value's length.
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
#define HTTP_MAX_SECRET	    4096  /* the longest value http_repl replaces */

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
 * http_head_rewrite.c: the head parsed into r from buf, written into out:
 * the request line as it came, each header as "Name: value" with every
 * occurrence of from in the value replaced by to, left to right and not
 * overlapping; the Host header's value replaced by host when host is not
 * NULL; CRLF line ends, the empty line last. Nothing else changes: not the
 * method, path or query, not a header's name, and not the body, which the
 * caller forwards as it is. The length written, *count the replacements; or
 * -1 with errno EINVAL (r not complete, from empty, to or host not a valid
 * header value: http_value_ok) or ENOSPC (out too small; r->head_len +
 * r->nheaders + (r->head_len / from_len) * to_len + host_len + 8 always
 * suffices).
 */
ssize_t http_head_rewrite(const char *buf, const struct http_req *r, const char *from,
			  size_t from_len, const char *to, size_t to_len, const char *host,
			  size_t host_len, char *out, size_t outsz, unsigned int *count);

/*
 * The streaming replacer: every occurrence of from (1 to HTTP_MAX_SECRET
 * bytes) in a stream becomes to, left to right and not overlapping, as a
 * whole-string replacement would do, however the stream is cut into buffers.
 * The bytes that could still begin an occurrence are held back (at most
 * from_len - 1 of them) until the next bytes say whether they do: so no
 * prefix of from that later completes ever leaves. from and to must stay
 * valid while it is used.
 */
struct http_repl {
	const uint8_t *from, *to;
	size_t from_len, to_len;
	size_t held;			/* bytes held back: they are from[0, held) */
	uint16_t fail[HTTP_MAX_SECRET]; /* fail[i]: the longest proper border of from[0, i] */
};
/* http_repl_init.c: 0, or -1/EINVAL for an empty from or one over HTTP_MAX_SECRET. */
int http_repl_init(struct http_repl *r, const void *from, size_t from_len, const void *to,
		   size_t to_len);
/* The most bytes http_repl_feed writes for len bytes in, with what is held. */
static inline size_t http_repl_max(const struct http_repl *r, size_t len)
{
	size_t n = r->held + len;

	return n + (n / r->from_len) * r->to_len;
}
/* http_repl_feed.c: the next len bytes of the stream; writes into out (http_repl_max(r, len)
 * bytes) what may leave now, and returns its length. */
size_t http_repl_feed(struct http_repl *r, const void *in, size_t len, void *out);
/* http_repl_flush.c: at the end of the stream, the held bytes (fewer than from_len) into out;
 * their number. The replacer is then as new. */
size_t http_repl_flush(struct http_repl *r, void *out);

#endif
