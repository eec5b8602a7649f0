// SPDX-License-Identifier: Apache-2.0
// The console's pages at scale, drawn offscreen by the software scene graph (as CI and
// --screenshot draw them), against one local etcd member:
// - Keys page over N keys under one prefix (--keys, default 100,000): from the moment the page
//   gets its client to its first rows painted; then its list scrolled at a steady speed for
//   --scroll-seconds, each frame timed from the scroll step to the frame swapped (p50/p99);
// - Leases page over L live leases (--leases, default 10,000), each row counting down: every
//   frame timed the same way, for --idle-seconds;
// - Timeline page following live while 20 participants and 5 sandbox members log 200 events a
//   second in a realistic mix, each participant's lease drawn, for --timeline-seconds (default
//   600): every frame timed, and the resident memory as the event log fills to its capacity
//   and then stays there. It needs no etcd.
// - Keys page with one key selected while another thread rewrites it with a 1.4 MB JSON value
//   20 times a second for --rewrite-seconds (default 20; issue 44 M1): every frame timed, the
//   GUI thread's busy time, the resident memory (peak and at the end), the Ranges etcd served
//   meanwhile, and how long the page took, once the writes stopped, to show the last value.
// - Coordination page's first read of a prefix of --coordination-values values of 1.4 MB
//   (default 100; issue 44 M2), and of one of --coordination-keys small values (default 5,000):
//   the bytes etcd sent, the Ranges it served, the time to the first objects.
// - Coordination page with --cards locks, one holder each (default 10,000, issue 38's target):
//   from the client given to the first frame with every object known, then the page scrolled
//   at a steady speed, each frame timed, and the resident memory. Target: frame p99 < 16 ms.
//   The cards were a Repeater in a Flow, every one of them made, until the page turned into a
//   TableView that makes only those in sight: 2,000 then took 68 s, 3.8 GB and 1.5 s a frame.
// - The console's start (issue 41): qetcd-console started --starts times against 10,000 keys,
//   from the process's start to the Keys page's first frame with its data (the console's own
//   figure, to the kernel's 10 ms tick) and to its exit with the screenshot written; then its
//   RSS once it has idled 10 s on that page. Target: median first frame < 1 s.
// --cases picks some of keys, leases, timeline, rewrite, coordination, cards, start (default all).
// Each frame is timed twice: frame_ms on the wall clock, what a user would see on this machine
// as loaded as it is; frame_cpu_ms the GUI thread's own work in it, which a busy machine does
// not stretch.
// Targets (issues 11 and 12): first rows < 300 ms, frame p99 < 16 ms.

#include "benchsupport.h"
#include "fixtures.h"

#include <QEtcd/client.h>

#include "eventlogmodel.h"
#include "timelinemodel.h"

#include <QtCore/QEventLoop>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QScopeGuard>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtQml/QQmlComponent>
#include <QtQml/QQmlEngine>
#include <QtQml/QQmlExtensionPlugin>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtWidgets/QApplication>

