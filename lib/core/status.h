#pragma once

#include <QEtcd/enums.h>
#include <QEtcd/qetcdexport.h>

#include <QtCore/QMetaType>
#include <QtCore/QString>

namespace QEtcd {

// A Q_GADGET, so QML reads it as a value: status.code, status.codeName, status.message,
// status.isOk, status.toString().
class QETCD_EXPORT Status
{
    Q_GADGET
    Q_PROPERTY(QEtcd::StatusCode code READ code CONSTANT)
    Q_PROPERTY(QString codeName READ codeName CONSTANT)
    Q_PROPERTY(QString message READ message CONSTANT)
    Q_PROPERTY(bool isOk READ isOk CONSTANT)
    Q_PROPERTY(bool isTransient READ isTransient CONSTANT)
    Q_PROPERTY(int wireCode READ wireCode CONSTANT)

public:
    Status() = default;
    Status(StatusCode code, QString message) : m_code(code), m_message(std::move(message)) {}

    static Status ok() { return {}; }

    bool isOk() const { return m_code == StatusCode::Ok; }
    explicit operator bool() const { return isOk(); }
    StatusCode code() const { return m_code; }
    int wireCode() const { return static_cast<int>(m_code); }
    QString message() const { return m_message; }

    // gRPC's codes that a retry may cure: the server was unreachable, overloaded or slow.
    bool isTransient() const;
    // "lease not found" from etcd, or the lease was already gone when we asked about it.
    bool isLeaseNotFound() const;

    // Adds what the library was doing ("put /a/b") in front of the server's words.
    Status withContext(const QString &context) const;

    QString codeName() const;
    Q_INVOKABLE QString toString() const;

    friend bool operator==(const Status &a, const Status &b)
    {
        return a.m_code == b.m_code && a.m_message == b.m_message;
    }
    friend bool operator!=(const Status &a, const Status &b) { return !(a == b); }

private:
    StatusCode m_code = StatusCode::Ok;
    QString m_message;
};

} // namespace QEtcd

Q_DECLARE_METATYPE(QEtcd::Status)
