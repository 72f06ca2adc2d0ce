#!/usr/bin/env python3
"""Instructions per `tools/call` of the Swift bench server (bindings-swift/bench's `EchoServer`),
counted by callgrind, sequential, pipelined or over many HTTP connections.

The Swift runtime of scripts/swift's trixie root is newer than the host's C library, so the
server runs through the root's dynamic loader (`ld-linux-x86-64.so.2 --library-path ...`) under
the host's valgrind. valgrind (3.19, and trixie's 3.24) edits `rt_sigsuspend`'s mask in place,
and libdispatch passes a read-only one: the process gets `LD_PRELOAD` of a small shim whose
`sigsuspend` passes a copy (compiled here with `cc`). A Rust server (e.g.
target/release/ferromcp-echo) runs directly, for the same loads side by side.

The requests are the bench driver's bytes (per_call.py's `Wire`); `WARMUP` calls first, then
the counters are zeroed, the counted calls made and the counters dumped; every thread of the
server counts. `FERROMCP_BENCH_HANDLER=official` in the environment selects the swift-sdk form
(bench/results/swift-sdk-form-handler.md), as for the bench row.

Loads:
  --mode stdio --inflight 1     one call at a time (initialize first)
  --mode stdio --inflight 64    64 calls written, then 64 answers read (as the pipelined phase)
  --mode http-json --clients 32 server mode `json`; each round writes one call on each of 32
                                keep-alive connections, then reads every answer

Usage:
  FERROMCP_BENCH_HANDLER=official bench/callgrind/swift_per_call.py \
      --bin bindings-swift/bench/.build/release/EchoServer --mode stdio --inflight 64 [--top 30]
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("per_call", os.path.join(HERE, "per_call.py"))
assert _spec and _spec.loader
per_call = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(per_call)

ROOT = os.environ.get("FERROMCP_SWIFT_ROOT", "/var/cache/ferromcp/swift-trixie")
LIBS = ":".join(
    os.path.join(ROOT, d)
    for d in (
        "usr/libexec/swift/lib/swift/linux",
        "usr/lib/x86_64-linux-gnu",
        "lib/x86_64-linux-gnu",
    )
)
SHIM = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return syscall(SYS_rt_sigsuspend, &copy, 8); }
"""


def build_shim(out_dir: str) -> str:
    src, lib = os.path.join(out_dir, "shim.c"), os.path.join(out_dir, "shim.so")
    with open(src, "w", encoding="utf-8") as f:
        f.write(SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", lib, src], check=True)
    return lib


class NoSend:
    """A socket that only reads (so per_call.Conn.exchange reads one answer)."""

    def __init__(self, sock) -> None:
        self.sock = sock

    def sendall(self, _data: bytes) -> None:
        pass

    def recv(self, n: int) -> bytes:
        return self.sock.recv(n)


def read_answer(conn) -> tuple[int, dict[str, str], bytes]:
    real = conn.sock
    conn.sock = NoSend(real)
    try:
        return conn.exchange(b"")
    finally:
        conn.sock = real


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bin", required=True, help="the server (a Swift EchoServer, or a Rust one)")
    ap.add_argument("--mode", required=True, choices=["stdio", "http-json"])
    ap.add_argument("--inflight", type=int, default=1, help="stdio: calls written per batch")
    ap.add_argument("--clients", type=int, default=32, help="http-json: connections")
    ap.add_argument("--calls", type=int, default=2048, help="calls counted (default 2048)")
    ap.add_argument("--warmup", type=int, default=256, help="calls first (default 256)")
    ap.add_argument("--top", type=int, default=0, help="also print the top N functions, per call")
    ap.add_argument("--by", choices=["inclusive", "self"], default="self")
    ap.add_argument("--keep", help="directory to keep the callgrind dump in")
    args = ap.parse_args()

    out_dir = args.keep or tempfile.mkdtemp(prefix="swift-per-call-")
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.abspath(args.bin)
    needed = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout
    swift = "libswiftCore.so" in needed
    loader = (
        [os.path.join(ROOT, "lib64/ld-linux-x86-64.so.2"), "--library-path", LIBS] if swift else []
    )
    env = dict(os.environ)
    env["LD_PRELOAD"] = build_shim(out_dir)
    stdio = args.mode == "stdio"
    port = per_call.free_port()
    cmd = (
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_dir}/callgrind.out"]
        + loader
        + [binary]
        + (["stdio"] if stdio else ["http", str(port), "json"])
    )
    pipe = subprocess.PIPE if stdio else subprocess.DEVNULL
    with open(os.path.join(out_dir, "stderr"), "w", encoding="utf-8") as err:
        proc = subprocess.Popen(cmd, stdin=pipe, stdout=pipe, stderr=err, env=env)
    wire = per_call.Wire()
    next_id = [1]
    try:
        if stdio:
            sconn = per_call.StdioConn(proc)
            if b'"result"' not in sconn.exchange(wire.initialize_body(), 0):
                sys.exit("swift_per_call.py: initialize failed")
            sconn.exchange(wire.initialized.encode(), None)
            per_batch = args.inflight

            def batch() -> None:
                ids = range(next_id[0], next_id[0] + per_batch)
                next_id[0] += per_batch
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(b"".join(wire.call_body(i, False) + b"\n" for i in ids))
                proc.stdin.flush()
                got = 0
                while got < per_batch:
                    line = proc.stdout.readline()
                    if not line:
                        sys.exit(f"swift_per_call.py: the server closed its stdout ({proc.poll()})")
                    if b'"bench-' in line:
                        got += 1

        else:
            per_call.wait_port(port, proc, 120)
            conns = [per_call.Conn(port) for _ in range(args.clients)]
            per_batch = args.clients

            def batch() -> None:
                ids = []
                for c in conns:
                    ids.append(next_id[0])
                    c.sock.sendall(
                        wire.request(port, wire.call_body(next_id[0], False), False, None)
                    )
                    next_id[0] += 1
                for c, i in zip(conns, ids):
                    status, _, body = read_answer(c)
                    if status != 200 or f'"bench-{i}"'.encode() not in body:
                        sys.exit(f"swift_per_call.py: call {i} answered {status}: {body[:300]!r}")

        for _ in range(max(1, args.warmup // per_batch)):
            batch()
        per_call.control("-z", proc.pid)
        rounds = max(1, args.calls // per_batch)
        for _ in range(rounds):
            batch()
        per_call.control("-d", proc.pid)
        dumps = sorted(glob.glob(f"{out_dir}/callgrind.out.*"))
        if not dumps:
            sys.exit("callgrind wrote no dump")
        ir = per_call.totals(dumps[-1])
        calls = rounds * per_batch
        load = f"{args.inflight} in flight" if stdio else f"{args.clients} connections"
        handler = env.get("FERROMCP_BENCH_HANDLER", "default")
        print(
            f"{args.mode}, {load}: {ir / calls:,.0f} instructions per call "
            f"({ir:,} over {calls} calls; handler {handler}; {args.bin})"
        )
        if args.top:
            per_call.print_top(dumps[-1], ir, calls, args.top, args.by)
    finally:
        per_call.stop([proc], out_dir, bool(args.keep))


if __name__ == "__main__":
    main()
