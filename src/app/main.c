/* vkskin: orchestrates the subcommands; each lives in its own cmd_*.c. */
#include "app.h"
#include "commands.h"
#include "output.h"

#include "vkskin/vkskin.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"info", cmd_info, "print a model's meshes, materials, joints, clips and influence statistics"},
    {"dump", cmd_dump, "write every skinned vertex of a clip at a time, one line each"},
    {"view", cmd_view, "show the animated character in a window"},
    {"render", cmd_render, "render the character headless to a PNG"},
    {"bench", cmd_bench, "measure a crowd's frame: animation, skinning, drawing, bandwidth"},
    {"devices", cmd_devices, "list the Vulkan devices"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: vkskin COMMAND [MODEL] [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nWithout MODEL the bundled default character is used. "
               "'vkskin COMMAND --help' tells more; 'vkskin --version' the version.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return APP_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return APP_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("vkskin %s\n", vkskin_version());
        return APP_OK;
    }
    /* A file-size limit (ulimit -f) makes a write fail with EFBIG, which is reported, instead of
     * killing the program mid-file. */
    signal(SIGXFSZ, SIG_IGN);
    app_output_init();
#ifdef __GLIBC__
    /* Blocks of 1 MiB and more come from mmap and go back to the system when freed. glibc's
     * default threshold rises to the largest block freed (up to 32 MiB), after which the
     * driver's and the validation layer's image-sized blocks, made and freed at every swapchain
     * rebuild, land in the heap and fragment it: a long `view` held ever more freed memory
     * (tests/soak.sh, docs/testing.md), never more in use. Setting the threshold fixes it. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* What was printed on standard output reached it, or the run failed. */
            errno = 0;
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc == APP_OK) {
                fprintf(stderr, "vkskin %s: cannot write to standard output: %s\n", argv[1],
                        strerror(errno ? errno : EIO));
                rc = APP_FAILED;
            }
            app_signal_finish(); /* a caught SIGINT or SIGTERM: dies of it, after the summary */
            return rc;
        }
    fprintf(stderr, "vkskin: unknown command '%s' (see vkskin --help)\n", argv[1]);
    return APP_USAGE;
}
