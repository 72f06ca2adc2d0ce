#!/usr/bin/env python3
"""Instructions per forwarded `tools/call` of `ferromcp proxy`, counted by callgrind.

Runs `ferromcp proxy` under `valgrind --tool=callgrind` in front of the bench echo server
(`ferromcp-echo`, not instrumented: only the proxy process is counted), sends it the bench
driver's `tools/call echo` (the bytes of `per_call.py`'s `Wire`, read from the driver's sources)
one at a time, and prints the instructions the proxy executed per call: `WARMUP` calls first,
then the counters are zeroed (`callgrind_control -z`), `CALLS` calls are made and the counters
dumped (`callgrind_control -d`).

Front (how this script reaches the proxy) and backend (how the proxy reaches the echo server):
  --front stdio   `ferromcp proxy --stdio`: newline-delimited JSON on the proxy's stdin/stdout
  --front http    `ferromcp proxy --port P`: Streamable HTTP, a handshake session (SSE answers)
  --backend stdio the echo server as the proxy's child (`ferromcp-echo stdio`)
  --backend http  the echo server on its own port (`ferromcp-echo http PORT stateful`)

Usage:
  bench/callgrind/proxy_per_call.py --ferromcp target/release/ferromcp \
      --echo target/release/ferromcp-echo --front stdio --backend stdio [--calls 800] [--top 30]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("per_call", os.path.join(HERE, "per_call.py"))
assert _spec and _spec.loader
per_call = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(per_call)


class StdioFront:
    """The proxy's stdin/stdout, one JSON-RPC message a line."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc

    def send(self, body: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(body + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> bytes:
        assert self.proc.stdout
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("proxy_per_call.py: the proxy closed its stdout")
        return line


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--ferromcp", required=True, help="the ferromcp binary")
    ap.add_argument("--echo", required=True, help="the ferromcp-echo binary")
    ap.add_argument("--front", choices=["stdio", "http"], required=True)
    ap.add_argument("--backend", choices=["stdio", "http"], required=True)
    ap.add_argument("--calls", type=int, default=800)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--top", type=int, default=0, help="callgrind_annotate's top N, per call")
    ap.add_argument("--by", choices=["inclusive", "self"], default="inclusive")
    ap.add_argument("--keep", help="directory to keep the callgrind dump in")
    args = ap.parse_args()

    wire = per_call.Wire()
    out_dir = args.keep or tempfile.mkdtemp(prefix="proxy-per-call-")
    os.makedirs(out_dir, exist_ok=True)
    children: list[subprocess.Popen] = []
    echo = os.path.abspath(args.echo)
    if args.backend == "stdio":
        server = {"command": echo, "args": ["stdio"]}
    else:
        echo_port = per_call.free_port()
        backend = subprocess.Popen(
            [echo, "http", str(echo_port), "stateful"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        children.append(backend)
        per_call.wait_port(echo_port, backend, 60)
        server = {"url": f"http://127.0.0.1:{echo_port}/mcp"}
    cfg = os.path.join(out_dir, "mcp.json")
    with open(cfg, "w", encoding="utf-8") as f:
        json.dump({"mcpServers": {"echo": server}}, f)
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_dir}/callgrind.out",
        os.path.abspath(args.ferromcp),
        "proxy",
        "--config",
        cfg,
    ]
    port = per_call.free_port()
    cmd += ["--stdio"] if args.front == "stdio" else ["--port", str(port)]
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE if args.front == "stdio" else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children.insert(0, proc)
    try:
        if args.front == "stdio":
            front = StdioFront(proc)
            front.send(wire.initialize_body())
            front.answer()
            front.send(wire.initialized.encode())

            def call(id_: int) -> None:
                front.send(wire.call_body(id_, False))
                body = front.answer()
                if f'"bench-{id_}"'.encode() not in body:
                    sys.exit(f"proxy_per_call.py: call {id_} answered {body[:300]!r}")

        else:
            per_call.wait_port(port, proc, 120)
            conn = per_call.Conn(port)
            status, headers, body = conn.exchange(
                wire.request(port, wire.initialize_body(), False, None)
            )
            if status != 200:
                sys.exit(f"proxy_per_call.py: initialize answered {status}: {body[:300]!r}")
            session = headers.get("mcp-session-id")
            conn.exchange(wire.request(port, wire.initialized.encode(), False, session))

            def call(id_: int) -> None:
                req = wire.request(port, wire.call_body(id_, False), False, session)
                status, _, body = conn.exchange(req)
                if status != 200 or f'"bench-{id_}"'.encode() not in body:
                    sys.exit(f"proxy_per_call.py: call {id_} answered {status}: {body[:300]!r}")

        ir, dump = per_call.measure(proc, call, args.warmup, args.calls, out_dir)
        print(
            f"front {args.front}, backend {args.backend}: {ir / args.calls:,.0f} instructions "
            f"per call ({ir:,} over {args.calls} calls; {args.ferromcp})"
        )
        if args.top:
            per_call.print_top(dump, ir, args.calls, args.top, args.by)
    finally:
        per_call.stop(children, out_dir, bool(args.keep))


if __name__ == "__main__":
    main()
