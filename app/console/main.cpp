// SPDX-License-Identifier: Apache-2.0
#include "consolewindow.h"

#include <story.h>

#include <exitcodes.h>
#include <globaloptions.h>
#include <shutdownsignals.h>

#include <QEtcd/coordinationlayouts.h>
#include <QEtcd/qetcdversion.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QFileInfo>
#include <QtCore/QLoggingCategory>
#include <QtCore/QProcessEnvironment>
#include <QtGui/QIcon>
#include <QtQml/QQmlExtensionPlugin>
#include <QtQuick/QQuickWindow>
#include <QtWidgets/QApplication>

#include <cstdio>

Q_IMPORT_QML_PLUGIN(QEtcdConsolePlugin)

namespace {
int usageError(const QString &message)
{
    std::fprintf(stderr, "qetcd-console: %s\n", qPrintable(message));
    // The CLI's code for a wrong command line: 2 means the cluster did not answer.
    return QEtcd::Cli::BadArguments;
}


// --help and --version answer without a display, so they are parsed under a QCoreApplication.
bool onlyPrints(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        if (qstrcmp(argv[i], "--help") == 0 || qstrcmp(argv[i], "-h") == 0 || qstrcmp(argv[i], "--version") == 0)
            return true;
    }
    return false;
}

struct ConsoleOptions
{
    QCommandLineOption profile{QStringLiteral("profile"),
                               QStringLiteral("Connect with this saved profile instead of the connection flags"),
                               QStringLiteral("NAME")};
    QCommandLineOption version{QStringLiteral("version"), QStringLiteral("Print the version and exit")};
    QCommandLineOption writable{QStringLiteral("writable"),
                                QStringLiteral("Allow writes to endpoints that are not on this machine (without it, such "
                                               "a connection opens read-only; the header's switch asks instead)")};
    QCommandLineOption page{QStringLiteral("page"),
                            QStringLiteral("Open this page: cluster, keys, leases, coordination, timeline, "
                                           "participants [default cluster]"),
                            QStringLiteral("NAME"), QStringLiteral("cluster")};
    // Not --key: that is the TLS client key, as in etcdctl.
    QCommandLineOption select{QStringLiteral("select"),
                           QStringLiteral("Open the Keys page with this key selected, its value shown"),
                           QStringLiteral("KEY")};
    QCommandLineOption history{QStringLiteral("history"),
                               QStringLiteral("Open the Timeline's History source and replay the history etcd keeps "
                                              "under PREFIX (\"\" for every key)"),
                               QStringLiteral("PREFIX")};
    QCommandLineOption rev{QStringLiteral("rev"),
                           QStringLiteral("Show the Coordination page as of revision N, as a click on the History "
                                          "chart does"),
                           QStringLiteral("N")};
    QCommandLineOption sandbox{QStringLiteral("sandbox"),
                               QStringLiteral("Start a local 3-member etcd cluster with throw-away data (a sandbox to "
                                              "stop, kill, pause and partition) and look at it; the etcd binary is "
                                              "QETCD_ETCD_BINARY, else etcd on PATH")};
    QCommandLineOption sandboxSeed{QStringLiteral("sandbox-seed"),
                                   QStringLiteral("With --sandbox: each time the sandbox runs, start PROGRAM with its "
                                                  "client URLs (comma-separated) as the argument, to put participants "
                                                  "or data on it; SIGTERM when the sandbox stops"),
                                   QStringLiteral("PROGRAM")};
    QCommandLineOption look{QStringLiteral("look"),
                            QStringLiteral("light or dark [default: the system's, by its palette]; the header's "
                                           "Dark button turns it over"),
                            QStringLiteral("NAME")};
    QCommandLineOption scenario{QStringLiteral("scenario"),
                                QStringLiteral("With --sandbox: run this guided scenario on the Timeline page: a "
                                               "built-in one (lock-partition, spurious-barrier, registration-heal, "
                                               "leader-death, operator-unsticks-a-deploy, consumer-partition) or a "
                                               "story file of your own (a path; its format is docs/scenarios.md)"),
                                QStringLiteral("NAME|FILE")};
    QCommandLineOption autoplay{QStringLiteral("autoplay"),
                                QStringLiteral("With --scenario: play every step without waiting for Next, and exit "
                                               "when the scenario ends: 0 when every step happened, 1 naming the step "
                                               "that did not")};
    QCommandLineOption exportEvents{QStringLiteral("export-events"),
                                    QStringLiteral("With --scenario: when it ends, write its event log to FILE as JSON "
                                                   "lines (mono_ms, participant, kind, detail, spurious, key)"),
                                    QStringLiteral("FILE")};
    QCommandLineOption exportStory{QStringLiteral("export-story"),
                                   QStringLiteral("With --scenario: when it ends, write the run to FILE as one HTML page "
                                                  "that opens without a network (the timeline, the narration step by "
                                                  "step, the event log; light or dark as the reader's system "
                                                  "is) and a PNG per step beside it, NAME-step-N.png, in the "
                                                  "console's look (--look); existing files are refused without --force"),
                                   QStringLiteral("FILE")};
    QCommandLineOption force{QStringLiteral("force"),
                             QStringLiteral("With --export-story: overwrite the page and pictures it writes, and "
                                            "remove the NAME-step-N.png beyond the story's steps that an earlier "
                                            "export to that name left")};
    QCommandLineOption layouts{QStringLiteral("layouts"),
                               QStringLiteral("Coordination layouts to recognise before the built-in ones, as "
                                              "qetcd inspect --layouts [default: ~/.config/qetcd/layouts.json]"),
                               QStringLiteral("FILE")};
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                  QStringLiteral("Wait until the page has loaded, save the window as a PNG to FILE, "
                                                 "print what the page shows as one JSON line (counts, leader, ...) "
                                                 "and exit; non-zero with the reason if it could not"),
                                  QStringLiteral("FILE")};

    void addTo(QCommandLineParser *parser) const
    {
        parser->setApplicationDescription(QStringLiteral(
            "Operator console for etcd: members, keys, leases, and who holds which lock,\n"
            "leads which election or waits at which barrier, live. The connection flags and\n"
            "ETCDCTL_* variables are etcdctl's."));
        for (QCommandLineOption option : QEtcd::Cli::globalOptions()) {
            const QString name = option.names().constFirst();
            // The CLI's output formats, and its unverified TLS, which the console refuses.
            if (name == QLatin1String("json") || name == QLatin1String("hex")
                || name == QLatin1String("insecure-skip-tls-verify"))
                option.setFlags(QCommandLineOption::HiddenFromHelp);
            parser->addOption(option);
        }
        parser->addOptions(
            {version, profile, writable, look, sandbox, sandboxSeed, scenario, autoplay, exportEvents, exportStory, force, page, select, history, rev, screenshot, layouts});
    }
};
} // namespace

