/* The bot launcher of kothkit.procs.contain.Jail, in C: the same job and arguments as jailinit.py.
 *
 * kothkit compiles this file once per machine (cached by its content) when a C compiler is
 * there, because it starts in about a millisecond where the Python version needs ten: it runs
 * before every bot of every game.  See jailinit.py for the design; in short:
 *
 *   leader (the judge's child): dies with the judge; unshares a PID and a mount namespace;
 *       builds the bot's minimal root (the system's runtime folders and the paths the judge
 *       names, read-only; the bot's folder; a private /tmp, /dev/shm and a minimal /dev);
 *       then waits for the init and ends as the bot ended;
 *   init (PID 1 of the namespace): dies with the leader; mounts the namespace's /proc and
 *       pivots into the new root; reaps orphans; when the bot exits, hands its wait status to
 *       the leader and exits, so the kernel kills what is left;
 *   bot (PID 2): joins its cgroups, takes its limits, becomes an unprivileged user (uid
 *       ``user``, its folder id-mapped to it) or, in a user namespace, drops every capability;
 *       no_new_privs; a seccomp filter refuses the calls a bot never needs; execs the command.
 *
 * The root can be built once and reused (``prepare=1``, then ``mntns=FD``): a preparing helper
 * builds the read-only part of a bot's root as above, pivots into it, makes it read-only and waits
 * while the judge opens its mount namespace (/proc/PID/ns/mnt); each start of that bot then enters
 * a copy of that namespace (setns, unshare) and adds only what is the bot's own for the game: a
 * fresh /tmp and /dev/shm, and its PID namespace's /proc.  The mounts, the pivot_root and the
 * id-mapping are then paid once per bot and worker, not once per game; so is the bot's network
 * namespace (net=1: only its own loopback), which each game enters (netns=FD).
 *
 * Where the bot's folder cannot be id-mapped (tmpfs before Linux 6.3, 9p, NFS), the judge makes a
 * copy of it owned by the bot's user and names it (source=DIR): that copy is mounted at the folder's
 * path, without an id-mapping (kothkit.procs.copies).
 *
 * Usage: jailinit key=value... -- command args...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#define MOUNT_ATTR_RDONLY_ 0x1
#define MOUNT_ATTR_NOSUID_ 0x2
#define MOUNT_ATTR_NODEV_ 0x4
#define MOUNT_ATTR_IDMAP_ 0x00100000
#define AT_RECURSIVE_ 0x8000
#define OPEN_TREE_CLONE_ 1
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID 0x20000000
#endif
#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

struct mount_attr_ {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define MAX_LIST 64
static long parent;
static int cpu = -1, fs, userns, probe, folder_rw = 1, seccomp_on, prepare, mntns_fd = -1, net;
static int pinned; /* the filter refuses sched_setaffinity: no cpuset holds the bot to its core */
static int netns_fd = -1; /* the bot's network namespace, made by its preparing helper (net=1, prepare=1) */
static long tmp_mb = 256, user = -1;
static char *folder, *outside, *sibling;
/* source=DIR: what is mounted at the bot's folder's path: a copy of its folder owned by the bot's
   user, made by the judge where the folder cannot be id-mapped (no id-mapping then) */
static char *source_dir;
static char *cgroups[MAX_LIST];
static int ncgroups;
static char *keeps[MAX_LIST]; /* paths the bot's command needs, shown read-only at their own place */
static int nkeeps;
#define MAX_ENVS 192 /* the jail's five, a challenge's env table and a bot's (64 each: kothkit.limits.MAX_ENV) */
static char *envs[MAX_ENVS]; /* NAME=value: the bot's whole environment (nothing of the judge's) */
static int nenvs;
static char *freezer; /* the bot's freezer file (v1 freezer.state, v2 cgroup.freeze): thawed as the init ends */
static int freezer_fd = -1;
static struct { int resource; rlim_t soft, hard; } rlimits[MAX_LIST];
static int nrlimits;

__attribute__((noreturn)) static void fail(const char *what) {
    char buf[512];
    int n = snprintf(buf, sizeof buf, "kothkit: cannot set up the bot's jail: %s: %s\n", what, strerror(errno));
    if (write(2, buf, n) < 0) { /* nothing more to do */ }
    _exit(126);
}

static int resource_named(const char *name) {
    static const struct { const char *name; int resource; } table[] = {
        {"RLIMIT_CPU", RLIMIT_CPU}, {"RLIMIT_FSIZE", RLIMIT_FSIZE}, {"RLIMIT_NOFILE", RLIMIT_NOFILE},
        {"RLIMIT_NPROC", RLIMIT_NPROC}, {"RLIMIT_DATA", RLIMIT_DATA}, {"RLIMIT_AS", RLIMIT_AS},
        {"RLIMIT_CORE", RLIMIT_CORE}, {"RLIMIT_STACK", RLIMIT_STACK},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) return table[i].resource;
    return -1;
}

