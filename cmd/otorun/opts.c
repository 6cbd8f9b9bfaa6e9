/* SPDX-License-Identifier: ISC */
/*
 * The command line and the config file. Exits 0 for --help and --version,
 * 100 for bad usage (a config file's errors name FILE:LINE), 111 for a
 * config file that cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otorun.h"

static const char USAGE[] =
    "usage: otorun --agent-root DIR --role ROLE --person NAME [OPTION]... -- CMD [ARG]...\n"
    "       otorun --config FILE [OPTION]... -- CMD [ARG]...\n"
    "Run CMD as an agent in the full oto chain.\n"
    "\n"
    "  --config FILE         options from FILE, one a line (\"--OPTION VALUE\", the\n"
    "                        value as it is to the end of the line; # comments);\n"
    "                        options given here come after the file's\n"
    "  --agent-root DIR      the agent's tree (workspace/ knowledge/ config/ people/)\n"
    "  --role ROLE           manager, member or viewer\n"
    "  --person NAME         whose people/NAME is /private\n"
    " the network (otonet):\n"
    "  --allow PROTO:HOST:PORT  a private endpoint CMD may reach; repeatable\n"
    "  --allow-name NAME[:PORT]  a name (or *.SUFFIX) CMD may reach, on PORT or\n"
    "                        80 and 443; with --no-public, the only names; repeatable\n"
    "  --public CIDR         treat CIDR as public internet (labs, tests); repeatable\n"
    "  --no-public           only --allow exceptions and DNS\n"
    "  --kernel-wall         also refuse private ranges with prohibit routes\n"
    "                        (EACCES at once; those refusals are not logged)\n"
    "  --dns IP              the resolver for the agent's DNS (default: the host's)\n"
    "  --log-fd N            JSON lines on fd N: otonet's decisions on each flow,\n"
    "                        and the system calls the seccomp filter refuses\n"
    "                        (otons --log-fd: written from outside the sandbox,\n"
    "                        answered with the same errno)\n"
    "  --log-budget SIZE     the bytes each of otonet and otons may write there\n"
    "                        (K, M, G; default 64M): past it, one line says so\n"
    "  --ask SOCKET          ask the decider listening at SOCKET (otoask --listen)\n"
    "                        about a destination the rules refuse (otonet --ask-fd)\n"
    "  --ask-fd N            the same, on the decider's socket N (10 or more)\n"
    "  --ask-timeout S       no answer in S seconds is a deny (default 30)\n"
    "  --mode MODE           what is asked: auto (the rules alone), ask-new\n"
    "                        (--no-public: each destination they refuse), ask-writes\n"
    "                        (also ask=writes on each --grant), ask-all (also\n"
    "                        ask=*:/); all but auto need --ask or --ask-fd\n"
    "  --max-flows N, --max-half-open N, --max-udp-flows N, --tcp-idle S,\n"
    "  --udp-idle S, --busy-poll USEC   otonet's bounds (see otonet(1))\n"
    "  --no-net              no otonet: an empty network namespace (loopback only)\n"
    " namespaces (otons):\n"
    "  --hostname NAME       the sandbox's host name\n"
    "  --uid N, --gid N      the agent's ids inside (default: the caller's)\n"
    "  --die-with-parent     end the session when otorun's parent dies\n"
    "  --grace SECONDS       told to end (SIGTERM, SIGHUP, its terminal or a stage\n"
    "                        outside gone), the agent's time before the sandbox is\n"
    "                        killed (default 10)\n"
    "  --pty                 a pty for the agent even without a terminal\n"
    "  --no-pty              no pty: the agent shares otorun's terminal, if any\n"
    "  --cgroup[=DIR]        a cgroup v2 of the session's own, made in DIR (one\n"
    "                        delegated to the account the chain runs as); run by\n"
    "                        root, DIR defaults to CGROUP2/oto/UID, which otorun\n"
    "                        prepares and delegates to the --as account (otons(1))\n"
    "  --memory-max BYTES, --pids-max N, --cpu-max CPUS   the session's limits\n"
    "                        (each implies --cgroup; see otons(1))\n"
    " the view (otomount):\n"
    "  --ro SRC:DST, --rw SRC:DST   bind a host path read-only / writable; repeatable\n"
    "  --socket SRC:DST      bind one host Unix socket (a tool's, see otoconnect) on\n"
    "                        DST, alone; repeatable\n"
    "  --tmpfs DST[:SIZE]    a fresh tmpfs; repeatable\n"
    "  --tmp-size SIZE       size of /tmp, /dev/shm, $HOME (default 256m)\n"
    "  --tmp-inodes N        inodes of each of them (default one per 4 KiB)\n"
    "  --hide DST            an empty, read-only directory over DST; repeatable\n"
    "  --ro-within PATH      PATH inside a writable mount read-only; repeatable\n"
    "  --writable PATH       PATH and beneath out of the files made read-only by\n"
    "                        default (git hooks and config, .bashrc...); repeatable\n"
    "  --protect PATH        PATH read-only with them; repeatable\n"
    "  --cow DIR             /work copy-on-write: the agent's changes go to the\n"
    "                        session directory DIR (the chain's account's, outside\n"
    "                        the view), the host's workspace untouched; review,\n"
    "                        commit or discard them with otodiff(1)\n"
    "  --cow-private, --cow-all   /private too; every writable tree (otomount(1))\n"
    "  --home DIR            $HOME in the view (default /home/agent)\n"
    "  --user-name NAME      the agent's name in the view's passwd (default agent)\n"
    "  --home-skel DIR       DIR's files copied into the fresh home at start (CLI\n"
    "                        settings, .gitconfig; not credentials: --grant)\n"
    " credentials (otosecret, otogate):\n"
    "  --secret NAME[:HOW]   inject credential NAME (HOW: env, env=VAR, file=PATH,\n"
    "                        fd=N); repeatable; needs --store and --key-file\n"
    "  --grant NAME=https://HOST[:PORT][,header=H][,allow=METHOD:PREFIX]...\n"
    "                        credential NAME stays outside (otogate), put in\n"
    "                        header H only (default Authorization and\n"
    "                        x-api-key), on the requests allow= serves only (a\n"
    "                        method or *, a path prefix; otogate(1)): the agent\n"
    "                        gets a phantom in NAME and the gateway's address in\n"
    "                        NAME_URL; repeatable; needs --store and --key-file,\n"
    "                        and the network. ,transparent: CMD reaches HOST by\n"
    "                        its name over TLS (git, npm, pip): the gateway's\n"
    "                        session CA is trusted in the view\n"
    "  --ca-file FILE        a private or corporate CA: every tool in the view\n"
    "                        trusts it too (the view's bundle is the host's and\n"
    "                        FILE's certificates; SSL_CERT_FILE... name it; a\n"
    "                        private key in FILE refuses it);\n"
    "                        with --grant, otogate verifies upstreams with FILE\n"
    "  --login ENTRY=PROFILE a CLI's subscription login kept outside (otogate):\n"
    "                        store entry ENTRY (otosecret import), PROFILE\n"
    "                        claude, codex, gemini or a profile file; the home\n"
    "                        gets the login file with phantoms, the gateway puts\n"
    "                        the real access token in on the way to the\n"
    "                        profile's hosts; never asked by --mode; repeatable;\n"
    "                        needs --store and --key-file, and the network\n"
    "  --store FILE          the sealed store (opened as fd 8; as fd 5 for otogate)\n"
    "  --key-file FILE       its key, mode 0600 or less (opened as fd 9; fd 6)\n"
    " the agent's process (otoexec):\n"
    "  --profile P           seccomp profile: default; dev (the default, plus\n"
    "                        ptrace and perf of the agent's own processes, for\n"
    "                        debuggers, tracers and sanitizers); or a file opened\n"
    "                        here before the view exists (passed as fd 7)\n"
    "  --env NAME=VALUE      a variable for CMD; repeatable\n"
    "  --env-keep NAME       pass NAME from this environment; repeatable\n"
    "  --rlimit NAME=SOFT[:HARD]  a resource limit; repeatable (nproc: 4096 unless set)\n"
    "  --landlock-ro PATH, --landlock-rw PATH, --landlock-strict   Landlock rules\n"
    "  --keep-cap CAP        keep capability CAP in the sandbox (e.g.\n"
    "                        net_bind_service); repeatable\n"
    "  --keep-fd N           leave otorun's fd N (10 or more) open for CMD; repeatable\n"
    "  --new-session         no controlling terminal (setsid); the default when\n"
    "                        stdin is not a terminal\n"
    "  --no-new-session      keep the terminal even when stdin is not one\n"
    " otorun itself:\n"
    "  --as USER[:GROUP]     when run by root: the unprivileged account to run as\n"
    "  --print               print the chain instead of running it\n"
    "  --verbose             every stage's --verbose\n"
    "  -h, --help            this text\n"
    "      --version         otorun's version\n"
    "\n"
    "With a terminal on stdin, stdout or stderr, the agent's terminal is a pty of\n"
    "its own, relayed by otons: it holds no descriptor of otorun's.\n"
    "Exit: CMD's own code, or the code of the stage that stopped the chain\n"
    "(100 usage, 101 input rejected, 111 system error, 126/127 exec).\n"
    "Not passed, each refused with its reason: otons --share, --no-proc;\n"
    "otosecret --store-fd, --key-fd, --use, --out, --name, --profile-file;\n"
    "otoexec --profile-fd, --bpf-fd, --explain, --print-bpf, --print-profile,\n"
    "--uid, --gid; otogate --store-fd, --key-fd (otorun opens the files, or\n"
    "composes the chain).\n";

/*
 * The one-line error, after at ("FILE:LINE: " while a config file is read,
 * else ""), on stderr. It returns, so that each caller ends its va_list
 * before it exits: va_end is owed even on the way out.
 */
