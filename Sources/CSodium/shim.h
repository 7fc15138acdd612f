#ifndef HERALD_CSODIUM_SHIM_H
#define HERALD_CSODIUM_SHIM_H
#include <sodium.h>
#endif
