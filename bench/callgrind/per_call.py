#!/usr/bin/env python3
"""Instructions per HTTP `tools/call` of a bench server, counted by callgrind.

Starts a bench echo server (`BIN http PORT MODE`, the interface of every server in
`bench/servers`) under `valgrind --tool=callgrind`, sends it the bench driver's own requests
over one keep-alive connection, and prints the instructions the whole process executed per
call: `WARMUP` calls first, then the counters are zeroed (`callgrind_control -z`), `CALLS`
calls are made and the counters dumped (`callgrind_control -d`). Start-up, the handshake and
the warm-up are not counted; every thread of the server is.

The bytes sent are the driver's: the request head and the JSON bodies are read from the
driver's sources (`bench/driver/src/httpwire.rs` and `proto.rs`) at start, so a change there is
followed here (the script fails if it cannot find them).

Modes (as `mcp-bench --transports` names them):
  http-json         server `json`: stateless, JSON answers, handshake-era calls (no initialize)
  http-per-request  server `stateless`: 2026-07-28 calls (`_meta`, Mcp-Method, Mcp-Name)
  http-stateful     server `stateful`: initialize + notifications/initialized, then calls with
                    the session id (SSE answers)
  http-stateless    server `stateless`: handshake-era calls answered with SSE
  stdio             `BIN stdio`: initialize + notifications/initialized, then one call at a
                    time over the server's stdin and stdout (one JSON line each way)

Usage:
  bench/callgrind/per_call.py --bin target/release/ferromcp-echo --mode http-per-request
  bench/callgrind/per_call.py --bin target/release/ferromcp-echo --mode stdio
  bench/callgrind/per_call.py --bin ... --mode http-json --calls 800 --top 30 --keep /tmp/cg

The count is repeatable: the same binary and arguments give the same figure to within a few
instructions per call (the server's timers and the allocator's state are the only variation).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "bench", "driver", "src")

# mcp-bench transport -> (server mode argument, per-request era, handshake); stdio is apart
MODES = {
    "http-json": ("json", False, False),
    "http-per-request": ("stateless", True, False),
    "http-stateful": ("stateful", False, True),
    "http-stateless": ("stateless", False, False),
}
STDIO = "stdio"


def rust_format(fmt: str, named: dict[str, str], positional: list[str]) -> str:
    """Expands a Rust `format!` string: `{{`, `}}`, `{name}` and `{}`."""
    out = []
    pos = iter(positional)
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if fmt.startswith("{{", i) or fmt.startswith("}}", i):
            out.append(c)
            i += 2
        elif c == "{":
            end = fmt.index("}", i)
            name = fmt[i + 1 : end]
            out.append(next(pos) if name == "" else named[name])
            i = end + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def unescape(lit: str) -> str:
    """A Rust (non-raw) string literal's escapes, as far as the driver's head uses them."""
    return lit.replace("\\r", "\r").replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def one(pattern: str, text: str, what: str) -> str:
    m = re.search(pattern, text, re.S)
    if not m:
        sys.exit(f"per_call.py: cannot find {what} in bench/driver/src (pattern {pattern!r})")
    return m.group(1)


class Wire:
    """The driver's request bytes, read from its sources."""

    def __init__(self) -> None:
        proto = open(os.path.join(DRIVER, "proto.rs"), encoding="utf-8").read()
        wire = open(os.path.join(DRIVER, "httpwire.rs"), encoding="utf-8").read()
        self.consts = {
            "PROTOCOL_VERSION": one(
                r'pub const PROTOCOL_VERSION: &str = "([^"]+)"', proto, "PROTOCOL_VERSION"
            ),
            "PER_REQUEST_VERSION": one(
                r'pub const PER_REQUEST_VERSION: &str = "([^"]+)"', proto, "PER_REQUEST_VERSION"
            ),
        }
        self.initialize_fmt = one(r'pub fn initialize\(id: u64\).*?r#"(.*?)"#', proto, "initialize")
        self.initialized = one(r'pub const INITIALIZED: &str = r#"(.*?)"#', proto, "INITIALIZED")
        self.call_fmt = one(r'pub fn push_call\(out.*?r#"(.*?)"#', proto, "push_call")
        self.call_pr_fmt = one(
            r'pub fn push_call_per_request\(out.*?r#"(.*?)"#', proto, "push_call_per_request"
        )
        self.head_fmt = unescape(
            one(r'"(\{method\} /mcp HTTP/1\.1.*?)",', wire, "the request head")
        )
        self.pr_headers = unescape(
            one(
                r'if per_request \{\s*out\.extend_from_slice\(b"(.*?)"\)',
                wire,
                "the per-request headers",
            )
        )
        self.session_fmt = unescape(
            one(
                r'if let Some\(s\) = session \{\s*let _ = write!\(out, "(.*?)"\)',
                wire,
                "the session header",
            )
        )

    def request(self, port: int, body: bytes, per_request: bool, session: str | None) -> bytes:
        version = self.consts["PER_REQUEST_VERSION" if per_request else "PROTOCOL_VERSION"]
        head = rust_format(
            self.head_fmt,
            {"method": "POST", "port": str(port), "version": version},
            [str(len(body))],
        )
        if per_request:
            head += self.pr_headers
        if session is not None:
            head += rust_format(self.session_fmt, {"s": session}, [])
        return (head + "\r\n").encode() + body

    def call_body(self, id_: int, per_request: bool) -> bytes:
        fmt = self.call_pr_fmt if per_request else self.call_fmt
        return rust_format(fmt, {"id": str(id_), **self.consts}, []).encode()

    def initialize_body(self) -> bytes:
        return rust_format(self.initialize_fmt, {"id": "0", **self.consts}, []).encode()


