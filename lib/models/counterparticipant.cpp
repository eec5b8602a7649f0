// SPDX-License-Identifier: Apache-2.0
#include "counterparticipant.h"

#include <QEtcd/distributedatomiclong.h>

namespace QEtcd {

CounterParticipant::CounterParticipant(QObject *parent) : RecipeParticipant(parent) {}

qint64 CounterParticipant::value() const
{
    return m_value;
}

std::unique_ptr<Recipe> CounterParticipant::createRecipe(Client *client, const QByteArray &path,
                                                         const RecipeOptions &options)
{
    AtomicLongOptions counterOptions;
    static_cast<RecipeOptions &>(counterOptions) = options;
    return std::make_unique<DistributedAtomicLong>(client, path, counterOptions);
}

template <class Operation>
void CounterParticipant::run(Operation operation)
{
    auto *counter = recipe<DistributedAtomicLong>();
    if (!counter)
        return;
    setState(State::Pending);
    whenDone(operation(counter), [this](const AtomicLongResult &result) {
        if (result.status)
            setValue(result.value);
        else
            reportError(result.status);
        setState(State::Idle);
    });
}

void CounterParticipant::refresh()
{
    run([](DistributedAtomicLong *counter) { return counter->getAsync(); });
}

void CounterParticipant::add(qint64 delta)
{
    run([delta](DistributedAtomicLong *counter) { return counter->addAsync(delta); });
}

void CounterParticipant::increment()
{
    add(1);
}

void CounterParticipant::decrement()
{
    add(-1);
}

void CounterParticipant::compareAndSet(qint64 expected, qint64 newValue)
{
    auto *counter = recipe<DistributedAtomicLong>();
    if (!counter)
        return;
    whenDone(counter->compareAndSetAsync(expected, newValue), [this](const AtomicLongResult &result) {
        const bool won = result.status.isOk();
        if (won || result.status.code() == StatusCode::Mismatch)
            setValue(result.value);  // a lost race still tells the value that won
        else
            reportError(result.status);
        Q_EMIT compareAndSetFinished(won, result.value);
    });
}

void CounterParticipant::setValue(qint64 value)
{
    if (std::exchange(m_value, value) != value)
        Q_EMIT valueChanged();
}

} // namespace QEtcd
