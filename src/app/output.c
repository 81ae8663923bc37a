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

/* A target that is not a plain file (a symbolic link such as /dev/stdout, a device, a pipe):
 * written in place, every write checked. Renaming over it would replace the link or the device
 * node itself. */
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

/* The permissions a new file gets: 0666 less the umask (read without changing it for long). */
static mode_t new_file_mode(void)
{
    const mode_t mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

bool app_write_file(const char *path, const void *data, size_t size, bool no_clobber,
                    vkskin_error *err)
{
    if (strcmp(path, "-") == 0)
        return write_stdout(data, size, err);
    /* lstat: a symbolic link (/dev/stdout is one) is written through, never renamed over. */
    struct stat st;
    const bool exists = lstat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_special(path, data, size, err);
    /* The temporary: ".NAME.vkskin-XXXXXX" in the target's folder, so that the rename stays on
     * one filesystem and is atomic. */
    const char *slash = strrchr(path, '/');
    const int folder = slash ? (int)(slash - path + 1) : 0;
    char temp[4200];
    if (snprintf(temp, sizeof temp, "%.*s.%s.vkskin-XXXXXX", folder, path, path + folder) >=
        (int)sizeof temp)
        return app_fail(err, "cannot write '%s': %s", path, strerror(ENAMETOOLONG));
    const int fd = mkstemp(temp);
    if (fd < 0)
        return app_fail(err, "cannot write '%s': %s", path, strerror(errno));
    const mode_t mode = exists ? st.st_mode & 07777 : new_file_mode();
    bool ok = fchmod(fd, mode) == 0 && write_all(fd, data, size) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok) {
        /* link fails with EEXIST where rename would replace a file made meanwhile. */
        ok = no_clobber ? link(temp, path) == 0 : rename(temp, path) == 0;
        saved = errno;
    }
    if (!ok || no_clobber)
        unlink(temp);
    if (!ok) {
        app_fail(err, "cannot write '%s': %s", path, strerror(saved ? saved : EIO));
        errno = saved ? saved : EIO;
        return false;
    }
    /* The rename itself made durable: the folder synced (best effort; some filesystems cannot
     * sync a folder, and the file is whole either way). */
    char dir[4200];
    snprintf(dir, sizeof dir, "%.*s", folder ? folder : 1, folder ? path : ".");
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return true;
}

/* ---- Signals ---- */

static volatile sig_atomic_t caught;

static void on_signal(int signal)
{
    caught = signal;
}

void app_signals_catch(void)
{
    /* SA_RESETHAND: the next one has the default action, so a second Ctrl-C kills at once;
     * SA_RESTART: a write in progress goes on rather than fail with EINTR. */
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_RESTART};
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
