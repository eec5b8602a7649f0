#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# checkdebs.sh CPACK BUILD_DIR WORK_DIR VERSION SOVERSION QMLIMPORTSCANNER QT_QML_DIR VIEWS_DIR
#
# Builds qetcd's Debian packages from BUILD_DIR with CPACK into WORK_DIR and checks them:
#   - there are four: libqetcd<SOVERSION>, libqetcd-dev, qetcd and qetcd-console, each holding
#     what it is for;
#   - each depends on what its programs and libraries load: qetcd's runtime package at VERSION,
#     Debian's gRPC, Qt and qtkeychain libraries, and for the console every QML module package
#     that qmlimportscanner finds the views (VIEWS_DIR) import from Qt's QML directory;
#   - lintian reports no error (its warnings are printed);
#   - extracted into a scratch root with dpkg-deb, the console's metainfo and desktop entry
#     validate together, and `qetcd --version` and `qetcd-console --version` run from there,
#     finding qetcd's libraries in that root by their own run paths, without LD_LIBRARY_PATH.
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited with $?"' ERR
cpack=$1
build=$2
work=$3
version=$4
soversion=$5
scanner=$6
qt_qml_dir=$7
views=$8
started=$SECONDS

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

rm -rf "$work"
mkdir -p "$work"
debs="$work/debs"
if ! "$cpack" -G DEB -B "$debs" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL: cpack -G DEB"
  exit 1
fi
echo "cpack: $((SECONDS - started)) s"

runtime="libqetcd$soversion"
declare -A deb
for file in "$debs"/*.deb; do
  deb[$(dpkg-deb -f "$file" Package)]=$file
done
if [ "$(printf '%s\n' "${!deb[@]}" | sort | xargs)" != "$(printf '%s\n' "$runtime" libqetcd-dev qetcd qetcd-console | sort | xargs)" ]; then
  echo "FAIL: cpack made the packages [${!deb[*]}], not $runtime, libqetcd-dev, qetcd and qetcd-console"
  exit 1
fi

# The paths in PACKAGE, as dpkg-deb -c lists them without the leading dot.
listing() {
  dpkg-deb -c "${deb[$1]}" | awk '{ print $6 }' | sed 's/^\.//'
}
# contains PACKAGE PATH...: each PATH is in PACKAGE.
contains() {
  local package=$1 paths path
  shift
  paths=$(listing "$package")
  for path in "$@"; do
    if ! grep -qx -- "$path" <<<"$paths"; then
      fail "$package does not hold $path"
    fi
  done
}
# Where the build put the libraries and the QML module (the install prefix decides).
libdir=$(listing "$runtime" | sed -n 's:/libQEtcd\.so\.[0-9.]*$::p' | awk 'NR == 1')
qml_module=$(listing "$runtime" | sed -n 's:/qmldir$::p' | awk 'NR == 1')
contains "$runtime" "$libdir/libQEtcd.so.$soversion" "$libdir/libQEtcdTesting.so.$soversion" \
  "$libdir/libQEtcdQuick.so.$soversion" "$qml_module/libQEtcdQuickplugin.so" "/usr/share/doc/$runtime/copyright"
contains libqetcd-dev /usr/include/QEtcd/client.h "$libdir/libQEtcd.so" "$libdir/cmake/QEtcd/QEtcdConfig.cmake" \
  "$libdir/pkgconfig/qetcd.pc" /usr/share/doc/libqetcd-dev/copyright
contains qetcd /usr/bin/qetcd /usr/share/man/man1/qetcd.1.gz /usr/share/bash-completion/completions/qetcd \
  /usr/share/doc/qetcd/changelog.gz /usr/lib/systemd/system/qetcd-exporter.service \
  /usr/share/qetcd/exporter/qetcd-rules.yml /usr/share/qetcd/exporter/qetcd.json
contains qetcd-console /usr/bin/qetcd-console /usr/share/man/man1/qetcd-console.1.gz \
  /usr/share/applications/io.qetcd.Console.desktop /usr/share/metainfo/io.qetcd.Console.metainfo.xml \
  /usr/share/icons/hicolor/scalable/apps/io.qetcd.Console.svg /usr/share/doc/qetcd-console/copyright

# requires PACKAGE REGEX...: each REGEX matches one of PACKAGE's dependencies, whole.
requires() {
  local package=$1 names pattern
  shift
  names=$(dpkg-deb -f "${deb[$package]}" Depends | tr ',' '\n' | sed 's/^ *//; s/ *$//')
  for pattern in "$@"; do
    if ! grep -qxE -- "$pattern" <<<"$names"; then
      fail "$package does not depend on /$pattern/; its Depends: $(echo $names)"
    fi
  done
}
ours="$runtime \(= $version\)"
requires "$runtime" 'libgrpc\+\+[0-9.]+ \(.*\)' 'libprotobuf[0-9]+ \(.*\)' 'libqt6core6 \(.*\)' 'libqt6qml6 \(.*\)'
requires libqetcd-dev "$ours" 'qt6-base-dev \(.*\)'
requires qetcd "$ours" 'libqt6core6 \(.*\)'
requires qetcd-console "$ours" 'libqt6keychain1 \(.*\)' 'libqt6charts6 \(.*\)' libqt6svg6

