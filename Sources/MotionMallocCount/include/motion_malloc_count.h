/* The count of heap allocations made so far, when libmotion-malloc-count.so is preloaded. */
unsigned long motion_malloc_count(void);
