// SPDX-License-Identifier: Apache-2.0
#include "consolewindow.h"

#include <connection.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtQml/QQmlApplicationEngine>
#include <QtQuick/QQuickWindow>

#include <cstdio>
#include <ctime>

#include <unistd.h>

namespace {
void reportFailure(const QString &message)
{
    std::fprintf(stderr, "qetcd-console: %s\n", qPrintable(message));
}

// Milliseconds since this process was started, loading its libraries included: the kernel's
// start time of the process (in clock ticks since boot) against the boot clock now.
double msSinceProcessStart()
{
    QFile stat(QStringLiteral("/proc/self/stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    // The fields after the command's closing parenthesis; starttime is the 22nd field of all.
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    constexpr int StartTimeAfterCommand = 22 - 3;
    if (fields.size() <= StartTimeAfterCommand)
        return -1;
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    const double startedMs = fields.at(StartTimeAfterCommand).toDouble() * 1000.0 / double(sysconf(_SC_CLK_TCK));
    return double(now.tv_sec) * 1000.0 + double(now.tv_nsec) / 1e6 - startedMs;
}
} // namespace

ConsoleWindow::ConsoleWindow(const Settings &settings, QObject *parent)
    : QObject(parent), m_settings(settings)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        const QString reason = m_window ? m_window->property("notReadyReason").toString()
                                        : QStringLiteral("the window never appeared");
        const qint64 seconds = std::chrono::duration_cast<std::chrono::seconds>(deadline()).count();
        if (m_settings.screenshotFile.isEmpty())
            reportFailure(QStringLiteral("scenario %1 failed: it did not end within %2 s: %3")
                              .arg(m_settings.scenario).arg(seconds).arg(reason));
        else
            reportFailure(QStringLiteral("no screenshot: after %1 s %2").arg(seconds).arg(reason));
        Q_EMIT finished(1);
    });
}

ConsoleWindow::~ConsoleWindow() = default;

bool ConsoleWindow::load(QString *error)
{
    m_engine = std::make_unique<QQmlApplicationEngine>();
    m_engine->addImportPath(QStringLiteral("qrc:/"));
    // Run from the build tree, the library's QML module sits in <build>/qml; installed, it is in
    // Qt's own QML directory and this path does not exist.
    m_engine->addImportPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../../qml"));
    QVariantMap commandLine = Connection::profileOf(m_settings.client);
    commandLine.insert(QStringLiteral("writable"), m_settings.writable);
    commandLine.insert(QStringLiteral("profile"), m_settings.profile);
    m_engine->setInitialProperties({
        {QStringLiteral("commandLine"), commandLine},
        {QStringLiteral("initialProfile"), m_settings.profile},
        {QStringLiteral("initialPage"), m_settings.page},
        {QStringLiteral("initialKey"), m_settings.key},
        {QStringLiteral("initialHistory"), m_settings.history},
        {QStringLiteral("initialHistoryPrefix"), m_settings.historyPrefix},
        {QStringLiteral("asOfRevision"), double(m_settings.asOfRevision)},
        {QStringLiteral("initialSandbox"), m_settings.sandbox},
        {QStringLiteral("initialScenario"), m_settings.scenario},
        {QStringLiteral("initialSandboxSeed"), m_settings.sandboxSeed},
        {QStringLiteral("initialLook"), m_settings.look},
        // A run that ends by itself (a screenshot, an autoplayed scenario) stays one window.
        {QStringLiteral("restoresWindows"), m_settings.screenshotFile.isEmpty() && !m_settings.autoplay},
        {QStringLiteral("autoplayScenario"), m_settings.autoplay},
    });
    m_engine->load(QUrl(QStringLiteral("qrc:/QEtcdConsole/Main.qml")));
    if (m_engine->rootObjects().isEmpty()) {
        *error = QStringLiteral("the console's window could not be loaded");
        return false;
    }
    m_window = qobject_cast<QQuickWindow *>(m_engine->rootObjects().constFirst());
    if (!m_window) {
        *error = QStringLiteral("the console's root object is not a window");
        return false;
    }
    QVariant pageIndex;
    QMetaObject::invokeMethod(m_window, "pageIndex", Q_RETURN_ARG(QVariant, pageIndex), Q_ARG(QVariant, m_settings.page));
    if (pageIndex.toInt() < 0) {
        *error = QStringLiteral("--page: no page named \"%1\"").arg(m_settings.page);
        return false;
    }

    // main() has checked the scenario: a built-in name, or a story file it could read.
    if (!m_settings.scenario.isEmpty())
        connect(m_window, SIGNAL(scenarioEnded(bool,QString)), this, SLOT(scenarioEnded(bool,QString)));
    const bool exitsByItself = !m_settings.screenshotFile.isEmpty() || m_settings.autoplay;
    if (m_settings.sandbox && exitsByItself) {
        // Nothing would end the run: the scenario never starts, the page never gets its data.
        QObject *sandbox = m_window->property("sandbox").value<QObject *>();
        connect(sandbox, SIGNAL(stateChanged()), this, SLOT(sandboxStateChanged()));
    }
    if (!m_settings.screenshotFile.isEmpty()) {
        connect(m_window, SIGNAL(readyChanged()), this, SLOT(tryScreenshot()));
        QMetaObject::invokeMethod(this, &ConsoleWindow::tryScreenshot, Qt::QueuedConnection);
    }
    if (exitsByItself)
        m_deadline.start(deadline());
    return true;
}

