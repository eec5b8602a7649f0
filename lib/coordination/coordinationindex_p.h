// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/qetcdexport.h>

#include <memory>

namespace QEtcd::Internal {

// A lease ID as the recogniser's JSON and names write it: 16 hex digits, as etcdctl shows it.
inline QString leaseIdText(qint64 lease)
{
    return QString::number(quint64(lease), 16).rightJustified(16, QLatin1Char('0'));
}

// The coordination objects of a changing set of keys, kept current a change at a time. Where
// a key belongs depends on that key alone, so a change recognises again only the object the
// key left and the one it joined: the cost of following a store is the cost of its changes,
// not of its size. CoordinationRecogniser::recognise() is one pass of this.
class CoordinationIndex
{
public:
    // Exported one by one for tst_coordinationrecogniser: the class as a whole would export
    // its Private too.
    QETCD_INTERNAL_EXPORT CoordinationIndex();
    QETCD_INTERNAL_EXPORT ~CoordinationIndex();
    Q_DISABLE_COPY_MOVE(CoordinationIndex)

    // appearedMs: when the key was seen to appear (ms since the epoch), the wait time of an
    // entry whose tool wrote none; -1 when unknown. A changed key keeps its first time.
    // unreadValueBytes: the size of a value too large to read (kv.value is then empty), 0 when
    // read: an unread value is not an empty one.
    QETCD_INTERNAL_EXPORT void put(const KeyValue &kv, qint64 appearedMs = -1, qsizetype unreadValueBytes = 0);
    QETCD_INTERNAL_EXPORT void remove(const QByteArray &key);
    QETCD_INTERNAL_EXPORT void clear();
    // Recognises again the objects whose keys changed since the last call and says which
    // appeared, changed or went.
    QETCD_INTERNAL_EXPORT QList<CoordinationObjectChange> refresh();
    // Sorted by path, then kind; as of the last refresh(). Built when asked after a change.
    QETCD_INTERNAL_EXPORT QList<CoordinationObject> objects() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace QEtcd::Internal
