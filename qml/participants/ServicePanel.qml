// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QEtcdConsole

// A ServiceRegistration: one instance of a service (name, address, port), registered on a
// lease that heals, and unregistered.
RecipePanel {
    id: panel
    key: "service"

    SettingField {
        objectName: "serviceName"
        label: qsTr("Service")
        text: panel.recipe.name
        toolTip: qsTr("The service's name; takes effect at the next registration")
        onEdited: text => panel.recipe.name = text
    }
    SettingField {
        objectName: "serviceAddress"
        label: qsTr("Address")
        text: panel.recipe.address
        mono: true
        toolTip: qsTr("Where the instance answers; takes effect at the next registration")
        onEdited: text => panel.recipe.address = text
    }
    RowLayout {
        spacing: Theme.spacing
        Label {
            text: qsTr("Port")
            color: Theme.mutedText
            font.pixelSize: Theme.smallFont
            Layout.preferredWidth: 92
        }
        SpinBox {
            objectName: "servicePort"
            Accessible.name: qsTr("Port")
            from: 1
            to: 65535
            value: panel.recipe.port
            editable: true
            textFromValue: value => String(value)
            onValueModified: panel.recipe.port = value
            Layout.preferredWidth: 110
        }
    }
    Field {
        label: qsTr("Instance")
        value: panel.recipe.instanceId || "—"
        mono: true
    }
    RowLayout {
        spacing: Theme.spacing
        WriteButton {
            objectName: "register"
            text: qsTr("Register")
            readOnly: panel.readOnly
            toolTip: panel.active ? qsTr("Register again with the fields as they are now") : qsTr("Publish this instance for others to discover")
            onClicked: panel.recipe.registerService()
        }
        WriteButton {
            objectName: "unregister"
            text: qsTr("Unregister")
            readOnly: panel.readOnly
            blockedReason: panel.recipe.instanceId ? "" : qsTr("Not registered")
            toolTip: qsTr("Withdraw the instance")
            onClicked: panel.recipe.unregisterService()
        }
    }
}
