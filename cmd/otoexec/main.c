/* SPDX-License-Identifier: ISC */
/*
 * otoexec: the last stage. Drop every privilege, apply a seccomp profile, and
 * exec the agent.
 *
 * Consumes: argv up to "--"; a profile file (--profile) or fd (--profile-fd,
 * closed), or a compiled filter set on an fd (--bpf-fd, closed); OTO_VIEW
 * (set by otomount: paths name the view; a profile file is then refused);
 * OTO_PTY (set by otons: the socket on which the master of the agent's pty
 * goes to otons, closed; tty.c); OTO_STATUS_FD (reported to on failure,
 * closed by the final execve).
 * Passes on: the rest of argv, exec'd in this process with a clean
 * environment; fds 0, 1, 2 (the pty's slave where otons said) and those
 * --keep-fd names, nothing else.
 * Exits: 100 usage, 101 bad profile, 111 a system call failed, 126/127 exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otoexec.h"

#define PROFILE_MAX (1 << 20)

/* The text of the profile on fd (name: for messages), at most 1 MiB. */
static char *read_profile(int fd, const char *name, size_t *len)
{
	char *buf = malloc(PROFILE_MAX);
	ssize_t n;

	if (!buf)
		die(EXIT_SYS, ENOMEM, "unable to read the profile %s", name);
	n = fd_read_all(fd, buf, PROFILE_MAX);
	if (n < 0 && errno == EFBIG)
		die(EXIT_REJECT, 0, "profile %s: larger than 1 MiB", name);
	if (n < 0)
		die(EXIT_REJECT, errno, "unable to read the profile %s", name);
	close(fd);
	*len = (size_t)n;
	return buf;
}

/* The text of a built-in profile, or NULL when name is none. */
static char *profile_builtin(const char *name, size_t *len)
{
	char *t;

	if (!profile_is_builtin(name))
		return NULL;
	if (!(t = profile_builtin_text(name, len)))
		die(EXIT_SYS, errno, "unable to load the built-in profile %s", name);
	return t;
}

