/* SPDX-License-Identifier: ISC */
/*
 * Namespace names, for otons' options and messages; the cgroup options'
 * values and what otons reads of cgroupfs. Pure: no system call, no exit.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oto.h"
#include "otons.h"

static const struct {
	const char *name;
	int flag;
} NAMESPACES[] = {
	{ "user", CLONE_NEWUSER },     { "mnt", CLONE_NEWNS },	{ "mount", CLONE_NEWNS },
	{ "pid", CLONE_NEWPID },       { "ipc", CLONE_NEWIPC }, { "uts", CLONE_NEWUTS },
	{ "cgroup", CLONE_NEWCGROUP }, { "net", CLONE_NEWNET },
};

int otons_ns_flag(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(NAMESPACES); i++)
		if (!strcmp(name, NAMESPACES[i].name))
			return NAMESPACES[i].flag;
	return 0;
}

size_t otons_ns_names(int flags, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(NAMESPACES); i++) {
		size_t l = strlen(NAMESPACES[i].name);

		/* "mount" is another name for mnt: each namespace once. */
		if (!(flags & NAMESPACES[i].flag) || !strcmp(NAMESPACES[i].name, "mount"))
			continue;
		if (n + !!n + l >= size)
			return 0;
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, NAMESPACES[i].name, l + 1);
		n += l;
	}
	return n;
}

/*
 * The cgroup options' values, and what otons reads of cgroupfs and
 * /proc/self/mountinfo. Pure as well.
 */
int otons_cpus_parse(const char *s, unsigned long *quota)
{
	unsigned long whole = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (!s || *s < '0' || *s > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > 100000)
			goto range;
		whole = whole * 10 + (unsigned long)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (++digits > 2)
				goto bad;
			frac = frac * 10 + (unsigned long)(*p - '0');
		}
		if (!digits)
			goto bad;
		if (digits == 1)
			frac *= 10;
	}
	if (*p)
		goto bad;
	if (whole > 4096)
		goto range;
	/* Hundredths of a CPU, over the kernel's default period of 100 ms. */
	*quota = (whole * 100 + frac) * (OTONS_CPU_PERIOD / 100);
	/* The kernel's smallest quota is 1 ms: 0.01 CPU. */
	if (!*quota)
		goto range;
	return 0;
bad:
	errno = EINVAL;
	return -1;
range:
	errno = ERANGE;
	return -1;
}

int otons_word_in(const char *list, const char *word)
{
	size_t l = strlen(word);

	if (!l)
		return 0;
	for (const char *p = list; (p = strstr(p, word)); p += l)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (!p[l] || p[l] == ' ' || p[l] == '\n'))
			return 1;
	return 0;
}

/* Copy one space-separated field of mountinfo, its \ooo escapes undone. */
static int mi_field(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= size)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

int otons_cgroup2_mount(const char *mountinfo, char *out, size_t size)
{
	const char *line = mountinfo;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *f[10], *p = line, *sep;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int n = 0;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		while (n < 5 && p < line + len) {
			f[n++] = p;
			p = memchr(p, ' ', (size_t)(line + len - p));
			if (!p)
				break;
			p++;
		}
		sep = n == 5 ? strstr(line, " - ") : NULL;
		if (sep && sep < line + len && !strncmp(sep + 3, "cgroup2 ", 8) &&
		    !strncmp(f[3], "/ ", 2)) {
			const char *mp = f[4], *mpe = memchr(mp, ' ', (size_t)(line + len - mp));

			if (mpe && mi_field(mp, (size_t)(mpe - mp), out, size) == 0)
				return 0;
		}
		line = end ? end + 1 : NULL;
	}
	errno = ENOENT;
	return -1;
}

