#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `ReadWriteLock` in QML: a DistributedReadWriteLock whose read and write holds belong to the
// GUI thread. Each side is told acquired, lost and released on its own.
class QETCD_QUICK_EXPORT ReadWriteLockParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(ReadWriteLock)
    Q_PROPERTY(bool readHeld READ isReadHeld NOTIFY heldChanged)
    Q_PROPERTY(bool writeHeld READ isWriteHeld NOTIFY heldChanged)
    Q_PROPERTY(bool held READ isHeld NOTIFY heldChanged)
    Q_PROPERTY(qint64 readFencingToken READ readFencingToken NOTIFY heldChanged)
    Q_PROPERTY(qint64 writeFencingToken READ writeFencingToken NOTIFY heldChanged)

public:
    enum Side { Read, Write };  // DistributedReadWriteLock::Side (plain: QML spells ReadWriteLock.Read)
    Q_ENUM(Side)

    explicit ReadWriteLockParticipant(QObject *parent = nullptr);

    bool isReadHeld() const;
    bool isWriteHeld() const;
    bool isHeld() const;
    qint64 readFencingToken() const;
    qint64 writeFencingToken() const;

    // timeoutMs < 0: wait as long as it takes.
    Q_INVOKABLE void lockRead(int timeoutMs = -1);
    Q_INVOKABLE void lockWrite(int timeoutMs = -1);
    // False when that side's hold was lost (or there was none).
    Q_INVOKABLE bool unlockRead();
    Q_INVOKABLE bool unlockWrite();

Q_SIGNALS:
    void heldChanged();
    void acquired(QEtcd::ReadWriteLockParticipant::Side side, qint64 fencingToken, const QString &key);
    void lockLost(QEtcd::ReadWriteLockParticipant::Side side, const QEtcd::Status &cause);
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