std::chrono::milliseconds ConsoleWindow::deadline() const
{
    return m_settings.scenario.isEmpty() ? m_settings.screenshotTimeout : m_settings.scenarioTimeout;
}

void ConsoleWindow::sandboxStateChanged()
{
    QObject *sandbox = m_window->property("sandbox").value<QObject *>();
    if (sandbox->property("state").toString() != QLatin1String("Failed") || !m_deadline.isActive())
        return;
    m_deadline.stop();
    const QString error = sandbox->property("errorString").toString();
    if (!m_settings.scenario.isEmpty())
        return scenarioEnded(false, QStringLiteral("its first step, starting the sandbox, failed: %1").arg(error), true);
    reportFailure(QStringLiteral("no screenshot: %1").arg(error));
    Q_EMIT finished(1);
}

void ConsoleWindow::tryScreenshot()
{
    if (!m_window || !m_window->property("ready").toBool() || !m_deadline.isActive())
        return;
    // The grab must show a frame rendered after the data arrived, not the one before it.
    connect(m_window, &QQuickWindow::frameSwapped, this, [this] {
        // A page may lay itself out again after it was ready (a card that grew): its frame then
        // waits for the page to be ready once more.
        if (!m_deadline.isActive() || !m_window->property("ready").toBool())
            return;
        m_deadline.stop();
        const double paintedMs = msSinceProcessStart();
        const QImage image = m_window->grabWindow();
        if (image.isNull() || !image.save(m_settings.screenshotFile, "PNG")) {
            reportFailure(QStringLiteral("could not write the screenshot to %1").arg(m_settings.screenshotFile));
            Q_EMIT finished(1);
            return;
        }
        QJsonObject summary = QJsonObject::fromVariantMap(m_window->property("summary").toMap());
        // From the process's start to the first frame with the page's data (to 10 ms, the
        // kernel's tick): bench_console's start case reads it.
        summary.insert(QLatin1String("paintedMs"), paintedMs);
        std::printf("%s\n", QJsonDocument(summary).toJson(QJsonDocument::Compact).constData());
        std::fflush(stdout);
        Q_EMIT finished(m_scenarioExitCode);
    }, Qt::SingleShotConnection);
    m_window->update();
}

void ConsoleWindow::scenarioEnded(bool succeeded, const QString &message, bool exitNow)
{
    std::fprintf(succeeded ? stdout : stderr, "qetcd-console: scenario %s %s: %s\n", qPrintable(m_settings.scenario),
                 succeeded ? "done" : "failed", qPrintable(message));
    std::fflush(stdout);
    m_scenarioExitCode = succeeded ? 0 : 1;
    if (!m_settings.exportEventsFile.isEmpty()) {
        QObject *eventLog = m_window->property("eventLog").value<QObject *>();
        bool written = false;
        QMetaObject::invokeMethod(eventLog, "exportJsonLines", Q_RETURN_ARG(bool, written),
                                  Q_ARG(QString, m_settings.exportEventsFile));
        if (!written) {
            reportFailure(eventLog->property("errorString").toString());
            m_scenarioExitCode = 1;
        }
    }
    if (!m_settings.exportStoryFile.isEmpty()) {
        // A failed run is exported too, up to the step that failed: it shows where the story went wrong.
        QObject *storyExport = m_window->property("storyExport").value<QObject *>();
        bool written = false;
        QMetaObject::invokeMethod(storyExport, "write", Q_RETURN_ARG(bool, written), Q_ARG(QString, m_settings.exportStoryFile));
        if (!written) {
            reportFailure(QStringLiteral("--export-story: %1").arg(storyExport->property("errorString").toString()));
            m_scenarioExitCode = 1;
        }
    }
    // With a screenshot to take, the window's readiness (which waits for the scenario's end) ends the run.
    if (exitNow || (m_settings.autoplay && m_settings.screenshotFile.isEmpty())) {
        m_deadline.stop();
        Q_EMIT finished(m_scenarioExitCode);
    }
}