/* key=value arguments up to "--"; returns the index of the command. */
static int parse(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) return i + 1;
        char *eq = strchr(a, '=');
        if (!eq) continue;
        *eq = 0;
        char *v = eq + 1;
        if (!strcmp(a, "parent")) parent = atol(v);
        else if (!strcmp(a, "cpu")) cpu = atoi(v);
        else if (!strcmp(a, "tmp_mb")) tmp_mb = atol(v);
        else if (!strcmp(a, "fs")) fs = !strcmp(v, "1");
        else if (!strcmp(a, "folder_rw")) folder_rw = !strcmp(v, "1");
        else if (!strcmp(a, "user")) user = atol(v);
        else if (!strcmp(a, "seccomp")) seccomp_on = !strcmp(v, "1");
        else if (!strcmp(a, "env") && nenvs < MAX_ENVS) envs[nenvs++] = v;
        else if (!strcmp(a, "freezer")) freezer = v;
        else if (!strcmp(a, "userns")) userns = !strcmp(v, "1");
        else if (!strcmp(a, "net")) net = !strcmp(v, "1");
        else if (!strcmp(a, "pinned")) pinned = !strcmp(v, "1");
        else if (!strcmp(a, "probe")) probe = !strcmp(v, "1");
        else if (!strcmp(a, "prepare")) prepare = !strcmp(v, "1");
        else if (!strcmp(a, "mntns")) mntns_fd = atoi(v);
        else if (!strcmp(a, "netns")) netns_fd = atoi(v);
        else if (!strcmp(a, "folder")) folder = v;
        else if (!strcmp(a, "source")) source_dir = v;
        else if (!strcmp(a, "outside")) outside = v;
        else if (!strcmp(a, "sibling")) sibling = v;
        else if (!strcmp(a, "cgroup") && ncgroups < MAX_LIST) cgroups[ncgroups++] = v;
        else if (!strcmp(a, "keep") && nkeeps < MAX_LIST) keeps[nkeeps++] = v;
        else if (!strcmp(a, "rlimit") && nrlimits < MAX_LIST) {
            char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2) continue;
            *c1 = 0;
            int r = resource_named(v);
            if (r < 0) continue;
            rlimits[nrlimits].resource = r;
            rlimits[nrlimits].soft = strtoull(c1 + 1, NULL, 10);
            rlimits[nrlimits].hard = strtoull(c2 + 1, NULL, 10);
            nrlimits++;
        }
    }
    return argc;
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) fail(path);
    close(fd);
}

static void mkdirs(const char *path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    mkdir(buf, 0755);
}

/* The mount points under (or at) `path`, from /proc/self/mountinfo, for kernels without mount_setattr. */
static void remount_each(const char *path, int readonly, int recursive) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) fail("/proc/self/mountinfo");
    char line[8192];
    size_t n = strlen(path);
    while (fgets(line, sizeof line, f)) {
        char *field = line;
        for (int k = 0; k < 4 && field; k++) field = strchr(field, ' '), field = field ? field + 1 : NULL;
        if (!field) continue;
        char *end = strchr(field, ' ');
        if (end) *end = 0;
        char point[4096];
        size_t j = 0;
        for (char *s = field; *s && j < sizeof point - 1; s++) {  /* undo the \040-style escapes */
            if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
                point[j++] = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                s += 3;
            } else {
                point[j++] = *s;
            }
        }
        point[j] = 0;
        int under = strcmp(point, path) == 0 ||
                    (recursive && (n == 1 || (strncmp(point, path, n) == 0 && point[n] == '/')));
        if (!under) continue;
        unsigned long flags = MS_REMOUNT | MS_BIND | (readonly ? MS_RDONLY : 0);
        struct statvfs sv;  /* keep the flags a bind remount may not drop */
        if (statvfs(point, &sv) == 0)
            flags |= (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (sv.f_flag & ST_NODEV ? MS_NODEV : 0) |
                     (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0);
        if (mount(NULL, point, NULL, flags, NULL) != 0 && strcmp(point, path) == 0) fail(point);
    }
    fclose(f);
}


/* In a network namespace of its own (net=1) the bot has a loopback, down until brought up here. */
static void loopback_up(void) {
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) fail("a socket for the bot's loopback");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) fail("the bot's loopback");
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) fail("bringing up the bot's loopback");
    close(s);
}

