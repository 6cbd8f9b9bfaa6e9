/* SPDX-License-Identifier: ISC */
/*
 * The agent's short line for one line of the session's record: derived
 * from the record's own line, so the file and the record can never tell
 * two stories. The record's lines are flat JSON objects written by the
 * stages themselves; every value read here is still treated as hostile (a
 * name is the agent's choice) and escaped on the way out: nothing but
 * printable ASCII reaches the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"

#define FIELD_MAX 256

/* Past a JSON string at s (its opening quote), or NULL when it does not end. */
static const char *str_end(const char *s, const char *end)
{
	for (s++; s < end; s++) {
		if (*s == '\\')
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* Past the value at s (string, number, literal, array or object), or NULL. */
static const char *value_end(const char *s, const char *end)
{
	int depth = 0;

	if (s < end && *s == '"')
		return str_end(s, end);
	for (; s < end; s++) {
		if (*s == '"') {
			s = str_end(s, end);
			if (!s)
				return NULL;
			s--;
		} else if (*s == '[' || *s == '{') {
			depth++;
		} else if (*s == ']' || *s == '}') {
			if (!depth)
				return s;
			depth--;
		} else if (*s == ',' && !depth) {
			return s;
		}
	}
	return NULL;
}

/* A JSON string's bytes (\uXXXX as one byte when it is one), cut at size - 1. */
static void unescape(const char *s, const char *e, char *out, size_t size)
{
	size_t o = 0;

	for (s++, e--; s < e && o + 1 < size; s++) {
		unsigned long u;
		char hex[5];

		if (*s != '\\') {
			out[o++] = *s;
			continue;
		}
		if (++s >= e)
			break;
		switch (*s) {
		case 'n':
			out[o++] = '\n';
			break;
		case 't':
			out[o++] = '\t';
			break;
		case 'r':
			out[o++] = '\r';
			break;
		case 'u':
			if (e - s < 5) {
				out[o] = 0;
				return;
			}
			memcpy(hex, s + 1, 4);
			hex[4] = 0;
			u = strtoul(hex, NULL, 16);
			/* Beyond one byte: a mark, never the text it might spell. */
			out[o++] = u <= 0xff ? (char)u : '?';
			s += 4;
			break;
		default:
			out[o++] = *s;
			break;
		}
	}
	out[o] = 0;
}

/*
 * key's value in the flat object line (n bytes) into out: a string's bytes,
 * or a number's text. 1 found, 0 not there.
 */
static int field(const char *line, size_t n, const char *key, char *out, size_t size)
{
	const char *s = line, *end = line + n, *k, *v;
	size_t kl = strlen(key);

	out[0] = 0;
	if (!n || *s != '{')
		return 0;
	for (s++; s < end && *s == '"';) {
		k = s;
		s = str_end(s, end);
		if (!s || s >= end || *s != ':')
			return 0;
		v = ++s;
		s = value_end(s, end);
		/* A value must be followed by ',' or '}': an object cut short is nothing. */
		if (!s || s >= end)
			return 0;
		if ((size_t)(s - v) > 0 && (size_t)(v - k) == kl + 3 && !memcmp(k + 1, key, kl)) {
			if (*v == '"')
				unescape(v, s, out, size);
			else
				snprintf(out, size, "%.*s", (int)(s - v), v);
			return 1;
		}
		if (*s != ',')
			return 0;
		s++;
	}
	return 0;
}

struct out {
	char *buf;
	size_t size, at;
};

/* Text of ours, as it is. */
static void put(struct out *o, const char *s)
{
	for (; *s; s++)
		if (o->at + 1 < o->size)
			o->buf[o->at++] = *s;
}

/* Text the agent may have chosen: printable ASCII but '\' as is, the rest as \xNN. */
static void put_text(struct out *o, const char *s)
{
	char hex[5] = "";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			char one[2] = { (char)c, 0 };

			put(o, one);
		} else {
			snprintf(hex, sizeof(hex), "\\x%02x", c);
			put(o, hex);
		}
	}
}

/* A name as --allow-name takes one: letters, digits, '-', '_', dots; two labels at least. */
static int is_name(const char *v)
{
	const char *last = strrchr(v, '.');

	if (!*v || *v == '.' || !last || !last[1] ||
	    strspn(last + 1, "0123456789") == strlen(last + 1))
		return 0;
	return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
	       strlen(v);
}

