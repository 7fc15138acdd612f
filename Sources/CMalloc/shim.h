#ifndef HERALD_CMALLOC_SHIM_H
#define HERALD_CMALLOC_SHIM_H
// glibc's malloc extensions (malloc_trim), which Swift's Glibc module does not export; features.h
// says whether the C library is glibc (musl and Darwin have no malloc_trim).
#if defined(__linux__)
#include <features.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif
#endif