static void enter_namespaces(void) {
    int flags = CLONE_NEWPID | CLONE_NEWNS | (net ? CLONE_NEWNET : 0);
    if (userns) {
        char map[64];
        uid_t uid = getuid();
        gid_t gid = getgid();
        if (unshare(flags | CLONE_NEWUSER) != 0) fail("unshare");
        write_file("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        write_file("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        write_file("/proc/self/gid_map", map);
    } else if (unshare(flags) != 0) {
        fail("unshare");
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("mount --make-rprivate /");
    if (net) loopback_up();
}

/* -- the bot's root: built in a tmpfs, entered by the init with pivot_root -------------------- */

/* System folders every bot sees read-only (where they exist), and the few files of /etc that
   programs need to start (the dynamic loader's cache, users and groups, name resolution...). */
static const char *system_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
static const char *etc_entries[] = {
    "alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "hosts", "host.conf",
    "nsswitch.conf", "resolv.conf", "gai.conf", "localtime", "timezone", "ssl", "ca-certificates",
    "mime.types", "protocols", "services", "os-release", "debian_version", "java-17-openjdk",
    "java-21-openjdk", "python3", "npmrc"};
static const char *devices[] = {"null", "zero", "urandom", "random", "full"};
/* Users and groups: root and nobody, not the machine's (its users' names are nobody's business). */
static const char passwd_text[] = "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                                  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char group_text[] = "root:x:0:\nnobody:x:65534:\n";

static void write_new(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) fail(path);
    close(fd);
}

struct shown { char path[4096]; int fd; int dir; char link[4096]; int is_link; };
static struct shown shown[128];
static int nshown;
static int userns_fd = -1;

/* Take `path` for the root: an O_PATH fd now (before anything covers it), or its symlink text. */
static void take(const char *path, int follow) {
    if (nshown >= (int)(sizeof shown / sizeof shown[0])) return;
    struct shown *e = &shown[nshown];
    struct stat st;
    if (lstat(path, &st) != 0) return;
    snprintf(e->path, sizeof e->path, "%s", path);
    if (S_ISLNK(st.st_mode) && !follow) {
        ssize_t n = readlink(path, e->link, sizeof e->link - 1);
        if (n < 0) return;
        e->link[n] = 0;
        e->is_link = 1;
        e->fd = -1;
    } else {
        if (stat(path, &st) != 0) return;
        e->fd = open(path, O_PATH | O_CLOEXEC);
        if (e->fd < 0) return;
        e->dir = S_ISDIR(st.st_mode);
        e->is_link = 0;
    }
    nshown++;
}

static void setattr_fd(int fd, const char *rel, uint64_t set, uint64_t clr, int recursive) {
    struct mount_attr_ attr = {set, clr, 0, 0};
    if (syscall(SYS_mount_setattr, fd, rel, (recursive ? AT_RECURSIVE_ : 0), &attr, sizeof attr) == 0) return;
    if (errno != ENOSYS) fail(rel);
    remount_each(rel, (set & MOUNT_ATTR_RDONLY_) != 0, recursive);
}

/* `rel` (a path inside the new root, cwd) made to exist as a folder or an empty file. */
static void make_target(const char *rel, int dir) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", rel);
    char *slash = strrchr(buf, '/');
    if (slash && slash != buf) {
        *slash = 0;
        mkdirs(buf);
    }
    if (dir) {
        mkdir(rel, 0755);
    } else {
        int fd = open(rel, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
    }
}

/* The new root is mounted on /tmp while it is built: absolute paths for mount_setattr's fallback. */
static const char *in_root(const char *rel) {
    static char buf[4200];
    snprintf(buf, sizeof buf, "/tmp%s", rel + 1);
    return buf;
}

static void bind_fd(int fd, const char *rel, int dir, int readonly) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    make_target(rel, dir);
    if (mount(source, rel, NULL, MS_BIND | MS_REC, NULL) != 0) fail(rel + 1);
    if (readonly) setattr_fd(AT_FDCWD, in_root(rel), MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_, 0, 1);
}

/* A user namespace whose only mapping is id `from` -> `to`, as an fd: the id-mapping of the bot's
   folder (its owner's files appear as the bot's user's, and what the bot writes is its owner's). */
static int idmap_userns(unsigned from_uid, unsigned from_gid, unsigned to) {
    int sync[2];
    if (pipe2(sync, O_CLOEXEC) != 0) return -1;
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        char c;
        close(sync[1]);
        if (unshare(CLONE_NEWUSER) != 0) _exit(1);
        if (read(sync[0], &c, 1) < 0) _exit(1);  /* until the parent has what it needs */
        _exit(0);
    }
    close(sync[0]);
    char path[64], map[64];
    int fd = -1, ok = 0;
    for (int tries = 0; tries < 2000 && !ok; tries++) {  /* until the child's unshare took */
        struct stat a, b;
        snprintf(path, sizeof path, "/proc/%d/ns/user", (int)child);
        if (stat(path, &a) == 0 && stat("/proc/self/ns/user", &b) == 0 && a.st_ino != b.st_ino) ok = 1;
        else usleep(100);
    }
    if (ok) {
        snprintf(path, sizeof path, "/proc/%d/uid_map", (int)child);
        snprintf(map, sizeof map, "%u %u 1", from_uid, to);
        int m = open(path, O_WRONLY | O_CLOEXEC);
        ok = m >= 0 && write(m, map, strlen(map)) > 0;
        if (m >= 0) close(m);
        snprintf(path, sizeof path, "/proc/%d/gid_map", (int)child);
        snprintf(map, sizeof map, "%u %u 1", from_gid, to);
        m = open(path, O_WRONLY | O_CLOEXEC);
        ok = ok && m >= 0 && write(m, map, strlen(map)) > 0;
        if (m >= 0) close(m);
        snprintf(path, sizeof path, "/proc/%d/ns/user", (int)child);
        if (ok) fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    close(sync[1]);
    waitpid(child, NULL, 0);
    return fd;
}

/* The bot's folder at its own path: id-mapped to the bot's user where it runs as one. */
static void mount_folder(int folder_fd) {
    const char *rel = folder;  /* absolute; made relative below */
    char target[4096];
    snprintf(target, sizeof target, ".%s", rel);
    make_target(target, 1);
    uint64_t set = MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | (folder_rw ? 0 : MOUNT_ATTR_RDONLY_);
    if (userns_fd >= 0) {
        int tree = (int)syscall(SYS_open_tree, folder_fd, "", OPEN_TREE_CLONE_ | O_CLOEXEC | AT_EMPTY_PATH);
        if (tree < 0) fail("open_tree (the bot's folder)");
        struct mount_attr_ attr = {set | MOUNT_ATTR_IDMAP_, folder_rw ? MOUNT_ATTR_RDONLY_ : 0, 0, (uint64_t)userns_fd};
        if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
            fail("id-mapping the bot's folder");
        if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH_) != 0) fail(folder);
        close(tree);
        return;
    }
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", folder_fd);
    if (mount(source, target, NULL, MS_BIND, NULL) != 0) fail(folder);
    setattr_fd(AT_FDCWD, in_root(target), set, folder_rw ? MOUNT_ATTR_RDONLY_ : 0, 0);
}

static int by_length(const void *a, const void *b) {
    return (int)strlen(((const struct shown *)a)->path) - (int)strlen(((const struct shown *)b)->path);
}

/* Build the bot's root in a tmpfs mounted over /tmp (our own mount namespace: nobody else sees it)
   and leave the leader's cwd there; the init pivots into it once it has mounted /proc. */
