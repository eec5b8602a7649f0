// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QMetaType>
#include <QtCore/QString>

namespace QEtcd {

/// The outcome of one library operation: a code and a message naming what went wrong.
///
/// No exception crosses qetcd's public API; every operation reports a Status instead. It tests
/// true when the operation succeeded.
///
/// A Q_GADGET, so QML reads it as a value: status.code, status.codeName, status.message,
/// status.isOk, status.toString().
class QETCD_EXPORT Status
{
    Q_GADGET
    /// The code; StatusCode::Ok on success.
    Q_PROPERTY(QEtcd::StatusCode code READ code CONSTANT)
    /// The code's enumerator name ("OwnershipLost").
    Q_PROPERTY(QString codeName READ codeName CONSTANT)
    /// What went wrong, naming the key, lease or endpoint concerned; empty on success.
    Q_PROPERTY(QString message READ message CONSTANT)
    /// The operation succeeded.
    Q_PROPERTY(bool isOk READ isOk CONSTANT)
    /// A failure a retry may cure (see isTransient()).
    Q_PROPERTY(bool isTransient READ isTransient CONSTANT)
    /// The code as a number: gRPC's wire value below 256, qetcd's own from 256.
    Q_PROPERTY(int wireCode READ wireCode CONSTANT)

public:
    /// Success.
    Status() = default;
    /// A status of \a code, explained by \a message.
    Status(StatusCode code, QString message) : m_code(code), m_message(std::move(message)) {}

    /// Success, spelled out.
    static Status ok() { return {}; }

    /// The code is StatusCode::Ok.
    bool isOk() const { return m_code == StatusCode::Ok; }
    /// The same as isOk(), so `if (status)` reads as "if it worked".
    explicit operator bool() const { return isOk(); }
    /// The code.
    StatusCode code() const { return m_code; }
    /// The code as its number.
    int wireCode() const { return static_cast<int>(m_code); }
    /// What went wrong; empty on success.
    QString message() const { return m_message; }

    /// A failure a retry may cure: the server was unreachable, overloaded or slow (Unavailable,
    /// Internal, DeadlineExceeded, or etcd's "too many requests", see isTooManyRequests()).
    bool isTransient() const;
    /// NotFound with etcd's "lease not found": the lease was already gone when asked about.
    bool isLeaseNotFound() const;
    /// etcd refused the request unapplied ("etcdserver: too many requests"): more proposals
    /// waited than it takes, so nothing was written and the same request may be sent again in a
    /// moment. etcd 3.4 sends it as Unknown, later versions as ResourceExhausted; the client
    /// reports it as ResourceExhausted.
    bool isTooManyRequests() const;

    /// The same status with what the library was doing ("put /a/b") in front of the
    /// server's words; success stays as it is.
    Status withContext(const QString &context) const;

    /// The code's enumerator name, or its number for a code qetcd does not know.
    QString codeName() const;
    /// "Ok", or "<codeName>: <message>", for logs and people.
    Q_INVOKABLE QString toString() const;

    /// Same code and same message.
    friend bool operator==(const Status &a, const Status &b)
    {
        return a.m_code == b.m_code && a.m_message == b.m_message;
    }
    /// Code or message differ.
    friend bool operator!=(const Status &a, const Status &b) { return !(a == b); }

private:
    StatusCode m_code = StatusCode::Ok;
    QString m_message;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::Status)
