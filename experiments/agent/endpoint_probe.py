#!/usr/bin/env python3
"""Inside a sandbox: is the model service the only reachable destination? (stdlib only)

Structural facts first (interfaces, routes, resolv.conf: no packets sent), then one request to the
service (its URL, or the bind-mounted socket), then connection attempts to destinations that must
fail: slirp's host and DNS addresses, public resolvers, a TEST-NET address. Each attempt records
the error and how long it took, so "fails at once" (no route) is told apart from a slow timeout.
Prints one line: ENDPOINT_PROBE {json}. The host side compares it with the service's journal.
"""
import json
import os
import socket
import time

NEGATIVES = [
    ("tcp", "10.0.2.2", 22),  # slirp's gateway = host loopback when restrict is off
    ("tcp", "10.0.2.3", 53),  # slirp's DNS
    ("tcp", "1.1.1.1", 443),
    ("tcp", "8.8.8.8", 53),
    ("tcp", "192.0.2.1", 80),  # TEST-NET-1
    ("udp", "8.8.8.8", 53),
]


def attempt(kind, host, port):
    started = time.monotonic()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM)
    sock.settimeout(3)
    try:
        if kind == "tcp":
            sock.connect((host, port))
        else:
            # a DNS query for example.com; sendto fails with no route, a reply would mean reachable
            sock.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01", (host, port))
            sock.recvfrom(512)
        result = "connected"
    except OSError as error:
        result = error.__class__.__name__ + (":" + os.strerror(error.errno) if error.errno else "")
    finally:
        sock.close()
    return {"dest": f"{kind}:{host}:{port}", "result": result, "ms": round((time.monotonic() - started) * 1000, 1)}


def model_request():
    url = os.environ.get("SANDBENCH_SERVICE_URL")
    request = b"GET /v1/models HTTP/1.1\r\nHost: model\r\nConnection: close\r\n\r\n"
    try:
        if url:
            host, port = url.split("//", 1)[1].rstrip("/").split(":")
            sock = socket.create_connection((host, int(port)), timeout=10)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(10)
            sock.connect(os.environ["SANDBENCH_SERVICE_SOCKET"])
        sock.sendall(request)
        reply = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
        sock.close()
        return {"via": url or "socket", "status_line": reply.split(b"\r\n", 1)[0].decode("latin-1")}
    except OSError as error:
        return {"via": url or "socket", "error": str(error)}


def interfaces():
    # /proc/net/dev is per network namespace and present wherever /proc is (bwrap mounts no /sys)
    try:
        with open("/proc/net/dev") as table:
            return sorted(line.split(":", 1)[0].strip() for line in table.read().splitlines()[2:] if ":" in line)
    except OSError:
        return None


def routes():
    try:
        with open("/proc/net/route") as table:
            rows = [line.split() for line in table.read().splitlines()[1:] if line.strip()]
    except OSError:
        return None
    decode = lambda hexaddr: socket.inet_ntoa(bytes.fromhex(hexaddr)[::-1])
    return [{"iface": row[0], "dest": decode(row[1]), "mask": decode(row[7])} for row in rows]


def main():
    resolv = None
    if os.path.exists("/etc/resolv.conf"):
        with open("/etc/resolv.conf") as handle:
            resolv = [line.split()[1] for line in handle if line.startswith("nameserver") and len(line.split()) > 1]
    facts = {
        "interfaces": interfaces(),
        "routes": routes(),
        "nameservers": resolv,
        "model": model_request(),
        "negatives": [attempt(*target) for target in NEGATIVES],
    }
    print("ENDPOINT_PROBE " + json.dumps(facts, sort_keys=True), flush=True)


main()
