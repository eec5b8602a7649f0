// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/qetcdexport.h>

#include <QtCore/QByteArray>
#include <QtCore/QObject>
#include <QtCore/QString>

#include <memory>

namespace QEtcd {

class CoordinationMonitor;
class CoordinationMetricsPrivate;

/// The coordination objects that monitors follow, as Prometheus metrics: what an operator's
/// alerts are about (a lock held for 40 minutes, a queue growing, leadership flapping).
///
/// Gauges come from the objects as they are now; counters (lock hand-offs, leader changes,
/// lease expirations) from the events the monitors tell (CoordinationMonitor::eventsHappened())
/// since follow(), so that they count what the console's history shows, each once however the
/// monitor folded its bursts; a lock's held time from when its holder took it. The leases of
/// the process that renders (LeaseMetrics) come with them: suspensions, losses and heals by kind.
/// render() writes them in the Prometheus text exposition format (version 0.0.4), every family
/// with its `# HELP` and `# TYPE`.
///
/// Cardinality stays bounded: holder labels can be left out (setHolderLabels()), and past
/// setMaxSeries() series the rest are left out and counted in `qetcd_exporter_series_dropped`.
/// Lives on the monitors' thread; render() is cheap enough to answer every scrape.
class QETCD_EXPORT CoordinationMetrics : public QObject
{
    Q_OBJECT
public:
    /// Metrics of nothing yet: follow() the monitors.
    explicit CoordinationMetrics(QObject *parent = nullptr);
    /// Stops following.
    ~CoordinationMetrics() override;
    Q_DISABLE_COPY_MOVE(CoordinationMetrics)

    /// Counts \a monitor's objects from its first objectsChanged() on: call it before the
    /// monitor's start(), so that the first list is known as what was already there (no
    /// hand-offs, no leader changes). Several monitors must follow prefixes that do not overlap.
    void follow(CoordinationMonitor *monitor);

    /// Whether `qetcd_lock_held_seconds` names the holder in a `holder` label; default true.
    /// Without it a lock is one series whoever holds it.
    void setHolderLabels(bool enabled);
    /// Whether holder labels are on.
    bool holderLabels() const;
    /// The most series render() writes about objects (the exporter's own health is always
    /// written); default 50,000. Must be at least 1.
    void setMaxSeries(int series);
    /// The cap setMaxSeries() set.
    int maxSeries() const;

    /// Tells whether etcd answers, as the caller last learned at \a nowMs (ms since the epoch):
    /// `qetcd_exporter_connected`, and the last refresh while it answers.
    void setConnected(bool connected, qint64 nowMs);
    /// Whether etcd answered, as setConnected() last told.
    bool isConnected() const;

    /// Every family, as of \a nowMs (ms since the epoch, for the ages and held times), in the
    /// Prometheus text format.
    QByteArray render(qint64 nowMs) const;
    /// How many series the last render() left out for the cap.
    int droppedSeries() const;

    /// \a value as a label value in the text format: backslash, double quote and line feed
    /// escaped as `\\`, `\"` and `\n`.
    static QByteArray escapeLabelValue(const QString &value);

private:
    std::unique_ptr<CoordinationMetricsPrivate> d;
};

} // namespace QEtcd
