#include "consolewindow.h"

#include <QtCore/QFileInfo>
#include <QtQml/QQmlApplicationEngine>
#include <QtQuick/QQuickWindow>

#include <cstdio>

namespace {
constexpr auto statusInterval = std::chrono::seconds(2);

void reportFailure(const QString &message)
{
    std::fprintf(stderr, "qetcd-console: %s\n", qPrintable(message));
}
} // namespace

ConsoleWindow::ConsoleWindow(const Settings &settings, QObject *parent)
    : QObject(parent), m_settings(settings)
{
    m_client = new QEtcd::Client(m_settings.client, this);
    m_statusTimer.setInterval(statusInterval);
    connect(&m_statusTimer, &QTimer::timeout, this, &ConsoleWindow::refreshStatus);
    m_screenshotDeadline.setSingleShot(true);
    connect(&m_screenshotDeadline, &QTimer::timeout, this, [this] {
        reportFailure(QStringLiteral("no screenshot: after %1 s %2")
                          .arg(m_settings.screenshotTimeout.count() / 1000)
                          .arg(m_window ? m_window->property("notReadyReason").toString()
                                        : QStringLiteral("the window never appeared")));
        Q_EMIT screenshotFinished(1);
    });
}

ConsoleWindow::~ConsoleWindow() = default;

bool ConsoleWindow::load(QString *error)
{
    m_engine = std::make_unique<QQmlApplicationEngine>();
    m_engine->addImportPath(QStringLiteral("qrc:/"));
    m_engine->setInitialProperties({
        {QStringLiteral("endpoints"), m_settings.client.endpoints.join(QLatin1Char(','))},
        {QStringLiteral("initialPage"), m_settings.page},
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

    refreshStatus();
    m_statusTimer.start();
    if (!m_settings.screenshotFile.isEmpty()) {
        connect(m_window, SIGNAL(readyChanged()), this, SLOT(tryScreenshot()));
        m_screenshotDeadline.start(m_settings.screenshotTimeout);
        QMetaObject::invokeMethod(this, &ConsoleWindow::tryScreenshot, Qt::QueuedConnection);
    }
    return true;
}

void ConsoleWindow::refreshStatus()
{
    if (m_statusInFlight || m_window->property("paused").toBool())
        return;
    m_statusInFlight = true;
    m_client->endpointStatus().then(this, [this](const QEtcd::EndpointStatusResult &result) {
        m_statusInFlight = false;
        if (!m_window)
            return;
        if (result.status.isOk()) {
            m_window->setProperty("connectionState", QStringLiteral("Connected"));
            m_window->setProperty("connectionError", QString());
            m_window->setProperty("revision", result.header.revision);
        } else {
            m_window->setProperty("connectionState", QStringLiteral("Unreachable"));
            m_window->setProperty("connectionError", result.status.toString());
        }
    });
}

void ConsoleWindow::tryScreenshot()
{
    if (!m_window || !m_window->property("ready").toBool() || !m_screenshotDeadline.isActive())
        return;
    // The grab must show a frame rendered after the data arrived, not the one before it.
    connect(m_window, &QQuickWindow::frameSwapped, this, [this] {
        if (!m_screenshotDeadline.isActive())
            return;
        m_screenshotDeadline.stop();
        const QImage image = m_window->grabWindow();
        if (image.isNull() || !image.save(m_settings.screenshotFile, "PNG")) {
            reportFailure(QStringLiteral("could not write the screenshot to %1").arg(m_settings.screenshotFile));
            Q_EMIT screenshotFinished(1);
            return;
        }
        Q_EMIT screenshotFinished(0);
    }, Qt::SingleShotConnection);
    m_window->update();
}