#include <atomic>
#include <ctime>
#include <memory>
#include <random>

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
    // bindings: the page's own, e.g. "client: etcd" (the window's client, given by setClient).
    PageWindow(QQmlEngine &engine, const QString &pageType, const QString &listName, const QString &bindings,
               const QString &setup = {})
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
                                         "    %1 { id: page; anchors.fill: parent; %2\n"
                                         "         Component.onCompleted: { %3 } }\n"
                                         "}\n")
                              .arg(pageType, bindings, setup)
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

    // Asks for a frame and waits for it to be swapped; its time from now, in ms. cpuMs: the GUI
    // thread's own time meanwhile, which other processes on the machine do not stretch.
    double nextFrameMs(double *cpuMs = nullptr, milliseconds timeout = milliseconds(10000))
    {
        const double cpuStart = threadCpuMs();
        const auto start = Clock::now();
        QEventLoop swapped;
        QTimer::singleShot(timeout, &swapped, [&swapped] { swapped.exit(1); });
        const QMetaObject::Connection quit =
            QObject::connect(m_window.get(), &QQuickWindow::frameSwapped, &swapped, [&swapped] { swapped.exit(0); });
        m_window->update();
        const int timedOut = swapped.exec();
        QObject::disconnect(quit);
        if (timedOut)
            fail(QStringLiteral("no frame was drawn within %1 s").arg(timeout.count() / 1000));
        if (cpuMs)
            *cpuMs = threadCpuMs() - cpuStart;
        return duration<double, std::milli>(Clock::now() - start).count();
    }

    struct Frames
    {
        QList<double> ms;
        QList<double> cpuMs;
        int late = 0;  // a whole frame's slot went by before the next could start (the thread was busy)

        QJsonObject figures() const
        {
            return {{"frames", ms.size()},
                    {"frames_late", late},
                    {"frame_ms", summary(ms, {{"p50", 50}, {"p99", 99}})},
                    {"frame_cpu_ms", summary(cpuMs, {{"p50", 50}, {"p99", 99}})}};
        }
    };

    // Frames at 60 per second for length, each timed after step() changed what it shows.
    // timeout: the longest a frame may take before the benchmark gives up.
    Frames frames(seconds length, const std::function<void()> &step, milliseconds timeout = milliseconds(10000))
    {
        Frames drawn;
        const auto end = Clock::now() + length;
        auto due = Clock::now();
        while (Clock::now() < end) {
            step();
            double cpuMs = 0;
            drawn.ms.append(nextFrameMs(&cpuMs, timeout));
            drawn.cpuMs.append(cpuMs);
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

    static double threadCpuMs()
    {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return now.tv_sec * 1000.0 + now.tv_nsec / 1e6;
    }

private:
    std::unique_ptr<QQuickWindow> m_window;
    QQuickItem *m_list = nullptr;
};

QJsonObject keysPageFigures(QQmlEngine &engine, Client &client, int keys, seconds scrolling)
{
    fillKeys(client, "/bench/console/", keys);
    PageWindow window(engine, QStringLiteral("KeysPage"), QStringLiteral("keyList"), QStringLiteral("client: etcd"),
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
    PageWindow window(engine, QStringLiteral("LeasesPage"), QStringLiteral("leaseList"), QStringLiteral("client: etcd"));
    window.setClient(&client);
    if (!waitUntil([&] { return window.list()->property("count").toInt() >= leases; }, milliseconds(120000)))
        fail(QStringLiteral("the Leases page listed %1 of %2 leases").arg(window.list()->property("count").toInt()).arg(leases));
    QJsonObject figures = window.frames(watching, [] {}).figures();
    figures["leases"] = leases;
    return figures;
}


// A JSON document of about `bytes`, different for each n: what a deployment tool rewrites.
QByteArray bigJson(int n, int bytes)
{
    QByteArray json = "{\"writer\":\"bench_console\",\"generation\":" + QByteArray::number(n) + ",\"items\":[";
    for (int i = 0; json.size() < bytes; ++i) {
        json += "{\"id\":" + QByteArray::number(i) + ",\"name\":\"item-" + QByteArray::number(i)
              + "\",\"tags\":[\"blue\",\"green\"],\"weight\":0.5,\"generation\":" + QByteArray::number(n) + "},";
    }
    json.chop(1);
    return json + "]}";
}

QJsonObject rewritePageFigures(QQmlEngine &engine, EtcdCluster &cluster, Client &client, seconds length)
{
    constexpr int rate = 20;
    constexpr int valueBytes = 1400 * 1000;
    const QByteArray key = "/bench/rewrite/config";
    await(client.put(key, bigJson(0, valueBytes)), QStringLiteral("first value"));
    PageWindow window(engine, QStringLiteral("KeysPage"), QStringLiteral("keyList"), QStringLiteral("client: etcd"),
                      QStringLiteral("page.model.prefix = \"/bench/rewrite/\""));
    window.setClient(&client);
    QObject *page = window.page();
    auto *model = page->property("model").value<QObject *>();
    const auto selectedRevision = [model] {
        return model->property("selected").toMap().value(QStringLiteral("modRevision")).toLongLong();
    };
    if (!waitUntil([&] { return window.list()->property("count").toInt() == 1; }, milliseconds(30000)))
        fail(QStringLiteral("the Keys page did not list the rewritten key"));
    QMetaObject::invokeMethod(page, "select", Q_ARG(QVariant, QString::fromUtf8(key)));
    if (!waitUntil([&] { return selectedRevision() > 0; }, milliseconds(30000)))
        fail(QStringLiteral("the Keys page did not show the selected value"));
    window.nextFrameMs();

    // The writer has a thread and a client of its own, so that the GUI thread measured here does
    // only what the console would do; it samples the resident memory too, which a frozen GUI
    // thread could not.
    const QString ranges = QStringLiteral("grpc_server_started_total{grpc_method=\"Range\"");
    const double rangesBefore = cluster.metric(0, ranges);
    const qint64 rssStartKiB = statusFieldKiB("VmRSS:");
    std::atomic<qint64> rssPeakKiB{rssStartKiB};
    std::atomic<int> written{0};
    const int total = int(length.count()) * rate;
    QThread writerThread;
    writerThread.start();
    QObject writer;
    writer.moveToThread(&writerThread);
    std::unique_ptr<Client> writerClient;
    QList<QFuture<PutResult>> puts;
    // Stopped however this function ends: a QThread destroyed while running aborts.
    const auto stopWriter = qScopeGuard([&writerThread] {
        writerThread.quit();
        writerThread.wait();
    });
    QMetaObject::invokeMethod(
        &writer,
        [&] {
            writerClient = std::make_unique<Client>(ClientOptions::fromEndpoints(cluster.clientUrls()));
            auto *timer = new QTimer(&writer);
            timer->setTimerType(Qt::PreciseTimer);
            timer->setInterval(1000 / rate);
            QObject::connect(timer, &QTimer::timeout, &writer, [&, timer] {
                rssPeakKiB = std::max(rssPeakKiB.load(), statusFieldKiB("VmRSS:"));
                if (written == total)
                    return timer->stop();
                puts.append(writerClient->put(key, bigJson(++written, valueBytes)));
            });
            timer->start();
        },
        Qt::BlockingQueuedConnection);
    const double cpuStart = PageWindow::threadCpuMs();
    const auto start = Clock::now();
    // A frozen GUI thread is what is measured here: a frame may take minutes.
    const auto drawn = window.frames(length, [] {}, milliseconds(600000));
    const double writingCpuMs = PageWindow::threadCpuMs() - cpuStart;
    const double writingMs = duration<double, std::milli>(Clock::now() - start).count();
    if (!waitUntil([&] { return written == total; }, milliseconds(60000)))
        fail(QStringLiteral("the writer put %1 of %2 values").arg(written.load()).arg(total));
    qint64 lastRevision = 0;
    QString writeError;
    QMetaObject::invokeMethod(
        &writer,
        [&] {
            for (const QFuture<PutResult> &put : std::as_const(puts)) {
                if (!Testing::awaitFuture(put, milliseconds(30000)) || !put.result().status) {
                    writeError = QStringLiteral("a rewrite failed or did not finish in 30 s");
                    break;
                }
                lastRevision = std::max(lastRevision, put.result().header.revision);
            }
            writerClient.reset();
        },
        Qt::BlockingQueuedConnection);
    writerThread.quit();
    writerThread.wait();
    if (!writeError.isEmpty())
        fail(writeError);

    const auto stopped = Clock::now();
    const bool caughtUp = waitUntil([&] { return selectedRevision() == lastRevision; }, milliseconds(300000));
    const double catchUpMs = duration<double, std::milli>(Clock::now() - stopped).count();
    const double busyCpuMs = PageWindow::threadCpuMs() - cpuStart;
    rssPeakKiB = std::max(rssPeakKiB.load(), statusFieldKiB("VmRSS:"));

    QJsonObject figures = drawn.figures();
    figures["value_bytes"] = bigJson(total, valueBytes).size();
    figures["puts"] = total;
    figures["puts_per_second"] = rate;
    figures["seconds"] = qint64(length.count());
    figures["gui_thread_busy_ms_while_writing"] = rounded(writingCpuMs);
    figures["gui_thread_busy_share_while_writing"] = rounded(writingCpuMs / writingMs);
    figures["gui_thread_busy_ms_until_caught_up"] = rounded(busyCpuMs);
    figures["caught_up"] = caughtUp;
    figures["catch_up_ms"] = rounded(catchUpMs);
    figures["ranges_served"] = cluster.metric(0, ranges) - rangesBefore;
    figures["rss_start_mib"] = mib(rssStartKiB);
    figures["rss_peak_mib"] = mib(rssPeakKiB);
    figures["rss_end_mib"] = mib(statusFieldKiB("VmRSS:"));
    return figures;
}

// What the console's participants and sandbox log, at a steady rate and in a mix like theirs:
// holds taken and given back (a few lost, each followed by etcd deleting the key), leadership,
// barriers (some lifts spurious), lease and connection states, proxy faults that pass again, and
// now and then a member paused, killed or a new leader. Each participant's lease is an object
// with the properties the timeline samples: renewed every third of its TTL, except while its
// participant is cut off.
class TimelineFeed
{
public:
    TimelineFeed(QEtcd::EventLogModel &log, int participants, int members) : m_log(log)
    {
        for (int i = 0; i < participants; ++i) {
            auto participant = std::make_unique<Participant>();
            participant->name = QStringLiteral("build-%1").arg(i + 1);
            participant->key = QStringLiteral("/app/locks/deploy/%1").arg(0x694d0000 + i, 0, 16);
            participant->lease.setProperty("leaseTtl", LeaseTtlSeconds);
            participant->lease.setProperty("leaseTimeLeft", LeaseTtlSeconds * 1000);
            m_participants.push_back(std::move(participant));
        }
        for (int i = 0; i < members; ++i)
            m_members.append(QStringLiteral("m%1").arg(i));
    }

    void watchLeases(TimelineModel &timeline)
    {
        for (const auto &participant : m_participants)
            timeline.watchLease(participant->name, &participant->lease);
    }

    // Appends events until there are as many as `rate` a second over `elapsed`; moves the leases on.
    void catchUp(double rate, milliseconds elapsed)
    {
        const auto due = qint64(rate * elapsed.count() / 1000.0);
        while (m_appended < due)
            appendOne();
        for (const auto &participant : m_participants) {
            if (!participant->cutOff && elapsed - participant->renewed >= milliseconds(LeaseTtlSeconds * 1000 / 3))
                participant->renewed = elapsed;
            const auto left = std::max<qint64>(0, LeaseTtlSeconds * 1000 - (elapsed - participant->renewed).count());
            participant->lease.setProperty("leaseTimeLeft", left);
        }
    }

    qint64 appended() const { return m_appended; }

private:
    static constexpr int LeaseTtlSeconds = 10;

    struct Participant
    {
        QString name;
        QString key;
        bool holding = false;
        bool cutOff = false;
        milliseconds renewed{0};
        QObject lease;
    };

    void append(const QString &participant, const QString &kind, const QString &detail = {}, const QString &key = {},
                bool spurious = false)
    {
        m_log.append({0, participant, kind, detail, spurious, key});
        ++m_appended;
    }

    void appendOne()
    {
        std::uniform_int_distribution<int> percent(0, 99);
        if (percent(m_random) < 6) {
            appendMemberEvent();
            return;
        }
        std::uniform_int_distribution<int> anyone(0, int(m_participants.size()) - 1);
        Participant &p = *m_participants[size_t(anyone(m_random))];
        const int roll = percent(m_random);
        if (roll < 14) {
            if (p.holding) {
                p.holding = false;
                append(p.name, QStringLiteral("released"), {}, p.key);
            } else {
                p.holding = true;
                append(p.name, QStringLiteral("acquired"), QStringLiteral("token %1").arg(m_appended), p.key);
            }
        } else if (roll < 22) {
            append(p.name, QStringLiteral("pending"), QStringLiteral("behind another holder"), p.key);
        } else if (roll < 32) {
            // A fault, or its end: cut off until the next pass.
            p.cutOff = !p.cutOff;
            static const QStringList faults{QStringLiteral("blackhole"), QStringLiteral("delay 800 ms"), QStringLiteral("reset")};
            append(p.name, QStringLiteral("fault"), p.cutOff ? faults[percent(m_random) % 3] : QStringLiteral("pass"));
        } else if (roll < 48) {
            static const QStringList states{QStringLiteral("Suspended"), QStringLiteral("Reconnected"), QStringLiteral("Connected")};
            append(p.name, QStringLiteral("connectionState"), states[percent(m_random) % 3]);
        } else if (roll < 64) {
            static const QStringList leases{QStringLiteral("leaseSuspended"), QStringLiteral("leaseRestored"),
                                            QStringLiteral("leaseRestored"), QStringLiteral("leaseExpired")};
            append(p.name, leases[percent(m_random) % 4], QStringLiteral("lease %1").arg(p.key.right(4)), p.key);
        } else if (roll < 70) {
            if (p.holding) {  // a loss: the participant knows, then etcd deletes its key
                p.holding = false;
                append(p.name, QStringLiteral("lost"), QStringLiteral("lease deadline passed"), p.key);
                append(QStringLiteral("etcd"), QStringLiteral("keyDeleted"), {}, p.key);
            } else {
                append(p.name, QStringLiteral("releaseFailed"), QStringLiteral("unlock() said false"), p.key);
            }
        } else if (roll < 80) {
            static const QStringList leadership{QStringLiteral("elected"), QStringLiteral("elected"),
                                                QStringLiteral("leadershipLost"), QStringLiteral("resigned")};
            append(p.name, leadership[percent(m_random) % 4], {}, QStringLiteral("/app/leader/%1").arg(p.name));
        } else if (roll < 94) {
            static const QStringList barrier{QStringLiteral("barrierSet"), QStringLiteral("barrierLifted"),
                                             QStringLiteral("barrierLifted"), QStringLiteral("barrierRemoved")};
            const QString kind = barrier[percent(m_random) % 4];
            append(p.name, kind, {}, QStringLiteral("/app/gates/start"), kind == QLatin1String("barrierLifted") && percent(m_random) < 20);
        } else if (roll < 97) {
            append(QStringLiteral("etcd"), QStringLiteral("keyPut"), {}, p.key);
        } else {
            append(p.name, QStringLiteral("error"), QStringLiteral("deadline exceeded"));
        }
    }

    void appendMemberEvent()
    {
        std::uniform_int_distribution<int> anyMember(0, int(m_members.size()) - 1);
        const QString &member = m_members[anyMember(m_random)];
        static const QStringList kinds{QStringLiteral("memberPaused"), QStringLiteral("memberResumed"),
                                       QStringLiteral("memberKilled"), QStringLiteral("memberRestarted"),
                                       QStringLiteral("memberStopped"), QStringLiteral("memberRestarted"),
                                       QStringLiteral("leaderChanged")};
        const QString &kind = kinds[std::uniform_int_distribution<int>(0, int(kinds.size()) - 1)(m_random)];
        append(member, kind, kind == QLatin1String("leaderChanged") ? m_members[anyMember(m_random)] : QString());
    }

    QEtcd::EventLogModel &m_log;
    std::vector<std::unique_ptr<Participant>> m_participants;
    QStringList m_members;
    std::mt19937 m_random{12};  // the same story every run
    qint64 m_appended = 0;
};

// Issue 44 M2: the Coordination page's first read of a prefix holding `count` values of 1.4 MB
// (the model keeps none of them, but etcd must still send what it is asked for), and of one
// holding `smallKeys` small values (so paging for the large ones costs the common case little):
// the bytes etcd marshalled for its clients (etcd_network_client_grpc_sent_bytes_total; a
// Range answer the client refuses as too large counts whole), the Ranges it served, and the
// time to the page's first objects, and the console's RSS before, at its peak and after.
QJsonObject coordinationReadFigures(QQmlEngine &engine, EtcdCluster &cluster, Client &client, int count, int smallKeys)
{
    constexpr int valueBytes = 1400 * 1000;
    const QByteArray large = "/bench/coordination/large/";
    const QByteArray small = "/bench/coordination/small/";
    const QByteArray value(valueBytes, 'v');
    for (int i = 0; i < count; ++i)
        await(client.put(large + QByteArray::number(i).rightJustified(5, '0'), value), QStringLiteral("large value"));
    LeaseGrantResult lease;
    lease = await(client.leaseGrant(600), QStringLiteral("lease"));
    PutOptions onLease;
    onLease.lease = lease.id;
    const QByteArray identity = R"({"clientId":"bench","host":"bench","pid":1,"requestedAt":0})";
    for (int i = 0; i < smallKeys; i += 100) {
        QList<QFuture<PutResult>> puts;
        for (int j = i; j < std::min(smallKeys, i + 100); ++j)
            puts.append(client.put(small + "config/" + QByteArray::number(j), "mode=standby"));
        for (const QFuture<PutResult> &put : puts)
            await(put, QStringLiteral("small key"));
    }

    const QString sent = QStringLiteral("etcd_network_client_grpc_sent_bytes_total");
    const QString ranges = QStringLiteral("grpc_server_started_total{grpc_method=\"Range\"");
    const auto firstRead = [&](const QByteArray &prefix, int objects) {
        const double sentBefore = cluster.metric(0, sent);
        const double rangesBefore = cluster.metric(0, ranges);
        resetPeakRss();
        const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
        PageWindow window(engine, QStringLiteral("CoordinationPage"), QStringLiteral("cards"), QStringLiteral("client: etcd"),
                          QStringLiteral("page.model.prefix = \"%1\"").arg(QString::fromUtf8(prefix)));
        const auto start = Clock::now();
        window.setClient(&client);
        if (!waitUntil([&] { return window.list()->property("count").toInt() == objects; }, milliseconds(600000)))
            fail(QStringLiteral("the Coordination page did not show %1 objects under %2 within 10 minutes")
                     .arg(objects).arg(QString::fromUtf8(prefix)));
        const double readMs = duration<double, std::milli>(Clock::now() - start).count();
        return QJsonObject{{"objects", objects},
                           {"etcd_sent_mb", (cluster.metric(0, sent) - sentBefore) / 1e6},
                           {"ranges_served", cluster.metric(0, ranges) - rangesBefore},
                           {"first_objects_ms", readMs},
                           {"rss_before_mib", mib(rssBeforeKiB)},
                           {"rss_peak_mib", mib(statusFieldKiB("VmHWM:"))},
                           {"rss_after_mib", mib(statusFieldKiB("VmRSS:"))}};
    };
    QJsonObject figures{{"large_values", count}, {"value_bytes", valueBytes}, {"values_mb", double(count) * valueBytes / 1e6},
                        {"small_keys", smallKeys}};
    // Plain keys, recognised as nothing; one lock entry more under each prefix makes the page
    // show one object once the read is done.
    for (const QByteArray &prefix : {large, small})
        await(client.put(prefix + "lock/" + QByteArray::number(lease.id, 16), identity, onLease), QStringLiteral("lock"));
    figures["large"] = firstRead(large, 1);
    figures["small"] = firstRead(small, 1);
    return figures;
}

QJsonObject cardsPageFigures(QQmlEngine &engine, Client &client, int objects, seconds scrolling)
{
    const QByteArray prefix = "/bench/cards/";
    const LeaseGrantResult lease = await(client.leaseGrant(3600), QStringLiteral("lease"));
    PutOptions onLease;
    onLease.lease = lease.id;
    const QByteArray identity = R"({"clientId":"bench","host":"bench","pid":1,"requestedAt":0})";
    for (int i = 0; i < objects; i += 100) {
        QList<QFuture<PutResult>> puts;
        for (int j = i; j < std::min(objects, i + 100); ++j) {
            puts.append(client.put(prefix + "lock" + QByteArray::number(j).rightJustified(5, '0') + '/'
                                       + QByteArray::number(lease.id, 16),
                                   identity, onLease));
        }
        for (const QFuture<PutResult> &put : puts)
            await(put, QStringLiteral("lock"));
    }
    const qint64 rssBeforeKiB = statusFieldKiB("VmRSS:");
    PageWindow window(engine, QStringLiteral("CoordinationPage"), QStringLiteral("cards"), QStringLiteral("client: etcd"),
                      QStringLiteral("page.model.prefix = \"%1\"").arg(QString::fromUtf8(prefix)));
    window.nextFrameMs();
    const auto start = Clock::now();
    window.setClient(&client);
    if (!waitUntil([&] { return window.list()->property("count").toInt() == objects; }, milliseconds(600000)))
        fail(QStringLiteral("the Coordination page did not know %1 objects within 10 minutes").arg(objects));
    window.nextFrameMs(nullptr, milliseconds(600000));
    const double allObjectsMs = duration<double, std::milli>(Clock::now() - start).count();
    const qint64 rssShownKiB = statusFieldKiB("VmRSS:");

    // The cards are a TableView, itself a Flickable.
    QQuickItem *flickable = window.list();
    if (!flickable->property("contentY").isValid())
        fail(QStringLiteral("the Coordination page's cards are not a Flickable"));
    constexpr double speed = 3000.0;
    const auto scrolled = window.frames(scrolling, [flickable] {
        flickable->setProperty("contentY", flickable->property("contentY").toDouble() + speed * 0.016667);
    }, milliseconds(600000));
    QJsonObject figures = scrolled.figures();
    figures["objects"] = objects;
    figures["all_objects_ms"] = rounded(allObjectsMs);
    figures["scroll_px_per_s"] = speed;
    figures["scrolled_px"] = rounded(flickable->property("contentY").toDouble());
    figures["rss_before_mib"] = mib(rssBeforeKiB);
    figures["rss_shown_mib"] = mib(rssShownKiB);
    figures["rss_after_mib"] = mib(statusFieldKiB("VmRSS:"));
    await(client.leaseRevoke(lease.id), QStringLiteral("revoke"));
    return figures;
}

// The console's Keys page over keys under /bench/start/: its start, five times, and its memory idle.
QJsonObject consoleStartFigures(Client &client, const QString &endpoint, int keys, int starts)
{
#ifndef QETCD_CONSOLE_PATH
    fail(QStringLiteral("this build has no qetcd-console to start"));
#else
    const QByteArray prefix = "/bench/start/";
    for (int i = 0; i < keys; i += 100) {
        QList<QFuture<PutResult>> puts;
        for (int j = i; j < std::min(keys, i + 100); ++j)
            puts.append(client.put(prefix + "app" + QByteArray::number(j % 50) + "/key" + QByteArray::number(j), "value"));
        for (const QFuture<PutResult> &put : puts)
            await(put, QStringLiteral("key"));
    }
    QTemporaryDir home;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // No profiles, windows or revision samples of the user's: a first start.
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QStringList arguments{QStringLiteral("--endpoints"), endpoint, QStringLiteral("--page"), QStringLiteral("keys"),
                                QStringLiteral("--namespace"), QString::fromUtf8(prefix)};
    QList<double> paintedMs;
    QList<double> exitedMs;
    for (int run = 0; run < starts; ++run) {
        QProcess console;
        console.setProcessEnvironment(environment);
        console.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        const auto start = Clock::now();
        console.start(QStringLiteral(QETCD_CONSOLE_PATH),
                      arguments + QStringList{QStringLiteral("--screenshot"), home.filePath(QStringLiteral("start.png"))});
        if (!console.waitForFinished(60000) || console.exitStatus() != QProcess::NormalExit || console.exitCode() != 0)
            fail(QStringLiteral("qetcd-console did not paint the Keys page: %1").arg(console.errorString()));
        exitedMs.append(duration<double, std::milli>(Clock::now() - start).count());
        const QJsonObject summary = QJsonDocument::fromJson(console.readAllStandardOutput()).object();
        if (summary.value(QLatin1String("keys")).toInteger(-1) <= 0 || !summary.contains(QLatin1String("paintedMs")))
            fail(QStringLiteral("qetcd-console painted no keys: %1").arg(QString::fromUtf8(QJsonDocument(summary).toJson())));
        paintedMs.append(summary.value(QLatin1String("paintedMs")).toDouble());
    }

    QProcess idle;
    idle.setProcessEnvironment(environment);
    idle.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    idle.start(QStringLiteral(QETCD_CONSOLE_PATH), arguments);
    if (!idle.waitForStarted())
        fail(QStringLiteral("qetcd-console did not start: %1").arg(idle.errorString()));
    QThread::sleep(10);
    const qint64 rssKiB = statusFieldKiB("VmRSS:", QStringLiteral("/proc/%1/status").arg(idle.processId()));
    idle.terminate();
    if (!idle.waitForFinished(10000))
        idle.kill();
    return QJsonObject{{"keys", keys},
                       {"starts", starts},
                       {"first_frame_ms", summary(paintedMs, {{"median", 50}})},
                       {"first_frame_ms_each", roundedList(paintedMs)},
                       {"exited_with_screenshot_ms", summary(exitedMs, {{"median", 50}})},
                       {"idle_rss_mib", mib(rssKiB)}};
#endif
}

QJsonObject timelinePageFigures(QQmlEngine &engine, seconds length, int capacity)
{
    constexpr int participants = 20;
    constexpr int members = 5;
    constexpr double rate = 200;
    PageWindow window(engine, QStringLiteral("TimelinePage"), QStringLiteral("eventList"),
                      QStringLiteral("eventLog: EventLogModel { capacity: %1 }").arg(capacity));
    auto *log = window.page()->property("eventLog").value<QEtcd::EventLogModel *>();
    auto *timeline = window.page()->property("timeline").value<TimelineModel *>();
    if (!log || !timeline)
        fail(QStringLiteral("the Timeline page has no event log or no timeline"));
    TimelineFeed feed(*log, participants, members);
    feed.watchLeases(*timeline);
    window.nextFrameMs();
    const qint64 rssStartKiB = statusFieldKiB("VmRSS:");

    QJsonArray rssEveryMinute;
    const auto start = Clock::now();
    auto nextRss = start + minutes(1);
    const auto drawn = window.frames(length, [&] {
        const auto now = Clock::now();
        feed.catchUp(rate, duration_cast<milliseconds>(now - start));
        if (now >= nextRss) {
            rssEveryMinute.append(mib(statusFieldKiB("VmRSS:")));
            nextRss += minutes(1);
        }
    });
    const qint64 rssEndKiB = statusFieldKiB("VmRSS:");

    QJsonObject figures = drawn.figures();
    figures["participants"] = participants;
    figures["members"] = members;
    figures["events_per_second"] = rate;
    figures["seconds"] = qint64(length.count());
    figures["window_seconds"] = timeline->windowLength();
    figures["events_appended"] = feed.appended();
    figures["events_kept"] = timeline->eventCount();
    figures["markers"] = timeline->markerCount();
    // The marker layer paints tiles a quarter of a thousand pixels wide, only where markers changed.
    if (const auto *layer = window.page()->findChild<QObject *>(QStringLiteral("traceLayer")))
        figures["marker_tiles_painted"] = layer->property("tilesPainted").toInt();
    figures["bands"] = timeline->bandCount();
    figures["losses"] = timeline->lossCount();
    figures["bound_events"] = log->capacity();
    figures["bound_lease_samples_per_lane"] = TimelineModel::MaxLeaseSamples;
    figures["rss_start_mib"] = mib(rssStartKiB);
    figures["rss_end_mib"] = mib(rssEndKiB);
    figures["rss_every_minute_mib"] = rssEveryMinute;
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
    parseCommandLine(
        parser, app,
        QStringLiteral("The console's Keys, Leases and Timeline pages at scale, offscreen; prints one JSON object."),
        {{QStringLiteral("keys"), QStringLiteral("Keys under the Keys page's prefix"), QStringLiteral("N"),
          QStringLiteral("100000")},
         {QStringLiteral("scroll-seconds"), QStringLiteral("How long the key list scrolls"), QStringLiteral("S"),
          QStringLiteral("10")},
         {QStringLiteral("leases"), QStringLiteral("Live leases the Leases page lists"), QStringLiteral("N"),
          QStringLiteral("10000")},
         {QStringLiteral("idle-seconds"), QStringLiteral("How long the countdowns are watched"), QStringLiteral("S"),
          QStringLiteral("10")},
         {QStringLiteral("timeline-seconds"), QStringLiteral("How long the timeline follows its events"),
          QStringLiteral("S"), QStringLiteral("600")},
         {QStringLiteral("event-capacity"), QStringLiteral("The timeline's event log's capacity"), QStringLiteral("N"),
          QString::number(QEtcd::EventLogModel::DefaultCapacity)},
         {QStringLiteral("rewrite-seconds"), QStringLiteral("How long the selected key is rewritten"),
          QStringLiteral("S"), QStringLiteral("20")},
         {QStringLiteral("coordination-values"),
          QStringLiteral("Values of 1.4 MB under the Coordination page's prefix (360: 500 MB, as issue 44 M2 found)"),
          QStringLiteral("N"), QStringLiteral("360")},
         {QStringLiteral("coordination-keys"), QStringLiteral("Small values under the Coordination page's other prefix"),
          QStringLiteral("N"), QStringLiteral("5000")},
         {QStringLiteral("cards"), QStringLiteral("Locks the Coordination page shows as cards"), QStringLiteral("N"),
          QStringLiteral("10000")},
         {QStringLiteral("start-keys"), QStringLiteral("Keys under the console's Keys page at its start"),
          QStringLiteral("N"), QStringLiteral("10000")},
         {QStringLiteral("starts"), QStringLiteral("How many times the console is started"), QStringLiteral("N"),
          QStringLiteral("5")},
         {QStringLiteral("cases"),
          QStringLiteral("Which: keys, leases, timeline, rewrite, coordination, cards, start, comma-separated"),
          QStringLiteral("LIST"), QStringLiteral("keys,leases,timeline,rewrite,coordination,cards,start")}});
    return run([&] {
        const QStringList cases =
            choiceList(parser, QStringLiteral("cases"), {"keys", "leases", "timeline", "rewrite", "coordination", "cards", "start"});
        QQmlEngine engine;
        engine.addImportPath(QStringLiteral(QETCD_QML_IMPORT_PATH));
        engine.addImportPath(QStringLiteral("qrc:/"));
        QJsonObject result{{"benchmark", "console"}, {"scene_graph", "software, offscreen"}};
        if (cases.contains(QLatin1String("keys")) || cases.contains(QLatin1String("leases"))
            || cases.contains(QLatin1String("rewrite")) || cases.contains(QLatin1String("coordination"))
            || cases.contains(QLatin1String("cards")) || cases.contains(QLatin1String("start"))) {
            EtcdCluster cluster;
            startCluster(cluster);
            Client client(ClientOptions::fromEndpoints(cluster.clientUrls()));
            if (cases.contains(QLatin1String("keys"))) {
                result["keys_page"] = keysPageFigures(engine, client, positiveOption(parser, QStringLiteral("keys")),
                                                      seconds(positiveOption(parser, QStringLiteral("scroll-seconds"))));
            }
            if (cases.contains(QLatin1String("leases"))) {
                result["leases_page"] = leasesPageFigures(engine, client, positiveOption(parser, QStringLiteral("leases")),
                                                          seconds(positiveOption(parser, QStringLiteral("idle-seconds"))));
            }
            if (cases.contains(QLatin1String("rewrite"))) {
                result["rewrite_selected_key"] =
                    rewritePageFigures(engine, cluster, client, seconds(positiveOption(parser, QStringLiteral("rewrite-seconds"))));
            }
            if (cases.contains(QLatin1String("coordination"))) {
                result["coordination_first_read"] =
                    coordinationReadFigures(engine, cluster, client, positiveOption(parser, QStringLiteral("coordination-values")),
                                            positiveOption(parser, QStringLiteral("coordination-keys")));
            }
            if (cases.contains(QLatin1String("cards"))) {
                result["coordination_cards"] = cardsPageFigures(engine, client, positiveOption(parser, QStringLiteral("cards")),
                                                                seconds(positiveOption(parser, QStringLiteral("scroll-seconds"))));
            }
            if (cases.contains(QLatin1String("start"))) {
                result["console_start"] = consoleStartFigures(client, cluster.clientUrl(0),
                                                              positiveOption(parser, QStringLiteral("start-keys")),
                                                              positiveOption(parser, QStringLiteral("starts")));
            }
        }
        if (cases.contains(QLatin1String("timeline"))) {
            result["timeline_page"] = timelinePageFigures(engine, seconds(positiveOption(parser, QStringLiteral("timeline-seconds"))),
                                                          positiveOption(parser, QStringLiteral("event-capacity")));
        }
        return result;
    });
}
