#!/usr/bin/env bash
# Runs Crewgraph as a cluster on five hosts of one machine and tests it end to end
# (tests/e2e/cluster.test.mjs): network namespaces it makes itself (ip netns + veth,
# on a bridge of its own; every address on a private /24 inside them), so each part
# talks to the others over a network as on separate machines:
#
#   this namespace 10.213.N.1   PostgreSQL and Redis (and the tests, and Chromium)
#   cg-api-PID     10.213.N.10  crewgraph serve --queue … --store … (the API node, with the web UI)
#   cg-w1..3-PID   10.213.N.21… crewgraph worker --queue … --store … --health …
#
# Runs started on the API node are executed by the three workers; Chromium watches
# one live through the API node. Everything it made — processes, databases,
# namespaces, the bridge — is removed on exit. Needs root (namespaces, a bridge).
# Screenshots and logs land in target/e2e-cluster/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/target/e2e-cluster"
cli="$root/target/debug/crewgraph"
chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$cli" ] || { echo "run-cluster.sh: $cli is not built" >&2; exit 1; }
[ -f "$root/ui/dist/index.html" ] || { echo "run-cluster.sh: the web UI is not built (cd ui && npm run build)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "run-cluster.sh: it makes network namespaces and a bridge, which needs root" >&2; exit 1; }
command -v ip >/dev/null || { echo "run-cluster.sh: ip (iproute2) is not installed (make test-deps)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "run-cluster.sh: redis-server is not installed (make test-deps)" >&2; exit 1; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "run-cluster.sh: PostgreSQL's programs are not installed (make deps)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

# A subnet and names of this run's own (interface names have at most 15 characters).
tag=$(($$ % 100000))
net="10.213.$(($$ % 250 + 1))"
bridge="cgbr$tag"
hosts=(api w1 w2 w3)
declare -A address=([api]="$net.10" [w1]="$net.21" [w2]="$net.22" [w3]="$net.23")

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -d "$work/pg" ]; then runuser -u nobody -- "$pgbin/pg_ctl" stop -D "$work/pg" -m immediate -s >/dev/null 2>&1 || true; fi
  for host in "${hosts[@]}"; do ip netns delete "cg-$host-$tag" 2>/dev/null || true; done
  ip link delete "$bridge" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The network: a bridge here, and one namespace per host joined to it by a veth pair.
ip link add "$bridge" type bridge
ip addr add "$net.1/24" dev "$bridge"
ip link set "$bridge" up
for host in "${hosts[@]}"; do
  ns="cg-$host-$tag"
  ip netns add "$ns"
  ip link add "cgv$tag$host" type veth peer name eth0 netns "$ns"
  ip link set "cgv$tag$host" master "$bridge" up
  ip -n "$ns" addr add "${address[$host]}/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done

# A free port here, asked of the kernel.
free_port() { node -e 'const s = require("net").createServer().listen(0, process.argv[1], () => { console.log(s.address().port); s.close(); })' "$1"; }

# PostgreSQL on the bridge's address, trusting the hosts of this subnet only.
pg_port=$(free_port "$net.1")
mkdir "$work/pg" "$work/pgsock" && chown nobody "$work/pg" "$work/pgsock"
runuser -u nobody -- "$pgbin/initdb" -D "$work/pg" -U crewgraph --auth=trust -E UTF8 --locale=C --no-sync >"$out/initdb.log"
echo "host all all $net.0/24 trust" >>"$work/pg/pg_hba.conf"
runuser -u nobody -- "$pgbin/pg_ctl" start -D "$work/pg" -l "$work/pg/log" -W -s \
  -o "-p $pg_port -k $work/pgsock -c listen_addresses=$net.1 -c fsync=off -c synchronous_commit=off -c max_connections=200"
for _ in $(seq 600); do "$pgbin/pg_isready" -q -h "$net.1" -p "$pg_port" && break; sleep 0.1; done
"$pgbin/pg_isready" -q -h "$net.1" -p "$pg_port" || { echo "run-cluster.sh: PostgreSQL did not start:" >&2; cat "$work/pg/log" >&2; exit 1; }
"$pgbin/createdb" -h "$net.1" -p "$pg_port" -U crewgraph crewgraph
store="postgres://crewgraph@$net.1:$pg_port/crewgraph"

# Redis on the bridge's address, nothing saved; open to the hosts of this private subnet
# (protected mode would refuse every address but loopback).
redis_port=$(free_port "$net.1")
redis-server --bind "$net.1" --port "$redis_port" --protected-mode no --save "" --appendonly no --dir "$work" >"$out/redis.log" 2>&1 &
pids+=($!)
queue="redis://$net.1:$redis_port"
# Up when it answers PING; at most a minute.
for _ in $(seq 600); do
  [ "$(redis-cli -h "$net.1" -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
  sleep 0.1
done
[ "$(redis-cli -h "$net.1" -p "$redis_port" ping 2>/dev/null)" = PONG ] || { echo "run-cluster.sh: Redis did not start:" >&2; cat "$out/redis.log" >&2; exit 1; }

# The crews every host has, at the same path (the examples and the interview crew).
crews="$work/crews"
mkdir -p "$crews"
ln -s "$root/.tools" "$work/.tools"
cp -r "$root/crews/." "$crews/"
cp "$root/tests/e2e/fixtures/interview.yaml" "$crews/"
cp "$root/tests/e2e/fixtures/interview-script.yaml" "$crews/scripts/interview.yaml"

token=$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')
# Up when `url` answers, while process `pid` lives; at most a minute (a busy machine).
wait_up() {
  node -e '
    const [url, pid] = process.argv.slice(1);
    const deadline = Date.now() + 60000;
    const alive = () => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
    (async () => {
      while (Date.now() < deadline && alive()) {
        if (await fetch(url).then((r) => r.status < 500, () => false)) process.exit(0);
        await new Promise((r) => setTimeout(r, 100));
      }
      process.exit(1);
    })();' "$1" "$2"
}

# The API node, in its namespace, on its host's address.
ip netns exec "cg-api-$tag" env -u CREWGRAPH_STORE -u CREWGRAPH_QUEUE CREWGRAPH_DB="$work/unused.db" \
  "$cli" serve --addr "${address[api]}:7878" --token "$token" --store "$store" --queue "$queue" --sweep-every 2 \
  --crews "$crews" --ui "$root/ui/dist" >"$out/api.log" 2>&1 &
pids+=($!)
wait_up "http://${address[api]}:7878/health" "${pids[-1]}" || { echo "run-cluster.sh: the API node did not start:" >&2; cat "$out/api.log" >&2; exit 1; }

# Three workers, each in its own namespace.
workers=()
for host in w1 w2 w3; do
  ip netns exec "cg-$host-$tag" env -u CREWGRAPH_STORE -u CREWGRAPH_QUEUE \
    "$cli" worker --queue "$queue" --store "$store" --crews "$crews" --id "worker-$host" \
    --health "${address[$host]}:7879" --concurrency 32 >"$out/$host.out" 2>"$out/$host.log" &
  pids+=($!)
  wait_up "http://${address[$host]}:7879/health" "${pids[-1]}" || { echo "run-cluster.sh: worker $host did not start:" >&2; cat "$out/$host.log" >&2; exit 1; }
  workers+=("http://${address[$host]}:7879/health")
done

E2E_URL="http://${address[api]}:7878" E2E_TOKEN="$token" E2E_WORKERS="${workers[*]}" E2E_OUT="$out" CHROMIUM="$chromium" \
  node --test --test-concurrency=1 "$root/tests/e2e/cluster.test.mjs"
