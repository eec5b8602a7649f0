import QtQuick
import QEtcdConsole

// The client's connection state as the header shows it: Connecting, Connected, Suspended,
// Reconnected, Lost or Unreachable.
StatePill {
    property string state: "Connecting"
    text: state
    foreground: state === "Connected" ? Theme.good
              : state === "Reconnected" ? Theme.info
              : state === "Suspended" ? Theme.warning
              : state === "Lost" || state === "Unreachable" ? Theme.bad
              : Theme.neutral
    background: state === "Connected" ? Theme.goodSoft
              : state === "Reconnected" ? Theme.infoSoft
              : state === "Suspended" ? Theme.warningSoft
              : state === "Lost" || state === "Unreachable" ? Theme.badSoft
              : Theme.neutralSoft
}
