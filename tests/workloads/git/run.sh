# shellcheck shell=sh
# A repository in /work: a commit, a worktree with a commit of its own, a
# pre-commit hook that leaves a marker, then one that refuses the commit.
# Run by sh in the sandbox; each line it prints is compared exactly.
set -eu
# The host's /etc/gitconfig is in the view: what it sets is not this test's.
export GIT_CONFIG_NOSYSTEM=1
git config --global user.name Alice
git config --global user.email alice@example.org
git config --global init.defaultBranch main
git init -q /work/repo
cd /work/repo
echo one >a.txt
git add a.txt
git commit -q -m first
echo "commits: $(git rev-list --count HEAD)"
git worktree add -q -b side /work/wt
(cd /work/wt && echo two >b.txt && git add b.txt && git commit -q -m second)
echo "side: $(git log --format=%s side | paste -sd ' ')"
echo "worktrees: $(git worktree list --porcelain | sed -n 's/^worktree //p' | paste -sd ' ')"

printf '#!/bin/sh\necho "pre-commit ran in $(pwd)" >/work/hook.marker\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo three >c.txt
git add c.txt
git commit -q -m third
echo "marker: $(cat /work/hook.marker)"

printf '#!/bin/sh\necho "pre-commit: refused: no commits on Fridays" >&2\nexit 3\n' >.git/hooks/pre-commit
echo four >d.txt
git add d.txt
rc=0
git commit -q -m fourth 2>/work/refused.err || rc=$?
echo "refused: exit $rc: $(cat /work/refused.err)"
echo "main: $(git log --format=%s | paste -sd ' ')"
echo "staged: $(git diff --cached --name-only)"
