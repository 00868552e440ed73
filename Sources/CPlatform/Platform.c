#define _GNU_SOURCE 1

#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int cplatform_pipe(int ends[2], int nonblocking) {
    return pipe2(ends, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}

int cplatform_open_pty(char *name, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0)
        return -1;
    int failed = grantpt(master) != 0 || unlockpt(master) != 0;
    if (!failed) {
        int code = ptsname_r(master, name, size);
        if (code != 0) {
            errno = code;
            failed = 1;
        }
    }
    if (failed) {
        int code = errno;
        close(master);
        errno = code;
        return -1;
    }
    return master;
}

short cplatform_spawn_new_session_flag(void) {
    return POSIX_SPAWN_SETSID;
}

int cplatform_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
