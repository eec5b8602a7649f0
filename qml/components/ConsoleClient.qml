// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcd

// A client the console opens beside its own, for something it takes part in (a participant, a
// barrier the operator set): where the console's connection goes, or through a sandbox's
// FaultLink. A client of its own means its leases and fault link are its own, and that what it
// holds goes when it does, whatever becomes of the console's connection.
EtcdClient {
    // Connection.participantOptions(): endpoints, TLS files, user, namespace.
    property var options: ({})
    // In a sandbox, the FaultLink its traffic goes through; null outside one.
    property var link: null

    endpoints: link ? link.endpoints : options.endpoints || []
    // A sandbox runs without TLS or users; outside one, the client is who the console is.
    caFile: link ? "" : options.caFile || ""
    serverName: link ? "" : options.serverName || ""
    certFile: link ? "" : options.certFile || ""
    keyFile: link ? "" : options.keyFile || ""
    user: link ? "" : options.user || ""
    password: link ? "" : options.password || ""
    namespace: link ? "" : options.namespace || ""
    // A cut-off client shows Suspended within a second.
    healthCheckInterval: 1000
}