static void build_root(void) {
    int folder_fd = open(source_dir ? source_dir : folder, O_PATH | O_DIRECTORY | O_CLOEXEC | (source_dir ? O_NOFOLLOW : 0));
    if (folder_fd < 0) fail(source_dir ? source_dir : folder);
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++) take(system_dirs[i], 0);
    char path[4096];
    for (size_t i = 0; i < sizeof etc_entries / sizeof etc_entries[0]; i++) {
        snprintf(path, sizeof path, "/etc/%s", etc_entries[i]);
        take(path, 0);
    }
    for (int i = 0; i < nkeeps; i++) take(keeps[i], 1);
    int dev_fd[sizeof devices / sizeof devices[0]];
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        snprintf(path, sizeof path, "/dev/%s", devices[i]);
        dev_fd[i] = open(path, O_PATH | O_CLOEXEC);
    }
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=4m") != 0) fail("tmpfs root");
    if (chdir("/tmp") != 0) fail("/tmp");
    mkdir("proc", 0555);
    mkdir("etc", 0755);
    write_new("etc/passwd", passwd_text);
    write_new("etc/group", group_text);
    mkdir("dev", 0755);
    /* /dev: the harmless devices, bound from the machine's (read and write, as there) */
    if (mount("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k") != 0) fail("/dev");
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        if (dev_fd[i] < 0) continue;
        char source[64], target[64];
        snprintf(source, sizeof source, "/proc/self/fd/%d", dev_fd[i]);
        snprintf(target, sizeof target, "dev/%s", devices[i]);
        make_target(target, 0);
        if (mount(source, target, NULL, MS_BIND, NULL) != 0) fail(target);
        close(dev_fd[i]);
    }
    if (symlink("/proc/self/fd", "dev/fd") != 0 || symlink("/proc/self/fd/0", "dev/stdin") != 0 ||
        symlink("/proc/self/fd/1", "dev/stdout") != 0 || symlink("/proc/self/fd/2", "dev/stderr") != 0)
        fail("/dev links");
    char opts[64];
    snprintf(opts, sizeof opts, "mode=1777,size=%ldm", tmp_mb > 0 ? tmp_mb : 1);
    mkdir("dev/shm", 01777);
    mkdir("tmp", 01777);
    /* prepared once for many games: each game mounts its own (fresh_scratch) */
    if (!prepare && mount("tmpfs", "dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) fail("/dev/shm");
    if (!prepare && mount("tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) fail("/tmp");
    /* parents before children: /usr before a keep below it, the private /tmp before a venv in it */
    qsort(shown, nshown, sizeof shown[0], by_length);
    for (int i = 0; i < nshown; i++) {
        char rel[4200];
        snprintf(rel, sizeof rel, ".%s", shown[i].path);
        if (shown[i].is_link) {
            make_target(rel, 1);
            rmdir(rel);
            if (symlink(shown[i].link, rel) != 0 && errno != EEXIST) fail(rel + 1);
        } else {
            bind_fd(shown[i].fd, rel, shown[i].dir, 1);
            close(shown[i].fd);
        }
    }
    mount_folder(folder_fd);
    close(folder_fd);
    if (userns_fd >= 0) close(userns_fd);
    if (mount(NULL, "dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) != 0) fail("/dev read-only");
}

/* In the init (PID 1 of the namespace, cwd the new root): /proc, then into the root. */
static void enter_root(void) {
    if (mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail("/proc");
    if (mount("proc/sys", "proc/sys", NULL, MS_BIND | MS_REC, NULL) == 0)
        setattr_fd(AT_FDCWD, "/tmp/proc/sys", MOUNT_ATTR_RDONLY_, 0, 1);
    if (syscall(SYS_pivot_root, ".", ".") != 0) fail("pivot_root");
    if (umount2(".", MNT_DETACH) != 0) fail("detaching the machine's root");
    if (chdir("/") != 0) fail("/");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        fail("/ read-only");
}

static void mount_proc(void) {
    /* Without a new root (fs=0): a /proc of the namespace's processes, /proc/sys read-only; where
       that is refused (a user namespace with a masked /proc), the old /proc stays, read-only. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) return;
    if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND | MS_REC, NULL) == 0) {
        struct mount_attr_ attr = {MOUNT_ATTR_RDONLY_, 0, 0, 0};
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/proc/sys", AT_RECURSIVE_, &attr, sizeof attr) != 0)
            mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    }
}

/* -- a root prepared once, entered for each game --------------------------------------------- */

/* prepare=1: the root built, entered and made read-only; the judge opens this process's mount
   namespace (/proc/PID/ns/mnt) once told "ready", then closes our stdin, and we leave. */
static void run_prepare(void) {
    /* net=1: the bot's network namespace too (its loopback up), entered by each game (netns=FD):
       made and torn down once per bot and process, not once per game */
    if (unshare(CLONE_NEWNS | (net ? CLONE_NEWNET : 0)) != 0) fail("unshare");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("mount --make-rprivate /");
    if (net) loopback_up();
    build_root();
    if (syscall(SYS_pivot_root, ".", ".") != 0) fail("pivot_root");
    if (umount2(".", MNT_DETACH) != 0) fail("detaching the machine's root");
    if (chdir("/") != 0) fail("/");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        fail("/ read-only");
    if (write(1, "ready\n", 6) != 6) _exit(1);
    char c;
    while (read(0, &c, 1) > 0) {
    }
    _exit(0);
}

/* Under /tmp: what the per-game /tmp would cover (a bot folder or a venv under /tmp). */
static int under_tmp(const char *p) { return strncmp(p, "/tmp/", 5) == 0; }

/* mntns=FD: a copy of the prepared root, with this game's own /tmp and /dev/shm.  What the prepared
   root shows under /tmp is cloned first and put back on the fresh /tmp. */
static void enter_prepared(void) {
    if (setns(mntns_fd, CLONE_NEWNS) != 0) fail("entering the prepared root");
    close(mntns_fd);
    int own_net = net && netns_fd < 0;  /* else the namespace prepared for the bot (netns=FD) */
    if (netns_fd >= 0) {
        if (setns(netns_fd, CLONE_NEWNET) != 0) fail("entering the bot's network namespace");
        close(netns_fd);
    }
    if (unshare(CLONE_NEWPID | CLONE_NEWNS | (own_net ? CLONE_NEWNET : 0)) != 0) fail("unshare");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("mount --make-rprivate /");
    if (own_net) loopback_up();
    const char *paths[MAX_LIST + 1];
    int trees[MAX_LIST + 1], n = 0;
    for (int i = -1; i < nkeeps; i++) {
        const char *p = i < 0 ? folder : keeps[i];
        if (!under_tmp(p)) continue;
        int inside = 0;  /* a path inside another one comes with it (AT_RECURSIVE) */
        for (int j = -1; j < nkeeps && !inside; j++) {
            const char *q = j < 0 ? folder : keeps[j];
            size_t m = strlen(q);
            inside = q != p && under_tmp(q) && strncmp(p, q, m) == 0 && (p[m] == '/' || (p[m] == 0 && j < i));
        }
        if (inside) continue;
        int t = (int)syscall(SYS_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE_ | AT_RECURSIVE_ | O_CLOEXEC);
        if (t < 0) fail(p);
        paths[n] = p;
        trees[n++] = t;
    }
    char opts[64];
    snprintf(opts, sizeof opts, "mode=1777,size=%ldm", tmp_mb > 0 ? tmp_mb : 1);
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) fail("/tmp");
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) fail("/dev/shm");
    for (int i = 0; i < n; i++) {
        make_target(paths[i], 1);
        if (syscall(SYS_move_mount, trees[i], "", AT_FDCWD, paths[i], MOVE_MOUNT_F_EMPTY_PATH_) != 0) fail(paths[i]);
        close(trees[i]);
    }
}

/* In the init of a prepared root: its PID namespace's /proc, /proc/sys read-only. */
static void prepared_proc(void) {
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail("/proc");
    if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND | MS_REC, NULL) == 0)
        setattr_fd(AT_FDCWD, "/proc/sys", MOUNT_ATTR_RDONLY_, 0, 1);
}

/* -- privileges ------------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#endif

/* Calls a bot never needs, refused with EPERM: escaping a mount (by handle, mounting, pivoting,
   new namespaces), tracing, the kernel's keyrings, BPF, perf, modules and kexec. */
static const int refused_calls[] = {
#ifdef __NR_open_by_handle_at
    __NR_open_by_handle_at,
#endif
#ifdef __NR_name_to_handle_at
    __NR_name_to_handle_at,
#endif
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_mount, __NR_umount2, __NR_unshare,
    __NR_setns, __NR_pivot_root, __NR_chroot, __NR_keyctl, __NR_add_key, __NR_request_key, __NR_bpf,
    __NR_perf_event_open, __NR_kexec_load, __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_swapon, __NR_swapoff, __NR_reboot, __NR_acct, __NR_syslog, __NR_quotactl, __NR_userfaultfd,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
#ifdef __NR_open_tree
    __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick,
#endif
#ifdef __NR_mount_setattr
    __NR_mount_setattr,
#endif
#ifdef __NR_iopl
    __NR_iopl, __NR_ioperm,
#endif
    425, 426, 427, /* io_uring_setup, io_uring_enter, io_uring_register: the same everywhere */
};

/* Calls allowed but for some arguments (issue 42): nothing made in the jail carries a set-id bit
   (chmod, a created file's or folder's mode: refused whatever its owner), and no AF_VSOCK socket
   (the hypervisor's). openat2's mode is behind a pointer: ENOSYS, and libc uses openat. */
enum { ACT_EPERM, ACT_ENOSYS, ACT_CLONE, ACT_ALLOW, ACT_SOCKET, ACT_OPEN1, ACT_OPEN2, ACT_MODE1, ACT_MODE2,
       ACT_MODE3, N_ACTS };
static const struct { int nr, action; } checked_calls[] = {
#ifdef __NR_open
    {__NR_open, ACT_OPEN1},
#endif
#ifdef __NR_creat
    {__NR_creat, ACT_MODE1},
#endif
#ifdef __NR_mkdir
    {__NR_mkdir, ACT_MODE1},
#endif
#ifdef __NR_chmod
    {__NR_chmod, ACT_MODE1},
#endif
#ifdef __NR_mknod
    {__NR_mknod, ACT_MODE1},
#endif
    {__NR_fchmod, ACT_MODE1}, {__NR_fchmodat, ACT_MODE2}, {452 /* fchmodat2 */, ACT_MODE2},
    {__NR_mkdirat, ACT_MODE2}, {__NR_mknodat, ACT_MODE2}, {__NR_openat, ACT_OPEN2},
    {437 /* openat2 */, ACT_ENOSYS}, {__NR_socket, ACT_SOCKET},
};
#define SETID_BITS 06000
#define CREATING (0100 /* O_CREAT */ | 020000000 /* __O_TMPFILE */)
#define AF_VSOCK_ 40

#ifdef SECCOMP_ARCH
/* The filter looks the call's number up in a balanced tree (JGE on the sorted numbers, a few JEQ at
   the leaves) rather than down a chain of one JEQ per refused call: the kernel runs the filter for
   every call number once as it installs it (to cache the calls it always allows), once per bot. */
struct special { uint32_t nr; int action; };
#define LEAF 4

static int by_nr(const void *a, const void *b) {
    uint32_t x = ((const struct special *)a)->nr, y = ((const struct special *)b)->nr;
    return x < y ? -1 : x > y;
}

static int tree_size(int n) { return n <= LEAF ? n + 1 : 1 + tree_size(n / 2) + tree_size(n - n / 2); }

/* Instructions from f[*k] on: the numbers s[0..n) (sorted) jump to their action's block (its
   index in target), any other number to ACT_ALLOW's.  0 if a jump would not fit in 8 bits. */
static int emit_tree(struct sock_filter *f, int *k, const struct special *s, int n, const int *target) {
    if (n <= LEAF) {
        for (int i = 0; i < n; i++) {
            int off = target[s[i].action] - *k - 1;
            if (off < 0 || off > 255) return 0;
            f[*k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, s[i].nr, (unsigned char)off, 0);
            (*k)++;
        }
        f[*k] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, (uint32_t)(target[ACT_ALLOW] - *k - 1));
        (*k)++;
        return 1;
    }
    int half = n / 2, skip = tree_size(half);
    if (skip > 255) return 0;
    f[*k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, s[half].nr, (unsigned char)skip, 0);
    (*k)++;
    return emit_tree(f, k, s, half, target) && emit_tree(f, k, s + half, n - half, target);
}
#endif

enum { N_REFUSED = sizeof refused_calls / sizeof refused_calls[0],
       N_CHECKED = sizeof checked_calls / sizeof checked_calls[0],
       FILTER_MAX = 2 * (N_REFUSED + N_CHECKED) + 48 };

/* The filter's instructions in f[FILTER_MAX]; their number, or 0 where there is none. */
static int build_seccomp(struct sock_filter *f) {
#ifdef SECCOMP_ARCH
    int N = N_REFUSED;
    struct special s[N_REFUSED + N_CHECKED + 3];
    for (int i = 0; i < N; i++) s[i] = (struct special){(uint32_t)refused_calls[i], ACT_EPERM};
    for (int i = 0; i < N_CHECKED; i++) s[N++] = (struct special){(uint32_t)checked_calls[i].nr, checked_calls[i].action};
    /* pinned to a core that no cpuset holds: the affinity cannot be checked (a pointer), so no call may change it */
    if (pinned) s[N++] = (struct special){__NR_sched_setaffinity, ACT_EPERM};
    /* clone3's flags are behind a pointer: ENOSYS makes libc fall back to clone, whose flags are checked */
    s[N] = (struct special){435 /* clone3 */, ACT_ENOSYS};
    s[N + 1] = (struct special){__NR_clone, ACT_CLONE};
    qsort(s, N + 2, sizeof s[0], by_nr);
    int k = 0;
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM); /* another ABI */
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* the blocks the tree jumps to, after it: two instructions each for the checks of an argument
       (clone's, socket's, open's flags, a mode), then allow, EPERM, ENOSYS */
    int x32 = k++, tree = k, end = tree + tree_size(N + 2), target[N_ACTS];
    static const int order[] = {ACT_CLONE, ACT_SOCKET, ACT_OPEN1, ACT_OPEN2, ACT_MODE1, ACT_MODE2, ACT_MODE3,
                                ACT_ALLOW, ACT_EPERM, ACT_ENOSYS};
    for (int i = 0, at = end; i < (int)(sizeof order / sizeof order[0]); i++) {
        target[order[i]] = at;
        at += i < 7 ? 2 : 1; /* a load and a test; a return */
    }
    if (target[ACT_ENOSYS] + 1 > FILTER_MAX) return 0;
#if defined(__x86_64__)
    f[x32] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, /* x32 */
                                          (unsigned char)(target[ACT_EPERM] - x32 - 1), 0);
#else
    f[x32] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0);
#endif
    if (target[ACT_EPERM] - x32 - 1 > 255 || !emit_tree(f, &k, s, N + 2, target) || k != end) return 0;
#define ARG(i) (uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i)) /* its low 32 bits: both machines are little-endian */
#define LOAD(off) f[k] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)), k++
#define TEST(op, value, yes, no) \
    f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (value), (unsigned char)(target[yes] - k - 1), \
                                        (unsigned char)(target[no] - k - 1)), k++
    LOAD(ARG(0));
    TEST(BPF_JSET, CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | 0x40000000 /* NEWNET */ |
                   0x02000000 | 0x04000000 | 0x08000000 /* CGROUP, UTS, IPC */, ACT_EPERM, ACT_ALLOW);
    LOAD(ARG(0));
    TEST(BPF_JEQ, AF_VSOCK_, ACT_EPERM, ACT_ALLOW);
    LOAD(ARG(1)); /* open(path, flags, mode): its mode counts only when it creates */
    TEST(BPF_JSET, CREATING, ACT_MODE2, ACT_ALLOW);
    LOAD(ARG(2)); /* openat(dirfd, path, flags, mode) */
    TEST(BPF_JSET, CREATING, ACT_MODE3, ACT_ALLOW);
    for (int i = 1; i <= 3; i++) { /* a mode in args[1], args[2], args[3] */
        LOAD(ARG(i));
        TEST(BPF_JSET, SETID_BITS, ACT_EPERM, ACT_ALLOW);
    }
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
#undef ARG
#undef LOAD
#undef TEST
    return k;
