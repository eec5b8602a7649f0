// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `ReadWriteLock` in QML: a DistributedReadWriteLock whose read and write holds belong to the
/// GUI thread. Each side is told acquired, lost and released on its own.
class QETCD_QUICK_EXPORT ReadWriteLockParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ReadWriteLock)
    /// The read side is held.
    Q_PROPERTY(bool readHeld READ isReadHeld NOTIFY heldChanged)
    /// The write side is held.
    Q_PROPERTY(bool writeHeld READ isWriteHeld NOTIFY heldChanged)
    /// Either side is held.
    Q_PROPERTY(bool held READ isHeld NOTIFY heldChanged)
    /// The read hold's fencing token; 0 without one.
    Q_PROPERTY(qint64 readFencingToken READ readFencingToken NOTIFY heldChanged)
    /// The write hold's fencing token; 0 without one.
    Q_PROPERTY(qint64 writeFencingToken READ writeFencingToken NOTIFY heldChanged)

public:
    /// DistributedReadWriteLock::Side, plain so QML spells ReadWriteLock.Read.
    enum Side {
        Read,  ///< The shared side.
        Write  ///< The exclusive side.
    };
    Q_ENUM(Side)

    /// A ReadWriteLock without client or path yet.
    explicit ReadWriteLockParticipant(QObject *parent = nullptr);

    /// The read side is held.
    bool isReadHeld() const;
    /// The write side is held.
    bool isWriteHeld() const;
    /// Either side is held.
    bool isHeld() const;
    /// The read hold's fencing token; 0 without one.
    qint64 readFencingToken() const;
    /// The write hold's fencing token; 0 without one.
    qint64 writeFencingToken() const;

    /// Asks for the read side and returns at once. \a timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void lockRead(int timeoutMs = -1);
    /// Asks for the write side and returns at once; refused (Unsupported) while only the read
    /// side is held. \a timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void lockWrite(int timeoutMs = -1);
    /// Gives the read side back; false when its hold was lost (or there was none).
    Q_INVOKABLE bool unlockRead();
    /// Gives the write side back; false when its hold was lost (or there was none).
    Q_INVOKABLE bool unlockWrite();

Q_SIGNALS:
    /// readHeld, writeHeld, held or a fencing token changed.
    void heldChanged();
    /// \a side was taken, with \a fencingToken and its entry \a key.
    void acquired(QEtcd::ReadWriteLockParticipant::Side side, qint64 fencingToken, const QString &key);
    /// The hold of \a side lost its lease, told before etcd can let a rival in.
    void lockLost(QEtcd::ReadWriteLockParticipant::Side side, const QEtcd::Status &cause);
    /// The hold of \a side with \a fencingToken was given back.
    void released(QEtcd::ReadWriteLockParticipant::Side side, qint64 fencingToken);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override;

private:
    void lockSide(Side side, int timeoutMs);
    bool unlockSide(Side side);
    void setToken(Side side, qint64 fencingToken);
    void settleState();

    qint64 m_tokens[2] = {0, 0};  // by Side
    QString m_keys[2];            // by Side, while held
};

} // namespace QEtcd