static void say_at(const char *at, const char *fmt, va_list ap)
{
	struct strbuf b = { 0 };
	char *msg = NULL;
	ssize_t w;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	strbuf_str(&b, "otorun: fatal: ");
	strbuf_str(&b, at);
	strbuf_str(&b, msg);
	strbuf_add(&b, "\n", 1);
	if (!b.oom)
		do
			w = write(2, b.p, b.n);
		while (w < 0 && errno == EINTR);
}

void xotorun_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_at("", fmt, ap);
	va_end(ap);
	_exit(code);
}

static noreturn void xconfig_die(const char *at, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void xconfig_die(const char *at, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_at(at, fmt, ap);
	va_end(ap);
	_exit(code);
}

/* One option's effect, or its one-line error after at. */
static void xopt(struct otorun_opts *o, const char *at, const char *name, const char *val)
{
	char *err;

	if (opt_apply(o, name, val, &err) < 0) {
		if (!err)
			xconfig_die(at, EXIT_SYS, "unable to parse %s: out of memory", name);
		xconfig_die(at, EXIT_USAGE, "%s", err);
	}
}

static char *xshown(const char *s)
{
	char *r = shown(s);

	if (!r)
		xotorun_die(EXIT_SYS, "unable to allocate: out of memory");
	return r;
}

/* The whole file, NUL-terminated; its length in *len. NULL with errno. */
static char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	char *b = fd < 0 ? NULL : fd_read_whole(fd, SIZE_MAX, len);

	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return b;
}

