#ifndef CSPAWN_H
#define CSPAWN_H

#include <spawn.h>

/// glibc's file actions that spawn.h declares only under _GNU_SOURCE, which Swift's Glibc module does not define.
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
int cspawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
