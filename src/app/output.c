#define _XOPEN_SOURCE 700 /* realpath */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void app_buffer_append(app_buffer *b, const void *data, size_t size)
{
    if (b->failed || !size)
        return;
    if (size > b->room - b->size) {
        size_t room = b->room ? b->room : 1 << 16;
        while (room - b->size < size && room <= SIZE_MAX / 2)
            room *= 2;
        unsigned char *grown = room - b->size >= size ? realloc(b->data, room) : NULL;
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->room = room;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

void app_buffer_write(void *context, void *data, int size)
{
    if (size > 0)
        app_buffer_append(context, data, (size_t)size);
}

/* Every byte to fd, through short writes and interruptions; false with errno set. */
static bool write_all(int fd, const unsigned char *p, size_t size)
{
    while (size) {
        const ssize_t n = write(fd, p, size > (1u << 30) ? (1u << 30) : size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static bool write_stdout(const void *data, size_t size, vkskin_error *err)
{
    errno = 0;
    if (fwrite(data, 1, size, stdout) != size || fflush(stdout) != 0)
        return app_fail(err, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
    return true;
}

/* A target that is not a plain file (a device, a pipe, a link to one): written in place, every
 * write checked. Renaming over it would replace the device node or the link itself. */
static bool write_special(const char *path, const void *data, size_t size, vkskin_error *err)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    bool ok = fd >= 0 && write_all(fd, data, size);
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        app_fail(err, "cannot write '%s': %s", path, strerror(saved ? saved : EIO));
        errno = saved ? saved : EIO;
    }
    return ok;
}

/* The permissions a new file gets: 0666 less the umask, read once by app_output_init (before
 * any thread: reading the umask means setting it). */
static mode_t new_file_mode = 0644;

void app_output_init(void)
{
    const mode_t mask = umask(022);
    umask(mask);
    new_file_mode = 0666 & ~mask;
}

/* The temporary being written, for a second signal to remove before it kills (on_signal). */
static char temp_now[4200];
static volatile sig_atomic_t temp_live;

/* The name `target` claimed for no_clobber where the filesystem has no hard links (vfat, some
 * FUSE and 9p mounts): created empty with O_EXCL, then the temporary renamed over it. */
static bool claim_and_rename(const char *temp, const char *target)
{
    const int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0)
        return false;
    close(fd);
    if (rename(temp, target) == 0)
        return true;
    const int saved = errno;
    unlink(target);
    errno = saved;
    return false;
}

/* Writes `target` (a plain file, or none yet) through a temporary beside it; messages name
 * `shown`, the path as the user gave it. */
static bool write_replace(const char *target, const char *shown, const void *data, size_t size,
                          bool no_clobber, vkskin_error *err)
{
    struct stat st;
    const bool exists = stat(target, &st) == 0;
    /* The temporary: ".vkskin-XXXXXX" in the target's folder (short, so that any name that fits
     * the folder can be written), so that the rename stays on one filesystem and is atomic. */
    const char *slash = strrchr(target, '/');
    const int folder = slash ? (int)(slash - target + 1) : 0;
    char temp[sizeof temp_now];
    if (snprintf(temp, sizeof temp, "%.*s.vkskin-XXXXXX", folder, target) >= (int)sizeof temp)
        return app_fail(err, "cannot write '%s': %s", shown, strerror(ENAMETOOLONG));
    temp_live = 0;
    memcpy(temp_now, temp, sizeof temp);
    const int fd = mkstemp(temp_now);
    if (fd < 0)
        return app_fail(err, "cannot write '%s': %s", shown, strerror(errno));
    temp_live = 1;
    /* The old file's permissions, or a new file's; a filesystem without them (vfat) keeps its
     * own, which is no reason to fail. */
    (void)fchmod(fd, exists ? st.st_mode & 07777 : new_file_mode);
    bool ok = write_all(fd, data, size) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && !no_clobber)
        ok = rename(temp_now, target) == 0;
    else if (ok) {
        /* link fails with EEXIST where rename would replace a file made meanwhile. */
        ok = link(temp_now, target) == 0;
        if (!ok && errno != EEXIST)
            ok = claim_and_rename(temp_now, target);
    }
    saved = ok ? 0 : errno;
    temp_live = 0;
    unlink(temp_now); /* after a rename there is nothing there: no harm */
    if (!ok) {
        app_fail(err, "cannot write '%s': %s", shown, strerror(saved ? saved : EIO));
        errno = saved ? saved : EIO;
        return false;
    }
    /* The rename itself made durable: the folder synced (best effort; some filesystems cannot
     * sync a folder, and the file is whole either way). */
    char dir[sizeof temp_now];
    snprintf(dir, sizeof dir, "%.*s", folder ? folder : 1, folder ? target : ".");
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return true;
}

bool app_write_file(const char *path, const void *data, size_t size, bool no_clobber,
                    vkskin_error *err)
{
    if (strcmp(path, "-") == 0)
        return write_stdout(data, size, err);
    struct stat st;
    if (lstat(path, &st) != 0)
        return write_replace(path, path, data, size, no_clobber, err);
    if (no_clobber) { /* anything there, a link included, is someone's */
        app_fail(err, "cannot write '%s': %s", path, strerror(EEXIST));
        errno = EEXIST;
        return false;
    }
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return write_replace(path, path, data, size, false, err);
    /* A symbolic link (/dev/stdout is one) is followed: a plain file at its end is replaced as
     * any other, the link kept; a device or pipe there, or nothing, is written in place. */
    char *real = S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    struct stat rs;
    const bool plain = real && stat(real, &rs) == 0 && S_ISREG(rs.st_mode);
    const bool ok = plain ? write_replace(real, path, data, size, false, err)
                          : write_special(path, data, size, err);
    const int saved = errno;
    free(real);
    errno = saved;
    return ok;
}

/* ---- Signals ---- */

static volatile sig_atomic_t caught;

static void on_signal(int signal)
{
    if (!caught) {
        caught = signal; /* the run stops at its next clean point */
        return;
    }
    /* A second one: the temporary in hand removed (unlink is async-signal-safe), then the
     * default action. */
    if (temp_live)
        unlink(temp_now);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(signal, &dfl, NULL);
    raise(signal);
}

void app_signals_catch(void)
{
    /* SA_RESTART: a write in progress goes on rather than fail with EINTR. A second signal
     * kills at once (on_signal). */
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    const int signals[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        /* One ignored from the start stays ignored (a shell's background job ignores SIGINT). */
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(signals[i], &sa, NULL);
    }
}

int app_signal(void)
{
    return caught;
}

const char *app_signal_name(int signal)
{
    return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

void app_signal_finish(void)
{
    fflush(stdout);
    if (!caught)
        return;
    fflush(stderr);
    signal(caught, SIG_DFL);
    raise(caught);
}
