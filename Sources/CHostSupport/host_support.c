#define _GNU_SOURCE
#include <malloc.h>
#include <sys/mman.h>

#include "host_support.h"

size_t motion_heap_in_use(void) { return mallinfo2().uordblks; }

int motion_memory_file(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
