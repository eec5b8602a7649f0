#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# checkmetadata.sh SOURCE_DIR VERSION HOMEPAGE
#
# The console's desktop entry and AppStream metainfo pass their validators, the icon the entry
# names is there, and what the packages state more than once agrees with the project: the
# newest release in the metainfo and in the Debian changelog (less its Debian revision) is
# VERSION, and the metainfo's, the copyright file's and debian/control's address is HOMEPAGE.
set -euo pipefail
source_dir=$1
version=$2
homepage=$3
resources="$source_dir/resources"
debian="$source_dir/debian"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

desktop="$resources/io.qetcd.Console.desktop"
if ! report=$(desktop-file-validate "$desktop" 2>&1) || [ -n "$report" ]; then
  fail "desktop-file-validate: $report"
fi
icon=$(sed -n 's/^Icon=//p' "$desktop")
if ! grep -q '<svg' "$resources/$icon.svg" 2>/dev/null; then
  fail "the desktop entry's icon $icon has no SVG at $resources/$icon.svg"
fi

metainfo="$resources/io.qetcd.Console.metainfo.xml"
# Errors, warnings and infos fail; pedantic notes do not (the ID's capitals are one).
if ! report=$(appstreamcli validate --no-net --no-color "$metainfo" 2>&1) || grep -q '^[EWI]:' <<<"$report"; then
  fail "appstreamcli validate: $report"
fi
newest_release=$(grep -o '<release version="[^"]*"' "$metainfo" | awk -F'"' 'NR == 1 { print $2 }')
if [ "$newest_release" != "$version" ]; then
  fail "the metainfo's newest release is '$newest_release', the project's version $version"
fi
changelog_version=$(dpkg-parsechangelog -l "$debian/changelog" -S Version)
if [ "${changelog_version%-*}" != "$version" ]; then
  fail "the Debian changelog's newest entry is '$changelog_version', not the project's version $version"
fi
metainfo_homepage=$(sed -n 's:.*<url type="homepage">\(.*\)</url>.*:\1:p' "$metainfo")
copyright_source=$(sed -n 's/^Source: //p' "$debian/copyright")
control_homepage=$(sed -n 's/^Homepage: //p' "$debian/control")
for stated in "metainfo:$metainfo_homepage" "copyright:$copyright_source" "debian/control:$control_homepage"; do
  if [ "${stated#*:}" != "$homepage" ]; then
    fail "the ${stated%%:*} says the project is at '${stated#*:}', CMakeLists.txt $homepage"
  fi
done

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "metadata: desktop entry and metainfo valid; release $version, $homepage throughout"
