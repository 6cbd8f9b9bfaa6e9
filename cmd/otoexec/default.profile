# otoexec default seccomp profile.
#
# Modelled on Docker's default profile (moby profiles/seccomp/default.json):
# its unconditional allowlist, minus every call Docker allows only to a
# container holding a capability, because the agent holds none. Also out:
# io_uring (its own syscall surface, outside seccomp's view), ptrace and
# process_vm_* (Docker allows them on kernels >= 4.8; a sandbox in which
# the agent debugs its own programs takes --profile dev), openat2 (see
# "Modes"), and everything listed under "refused" below.
#
# Names this architecture does not have (chown32, socketcall, ...) are kept so
# that the list reads like Docker's; they compile to nothing here.

# A refused call fails with EPERM, which programs handle as "not allowed".
default errno EPERM
# A number this build's syscall table does not know is a call newer than the
# profile: ENOSYS, so that libcs fall back to the older call (fchmodat2 ->
# fchmodat, and so on).
unknown errno ENOSYS

allow accept accept4 access adjtimex alarm bind brk capget capset chdir
allow chown chown32 clock_adjtime clock_adjtime64 clock_getres
allow clock_getres_time64 clock_gettime clock_gettime64 clock_nanosleep
allow clock_nanosleep_time64 close close_range connect copy_file_range
allow dup dup2 dup3 epoll_create epoll_create1 epoll_ctl epoll_ctl_old
allow epoll_pwait epoll_pwait2 epoll_wait epoll_wait_old eventfd eventfd2
allow execve execveat exit exit_group faccessat faccessat2 fadvise64
allow fadvise64_64 fallocate fanotify_mark fchdir fchown
allow fchown32 fchownat fcntl fcntl64 fdatasync fgetxattr flistxattr flock
allow fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs fstatfs64
allow fsync ftruncate ftruncate64 futex futex_time64 futex_waitv futimesat
allow getcpu getcwd getdents getdents64 getegid getegid32 geteuid geteuid32
allow getgid getgid32 getgroups getgroups32 getitimer getpeername getpgid
allow getpgrp getpid getppid getpriority getrandom getresgid getresgid32
allow getresuid getresuid32 getrlimit get_robust_list getrusage getsid
allow getsockname getsockopt get_thread_area gettid gettimeofday getuid
allow getuid32 getxattr inotify_add_watch inotify_init inotify_init1
allow inotify_rm_watch io_cancel io_destroy io_getevents io_pgetevents
allow io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit ipc kill
allow landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown
allow lchown32 lgetxattr link linkat listen listxattr llistxattr _llseek
allow lremovexattr lseek lsetxattr lstat lstat64 madvise membarrier
allow memfd_create memfd_secret mincore mkdir mkdirat mlock
allow mlock2 mlockall mmap mmap2 mprotect mq_getsetattr mq_notify mq_open
allow mq_timedreceive mq_timedreceive_time64 mq_timedsend mq_timedsend_time64
allow mq_unlink mremap msgctl msgget msgrcv msgsnd msync munlock munlockall
allow munmap name_to_handle_at nanosleep newfstatat _newselect
allow pause pidfd_open pidfd_send_signal pipe pipe2 pkey_alloc
allow pkey_free pkey_mprotect poll ppoll ppoll_time64 prctl pread64 preadv
allow preadv2 prlimit64 process_mrelease pselect6 pselect6_time64 pwrite64
allow pwritev pwritev2 read readahead readlink readlinkat readv recv recvfrom
allow recvmmsg recvmmsg_time64 recvmsg remap_file_pages removexattr rename
allow renameat renameat2 restart_syscall rmdir rseq rt_sigaction
allow rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn rt_sigsuspend
allow rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo
allow sched_getaffinity sched_getattr sched_getparam sched_get_priority_max
allow sched_get_priority_min sched_getscheduler sched_rr_get_interval
allow sched_rr_get_interval_time64 sched_setaffinity sched_setattr
allow sched_setparam sched_setscheduler sched_yield seccomp select semctl
allow semget semop semtimedop semtimedop_time64 send sendfile sendfile64
allow sendmmsg sendmsg sendto setfsgid setfsgid32 setfsuid setfsuid32 setgid
allow setgid32 setgroups setgroups32 setitimer setpgid setpriority setregid
allow setregid32 setresgid setresgid32 setresuid setresuid32 setreuid
allow setreuid32 setrlimit set_robust_list setsid setsockopt set_thread_area
allow set_tid_address setuid setuid32 setxattr shmat shmctl shmdt shmget
allow shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn
allow socketcall socketpair splice stat stat64 statfs statfs64 statx symlink
allow symlinkat sync sync_file_range syncfs sysinfo tee tgkill time
allow timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64
allow timer_settime timer_settime64 timerfd_create timerfd_gettime
allow timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill truncate
allow truncate64 ugetrlimit umask uname unlink unlinkat utime utimensat
allow utimensat_time64 utimes vfork vmsplice wait4 waitid waitpid write writev
# Docker's per-architecture additions for x86.
allow arch_prctl modify_ldt
# Newer than the Docker profile this follows, and no more powerful than calls
# it allows: futex2 (futex), shadow stacks.
allow futex_wake futex_wait futex_requeue map_shadow_stack
# cachestat reports page-cache residency of files, a side channel: refused as
# if the kernel were older.
errno ENOSYS cachestat