/* "PROTO DST:PORT (NAME)" of a net line. */
static void put_dest(struct out *o, const char *proto, const char *dst, const char *port,
		     const char *name)
{
	put_text(o, proto);
	put(o, " ");
	if (strchr(dst, ':'))
		put(o, "[");
	put_text(o, dst);
	if (strchr(dst, ':'))
		put(o, "]");
	if (*port && strcmp(port, "0")) {
		put(o, ":");
		put_text(o, port);
	}
	if (*name) {
		put(o, " (");
		put_text(o, name);
		put(o, ")");
	}
}

/* The option that would allow a net flow: by name when it came by one. */
static void put_net_hint(struct out *o, const char *proto, const char *dst, const char *port,
			 const char *name, int by_port)
{
	put(o, "; allow with ");
	if (is_name(name)) {
		put(o, "--allow-name ");
		put(o, name);
		if (by_port || (strcmp(port, "80") && strcmp(port, "443"))) {
			put(o, ":");
			put_text(o, port);
		}
		return;
	}
	put(o, "--allow ");
	put_text(o, proto);
	put(o, ":");
	put(o, strchr(dst, ':') ? "[" : "");
	put_text(o, dst);
	put(o, strchr(dst, ':') ? "]:" : ":");
	put_text(o, port);
}

static void net_line(struct out *o, const char *line, size_t n, const char *verdict,
		     const char *rule)
{
	char proto[16] = "", dst[64] = "", port[16] = "", name[FIELD_MAX] = "", decision[32] = "";
	int tcp_udp;

	field(line, n, "proto", proto, sizeof(proto));
	field(line, n, "dst", dst, sizeof(dst));
	field(line, n, "port", port, sizeof(port));
	field(line, n, "name", name, sizeof(name));
	field(line, n, "decision", decision, sizeof(decision));
	tcp_udp = !strcmp(proto, "tcp") || !strcmp(proto, "udp");
	if (!strcmp(verdict, "ask")) {
		put(o, "net: held ");
		put_dest(o, proto, dst, port, name);
		put(o, ": not allowed by the rules; asking the session's decider");
		return;
	}
	put(o, !strcmp(verdict, "allow") ? "net: allowed " : "net: refused ");
	put_dest(o, proto, dst, port, name);
	if (!strcmp(rule, "ask")) {
		put(o, ": the person answered ");
		put_text(o, decision);
		if (!strcmp(verdict, "deny") && tcp_udp)
			put_net_hint(o, proto, dst, port, name, 0);
		return;
	}
	if (!strcmp(rule, "no-public")) {
		put(o, ": not allowed under --no-public");
	} else if (!strncmp(rule, "special:", 8)) {
		put(o, ": a private or special address (");
		put_text(o, rule + 8);
		put(o, ")");
	} else if (!strcmp(rule, "host-address")) {
		put(o, ": one of the host's own addresses");
	} else if (!strcmp(rule, "sni-mismatch") || !strcmp(rule, "host-mismatch")) {
		put(o, !strcmp(rule, "sni-mismatch")
			   ? ": its TLS name is not one the rules allow"
			   : ": its HTTP Host is not one the rules allow");
	} else if (!strcmp(rule, "not-tls-or-http")) {
		put(o, ": neither TLS nor HTTP with an allowed name");
	} else if (!strncmp(rule, "max-", 4)) {
		put(o, ": too many flows (--");
		put_text(o, rule);
		put(o, ")");
		return;
	} else {
		put(o, ": rule ");
		put_text(o, rule);
		return;
	}
	if (tcp_udp)
		put_net_hint(o, proto, dst, port, name, !strcmp(rule, "not-tls-or-http"));
}

static void dns_line(struct out *o, const char *line, size_t n, const char *verdict,
		     const char *rule)
{
	char name[FIELD_MAX] = "", type[16] = "", decision[32] = "";

	field(line, n, "name", name, sizeof(name));
	field(line, n, "type", type, sizeof(type));
	field(line, n, "decision", decision, sizeof(decision));
	put(o, !strcmp(verdict, "ask")	   ? "dns: held "
	       : !strcmp(verdict, "allow") ? "dns: allowed "
					   : "dns: refused ");
	put_text(o, *name ? name : "a question");
	if (*type) {
		put(o, " (");
		put_text(o, type);
		put(o, ")");
	}
	if (!strcmp(verdict, "ask")) {
		put(o, ": no rule names it; asking the session's decider");
		return;
	}
	if (!strcmp(rule, "ask")) {
		put(o, ": the person answered ");
		put_text(o, decision);
	} else if (!strcmp(rule, "no-name")) {
		put(o, ": no --allow-name rule names it");
	} else if (!strcmp(rule, "private-answer")) {
		put(o, ": its answer is a private address; only --allow PROTO:NAME:PORT opens one");
		return;
	} else {
		put(o, ": rule ");
		put_text(o, rule);
		return;
	}
	if (!strcmp(verdict, "deny") && is_name(name)) {
		put(o, "; allow with --allow-name ");
		put(o, name);
	}
}

