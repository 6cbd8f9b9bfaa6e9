/* SPDX-License-Identifier: ISC */
/* The steps of otoexec that change the process, in the order main calls them. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otoexec.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule	    445
#define SYS_landlock_restrict_self  446
#endif
#define LL_TRUNCATE  (1ULL << 14) /* ABI 3 */
#define LL_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_RO                                                                                      \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* The rights that make sense on a file (the rest apply to directories). */
#define LL_FILE                                                                                    \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                              \
	 LANDLOCK_ACCESS_FS_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

void xsb_close_fds(const struct otoexec_opts *o, int status_fd, int refusals)
{
	int keep[MAX_KEEP + 2];
	size_t n = 0;

	for (size_t i = 0; i < o->nkeep_fd; i++) {
		if (!fd_open(o->keep_fd[i]))
			die_usage("--keep-fd %d: not an open fd", o->keep_fd[i]);
		keep[n++] = o->keep_fd[i];
	}
	/*
	 * The status fd stays open until the final execve (close-on-exec), so a
	 * failure in a later step can still be reported on it; the launcher then
	 * reads EOF exactly when the agent starts.
	 */
	if (status_fd >= 0 && fd_open(status_fd)) {
		keep[n++] = status_fd;
		if (fd_cloexec(status_fd, 1) < 0)
			die(EXIT_SYS, errno, "unable to mark the status fd close-on-exec");
	}
	/* The refusal socket until the filter is loaded (close-on-exec, xsb_refusals). */
	if (refusals >= 0)
		keep[n++] = refusals;
	if (fd_close_from(3, keep, n) < 0)
		die(EXIT_SYS, errno, "unable to close inherited fds");
	for (size_t i = 0; i < o->nkeep_fd; i++)
		if (fd_cloexec(o->keep_fd[i], 0) < 0)
			die(EXIT_SYS, errno, "unable to pass fd %d on", o->keep_fd[i]);
}

void xsb_rlimits(const struct otoexec_opts *o)
{
	int core_set = 0, nproc_set = 0;
	struct rlimit r;

	for (size_t i = 0; i < o->nrlim; i++) {
		r = (struct rlimit){ .rlim_cur = o->rlim[i].soft, .rlim_max = o->rlim[i].hard };
		if (o->rlim[i].resource == RLIMIT_CORE)
			core_set = 1;
		if (o->rlim[i].resource == RLIMIT_NPROC)
			nproc_set = 1;
		if (setrlimit(o->rlim[i].resource, &r) < 0)
			die(EXIT_SYS, errno, "unable to set the %s limit (--rlimit)",
			    rlimit_name(o->rlim[i].resource));
	}
	/* No core dumps unless asked: a core holds whatever secrets the agent read. */
	if (!core_set) {
		r = (struct rlimit){ 0, 0 };
		if (setrlimit(RLIMIT_CORE, &r) < 0)
			die(EXIT_SYS, errno, "unable to set the core limit to 0");
	}
	/*
	 * No fork bomb takes the host's pids: without --rlimit nproc, at most
	 * OTOEXEC_NPROC processes and threads (the kernel counts them for the
	 * agent's uid in the sandbox's user namespace), or fewer if the caller
	 * had fewer. The caller's limit is often above pid_max (the account's
	 * default is derived from memory).
	 */
	if (!nproc_set && getrlimit(RLIMIT_NPROC, &r) == 0) {
		if (r.rlim_max > OTOEXEC_NPROC)
			r.rlim_max = OTOEXEC_NPROC;
		if (r.rlim_cur > r.rlim_max)
			r.rlim_cur = r.rlim_max;
		if (setrlimit(RLIMIT_NPROC, &r) < 0)
			die(EXIT_SYS, errno, "unable to set the process limit to %u",
			    OTOEXEC_NPROC);
	}
}

