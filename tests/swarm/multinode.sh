#!/usr/bin/env bash
# A three-node Swarm on one machine, for verdict's Swarm backend: each node is a dockerd in a
# network namespace of its own with its own address (10.213.0.11-13 on a bridge this script
# makes), joined into one swarm, with a registry on the host side (10.213.0.1). Everything is
# made by this script and torn down at its end; no traffic leaves the namespaces and the bridge,
# and the machine's own engine is only read from (the demo's images are copied out of it).
#
#   sudo bash tests/swarm/multinode.sh          # the fault run: kill one worker's engine mid-run
#   sudo bash tests/swarm/multinode.sh bench    # wall time of the same slice on 1 and on 3 nodes
#   sudo bash tests/swarm/multinode.sh overhead # cargo bench --bench swarm on node 1 alone
#
# The fault run evaluates the demo's Python instances with --backend swarm, SIGKILLs the engine
# of a worker while it runs jobs, and checks that every instance still gets its true outcome
# (the `expected` of its fixture): the jobs of the dead node are run again on another one.
# Needs root, dockerd, docker-registry, iproute2, python3, and the demo's images on the local
# engine (`cargo test` or `cargo run -- build` makes them).
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=${1:-faults}
net=10.213.0
bridge=vdn-br$$
work=$(mktemp -d /tmp/verdict-multinode.XXXXXX)
port=5213
ids=verdict-demo__pycalc-1,verdict-demo__pycalc-2,verdict-demo__pycalc-3,verdict-demo__pycalc-4,verdict-demo__textkit-1,verdict-demo__textkit-2,verdict-demo__textkit-3,verdict-demo__textkit-4
say() { printf 'multinode: %s\n' "$*" >&2; }

pids=()
teardown() {
  set +e
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 3
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
  for i in 1 2 3; do
    ip netns pids "vdn$$-$i" 2>/dev/null | xargs -r kill -9
    ip netns del "vdn$$-$i" 2>/dev/null
  done
  iptables -D FORWARD -i "$bridge" -o "$bridge" -j ACCEPT 2>/dev/null
  ip link del "$bridge" 2>/dev/null
  # The nodes' network namespaces and overlay mounts stay mounted under $work after their
  # engines are killed: unmount them (deepest first) so the folder can go.
  grep " $work" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
  rm -rf "$work"
}
trap teardown EXIT

cargo build -q
verdict=$PWD/target/debug/verdict

say "network: bridge $bridge ($net.1) and three namespaces"
ip link add "$bridge" type bridge
ip addr add "$net.1/24" dev "$bridge"
ip link set "$bridge" up
# The host's engine sets the FORWARD policy to DROP, and bridged traffic passes through it when
# br_netfilter is loaded: let the nodes talk to each other over this bridge (removed at the end).
iptables -I FORWARD -i "$bridge" -o "$bridge" -j ACCEPT
for i in 1 2 3; do
  ns=vdn$$-$i
  ip netns add "$ns"
  ip link add "vdn$$-v$i" type veth peer name eth0 netns "$ns"
  ip link set "vdn$$-v$i" master "$bridge" up
  ip -n "$ns" addr add "$net.1$i/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
done

say "registry on $net.1:$port"
mkdir -p "$work/registry"
cat >"$work/registry/config.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $work/registry/data
http:
  addr: $net.1:$port
EOF
docker-registry serve "$work/registry/config.yml" >"$work/registry/log" 2>&1 &
pids+=($!)

node_host() { echo "unix://$work/n$1/docker.sock"; }
start_node() {
  local i=$1
  mkdir -p "$work/n$i"
  # nsenter, not `ip netns exec`: the latter remounts /sys, hiding the cgroup mounts dockerd needs.
  # A UTS namespace of its own too, so each node has its own host name (reports name the node).
  nsenter --net="/run/netns/vdn$$-$i" unshare --uts -- sh -c 'hostname "$0" && exec dockerd "$@"' "node$i" \
    --host "$(node_host "$i")" --data-root "$work/n$i/data" \
    --exec-root "$work/n$i/exec" --pidfile "$work/n$i/docker.pid" --bridge none --iptables=false \
    --ip6tables=false --ip-masq=false --insecure-registry "$net.1:$port" \
    --cgroup-parent "verdict-multinode-n$i" >"$work/n$i/dockerd.log" 2>&1 &
  pids+=($!)
  echo $! >"$work/n$i/pid"
  for _ in $(seq 1 120); do
    DOCKER_HOST=$(node_host "$i") docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  say "node $i did not start:"
  tail -5 "$work/n$i/dockerd.log" >&2
  exit 1
}
for i in 1 2 3; do start_node "$i"; done

