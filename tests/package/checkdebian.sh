#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# checkdebian.sh SOURCE_DIR BUILD_DIR WORK_DIR LIBDIR QMLDIR VERSION QMLIMPORTSCANNER QT_QML_DIR
#
# Holds debian/ to what the build installs, without building a package (that is scripts/deb's
# twenty minutes; this takes seconds):
#   - every file `cmake --install` puts under /usr (the components runtime, development, cli and
#     console, into a scratch root) is claimed by exactly one line of the architecture-dependent
#     packages' debian/*.install, and every line claims something: what dh_install and dh_missing
#     would say. ${DEB_HOST_MULTIARCH} in a line stands for the build's LIBDIR (lib/<triplet> in
#     a build for /usr, lib elsewhere) and QMLDIR is the QML modules' directory;
#   - qetcd-console's Depends in debian/control name the package of every QML module that
#     qmlimportscanner finds the views (SOURCE_DIR/qml) import from Qt's QML directory;
#   - from the scratch root the console's metainfo and desktop entry validate together, and
#     `qetcd --version` and `qetcd-console --version` run, finding qetcd's libraries there by
#     their own run paths, without LD_LIBRARY_PATH.
# libqetcd-doc's .install is left to dh_missing: the API reference is not part of a build.
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited with $?"' ERR
source_dir=$1
build=$2
work=$3
libdir=$4
qmldir=$5
version=$6
scanner=$7
qt_qml_dir=$8

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

rm -rf "$work"
root="$work/root"
for component in runtime development cli console; do
  DESTDIR="$root" cmake --install "$build" --prefix /usr --component "$component" >/dev/null
done
installed=$(cd "$root" && find . \( -type f -o -type l \) | sed 's:^\./::' | sort)

# The lines of the architecture-dependent packages' .install files, as "package pattern".
claims=$(for file in "$source_dir"/debian/*.install; do
  package=$(basename "$file" .install)
  [ "$package" = libqetcd-doc ] && continue
  grep -v '^#' "$file" | sed '/^$/d' |
    sed "s|^usr/lib/\${DEB_HOST_MULTIARCH}/qt6/qml/|usr/$qmldir/|; s|^usr/lib/\${DEB_HOST_MULTIARCH}/|usr/$libdir/|" |
    sed "s|^|$package |"
done)

declare -A used
while IFS= read -r path; do
  owners=()
  while read -r package pattern; do
    # A line ending in / claims the directory's whole tree; any other is a glob, as dh_install's.
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    if { [[ "$pattern" == */ ]] && [[ "$path" == "$pattern"* ]]; } || [[ "$path" == $pattern ]]; then
      owners+=("$package")
      used["$package $pattern"]=1
    fi
  done <<<"$claims"
  if [ ${#owners[@]} -eq 0 ]; then
    fail "/$path is installed and no debian/*.install claims it (dh_missing would fail)"
  elif [ ${#owners[@]} -gt 1 ]; then
    fail "/$path is claimed by more than one package: ${owners[*]}"
  fi
done <<<"$installed"
while IFS= read -r claim; do
  if [ -z "${used[$claim]:-}" ]; then
    fail "debian/${claim%% *}.install claims ${claim#* }, which the build does not install (dh_install would fail)"
  fi
done <<<"$claims"

# Depends of PACKAGE in debian/control: one package name per line, without versions or comments.
control_depends() {
  awk -v package="$1" '
    /^#/ { next }
    /^$/ { in_package = 0; next }
    /^Package:/ { in_package = ($2 == package); field = ""; next }
    /^[^ ]/ { field = $1 }
    in_package && field == "Depends:" { print }' "$source_dir/debian/control" |
    sed 's/^Depends://' | tr ',' '\n' | sed 's/(.*)//; s/^ *//; s/ *$//' | sed '/^$/d; /^\$/d'
}
console_depends=$(control_depends qetcd-console)
modules=$("$scanner" -rootPath "$source_dir/qml" -importPath "$qt_qml_dir" 2>/dev/null |
  sed -n 's:.*"path"\: *"\([^"]*\)".*:\1:p' | sort -u |
  while read -r path; do
    if [ -f "$path/qmldir" ]; then dpkg -S "$path/qmldir" | cut -d: -f1 || echo "$path/qmldir (in no package)"; fi
  done | sort -u)
if ! grep -qx qml6-module-qtquick-controls <<<"$modules"; then
  fail "qmlimportscanner found no QtQuick.Controls in $source_dir/qml: [$(echo $modules)]"
fi
for module in $modules; do
  if ! grep -qx -- "$module" <<<"$console_depends"; then
    fail "the console's views import from $module, which qetcd-console does not depend on in debian/control"
  fi
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
loaded=$(ldd "$root/usr/$qmldir/QEtcd/libQEtcdQuickplugin.so")
if ! grep -qF "libQEtcdQuick.so" <<<"$loaded" || grep 'libQEtcdQuick.so' <<<"$loaded" | grep -vqF "=> $root/"; then
  fail "the QML plugin does not find libQEtcdQuick in the scratch root: $loaded"
fi

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "debian: $(wc -l <<<"$installed") installed files each claimed once by debian/*.install;" \
     "qetcd-console depends on the $(wc -w <<<"$modules") QML module packages its views import"
