/* SwiftPM needs one C file in a C target; the ABI itself is header-only. */
#include "motion_plugin.h"

/* Lets the host report the ABI it was built with without importing C macros. */
uint32_t motion_host_abi_major(void) { return MOTION_ABI_MAJOR; }
uint32_t motion_host_abi_minor(void) { return MOTION_ABI_MINOR; }
