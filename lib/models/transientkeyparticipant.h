// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

/// `TransientKey` in QML: a TransientKeyValue at path, kept alive on a healing lease from
/// start() until close(); a changed value takes effect at the next start().
class QETCD_QUICK_EXPORT TransientKeyParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(TransientKey)
    /// The key's value (UTF-8); a change takes effect at the next start().
    Q_PROPERTY(QString value READ value WRITE setValue NOTIFY valueChanged)

public:
    /// A TransientKey without client or path yet.
    explicit TransientKeyParticipant(QObject *parent = nullptr);

    /// The value.
    QString value() const;
    /// Sets the value for the next start().
    void setValue(const QString &value);

    /// Puts the key (again, with the current value, if it was started before) and returns at
    /// once: Pending, then Active, or Idle with errorOccurred() when the key exists already.
    /// While its lease heals, state is Pending; Lost when the key went to someone else.
    Q_INVOKABLE void start();

Q_SIGNALS:
    /// value changed.
    void valueChanged();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override {}

private:
    QString m_value;
};

} // namespace QEtcd
