#!/usr/bin/env bash
# A redis-server (no persistence) on 127.0.0.1:PORT that a test running where it cannot start one
# itself (inside scripts/swift's root, which has no redis-server) may kill and start again, empty,
# on the same port, as the Python and Node tests do with their own process:
#   - the test creates DIR/stop: the server is killed (SIGKILL), DIR/state becomes `down`, then
#     DIR/stop is removed;
#   - the test creates DIR/start: a new server is started and accepts connections, DIR/state
#     becomes `up`, then DIR/start is removed.
# So a test waits for its request file to go. DIR/state is `up` once the first server accepts
# connections. SIGTERM or SIGINT stops the server and ends this script. tests/run-swift.sh runs it
# for the Swift tests (FERROMCP_TEST_REDIS_URL, FERROMCP_TEST_REDIS_CONTROL=DIR).
#
#   tests/redis-restartable.sh PORT DIR
set -u
port="$1" dir="$2"
mkdir -p "$dir"
pid=
stop() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap 'stop; exit 0' TERM INT
state() { echo "$1" > "$dir/state.new" && mv "$dir/state.new" "$dir/state"; }

start() {
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
  pid=$!
  for _ in $(seq 500); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
  done
  echo "redis-restartable: redis-server did not start on port $port" >&2
  return 1
}

while :; do
  start || { stop; state failed; rm -f "$dir/start"; exit 1; }
  state up
  rm -f "$dir/start"
  while [ ! -e "$dir/stop" ]; do sleep 0.05; done
  stop
  state down
  rm -f "$dir/stop"
  while [ ! -e "$dir/start" ]; do sleep 0.05; done
done
