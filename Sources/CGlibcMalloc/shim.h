// glibc's allocator controls (malloc_trim), which Swift's Glibc module does not expose.
// Part of libc6-dev: no package beyond the toolchain's own.
#include <malloc.h>
