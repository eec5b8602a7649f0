// SPDX-License-Identifier: Apache-2.0
#pragma once

// Breaks the rule checklayers.cmake enforces: core reaching up into transport.
#include "client_p.h"