/* Calls a person may allow with --profile dev (otoexec(1)). */
static int dev_call(const char *s)
{
	return !strcmp(s, "ptrace") || !strcmp(s, "process_vm_readv") ||
	       !strcmp(s, "process_vm_writev") || !strcmp(s, "perf_event_open");
}

static void seccomp_line(struct out *o, const char *line, size_t n)
{
	char call[64] = "", comm[64] = "";

	field(line, n, "syscall", call, sizeof(call));
	field(line, n, "comm", comm, sizeof(comm));
	put(o, "seccomp: refused ");
	put_text(o, *call ? call : "a system call");
	put(o, " (EPERM) to ");
	put_text(o, comm);
	put(o, dev_call(call) ? ": not in the default profile; allow with --profile dev"
			      : ": not in the profile; no otorun option allows it");
}

static void landlock_line(struct out *o, const char *line, size_t n)
{
	char blockers[64] = "", path[FIELD_MAX] = "", comm[64] = "";

	field(line, n, "blockers", blockers, sizeof(blockers));
	if (!field(line, n, "path", path, sizeof(path)))
		field(line, n, "name", path, sizeof(path));
	field(line, n, "comm", comm, sizeof(comm));
	put(o, "landlock: refused ");
	put_text(o, blockers);
	if (*path) {
		put(o, " on ");
		put_text(o, path);
	}
	put(o, " to ");
	put_text(o, comm);
	put(o, ": outside the Landlock rules; allow with --landlock-ro or --landlock-rw");
}

/* otogate's line: a request it answered itself (status and error). */
static void gate_line(struct out *o, const char *line, size_t n)
{
	char grant[64] = "", method[32] = "", host[FIELD_MAX] = "", path[FIELD_MAX] = "",
	     status[8] = "", error[FIELD_MAX] = "";

	field(line, n, "grant", grant, sizeof(grant));
	field(line, n, "method", method, sizeof(method));
	field(line, n, "host", host, sizeof(host));
	field(line, n, "path", path, sizeof(path));
	field(line, n, "status", status, sizeof(status));
	field(line, n, "error", error, sizeof(error));
	put(o, "gate: refused ");
	put_text(o, method);
	put(o, " https://");
	put_text(o, host);
	put_text(o, path);
	put(o, " (grant ");
	put_text(o, grant);
	put(o, "): ");
	put_text(o, status);
	put(o, " ");
	put_text(o, error);
}

size_t why_format(char *buf, size_t size, const char *line, size_t n)
{
	char source[16] = "", verdict[16] = "", rule[FIELD_MAX] = "", count[24] = "",
	     status[8] = "", error[8] = "";
	struct out o = { buf, size, 0 };

	if (size < 2)
		return 0;
	if (n && line[n - 1] == '\n')
		n--;
	field(line, n, "source", source, sizeof(source));
	field(line, n, "verdict", verdict, sizeof(verdict));
	field(line, n, "rule", rule, sizeof(rule));
	if (!strcmp(source, "net") || !strcmp(source, "dns")) {
		/* Refusals, questions, and what a person decided; not what the rules let through.
		 */
		if (strcmp(verdict, "deny") && strcmp(verdict, "ask") && strcmp(rule, "ask"))
			return 0;
		if (!strcmp(source, "net"))
			net_line(&o, line, n, verdict, rule);
		else
			dns_line(&o, line, n, verdict, rule);
	} else if (!strcmp(source, "seccomp") && !strcmp(verdict, "deny")) {
		seccomp_line(&o, line, n);
	} else if (!strcmp(source, "landlock") && !strcmp(verdict, "deny")) {
		landlock_line(&o, line, n);
	} else if (!*source && field(line, n, "grant", rule, sizeof(rule)) &&
		   field(line, n, "status", status, sizeof(status)) && atoi(status) >= 400 &&
		   field(line, n, "error", error, sizeof(error))) {
		gate_line(&o, line, n);
	} else {
		return 0;
	}
	if (field(line, n, "count", count, sizeof(count)) && strcmp(count, "1")) {
		put(&o, " (");
		put_text(&o, count);
		put(&o, " times)");
	}
	/* A line cut short still ends a line. */
	if (o.at + 1 >= size)
		o.at = size - 2;
	buf[o.at++] = '\n';
	buf[o.at] = 0;
	return o.at;
}