# ioctl, except TIOCSTI (0x5412: push bytes into the terminal's input, the
# classic escape from a sandbox sharing a tty) and TIOCLINUX (0x541c: the
# console's selection paste does the same). The kernel compares the command as
# 32 bits, so the filter masks the upper half: 0x100005412 is TIOCSTI too.
allow ioctl
errno EPERM ioctl if arg1 & 0xffffffff == 0x5412
errno EPERM ioctl if arg1 & 0xffffffff == 0x541c

# clone without any namespace flag: CLONE_NEWNS 0x20000, NEWCGROUP 0x2000000,
# NEWUTS 0x4000000, NEWIPC 0x8000000, NEWUSER 0x10000000, NEWPID 0x20000000,
# NEWNET 0x40000000 (Docker's mask 2114060288).
allow clone if arg0 & 0x7e020000 == 0
# clone3 passes its flags in memory, where seccomp cannot look: ENOSYS makes
# glibc and musl fall back to clone, which the rule above checks.
errno ENOSYS clone3

# Modes: no set-user-ID (04000) or set-group-ID (02000) bit in a mode the
# agent sets, or creates a file with. The agent's tree is also the host's, and
# a host filesystem is often not mounted nosuid: a set-user-ID file left there
# would make whoever runs it on the host the agent's account, outside every
# sandbox. Agent roots belong on a nosuid filesystem; this is the second wall.
# A call that asks for either bit misses these rules and gets the default,
# EPERM. Seccomp cannot see the file's type, so S_ISGID on a directory (group
# inheritance, harmless) is refused too: chmod g+s DIR and mkdir -m 2775 fail,
# and so does coreutils' chmod 755 on a directory that already has S_ISGID (it
# keeps the bit by asking for it). mkdir and mkdirat are not filtered: the
# kernel drops both bits from their mode, and a new directory still inherits
# S_ISGID from its parent. The mode is arg1 of chmod, fchmod, creat and mknod,
# arg2 of fchmodat, fchmodat2 and mknodat (x86-64).
allow chmod fchmod creat mknod if arg1 & 06000 == 0
allow fchmodat fchmodat2 mknodat if arg2 & 06000 == 0
# open and openat read the mode only with O_CREAT (0100) or O_TMPFILE
# (020000000, an unnamed file that linkat can name later): without either, any
# mode passes, since the kernel ignores it there.
allow open if arg1 & 020000100 == 0
allow open if arg2 & 06000 == 0
allow openat if arg2 & 020000100 == 0
allow openat if arg3 & 06000 == 0
# openat2 carries flags and mode in a struct open_how, in memory seccomp cannot
# read: ENOSYS, the answer of a kernel older than 5.6, for which its callers
# keep a fallback to openat (checked above); go-fuse and Rust's cap-std, for
# example, fall back on ENOSYS. glibc (2.36) and musl never call it.
errno ENOSYS openat2

# socket: unix, inet, inet6, and netlink only for the route protocol (0), so
# that getaddrinfo and ip addr work; not packet, alg, vsock, key, ...
allow socket if arg0 == 1
allow socket if arg0 == 2
allow socket if arg0 == 10
allow socket if arg0 == 16 and arg2 == 0

# personality: Docker's values: PER_LINUX 0, PER_LINUX32 8, UNAME26 0x20000,
# UNAME26|PER_LINUX32, and 0xffffffff (query). Not READ_IMPLIES_EXEC.
allow personality if arg0 == 0
allow personality if arg0 == 8
allow personality if arg0 == 0x20000
allow personality if arg0 == 0x20008
allow personality if arg0 == 0xffffffff

# Refused, written out for auditors (the default would refuse them anyway).
# Namespaces and mounts (CAP_SYS_ADMIN in Docker):
errno EPERM unshare setns mount umount umount2 pivot_root chroot
errno EPERM fsopen fsconfig fsmount fspick open_tree move_mount mount_setattr
errno EPERM sethostname setdomainname quotactl quotactl_fd lookup_dcookie
errno EPERM fanotify_init syslog
# Kernel keyrings, bpf, perf, userfaultfd, io_uring:
errno EPERM keyctl add_key request_key bpf perf_event_open userfaultfd
errno EPERM io_uring_setup io_uring_enter io_uring_register
# Other processes (CAP_SYS_PTRACE):
errno EPERM ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd
errno EPERM process_madvise
# Handles, kexec, modules, reboot, swap, accounting:
errno EPERM open_by_handle_at kexec_load kexec_file_load init_module
errno EPERM finit_module delete_module reboot swapon swapoff acct
# Clocks, raw I/O, NUMA policy, tty hangup:
errno EPERM settimeofday stime clock_settime clock_settime64 iopl ioperm
errno EPERM get_mempolicy mbind set_mempolicy set_mempolicy_home_node
errno EPERM migrate_pages move_pages vhangup
