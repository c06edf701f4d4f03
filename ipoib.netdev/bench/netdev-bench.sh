#!/usr/bin/env bash
# The netdev benchmark (./ipoib bench netdev): iperf3 between two hosts in network namespaces,
# the stack against the kernel's own link, measured in the same run:
#   veth:   nv1 <-> nv2, a veth pair (what Mininet joins its hosts with), at the row's MTU
#   stack:  h1 -> TUN -> ipoib.netdev -> ARP, IPoIB link, loopback fabric -> ipoib.netdev -> TUN -> h2
#           (./ipoib --hosts 2, offload on), in datagram mode (MTU 2044), then both interfaces in
#           connected mode (MTU 65520)
#   TUN:    nf1 -> TUN -> TUN -> nf2, the bridge's device code and threads with nothing between
#           (ipoib.netdev.internal.TunForwarder, offload on, at the row's MTU): the ceiling of any
#           bridge through TUN devices, which copy every packet into and out of the process
# All three are set up first and kept. The machine's speed drifts from minute to minute, so each
# row is measured in ROUNDS rounds, each round one run of each back to back, the order rotating;
# the ratios are taken per round.
# Rows: datagram mode TCP at MTU 2044 and UDP with 64-octet datagrams; then both interfaces switch
# to connected mode and the veth pair to MTU 65520, and connected-mode TCP.
# Not counted: the stack's TCP warm-up (until two runs agree within a quarter, at most 6), one TUN
# TCP run and one UDP run before the datagram rows, one TCP run after the switch to connected mode.
# Figures: TCP throughput and the sender's retransmitted segments (iperf3 -t SECONDS), and UDP
# with 64-octet datagrams (iperf3 -u -b 0 -l 64): datagrams/s received and the share lost.
# Prints per row the medians of veth, the stack and TUN (TCP: the retransmits summed over the
# rounds; UDP: the loss of the median run), the median of the per-round ratios stack / veth, their
# range and the target, and the medians of TUN / veth and stack / TUN. On stderr: a line per
# round (with the appliance's CPU time during the veth run), and the appliance's ipoib:netdev and
# ipoib:stats at the end.
# Needs root, /dev/net/tun, iproute2, iperf3, python3, and namespaces h1, h2, nv1, nv2, nf1, nf2 that
# do not exist yet. SECONDS: NETDEV_BENCH_SECONDS (default 5); ROUNDS: NETDEV_BENCH_ROUNDS (default 3,
# 1 to 20); IPOIB_APPLIANCE: the appliance jar to measure (default the one built here), e.g. to
# compare two builds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${NETDEV_BENCH_SECONDS:-5}"
rounds="${NETDEV_BENCH_ROUNDS:-3}"
java="$JAVA_HOME/bin/java"
appliance="${IPOIB_APPLIANCE:-$root/ipoib.appliance/target/ipoib.jar}"
[[ "$secs" =~ ^0*[0-9]{1,6}$ ]] && [ "$((10#$secs))" -ge 1 ] \
  || { echo "netdev bench: NETDEV_BENCH_SECONDS is '$secs'; it takes a whole number of seconds, 1 or more" >&2; exit 2; }
[[ "$rounds" =~ ^0*[0-9]{1,2}$ ]] && [ "$((10#$rounds))" -ge 1 ] && [ "$((10#$rounds))" -le 20 ] \
  || { echo "netdev bench: NETDEV_BENCH_ROUNDS is '$rounds'; it takes a whole number of rounds from 1 to 20" >&2; exit 2; }
