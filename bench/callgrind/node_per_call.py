#!/usr/bin/env python3
"""Instructions per `tools/call` of the Node binding's echo server, counted by callgrind.

Runs `node bindings-node/bench/echo_server.mjs` of a binding directory (laid out as
bindings-node: `bench/echo_server.mjs`, `native/index.js`, `dist/`) under
`valgrind --tool=callgrind` and counts every thread of the process (V8's too): `--warmup`
calls first (V8's JIT settles: use a few thousand), then the counters are zeroed, `--calls`
calls are made and the counters dumped. Callgrind counts no kernel work.

Loads (the bench driver's request bytes, read from its sources by per_call.py):
  stdio      64 requests in flight (`--depth`), refills written whenever a read drains, as
             mcp-bench's pipelined phase; `--depth 1` is the sequential phase
  http-json  `--clients` keep-alive connections (default 32), each a closed loop, server mode
             `json` (stateless, JSON answers)

FERROMCP_BENCH_HANDLER in the environment picks the handler's form (`official`: the official
TypeScript SDK's examples' form).

Usage:
  FERROMCP_BENCH_HANDLER=official bench/callgrind/node_per_call.py --dir bindings-node --mode stdio
  ... --mode http-json --clients 32 --calls 3000 --warmup 3000 --top 30
"""

from __future__ import annotations

import argparse
import glob
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import per_call  # noqa: E402


def stdio_load(proc: subprocess.Popen, wire: per_call.Wire, depth: int):
    """The stdio handshake; returns run(n), which makes n calls with `depth` in flight."""
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    state = {"buf": b"", "id": 1}

    def lines() -> list[bytes]:
        while True:
            data = os.read(fd, 262144)
            if not data:
                sys.exit(f"node_per_call.py: the server closed its stdout (exit {proc.poll()})")
            state["buf"] += data
            if b"\n" in state["buf"]:
                *done, state["buf"] = state["buf"].split(b"\n")
                return done

    def send(b: bytes) -> None:
        proc.stdin.write(b)
        proc.stdin.flush()

    def next_call() -> bytes:
        state["id"] += 1
        return wire.call_body(state["id"] - 1, False)

    send(wire.initialize_body() + b"\n")
    while not any(b'"id":0' in line for line in lines()):
        pass
    send(wire.initialized.encode() + b"\n")

    def run(n: int) -> None:
        sent = done = 0
        out = []
        while sent < min(n, depth):
            out.append(next_call())
            sent += 1
        send(b"\n".join(out) + b"\n")
        while done < n:
            out = []
            for line in lines():
                if b'"result"' not in line or b'"bench-' not in line:
                    sys.exit(f"node_per_call.py: answered {line[:300]!r}")
                done += 1
                if sent < n:
                    out.append(next_call())
                    sent += 1
            if out:
                send(b"\n".join(out) + b"\n")

    return run


class HttpConn:
    """One keep-alive connection of the closed loop (JSON answers with a content-length)."""

    def __init__(self, port: int, wire: per_call.Wire, ids: list[int]) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.port, self.wire, self.ids = port, wire, ids
        self.buf = b""
        self.id = 0

    def send(self) -> None:
        self.id = self.ids[0]
        self.ids[0] += 1
        self.sock.sendall(
            self.wire.request(self.port, self.wire.call_body(self.id, False), False, None)
        )

    def answered(self) -> bool:
        """Whether a whole answer is buffered (consumed and checked if so)."""
        if b"\r\n\r\n" not in self.buf:
            return False
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        n = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        if len(rest) < n:
            return False
        body, self.buf = rest[:n], rest[n:]
        if not head.startswith(b"HTTP/1.1 200") or f'"bench-{self.id}"'.encode() not in body:
            sys.exit(f"node_per_call.py: answered {head[:100]!r} {body[:300]!r}")
        return True


def http_load(port: int, wire: per_call.Wire, clients: int):
    ids = [1]
    conns = [HttpConn(port, wire, ids) for _ in range(clients)]
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c.sock, selectors.EVENT_READ, c)

    def run(n: int) -> None:
        sent = done = 0
        for c in conns[:n]:
            c.send()
            sent += 1
        while done < n:
            for key, _ in sel.select():
                c = key.data
                data = c.sock.recv(65536)
                if not data:
                    sys.exit("node_per_call.py: the server closed a connection")
                c.buf += data
                while c.answered():
                    done += 1
                    if sent < n:
                        c.send()
                        sent += 1

    return run


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dir", required=True, help="the binding directory (e.g. bindings-node)")
    ap.add_argument("--mode", required=True, choices=["stdio", "http-json"])
    ap.add_argument("--depth", type=int, default=64, help="stdio requests in flight (default 64)")
    ap.add_argument("--clients", type=int, default=32, help="HTTP connections (default 32)")
    ap.add_argument("--calls", type=int, default=3000, help="calls counted (default 3000)")
    ap.add_argument("--warmup", type=int, default=3000, help="calls before (default 3000)")
    ap.add_argument("--top", type=int, default=0, help="also print the top N functions per call")
    ap.add_argument("--by", choices=["inclusive", "self"], default="self")
    ap.add_argument("--keep", help="directory to keep the callgrind dump in")
    args = ap.parse_args()

    wire = per_call.Wire()
    out_dir = args.keep or tempfile.mkdtemp(prefix="node-per-call-")
    os.makedirs(out_dir, exist_ok=True)
    script = os.path.join(os.path.abspath(args.dir), "bench", "echo_server.mjs")
    port = per_call.free_port()
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_dir}/callgrind.out",
        os.environ.get("NODE", "node"),
        script,
    ] + (["stdio"] if args.mode == "stdio" else ["http", str(port), "json"])
    pipe = subprocess.PIPE if args.mode == "stdio" else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdin=pipe, stdout=pipe, stderr=subprocess.DEVNULL)
    try:
        if args.mode == "stdio":
            run = stdio_load(proc, wire, args.depth)
        else:
            per_call.wait_port(port, proc, 300)
            run = http_load(port, wire, args.clients)
        run(args.warmup)
        per_call.control("-z", proc.pid)
        started = time.time()
        run(args.calls)
        per_call.control("-d", proc.pid)
        dump = sorted(glob.glob(f"{out_dir}/callgrind.out*"))[-1]
        ir = per_call.totals(dump)
        load = f"depth {args.depth}" if args.mode == "stdio" else f"{args.clients} clients"
        print(
            f"{args.mode} ({load}): {ir / args.calls:,.0f} instructions per call "
            f"({ir:,} over {args.calls} calls, {time.time() - started:.0f} s; {script})"
        )
        if args.top:
            per_call.print_top(dump, ir, args.calls, args.top, args.by)
    finally:
        per_call.stop([proc], out_dir, bool(args.keep))


if __name__ == "__main__":
    main()
