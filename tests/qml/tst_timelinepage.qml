// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QEtcd
import QEtcdConsole

// The console's Timeline page over a log filled here (no etcd needed): the empty state, the
// summary's counts, the filter over the list, both exports (the files and their lines, and a
// path that cannot be written), live and paused, zoom, and the whole log shown at a scenario's
// end: paused, and every layer drawing it from the next frame on.
Item {
    id: root
    width: 1280
    height: 760

    EventLogModel { id: log }

    Component {
        id: timelinePage
        TimelinePage { anchors.fill: parent; eventLog: log }
    }

    TestCase {
        name: "TimelinePage"
        when: windowShown

        // Stamps count back from one moment, so the margins between them are exact.
        property double now
        function event(msAgo, participant, kind, detail, key, spurious) {
            qetcdTest.appendEvent(log, now - msAgo, { participant: participant, kind: kind, detail: detail || "",
                                                key: key || "", spurious: spurious || false });
        }
        // The lock-partition scenario, a barrier lifted spuriously, and a sandbox's members.
        function fillStory() {
            now = qetcdTest.monotonicNowMs();
            event(58000, "build-7", "connectionState", "Connected");
            event(57800, "build-9", "connectionState", "Connected");
            event(57000, "build-7", "acquired", "token 18102", "/app/locks/deploy/694d");
            event(56000, "build-9", "pending", "behind build-7", "/app/locks/deploy/694e");
            event(54000, "job-runner", "barrierSet", "", "/app/gates/start");
            event(53000, "worker-1", "pending", "at /app/gates/start", "/app/gates/start");
            event(50000, "build-7", "fault", "blackhole");
            event(48500, "build-7", "connectionState", "Suspended");
            event(47000, "build-7", "leaseSuspended", "lease 694d", "/app/locks/deploy/694d");
            event(44000, "m1", "memberPaused");
            event(41000, "build-7", "lost", "lease deadline passed", "/app/locks/deploy/694d");
            event(40270, "etcd", "keyDeleted", "", "/app/locks/deploy/694d");
            event(40200, "build-9", "acquired", "token 18230", "/app/locks/deploy/694e");
            event(38000, "m1", "memberResumed");
            event(33000, "m0", "leaderChanged", "m2");
            event(31000, "build-7", "fault", "pass");
            event(30500, "build-7", "connectionState", "Reconnected");
            event(30000, "build-7", "releaseFailed", "unlock() said false", "/app/locks/deploy/694d");
            event(26000, "job-runner", "fault", "delay 800 ms");
            event(19000, "job-runner", "leaseExpired", "lease 7a31", "/app/gates/start");
            event(18900, "worker-1", "barrierLifted", "owner's lease expired", "/app/gates/start", true);
            event(14000, "job-runner", "fault", "pass");
            event(13000, "job-runner", "barrierSet", "re-armed", "/app/gates/start");
            event(11000, "m2", "memberKilled");
            event(4000, "m2", "memberRestarted");
            event(2000, "build-9", "released", "", "/app/locks/deploy/694e");
        }
        function openPage() {
            const page = createTemporaryObject(timelinePage, root);
            verify(page);
            return page;
        }
        function cleanup() {
            log.filter = "";
            log.clear();
        }

        function test_emptySaysWhatToDo() {
            const page = openPage();
            verify(page.ready);
            verify(page.empty);
            compare(page.summary.events, 0);
            compare(page.summary.lanes, 0);
            verify(!findChild(page, "liveButton").visible, "nothing to pause yet");
        }

        function test_summaryCounts() {
            const page = openPage();
            fillStory();
            tryVerify(() => page.summary.events === 26, 5000, "the timeline reads the log at the next frame");
            verify(!page.empty);
            compare(page.timeline.lanes, ["build-7", "build-9", "job-runner", "worker-1", "m1", "m0", "m2"]);
            compare(page.summary.lanes, 7);
            compare(page.summary.losses, 1);
            // build-7's blackhole, job-runner's delay; m1 paused, m2 killed.
            compare(page.summary.bands, 4);
            // Every event but the faults and etcd's deletion is a marker; the deletion is one on build-7's lane.
            compare(page.summary.markers, 26 - 4);
        }

        function test_filter() {
            const page = openPage();
            fillStory();
            const list = findChild(page, "eventList");
            tryCompare(list, "count", 26);
            const field = findChild(page, "logFilter");
            field.forceActiveFocus();
            for (const key of "build-7")
                keyClick(key);
            compare(log.filter, "build-7");
            compare(list.count, 10);
            // The timeline still draws everything: the filter is the list's.
            compare(page.summary.events, 26);
        }

        function test_exports() {
            const page = openPage();
            fillStory();
            tryCompare(log, "count", 26);
            const jsonl = qetcdTest.temporaryPath("timeline.jsonl");
            verify(page.exportLog("jsonl", jsonl));
            const lines = qetcdTest.readFile(jsonl).trim().split("\n");
            compare(lines.length, 26);
            compare(JSON.parse(lines[0]).participant, "build-7");
            compare(page.exportNote, "Wrote 26 event(s) to " + jsonl);

            log.filter = "m1";
            const csv = qetcdTest.temporaryPath("timeline.csv");
            verify(page.exportLog("csv", csv));
            const rows = qetcdTest.readFile(csv).trim().split("\n");
            compare(rows.length, 1 + 2);  // the header, the pause and the resume
            compare(rows[0], "mono_ms,participant,kind,detail,spurious,key");

            verify(!page.exportLog("csv", qetcdTest.temporaryPath("missing/timeline.csv")));
            verify(page.exportFailed);
            verify(page.exportNote.indexOf("missing/timeline.csv") >= 0, page.exportNote);
        }

        function test_wholeLogAtOnce() {
            const page = openPage();
            fillStory();
            tryVerify(() => page.summary.events === 26, 5000, "the timeline reads the log at the next frame");
            compare(page.summary.following, true);
            waitForRendering(page);

            // What Main.qml does when a scenario ends, before its screenshot.
            page.timeline.showWholeLog();
            compare(page.summary.following, false, "no longer live: the window would move on from the whole log");
            compare(page.summary.wholeLog, true);
            compare(findChild(page, "livePill").text, "PAUSED");
            verify(findChild(page, "windowLabel").text.startsWith("Whole log"), findChild(page, "windowLabel").text);
            // A glyph's width of room before the first event and after now.
            verify(page.timeline.windowStart < page.timeline.logStart);
            verify(page.timeline.windowEnd > page.timeline.logEnd);
            const start = page.timeline.windowStart;
            const end = page.timeline.windowEnd;
            // The next frame draws every marker in that window, not in the one before.
            const layer = findChild(page, "traceLayer");
            verify(layer, "the markers are a layer of their own");
            waitForRendering(page);
            tryVerify(() => layer.drawnStart === start && layer.drawnEnd === end, 1000,
                      "drawn " + layer.drawnStart + ".." + layer.drawnEnd + ", window " + start + ".." + end);
            compare(layer.drawnMarkers, page.summary.markers);
            // And stays there.
            wait(300);
            compare(page.timeline.windowStart, start);
            compare(layer.drawnEnd, end);
            compare(page.summary.wholeLog, true);

            // Zoomed in, it is a paused window like any other.
            page.timeline.zoom(0.5);
            compare(page.summary.wholeLog, false);
            verify(findChild(page, "windowLabel").text.startsWith("Window"));
        }

        function test_pauseAndZoom() {
            const page = openPage();
            fillStory();
            tryVerify(() => page.summary.events === 26, 5000, "the timeline reads the log at the next frame");
            compare(page.summary.following, true);
            compare(page.summary.windowSeconds, 60);

            mouseClick(findChild(page, "liveButton"));
            compare(page.summary.following, false);
            const end = page.timeline.windowEnd;
            wait(300);
            compare(page.timeline.windowEnd, end, "paused, the window stays where it is");

            mouseClick(findChild(page, "zoomIn"));
            compare(page.summary.windowSeconds, 30);
            mouseClick(findChild(page, "zoomIn"));
            mouseClick(findChild(page, "zoomIn"));
            mouseClick(findChild(page, "zoomIn"));
            compare(page.summary.windowSeconds, 5, "no closer than 5 s");
            mouseClick(findChild(page, "wholeLog"));
            verify(page.summary.windowSeconds >= 58 && page.summary.windowSeconds < 62, page.summary.windowSeconds);

            // Scrolled back by the slider, then live again: the window ends now.
            const scrubber = findChild(page, "scrubber");
            page.timeline.zoom(0.25);
            scrubber.value = scrubber.from;
            scrubber.moved();
            verify(page.timeline.windowEnd < page.timeline.logEnd - 30);
            mouseClick(findChild(page, "liveButton"));
            compare(page.summary.following, true);
            tryVerify(() => Math.abs(page.timeline.windowEnd - page.timeline.logEnd) < 0.1);

            // The window's pause holds the timeline too.
            page.paused = true;
            compare(page.summary.following, false);
            verify(!findChild(page, "liveButton").enabled);
        }
    }
}
