#pragma once

#include "participant.h"
#include "qetcdquickexport.h"

namespace QEtcd {

// `TransientKey` in QML: a TransientKeyValue at path, kept alive on a healing lease from
// start() until close(); a changed value takes effect at the next start().
class QETCD_QUICK_EXPORT TransientKeyParticipant : public RecipeParticipant
{
    Q_OBJECT
    QML_NAMED_ELEMENT(TransientKey)
    Q_PROPERTY(QString value READ value WRITE setValue NOTIFY valueChanged)

public:
    explicit TransientKeyParticipant(QObject *parent = nullptr);

    QString value() const;
    void setValue(const QString &value);

    Q_INVOKABLE void start();

Q_SIGNALS:
    void valueChanged();

protected:
    std::unique_ptr<Recipe> createRecipe(Client *client, const QByteArray &path, const RecipeOptions &options) override;
    void recipeDropped() override {}

private:
    QString m_value;
};

} // namespace QEtcd
