#ifndef HERALD_CMALLOC_SHIM_H
#define HERALD_CMALLOC_SHIM_H
// glibc's malloc extensions (malloc_trim), which Swift's Glibc module does not export.
#include <malloc.h>
#endif
