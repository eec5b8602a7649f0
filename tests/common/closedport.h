// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QtGlobal>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace QEtcd::Testing {

// A loopback port that refuses every connection for as long as this object lives. A port found
// free and let go again is soon taken on a busy machine: by another test's listener, or as the
// local port of some outgoing connection, and then "nothing answers" is wrong. This one stays
// bound and never listens, so connecting to it is refused and the kernel hands it to no one else.
class ClosedPort
{
public:
    ClosedPort()
        : m_socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0))
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (m_socket >= 0 && ::bind(m_socket, reinterpret_cast<sockaddr *>(&address), length) == 0
            && ::getsockname(m_socket, reinterpret_cast<sockaddr *>(&address), &length) == 0)
            m_port = ntohs(address.sin_port);
    }
    ~ClosedPort()
    {
        if (m_socket >= 0)
            ::close(m_socket);
    }
    ClosedPort(const ClosedPort &) = delete;
    ClosedPort &operator=(const ClosedPort &) = delete;

    // 0 when no port could be held.
    quint16 port() const { return m_port; }

private:
    int m_socket;
    quint16 m_port = 0;
};

} // namespace QEtcd::Testing
