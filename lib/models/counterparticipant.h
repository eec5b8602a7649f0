#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

struct AtomicLongResult;

// `Counter` in QML: a DistributedAtomicLong. Every action answers asynchronously and updates
// value; compareAndSet() also says whether it won.
class QETCD_QUICK_EXPORT CounterParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(Counter)
    Q_PROPERTY(qint64 value READ value NOTIFY valueChanged)

public:
    explicit CounterParticipant(QObject *parent = nullptr);

    qint64 value() const;  // as last read or written

    Q_INVOKABLE void refresh();
    Q_INVOKABLE void add(qint64 delta);
    Q_INVOKABLE void increment();
    Q_INVOKABLE void decrement();
    Q_INVOKABLE void compareAndSet(qint64 expected, qint64 newValue);

Q_SIGNALS:
    void valueChanged();
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