int otons_events_value(const char *text, const char *key, unsigned long long *out)
{
	size_t l = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, l) && p[l] == ' ') {
			char *end;

			errno = 0;
			*out = strtoull(p + l + 1, &end, 10);
			if (errno || end == p + l + 1 || (*end && *end != '\n'))
				break;
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

int otons_worth_a_line(unsigned long count)
{
	return record_worth_a_line(count);
}

int otons_refusal_format(char *buf, size_t size, const struct timespec *t,
			 const struct otons_refusal *rf)
{
	const char *name = rf->name;
	size_t o = (size_t)event_head(buf, size, t, "seccomp", rf->session);
	int n;

	if (!o)
		return 0;
	/* A name from libseccomp's table: letters, digits and _ only, nothing to escape. */
	for (const char *p = name; p && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			name = NULL;
	n = snprintf(buf + o, size - o, ",\"verdict\":\"deny\",\"pid\":%u,\"comm\":", rf->pid);
	if (n <= 0 || (size_t)n >= size - o)
		return 0;
	o += (size_t)n;
	/* The program, as the kernel reports it (NULL: the caller was gone). */
	o = rf->comm ? json_str(buf, size, o, rf->comm, strlen(rf->comm))
		     : (o + 4 < size ? (memcpy(buf + o, "null", 5), o + 4) : 0);
	if (!o || o + 7 >= size)
		return 0;
	memcpy(buf + o, ",\"exe\":", 7);
	o += 7;
	o = rf->exe ? json_str(buf, size, o, rf->exe, strlen(rf->exe))
		    : (o + 4 < size ? (memcpy(buf + o, "null", 5), o + 4) : 0);
	if (!o)
		return 0;
	n = snprintf(
	    buf + o, size - o,
	    ",\"syscall\":\"%s\",\"nr\":%d,"
	    "\"args\":[%llu,%llu,%llu,%llu,%llu,%llu],\"errno\":\"EPERM\",\"count\":%lu}\n",
	    name ? name : "?", rf->nr, (unsigned long long)rf->args[0],
	    (unsigned long long)rf->args[1], (unsigned long long)rf->args[2],
	    (unsigned long long)rf->args[3], (unsigned long long)rf->args[4],
	    (unsigned long long)rf->args[5], rf->count);
	return n > 0 && (size_t)n < size - o ? (int)(o + (size_t)n) : 0;
}

int otons_audit_stamp(const char *text, size_t len, long long *sec, unsigned int *ms,
		      unsigned long long *serial, size_t *body)
{
	char head[64], *end;
	size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;
	const char *p;

	memcpy(head, text, n);
	head[n] = 0;
	if (strncmp(head, "audit(", 6))
		return -1;
	p = head + 6;
	errno = 0;
	*sec = strtoll(p, &end, 10);
	if (end == p || *end != '.' || errno)
		return -1;
	p = end + 1;
	*ms = (unsigned int)strtoul(p, &end, 10);
	if (end == p || *end != ':' || *ms > 999)
		return -1;
	p = end + 1;
	*serial = strtoull(p, &end, 10);
	if (end == p || strncmp(end, "):", 2) || errno)
		return -1;
	end += 2;
	while ((size_t)(end - head) < n && *end == ' ')
		end++;
	*body = (size_t)(end - head);
	return 0;
}

/* One "key=value" of an audit record's body at *p (len bytes from it): 0, or -1 at the end. */
struct audit_kv {
	const char *key, *val;
	size_t klen, vlen;
	int quoted;
};

static int audit_next(const char **p, const char *end, struct audit_kv *kv)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return -1;
	kv->key = s;
	while (s < end && *s != '=' && *s != ' ')
		s++;
	kv->klen = (size_t)(s - kv->key);
	if (s >= end || *s != '=') {
		/* A word without a value: skipped. */
		kv->val = s;
		kv->vlen = 0;
		kv->quoted = 0;
		*p = s;
		return 0;
	}
	s++;
	kv->quoted = s < end && *s == '"';
	if (kv->quoted) {
		kv->val = ++s;
		while (s < end && *s != '"')
			s++;
		kv->vlen = (size_t)(s - kv->val);
		if (s < end)
			s++;
	} else {
		kv->val = s;
		while (s < end && *s != ' ')
			s++;
		kv->vlen = (size_t)(s - kv->val);
	}
	*p = s;
	return 0;
}

int otons_audit_field(const char *body, size_t len, const char *key, char *out, size_t size)
{
	const char *p = body, *end = body + len;
	struct audit_kv kv;

	while (audit_next(&p, end, &kv) == 0)
		if (kv.klen == strlen(key) && !memcmp(kv.key, key, kv.klen)) {
			if (kv.vlen >= size)
				return -1;
			memcpy(out, kv.val, kv.vlen);
			out[kv.vlen] = 0;
			return (int)kv.vlen;
		}
	return -1;
}

/* The audit's untrusted strings: quoted, or in hex when they hold a space, a quote, a control or a
 * byte above 0x7e. */
static int audit_untrusted(const struct audit_kv *kv)
{
	static const char *const KEYS[] = { "path", "dev", "name", "comm", "ocomm", "exe", NULL };

	for (const char *const *k = KEYS; *k; k++)
		if (kv->klen == strlen(*k) && !memcmp(kv->key, *k, kv->klen))
			return 1;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* bytes as a JSON string's inside into out (size > 0): its length, or -1 when it does not fit. */
static int json_bytes(char *out, size_t size, const unsigned char *b, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = b[i];
		char esc[8];
		size_t k;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			k = 2;
		} else if (c < 0x20 || c > 0x7e) {
			/* Not UTF-8 by promise: each byte stands for itself (U+0000 to U+00FF). */
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			k = 6;
		} else {
			esc[0] = (char)c;
			k = 1;
		}
		if (o + k >= size)
			return -1;
		memcpy(out + o, esc, k);
		o += k;
	}
	out[o] = 0;
	return (int)o;
}