static int ll_add(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = { 0 };
	struct stat st;
	int rc, e;

	/* O_PATH: a rule needs no read permission on the path itself. */
	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return -1;
	if (fstat(pb.parent_fd, &st) < 0) {
		e = errno;
		close(pb.parent_fd);
		errno = e;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE;
	pb.allowed_access = access & handled;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	e = errno;
	close(pb.parent_fd);
	errno = e;
	return rc;
}

/*
 * Why landlock_create_ruleset failed with err, and the fix. ENOSYS and
 * EOPNOTSUPP are the kernel's own answers (landlock(7)); anything else came
 * from something in between, as the chain's own seccomp profile would.
 */
static const char *ll_hint(int err)
{
	if (err == ENOSYS)
		return "this kernel has no Landlock: older than 5.13 or built without "
		       "CONFIG_SECURITY_LANDLOCK, or a container's seccomp filter hides it";
	if (err == EOPNOTSUPP)
		return "Landlock is built in but off: add landlock to the lsm= boot parameter or "
		       "to CONFIG_LSM";
	return "a seccomp filter before otoexec refuses landlock_create_ruleset";
}

/*
 * With otons' refusal log (OTO_REFUSALS), the refusals of the agent's
 * Landlock domain go to the kernel's audit, which otons' supervisor reads
 * (ABI 7, Linux 6.15: by default only the denials of the program that
 * enforced the domain are logged, and not those after its exec).
 */
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#endif
#define LL_ABI_LOG 7

void xsb_landlock(const struct otoexec_opts *o, int refusals)
{
	unsigned int flags = 0;
	struct landlock_ruleset_attr attr = { 0 };
	int abi, ruleset;
	uint64_t handled;
	char missing[160];

	if (!o->nll_ro && !o->nll_rw)
		return;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		int e = errno;

		if (o->ll_strict)
			die(EXIT_SYS, e, "Landlock is unavailable (hint: %s)", ll_hint(e));
		warnx("Landlock is unavailable (%s): continuing without it (--landlock-strict "
		      "refuses); hint: %s",
		      strerror(e), ll_hint(e));
		return;
	}
	/* Handle every right this kernel knows, so none is left unrestricted. */
	handled = landlock_handled(abi);
	if (landlock_unenforced(abi, missing, sizeof(missing))) {
		/* Truncate is the one --landlock-strict cannot do without. */
		if (o->ll_strict && !(handled & LL_TRUNCATE))
			die(EXIT_SYS, 0, "Landlock ABI %d cannot restrict %s (ABI 3 needed)", abi,
			    missing);
		warnx("Landlock ABI %d: %s not restricted; hint: a kernel >= 6.10 restricts them",
		      abi, missing);
	}
	attr.handled_access_fs = handled;
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		die(EXIT_SYS, errno, "unable to create a Landlock ruleset");
	for (size_t i = 0; i < o->nll_ro; i++)
		if (ll_add(ruleset, o->ll_ro[i], LL_RO, handled) < 0)
			die(EXIT_SYS, errno, "unable to add the Landlock rule --landlock-ro %s",
			    o->ll_ro[i]);
	for (size_t i = 0; i < o->nll_rw; i++)
		if (ll_add(ruleset, o->ll_rw[i], handled, handled) < 0)
			die(EXIT_SYS, errno, "unable to add the Landlock rule --landlock-rw %s",
			    o->ll_rw[i]);
	/*
	 * restrict_self needs no_new_privs (or CAP_SYS_ADMIN); it is set here,
	 * earlier than its own step, which only repeats it.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "unable to set no_new_privs for Landlock");
	if (refusals >= 0 && abi >= LL_ABI_LOG)
		flags = LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
	else if (refusals >= 0)
		warnx(
		    "Landlock ABI %d cannot log its refusals (ABI %d, Linux 6.15): they are not in "
		    "the refusal log",
		    abi, LL_ABI_LOG);
	if (syscall(SYS_landlock_restrict_self, ruleset, flags) < 0)
		die(EXIT_SYS, errno, "unable to enforce the Landlock ruleset");
	close(ruleset);
	/*
	 * Tell otons' supervisor that a domain logs, so that it can say why
	 * none of its refusals will reach the log when it cannot read the
	 * audit. A note only: the supervisor decides nothing from it.
	 */
	if (flags &&
	    send(refusals, OTO_LANDLOCK_NOTE, sizeof(OTO_LANDLOCK_NOTE) - 1, MSG_NOSIGNAL) < 0)
		die(EXIT_SYS, errno, "unable to tell otons that Landlock logs (OTO_REFUSALS)");
}

