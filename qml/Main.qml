import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Placeholder until the console issue lands: it says where it would connect, nothing more.
ApplicationWindow {
    id: window
    width: 960
    height: 600
    visible: true
    title: qsTr("qetcd console")

    ColumnLayout {
        anchors.centerIn: parent
        spacing: 12
        Label {
            text: qsTr("qetcd console")
            font.pixelSize: 28
            Layout.alignment: Qt.AlignHCenter
        }
        Label {
            text: qsTr("Endpoints: %1").arg(consoleEndpoints)
            Layout.alignment: Qt.AlignHCenter
        }
        Label {
            text: qsTr("The views for leases, locks, elections and barriers arrive with the console issue.")
            opacity: 0.7
            Layout.alignment: Qt.AlignHCenter
        }
    }
}