#else
    (void)f;
    return 0;
#endif
}

/* Install the filter; 1 if it is in force. */
static int install_seccomp(void) {
    struct sock_filter f[FILTER_MAX];
    int k = build_seccomp(f);
    struct sock_fprog prog = {(unsigned short)k, f};
    return k > 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}

struct cap_header { uint32_t version; int pid; };
struct cap_data { uint32_t effective, permitted, inheritable; };

static void drop_privileges(void) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    int last = 40;  /* (read without stdio: this runs in the init's vfork child) */
    char text[16] = {0};
    int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, text, sizeof text - 1) > 0 && text[0] >= '0' && text[0] <= '9') last = atoi(text);
        close(fd);
    }
    for (int cap = 0; cap <= last; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    if (user >= 0 && !userns) {
        /* an unprivileged user: the kernel clears every capability at the change of uid */
        gid_t g = (gid_t)user;
        if (setgroups(0, NULL) != 0 || setresgid(g, g, g) != 0 || setresuid((uid_t)user, (uid_t)user, (uid_t)user) != 0)
            fail("becoming the bot's user");
    } else {
        struct cap_header h = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
        struct cap_data d[2] = {{0, 0, 0}, {0, 0, 0}};
        if (syscall(SYS_capset, &h, d) != 0) fail("dropping capabilities");
    }
    if (seccomp_on && !install_seccomp()) fail("seccomp filter");
}

