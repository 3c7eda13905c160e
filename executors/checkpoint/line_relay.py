"""The host side of a state program's `tcp` transport, run inside the sandbox's network namespace
(nsenter -n): connects to 127.0.0.1:PORT, greets with the program's own ready line (PREFIX + a
ready answer, so the host's line channel treats it as the program's greeting), then copies request
lines from stdin to the server and each answer line back to stdout, in order.

  line_relay.py PORT PREFIX

Python 3 standard library only. Exit 3: nothing listens within 60 s; exit 4: the server closed.
"""
import json
import socket
import sys
import time


def connect(port, deadline_s=60.0):
    end = time.time() + deadline_s
    while True:
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
            connection.settimeout(None)
            return connection
        except OSError:
            if time.time() > end:
                sys.stderr.write(f"relay: nothing answers on 127.0.0.1:{port}\n")
                sys.exit(3)
            time.sleep(0.005)


def main(port, prefix):
    stream = connect(port).makefile("rw")
    sys.stdout.write(prefix + json.dumps({"ok": True, "ready": True, "relay": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        stream.write(line if line.endswith("\n") else line + "\n")
        stream.flush()
        reply = stream.readline()
        if not reply:
            sys.stderr.write("relay: the server closed the connection\n")
            sys.exit(4)
        sys.stdout.write(reply)
        sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
