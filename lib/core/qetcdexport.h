// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/qglobal.h>

// The library is built with hidden visibility: a symbol leaves libQEtcd only when its
// declaration says so. QETCD_EXPORT marks the public API (on a class it also exports the
// class's meta-object, vtable and type information); everything else, the generated etcd
// protobuf and gRPC stubs included, stays inside.
//
// QETCD_INTERNAL_EXPORT marks the few internals (declared in *_p.h headers, namespace
// QEtcd::Internal) that the project's own QML library, console and tests link against. They are
// not API: no header of theirs is installed and they may change in any release. The
// exported-symbols test lists each of them by name, so adding one is a deliberate act.

#if defined(QETCD_BUILDING_QETCD)
#  define QETCD_EXPORT Q_DECL_EXPORT
#else
#  define QETCD_EXPORT Q_DECL_IMPORT
#endif
#define QETCD_INTERNAL_EXPORT QETCD_EXPORT
