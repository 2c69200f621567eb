// c-ares, the asynchronous DNS resolver curl uses (Debian: libc-ares-dev). Includes only:
// atsprobe drives its sockets from the probe's reactor (ATSProbe/Resolver.swift).
#ifndef ATSPROBE_CARES_SHIM_H
#define ATSPROBE_CARES_SHIM_H
#include <ares.h>
#endif
