#ifndef HERALD_CSECP256K1_SHIM_H
#define HERALD_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <secp256k1_ecdh.h>
#endif
