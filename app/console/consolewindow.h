// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEtcd/client.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

#include <memory>

QT_BEGIN_NAMESPACE
class QQmlApplicationEngine;
class QQuickWindow;
QT_END_NAMESPACE

// Loads the console's window with the connection the command line (or a saved profile) asked
// for, and takes the --screenshot picture once the shown page has its data.
class ConsoleWindow : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        QEtcd::ClientOptions client;
        QString profile;  // a saved profile instead of the connection flags
        bool writable = false;  // --writable: the connection may write off this machine
        bool sandbox = false;  // start a sandbox and look at it
        QString scenario;      // run this scenario on the sandbox
        QString sandboxSeed;   // the sandbox's seed program (Sandbox::seedProgram)
        QString look;          // "light", "dark" or empty: the system's
        bool autoplay = false;  // ... to its end, then exit
        QString exportEventsFile;  // where its event log goes when it ends
        QString exportStoryFile;   // where its run goes as a page (StoryExport) when it ends
        QString page;
        QString key;  // selected on the Keys page
        bool history = false;  // replay historyPrefix's history on the Timeline
        QString historyPrefix;
        qint64 asOfRevision = 0;  // the Coordination page shows the cluster as of it
        QString screenshotFile;
        std::chrono::milliseconds screenshotTimeout{30000};
        std::chrono::milliseconds scenarioTimeout{240000};
    };

    explicit ConsoleWindow(const Settings &settings, QObject *parent = nullptr);
    ~ConsoleWindow() override;

    // False with the reason when the QML could not be loaded or the page name is unknown.
    bool load(QString *error);

Q_SIGNALS:
    // What the command line asked for and then exit is over: the screenshot was written, or the
    // autoplayed scenario ended (exitCode 0), or either could not be done (1).
    void finished(int exitCode);

private Q_SLOTS:
    void tryScreenshot();
    // exitNow: the run ends here even with a screenshot to take (the scenario never started).
    void scenarioEnded(bool succeeded, const QString &message, bool exitNow = false);
    void sandboxStateChanged();

private:
    Settings m_settings;
    std::unique_ptr<QQmlApplicationEngine> m_engine;
    QPointer<QQuickWindow> m_window;
    // How long the screenshot or the autoplayed scenario may take.
    std::chrono::milliseconds deadline() const;

    QTimer m_deadline;  // for what ends the run by itself: the screenshot, the autoplayed scenario
    int m_scenarioExitCode = 0;
};
