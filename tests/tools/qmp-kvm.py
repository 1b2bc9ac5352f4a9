#!/usr/bin/python3
"""qmp-kvm.py: a real QEMU whose QMP monitor says KVM is present and enabled.

Used by tests/t-accel.sh's stand-in emulators for libvirt's capability
probes, so that libvirt offers a KVM domain on a host that has no KVM (it
asks the emulator `query-kvm` under `-machine none,accel=kvm:tcg`). The
probe's QEMU is the real one, run under TCG; only the answer to query-kvm
is changed. Every other byte passes through unchanged.

    qmp-kvm.py QEMU ARGS...

ARGS are libvirt's probe arguments, which hold `-qmp unix:PATH,...` and
`-daemonize`. The real QEMU gets PATH.real instead; this script listens on
PATH before it returns (libvirt connects once its launcher has exited),
forwards one connection to PATH.real, and ends when either side closes.
libvirt's pidfile names the real QEMU, so libvirt's kill of it ends us.
"""
import json
import os
import select
import socket
import subprocess
import sys


def main():
    qemu, args = sys.argv[1], sys.argv[2:]
    path = None
    for i, a in enumerate(args):
        if a == "-qmp" and i + 1 < len(args) and args[i + 1].startswith("unix:"):
            spec = args[i + 1][len("unix:"):]
            path, _, opts = spec.partition(",")
            args[i + 1] = "unix:" + path + ".real" + ("," + opts if opts else "")
    if path is None:
        sys.stderr.write("qmp-kvm.py: no -qmp unix:PATH among the arguments\n")
        return 2
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    rc = subprocess.call([qemu] + args)  # -daemonize: returns once QEMU listens
    if rc != 0:
        os.unlink(path)
        return rc
    if os.fork() > 0:
        return 0  # the launcher's exit tells libvirt to connect
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    client, _ = listener.accept()
    listener.close()
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(path + ".real")
    ids, pending, asked = set(), b"", b""
    while True:
        ready, _, _ = select.select([client, up], [], [])
        if client in ready:
            data = client.recv(65536)
            if not data:
                break
            asked += data
            while b"\n" in asked:
                line, asked = asked.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("execute") == "query-kvm":
                    ids.add(json.dumps(msg.get("id")))
            up.sendall(data)
        if up in ready:
            data = up.recv(65536)
            if not data:
                break
            pending += data
            out = b""
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                if (isinstance(msg, dict) and "return" in msg and
                        json.dumps(msg.get("id")) in ids):
                    msg["return"] = {"enabled": True, "present": True}
                    line = json.dumps(msg).encode() + (b"\r" if line.endswith(b"\r") else b"")
                out += line + b"\n"
            client.sendall(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
