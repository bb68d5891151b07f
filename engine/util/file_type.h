// SPDX-License-Identifier: Apache-2.0
// What a stat() mode names, for messages about files that are not regular files.
#pragma once

#include <sys/stat.h>

namespace ios::util {

// "a directory", "a FIFO (named pipe)", "a character device", ...; "not a plain file" else.
inline const char* fileTypeName(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a plain file";
}

} // namespace ios::util