say "swarm: node 1 manages, nodes 2 and 3 join"
DOCKER_HOST=$(node_host 1) docker swarm init --advertise-addr "$net.11" >/dev/null
token=$(DOCKER_HOST=$(node_host 1) docker swarm join-token -q worker)
for i in 2 3; do
  DOCKER_HOST=$(node_host "$i") docker swarm join --token "$token" "$net.11:2377" >/dev/null
done

say "copying the demo's Python images into the manager (verdict builds there, then pushes)"
images=$(docker images --format '{{.Repository}}:{{.Tag}}' | grep -E '^(verdict-os:bookworm|verdict-base-python:|verdict-env-python:|verdict-env-verdict-demo__(pycalc|textkit)-[^:]*:|verdict-instance-verdict-demo__(pycalc|textkit):)')
# shellcheck disable=SC2086
docker save $images | DOCKER_HOST=$(node_host 1) docker load -q >/dev/null

run() { # run-id, extra flags…
  local run_id=$1
  shift
  DOCKER_HOST=$(node_host 1) "$verdict" evaluate --backend swarm --registry "$net.1:$port" \
    --logs "$work/logs" --run-id "$run_id" --instance-ids "$ids" --timeout 10 "$@"
}

check() { # run-id: every instance has its fixture's expected outcome
  python3 - "$work/logs/$1/demo-model" <<'EOF'
import json, pathlib, sys, tomllib
root, bad = pathlib.Path(sys.argv[1]), []
for report in sorted(root.glob("*/report.json")):
    r = json.loads(report.read_text())
    iid = r["instance_id"]
    repo = iid.rsplit("-", 1)[0]
    meta = tomllib.loads((pathlib.Path("harness/demo/src") / repo / "instances" / iid / "instance.toml").read_text())
    ok = r["outcome"] == meta["expected"]
    print(f"  {iid:<32} {r['outcome']:<18} on {(r.get('run') or {}).get('node') or '-':<12} {'ok' if ok else 'WANTED ' + meta['expected']}")
    bad += [] if ok else [iid]
sys.exit(1 if bad else 0)
EOF
}

drain() { # node numbers: leave only the others to the scheduler
  for i in "$@"; do
    DOCKER_HOST=$(node_host 1) docker node update --availability drain "$(DOCKER_HOST=$(node_host "$i") docker info -f '{{.Swarm.NodeID}}')" >/dev/null
  done
}

if [ "$mode" = overhead ]; then
  drain 2 3
  DOCKER_HOST=$(node_host 1) VERDICT_REGISTRY="$net.1:$port" cargo bench --bench swarm
  exit 0
fi

if [ "$mode" = bench ]; then
  run warm -j 3 >"$work/warm.log" 2>&1 || true # pushes the images and warms every node's cache
  for i in 2 3; do DOCKER_HOST=$(node_host 1) docker node update --availability drain "$(DOCKER_HOST=$(node_host "$i") docker info -f '{{.Swarm.NodeID}}')" >/dev/null; done
  timed() { # run-id: runs it and keeps its output, shown when it fails
    run "$1" -j 3 >"$work/$1.log" 2>&1 || {
      cat "$work/$1.log" >&2
      python3 -c 'import json, sys
for p in sys.argv[1:]:
    r = json.load(open(p))
    print("  %s: %s: %s" % (r["instance_id"], r["outcome"], r.get("reason")), file=sys.stderr)' "$work/logs/$1"/*/*/report.json
      say "the $1 run failed"
      exit 1
    }
  }
  start=$(date +%s%N); timed one; one=$(( $(date +%s%N) - start ))
  for i in 2 3; do DOCKER_HOST=$(node_host 1) docker node update --availability active "$(DOCKER_HOST=$(node_host "$i") docker info -f '{{.Swarm.NodeID}}')" >/dev/null; done
  start=$(date +%s%N); timed three; three=$(( $(date +%s%N) - start ))
  check one && check three
  python3 -c "import sys; one, three = int(sys.argv[1]) / 1e9, int(sys.argv[2]) / 1e9; print(f'bench: 8 instances, -j 3: 1 node {one:.1f} s, 3 nodes {three:.1f} s, throughput ratio {one / three:.2f}')" "$one" "$three"
  exit 0
fi

say "fault run: evaluating, then killing node 3's engine once it runs a job"
run faults -j 3 >"$work/run.log" 2>&1 &
verdict_pid=$!
for _ in $(seq 1 600); do
  [ -n "$(DOCKER_HOST=$(node_host 3) docker ps -q --filter label=verdict.owned 2>/dev/null)" ] && break
  sleep 0.2
done
say "node 3 runs a job: SIGKILL to its dockerd"
kill -9 "$(cat "$work/n3/pid")"
status=0
wait "$verdict_pid" || status=$?
cat "$work/run.log" >&2
say "verdict exited with $status"
check faults
say "every instance got its true outcome"