secs=$((10#$secs)); rounds=$((10#$rounds))
[ "$(id -u)" -eq 0 ] || { echo "netdev bench: needs root (network namespaces, TUN devices)" >&2; exit 2; }
for tool in ip iperf3 python3; do
  command -v "$tool" >/dev/null || { echo "netdev bench: needs $tool (apt-get install iproute2 iperf3 python3)" >&2; exit 2; }
done
[ -f "$appliance" ] || { echo "netdev bench: no appliance jar at $appliance (./ipoib build)" >&2; exit 2; }
forwarder="$(ls "$root"/ipoib.netdev/target/ipoib.netdev-*.jar 2>/dev/null | grep -v -e -sources -e -javadoc | head -1)"
[ -n "$forwarder" ] || { echo "netdev bench: no ipoib.netdev jar in $root/ipoib.netdev/target (./ipoib build)" >&2; exit 2; }
for ns in nv1 nv2 nf1 nf2 h1 h2; do
  [ ! -e "/run/netns/$ns" ] || { echo "netdev bench: namespace $ns exists (ip netns del $ns)" >&2; exit 2; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for ns in nv1 nv2 nf1 nf2; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

tcp() { # client-ns server-address server-ns -> "bits/s retransmits" (the sender's, from TCP_INFO)
  ip netns exec "$3" iperf3 -s -1 -p 5301 >/dev/null 2>&1 & local s=$!
  sleep 0.5
  ip netns exec "$1" iperf3 -c "$2" -p 5301 -t "$secs" -J | python3 -c '
import json, sys
e = json.load(sys.stdin)["end"]
print(int(e["sum_received"]["bits_per_second"]), e["sum_sent"].get("retransmits", 0))'
  wait "$s" || true
}
udp() { # client-ns server-address server-ns -> "datagrams/s received, lost %" (64-octet payload)
  ip netns exec "$3" iperf3 -s -1 -p 5302 >/dev/null 2>&1 & local s=$!
  sleep 0.5
  ip netns exec "$1" iperf3 -c "$2" -p 5302 -u -b 0 -l 64 -t "$secs" -J | python3 -c '
import json, sys
e = json.load(sys.stdin)["end"]["sum"]
print(int((e["packets"] - e["lost_packets"]) / e["seconds"]), "%.1f" % e["lost_percent"])'
  wait "$s" || true
}
# Rounds of one row: veth, the stack and TUN back to back, the order rotating, one line per round
# "veth-figure veth-extra stack-figure stack-extra tun-figure tun-extra" in $work/ROW.
# The progress line also gives the CPU time the idle appliance took during the veth run (its
# waits spin briefly, then park), to see whether it disturbed the baseline.
orders=("veth stack tun" "stack tun veth" "tun veth stack")
row() { # row-name tcp|udp unit label
  local name="$1" kind="$2" unit="$3" label="$4" r v s f t0 t1 what
  for r in $(seq "$rounds"); do
    for what in ${orders[$(((r - 1) % 3))]}; do
      case "$what" in
        veth) t0="$(cpu_ticks)"; v="$("$kind" nv1 10.7.0.2 nv2)"; t1="$(cpu_ticks)" ;;
        stack) s="$("$kind" h1 10.0.0.2 h2)" ;;
        tun) f="$("$kind" nf1 10.8.0.2 nf2)" ;;
      esac
    done
    echo "$v $s $f" >> "$work/$name"
    python3 -c 'import sys; v, ve, s, se, f, fe, u, label, r, n, ticks = sys.argv[1:12]
print("netdev bench: %s round %s/%s: veth %.0f (%s), stack %.0f (%s), TUN %.0f (%s), stack / veth %.2f, TUN / veth %.2f; appliance CPU during the veth run %.2f s"
      % (label, r, n, int(v) / float(u), ve, int(s) / float(u), se, int(f) / float(u), fe, int(s) / int(v), int(f) / int(v),
         int(ticks) / float(sys.argv[12])))' \
      $v $s $f "$unit" "$label" "$r" "$rounds" $((t1 - t0)) "$(getconf CLK_TCK)" >&2
  done
}
cpu_ticks() { # the appliance's user and system CPU time so far, in clock ticks
  python3 -c 'import sys; f = open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split(); print(int(f[11]) + int(f[12]))' "${pids[1]}"
}

echo "netdev bench: veth pair nv1 <-> nv2, the stack (./ipoib --hosts 2) and TUN nf1 <-> nf2, ${rounds} rounds of ${secs} s per figure" >&2
ip netns add nv1; ip netns add nv2
ip link add vb1 netns nv1 type veth peer name vb2 netns nv2
for k in 1 2; do
  ip -n "nv$k" link set lo up
  ip -n "nv$k" addr add "10.7.0.$k/24" dev "vb$k"
  ip -n "nv$k" link set "vb$k" mtu 2044 up
done
ip netns exec nv1 ping -c 1 -W 5 10.7.0.2 >/dev/null

mkfifo "$work/in"
# Holds the appliance's input open while this script writes to it, and closes it if the script dies.
sleep $(((9 * rounds + 9) * (secs + 2) + 180)) > "$work/in" & pids+=($!)
"$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dipoib.defaults=false -Dipoib.hosts=2 \
  -Dorg.osgi.service.http.port=0 -jar "$appliance" < "$work/in" > "$work/appliance.log" 2>&1 & pids+=($!)
exec 3> "$work/in"
echo "ipoib:netdev await 60" >&3
for _ in $(seq 600); do grep -q "ib1_1_ffff: device ib0" "$work/appliance.log" && break; sleep 0.1; done
grep -q "ib1_1_ffff: device ib0" "$work/appliance.log" || { cat "$work/appliance.log" >&2; exit 1; }
ip netns exec h1 ping -c 1 -W 5 10.0.0.2 >/dev/null

ip netns add nf1; ip netns add nf2
mkfifo "$work/forwarder-in"
sleep $(((9 * rounds + 9) * (secs + 2) + 180)) > "$work/forwarder-in" & pids+=($!)
"$java" --enable-native-access=ALL-UNNAMED -cp "$forwarder" ipoib.netdev.internal.TunForwarder nf1 nf2 2044 \
  < "$work/forwarder-in" > "$work/forwarder.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q ready "$work/forwarder.log" && break; sleep 0.1; done
grep -q ready "$work/forwarder.log" || { cat "$work/forwarder.log" >&2; exit 1; }
ip netns exec nf1 ping -c 1 -W 5 10.8.0.2 >/dev/null