/* " #" or a tab and # in a value: a comment, to its writer. */
static int comment_after(const char *v)
{
	for (const char *p = v; *p; p++)
		if ((*p == ' ' || *p == '\t') && p[1] == '#')
			return 1;
	return 0;
}

static int blank_end(const char *v)
{
	size_t n = strlen(v);

	return n && (v[n - 1] == ' ' || v[n - 1] == '\t');
}

/*
 * The config file's options, one a line ("--OPTION VALUE": the value is the
 * rest of the line, as it is, spaces and quotes included; "--OPTION" for a
 * flag). Blank lines and lines starting with # are skipped; a value with a
 * " #" in it or blanks at its end is refused. An error names FILE:LINE. The
 * command line's options come after the file's.
 */
static void xread_config(struct otorun_opts *o, const char *path)
{
	struct stat st;
	size_t len, line = 0;
	char *buf, *p, *end, *at;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, R_OK) < 0 ||
	    !(buf = read_file(path, &len)))
		xotorun_die(EXIT_SYS, "unable to read config %s", xshown(path));
	for (p = buf, end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *text, *name, *val;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int has;

		line++;
		if (asprintf(&at, "%s:%zu: ", path, line) < 0)
			xotorun_die(EXIT_SYS, "unable to read config: out of memory");
		switch (config_line(p, n, &text, &name, &val, &has)) {
		case -1:
			xconfig_die(at, EXIT_SYS, "unable to read config: out of memory");
		case 0:
			break;
		default:
			if (!strcmp(name, "--config"))
				xconfig_die(at, EXIT_USAGE,
					    "--config in a config file: one file only");
			if (!strcmp(name, "--print") || !strcmp(name, "--help") ||
			    !strcmp(name, "--version") || !strcmp(name, "--"))
				xconfig_die(at, EXIT_USAGE, "%s belongs on the command line", name);
			if (strncmp(name, "--", 2))
				xconfig_die(at, EXIT_USAGE, "expected --OPTION [VALUE], found %s",
					    xshown(text));
			if (takes_value(name)) {
				if (!has)
					xconfig_die(at, EXIT_USAGE, "option %s needs a value",
						    name);
				/*
				 * A value runs to the end of its line: what looks like a
				 * comment after it, or blanks a reader cannot see, would be
				 * taken as part of it (--hide /work/secrets # keep out hid
				 * "/work/secrets # keep out").
				 */
				if (comment_after(val))
					xconfig_die(
					    at, EXIT_USAGE,
					    "%s %s: a comment after a value is not allowed (the "
					    "value runs to the end of the line: put the comment "
					    "on a line of its own)",
					    name, xshown(val));
				if (blank_end(val))
					xconfig_die(
					    at, EXIT_USAGE,
					    "%s %s: blanks at the end of the line (the value "
					    "runs to the end of the line: remove them)",
					    name, xshown(val));
				xopt(o, at, name, val);
			} else if (!is_flag(name)) {
				xconfig_die(at, EXIT_USAGE, "unknown option %s", xshown(name));
			} else {
				if (has)
					xconfig_die(at, EXIT_USAGE, "option %s takes no value",
						    name);
				xopt(o, at, name, NULL);
			}
			break;
		}
		free(at);
		if (!nl)
			break;
		p = nl + 1;
	}
}

