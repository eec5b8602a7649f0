// SPDX-License-Identifier: Apache-2.0
#pragma once

// glibc keeps memory a burst of work freed as free heap, resident, whenever lasting allocations
// sit among it: it only gives back what lies at the top of an arena. A burst the library makes
// (a listing of a million keys, a few hundred lease grants in flight at once) leaves megabytes
// of it behind, more than the lasting state the burst built. giveBackFreedMemory() hands the
// whole free pages among them back to the system; it takes the allocator a few milliseconds
// and blocks other threads' allocations meanwhile, so call it once, when a burst ends.
// Without glibc it does nothing.

#include <QEtcd/qetcdexport.h>

namespace QEtcd::Internal {

QETCD_INTERNAL_EXPORT void giveBackFreedMemory();

} // namespace QEtcd::Internal