int main(int argc, char *argv[])
{
    const ConsoleOptions consoleOptions;
    QCommandLineParser parser;
    consoleOptions.addTo(&parser);
    if (onlyPrints(argc, argv)) {
        QCoreApplication app(argc, argv);
        if (!parser.parse(QCoreApplication::arguments()))
            return usageError(parser.errorText());
        if (parser.isSet(consoleOptions.version))
            std::printf("qetcd-console %s\n", QETCD_VERSION_STR);
        else
            std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }

    // A sandbox that does not start is said in the window, and on the command line as the one
    // line that ends the run; the sandbox's own warnings would repeat it. A failover or a watch
    // resuming is the header's pill's and the banner's to say, not a line on the terminal each
    // time (closing the window with a sandbox printed a dozen). QT_LOGGING_RULES still turns
    // them on.
    QLoggingCategory::setFilterRules(QStringLiteral("qetcd.testing.info=false\nqetcd.testing.warning=false\n"
                                                    "qetcd.console.sandbox.warning=false\nqetcd.transport.info=false\n"
                                                    "qetcd.watch.info=false"));

    // Without a display (CI, ssh) Qt Quick has no GL context: render in software instead.
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen")
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("qetcd-console"));
    QApplication::setApplicationVersion(QStringLiteral(QETCD_VERSION_STR));
    QApplication::setOrganizationName(QStringLiteral("qetcd"));
    // Wayland shells find the window's icon and name through its desktop entry; X11 window
    // managers take the icon from the window itself (an SVG: Qt's SVG plugins draw it).
    QApplication::setDesktopFileName(QStringLiteral("io.qetcd.Console"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/io.qetcd.Console.svg")));
    if (!parser.parse(QApplication::arguments()))
        return usageError(parser.errorText());
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().constFirst()));

    QString error;
    // --user without a password: the window asks, with its password dialog, once it is up.
    const auto askInTheWindow = [](const QString &, QString *) { return std::optional<QString>(QString()); };
    const auto options = QEtcd::Cli::resolveGlobalOptions(parser, QProcessEnvironment::systemEnvironment(), &error,
                                                          askInTheWindow);
    if (!options)
        return usageError(error);
    // The window would show a connection as trusted that is not: the CLI's alone, with its warning.
    if (options->client.tls.skipServerVerification) {
        return usageError(QStringLiteral("--insecure-skip-tls-verify (or ETCDCTL_INSECURE_SKIP_TLS_VERIFY) is the "
                                         "qetcd CLI's only: the console always verifies the server's certificate; "
                                         "give the CA that signed it with --cacert"));
    }

    ConsoleWindow::Settings settings;
    settings.client = options->client;
    settings.writable = parser.isSet(consoleOptions.writable);
    if (settings.writable && settings.client.readOnly)
        return usageError(QStringLiteral("--read-only and --writable contradict each other"));
    settings.profile = parser.value(consoleOptions.profile);
    settings.sandbox = parser.isSet(consoleOptions.sandbox);
    settings.scenario = parser.value(consoleOptions.scenario);
    settings.look = parser.value(consoleOptions.look);
    if (!settings.look.isEmpty() && settings.look != QLatin1String("light") && settings.look != QLatin1String("dark"))
        return usageError(QStringLiteral("--look is light or dark, not \"%1\"").arg(settings.look));
    settings.sandboxSeed = parser.value(consoleOptions.sandboxSeed);
    if (!settings.sandboxSeed.isEmpty() && !settings.sandbox)
        return usageError(QStringLiteral("--sandbox-seed runs a program on the sandbox: add --sandbox"));
    if (!settings.sandboxSeed.isEmpty() && settings.client.readOnly)
        return usageError(QStringLiteral("--sandbox-seed lets a program write to the sandbox, which --read-only forbids"));
    // A path is the program's, relative to here; a bare name is looked up on PATH.
    if (settings.sandboxSeed.contains(QLatin1Char('/')))
        settings.sandboxSeed = QFileInfo(settings.sandboxSeed).absoluteFilePath();
    settings.autoplay = parser.isSet(consoleOptions.autoplay);
    settings.exportEventsFile = parser.value(consoleOptions.exportEvents);
    if (!settings.scenario.isEmpty() && !settings.sandbox)
        return usageError(QStringLiteral("--scenario runs on a sandbox: add --sandbox"));
    if (!settings.scenario.isEmpty() && settings.client.readOnly)
        return usageError(QStringLiteral("--scenario writes to its sandbox, which --read-only forbids"));
    settings.exportStoryFile = parser.value(consoleOptions.exportStory);
    if (settings.scenario.isEmpty() && (settings.autoplay || !settings.exportEventsFile.isEmpty() || !settings.exportStoryFile.isEmpty()))
        return usageError(QStringLiteral("--autoplay, --export-events and --export-story go with --scenario"));
    if (parser.isSet(consoleOptions.force) && settings.exportStoryFile.isEmpty())
        return usageError(QStringLiteral("--force goes with --export-story"));
    // A story file is read whole before anything starts: a mistake in it is the one line that
    // ends the run, with its line and field, rather than a sandbox started for nothing.
    if (!settings.scenario.isEmpty() && !Story::builtInNames().contains(settings.scenario)) {
        const QFileInfo story(settings.scenario);
        if (!story.exists()) {
            return usageError(QStringLiteral("--scenario: no scenario named \"%1\"; there are %2, or give a story file's path")
                                  .arg(settings.scenario, Story::builtInNames().join(QLatin1String(", "))));
        }
        settings.scenario = story.absoluteFilePath();
        if (!Story::read(settings.scenario, &error))
            return usageError(error);
    }
    if (!settings.exportEventsFile.isEmpty())
        settings.exportEventsFile = QFileInfo(settings.exportEventsFile).absoluteFilePath();
    // A run of a minute must not end in a page that cannot be written, nor write over one unasked.
    if (!settings.exportStoryFile.isEmpty()) {
        const QFileInfo page(settings.exportStoryFile);
        settings.exportStoryFile = page.absoluteFilePath();
        const QFileInfo directory(page.absolutePath());
        if (!directory.isDir() || !directory.isWritable())
            return usageError(QStringLiteral("--export-story: cannot write in %1: %2")
                                  .arg(directory.filePath(), directory.isDir() ? QStringLiteral("not writable")
                                                                               : QStringLiteral("no such directory")));
        const std::optional<Story> story = Story::read(Story::fileOf(settings.scenario), &error);
        if (!story)
            return usageError(error);
        const auto namesOf = [](const QStringList &files) {
            QStringList names;
            for (const QString &file : files)
                names << QFileInfo(file).fileName();
            return names;
        };
        const QStringList existing = namesOf(story->existingExportFiles(settings.exportStoryFile));
        const QStringList stale = namesOf(story->staleExportFiles(settings.exportStoryFile));
        const auto someOf = [](const QStringList &names) {
            return names.size() > 3 ? names.mid(0, 3).join(QLatin1String(", ")) + QStringLiteral(" and %1 more").arg(names.size() - 3)
                                    : names.join(QLatin1String(", "));
        };
        if (!existing.isEmpty() && !parser.isSet(consoleOptions.force)) {
            return usageError(QStringLiteral("--export-story: %1 exist%2 already in %3; add --force to overwrite%4")
                                  .arg(someOf(existing), existing.size() == 1 ? QStringLiteral("s") : QString(), page.absolutePath(),
                                       stale.isEmpty() ? QString() : QStringLiteral(" (and remove %1, beyond the story's steps)").arg(someOf(stale))));
        }
        if (!stale.isEmpty() && !parser.isSet(consoleOptions.force)) {
            return usageError(QStringLiteral("--export-story: %1 in %2 %3 an earlier export's pictures beyond the story's %4 "
                                             "steps; add --force to remove %5")
                                  .arg(someOf(stale), page.absolutePath(), stale.size() == 1 ? QStringLiteral("is") : QStringLiteral("are"))
                                  .arg(story->steps.size())
                                  .arg(stale.size() == 1 ? QStringLiteral("it") : QStringLiteral("them")));
        }
    }
    if (const QEtcd::Status declared = QEtcd::CoordinationLayouts::declare(parser.value(consoleOptions.layouts)); !declared)
        return usageError(declared.message());
    settings.key = parser.value(consoleOptions.select);
    settings.history = parser.isSet(consoleOptions.history);
    settings.historyPrefix = parser.value(consoleOptions.history);
    if (parser.isSet(consoleOptions.rev)) {
        bool ok = false;
        settings.asOfRevision = parser.value(consoleOptions.rev).toLongLong(&ok);
        if (!ok || settings.asOfRevision < 1)
            return usageError(QStringLiteral("--rev takes a revision (a whole number from 1), not \"%1\"")
                                  .arg(parser.value(consoleOptions.rev)));
    }
    // A key is shown on the Keys page, a history or a scenario on the Timeline, a revision on the
    // Coordination page, unless another page was asked for.
    settings.page = parser.isSet(consoleOptions.page) ? parser.value(consoleOptions.page)
                  : !settings.key.isEmpty()           ? QStringLiteral("keys")
                  : settings.history                  ? QStringLiteral("timeline")
                  : !settings.scenario.isEmpty()      ? QStringLiteral("timeline")
                  : settings.asOfRevision > 0         ? QStringLiteral("coordination")
                                                      : parser.value(consoleOptions.page);
    settings.screenshotFile = parser.value(consoleOptions.screenshot);
    if (!settings.screenshotFile.isEmpty())
        settings.screenshotFile = QFileInfo(settings.screenshotFile).absoluteFilePath();

    // SIGTERM (a session ending, systemd, kill) and SIGINT (Ctrl-C in the terminal) close the
    // window like its close button: the sandbox stops its members and removes their data
    // directories on the way out. A second signal ends the process at once.
    QEtcd::Cli::ShutdownSignals shutdown;
    QObject::connect(&shutdown, &QEtcd::Cli::ShutdownSignals::shutdownRequested, &app, [] { QCoreApplication::exit(0); });
    ConsoleWindow window(settings);
    QObject::connect(&window, &ConsoleWindow::finished, &app, &QCoreApplication::exit);
    if (!window.load(&error))
        return usageError(error);
    return app.exec();
}
