// SPDX-License-Identifier: Apache-2.0
#include "keytransfer.h"

#include "displaytext.h"

#include <QEtcd/bulkdelete.h>
#include <QEtcd/keyexport.h>
#include <QEtcd/keyimport.h>

#include <QtCore/QStringList>

namespace QEtcd {

namespace {

QStringList keyTexts(const QList<QByteArray> &keys)
{
    QStringList texts;
    texts.reserve(keys.size());
    for (const QByteArray &key : keys)
        texts.append(DisplayText::fromBytes(key));
    return texts;
}

QList<QByteArray> keyBytes(const QStringList &texts)
{
    QList<QByteArray> keys;
    keys.reserve(texts.size());
    for (const QString &text : texts)
        keys.append(DisplayText::toBytes(text));
    return keys;
}

QVariantMap planMap(const KeyImportPlan &plan)
{
    return {{QStringLiteral("creates"), plan.creates},
            {QStringLiteral("overwrites"), plan.overwrites},
            {QStringLiteral("unchanged"), plan.unchanged},
            {QStringLiteral("createSample"), keyTexts(plan.createSample)},
            {QStringLiteral("overwriteSample"), keyTexts(plan.overwriteSample)},
            {QStringLiteral("unchangedSample"), keyTexts(plan.unchangedSample)}};
}

} // namespace

KeyTransfer::KeyTransfer(QObject *parent)
    : QObject(parent)
{
}

// The job is a child: its own destructor cancels it and waits for its thread.
KeyTransfer::~KeyTransfer() = default;

void KeyTransfer::setClient(Client *client)
{
    if (client == m_client)
        return;
    m_client = client;
    emit clientChanged();
}

bool KeyTransfer::begin(const QString &operation)
{
    if (m_job || !m_client)
        return false;
    m_operation = operation;
    m_done = 0;
    m_total = 0;
    m_result.clear();
    return true;
}

void KeyTransfer::progress(qint64 done, qint64 total)
{
    m_done = done;
    m_total = total;
    emit changed();
}

void KeyTransfer::end(const QVariantMap &result)
{
    m_job->deleteLater();
    m_job = nullptr;
    m_result = result;
    emit changed();
    emit finished(m_operation, m_result);
}

bool KeyTransfer::exportPrefix(const QString &prefix, const QString &fileName, const QString &format,
                               bool overwrite)
{
    if (format != QLatin1String("etcdctl") && format != QLatin1String("jsonl")) {
        qWarning("KeyTransfer: unknown export format %s (etcdctl or jsonl)", qPrintable(format));
        return false;
    }
    if (!begin(QStringLiteral("export")))
        return false;
    auto *job = new KeyExport(m_client, this);
    m_job = job;
    connect(job, &KeyExport::progressed, this, [this](qint64 keys) { progress(keys, 0); });
    connect(job, &KeyExport::finished, this, [this](const KeyExportResult &result) {
        end({{QStringLiteral("status"), QVariant::fromValue(result.status)},
             {QStringLiteral("fileName"), result.fileName},
             {QStringLiteral("keys"), result.keys},
             {QStringLiteral("revision"), result.revision}});
    });
    job->start(DisplayText::toBytes(prefix), fileName,
               format == QLatin1String("jsonl") ? KeyExport::Format::JsonLines : KeyExport::Format::Etcdctl,
               0, overwrite);
    emit changed();
    return true;
}

bool KeyTransfer::checkImport(const QString &fileName)
{
    return startImport(QStringLiteral("importCheck"), fileName, true);
}

bool KeyTransfer::importFile(const QString &fileName)
{
    return startImport(QStringLiteral("import"), fileName, false);
}

bool KeyTransfer::startImport(const QString &operation, const QString &fileName, bool dryRun)
{
    if (!begin(operation))
        return false;
    auto *job = new KeyImport(m_client, this);
    m_job = job;
    connect(job, &KeyImport::progressed, this, &KeyTransfer::progress);
    connect(job, &KeyImport::finished, this, [this](const KeyImportResult &result) {
        QVariantMap map = planMap(result.plan);
        map.insert(QStringLiteral("status"), QVariant::fromValue(result.status));
        map.insert(QStringLiteral("fileName"), result.fileName);
        map.insert(QStringLiteral("written"), result.written);
        map.insert(QStringLiteral("revision"), result.revision);
        end(map);
    });
    KeyImportOptions options;
    options.dryRun = dryRun;
    job->start(fileName, options);
    emit changed();
    return true;
}

bool KeyTransfer::countPrefix(const QString &prefix)
{
    return startBulkDelete(QStringLiteral("deleteCount"),
                           [prefix](BulkDelete *job) { job->startPrefix(DisplayText::toBytes(prefix), true); });
}

bool KeyTransfer::deletePrefix(const QString &prefix)
{
    return startBulkDelete(QStringLiteral("delete"),
                           [prefix](BulkDelete *job) { job->startPrefix(DisplayText::toBytes(prefix), false); });
}

bool KeyTransfer::countKeys(const QStringList &keys)
{
    return startBulkDelete(QStringLiteral("deleteKeysCount"),
                           [keys](BulkDelete *job) { job->startKeys(keyBytes(keys), true); });
}

bool KeyTransfer::deleteKeys(const QStringList &keys)
{
    return startBulkDelete(QStringLiteral("deleteKeys"),
                           [keys](BulkDelete *job) { job->startKeys(keyBytes(keys), false); });
}

bool KeyTransfer::startBulkDelete(const QString &operation, const std::function<void(BulkDelete *)> &start)
{
    if (!begin(operation))
        return false;
    auto *job = new BulkDelete(m_client, this);
    m_job = job;
    connect(job, &BulkDelete::progressed, this, &KeyTransfer::progress);
    connect(job, &BulkDelete::finished, this, [this](const BulkDeleteResult &result) {
        end({{QStringLiteral("status"), QVariant::fromValue(result.status)},
             {QStringLiteral("counted"), result.counted},
             {QStringLiteral("sample"), keyTexts(result.sample)},
             {QStringLiteral("deleted"), result.deleted},
             {QStringLiteral("revision"), result.revision}});
    });
    start(job);
    emit changed();
    return true;
}

void KeyTransfer::cancel()
{
    if (auto *job = qobject_cast<KeyExport *>(m_job))
        job->cancel();
    else if (auto *job = qobject_cast<KeyImport *>(m_job))
        job->cancel();
    else if (auto *job = qobject_cast<BulkDelete *>(m_job))
        job->cancel();
}

} // namespace QEtcd
