// SPDX-License-Identifier: Apache-2.0
#include "storyexport.h"

#include <sandbox.h>  // scenario.h's inline sandbox() converts its QPointer<Sandbox>
#include <timelinesvg.h>

#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QSaveFile>

namespace {
// The page's timeline is as wide as a laptop's reading column; the pictures, drawn from the same
// SVG at PictureScale, as wide as a 1920-pixel slide.
constexpr int TimelineWidth = 1200;
constexpr qreal PictureScale = 1.6;
constexpr int AutoplayStepMs = 3500;

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

// The page's colours in the console's light and dark looks (Theme.qml: window, surface, border,
// text, mutedText, neutral, accent, infoSoft, bad, grid), as its reader's system prefers.
struct PageColour
{
    const char *name;
    const char *light;
    const char *dark;
};
constexpr PageColour PageColours[] = {
    {"page", "#f4f5f7", "#0f141b"},    {"surface", "#ffffff", "#19202a"}, {"border", "#dde1e6", "#2e3846"},
    {"text", "#1d2430", "#e6eaf0"},    {"muted", "#5b6573", "#9aa5b4"},   {"control", "#475569", "#94a3b8"},
    {"accent", "#2563eb", "#6b9cff"},  {"current", "#dbeafe", "#172a46"}, {"bad", "#b91c1c", "#f87171"},
    {"rule", "#e4e7ec", "#2e3846"}};

QString colourVariables()
{
    QString light, dark;
    for (const PageColour &colour : PageColours) {
        light += QStringLiteral(" --%1: %2;").arg(QLatin1String(colour.name), QLatin1String(colour.light));
        dark += QStringLiteral(" --%1: %2;").arg(QLatin1String(colour.name), QLatin1String(colour.dark));
    }
    return QStringLiteral(":root { color-scheme: light dark;%1 }\n@media (prefers-color-scheme: dark) { :root {%2 } }\n")
        .arg(light, dark);
}

const char *const Style = R"(
body { font-family: "DejaVu Sans", Verdana, sans-serif; color: var(--text); background: var(--page); margin: 0; }
main { max-width: 1240px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 1.5em; margin: 0.4em 0 0.2em; }
h2 { font-size: 1.1em; margin: 1.4em 0 0.5em; }
.summary { max-width: 60em; line-height: 1.4; }
section { background: var(--surface); border: 1px solid var(--border); border-radius: 6px; padding: 12px 16px; margin-top: 12px; }
#timeline svg { width: 100%; height: auto; display: block; }
.controls { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; }
.controls button { font: inherit; color: var(--text); padding: 4px 12px; border: 1px solid var(--control); border-radius: 4px; background: var(--surface); cursor: pointer; }
.controls button:focus { outline: 2px solid var(--accent); }
#position { color: var(--muted); margin-left: 8px; }
ol.steps { margin: 0; padding-left: 2.2em; }
li.step { padding: 6px 8px; border-radius: 4px; cursor: pointer; line-height: 1.4; color: var(--muted); }
li.step.current { background: var(--current); color: var(--text); }
li.step .proof { display: block; font-size: 0.85em; color: var(--muted); }
.conclusion { font-weight: bold; line-height: 1.4; }
.conclusion.failed { color: var(--bad); }
table { border-collapse: collapse; width: 100%; font-size: 0.85em; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--rule); vertical-align: top; }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
)";

