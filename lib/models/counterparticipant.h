// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

struct AtomicLongResult;

/// `Counter` in QML: a DistributedAtomicLong. Every action answers asynchronously and updates
/// value; compareAndSet() also says whether it won.
class QETCD_QUICK_EXPORT CounterParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Counter)
    /// The counter's value as last read or written.
    Q_PROPERTY(qint64 value READ value NOTIFY valueChanged)

public:
    /// A Counter without client or path yet.
    explicit CounterParticipant(QObject *parent = nullptr);

    /// The value as last read or written.
    qint64 value() const;

    /// Reads value afresh.
    Q_INVOKABLE void refresh();
    /// Adds \a delta; value turns to what this call committed.
    Q_INVOKABLE void add(qint64 delta);
    /// Adds 1.
    Q_INVOKABLE void increment();
    /// Subtracts 1.
    Q_INVOKABLE void decrement();
    /// Sets \a newValue if the counter holds \a expected; compareAndSetFinished() says whether
    /// it did, and value follows either way.
    Q_INVOKABLE void compareAndSet(qint64 expected, qint64 newValue);

Q_SIGNALS:
    /// value changed.
    void valueChanged();
    /// A compareAndSet() ended: \a succeeded, and the counter's \a value (the one found when
    /// it did not).
    void compareAndSetFinished(bool succeeded, qint64 value);

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override {}

private:
    template <class Operation>
    void run(Operation operation);
    void setValue(qint64 value);

    qint64 m_value = 0;
};

} // namespace QEtcd
