// SPDX-License-Identifier: Apache-2.0
#include "qmltestsetup.h"

#include <QtCore/QTemporaryDir>
#include <QtQuick/QQuickWindow>
#include <QtTest/QTest>
#include <QtQuickTest/quicktest.h>
#include <QtWidgets/QApplication>

#ifdef QETCD_CONSOLE_VIEWS
#include <QtQml/QQmlExtensionPlugin>
Q_IMPORT_QML_PLUGIN(QEtcdConsolePlugin)
#endif

#include <cstdio>

// Quick Test's own main makes a QGuiApplication, under which ChartView crashes; the console's
// views need QApplication, and so do their tests. Offscreen there is no GL: draw in software.
int main(int argc, char **argv)
{
    // The console's profiles go to QSettings, its revision samples to the data folder: into
    // directories of this run's own.
    QTemporaryDir settings;
    qputenv("XDG_CONFIG_HOME", settings.path().toLocal8Bit());
    qputenv("XDG_DATA_HOME", (settings.path() + QStringLiteral("/data")).toLocal8Bit());
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("qetcd-tests"));
    QmlTestSetup setup;
    if (!setup.start()) {
        std::fprintf(stderr, "tst_qml: %s\n", qPrintable(setup.errorString()));
        return 1;
    }
    QTEST_SET_MAIN_SOURCE_PATH
    return quick_test_main_with_setup(argc, argv, "qetcd_qml", QUICK_TEST_SOURCE_DIR, &setup);
}
