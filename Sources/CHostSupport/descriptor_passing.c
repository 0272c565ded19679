/* Handing a file descriptor to a client over its Unix socket (SCM_RIGHTS): the shared-memory frames. */
#define _GNU_SOURCE
#include "host_support.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

unsigned long long motion_socket_cookie(int fd) {
    uint64_t cookie = 0;
    socklen_t length = sizeof cookie;
    if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &length) != 0) return 0;
    return cookie;
}

int motion_socket_with_cookie(unsigned long long cookie) {
    if (cookie == 0) return -1;
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return -1;
    int found = -1, own = dirfd(directory);
    struct dirent *entry;
    while (found < 0 && (entry = readdir(directory)) != NULL) {
        char *end;
        long fd = strtol(entry->d_name, &end, 10);
        if (*end != 0 || end == entry->d_name || fd == own) continue;
        struct stat status;
        if (fstat((int)fd, &status) != 0 || !S_ISSOCK(status.st_mode)) continue;
        if (motion_socket_cookie((int)fd) == cookie) found = (int)fd;
    }
    closedir(directory);
    return found;
}

long motion_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor) {
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer,
                             .msg_controllen = sizeof control.buffer};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    ssize_t sent;
    do sent = sendmsg(socket, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return (long)sent;
}
