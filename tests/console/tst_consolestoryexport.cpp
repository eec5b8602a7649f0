// SPDX-License-Identifier: Apache-2.0
// Each built-in story exported headless, as docs/scenarios.md gives it: `qetcd-console --sandbox
// --scenario NAME --autoplay --export-story FILE`, offscreen. The page must parse (Python's
// html.parser, and its SVG as XML), draw one lane per participant of the story and etcd's, hold
// one step per narration line and the event log, and reach for nothing outside itself; a PNG per
// step must be written beside it, not blank, and an earlier export's pictures beyond the story's
// steps removed (--force), files only like them left alone. Then a real browser opens the page
// (Debian's chromium-headless-shell; missing, it is a failure, as etcd is): its script ran
// without an error and the page fetched nothing, the script counts one step per narration line,
// an address ending in #step-3 shows step 3, and the page is drawn, light or dark as the
// reader's system is. Existing files are refused without --force, before any sandbox starts.
// With QETCD_SCREENSHOT_DIR set, each story's last picture is kept there as stories/NAME.png (the
// gallery in docs/scenarios.md; scripts/screenshots), and the browser's screenshots of one page,
// lock-partition's, as stories/lock-partition-page.png and lock-partition-page-dark.png.

#include "../common/picturechecks.h"

#include <QEtcd/testtimeouts.h>

#include <algorithm>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QSet>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtCore/QUrl>
#include <QtCore/QXmlStreamReader>
#include <QtGui/QImage>
#include <QtTest/QtTest>

using namespace QEtcd::Testing;

namespace {
// What the page holds, as a browser's parser reads it (or what a browser made of it, its DOM
// dumped): prints one JSON object. root: the <html> element's data-* attributes, which the page's
// script sets.
const char *const PageReader = R"(
import json, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.lanes, self.steps, self.rows, self.moments, self.external, self.scripts = [], 0, 0, 0, [], 0
        self.root, self.current = {}, []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get('class') or '').split()
        if tag == 'g' and 'lane' in classes:
            self.lanes.append(attributes.get('data-lane'))
        if tag == 'g' and 'moment' in classes:
            self.moments += 1
        if tag == 'html':
            self.root = {name: value for name, value in attrs if name.startswith('data-')}
        if tag == 'li' and 'step' in classes:
            self.steps += 1
            if 'current' in classes:
                self.current.append(attributes.get('id'))
        if tag == 'tr':
            self.rows += 1
        if tag == 'script':
            self.scripts += 1
        for name in ('src', 'href', 'xlink:href'):
            value = attributes.get(name)
            if value is not None and not value.startswith(('data:', '#')):
                self.external.append(value)

page = Page()
page.feed(open(sys.argv[1], encoding='utf-8').read())
page.close()
print(json.dumps({'lanes': page.lanes, 'steps': page.steps, 'rows': page.rows, 'moments': page.moments,
                  'external': page.external, 'scripts': page.scripts, 'root': page.root, 'current': page.current}))
)";

// The story whose page the gallery shows as a browser draws it.
const QLatin1String GalleryPage("lock-partition");

QJsonObject storyFile(const QString &name)
{
    QFile file(QStringLiteral(QETCD_STORY_DIR "/%1.json").arg(name));
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject();
}

// Replaces what is at to with a copy of from.
bool copyOver(const QString &from, const QString &to)
{
    return (!QFile::exists(to) || QFile::remove(to)) && QFile::copy(from, to);
}
} // namespace