class Conn:
    """One keep-alive connection; replies parsed as the driver does (length or chunked)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise RuntimeError("connection closed")
        self.buf += data

    def exchange(self, req: bytes) -> tuple[int, dict[str, str], bytes]:
        self.sock.sendall(req)
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while b"\r\n" not in self.buf:
                    self._fill()
                size_line, self.buf = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buf) < size + 2:
                    self._fill()
                body += self.buf[:size]
                self.buf = self.buf[size + 2 :]
                if size == 0:
                    break
        else:
            n = int(headers.get("content-length", "0"))
            while len(self.buf) < n:
                self._fill()
            body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body


class StdioConn:
    """The server's stdin and stdout: one JSON-RPC message per line each way."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc

    def exchange(self, line: bytes, id_: int | None) -> bytes:
        """Writes `line`; with an id, reads lines until the answer naming that id."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()
        if id_ is None:
            return b""
        want = f'"id":{id_}'.encode()
        while True:
            out = self.proc.stdout.readline()
            if not out:
                sys.exit(f"per_call.py: the server closed its stdout (exit {self.proc.poll()})")
            if want + b"," in out or want + b"}" in out:
                return out


def wait_port(port: int, proc: subprocess.Popen, timeout: float) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"per_call.py: the server exited ({proc.returncode}) before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit("per_call.py: the server did not listen in time")


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def totals(path: str) -> int:
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    sys.exit(f"per_call.py: no totals in {path}")


def control(flag: str, pid: int) -> None:
    subprocess.run(
        ["callgrind_control", flag, str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def measure(proc: subprocess.Popen, call, warmup: int, calls: int, out_dir: str) -> tuple[int, str]:
    """The run loop both scripts share: `warmup` calls, the counters zeroed, `calls` calls, the
    counters dumped. `call(id_)` makes one call with that id (and exits on a wrong answer).
    Returns the instructions counted and the dump's path."""
    next_id = 1
    for _ in range(warmup):
        call(next_id)
        next_id += 1
    control("-z", proc.pid)
    for _ in range(calls):
        call(next_id)
        next_id += 1
    control("-d", proc.pid)
    dumps = sorted(glob.glob(f"{out_dir}/callgrind.out.*"))
    if not dumps:
        sys.exit("callgrind wrote no dump")
    dump = dumps[-1]
    return totals(dump), dump


def stop(procs: list[subprocess.Popen], out_dir: str, keep: bool) -> None:
    """Ends the measured processes (stdin closed, SIGTERM, SIGKILL after 30 s) and removes
    out_dir unless the dump is kept: every script's clean-up."""
    for proc in procs:
        if proc.stdin:
            proc.stdin.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if not keep:
        shutil.rmtree(out_dir, ignore_errors=True)


