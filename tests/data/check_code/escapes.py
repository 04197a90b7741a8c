"""Functions that try to leave the sandbox through libc (ctypes), where Python's audit hook does not see them:
the kernel-enforced layers (bubblewrap's read-only file system and network namespace, the process limit) must."""
import ctypes
import os
import socket

import torch

libc = ctypes.CDLL(None, use_errno=True)


def write_elsewhere(x):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "escaped.txt")   # beside this file
    fd = libc.open(path.encode(), os.O_WRONLY | os.O_CREAT, 0o644)
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"open {path} refused")
    libc.write(fd, b"escaped", 7)
    libc.close(fd)
    return x * 2


def open_socket(x):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    address = (ctypes.c_uint8 * 16)(2, 0, 0, 80, 1, 1, 1, 1)      # sockaddr_in: AF_INET, port 80, 1.1.1.1
    if libc.connect(s.fileno(), address, 16) != 0:
        raise OSError(ctypes.get_errno(), "connect refused")
    return x * 2


def fork_without_end(x):
    children = 0
    while children < 100_000:
        pid = libc.fork()
        if pid == 0:
            libc.sleep(60)
            libc._exit(0)
        if pid < 0:
            raise OSError(ctypes.get_errno(), f"fork refused after {children} children")
        children += 1
    return x * 2
