// SPDX-License-Identifier: Apache-2.0
#pragma once

// The transport header that upward_p.h reaches for.
