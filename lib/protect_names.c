/* SPDX-License-Identifier: ISC */
/*
 * The files the host runs later (otomount(1), PROTECTED FILES): what
 * otomount makes read-only in every writable tree, and what otodiff flags
 * in a copy-on-write session's changes. Pure.
 */
#include <string.h>

#include "oto.h"

/*
 * At each writable tree's top: what a shell reads when the tree is a home
 * or is sourced (bash, sh, zsh), what runs on entering the directory
 * (.envrc, direnv), what an editor or agent runs from the folder it opens
 * (.vscode tasks and settings, .idea run configurations, .devcontainer's
 * initializeCommand on the host, .mcp.json's MCP servers, .claude's hooks
 * and commands), and git's and ripgrep's per-user configuration read from
 * a home (.gitconfig: core.fsmonitor, aliases; .ripgreprc: --pre).
 */
const char *const protect_start[] = {
	".bashrc", ".bash_profile", ".bash_logout", ".bash_login", ".profile",
	".zshrc",  ".zshenv",	    ".zprofile",    ".zlogin",	   ".zlogout",
	".envrc",  ".gitconfig",    ".ripgreprc",   ".mcp.json",   ".vscode",
	".idea",   ".devcontainer", ".claude",	    NULL,
};

/*
 * In a git directory: what git runs (hooks), or reads to decide what to run
 * or where to find the rest of the repository: its config, commondir (git
 * reads it in every git directory and takes config and hooks from the
 * directory it names), gitdir, the alternates (objects of another
 * directory), and a rebase's or cherry-pick's state (a todo list holds
 * exec lines).
 */
const char *const protect_gitdir[] = {
	"hooks",
	"info",
	"config",
	"config.worktree",
	"commondir",
	"gitdir",
	"objects/info/alternates",
	"objects/info/http-alternates",
	"rebase-merge",
	"rebase-apply",
	"sequencer",
	NULL,
};

/*
 * In a git directory, what git only stores: its objects, refs and logs, the
 * index, HEAD and the other *_HEAD files, and the messages it shows. All
 * else there is flagged by otodiff.
 */
const char *const protect_store[] = {
	"objects",     "refs",		 "logs",	"index", "HEAD",
	"packed-refs", "COMMIT_EDITMSG", "description", NULL,
};

/*
 * At a repository's top (beside .git): the hook managers' files that the
 * hooks installed in .git/hooks read and run (husky's .husky, pre-commit's
 * and lefthook's configurations).
 */
const char *const protect_worktop[] = {
	".husky",
	".pre-commit-config.yaml",
	"lefthook.yml",
	".lefthook.yml",
	"lefthook.yaml",
	".lefthook.yaml",
	"lefthook-local.yml",
	".lefthook-local.yml",
	".lefthook",
	NULL,
};

static int in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !memcmp(*l, s, n))
			return 1;
	return 0;
}

static size_t comp_len(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash ? (size_t)(slash - s) : strlen(s);
}

/* p is the path pre, or beneath it. */
static int at_or_under(const char *p, const char *pre)
{
	size_t n = strlen(pre);

	return !strncmp(p, pre, n) && (p[n] == 0 || p[n] == '/');
}

/* g, a path inside a git directory ("" for the directory itself): 1 unless git only stores it. */
static int gitdir_runs(const char *g, unsigned depth)
{
	size_t n;
	const char *rest;

	while (*g == '/')
		g++;
	if (!*g)
		return 1;
	n = comp_len(g);
	rest = g[n] ? g + n + 1 : g + n;
	if (n == 7 && !memcmp(g, "objects", 7))
		return at_or_under(g, "objects/info/alternates") ||
		       at_or_under(g, "objects/info/http-alternates");
	if (in_list(protect_store, g, n))
		return 0;
	if (!*rest && n > 5 && !memcmp(g + n - 5, "_HEAD", 5))
		return 0;
	/* A submodule's or a linked worktree's git directory: NAME/, judged the same way. */
	if (((n == 7 && !memcmp(g, "modules", 7)) || (n == 9 && !memcmp(g, "worktrees", 9))) &&
	    *rest && depth < 64) {
		size_t m = comp_len(rest);

		return rest[m] ? gitdir_runs(rest + m + 1, depth + 1) : 1;
	}
	return 1;
}

int protect_runs_later(const char *rel)
{
	const char *c = rel, *next;
	int first = 1;

	while (*c == '/')
		c++;
	for (; *c; c = next, first = 0) {
		size_t n = comp_len(c);

		next = c[n] ? c + n + 1 : c + n;
		if (first && in_list(protect_start, c, n))
			return 1;
		if (in_list(protect_worktop, c, n))
			return 1;
		/* A .git file (a gitdir: pointer), or a .git directory and what it holds. */
		if (n == 4 && !memcmp(c, ".git", 4))
			return gitdir_runs(next, 0);
	}
	return 0;
}

const char *protect_why(const char *name)
{
	static const struct {
		const char *name, *why;
	} WHY[] = {
		{ "hooks", "git runs the hooks in it" },
		{ "info", "git takes attributes from it that choose the config's filters" },
		{ "config", "git runs the commands it names (core.fsmonitor, aliases, filters)" },
		{ "config.worktree",
		  "git runs the commands it names (core.fsmonitor, aliases, filters)" },
		{ "commondir", "git takes config and hooks from the directory it names" },
		{ "gitdir", "git takes config and hooks from the directory it names" },
		{ "objects/info/alternates", "git takes objects from the directories it names" },
		{ "objects/info/http-alternates", "git takes objects from the places it names" },
		{ "rebase-merge", "git --continue runs its todo list's exec lines" },
		{ "rebase-apply", "git --continue runs its todo list's exec lines" },
		{ "sequencer", "git --continue runs its todo list's exec lines" },
		{ "worktrees", "a linked worktree's git directory, with a commondir of its own" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(WHY); i++)
		if (!strcmp(WHY[i].name, name))
			return WHY[i].why;
	return in_list(protect_worktop, name, strlen(name))
		   ? "the hooks a hook manager installed run what it says"
		   : "the repository's config names it (core.hooksPath, include.path, a command)";
}
