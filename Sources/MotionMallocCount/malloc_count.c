/* Counts heap allocations, for "allocations per tick" (BENCHMARKS.md: zero in steady state) and for
 * `motiond --validate` (no allocation in a plugin's advance). Built by the package as
 * libmotion-malloc-count.so and preloaded into motion-bench (scripts/bench) and into the validator's
 * child, which read the count through dlsym(RTLD_DEFAULT, "motion_malloc_count"):
 *
 *   LD_PRELOAD=.build/release/libmotion-malloc-count.so motion-bench engine --springs 1000
 *
 * Every allocation entry point forwards to glibc's own implementation; nothing else changes. */
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic unsigned long allocations;

static void counted(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { counted(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    counted();
    *result = __libc_memalign(alignment, size);
    return *result ? 0 : 12; /* ENOMEM */
}

unsigned long motion_malloc_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