def print_top(dump: str, ir: int, calls: int, top: int, by: str) -> None:
    """callgrind_annotate's top `top` functions of `dump`, per call, by inclusive or self cost."""
    ann = subprocess.run(
        [
            "callgrind_annotate",
            f"--inclusive={'yes' if by == 'inclusive' else 'no'}",
            # Every function, not just those making up the first 99 % (3.19's default).
            "--threshold=100",
            "--auto=no",
            dump,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    shown = 0
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(", line)
        if m:
            n = int(m.group(1).replace(",", ""))
            if by == "self" and n == ir:
                # The threads' entry frames, on the stack when the counters were zeroed,
                # are charged the whole total as their own: not a function's cost.
                continue
            print(f"{n / calls:10,.0f}  {line.split(')', 1)[1].strip()[:160]}")
            shown += 1
            if shown >= top:
                break


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--bin", required=True, help="the server binary (e.g. target/release/ferromcp-echo)"
    )
    ap.add_argument("--mode", required=True, choices=sorted(MODES) + [STDIO])
    ap.add_argument("--calls", type=int, default=800, help="calls counted (default 800)")
    ap.add_argument(
        "--warmup", type=int, default=50, help="calls before the counters are zeroed (default 50)"
    )
    ap.add_argument(
        "--top",
        type=int,
        default=0,
        help="also print callgrind_annotate's top N functions, per call",
    )
    ap.add_argument(
        "--by",
        choices=["inclusive", "self"],
        default="inclusive",
        help="what --top ranks by (default inclusive)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="TOKIO_WORKER_THREADS for the server (default 1: the count repeats to a few instructions; "
        "0 leaves the runtime's default, one worker per CPU, whose count moves by ~1k per call between runs "
        "with the worker each call happens to wake)",
    )
    ap.add_argument(
        "--keep", help="directory to keep the callgrind dump in (default: a temporary one, removed)"
    )
    args = ap.parse_args()

    stdio = args.mode == STDIO
    server_mode, per_request, handshake = MODES.get(args.mode, ("", False, True))
    wire = Wire()
    out_dir = args.keep or tempfile.mkdtemp(prefix="per-call-")
    os.makedirs(out_dir, exist_ok=True)
    port = free_port()
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_dir}/callgrind.out",
        os.path.abspath(args.bin),
    ] + (["stdio"] if stdio else ["http", str(port), server_mode])
    env = dict(os.environ)
    env.pop("TOKIO_WORKER_THREADS", None)
    if args.workers:
        env["TOKIO_WORKER_THREADS"] = str(args.workers)
    pipe = subprocess.PIPE if stdio else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdin=pipe, stdout=pipe, stderr=subprocess.DEVNULL, env=env)
    try:
        if stdio:
            sconn = StdioConn(proc)
            answer = sconn.exchange(wire.initialize_body(), 0)
            if b'"result"' not in answer:
                sys.exit(f"per_call.py: initialize answered {answer[:300]!r}")
            sconn.exchange(wire.initialized.encode(), None)

            def call(id_: int) -> None:
                body = sconn.exchange(wire.call_body(id_, False), id_)
                if f'"bench-{id_}"'.encode() not in body:
                    sys.exit(f"per_call.py: call {id_} answered {body[:300]!r}")

        else:
            wait_port(port, proc, 120)
            conn = Conn(port)
            session = None
            if handshake:
                status, headers, body = conn.exchange(
                    wire.request(port, wire.initialize_body(), False, None)
                )
                if status != 200:
                    sys.exit(f"per_call.py: initialize answered {status}: {body[:300]!r}")
                session = headers.get("mcp-session-id")
                conn.exchange(wire.request(port, wire.initialized.encode(), False, session))

            def call(id_: int) -> None:
                req = wire.request(port, wire.call_body(id_, per_request), per_request, session)
                status, _, body = conn.exchange(req)
                if status != 200 or f'"bench-{id_}"'.encode() not in body:
                    sys.exit(f"per_call.py: call {id_} answered {status}: {body[:300]!r}")

        ir, dump = measure(proc, call, args.warmup, args.calls, out_dir)
        workers = args.workers or "default"
        print(
            f"{args.mode}: {ir / args.calls:,.0f} instructions per call "
            f"({ir:,} over {args.calls} calls, {workers} worker(s); {args.bin})"
        )
        if args.top:
            print_top(dump, ir, args.calls, args.top, args.by)
        if not stdio:
            conn.sock.close()
    finally:
        stop([proc], out_dir, bool(args.keep))


if __name__ == "__main__":
    main()