modules=$("$scanner" -rootPath "$views" -importPath "$qt_qml_dir" 2>/dev/null |
  sed -n 's:.*"path"\: *"\([^"]*\)".*:\1:p' | sort -u |
  while read -r path; do
    if [ -f "$path/qmldir" ]; then dpkg -S "$path/qmldir" | cut -d: -f1 || echo "$path/qmldir (in no package)"; fi
  done | sort -u)
if ! grep -qx qml6-module-qtquick-controls <<<"$modules"; then
  fail "qmlimportscanner found no QtQuick.Controls in $views: [$(echo $modules)]"
fi
# shellcheck disable=SC2086 # one argument per module package
requires qetcd-console $modules

lintian_started=$SECONDS
lintian --tag-display-limit 0 "${deb[@]}" >"$work/lintian.log" 2>&1 || true
grep -v 'running with root privileges' "$work/lintian.log" || true
if grep -q '^E:' "$work/lintian.log"; then
  fail "lintian reports errors"
fi
echo "lintian: $((SECONDS - lintian_started)) s"

root="$work/root"
for file in "${deb[@]}"; do
  dpkg-deb -x "$file" "$root"
done
# The metainfo as installed, with the desktop entry it launches.
if ! report=$(appstreamcli validate-tree --no-net --no-color "$root" 2>&1) || grep -q '^ *[EWI]:' <<<"$report"; then
  fail "appstreamcli validate-tree: $report"
fi
unset LD_LIBRARY_PATH
export QT_QPA_PLATFORM=offscreen
for program in qetcd qetcd-console; do
  if ! answer=$("$root/usr/bin/$program" --version 2>&1) || [ "$answer" != "$program $version" ]; then
    fail "$root/usr/bin/$program --version answered: $answer"
  fi
  # Run paths, not the system or the build tree, give the programs qetcd's libraries.
  loaded=$(ldd "$root/usr/bin/$program" | grep 'libQEtcd' || true)
  if [ -z "$loaded" ] || grep -vqF "=> $root/" <<<"$loaded"; then
    fail "$program does not load qetcd's libraries from the scratch root: $loaded"
  fi
done
loaded=$(ldd "$root$qml_module/libQEtcdQuickplugin.so")
if ! grep -qF "libQEtcdQuick.so.$soversion => $root/" <<<"$loaded"; then
  fail "the QML plugin does not find libQEtcdQuick in the scratch root: $loaded"
fi

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "packages: built, linted, extracted and run in $((SECONDS - started)) s"