// In the head, so that it hears everything: a script error, or anything the page's policy kept
// it from fetching (it needs nothing from outside), is marked on the root element, where a test
// or a reader's inspector sees it; so are the steps once they are built, and the one shown.
// Steps go by the arrow keys (or a click), play by the button or the space bar; each shows its
// moment on the timeline. An address ending in #step-N opens step N, numbered as the pictures.
const char *const Script = R"(
(function () {
  var root = document.documentElement;
  window.addEventListener('error', function (event) { root.dataset.error = event.message; });
  document.addEventListener('securitypolicyviolation', function (event) { root.dataset.blocked = event.blockedURI; });
  document.addEventListener('DOMContentLoaded', function () {
    var steps = Array.prototype.slice.call(document.querySelectorAll('li.step'));
    var position = document.getElementById('position');
    var playButton = document.getElementById('play');
    var current = 0, timer = null;
    function show(index) {
      current = Math.max(0, Math.min(steps.length - 1, index));
      steps.forEach(function (step, i) {
        step.classList.toggle('current', i === current);
        var moment = document.getElementById('moment-' + i);
        if (moment) moment.setAttribute('visibility', i === current ? 'visible' : 'hidden');
      });
      position.textContent = 'Step ' + (current + 1) + ' of ' + steps.length;
      root.dataset.current = current + 1;
    }
    function addressed() {
      var step = /^#step-(\d+)$/.exec(location.hash);
      return step ? Number(step[1]) - 1 : 0;
    }
    function stop() { clearInterval(timer); timer = null; playButton.textContent = '\u25B6 Play'; }
    function play() {
      if (timer) return stop();
      if (current === steps.length - 1) show(0);
      playButton.textContent = '\u275A\u275A Pause';
      timer = setInterval(function () { if (current + 1 >= steps.length) stop(); else show(current + 1); }, STEP_MS);
    }
    document.getElementById('previous').addEventListener('click', function () { stop(); show(current - 1); });
    document.getElementById('next').addEventListener('click', function () { stop(); show(current + 1); });
    playButton.addEventListener('click', play);
    steps.forEach(function (step, i) { step.addEventListener('click', function () { stop(); show(i); }); });
    window.addEventListener('hashchange', function () { stop(); show(addressed()); });
    document.addEventListener('keydown', function (event) {
      if (event.target.tagName === 'BUTTON' && event.key === ' ') return;
      if (event.key === 'ArrowRight' || event.key === 'ArrowDown') { stop(); show(current + 1); }
      else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') { stop(); show(current - 1); }
      else if (event.key === 'Home') { stop(); show(0); }
      else if (event.key === 'End') { stop(); show(steps.length - 1); }
      else if (event.key === ' ') play();
      else return;
      event.preventDefault();
    });
    show(addressed());
    root.dataset.steps = steps.length;
  });
})();
)";
} // namespace

StoryExport::StoryExport(QObject *parent) : QObject(parent) {}

void StoryExport::setScenario(Scenario *scenario)
{
    if (scenario == m_scenario)
        return;
    m_scenario = scenario;
    Q_EMIT scenarioChanged();
}

void StoryExport::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    Q_EMIT darkChanged();
}

void StoryExport::setTimeline(TimelineModel *timeline)
{
    if (timeline == m_timeline)
        return;
    m_timeline = timeline;
    Q_EMIT timelineChanged();
}

QStringList StoryExport::existingFilesFor(const QString &path) const
{
    return m_scenario ? m_scenario->story().existingExportFiles(path) : QStringList();
}

QStringList StoryExport::staleFilesFor(const QString &path) const
{
    return m_scenario ? m_scenario->story().staleExportFiles(path) : QStringList();
}

bool StoryExport::fail(const QString &why)
{
    m_error = why;
    m_written.clear();
    Q_EMIT writtenChanged();
    return false;
}

bool StoryExport::write(const QString &path)
{
    if (!m_scenario || !m_timeline)
        return fail(tr("nothing to export: no scenario or no timeline"));
    if (m_scenario->state() != Scenario::State::Finished && m_scenario->state() != Scenario::State::Failed)
        return fail(tr("nothing to export yet: a story is exported once it has run to its end, or to the step that failed"));
    m_timeline->refresh();
    const Story &story = m_scenario->story();
    const int steps = m_scenario->stepCount();
    const QStringList files = story.exportFiles(path);

    // Matched in order: the steps that happened are the first ones.
    TimelineSvg::Options options;
    options.width = TimelineWidth;
    for (int step = 0; step < steps; ++step) {
        const std::optional<qint64> moment = m_scenario->momentOf(step);
        if (!moment)
            break;
        options.moments.append({double(*moment - m_timeline->originMs()) / 1000.0, QString::number(step + 1)});
    }

    // Every file is written beside its place and renamed into it, the page last, once its
    // pictures are: an export that fails leaves no file half-written, and the earlier page whole.
    QSaveFile html(path);
    if (!html.open(QIODevice::WriteOnly))
        return fail(tr("could not write %1: %2").arg(path, html.errorString()));
    html.write(page(TimelineSvg::picture(*m_timeline, options)).toUtf8());

    // The page follows its reader's look; the pictures, for slides made now, the console's.
    options.dark = m_dark;
    for (int step = 0; step < steps; ++step) {
        options.shownMoment = step;
        options.caption = tr("Step %1 of %2. %3").arg(step + 1).arg(steps).arg(story.steps[step].narration);
        if (step >= options.moments.size())
            options.caption += QLatin1Char(' ') + tr("(It did not happen: the story failed before it.)");
        const QImage picture = TimelineSvg::image(TimelineSvg::picture(*m_timeline, options), PictureScale);
        QSaveFile file(files.at(step + 1));
        if (picture.isNull() || !file.open(QIODevice::WriteOnly) || !picture.save(&file, "PNG") || !file.commit())
            return fail(tr("could not write %1: %2").arg(file.fileName(), file.errorString()));
    }
    // An earlier export of a longer story to the same name would leave its last pictures as if
    // they were this story's.
    for (const QString &stale : story.staleExportFiles(path)) {
        QFile file(stale);
        if (!file.remove())
            return fail(tr("could not remove %1, an earlier export's: %2").arg(stale, file.errorString()));
    }
    if (!html.commit())
        return fail(tr("could not write %1: %2").arg(path, html.errorString()));
    m_error.clear();
    m_written = tr("%1 and %n step picture(s) in %2", "", steps).arg(QFileInfo(path).fileName(), QFileInfo(path).absolutePath());
    Q_EMIT writtenChanged();
    return true;
}

