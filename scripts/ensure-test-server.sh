#!/usr/bin/env bash
# Temporal's time-skipping test server for test/workflows-time/, launched from Java.
# Why Maven: @temporalio/testing's createTimeSkipping() downloads a native test-server binary from
# GitHub's releases, which this project never fetches (no binary downloads; see the README). The same
# server is published by Temporal's Java SDK on Maven Central, one of the package registries payrun
# uses, as io.temporal:temporal-test-server. This script asks Maven for that pinned artifact and its
# dependencies (scripts/test-server/pom.xml) into the machine's Maven cache (~/.m2) and writes a launcher
# that runs it with the machine's Java (17 or newer). Nothing else is downloaded.
# Idempotent: when the launcher for this pom exists and its jars are all there, it only prints its path.
# Prints the launcher's path on stdout; everything else goes to stderr.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POM="$ROOT/scripts/test-server/pom.xml"
CACHE_DIR="${PAYRUN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payrun}"
OUT_DIR="$CACHE_DIR/test-server"
# The launcher is named after the pom's contents: a changed pin writes a new one.
POM_HASH="$(sha256sum "$POM" | cut -c1-12)"
LAUNCHER="$OUT_DIR/temporal-test-server-$POM_HASH"
CLASSPATH_FILE="$OUT_DIR/classpath-$POM_HASH.txt"

jars_present() {
  [ -s "$CLASSPATH_FILE" ] || return 1
  local jar
  while IFS= read -r jar; do
    [ -f "$jar" ] || return 1
  done < <(tr ':' '\n' <"$CLASSPATH_FILE")
}

if [ -x "$LAUNCHER" ] && jars_present; then
  echo "$LAUNCHER"
  exit 0
fi

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "payrun setup: '$tool' is missing; the time-skipping workflow tests run Temporal's test server on Java 17+ from Maven Central (Debian: apt-get install openjdk-17-jre-headless maven)." >&2
    exit 1
  fi
done

echo "payrun setup: resolving Temporal's test server (io.temporal:temporal-test-server, scripts/test-server/pom.xml) with Maven..." >&2
mkdir -p "$OUT_DIR"
tmp="$(mktemp "$OUT_DIR/classpath.XXXXXX")"
if ! mvn -q -B -Dstyle.color=never -f "$POM" dependency:build-classpath -Dmdep.outputFile="$tmp" >&2; then
  rm -f "$tmp"
  echo "payrun setup: Maven could not resolve the test server (see its output above); check that Maven Central is reachable ('mvn -v' and ~/.m2/settings.xml)." >&2
  exit 1
fi
mv "$tmp" "$CLASSPATH_FILE"

# The SDK starts the launcher with the port as its first argument and stops it with a signal: exec hands
# both to the JVM. A small heap and the quick-start compiler: the machine is shared and runs are short.
# The server's own log (gRPC's probe noise included) goes to a file, not into the test output.
cat >"$LAUNCHER.tmp" <<LAUNCHER
#!/usr/bin/env bash
# Written by scripts/ensure-test-server.sh: Temporal's time-skipping test server from Maven Central.
exec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \\
  -cp "\$(cat '$CLASSPATH_FILE')" io.temporal.testserver.TestServer "\$@" >>'$OUT_DIR/server.log' 2>&1
LAUNCHER
chmod +x "$LAUNCHER.tmp"
mv "$LAUNCHER.tmp" "$LAUNCHER"
echo "payrun setup: test server launcher written to $LAUNCHER" >&2
echo "$LAUNCHER"
