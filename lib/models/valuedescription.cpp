// SPDX-License-Identifier: Apache-2.0
#include "valuedescription_p.h"

#include "displaytext.h"

#include <QEtcd/coordinationrecogniser.h>
#include <QEtcd/serviceinstance.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QStringDecoder>
#include <QtCore/QtEndian>

namespace QEtcd::Internal {

namespace {
// A TextArea lays out all of its text at once: past these sizes the pane would stall the GUI
// thread, so it shows the beginning and says the rest is not shown.
constexpr qsizetype textLimit = 256 * 1024;
constexpr qsizetype hexLimit = 32 * 1024;

bool isText(const QByteArray &bytes, QString *text)
{
    QStringDecoder decoder(QStringDecoder::Utf8);
    *text = decoder(bytes);
    if (decoder.hasError())
        return false;
    for (const QChar c : std::as_const(*text)) {
        if (c.unicode() < 0x20 && c != QLatin1Char('\n') && c != QLatin1Char('\t') && c != QLatin1Char('\r'))
            return false;
    }
    return true;
}

QString hexDump(const QByteArray &bytes)
{
    QString dump;
    const qsizetype size = std::min(bytes.size(), hexLimit);
    dump.reserve(size / 16 * 78 + 78);
    for (qsizetype offset = 0; offset < size; offset += 16) {
        QString hex;
        QString ascii;
        for (qsizetype i = offset; i < std::min(offset + 16, size); ++i) {
            const uchar c = uchar(bytes.at(i));
            hex += QStringLiteral("%1 ").arg(uint(c), 2, 16, QLatin1Char('0'));
            ascii += c >= 32 && c < 127 ? QLatin1Char(char(c)) : QLatin1Char('.');
        }
        dump += QStringLiteral("%1  %2 %3\n").arg(offset, 8, 16, QLatin1Char('0')).arg(hex, -48).arg(ascii);
    }
    dump.chop(1);
    return dump;
}

QVariantMap field(const QString &label, const QVariant &value)
{
    return {{QStringLiteral("label"), label}, {QStringLiteral("value"), value}};
}

QString time(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODateWithMs);
}

// Who wrote an entry, as qetcd's identity or an etcd-recipes value names them.
void addEntryFields(QVariantList *fields, const CoordinationEntry &entry)
{
    if (!entry.name.isEmpty())
        fields->append(field(QStringLiteral("Client"), entry.name));
    if (!entry.host.isEmpty())
        fields->append(field(QStringLiteral("Host"), entry.host));
    if (entry.pid > 0)
        fields->append(field(QStringLiteral("PID"), entry.pid));
    if (entry.sinceMs >= 0)
        fields->append(field(QStringLiteral("Since"), time(entry.sinceMs)));
    fields->append(field(QStringLiteral("Fencing token"), entry.createRevision));
}

const CoordinationEntry *entryFor(const CoordinationObject &object, const QByteArray &key)
{
    for (const QList<CoordinationEntry> *entries : {&object.holders, &object.waiters, &object.members, &object.leaving}) {
        for (const CoordinationEntry &entry : *entries) {
            if (entry.key == key)
                return &entry;
        }
    }
    return nullptr;
}

QVariantMap recipeOf(const KeyValue &kv, bool text)
{
    QString title;
    QVariantList fields;
    const QList<CoordinationObject> objects = CoordinationRecogniser::recognise({kv});
    if (!objects.isEmpty()) {
        const CoordinationObject &object = objects.constFirst();
        title = QStringLiteral("%1 %2").arg(object.kindName(), QString::fromUtf8(object.path));
        if (object.kind == CoordinationObject::Kind::Counter)
            fields.append(field(QStringLiteral("Value"), object.value));
        else if (object.permits >= 0 && kv.key.endsWith("/permits"))
            fields.append(field(QStringLiteral("Permits"), object.permits));
        if (const CoordinationEntry *entry = entryFor(object, kv.key))
            addEntryFields(&fields, *entry);
    }
    if (const auto instance = kv.value.startsWith('{') ? ServiceInstance::fromJson(kv.value) : std::nullopt;
        instance && !instance->name().isEmpty()) {
        if (title.isEmpty())
            title = QStringLiteral("service instance");
        fields.append(field(QStringLiteral("Service"), instance->name()));
        fields.append(field(QStringLiteral("Instance"), instance->id()));
        fields.append(field(QStringLiteral("Address"), QStringLiteral("%1:%2").arg(instance->address()).arg(instance->port())));
        if (instance->registrationTimeUtc() > 0)
            fields.append(field(QStringLiteral("Registered"), time(instance->registrationTimeUtc())));
        if (!instance->jsonPayload().isEmpty())
            fields.append(field(QStringLiteral("Payload"), instance->jsonPayload()));
    }
    // Raw big-endian integers that no layout above claimed: a counter on a lease, a work
    // queue's delivery count, a permits key read on its own.
    if (title.isEmpty() && !text && (kv.value.size() == 8 || kv.value.size() == 4)) {
        title = kv.value.size() == 8 ? QStringLiteral("int64, big-endian") : QStringLiteral("int32, big-endian");
        fields.append(field(QStringLiteral("Value"), kv.value.size() == 8 ? qFromBigEndian<qint64>(kv.value.constData())
                                                                          : qint64(qFromBigEndian<qint32>(kv.value.constData()))));
    }
    return {{QStringLiteral("title"), title}, {QStringLiteral("fields"), fields}};
}
} // namespace

QVariantMap describeValue(const KeyValue &kv)
{
    QString text;
    const bool textual = isText(kv.value, &text);
    bool truncated = kv.value.size() > hexLimit;
    QString json;
    const QJsonDocument document = QJsonDocument::fromJson(kv.value);
    if (!document.isNull())
        json = QString::fromUtf8(document.toJson(QJsonDocument::Indented)).trimmed();
    if (text.size() > textLimit || json.size() > textLimit) {
        truncated = true;
        text.truncate(textLimit);
        json.truncate(textLimit);
    }
    return {
        {QStringLiteral("size"), kv.value.size()},
        {QStringLiteral("isText"), textual},
        {QStringLiteral("text"), text},
        // What anyone may write must not reorder or hide what the operator reads: a
        // right-to-left override in a value, or in a JSON string (toJson() writes it out raw),
        // shows as \u202E. `text` stays as stored: the editor starts from it.
        {QStringLiteral("shownText"), DisplayText::escapeValue(text)},
        {QStringLiteral("json"), DisplayText::escapeValue(json)},
        {QStringLiteral("hex"), hexDump(kv.value)},
        {QStringLiteral("truncated"), truncated},
        {QStringLiteral("recipe"), recipeOf(kv, textual)},
    };
}

} // namespace QEtcd::Internal