static void load_profile(const struct otoexec_opts *o, struct profile *p)
{
	struct prof_error e;
	const char *text, *name = o->profile;
	size_t len;
	char *buf, fdname[32];

	if (o->profile_fd >= 0) {
		snprintf(fdname, sizeof(fdname), "fd %d", o->profile_fd);
		name = fdname;
		text = buf = read_profile(o->profile_fd, name, &len);
	} else if ((buf = profile_builtin(name, &len))) {
		text = buf;
	} else {
		int fd = open(name, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(EXIT_REJECT, errno, "unable to open the profile %s", name);
		text = buf = read_profile(fd, name, &len);
	}
	if (profile_parse(text, len, p, &e) < 0) {
		if (e.line == 0)
			die(EXIT_SYS, errno, "unable to parse the profile %s", name);
		die(EXIT_REJECT, 0, "%s:%d: %s", name, e.line, e.msg);
	}
	free(buf);
}

/* The filter set the profile compiles to, at run time, as mode says. */
static unsigned char *compile_profile(const struct otoexec_opts *o, const struct filter_mode *mode,
				      size_t *len)
{
	struct profile prof;
	unsigned char *b;

	load_profile(o, &prof);
	if (filter_compile(&prof, mode, &b, len) < 0)
		die(EXIT_SYS, errno, "unable to compile the profile %s", o->profile);
	profile_free(&prof);
	return b;
}

/*
 * The filter set to load, checked (bpf.c), into s; its bytes in *bytes, *len.
 * A built-in profile's set was compiled by the build, for the build's
 * architecture: on another one (a binary run under emulation, say) the
 * profile's text is compiled here instead, with a warning, rather than loading
 * a program that would kill the agent at its first call.
 */
static void load_filters(const struct otoexec_opts *o, struct bpf_set *s,
			 const unsigned char **bytes, size_t *len, int notify)
{
	const struct filter_mode mode = { .notify = notify };
	enum bpf_set_err e;
	unsigned char *b;

	if (o->bpf_fd >= 0 && notify)
		warnx("--bpf-fd %d: a compiled filter set notifies nothing: the refusal log "
		      "(otons --log-fd) stays empty",
		      o->bpf_fd);
	if (o->bpf_fd >= 0) {
		ssize_t n;

		if (!(b = malloc(BPF_SET_MAX_BYTES)))
			die(EXIT_SYS, ENOMEM, "unable to read the filter set on fd %d", o->bpf_fd);
		n = fd_read_all(o->bpf_fd, b, BPF_SET_MAX_BYTES);
		if (n < 0 && errno == EFBIG)
			die(EXIT_REJECT, 0, "--bpf-fd %d: larger than %d bytes", o->bpf_fd,
			    BPF_SET_MAX_BYTES);
		if (n < 0)
			die(EXIT_REJECT, errno, "unable to read the filter set on fd %d",
			    o->bpf_fd);
		close(o->bpf_fd);
		e = bpf_set_parse(b, (size_t)n, filter_arch(), s);
		if (e == BPF_SET_ARCH)
			die(EXIT_REJECT, 0,
			    "--bpf-fd %d: compiled for architecture 0x%x, this otoexec's is 0x%x",
			    o->bpf_fd, (unsigned int)s->arch, (unsigned int)filter_arch());
		if (e != BPF_SET_OK)
			die(EXIT_REJECT, 0, "--bpf-fd %d: %s", o->bpf_fd, bpf_set_strerror(e));
		*bytes = b;
		*len = (size_t)n;
		return;
	}
	/*
	 * The refusal log (otons --log-fd, opt-in): the profile's EPERM
	 * refusals are notifications, in the build's second set of a built-in
	 * profile, or as a file is compiled here.
	 */
	if (o->profile_fd < 0 && profile_is_builtin(o->profile)) {
		int dev = !strcmp(o->profile, "dev");
		/* OTO_TEST_BPF_FOREIGN: the built-in sets taken as another machine's. */
		uint32_t arch = filter_arch() ^ (o->test_foreign ? 0x1U : 0);

		if (notify) {
			*bytes = dev ? OTOEXEC_DEV_NOTIFY_BPF : OTOEXEC_DEFAULT_NOTIFY_BPF;
			*len = dev ? OTOEXEC_DEV_NOTIFY_BPF_LEN : OTOEXEC_DEFAULT_NOTIFY_BPF_LEN;
		} else {
			*bytes = dev ? OTOEXEC_DEV_BPF : OTOEXEC_DEFAULT_BPF;
			*len = dev ? OTOEXEC_DEV_BPF_LEN : OTOEXEC_DEFAULT_BPF_LEN;
		}
		e = bpf_set_parse(*bytes, *len, arch, s);
		if (e == BPF_SET_OK)
			return;
		if (e != BPF_SET_ARCH)
			die(EXIT_SYS, 0, "the built-in filter set of %s is damaged: %s", o->profile,
			    bpf_set_strerror(e));
		warnx("the built-in filters of %s were compiled for architecture 0x%x, this "
		      "machine's is 0x%x: compiling the profile",
		      o->profile, (unsigned int)s->arch, (unsigned int)arch);
	}
	*bytes = b = compile_profile(o, &mode, len);
	e = bpf_set_parse(b, *len, filter_arch(), s);
	if (e != BPF_SET_OK)
		die(EXIT_SYS, 0, "unable to compile the profile %s: %s", o->profile,
		    bpf_set_strerror(e));
}

int main(int argc, char **argv)
{
	struct otoexec_opts o;
	struct bpf_set filters;
	const unsigned char *bytes;
	size_t len;
	char **env;
	int pty, refusals;

	log_init(argv[0]);
	xotoexec_parse(&o, argc, argv);
	/* The switch for tests (otoexec(1)), checked with the options. */
	o.test_foreign = (int)xtest_switch("OTO_TEST_BPF_FOREIGN", 0, 0, 1,
					   "the built-in filter sets are taken as compiled "
					   "for another architecture");
	if (o.print_profile) {
		char *t = profile_builtin(o.print_profile, &len);

		fputs(t, stdout);
		return fflush(stdout) ? EXIT_SYS : 0;
	}

	/*
	 * 0. The filters are ready before anything changes: a bad profile or
	 *    filter set is exit 101. After otomount every path names the view,
	 *    where the agent writes (the working directory is its workspace): a
	 *    profile there would be one the agent chose. It must come as an fd
	 *    opened before. A built-in profile was compiled by the build (the
	 *    launch does not pay libseccomp's compile); a file, at run time.
	 */
	if (getenv("OTO_VIEW") && !profile_is_builtin(o.profile))
		die_usage("--profile %s: a path in the agent's view names a file the agent may "
			  "have written; open it before the view and pass --profile-fd N "
			  "(otorun --profile does)",
			  o.profile);
	unsetenv("OTO_VIEW");
	if (o.explain) {
		/* The profile as loaded without a refusal log. */
		const struct filter_mode mode = { 0 };
		struct profile prof;

		load_profile(&o, &prof);
		if (filter_explain(&prof, &mode, STDOUT_FILENO) < 0)
			die(EXIT_SYS, errno, "unable to compile the profile");
		return 0;
	}
	load_filters(&o, &filters, &bytes, &len, getenv("OTO_REFUSALS") != NULL);
	if (o.print_bpf) {
		if (fwrite(bytes, 1, len, stdout) != len || fflush(stdout))
			die(EXIT_SYS, errno, "unable to write the filter set");
		return 0;
	}
	env = xsb_build_env(&o);

	/*
	 * 1. The agent's pty, when otons offers one: made from the view's
	 *    /dev/ptmx, its master sent to otons, its slave the controlling
	 *    terminal of a new session and the stdio otons named (tty.c). First:
	 *    the socket is an inherited fd, /dev/ptmx a path Landlock may hide.
	 */
	pty = xsb_pty();
	/* The socket for the refusal log's listener (otons --log-fd), kept for step 8. */
	refusals = xsb_refusals();

	/* 2. Close every inherited fd above 2 that --keep-fd does not name, first,
	 *    so that no later step can hand one on by accident. */
	xsb_close_fds(&o, status_fd_parse(getenv("OTO_STATUS_FD")), refusals);

	/* 3. Resource limits: raising a hard limit needs CAP_SYS_RESOURCE, still held. */
	xsb_rlimits(&o);

	/* A session of its own: with a pty, the agent has one already. */
	if (o.new_session && !pty && setsid() < 0)
		die(EXIT_SYS, errno, "unable to start a new session");

	/* 4. Landlock: opening the rule paths may need the current ids' access. */
	xsb_landlock(&o, refusals);

	/* 5. uid/gid: needs CAP_SETUID/CAP_SETGID, so before the capabilities go. */
	xsb_switch_ids(&o);

	/* 6. Capabilities: bounding, ambient, securebits, then the process sets. */
	xsb_drop_caps(&o);

	/* 7. no_new_privs: execve can never again grant privileges (setuid bits,
	 *    file capabilities), and an unprivileged process may load a filter. */
	xsb_no_new_privs();

	/*
	 * 8. seccomp, last: the filter need not allow any of the steps above.
	 *    With a refusal log, its listener goes to otons' supervisor now,
	 *    before the agent runs (a notified call waits for its answer).
	 */
	if (filter_load(&filters, refusals) < 0)
		die(EXIT_SYS, errno, "unable to load the seccomp filter");

	/* 9. execve, with the clean environment; the status fd closes here. */
	xsb_exec(o.argv, env);
}
