/* The bot launcher of kothkit.contain.Jail, in C: the same job and arguments as jailinit.py.
 *
 * kothkit compiles this file once per machine (cached by its content) when a C compiler is
 * there, because it starts in about a millisecond where the Python version needs ten: it runs
 * before every bot of every game.  See jailinit.py for the design; in short:
 *
 *   leader (the judge's child): dies with the judge; unshares a PID and a mount namespace;
 *       makes the filesystem read-only but the bot's folder and a private /tmp and /dev/shm,
 *       and hides the other bots' folders; then waits for the init and ends as the bot ended;
 *   init (PID 1 of the namespace): dies with the leader; reaps orphans; when the bot exits,
 *       hands its wait status to the leader and exits, so the kernel kills what is left;
 *   bot (PID 2): joins its cgroups, takes its limits, drops the capabilities that could undo
 *       the confinement, execs the command.
 *
 * Usage: jailinit key=value... -- command args...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define MOUNT_ATTR_RDONLY_ 0x1
#define AT_RECURSIVE_ 0x8000
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID 0x20000000
#endif

struct mount_attr_ {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define MAX_LIST 16
static long parent;
static int cpu = -1, fs, userns, probe;
static long tmp_mb = 256;
static char *folder, *hide, *outside, *sibling;
static char *cgroups[MAX_LIST];
static int ncgroups;
static char *keeps[MAX_LIST]; /* folders under /tmp or /dev/shm to keep visible, read-only */
static int nkeeps;
static struct { int resource; rlim_t soft, hard; } rlimits[MAX_LIST];
static int nrlimits;

static void fail(const char *what) {
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
        else if (!strcmp(a, "userns")) userns = !strcmp(v, "1");
        else if (!strcmp(a, "probe")) probe = !strcmp(v, "1");
        else if (!strcmp(a, "folder")) folder = v;
        else if (!strcmp(a, "hide")) hide = v;
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

static void set_readonly(const char *path, int readonly, int recursive) {
    struct mount_attr_ attr = {readonly ? MOUNT_ATTR_RDONLY_ : 0, readonly ? 0 : MOUNT_ATTR_RDONLY_, 0, 0};
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE_ : 0, &attr, sizeof attr) == 0) return;
    if (errno != ENOSYS) fail(path);
    remount_each(path, readonly, recursive);
}

static void enter_namespaces(void) {
    int flags = CLONE_NEWPID | CLONE_NEWNS;
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
}

static void confine_files(void) {
    /* Opened in the new namespace (a bind source must be one of its mounts), before anything
       is mounted over the folder's path. */
    int fd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail(folder);
    int keep_fd[MAX_LIST];
    for (int i = 0; i < nkeeps; i++) {
        keep_fd[i] = open(keeps[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (keep_fd[i] < 0) fail(keeps[i]);
    }
    set_readonly("/", 1, 1);
    char opts[64];
    snprintf(opts, sizeof opts, "mode=1777,size=%ldm", tmp_mb);
    const char *scratch[] = {"/tmp", "/dev/shm"};
    for (int i = 0; i < (tmp_mb > 0 ? 2 : 0); i++) {  /* tmp_mb=0: the machine's, read-only */
        struct stat st;
        if (stat(scratch[i], &st) == 0 && S_ISDIR(st.st_mode) &&
            mount("tmpfs", scratch[i], "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
            fail(scratch[i]);
    }
    /* What the judge needs from under the private scratch space (kothkit or its interpreter
       living in /tmp, say), bound back read-only. */
    for (int i = 0; i < nkeeps; i++) {
        char source[64];
        snprintf(source, sizeof source, "/proc/self/fd/%d", keep_fd[i]);
        mkdirs(keeps[i]);
        if (mount(source, keeps[i], NULL, MS_BIND | MS_REC, NULL) != 0) fail(keeps[i]);
        set_readonly(keeps[i], 1, 1);
        close(keep_fd[i]);
    }
    if (hide) {
        mkdirs(hide);
        if (mount("tmpfs", hide, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=64k") != 0) fail(hide);
    }
    mkdirs(folder);
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    if (mount(source, folder, NULL, MS_BIND, NULL) != 0) fail(folder);
    set_readonly(folder, 0, 0);
    if (hide) set_readonly(hide, 1, 0);
    close(fd);
}

static void mount_proc(void) {
    /* A /proc of the namespace's processes, /proc/sys read-only; where that is refused (a user
       namespace with a masked /proc), the old /proc stays, read-only. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) return;
    if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND | MS_REC, NULL) == 0) {
        struct mount_attr_ attr = {MOUNT_ATTR_RDONLY_, 0, 0, 0};
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/proc/sys", AT_RECURSIVE_, &attr, sizeof attr) != 0)
            mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    }
}

static void drop_privileges(void) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    int last = 40;
    FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
    if (f) {
        if (fscanf(f, "%d", &last) != 1) last = 40;
        fclose(f);
    }
    /* kept: CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER (a bot's own folder, whoever owns it) */
    for (int cap = 4; cap <= last; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
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

static void probe_report(void) {
    char buf[256];
    struct stat st;
    int n = snprintf(buf, sizeof buf, "pid=%d folder=%s outside=%s sibling_hidden=%s\n", (int)getpid(),
                     try_write(folder) ? "True" : "False",
                     outside ? (try_write(outside) ? "True" : "False") : "None",
                     sibling ? (stat(sibling, &st) != 0 ? "True" : "False") : "None");
    if (write(1, buf, n) < 0) _exit(1);
    _exit(0);
}

static void start_bot(char **cmd, int *cgroup_fds) {
    setsid(); /* a bot signalling its process group reaches only its own processes */
    for (int i = 0; i < ncgroups; i++)
        if (write(cgroup_fds[i], "0", 1) < 0) fail(cgroups[i]);
    if (chdir(folder) != 0) fail(folder);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    for (int i = 0; i < nrlimits; i++) {
        struct rlimit rl = {rlimits[i].soft, rlimits[i].hard};
        if (setrlimit(rlimits[i].resource, &rl) != 0) fail("setrlimit");
    }
    drop_privileges();
    if (probe) probe_report();
    execvp(cmd[0], cmd);
    char buf[512];
    int n = snprintf(buf, sizeof buf, "kothkit: cannot start '%s': %s\n", cmd[0], strerror(errno));
    if (write(2, buf, n) < 0) { /* nothing more to do */ }
    _exit(127);
}

static void run_init(char **cmd, int status_w, int life_r, int *cgroup_fds) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    char c;
    fcntl(life_r, F_SETFL, O_NONBLOCK);
    if (read(life_r, &c, 1) == 0) _exit(1); /* the leader died before PR_SET_PDEATHSIG took */
    mount_proc();
    pid_t bot = fork();
    if (bot < 0) fail("fork");
    if (bot == 0) start_bot(cmd, cgroup_fds);
    for (int i = 0; i < ncgroups; i++) close(cgroup_fds[i]);
    devnull_std();
    for (;;) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) _exit(1);
        if (pid == bot) {
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%d", status);
            if (write(status_w, buf, n) < 0) _exit(1);
            _exit(0); /* the kernel now kills whatever the bot left in the namespace */
        }
    }
}

int main(int argc, char **argv) {
    int first = parse(argc, argv);
    char **cmd = argv + first;
    if (!folder || (first >= argc && !probe)) {
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
    enter_namespaces();
    if (fs) confine_files();
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
