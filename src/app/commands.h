/* The subcommands of `vkskin`. Each takes argv with argv[0] = the subcommand's name and returns
 * the process exit code (app.h: APP_OK, APP_FAILED, APP_USAGE). */
#ifndef VKS_COMMANDS_H
#define VKS_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
