#!/bin/sh
# make run: launch the demo through the stages that exist, showing where it runs.
# Run by root, the sandbox runs as an unprivileged account (OTO_AS, default nobody).
set -eu
: "${OTO_BIN:?}"
PATH=$OTO_BIN:$PATH
as=
if [ "$(id -u)" -eq 0 ]; then as="--as ${OTO_AS:-nobody}"; fi
# shellcheck disable=SC2086
exec otons $as -- sh -c '
echo "inside oto: uid $(id -u), host name $(hostname)"
for n in user mnt pid ipc uts cgroup net; do
	printf "  %-7s %s\n" "$n" "$(readlink /proc/self/ns/$n)"
done
echo "  processes visible: $(ls /proc | grep -c "^[0-9]")"
printf "  nested user namespace: "; unshare -U true 2>&1 | sed "s/^unshare: //"
'