echo "netdev bench: datagram mode, MTU 2044" >&2
# Not counted: a fresh JVM runs the data path interpreted until the JIT has compiled it. That takes
# seconds, and on a loaded machine (the compiler threads share the CPUs) longer than one run: TCP
# moved 17-236 Mb/s per second in the first 1-5 s of fresh appliances, without a retransmission,
# then Gb/s. So TCP runs until two runs in a row agree within a quarter (at most 6 runs).
previous=0
for _ in $(seq 6); do
  current="$(tcp h1 10.0.0.2 h2 | cut -d' ' -f1)"
  echo "netdev bench: warm-up TCP $((current / 1000000)) Mb/s" >&2
  python3 -c 'import sys; p, c = map(int, sys.argv[1:]); sys.exit(0 if p > 0 and 4 * abs(c - p) <= c else 1)' \
    "$previous" "$current" && break
  previous="$current"
done
tcp nf1 10.8.0.2 nf2 >/dev/null
udp h1 10.0.0.2 h2 >/dev/null
row tcp-datagram tcp 1e6 "TCP datagram (Mb/s; retransmits)"
row udp-datagram udp 1 "UDP 64 octets (/s; lost %)"

echo "netdev bench: connected mode, MTU 65520" >&2
echo "ipoib:mode ib0_1_ffff connected" >&3
echo "ipoib:mode ib1_1_ffff connected" >&3
for k in 1 2; do ip -n "nv$k" link set "vb$k" mtu 65520; ip -n "nf$k" link set fwd0 mtu 65520; done
for _ in $(seq 300); do
  [ "$(ip -n h1 -o link show ib0 | grep -o 'mtu [0-9]*')" = "mtu 65520" ] \
    && [ "$(ip -n h2 -o link show ib0 | grep -o 'mtu [0-9]*')" = "mtu 65520" ] && break
  sleep 0.1
done
ip netns exec h1 ping -c 1 -W 5 10.0.0.2 >/dev/null
ip netns exec nv1 ping -c 1 -W 5 10.7.0.2 >/dev/null
ip netns exec nf1 ping -c 1 -W 5 10.8.0.2 >/dev/null
echo "netdev bench: warm-up TCP $(($(tcp h1 10.0.0.2 h2 | cut -d' ' -f1) / 1000000)) Mb/s" >&2
row tcp-connected tcp 1e6 "TCP connected (Mb/s; retransmits)"

echo "ipoib:netdev" >&3
echo "ipoib:stats" >&3
echo "exit 0" >&3
exec 3>&-
wait "${pids[1]}" 2>/dev/null || true
sed -n '/^g! ib0_1_ffff: device/,$p' "$work/appliance.log" | sed 's/^g! //' | grep -v '^$' >&2 || true

python3 - "$work" <<'PY'
import statistics, sys

def rounds(name):
    with open("%s/%s" % (sys.argv[1], name)) as f:
        return [line.split() for line in f if line.strip()]

def median_run(runs):
    # the run whose figure is the median; with an even count, the lower of the two middle ones
    return sorted(runs, key=lambda run: int(run[0]))[(len(runs) - 1) // 2]

def figures(runs, unit, summed):
    median = statistics.median(int(run[0]) for run in runs) / unit
    extra = str(sum(int(run[1]) for run in runs)) if summed else median_run(runs)[1] + " %"
    return "%12.0f (%7s)" % (median, extra)

rows = [
    ("TCP, datagram mode, MTU 2044 (Mb/s; retransmits, summed)", "tcp-datagram", 1e6, True, ">= 0.5"),
    ("TCP, connected mode, MTU 65520 (Mb/s; retransmits, summed)", "tcp-connected", 1e6, True, ">= 0.6"),
    ("UDP 64-octet datagrams received, MTU 2044 (/s; lost)", "udp-datagram", 1, False, ">= 0.3"),
]
count = len(rounds(rows[0][1]))
print("medians of %d round%s, each round veth, the stack and TUN back to back; ratios per round" % (count, "" if count == 1 else "s"))
print("%-60s %22s %22s %22s %6s %11s %7s %6s %6s" % ("benchmark (iperf3, host 1 -> host 2)", "veth", "stack", "TUN",
                                                   "stack/veth", "range", "target", "TUN/veth", "stack/TUN"))
for label, name, unit, summed, target in rows:
    measured = rounds(name)
    veth = [run[0:2] for run in measured]
    stack = [run[2:4] for run in measured]
    tun = [run[4:6] for run in measured]
    ratios = [int(run[2]) / int(run[0]) for run in measured]
    ceiling = statistics.median(int(run[4]) / int(run[0]) for run in measured)
    share = statistics.median(int(run[2]) / int(run[4]) for run in measured)
    print("%-60s %s %s %s %10.2f %5.2f-%-5.2f %7s %8.2f %9.2f" % (
        label, figures(veth, unit, summed), figures(stack, unit, summed), figures(tun, unit, summed),
        statistics.median(ratios), min(ratios), max(ratios), target, ceiling, share))
PY
