// SPDX-License-Identifier: Apache-2.0
#include "readwritelockparticipant.h"

#include <QEtcd/distributedreadwritelock.h>

namespace QEtcd {

using Lock = DistributedReadWriteLock;

namespace {
ReadWriteLockParticipant::Side sideOf(Lock::Side side)
{
    return side == Lock::Side::Read ? ReadWriteLockParticipant::Side::Read : ReadWriteLockParticipant::Side::Write;
}

ReadWriteLockView &viewOf(Lock *lock, ReadWriteLockParticipant::Side side)
{
    return side == ReadWriteLockParticipant::Side::Read ? lock->readLock() : lock->writeLock();
}

QString nameOf(ReadWriteLockParticipant::Side side)
{
    return side == ReadWriteLockParticipant::Side::Read ? QStringLiteral("read") : QStringLiteral("write");
}
} // namespace

ReadWriteLockParticipant::ReadWriteLockParticipant(QObject *parent) : RecipeParticipant(parent) {}

bool ReadWriteLockParticipant::isReadHeld() const { return readFencingToken() > 0; }
bool ReadWriteLockParticipant::isWriteHeld() const { return writeFencingToken() > 0; }
bool ReadWriteLockParticipant::isHeld() const { return isReadHeld() || isWriteHeld(); }
qint64 ReadWriteLockParticipant::readFencingToken() const { return m_tokens[int(Side::Read)]; }
qint64 ReadWriteLockParticipant::writeFencingToken() const { return m_tokens[int(Side::Write)]; }

std::unique_ptr<Recipe> ReadWriteLockParticipant::createRecipe(Client *client, const QByteArray &path,
                                                               const RecipeOptions &options)
{
    LockOptions lockOptions;
    static_cast<RecipeOptions &>(lockOptions) = options;
    auto lock = std::make_unique<Lock>(client, path, lockOptions);
    relay(lock.get(), &Lock::acquired, [this](Lock::Side side, qint64 token, const QByteArray &key) {
        setToken(sideOf(side), token);
        m_keys[int(sideOf(side))] = QString::fromUtf8(key);
        settleState();
        record(QStringLiteral("acquired"), QStringLiteral("%1, fencing token %2").arg(nameOf(sideOf(side))).arg(token),
               QString::fromUtf8(key));
        Q_EMIT acquired(sideOf(side), token, QString::fromUtf8(key));
    });
    relay(lock.get(), &Lock::lockLost, [this](Lock::Side side, const Status &cause) {
        setToken(sideOf(side), 0);
        setState(State::Lost);
        record(QStringLiteral("lost"), QStringLiteral("%1: %2").arg(nameOf(sideOf(side)), cause.message()),
               std::exchange(m_keys[int(sideOf(side))], {}));
        Q_EMIT lockLost(sideOf(side), cause);
    });
    relay(lock.get(), &Lock::released,
          [this](Lock::Side side, qint64 token) { Q_EMIT released(sideOf(side), token); });
    return lock;
}

void ReadWriteLockParticipant::recipeDropped()
{
    m_keys[0].clear();
    m_keys[1].clear();
    setToken(Side::Read, 0);
    setToken(Side::Write, 0);
}

void ReadWriteLockParticipant::lockRead(int timeoutMs) { lockSide(Side::Read, timeoutMs); }
void ReadWriteLockParticipant::lockWrite(int timeoutMs) { lockSide(Side::Write, timeoutMs); }
bool ReadWriteLockParticipant::unlockRead() { return unlockSide(Side::Read); }
bool ReadWriteLockParticipant::unlockWrite() { return unlockSide(Side::Write); }

void ReadWriteLockParticipant::lockSide(Side side, int timeoutMs)
{
    auto *lock = recipe<Lock>();
    if (!lock)
        return;
    setState(State::Pending);
    record(QStringLiteral("pending"), nameOf(side));
    whenDone(viewOf(lock, side).lockAsync(waitTime(timeoutMs)), [this](const Status &status) {
        if (!status)
            reportError(status);
        settleState();
    });
}

bool ReadWriteLockParticipant::unlockSide(Side side)
{
    auto *lock = static_cast<Lock *>(currentRecipe());
    if (!lock)
        return false;
    ReadWriteLockView &view = viewOf(lock, side);
    const bool stillOurs = view.unlock();
    if (!stillOurs)
        record(QStringLiteral("releaseFailed"), QStringLiteral("%1: told false, nothing held").arg(nameOf(side)));
    if (view.holdCount() == 0) {
        if (stillOurs)
            record(QStringLiteral("released"), nameOf(side), std::exchange(m_keys[int(side)], {}));
        setToken(side, 0);
    }
    settleState();
    return stillOurs;
}

void ReadWriteLockParticipant::setToken(Side side, qint64 fencingToken)
{
    if (std::exchange(m_tokens[int(side)], fencingToken) != fencingToken)
        Q_EMIT heldChanged();
}

void ReadWriteLockParticipant::settleState()
{
    setState(isHeld() ? State::Active : State::Idle);
}

} // namespace QEtcd
