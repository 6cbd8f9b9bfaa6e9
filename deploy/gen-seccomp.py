#!/usr/bin/env python3
"""Write deploy/seccomp-oto.json: the container runtime's seccomp profile for
a container whose entrypoint is the oto chain.

It is otoexec's default allowlist (cmd/otoexec/default.profile, itself Docker's
default minus the capability-gated calls) plus exactly what oto's own stages
need to build the sandbox: namespaces (unshare, clone, setns), mounts (mount,
umount2, pivot_root and the new mount API), sethostname. The agent never runs
under this profile alone: otoexec installs its stricter filter, with argument
conditions, before the agent starts.

    python3 deploy/gen-seccomp.py > deploy/seccomp-oto.json
"""
import json
import os

OTO_STAGES = {
    "unshare": "otonet, otons: user, net, mount, pid, ipc, uts, cgroup namespaces",
    "clone": "otons: fork after unshare(CLONE_NEWPID)",
    "clone3": "libcs that spawn with clone3",
    "setns": "otonet: the relay's own lockdown namespaces",
    "mount": "otons, otomount: /proc, tmpfs, private propagation",
    "umount2": "otomount: detach the old root",
    "pivot_root": "otomount: enter the view",
    "openat2": "otomount: mount sources opened without following symlinks",
    "open_tree": "otomount: mounts from file descriptors",
    "move_mount": "otomount",
    "mount_setattr": "otomount: recursive read-only, nosuid, nodev",
    "fsopen": "otomount",
    "fsconfig": "otomount",
    "fsmount": "otomount",
    "sethostname": "otons: the sandbox's host name",
    "setdomainname": "otons",
}

here = os.path.dirname(os.path.abspath(__file__))
names = set()
with open(os.path.join(here, "..", "cmd", "otoexec", "default.profile")) as f:
    for line in f:
        words = line.split("#")[0].split()
        if not words or words[0] != "allow":
            continue
        # "allow NAME if COND": the runtime allows NAME; otoexec checks COND.
        names.update(words[1:words.index("if")] if "if" in words else words[1:])
names.update(OTO_STAGES)
profile = {
    "defaultAction": "SCMP_ACT_ERRNO",
    "defaultErrnoRet": 1,
    "architectures": ["SCMP_ARCH_X86_64"],
    "syscalls": [
        {"names": sorted(names), "action": "SCMP_ACT_ALLOW"},
    ],
}
print(json.dumps(profile, indent=2))
