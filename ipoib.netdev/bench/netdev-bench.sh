#!/usr/bin/env bash
# The netdev benchmark (./ipoib bench netdev): iperf3 between two hosts in network namespaces
#   bridge:    h1 -> TUN -> ipoib.netdev -> ARP/ND, IPoIB link, loopback fabric -> ipoib.netdev -> TUN -> h2,
#              with the devices' checksum and TCP segmentation offload (the default), then without it
#   baseline:  nb1 -> TUN -> a minimal Java forwarder (TunForwarder: read one device, write the other) -> TUN -> nb2
# measured in the same run: TCP throughput (iperf3 -t SECONDS) and UDP packets/s with 64-octet
# datagrams (iperf3 -u -b 0 -l 64), received rate. Prints a table with the ratios.
# Needs root, /dev/net/tun, iproute2, iperf3, python3. SECONDS: NETDEV_BENCH_SECONDS (default 5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${NETDEV_BENCH_SECONDS:-5}"
java="$JAVA_HOME/bin/java"
jar="$(ls "$root"/ipoib.netdev/target/ipoib.netdev-*.jar | head -n 1)"
appliance="$root/ipoib.appliance/target/ipoib.jar"
[ "$(id -u)" -eq 0 ] || { echo "netdev bench: needs root (network namespaces, TUN devices)" >&2; exit 2; }
for tool in ip iperf3 python3; do
  command -v "$tool" >/dev/null || { echo "netdev bench: needs $tool (apt-get install iproute2 iperf3 python3)" >&2; exit 2; }
done
for ns in nb1 nb2 h1 h2; do
  [ ! -e "/run/netns/$ns" ] || { echo "netdev bench: namespace $ns exists (ip netns del $ns)" >&2; exit 2; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for ns in nb1 nb2; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

tcp() { # ns server -> bits/s received
  ip netns exec "$3" iperf3 -s -1 -p 5301 >/dev/null 2>&1 & local s=$!
  sleep 0.5
  ip netns exec "$1" iperf3 -c "$2" -p 5301 -t "$secs" -J \
    | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))'
  wait "$s" || true
}
udp() { # ns server -> datagrams/s received (64-octet payload)
  ip netns exec "$3" iperf3 -s -1 -p 5302 >/dev/null 2>&1 & local s=$!
  sleep 0.5
  ip netns exec "$1" iperf3 -c "$2" -p 5302 -u -b 0 -l 64 -t "$secs" -J \
    | python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]["sum"]; print(int((e["packets"]-e["lost_packets"])/e["seconds"]))'
  wait "$s" || true
}

echo "netdev bench: baseline (Java TUN-to-TUN forwarder), ${secs} s per figure" >&2
ip netns add nb1; ip netns add nb2
"$java" --enable-native-access=ALL-UNNAMED -cp "$jar" ipoib.netdev.internal.TunForwarder nb1 nb2 $((2 * secs + 30)) \
  > "$work/fwd.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q ready "$work/fwd.log" && break; sleep 0.1; done
grep -q ready "$work/fwd.log" || { cat "$work/fwd.log" >&2; exit 1; }
base_tcp="$(tcp nb1 10.1.0.2 nb2)"
base_udp="$(udp nb1 10.1.0.2 nb2)"
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
ip netns del nb1; ip netns del nb2

echo "netdev bench: bridge (./ipoib --hosts 2)" >&2
mkfifo "$work/in"
sleep $((6 * secs + 180)) > "$work/in" & pids+=($!)
"$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dipoib.defaults=false -Dipoib.hosts=2 \
  -jar "$appliance" < "$work/in" > "$work/appliance.log" 2>&1 & pids+=($!)
exec 3> "$work/in"
echo "ipoib:netdev await 60" >&3
for _ in $(seq 600); do grep -q "ib1_1_ffff: device ib0" "$work/appliance.log" && break; sleep 0.1; done
grep -q "ib1_1_ffff: device ib0" "$work/appliance.log" || { cat "$work/appliance.log" >&2; exit 1; }
ip netns exec h1 ping -c 1 -W 5 10.0.0.2 >/dev/null
bridge_tcp="$(tcp h1 10.0.0.2 h2)"
bridge_udp="$(udp h1 10.0.0.2 h2)"
echo "ipoib:netdev" >&3

echo "netdev bench: bridge without offload (ipoib:netdev add ... offload off)" >&2
for k in 1 2; do
  echo "ipoib:netdev del ib$((k - 1))_1_ffff" >&3
  echo "ipoib:netdev add ib$((k - 1))_1_ffff netns h$k dev ib0 offload off 10.0.0.$k/24" >&3
done
echo "ipoib:netdev await 60" >&3
for _ in $(seq 600); do grep -q "ib1_1_ffff: device ib0 .*offload off" "$work/appliance.log" && break; sleep 0.1; done
grep -q "ib1_1_ffff: device ib0 .*offload off" "$work/appliance.log" || { cat "$work/appliance.log" >&2; exit 1; }
ip netns exec h1 ping -c 1 -W 5 10.0.0.2 >/dev/null
plain_tcp="$(tcp h1 10.0.0.2 h2)"
plain_udp="$(udp h1 10.0.0.2 h2)"
echo "exit 0" >&3
exec 3>&-
wait "${pids[2]}" 2>/dev/null || true
grep -A3 "^g! ib0_1_ffff: device" "$work/appliance.log" | sed 's/^g! //' >&2 || true

python3 - "$base_tcp" "$bridge_tcp" "$plain_tcp" "$base_udp" "$bridge_udp" "$plain_udp" <<'PY'
import sys
bt, rt, pt, bu, ru, pu = map(int, sys.argv[1:])
print("%-56s %14s %14s %7s" % ("benchmark (iperf3, h1 -> h2)", "bridge", "baseline", "ratio"))
print("%-56s %9.0f Mb/s %9.0f Mb/s %7.2f" % ("TCP throughput, offload (default)", rt / 1e6, bt / 1e6, rt / bt))
print("%-56s %9.0f Mb/s %9.0f Mb/s %7.2f" % ("TCP throughput, offload off", pt / 1e6, bt / 1e6, pt / bt))
print("%-56s %9d pk/s %9d pk/s %7.2f" % ("UDP 64-octet datagrams received, offload (default)", ru, bu, ru / bu))
print("%-56s %9d pk/s %9d pk/s %7.2f" % ("UDP 64-octet datagrams received, offload off", pu, bu, pu / bu))
PY