void xsb_switch_ids(const struct otoexec_opts *o)
{
	cap_t c;

	if (!o->have_uid && !o->have_gid)
		return;
	/* Keep the permitted set across setuid: the next step still needs CAP_SETPCAP. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "unable to set keep-caps");
	if (o->have_gid) {
		/* Denied in a user namespace with setgroups "deny": nothing to drop then. */
		if (setgroups(0, NULL) < 0 && errno != EPERM)
			die(EXIT_SYS, errno, "unable to clear supplementary groups");
		if (setresgid(o->gid, o->gid, o->gid) < 0)
			die(EXIT_SYS, errno, "unable to switch to gid %u (is it mapped?)", o->gid);
	}
	if (o->have_uid && setresuid(o->uid, o->uid, o->uid) < 0)
		die(EXIT_SYS, errno, "unable to switch to uid %u (is it mapped?)", o->uid);
	/* setuid cleared the effective set: raise it back from permitted for the next step. */
	c = cap_get_proc();
	if (!c)
		die(EXIT_SYS, errno, "unable to read capabilities after the id switch");
	for (cap_value_t v = 0; v <= CAP_LAST_CAP && v < (cap_value_t)cap_max_bits(); v++) {
		cap_flag_value_t f;

		if (cap_get_flag(c, v, CAP_PERMITTED, &f) == 0 && f == CAP_SET)
			cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);
	}
	if (cap_set_proc(c) < 0)
		die(EXIT_SYS, errno, "unable to raise effective capabilities");
	cap_free(c);
}

static int kept_cap(const struct otoexec_opts *o, cap_value_t v)
{
	for (size_t i = 0; i < o->nkeep_cap; i++)
		if (o->keep_cap[i] == v)
			return 1;
	return 0;
}

void xsb_drop_caps(const struct otoexec_opts *o)
{
	cap_t cur = cap_get_proc(), want = cap_init();
	cap_value_t last = (cap_value_t)cap_max_bits(), setpcap = CAP_SETPCAP;
	cap_flag_value_t f = CAP_CLEAR;
	int have_setpcap;

	if (!cur || !want)
		die(EXIT_SYS, errno, "unable to read capabilities to drop them");
	cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &f);
	have_setpcap = f == CAP_SET;
	for (size_t i = 0; i < o->nkeep_cap; i++) {
		cap_value_t v = o->keep_cap[i];

		if (cap_get_flag(cur, v, CAP_PERMITTED, &f) < 0 || f != CAP_SET)
			die(EXIT_SYS, EPERM, "--keep-cap %s: not held, cannot be kept",
			    cap_to_name(v));
		cap_set_flag(want, CAP_PERMITTED, 1, &v, CAP_SET);
		cap_set_flag(want, CAP_INHERITABLE, 1, &v, CAP_SET);
		cap_set_flag(want, CAP_EFFECTIVE, 1, &v, CAP_SET);
	}
	/*
	 * 1. The bounding set, first, while CAP_SETPCAP is still effective: what
	 *    is not in it can never come back, not even from a file capability.
	 *    Without CAP_SETPCAP (a plain user on the host) it cannot change, and
	 *    the empty permitted set plus no_new_privs leave nothing to gain.
	 */
	if (have_setpcap)
		for (cap_value_t v = 0; v < last; v++)
			if (!kept_cap(o, v) && cap_drop_bound(v) < 0)
				die(EXIT_SYS, errno,
				    "unable to drop capability %d from the bounding set", (int)v);
	/*
	 * 2. Ambient: cleared (otons made every capability ambient), then the
	 *    kept ones raised, which needs them permitted and inheritable, and
	 *    CAP_SETPCAP kept effective for step 3.
	 */
	{
		cap_t tmp = cap_dup(want);

		if (!tmp ||
		    (have_setpcap &&
		     (cap_set_flag(tmp, CAP_EFFECTIVE, 1, &setpcap, CAP_SET) < 0 ||
		      cap_set_flag(tmp, CAP_PERMITTED, 1, &setpcap, CAP_SET) < 0)) ||
		    cap_set_proc(tmp) < 0)
			die(EXIT_SYS, errno, "unable to reduce capabilities");
		cap_free(tmp);
	}
	/* One call (libcap's cap_reset_ambient asks about each capability first). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		die(EXIT_SYS, errno, "unable to clear ambient capabilities");
	for (size_t i = 0; i < o->nkeep_cap; i++)
		if (cap_set_ambient(o->keep_cap[i], CAP_SET) < 0)
			die(EXIT_SYS, errno, "unable to keep %s ambient",
			    cap_to_name(o->keep_cap[i]));
	/*
	 * 3. Securebits, locked: uid 0 gets no capabilities from execve
	 *    (NOROOT), a uid change does not adjust them (NO_SETUID_FIXUP),
	 *    KEEP_CAPS off, and no new ambient capability can be raised.
	 */
	if (have_setpcap) {
		unsigned bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
				SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
				SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

		if (cap_set_secbits(bits) < 0)
			die(EXIT_SYS, errno, "unable to lock the securebits");
	} else if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 && errno != EPERM) {
		die(EXIT_SYS, errno, "unable to clear keep-caps");
	}
	/* 4. Permitted, inheritable, effective: only what --keep-cap named. */
	if (cap_set_proc(want) < 0)
		die(EXIT_SYS, errno, "unable to drop capabilities");
	cap_free(cur);
	cap_free(want);
}

