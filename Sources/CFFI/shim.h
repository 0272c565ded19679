#ifndef MOTIOND_CFFI_SHIM_H
#define MOTIOND_CFFI_SHIM_H
#include <ffi.h>
/* Swift 6 rejects references to mutable C globals; these accessors hand out libffi's type descriptors. */
static inline ffi_type *cffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *cffi_type_float(void) { return &ffi_type_float; }
static inline ffi_type *cffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_abi cffi_default_abi(void) { return FFI_DEFAULT_ABI; }
#endif
