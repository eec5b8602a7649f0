// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a barrier's key holds for the instant before it is deleted on purpose, so that a waiter
// reading the deleted key's last value tells a deliberate lift from an expiry, which a lease
// revoked right after the deletion would otherwise look like. A token ends in ':' and seven
// alphanumerics, so it never ends like either.

namespace QEtcd::Internal {

// Its owner removes it (DistributedBarrier::removeBarrier()).
inline constexpr char barrierRemovingSuffix[] = ";removing";
// Someone else lifts it (CoordinationInterventions::liftBarrier(): an operator).
inline constexpr char barrierLiftedSuffix[] = ";lifted";

} // namespace QEtcd::Internal
