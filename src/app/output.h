/* Outputs written whole or not at all, and the signals that end a run early.
 *
 * Every file the program writes (images, sequences, screenshots, dumps) is made in memory first,
 * then written to a temporary file beside the target (".vkskin-XXXXXX", so on the same
 * filesystem), every write checked, synced, and renamed over the target; the folder is synced
 * after. Any failure removes the temporary and leaves an existing target as it was, byte for
 * byte: a full disk, a file-size limit or a lost device never leave half a file behind, and
 * never a success message. This is how git and SQLite replace files.
 *
 *   app_buffer b = {0};
 *   ok = encode(&b) && app_write_file(path, b.data, b.size, false, err);
 *   free(b.data);
 *
 * A symbolic link (/dev/stdout is one) is followed: the plain file at its end is replaced that
 * way, the link kept. A device or a pipe is written in place: renaming over it would replace the
 * node.
 * Standard output ("-") is written directly; its writes are checked too, and main checks the
 * flush of everything else the program printed there. */
#ifndef VKS_APP_OUTPUT_H
#define VKS_APP_OUTPUT_H

#include "app.h"

#include <stddef.h>

/* Bytes being made in memory; `failed` once a growth ran out of memory. */
typedef struct app_buffer {
    unsigned char *data;
    size_t size, room;
    bool failed;
} app_buffer;

/* Appends `size` bytes (sets failed when out of memory). */
void app_buffer_append(app_buffer *b, const void *data, size_t size);
/* The same as an stb_image_write callback: `context` is the app_buffer. */
void app_buffer_write(void *context, void *data, int size);

/* Reads the umask for the files to come: call it first thing, before any thread. */
void app_output_init(void);

/* Writes `size` bytes to `path` as described above; "-": to standard output. no_clobber: the
 * target must not exist, not even as a link (it is linked into place, which fails with EEXIST
 * rather than replace a file another process made meanwhile). On failure err says which file and
 * why ("cannot write 'x.png': No space left on device", errno set), and nothing of it is left. */
bool app_write_file(const char *path, const void *data, size_t size, bool no_clobber,
                    vkskin_error *err);

/* ---- Signals ---- */

/* From now on SIGINT and SIGTERM end the run at the next point where it can stop cleanly (after
 * the frame or file in hand), instead of killing it: the command finishes what it is writing,
 * prints its summary, and main then dies of the same signal (a shell sees 130 or 143). A second
 * signal kills at once, removing the temporary being written. A signal ignored from the start
 * stays ignored. */
void app_signals_catch(void);
/* The signal caught (SIGINT or SIGTERM), 0 for none. */
int app_signal(void);
/* The signal's name for a summary: "SIGINT", "SIGTERM". */
const char *app_signal_name(int signal);
/* After the command: flushes standard output and, when a signal was caught, dies of it with its
 * default action. Returns otherwise. */
void app_signal_finish(void);

#endif