void xsb_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "unable to set no_new_privs");
}

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static int env_keep_default(const char *entry)
{
	/* OTO_WHY: otomount's, the path of the agent's file of its refusals. */
	static const char *const KEEP[] = { "HOME=", "TERM=",	 "LANG=",   "TZ=",
					    "USER=", "LOGNAME=", "OTO_WHY=" };

	if (!strncmp(entry, "LC_", 3))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(KEEP); i++)
		if (!strncmp(entry, KEEP[i], strlen(KEEP[i])))
			return 1;
	return 0;
}

static int env_named(const struct otoexec_opts *o, const char *entry)
{
	for (size_t i = 0; i < o->nenv_keep; i++) {
		size_t l = strlen(o->env_keep[i]);

		if (!strncmp(entry, o->env_keep[i], l) && entry[l] == '=')
			return 1;
	}
	return 0;
}

static void env_put(char **env, size_t *n, const char *entry)
{
	size_t l = strcspn(entry, "=") + 1;

	for (size_t i = 0; i < *n; i++)
		if (!strncmp(env[i], entry, l)) {
			env[i] = (char *)entry;
			return;
		}
	env[(*n)++] = (char *)entry;
}

char **xsb_build_env(const struct otoexec_opts *o)
{
	size_t max = 2 + o->nenv_set, n = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		max++;
	env = calloc(max, sizeof(*env));
	if (!env)
		die(EXIT_SYS, ENOMEM, "unable to build the environment");
	env[n++] = (char *)"PATH=" DEFAULT_PATH;
	/*
	 * An allowlist, never the launcher's whole environment; the names the
	 * loader acts on were refused when parsing the options. The value of LC_*
	 * and the others is the user's locale, harmless.
	 */
	for (char **e = environ; e && *e; e++)
		if (strchr(*e, '=') && (env_keep_default(*e) || env_named(o, *e)) &&
		    strncmp(*e, "LD_", 3))
			env_put(env, &n, *e);
	for (size_t i = 0; i < o->nenv_set; i++)
		env_put(env, &n, o->env_set[i]);
	env[n] = NULL;
	return env;
}

/* execvp, but searching the agent's PATH (in envp), not otoexec's. */
void xsb_exec(char **argv, char **envp)
{
	const char *path = DEFAULT_PATH, *p;
	char buf[4096];
	int err = ENOENT;

	for (char **e = envp; *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			path = *e + 5;
	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, envp);
		xexec_fail(argv[0], errno, path);
	}
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int l = (int)(end - p);

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", l, p, l ? "/" : "", argv[0]) <
		    (int)sizeof(buf)) {
			execve(buf, argv, envp);
			/* Like execvp: a file found but not executable wins over not found. */
			if (errno != ENOENT && errno != ENOTDIR)
				err = errno;
		}
		if (!*end)
			break;
		p = end;
	}
	xexec_fail(argv[0], err, path);
}