class tst_ConsoleStoryExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_scratch.isValid());
        m_outputDir = m_scratch.filePath(QStringLiteral("stories"));
        QVERIFY(QDir().mkpath(m_outputDir));
        const QString kept = qEnvironmentVariable("QETCD_SCREENSHOT_DIR");
        if (!kept.isEmpty()) {
            m_galleryDir = kept + QStringLiteral("/stories");
            QVERIFY(QDir().mkpath(m_galleryDir));
        }
    }

    void story_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"lock-partition", "spurious-barrier", "registration-heal", "leader-death",
                                 "operator-unsticks-a-deploy", "consumer-partition"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void story()
    {
        QFETCH(QString, name);
        const QJsonObject story = storyFile(name);
        const QJsonArray steps = story.value(QLatin1String("steps")).toArray();
        QVERIFY2(!steps.isEmpty(), qPrintable(name));
        const QString browserProgram = QStandardPaths::findExecutable(QStringLiteral("chromium-headless-shell"));
        QVERIFY2(!browserProgram.isEmpty(), "no chromium-headless-shell on PATH: install it (debian/control's Build-Depends)");
        const QDir output(m_outputDir);
        const QString page = output.filePath(name + QStringLiteral(".html"));
        // An earlier export of a longer story to this name: its last picture goes, what is only
        // like one stays.
        const QString stale = output.filePath(QStringLiteral("%1-step-%2.png").arg(name).arg(steps.size() + 1));
        const QString alike = stale + QStringLiteral(".orig");
        for (const QString &earlier : {stale, alike}) {
            QFile file(earlier);
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write("earlier") == 7);
        }
        QProcess console;
        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), name, QStringLiteral("--autoplay"),
                       QStringLiteral("--export-story"), page, QStringLiteral("--force")});
        QVERIFY(console.waitForFinished(scaledMs(180000)));
        const QByteArray errors = console.readAllStandardError();
        QVERIFY2(console.exitStatus() == QProcess::NormalExit && console.exitCode() == 0, errors.constData());

        QProcess python;
        python.start(QStringLiteral("python3"), {QStringLiteral("-c"), QString::fromLatin1(PageReader), page});
        QVERIFY(python.waitForFinished(scaledMs(30000)));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject read = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        QVERIFY2(!read.isEmpty(), qPrintable(page));

        // A lane for each participant and for etcd, each once; members have lanes when they
        // did something (leader-death's).
        QStringList lanes;
        for (const QJsonValue &lane : read.value(QLatin1String("lanes")).toArray())
            lanes << lane.toString();
        QCOMPARE(QSet<QString>(lanes.cbegin(), lanes.cend()).size(), lanes.size());
        QStringList expected{QStringLiteral("etcd")};
        for (const QJsonValue &participant : story.value(QLatin1String("participants")).toArray())
            expected << participant.toObject().value(QLatin1String("name")).toString();
        for (const QString &lane : expected)
            QVERIFY2(lanes.contains(lane), qPrintable(QStringLiteral("no lane for %1 in %2").arg(lane, lanes.join(QLatin1String(", ")))));
        // An operator's intervention is drawn on a lane of its own, as on the Timeline page.
        const bool intervenes = std::any_of(steps.cbegin(), steps.cend(), [](const QJsonValue &step) {
            return step.toObject().value(QLatin1String("action")).toObject().value(QLatin1String("do")).toString()
                == QLatin1String("intervene");
        });
        for (const QString &lane : lanes) {
            QVERIFY2(expected.contains(lane) || (intervenes && lane == QLatin1String("operator"))
                         || QRegularExpression(QStringLiteral("^m\\d$")).match(lane).hasMatch(),
                     qPrintable(QStringLiteral("a lane for %1, which is no participant").arg(lane)));
        }
        // One step per narration line, each with its moment on the timeline; the event log's
        // rows besides its header; nothing fetched from elsewhere.
        QCOMPARE(read.value(QLatin1String("steps")).toInt(), int(steps.size()));
        QCOMPARE(read.value(QLatin1String("moments")).toInt(), int(steps.size()));
        QVERIFY2(read.value(QLatin1String("rows")).toInt() > int(steps.size()), qPrintable(page));
        QCOMPARE(read.value(QLatin1String("scripts")).toInt(), 1);
        QVERIFY2(read.value(QLatin1String("external")).toArray().isEmpty(),
                 QJsonDocument(read.value(QLatin1String("external")).toArray()).toJson().constData());

        // The timeline is well-formed XML too (as QSvgRenderer drew the pictures from it).
        QFile file(page);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray html = file.readAll();
        const qsizetype svgStart = html.indexOf("<svg");
        const qsizetype svgEnd = html.indexOf("</svg>");
        QVERIFY(svgStart >= 0 && svgEnd > svgStart);
        QXmlStreamReader svg(html.mid(svgStart, svgEnd + 6 - svgStart));
        while (!svg.atEnd())
            svg.readNext();
        QVERIFY2(!svg.hasError(), qPrintable(svg.errorString()));

        for (int step = 1; step <= steps.size(); ++step) {
            const QString picture = QDir(m_outputDir).filePath(QStringLiteral("%1-step-%2.png").arg(name).arg(step));
            const QImage image(picture);
            QVERIFY2(!image.isNull(), qPrintable(picture));
            QVERIFY2(image.width() >= 1600, qPrintable(picture));
            QVERIFY2(coloursIn(image) > 12, qPrintable(picture));
        }
        QVERIFY2(!QFile::exists(stale), qPrintable(stale));
        QVERIFY2(QFile::exists(alike), qPrintable(alike));

        // What only a browser tells. The page's script marks the root element: the steps it
        // built and the one it shows, and any error or anything the page's policy kept it from
        // fetching. Step 3 (or the last) asked for by the address.
        const int asked = std::min(3, int(steps.size()));
        QUrl address = QUrl::fromLocalFile(page);
        address.setFragment(QStringLiteral("step-%1").arg(asked));
        QProcess browser;
        browse(&browser, browserProgram, {QStringLiteral("--dump-dom"), address.toString(QUrl::FullyEncoded)});
        QVERIFY(browser.waitForFinished(scaledMs(60000)));
        QVERIFY2(browser.exitStatus() == QProcess::NormalExit && browser.exitCode() == 0, browser.readAllStandardError().constData());
        const QString dom = m_scratch.filePath(name + QStringLiteral(".dom.html"));
        QFile dumped(dom);
        QVERIFY(dumped.open(QIODevice::WriteOnly) && dumped.write(browser.readAllStandardOutput()) > 0);
        dumped.close();
        python.start(QStringLiteral("python3"), {QStringLiteral("-c"), QString::fromLatin1(PageReader), dom});
        QVERIFY(python.waitForFinished(scaledMs(30000)));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject shown = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        const QJsonObject root = shown.value(QLatin1String("root")).toObject();
        QVERIFY2(!root.contains(QLatin1String("data-error")), qPrintable(root.value(QLatin1String("data-error")).toString()));
        QVERIFY2(!root.contains(QLatin1String("data-blocked")), qPrintable(root.value(QLatin1String("data-blocked")).toString()));
        QCOMPARE(root.value(QLatin1String("data-steps")).toString(), QString::number(steps.size()));
        QCOMPARE(root.value(QLatin1String("data-current")).toString(), QString::number(asked));
        QCOMPARE(shown.value(QLatin1String("current")).toArray(), QJsonArray({QStringLiteral("step-%1").arg(asked)}));

        // Drawn, and in the reader's look: Blink's preferredColorScheme 0 is dark.
        for (const bool dark : {false, true}) {
            const QString screenshot = m_scratch.filePath(name + (dark ? QStringLiteral("-page-dark.png") : QStringLiteral("-page.png")));
            QStringList arguments{QStringLiteral("--screenshot=") + screenshot};
            if (dark)
                arguments << QStringLiteral("--blink-settings=preferredColorScheme=0");
            browse(&browser, browserProgram, arguments << QUrl::fromLocalFile(page).toString(QUrl::FullyEncoded));
            QVERIFY(browser.waitForFinished(scaledMs(60000)));
            QVERIFY2(browser.exitStatus() == QProcess::NormalExit && browser.exitCode() == 0, browser.readAllStandardError().constData());
            const QImage image(screenshot);
            QVERIFY2(!image.isNull(), qPrintable(screenshot));
            QCOMPARE(image.size(), QSize(1280, 900));
            QVERIFY2(coloursIn(image) > 12, qPrintable(screenshot));
            const double lightness = lightnessOf(image);
            QVERIFY2(dark ? lightness < 0.25 : lightness > 0.75, qPrintable(QStringLiteral("%1: lightness %2").arg(screenshot).arg(lightness)));
            if (!m_galleryDir.isEmpty() && name == GalleryPage)
                QVERIFY(copyOver(screenshot, QDir(m_galleryDir).filePath(QFileInfo(screenshot).fileName())));
        }
        if (!m_galleryDir.isEmpty()) {
            QVERIFY(copyOver(output.filePath(QStringLiteral("%1-step-%2.png").arg(name).arg(steps.size())),
                             QDir(m_galleryDir).filePath(name + QStringLiteral(".png"))));
        }
    }

    // Refused before anything starts: a page that exists, a directory that does not.
    void refusals()
    {
        const QString page = m_scratch.filePath(QStringLiteral("exists.html"));
        QFile existing(page);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.close();
        QProcess console;
        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), QStringLiteral("lock-partition"),
                       QStringLiteral("--autoplay"), QStringLiteral("--export-story"), page});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        QCOMPARE(console.exitCode(), 128);
        QByteArray errors = console.readAllStandardError().trimmed();
        QVERIFY2(!errors.contains('\n') && errors.contains("exists.html exists already") && errors.contains("--force"),
                 errors.constData());
        QCOMPARE(QFileInfo(page).size(), 0);

        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), QStringLiteral("lock-partition"),
                       QStringLiteral("--autoplay"), QStringLiteral("--export-story"),
                       m_scratch.filePath(QStringLiteral("nowhere/story.html"))});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        QCOMPARE(console.exitCode(), 128);
        errors = console.readAllStandardError().trimmed();
        QVERIFY2(!errors.contains('\n') && errors.contains("no such directory"), errors.constData());

        // Without --force, an export does not remove an earlier one's pictures either.
        QVERIFY(QFile::remove(page));
        const QString stale = m_scratch.filePath(QStringLiteral("exists-step-10.png"));
        QFile earlier(stale);
        QVERIFY(earlier.open(QIODevice::WriteOnly));
        earlier.close();
        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), QStringLiteral("lock-partition"),
                       QStringLiteral("--autoplay"), QStringLiteral("--export-story"), page});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        QCOMPARE(console.exitCode(), 128);
        errors = console.readAllStandardError().trimmed();
        QVERIFY2(!errors.contains('\n') && errors.contains("exists-step-10.png") && errors.contains("--force to remove it"),
                 errors.constData());
        QVERIFY(QFile::exists(stale));

        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--export-story"), page});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        QCOMPARE(console.exitCode(), 128);
        QVERIFY(console.readAllStandardError().contains("go with --scenario"));

        run(&console, {QStringLiteral("--sandbox"), QStringLiteral("--scenario"), QStringLiteral("lock-partition"),
                       QStringLiteral("--force")});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        QCOMPARE(console.exitCode(), 128);
        QVERIFY(console.readAllStandardError().contains("--force goes with --export-story"));

        run(&console, {QStringLiteral("--help")});
        QVERIFY(console.waitForFinished(scaledMs(30000)));
        const QByteArray help = console.readAllStandardOutput();
        QVERIFY2(help.contains("--export-story <FILE>") && help.contains("--force"), help.constData());
        QVERIFY2(help.simplified().contains("remove the NAME-step-N.png beyond the story's steps"), help.constData());
    }

