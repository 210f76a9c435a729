#!/usr/bin/env bash
# Compiles and runs SstFilterJavaCheck against a RocksJava jar you built
# with sstfilter in it (docs/guide/java.md says how). Fetches and builds
# nothing: it needs the jar and a JDK (Debian: openjdk-17-jdk-headless).
#
#   tools/java/run_check.sh <rocksdbjni.jar> [--keys N] [--policy ID:BITS] [--keep]
#
# Prints what the check measured and "OK: ..." or "FAIL: ..."; the exit
# status is the check's (0 only if every check passed).
set -euo pipefail

if [[ $# -lt 1 || ! -f $1 ]]; then
  echo "usage: $0 <rocksdbjni.jar> [--keys N] [--policy ID:BITS] [--keep]" >&2
  exit 2
fi
jar=$(realpath "$1")
shift
here=$(dirname "$(realpath "$0")")
bin=${JAVA_HOME:+$JAVA_HOME/bin/}
if ! command -v "${bin}javac" >/dev/null; then
  echo "no javac (Debian: apt-get install openjdk-17-jdk-headless)" >&2
  exit 2
fi

classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"${bin}javac" -cp "$jar" -d "$classes" "$here/SstFilterJavaCheck.java"
"${bin}java" -cp "$jar:$classes" SstFilterJavaCheck "$@"
