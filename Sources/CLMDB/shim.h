#ifndef HERALD_CLMDB_SHIM_H
#define HERALD_CLMDB_SHIM_H
#include <lmdb.h>
#endif
