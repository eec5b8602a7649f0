// SPDX-License-Identifier: Apache-2.0
#include "freedmemory_p.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace QEtcd::Internal {

void giveBackFreedMemory()
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

} // namespace QEtcd::Internal
