// SPDX-License-Identifier: Apache-2.0
#include "transientkeyparticipant.h"

#include <QEtcd/transientkeyvalue.h>

namespace QEtcd {

TransientKeyParticipant::TransientKeyParticipant(QObject *parent) : RecipeParticipant(parent)
{
    followHealingLease();
}

QString TransientKeyParticipant::value() const
{
    return m_value;
}

void TransientKeyParticipant::setValue(const QString &value)
{
    if (m_value == value)
        return;
    m_value = value;
    Q_EMIT valueChanged();
}

std::unique_ptr<Recipe> TransientKeyParticipant::createRecipe(Client *client, const QByteArray &path,
                                                              const RecipeOptions &options)
{
    auto key = std::make_unique<TransientKeyValue>(client, path, m_value.toUtf8(), options);
    relay(key.get(), &TransientKeyValue::removedByOther, [this](qint64, const Status &cause) {
        record(QStringLiteral("removedByOther"), cause.message());
        setState(State::Lost);
    });
    return key;
}

void TransientKeyParticipant::start()
{
    reconfigure();  // a started key is re-put with the current value
    if (auto *key = recipe<TransientKeyValue>()) {
        setState(State::Pending);
        whenDone(key->start(), [this](const Status &status) {
            if (!status)
                reportError(status);
            else
                record(QStringLiteral("registered"), m_value);
            setState(status ? State::Active : State::Idle);
        });
    }
}

} // namespace QEtcd
