// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "scenario.h"

#include <timelinemodel.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QStringList>
#include <QtQml/qqmlregistration.h>

// A scenario's run as one HTML page that opens anywhere, with no network and no console: the
// timeline as SVG (TimelineSvg: the Timeline page's lanes, leases, markers, faults and losses,
// and etcd's own lane), the narration as steps to go through with the arrow keys or to play, each
// showing its moment on the timeline, and the event log as a table, in its reader's light or dark
// look. Beside it, for slides, a PNG per step, NAME-step-N.png: the timeline with that step's
// moment and its narration above, in the console's look.
class StoryExport : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(Scenario *scenario READ scenario WRITE setScenario NOTIFY scenarioChanged)
    Q_PROPERTY(TimelineModel *timeline READ timeline WRITE setTimeline NOTIFY timelineChanged)
    // The pictures' look: the console's dark one (Theme.dark) or its light one. The page follows
    // its reader's system instead (prefers-color-scheme).
    Q_PROPERTY(bool dark READ dark WRITE setDark NOTIFY darkChanged)
    // Why the last write() failed; empty after one that succeeded.
    Q_PROPERTY(QString errorString READ errorString NOTIFY writtenChanged)
    // What the last write() wrote, for people: "story.html and 8 step pictures in /tmp".
    Q_PROPERTY(QString written READ written NOTIFY writtenChanged)

public:
    explicit StoryExport(QObject *parent = nullptr);

    Scenario *scenario() const { return m_scenario; }
    void setScenario(Scenario *scenario);
    TimelineModel *timeline() const { return m_timeline; }
    void setTimeline(TimelineModel *timeline);
    bool dark() const { return m_dark; }
    void setDark(bool dark);
    QString errorString() const { return m_error; }
    QString written() const { return m_written; }

    // The files an export to path would write that exist already (Story::exportFiles): what it would overwrite.
    Q_INVOKABLE QStringList existingFilesFor(const QString &path) const;
    // The pictures of an earlier export to path beyond this story's steps (Story::staleExportFiles): what it would remove.
    Q_INVOKABLE QStringList staleFilesFor(const QString &path) const;
    // Writes the page to path and the pictures beside it, overwriting them, and removes the
    // stale ones; false with errorString unless the scenario has run (to its end, or to the step
    // that failed). A failed export leaves the earlier page as it was.
    Q_INVOKABLE bool write(const QString &path);

Q_SIGNALS:
    void scenarioChanged();
    void timelineChanged();
    void darkChanged();
    void writtenChanged();

private:
    bool fail(const QString &why);
    QString page(const QString &timelineSvg) const;

    QPointer<Scenario> m_scenario;
    QPointer<TimelineModel> m_timeline;
    bool m_dark = false;
    QString m_error;
    QString m_written;
};
