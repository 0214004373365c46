"""A DNS server on UDP port 53 of one address whose answers alternate: the
A record of NAME is FIRST on the 1st, 3rd, ... A query and SECOND on the
others (TTL 0); AAAA of NAME has no record, other names do not exist.  For
latency/tls-fence: what a name whose owner flips its DNS looks like to
https-load, which looks the name up itself and then lets uclient look it
up again.  Runs until killed; one line per A query on stdout.

    flipdns.py LISTEN_ADDR NAME FIRST SECOND"""
import socket
import struct
import sys


def qname(packet, at):
    labels = []
    while packet[at]:
        n = packet[at]
        labels.append(packet[at + 1:at + 1 + n].decode("ascii", "replace").lower())
        at += 1 + n
    return ".".join(labels), at + 1


def main():
    listen, name, first, second = sys.argv[1:5]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((listen, 53))
    asked = 0
    while True:
        packet, peer = s.recvfrom(512)
        if len(packet) < 12:
            continue
        ident, flags, qd = struct.unpack("!HHH", packet[:6])
        if qd != 1:
            continue
        q, end = qname(packet, 12)
        qtype, = struct.unpack("!H", packet[end:end + 2])
        question = packet[12:end + 4]
        answers = b""
        rcode = 0 if q == name.lower() else 3
        if rcode == 0 and qtype == 1:
            addr = first if asked % 2 == 0 else second
            asked += 1
            print("A %d %s" % (asked, addr), flush=True)
            answers = struct.pack("!HHHIH", 0xC00C, 1, 1, 0, 4) + socket.inet_aton(addr)
        header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, 1 if answers else 0, 0, 0)
        s.sendto(header + question + answers, peer)


if __name__ == "__main__":
    main()