private:
    void run(QProcess *console, const QStringList &arguments)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_scratch.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_scratch.filePath(QStringLiteral("data")));
        // Qt's warning without one would be a second line on stderr.
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_scratch.path());
        console->setProcessEnvironment(environment);
        console->start(QStringLiteral(QETCD_CONSOLE_PATH), arguments);
    }

    // The headless browser, with a profile of its own, resolving no name: the page needs no network.
    void browse(QProcess *browser, const QString &program, const QStringList &arguments)
    {
        // A container's /dev/shm is often 64 MB, too small for Chromium's shared memory: /tmp.
        browser->start(program, QStringList{QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                                            QStringLiteral("--disable-dev-shm-usage"),
                                            QStringLiteral("--user-data-dir=") + m_scratch.filePath(QStringLiteral("browser")),
                                            QStringLiteral("--host-resolver-rules=MAP * ~NOTFOUND"), QStringLiteral("--hide-scrollbars"),
                                            QStringLiteral("--window-size=1280,900")}
                                    + arguments);
    }

    QTemporaryDir m_scratch;
    QString m_outputDir;
    QString m_galleryDir;  // QETCD_SCREENSHOT_DIR/stories, when it is set
};

QTEST_GUILESS_MAIN(tst_ConsoleStoryExport)
#include "tst_consolestoryexport.moc"