static void devnull_std(void) {
    int fd = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3; i++) dup2(fd, i);
    if (fd > 2) close(fd);
}

static int try_write(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/.kothkit-probe", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return 0;
    int ok = write(fd, "x", 1) == 1;
    close(fd);
    return ok;
}

/* A line of /proc/self/status, e.g. "CapEff", as a string (its value up to the line's end). */
static void status_field(const char *name, char *out, size_t size) {
    snprintf(out, size, "?");
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) return;
    char line[256];
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, n) == 0 && line[n] == ':') {
            char *v = line + n + 1;
            while (*v == ' ' || *v == '\t') v++;
            v[strcspn(v, "\n")] = 0;
            snprintf(out, size, "%s", v);
            break;
        }
    }
    fclose(f);
}

static void probe_report(void) {
    char buf[1024], caps[64], nnp[16], sec[16];
    struct stat st;
    status_field("CapEff", caps, sizeof caps);
    status_field("NoNewPrivs", nnp, sizeof nnp);
    status_field("Seccomp", sec, sizeof sec);
    struct { unsigned int bytes; int type; unsigned char data[128]; } handle = {128, 0, {0}};
    int mount_id;
    long r = syscall(SYS_name_to_handle_at, AT_FDCWD, folder, &handle, &mount_id, 0);
    int handle_errno = r == 0 ? 0 : errno;
    int n = snprintf(buf, sizeof buf,
                     "pid=%d folder=%s outside=%s sibling_hidden=%s uid=%d caps=%s nnp=%s seccomp=%s handle=%s\n",
                     (int)getpid(), try_write(folder) ? "True" : "False",
                     outside ? (try_write(outside) ? "True" : "False") : "None",
                     sibling ? (stat(sibling, &st) != 0 ? "True" : "False") : "None", (int)getuid(), caps, nnp, sec,
                     handle_errno == EPERM ? "EPERM" : handle_errno == 0 ? "allowed" : "other");
    if (write(1, buf, n) < 0) _exit(1);
    _exit(0);
}

