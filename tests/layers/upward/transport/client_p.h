#pragma once

// The transport header that upward_p.h reaches for.
