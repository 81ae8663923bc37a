/* peak_rss: runs a command and prints, on stderr after it ends, the most resident memory it held
 * ("peak_rss_kib N", from wait4's rusage), then exits with its status (128 + N when a signal
 * ended it). Tests assert on memory, not on time.
 *   usage: peak_rss COMMAND [ARGS...] */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak_rss COMMAND [ARGS...]\n");
        return 2;
    }
    const pid_t child = fork();
    if (child < 0) {
        perror("peak_rss: fork");
        return 2;
    }
    if (child == 0) {
        execvp(argv[1], argv + 1);
        perror("peak_rss: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) != child) {
        perror("peak_rss: wait4");
        return 2;
    }
    fprintf(stderr, "peak_rss_kib %ld\n", usage.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
