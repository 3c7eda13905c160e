#!/usr/bin/env python3
"""In-sandbox TCP -> Unix socket forwarder for the sandbench model service (stdlib only).

A sandbox with no network reaches the host's model service through the bind-mounted socket:
agent CLIs speak HTTP to 127.0.0.1:PORT, this relays each connection byte for byte to the socket.
Prints FORWARDER_READY once listening, so its start-up is timed apart from the CLI's.
Usage: forwarder.py [--listen 127.0.0.1:18080] [--socket /run/sandbench/model.sock]
"""
import argparse
import socket
import sys
import threading


def pump(src, dst):
    # one direction of one connection; half-close so HTTP keep-alive and EOF both pass through
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(client, socket_path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError as error:
        sys.stderr.write("FORWARDER_ERROR cannot connect %s: %s\n" % (socket_path, error))
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1:18080")
    parser.add_argument("--socket", default="/run/sandbench/model.sock")
    args = parser.parse_args()
    host, _, port = args.listen.rpartition(":")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host or "127.0.0.1", int(port)))
    listener.listen(64)
    sys.stdout.write("FORWARDER_READY %s:%d -> %s\n" % (host or "127.0.0.1", listener.getsockname()[1], args.socket))
    sys.stdout.flush()
    while True:
        client, _ = listener.accept()
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(client, args.socket), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
