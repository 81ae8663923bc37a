#include "commands.h"
#include "app.h"

#include "vkskin/vkskin_render.h"

#include <stdio.h>
#include <stdlib.h>

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
    vkskin_error err;
    uint32_t count = 0;
    vkskin_device_info *devices = NULL;
    uint32_t capacity = 0;
    if (vkskin_list_devices(NULL, 0, &capacity, &err) != VKSKIN_OK ||
        (capacity && !(devices = calloc(capacity, sizeof *devices))) ||
        (capacity && vkskin_list_devices(devices, capacity, &count, &err) != VKSKIN_OK)) {
        fprintf(stderr, "vkskin devices: %s\n",
                capacity && !devices ? "out of memory" : err.message);
        free(devices);
        return APP_FAILED;
    }
    for (uint32_t i = 0; i < count && i < capacity; i++) { /* a device may come meanwhile */
        const vkskin_device_info *d = &devices[i];
        printf("%u: %s (%s, Vulkan %u.%u.%u)%s%s\n", i, d->name, d->type,
               VK_API_VERSION_MAJOR(d->api_version), VK_API_VERSION_MINOR(d->api_version),
               VK_API_VERSION_PATCH(d->api_version), d->unusable ? ": unusable, " : "",
               d->unusable ? d->unusable : "");
    }
    free(devices);
    return APP_OK;
}
