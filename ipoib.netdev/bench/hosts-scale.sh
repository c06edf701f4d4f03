#!/usr/bin/env bash
# The scale benchmark (./ipoib bench hosts [N ...], default 4 16 64 256): for each N, one
# appliance started as ./ipoib --hosts N does, and per N one row:
#   start     seconds from the JVM's start until ipoib:netdev await saw every device UP
#   ping all  seconds for h1 to ping every other host once (ping -c 1, one after the other; the
#             first packet to each host resolves its address by ARP)
#   RSS       the appliance's resident memory (VmRSS) after the pings, and per host
#   threads   the appliance's threads (platform threads: /proc/PID/status Threads), and per host
#   TCP       iperf3 -t SECONDS between h2 and h3 while the other hosts idle
# With IPOIB_SCALE_THREADS=1 it also prints the appliance's threads grouped by name.
# Needs root, /dev/net/tun, iproute2, iperf3, python3. SECONDS: NETDEV_BENCH_SECONDS (default 5).
# The namespaces are h1..hN: run it under flock /tmp/ipoib-netns.lock where others use them.
# IPOIB_JAVA_OPTS is passed to the appliance as ./ipoib passes it; its -Dipoib.hosts.netns=PREFIX
# names the namespaces PREFIX1..PREFIXN instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${NETDEV_BENCH_SECONDS:-5}"
java="$JAVA_HOME/bin/java"
appliance="$root/ipoib.appliance/target/ipoib.jar"
[ "$(id -u)" -eq 0 ] || { echo "hosts bench: needs root (network namespaces, TUN devices)" >&2; exit 2; }
for tool in ip iperf3 python3 ping; do
  command -v "$tool" >/dev/null || { echo "hosts bench: needs $tool (apt-get install iproute2 iperf3 python3 iputils-ping)" >&2; exit 2; }
done
prefix="$(printf '%s\n' ${IPOIB_JAVA_OPTS:-} | sed -n 's/^-Dipoib\.hosts\.netns=//p' | tail -1)"
prefix="${prefix:-h}"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(4 16 64 256)
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

address() { # K N -> hK's address, as HostsSetup assigns it
  if [ "$2" -le 254 ]; then echo "10.0.0.$1"; else echo "10.0.$((($1 - 1) / 254)).$((($1 - 1) % 254 + 1))"; fi
}

rows=()
for n in "${counts[@]}"; do
  for k in $(seq "$n"); do
    [ ! -e "/run/netns/$prefix$k" ] || { echo "hosts bench: namespace $prefix$k exists (ip netns del $prefix$k)" >&2; exit 2; }
  done
  echo "hosts bench: --hosts $n" >&2
  rm -f "$work/in"; mkfifo "$work/in"
  sleep 100000 > "$work/in" & holder=$!; pids+=($holder)
  start=$(date +%s.%N)
  "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dipoib.defaults=false \
    -Dipoib.hosts="$n" -Dorg.osgi.service.http.port=0 ${IPOIB_JAVA_OPTS:-} -jar "$appliance" < "$work/in" > "$work/appliance.log" 2>&1 &
  app=$!; pids+=($app)
  exec 3> "$work/in"
  echo "ipoib:netdev await 300" >&3
  last="$(printf 'ib%x_1_ffff' $((n - 1)))"
  for _ in $(seq 3000); do grep -q "$last: device ib0 .*link UP" "$work/appliance.log" && break; sleep 0.1; done
  grep -q "$last: device ib0 .*link UP" "$work/appliance.log" || { tail -50 "$work/appliance.log" >&2; exit 1; }
  up=$(python3 -c "import sys; print('%.1f' % ($(date +%s.%N) - $start))")
  t0=$(date +%s.%N); failed=0
  for k in $(seq 2 "$n"); do
    ip netns exec "${prefix}1" ping -c 1 -W 5 "$(address "$k" "$n")" >/dev/null 2>&1 || failed=$((failed + 1))
  done
  pinged=$(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))")
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$app/status")
  threads=$(awk '/^Threads/ { print $2 }' "/proc/$app/status")
  if [ "${IPOIB_SCALE_THREADS:-0}" = 1 ]; then
    "$JAVA_HOME/bin/jcmd" "$app" Thread.print 2>/dev/null | sed -n 's/^"\([^"]*\)".*/\1/p' \
      | sed -E 's/(ipoib-(link|rx|netdev|cm|cm-rx|capture)-).*/\1*/; s/[0-9]+$/N/' | sort | uniq -c | sort -rn >&2
  fi
  tcp="-"
  if [ "$n" -ge 3 ]; then
    ip netns exec "${prefix}3" iperf3 -s -1 -p 5303 >/dev/null 2>&1 & s=$!
    sleep 0.5
    tcp=$(ip netns exec "${prefix}2" iperf3 -c "$(address 3 "$n")" -p 5303 -t "$secs" -J \
      | python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))') || tcp="failed"
    wait "$s" || true
  fi
  echo "exit 0" >&3
  exec 3>&-
  wait "$app" 2>/dev/null || true
  kill "$holder" 2>/dev/null || true
  rows+=("$(printf '%6d %9s %9s %7d %10.1f %9.2f %8d %9.2f %10s' "$n" "$up" "$pinged" "$failed" \
    "$(echo "$rss / 1024" | bc -l)" "$(echo "$rss / 1024 / $n" | bc -l)" "$threads" \
    "$(echo "$threads / $n" | bc -l)" "$tcp")")
done
printf '%6s %9s %9s %7s %10s %9s %8s %9s %10s\n' hosts "start s" "ping s" unreach "RSS MB" "MB/host" threads \
  "thr/host" "TCP Gb/s"
printf '%s\n' "${rows[@]}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M UTC')"
