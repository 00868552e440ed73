#ifndef PROGRESSD_CPLATFORM_H
#define PROGRESSD_CPLATFORM_H

/* The process and terminal calls progressctl needs that glibc declares only for GNU or
 * X/Open sources, which Swift's Glibc module does not see: each is called here, in C
 * compiled with _GNU_SOURCE, with its numbers and flags from glibc's and Linux's headers. */

#include <spawn.h>
#include <stddef.h>

/* pipe2(2): both ends closed on exec, and non-blocking when `nonblocking`. */
int cplatform_pipe(int ends[2], int nonblocking);

/* A new pseudo-terminal: posix_openpt (read-write, not the controlling terminal, closed on
 * exec), grantpt, unlockpt, and the slave's path into `name` (ptsname_r). The master, or -1
 * with errno set. */
int cplatform_open_pty(char *name, size_t size);

/* posix_spawnattr_setflags' flag that starts the child in a session of its own. */
short cplatform_spawn_new_session_flag(void);

/* Closes every descriptor from `lowest` on in the child (posix_spawn_file_actions_addclosefrom_np). */
int cplatform_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