__attribute__((noreturn)) static void start_bot(char **cmd, int *cgroup_fds) {
    setsid(); /* a bot signalling its process group reaches only its own processes */
    for (int i = 0; i < ncgroups; i++)
        if (write(cgroup_fds[i], "0", 1) < 0) fail(cgroups[i]);
    /* Its cgroups become its /proc/self/cgroup's "/": their names (and the judge's) are not shown.
       (Where the kernel has no cgroup namespace, they are, which tells nothing the bot can use.) */
    if (ncgroups > 0) unshare(CLONE_NEWCGROUP);
    if (chdir(folder) != 0) fail(folder);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    for (int i = 0; i < nrlimits; i++) {
        struct rlimit rl = {rlimits[i].soft, rlimits[i].hard};
        if (setrlimit(rlimits[i].resource, &rl) != 0) fail("setrlimit");
    }
    clearenv(); /* nothing of the judge's environment: only what the judge names */
    for (int i = 0; i < nenvs; i++) putenv(envs[i]);
    drop_privileges();
    if (probe) probe_report();
    execvp(cmd[0], cmd);
    char buf[512];
    int n = snprintf(buf, sizeof buf, "kothkit: cannot start '%s': %s\n", cmd[0], strerror(errno));
    if (write(2, buf, n) < 0) { /* nothing more to do */ }
    _exit(127);
}

/* When the bot ended with its /tmp or /dev/shm full (disk_mb), say so on its stderr: the
   judge rules that the bot filled its disk (kothkit.procs.contain.DISK_FULL). */
static void report_full_disk(int err_fd) {
    const char *scratch[] = {"/tmp", "/dev/shm"};
    for (int i = 0; i < 2 && err_fd >= 0 && fs; i++) {
        struct statvfs sv;
        if (statvfs(scratch[i], &sv) == 0 && sv.f_blocks > 0 && sv.f_bavail == 0) {
            char buf[160];
            int n = snprintf(buf, sizeof buf, "\nkothkit: the bot ended with its %s full (%ld MiB)\n", scratch[i], tmp_mb);
            if (write(err_fd, buf, n) < 0) { /* the judge is gone */ }
            return;
        }
    }
}

