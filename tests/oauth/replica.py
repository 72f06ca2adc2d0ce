"""One replica of an MCP server signed into through the OAuth proxy of the Python binding's own
listener (``Server.serve_http(oauth_proxy=OAuthProxyConfig(...), redis_url=...)``), for
tests/oauth/oidc_proxy.test.mjs (run by tests/run-oauth-proxy.sh): the same command line and
tool as the Rust replica (core/examples/oauth_proxy_replica.rs), so that the one deployed test
signs the TypeScript SDK in through three of these::

    python replica.py --port N --issuer URL --redis-url URL --upstream-issuer URL
        --client-id ID --client-secret SECRET [--access-token-ttl SECONDS]
        [--document-ca PEM_FILE]

The proxy's records and the MCP sessions go to the server's ``redis_url``; the upstream is
found by OpenID discovery (the ``oidc`` preset); ``--document-ca`` lets client metadata
documents be fetched from this machine over TLS trusting that CA (tests only). Tool
``whoami``: the caller's identity as the handler sees it (``ctx.auth``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from ferromcp import Context, OAuthProxyConfig, Server


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="replica.py")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--issuer", required=True)
    p.add_argument("--redis-url", required=True)
    p.add_argument("--upstream-issuer", required=True)
    p.add_argument("--client-id", required=True)
    p.add_argument("--client-secret")
    p.add_argument("--access-token-ttl", type=int)
    p.add_argument("--document-ca")
    return p.parse_args()


async def main() -> None:
    a = parse()
    documents: dict[str, Any] | None = None
    if a.document_ca:
        with open(a.document_ca) as f:
            documents = {"allow_private_addresses": True, "root_certificates": [f.read()]}
    server = Server("oauth-proxy-replica")

    @server.tool(description="The caller's identity, as the proxy's token gives it")
    async def whoami(ctx: Context) -> str:
        auth = ctx.auth or {}
        claims = auth.get("claims") or {}
        return json.dumps(
            {
                "subject": auth.get("subject"),
                "clientId": auth.get("clientId"),
                "scopes": auth.get("scopes"),
                "audience": auth.get("audience"),
                "upstreamToken": isinstance(claims.get("upstream_access_token"), str),
            }
        )

    front = a.issuer.split("://", 1)[1].split("/", 1)[0]
    http = await server.serve_http(
        "127.0.0.1",
        a.port,
        allowed_hosts=[front],
        redis_url=a.redis_url,
        oauth_proxy=OAuthProxyConfig(
            issuer_url=a.issuer,
            resource_server_url=f"{a.issuer}/mcp",
            upstream={
                "preset": "oidc",
                "issuer": a.upstream_issuer,
                "client_id": a.client_id,
                "client_secret": a.client_secret,
            },
            scopes_supported=["mcp:tools"],
            access_token_ttl_seconds=a.access_token_ttl,
            client_id_documents=documents,
        ),
    )
    print(f"replica.py: listening on port {http.port}", file=sys.stderr, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