/*
 * Each key=value of body (len bytes) at buf + o as ',"key":"value"': keys of
 * a-z and _ only, an untrusted value in hex decoded; only: the one key taken
 * (NULL: every key). The new length, 0 when it does not fit.
 */
static size_t audit_kvs(char *buf, size_t size, size_t o, const char *body, size_t len,
			const char *only)
{
	const char *p = body, *end = body + len;
	struct audit_kv kv;

	while (audit_next(&p, end, &kv) == 0) {
		unsigned char val[4096];
		size_t vn = 0;
		int n, ok = kv.klen > 0 && kv.vlen > 0;

		for (size_t i = 0; ok && i < kv.klen; i++)
			ok = (kv.key[i] >= 'a' && kv.key[i] <= 'z') || kv.key[i] == '_';
		if (only)
			ok = ok && kv.klen == strlen(only) && !memcmp(kv.key, only, kv.klen);
		if (!ok || kv.vlen > sizeof(val))
			continue;
		if (!kv.quoted && audit_untrusted(&kv) && kv.vlen % 2 == 0) {
			for (size_t i = 0; i < kv.vlen; i += 2) {
				int hi = hexval(kv.val[i]), lo = hexval(kv.val[i + 1]);

				if (hi < 0 || lo < 0) {
					vn = 0;
					break;
				}
				val[vn++] = (unsigned char)(hi << 4 | lo);
			}
		}
		if (!vn) {
			memcpy(val, kv.val, kv.vlen);
			vn = kv.vlen;
		}
		if (o + kv.klen + 6 >= size)
			return 0;
		buf[o++] = ',';
		buf[o++] = '"';
		memcpy(buf + o, kv.key, kv.klen);
		o += kv.klen;
		memcpy(buf + o, "\":\"", 3);
		o += 3;
		n = json_bytes(buf + o, size - o, val, vn);
		if (n < 0 || o + (size_t)n + 1 >= size)
			return 0;
		o += (size_t)n;
		buf[o++] = '"';
	}
	return o;
}

int otons_landlock_format(char *buf, size_t size, const struct timespec *t, const char *session,
			  unsigned int pid, const char *body, size_t len, const char *sys,
			  size_t syslen, unsigned long count)
{
	size_t o;
	int n = event_head(buf, size, t, "landlock", session);

	if (!n)
		return 0;
	o = (size_t)n;
	n = snprintf(buf + o, size - o, ",\"verdict\":\"deny\",\"pid\":%u", pid);
	if (n <= 0 || (size_t)n >= size - o)
		return 0;
	o += (size_t)n;
	/* The program, as the kernel wrote it in the event's SYSCALL record. */
	o = audit_kvs(buf, size, o, sys, syslen, "comm");
	o = o ? audit_kvs(buf, size, o, sys, syslen, "exe") : 0;
	o = o ? audit_kvs(buf, size, o, body, len, NULL) : 0;
	if (!o)
		return 0;
	n = snprintf(buf + o, size - o, ",\"count\":%lu}\n", count);
	if (n <= 0 || (size_t)n >= size - o)
		return 0;
	return (int)(o + (size_t)n);
}