/* The init's end when the leader dies (the judge or its worker died): a bot frozen while it waits
   (cgroup v1 freezer) would not die of the SIGKILL the kernel then sends, so thaw it first. */
static void on_leader_death(int sig) {
    (void)sig;
    if (freezer_fd >= 0) {
        const char *thawed = strstr(freezer, "freezer.state") ? "THAWED" : "0";
        if (write(freezer_fd, thawed, strlen(thawed)) < 0) { /* nothing more to do */ }
    }
    _exit(1);
}

/* The leader's arguments and environment as exec laid them out (the judge's paths, cgroup names and
   environment): what /proc/1/cmdline and /proc/1/environ show of the init, blanked there. */
static char *shown_start, *shown_end;

static char **copy_arguments(int argc, char **argv) {
    extern char **environ;
    char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
    if (!copy) fail("malloc");
    for (int i = 0; i < argc; i++)
        if (!(copy[i] = strdup(argv[i]))) fail("strdup");
    copy[argc] = NULL;
    shown_start = argv[0];
    shown_end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    for (char **e = environ; e && *e; e++)  /* the environment's strings follow the arguments' */
        if (*e == shown_end) shown_end += strlen(*e) + 1;
    return copy;
}

static void run_init(char **cmd, int status_w, int life_r, int *cgroup_fds) {
    if (shown_start && shown_end > shown_start) {
        memset(shown_start, 0, (size_t)(shown_end - shown_start));
        snprintf(shown_start, (size_t)(shown_end - shown_start), "kothkit-init");
    }
    if (freezer_fd >= 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_leader_death;
        sigaction(SIGTERM, &sa, NULL);
        prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    } else {
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    }
    char c;
    fcntl(life_r, F_SETFL, O_NONBLOCK);
    if (read(life_r, &c, 1) == 0) _exit(1); /* the leader died before PR_SET_PDEATHSIG took */
    if (mntns_fd >= 0) prepared_proc();
    else if (fs) enter_root();
    else mount_proc();
    /* vfork: the init waits anyway while the bot sets itself up and execs (start_bot never returns,
       and changes nothing of the init's but the environment, which the init does not use); a
       fork would copy the init's pages for nothing. */
    pid_t bot = vfork();
    if (bot < 0) fail("fork");
    if (bot == 0) start_bot(cmd, cgroup_fds);
    for (int i = 0; i < ncgroups; i++) close(cgroup_fds[i]);
    int err_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
    devnull_std();
    for (;;) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) _exit(1);
        if (pid == bot) {
            report_full_disk(err_fd);
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%d", status);
            if (write(status_w, buf, n) < 0) _exit(1);
            _exit(0); /* the kernel now kills whatever the bot left in the namespace */
        }
    }
}

int main(int argc, char **argv) {
#ifdef KOTHKIT_DUMP_SECCOMP
    if (argc >= 2 && strcmp(argv[1], "dump-seccomp") == 0) {  /* the tests' build: the filter, raw */
        struct sock_filter f[FILTER_MAX];
        pinned = argc == 3 && strcmp(argv[2], "pinned=1") == 0;
        int k = build_seccomp(f);
        return fwrite(f, sizeof f[0], (size_t)k, stdout) == (size_t)k ? 0 : 1;
    }
#endif
    argv = copy_arguments(argc, argv); /* parsed and run from a copy: the original is blanked in the init */
    int first = parse(argc, argv);
    char **cmd = argv + first;
    if (!folder || (first >= argc && !probe && !prepare)) {
        fprintf(stderr, "usage: jailinit folder=DIR [key=value...] -- command...\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (parent && getppid() != parent) _exit(137); /* the judge is already gone */
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    /* Opened before the mounts turn /sys read-only; the bot writes itself in. */
    int cgroup_fds[MAX_LIST];
    for (int i = 0; i < ncgroups; i++)
        if ((cgroup_fds[i] = open(cgroups[i], O_WRONLY | O_CLOEXEC)) < 0) fail(cgroups[i]);
    if (freezer && (freezer_fd = open(freezer, O_WRONLY | O_CLOEXEC)) < 0) fail(freezer);
    if (fs && user >= 0 && !userns && mntns_fd < 0 && !source_dir) {
        /* before the PID namespace: the helper process must not become its init */
        struct stat st;
        if (stat(folder, &st) != 0) fail(folder);
        userns_fd = idmap_userns((unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)user);
        if (userns_fd < 0) fail("a user namespace for the id-mapping of the bot's folder");
    }
    if (prepare) run_prepare();
    if (mntns_fd >= 0) {
        enter_prepared();
    } else {
        enter_namespaces();
        if (fs) build_root();
    }
    int status_pipe[2], life_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0 || pipe2(life_pipe, O_CLOEXEC) != 0) fail("pipe");
    pid_t init = fork();
    if (init < 0) fail("fork");
    if (init == 0) {
        close(status_pipe[0]);
        close(life_pipe[1]);
        run_init(cmd, status_pipe[1], life_pipe[0], cgroup_fds);
    }
    close(status_pipe[1]);
    close(life_pipe[0]);
    for (int i = 0; i < ncgroups; i++) close(cgroup_fds[i]);
    devnull_std();
    while (waitpid(init, NULL, 0) < 0 && errno == EINTR) {
    }
    char buf[32] = {0};
    ssize_t n = read(status_pipe[0], buf, sizeof buf - 1);
    if (n <= 0) kill(getpid(), SIGKILL); /* the init was killed: the bot with it */
    int status = atoi(buf);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* the bot's signal, not a core dump of ours */
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
