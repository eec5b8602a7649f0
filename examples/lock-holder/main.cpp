// SPDX-License-Identifier: Apache-2.0
// Shows who holds the lock /examples/locks/report, live, and takes it on request: a Qt Quick
// window over `import QEtcd`. Qt finds the QML module in its own QML directory, or in
// QML_IMPORT_PATH when qetcd is installed elsewhere.
//
//   lock-holder [endpoint] [--quit-when-shown]

#include <QtCore/QCommandLineParser>
#include <QtGui/QGuiApplication>
#include <QtQml/QQmlApplicationEngine>

int main(int argc, char *argv[])
{
    QGuiApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("endpoint"), QStringLiteral("etcd's client URL"));
    parser.addOption({QStringLiteral("quit-when-shown"), QStringLiteral("Quit once the holder is shown.")});
    parser.process(app);

    QQmlApplicationEngine engine;
    engine.setInitialProperties({
        {QStringLiteral("endpoint"), parser.positionalArguments().value(0, QStringLiteral("http://127.0.0.1:2379"))},
        {QStringLiteral("quitWhenShown"), parser.isSet(QStringLiteral("quit-when-shown"))},
    });
    engine.load(QUrl(QStringLiteral("qrc:/LockHolder/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;
    return app.exec();
}
