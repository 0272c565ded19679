#include <malloc.h>

#include "host_support.h"

size_t motion_heap_in_use(void) { return mallinfo2().uordblks; }