QString StoryExport::page(const QString &timelineSvg) const
{
    const Story &story = m_scenario->story();
    const QEtcd::EventLogModel *log = m_timeline->eventLog();
    const auto secondsOf = [this](qint64 ms) {
        return tr("%1 s").arg(QString::number(double(ms - m_timeline->originMs()) / 1000.0, 'f', 2));
    };

    // The policy holds the page to what it carries: its own style, script and pictures.
    QString html = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                                  "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
                                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html += QStringLiteral("<meta name=\"generator\" content=\"qetcd-console\">\n<title>%1</title>\n").arg(escaped(story.title));
    html += QStringLiteral("<style>\n%1%2%3</style>\n").arg(colourVariables(), QLatin1String(Style), TimelineSvg::styleSheet());
    html += QStringLiteral("<script>%1</script>\n</head>\n<body>\n<main>\n")
                .arg(QString::fromLatin1(Script).replace(QLatin1String("STEP_MS"), QString::number(AutoplayStepMs)));
    html += QStringLiteral("<h1>%1</h1>\n<p class=\"summary\">%2</p>\n").arg(escaped(story.title), escaped(story.summary));

    html += QStringLiteral("<section id=\"timeline\">\n%1").arg(timelineSvg);
    html += QStringLiteral("</section>\n");
    html += QStringLiteral("<section id=\"narration\">\n<h2>%1</h2>\n<div class=\"controls\">"
                           "<button id=\"previous\">&#x25C2; %2</button><button id=\"play\">&#x25B6; %3</button>"
                           "<button id=\"next\">%4 &#x25B8;</button><span id=\"position\"></span></div>\n"
                           "<ol class=\"steps\">\n")
                .arg(tr("The story"), tr("Previous"), tr("Play"), tr("Next"));
    for (int step = 0; step < int(story.steps.size()); ++step) {
        const std::optional<qint64> moment = m_scenario->momentOf(step);
        html += QStringLiteral("<li class=\"step\" id=\"step-%1\">%2<span class=\"proof\">%3</span></li>\n")
                    .arg(step + 1)
                    .arg(escaped(story.steps[step].narration),
                         moment ? escaped(tr("%1: %2").arg(secondsOf(*moment), story.steps[step].await.says))
                                : escaped(tr("did not happen")));
    }
    html += QStringLiteral("</ol>\n");
    const bool finished = m_scenario->state() == Scenario::State::Finished;
    html += QStringLiteral("<p class=\"conclusion%1\">%2</p>\n</section>\n")
                .arg(finished ? QString() : QStringLiteral(" failed"),
                     escaped(finished ? m_scenario->narration() : m_scenario->errorString()));

    html += QStringLiteral("<section id=\"events\">\n<h2>%1</h2>\n<table>\n<thead><tr><th>%2</th><th>%3</th><th>%4</th>"
                           "<th>%5</th><th>%6</th><th>%7</th></tr></thead>\n<tbody>\n")
                .arg(tr("The event log"), tr("Time"), tr("Clock"), tr("Participant"), tr("Event"), tr("Detail"), tr("Key"));
    if (log) {
        for (const QEtcd::EventLogModel::Event &event : log->events()) {
            html += QStringLiteral("<tr><td class=\"time\">%1</td><td class=\"time\">%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>\n")
                        .arg(secondsOf(event.monotonicMs), m_timeline->clockText(event.monotonicMs), escaped(event.participant),
                             escaped(event.spurious ? event.kind + tr(" (spurious)") : event.kind), escaped(event.detail),
                             escaped(event.key));
        }
    }
    html += QStringLiteral("</tbody>\n</table>\n</section>\n</main>\n</body>\n</html>\n");
    return html;
}
