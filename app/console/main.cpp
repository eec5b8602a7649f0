#include <QEtcd/client.h>

#include <QtCore/QCommandLineParser>
#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlContext>
#include <QtWidgets/QApplication>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("qetcd-console"));
    QApplication::setApplicationVersion(QStringLiteral(QETCD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Operator console for etcd coordination state."));
    parser.addHelpOption();
    const QCommandLineOption endpoints(QStringLiteral("endpoints"),
                                       QStringLiteral("Comma-separated etcd client URLs."), QStringLiteral("urls"),
                                       QStringLiteral("http://127.0.0.1:2379"));
    parser.addOption(endpoints);
    parser.process(app);

    QQmlApplicationEngine engine;
    engine.rootContext()->setContextProperty(QStringLiteral("consoleEndpoints"), parser.value(endpoints));
    engine.load(QUrl(QStringLiteral("qrc:/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;
    return app.exec();
}