void xotorun_parse(struct otorun_opts *o, int argc, char **argv)
{
	const char *prev = "";
	int i, skip = 0;

	opts_init(o);
	/* The config file first, wherever --config stands among the options:
	 * the options of the command line then override or add to the file's. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (skip) {
			skip = 0;
			if (!strcmp(prev, "--config")) {
				if (*o->config)
					xotorun_die(EXIT_USAGE, "--config given twice");
				o->config = a;
			}
			continue;
		}
		if (!strcmp(a, "--") || a[0] != '-')
			break;
		prev = a;
		skip = takes_value(a);
	}
	if (skip)
		xotorun_die(EXIT_USAGE, "option %s needs an argument (see --help)", prev);
	if (*o->config)
		xread_config(o, o->config);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(USAGE, stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			version_print();
			exit(0);
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--config")) {
			i++;
		} else if (!strncmp(a, "--", 2)) {
			if (takes_value(a)) {
				if (i + 1 >= argc)
					xotorun_die(EXIT_USAGE,
						    "option %s needs an argument (see --help)", a);
				xopt(o, "", a, argv[i + 1]);
				i++;
			} else {
				xopt(o, "", a, NULL);
			}
		} else if (a[0] == '-') {
			xotorun_die(EXIT_USAGE, "unknown option %s (see --help)", xshown(a));
		} else {
			break;
		}
	}
	o->cmd = argv + (i < argc ? i : argc);
}
