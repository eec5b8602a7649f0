// The console's pages at scale, drawn offscreen by the software scene graph (as CI and
// --screenshot draw them), against one local etcd member:
// - Keys page over N keys under one prefix (--keys, default 100,000): from the moment the page
//   gets its client to its first rows painted; then its list scrolled at a steady speed for
//   --scroll-seconds, each frame timed from the scroll step to the frame swapped (p50/p99);
// - Leases page over L live leases (--leases, default 10,000), each row counting down: every
//   frame timed the same way, for --idle-seconds.
// Targets (issue 11): first rows < 300 ms, frame p99 < 16 ms.

#include "benchsupport.h"
#include "fixtures.h"

#include <QEtcd/client.h>

#include <QtCore/QEventLoop>
#include <QtCore/QTimer>
#include <QtQml/QQmlComponent>
#include <QtQml/QQmlEngine>
#include <QtQml/QQmlExtensionPlugin>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtWidgets/QApplication>

#include <memory>

Q_IMPORT_QML_PLUGIN(QEtcdConsolePlugin)

using namespace Bench;
using namespace QEtcd;
using namespace QEtcd::Testing;
using namespace std::chrono;

namespace {

constexpr auto FramePeriod = microseconds(16667);

// One page in a window of its own, the console's size, with the client given only once asked.
class PageWindow
{
public:
    PageWindow(QQmlEngine &engine, const QString &pageType, const QString &listName, const QString &setup)
    {
        QQmlComponent component(&engine);
        component.setData(QStringLiteral("import QtQuick\n"
                                         "import QtQuick.Controls\n"
                                         "import QEtcd\n"
                                         "import QEtcdConsole\n"
                                         "ApplicationWindow {\n"
                                         "    width: 1280; height: 800; visible: true\n"
                                         "    property QtObject etcd: null\n"
                                         "    property alias page: page\n"
                                         "    %1 { id: page; anchors.fill: parent; client: etcd\n"
                                         "         Component.onCompleted: { %2 } }\n"
                                         "}\n")
                              .arg(pageType, setup)
                              .toUtf8(),
                          QUrl(QStringLiteral("bench_console.qml")));
        m_window.reset(qobject_cast<QQuickWindow *>(component.create()));
        if (!m_window)
            fail(QStringLiteral("the %1 did not load: %2").arg(pageType, component.errorString()));
        m_list = page()->findChild<QQuickItem *>(listName);
        if (!m_list)
            fail(QStringLiteral("the %1 has no item named %2").arg(pageType, listName));
    }

    QObject *page() const { return m_window->property("page").value<QObject *>(); }
    QQuickItem *list() const { return m_list; }
    void setClient(Client *client) { m_window->setProperty("etcd", QVariant::fromValue<QObject *>(client)); }

    // Asks for a frame and waits for it to be swapped; its time from now, in ms.
    double nextFrameMs()
    {
        const auto start = Clock::now();
        QEventLoop swapped;
        QTimer::singleShot(10000, &swapped, [&swapped] { swapped.exit(1); });
        const QMetaObject::Connection quit =
            QObject::connect(m_window.get(), &QQuickWindow::frameSwapped, &swapped, [&swapped] { swapped.exit(0); });
        m_window->update();
        const int timedOut = swapped.exec();
        QObject::disconnect(quit);
        if (timedOut)
            fail(QStringLiteral("no frame was drawn within 10 s"));
        return duration<double, std::milli>(Clock::now() - start).count();
    }

    struct Frames
    {
        QList<double> ms;
        int late = 0;  // a whole frame's slot went by before the next could start (the thread was busy)

        QJsonObject figures() const
        {
            return {{"frames", ms.size()}, {"frames_late", late}, {"frame_ms", summary(ms, {{"p50", 50}, {"p99", 99}})}};
        }
    };

