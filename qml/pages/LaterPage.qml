import QtQuick
import QEtcdConsole
import QtQuick.Controls

// A page of the console's second part: reachable, and honest that it is not built yet.
ConsolePage {
    id: page
    property string purpose
    ready: true

    EmptyState {
        anchors.centerIn: parent
        title: qsTr("%1 is not built yet").arg(page.title)
        detail: page.purpose
    }
}
