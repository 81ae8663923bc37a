#include "commands.h"
#include "gpu_app.h"

int cmd_devices(int argc, char **argv)
{
    const app_command cmd = {
        .name = "devices",
        .summary = "Lists the Vulkan devices, with the index --device takes. Without --device the\n"
                   "first usable discrete GPU is used, else an integrated one, else a CPU one.",
    };
    const char *none;
    int rc = app_parse(&cmd, argc, argv, &none);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vks_error err;
    if (!gpu_list_devices(stdout, &err)) {
        fprintf(stderr, "vkskin devices: %s\n", err.msg);
        return APP_FAILED;
    }
    return APP_OK;
}
