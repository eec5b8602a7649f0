// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "recipe.h"

namespace QEtcd::Internal {

// How a watch's recovery event moves its recipe's connection state.
Recipe::SourceHealth healthAfter(WatchRecoveryKind kind);
// How a recipe that follows another (a provider its cache) maps that one's state.
Recipe::SourceHealth healthOf(ConnectionState state);

} // namespace QEtcd::Internal
