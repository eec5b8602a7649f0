// SPDX-License-Identifier: Apache-2.0
#pragma once

// The programs a CLI test runs: the qetcd CLI, and etcdctl beside it. The including test target
// defines QETCD_CLI_PATH (the built binary) with target_compile_definitions.

#include <QEtcd/testtimeouts.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QtDebug>

#include <csignal>
#include <utility>

namespace QEtcd::Testing {

// What a program prints on stdout: qetcd JSON lines only, so a line that is not one counts as
// the event "<not JSON>" and comparing names() catches it; etcdctl, or qetcd together with the
// command that `qetcd lock` runs, plain lines as well.
enum class Printed { JsonLines, JsonAndPlainLines };

// The environment a tested program runs in: the caller's ETCDCTL_*, ETCD_* and QETCD_* settings
// (a developer's own, or those `etcdctl lock` and `qetcd lock` give the command they run) taken
// out, so that only the test's variables, set after, configure it.
inline QProcessEnvironment toolEnvironment(const QList<std::pair<QString, QString>> &variables)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const QStringList names = environment.keys();
    for (const QString &name : names) {
        if (name.startsWith(QLatin1String("ETCDCTL_")) || name.startsWith(QLatin1String("ETCD_"))
            || name.startsWith(QLatin1String("QETCD_")))
            environment.remove(name);
    }
    for (const auto &[name, value] : variables)
        environment.insert(name, value);
    return environment;
}

// A running program whose stdout is read line by line as it comes in. Reading happens inside
// the QTRY_* conditions, whose event loop also feeds QProcess; it only accumulates, so
// evaluating a condition once more changes nothing.
class ToolProcess
{
public:
    ToolProcess(const QString &program, const QStringList &arguments,
                const QList<std::pair<QString, QString>> &variables = {}, Printed printed = Printed::JsonLines)
        : m_printed(printed)
    {
        m_process.setProcessEnvironment(toolEnvironment(variables));
        m_process.start(program, arguments);
    }
    ~ToolProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    Q_DISABLE_COPY_MOVE(ToolProcess)

    bool waitForStarted() { return m_process.waitForStarted(scaledMs(10000)); }
    qint64 pid() const { return m_process.processId(); }
    void signal(int signo) { ::kill(pid_t(m_process.processId()), signo); }
    void terminate() { m_process.terminate(); }  // SIGTERM
    // Writes input to its stdin, which then ends.
    void feed(const QByteArray &input)
    {
        m_process.write(input);
        m_process.closeWriteChannel();
    }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    // Waits for the exit; the exit code, or -1 when it crashed or did not exit in time.
    int waitForExit(int timeoutMs = scaledMs(30000))
    {
        // waitForFinished() is false for a process whose exit an event loop (a QTRY_* condition,
        // another wait) has already seen.
        if (m_process.state() != QProcess::NotRunning && !m_process.waitForFinished(timeoutMs))
            return -1;
        if (m_process.error() == QProcess::FailedToStart)
            return -1;
        standardOutput();
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }

    QList<QJsonObject> events()
    {
        poll();
        return m_events;
    }
    QStringList names()
    {
        QStringList list;
        for (const QJsonObject &event : events())
            list.append(event.value(QLatin1String("event")).toString());
        return list;
    }
    // names() without the connectionState and leaseEvent reports, whose timing is etcd's.
    QStringList outcomes()
    {
        QStringList list = names();
        list.removeIf([](const QString &name) {
            return name == QLatin1String("connectionState") || name == QLatin1String("leaseEvent");
        });
        return list;
    }
    // The nth event called name (0: the first), or an empty object.
    QJsonObject event(const QString &name, int nth = 0)
    {
        for (const QJsonObject &each : events()) {
            if (each.value(QLatin1String("event")).toString() == name && nth-- == 0)
                return each;
        }
        return {};
    }
    int count(const QString &name) { return int(names().count(name)); }
    bool has(const QString &name, int nth = 0) { return !event(name, nth).isEmpty(); }
    QByteArray standardError() { return m_err += m_process.readAllStandardError(); }
    // Everything on stdout so far, unparsed (help texts).
    QByteArray standardOutput()
    {
        m_out += m_process.readAllStandardOutput();
        return m_out;
    }
    QList<QByteArray> rawLines()
    {
        poll();
        return m_lines;
    }
    // With Printed::JsonAndPlainLines, the lines that are not JSON.
    QList<QByteArray> plainLines()
    {
        poll();
        return m_plainLines;
    }
    // For failure messages.
    QByteArray transcript() { return rawLines().join('\n') + "\n--- stderr:\n" + standardError(); }

private:
    void poll()
    {
        standardOutput();
        qsizetype newline;
        while ((newline = m_out.indexOf('\n', m_parsed)) >= 0) {
            const QByteArray line = m_out.mid(m_parsed, newline - m_parsed);
            m_parsed = newline + 1;
            m_lines.append(line);
            if (m_printed == Printed::JsonAndPlainLines && !line.startsWith('{')) {
                m_plainLines.append(line);
                continue;
            }
            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !document.isObject()) {
                qWarning() << "not a JSON object line:" << line;
                m_events.append(QJsonObject{{QLatin1String("event"), QLatin1String("<not JSON>")}});
                continue;
            }
            m_events.append(document.object());
        }
    }

    const Printed m_printed;
    QProcess m_process;
    QByteArray m_out;
    qsizetype m_parsed = 0;
    QByteArray m_err;
    QList<QByteArray> m_lines;
    QList<QByteArray> m_plainLines;
    QList<QJsonObject> m_events;
};

// Fields of an event: a number (-1 when absent) and a string.
inline qint64 integer(const QJsonObject &event, const char *field)
{
    return event.value(QLatin1String(field)).toInteger(-1);
}

inline QString text(const QJsonObject &event, const char *field)
{
    return event.value(QLatin1String(field)).toString();
}

// The qetcd CLI on endpoint.
class Qetcd : public ToolProcess
{
public:
    Qetcd(const QString &endpoint, const QStringList &arguments,
          const QList<std::pair<QString, QString>> &variables = {}, Printed printed = Printed::JsonLines)
        : ToolProcess(QStringLiteral(QETCD_CLI_PATH), QStringList{QStringLiteral("--endpoints"), endpoint} + arguments,
                      variables, printed)
    {
    }
};

} // namespace QEtcd::Testing
