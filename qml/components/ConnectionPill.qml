// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QEtcdConsole

// The client's connection state as the header shows it: Connecting, Connected, Suspended,
// Reconnected, Lost, Busy (etcd answers "too many requests"), Unreachable or Refused (the
// endpoint answered but turned the connection down: TLS or the password).
StatePill {
    property string state: "Connecting"
    text: state
    foreground: state === "Connected" ? Theme.good
              : state === "Reconnected" ? Theme.info
              : state === "Suspended" || state === "Busy" ? Theme.warning
              : state === "Lost" || state === "Unreachable" || state === "Refused" ? Theme.bad
              : Theme.neutral
    background: state === "Connected" ? Theme.goodSoft
              : state === "Reconnected" ? Theme.infoSoft
              : state === "Suspended" || state === "Busy" ? Theme.warningSoft
              : state === "Lost" || state === "Unreachable" || state === "Refused" ? Theme.badSoft
              : Theme.neutralSoft
}
