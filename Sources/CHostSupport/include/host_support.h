/* Small libc facts Swift cannot reach directly (glibc's <malloc.h> is not in Swift's Glibc module). */
#ifndef MOTION_HOST_SUPPORT_H
#define MOTION_HOST_SUPPORT_H
#include <stddef.h>

/** Bytes of heap in use by malloc (mallinfo2's uordblks): `motiond --validate` watches it grow. */
size_t motion_heap_in_use(void);

#endif