    // Frames at 60 per second for length, each timed after step() changed what it shows.
    Frames frames(seconds length, const std::function<void()> &step)
    {
        Frames drawn;
        const auto end = Clock::now() + length;
        auto due = Clock::now();
        while (Clock::now() < end) {
            step();
            drawn.ms.append(nextFrameMs());
            due += FramePeriod;
            const auto rest = duration_cast<microseconds>(due - Clock::now());
            if (rest > microseconds::zero()) {
                pause(duration_cast<milliseconds>(rest));
            } else {
                if (-rest > FramePeriod)
                    ++drawn.late;  // a whole frame's slot went by
                due = Clock::now();  // and the next ones do not hurry to catch up
            }
        }
        return drawn;
    }

private:
    std::unique_ptr<QQuickWindow> m_window;
    QQuickItem *m_list = nullptr;
};

QJsonObject keysPageFigures(QQmlEngine &engine, Client &client, int keys, seconds scrolling)
{
    fillKeys(client, "/bench/console/", keys);
    PageWindow window(engine, QStringLiteral("KeysPage"), QStringLiteral("keyList"),
                      QStringLiteral("page.model.prefix = \"/bench/console/\""));
    window.nextFrameMs();  // the empty page, before the clock starts
    const auto start = Clock::now();
    window.setClient(&client);
    if (!waitUntil([&] { return window.list()->property("count").toInt() > 0; }, milliseconds(60000), milliseconds(1)))
        fail(QStringLiteral("the Keys page showed no rows within 60 s"));
    window.nextFrameMs();
    const double firstRowsMs = duration<double, std::milli>(Clock::now() - start).count();

    // A steady flick: 3,000 pixels a second, pages fetched as the list reaches them.
    constexpr double speed = 3000.0;
    QQuickItem *list = window.list();
    const auto scrolled = window.frames(scrolling, [list] {
        list->setProperty("contentY", list->property("contentY").toDouble() + speed * 0.016667);
    });
    int topRow = -1;
    QMetaObject::invokeMethod(list, "indexAt", Q_RETURN_ARG(int, topRow), Q_ARG(qreal, 1.0),
                              Q_ARG(qreal, list->property("contentY").toDouble() + 1.0));
    QJsonObject figures = scrolled.figures();
    figures["keys"] = keys;
    figures["first_rows_ms"] = rounded(firstRowsMs);
    figures["scroll_px_per_s"] = speed;
    figures["rows_scrolled_past"] = topRow;
    figures["rows_loaded"] = list->property("count").toInt();
    return figures;
}

QJsonObject leasesPageFigures(QQmlEngine &engine, Client &client, int leases, seconds watching)
{
    grantLeases(client, leases, 600);
    PageWindow window(engine, QStringLiteral("LeasesPage"), QStringLiteral("leaseList"), {});
    window.setClient(&client);
    if (!waitUntil([&] { return window.list()->property("count").toInt() >= leases; }, milliseconds(120000)))
        fail(QStringLiteral("the Leases page listed %1 of %2 leases").arg(window.list()->property("count").toInt()).arg(leases));
    QJsonObject figures = window.frames(watching, [] {}).figures();
    figures["leases"] = leases;
    return figures;
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    QApplication app(argc, argv);  // the console's views need it (ChartView)
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("The console's Keys and Leases pages at scale, offscreen; prints one JSON object."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("keys"), QStringLiteral("Keys under the Keys page's prefix"), QStringLiteral("N"),
                      QStringLiteral("100000")});
    parser.addOption({QStringLiteral("scroll-seconds"), QStringLiteral("How long the key list scrolls"),
                      QStringLiteral("S"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("leases"), QStringLiteral("Live leases the Leases page lists"), QStringLiteral("N"),
                      QStringLiteral("10000")});
    parser.addOption({QStringLiteral("idle-seconds"), QStringLiteral("How long the countdowns are watched"),
                      QStringLiteral("S"), QStringLiteral("10")});
    parser.process(app);
    return run([&] {
        EtcdCluster cluster;
        startCluster(cluster);
        Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
        QQmlEngine engine;
        engine.addImportPath(QStringLiteral(QETCD_QML_IMPORT_PATH));
        engine.addImportPath(QStringLiteral("qrc:/"));
        QJsonObject result{{"benchmark", "console"}, {"scene_graph", "software, offscreen"}};
        result["keys_page"] = keysPageFigures(engine, client, positiveOption(parser, QStringLiteral("keys")),
                                              seconds(positiveOption(parser, QStringLiteral("scroll-seconds"))));
        result["leases_page"] = leasesPageFigures(engine, client, positiveOption(parser, QStringLiteral("leases")),
                                                  seconds(positiveOption(parser, QStringLiteral("idle-seconds"))));
        return result;
    });
}
