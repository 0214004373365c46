"""A throwaway CA and a server certificate, made with openssl at run time
(never committed): make(dir, name) -> {"ca": path, "cert": path, "key": path}.
The lab's HTTPS server presents the certificate for `name`; the router
verifies it with "ca" (reterm.latency.ca_file)."""
import os
import subprocess


def _ssl(*args):
    subprocess.run(["openssl"] + list(args), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make(where, name, tag="lab"):
    os.makedirs(where, exist_ok=True)
    p = {k: os.path.join(where, "%s-%s.pem" % (tag, k))
         for k in ("ca", "cakey", "cert", "key", "csr")}
    _ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=reterm %s test CA" % tag, "-keyout", p["cakey"], "-out", p["ca"],
         "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    _ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % name,
         "-keyout", p["key"], "-out", p["csr"])
    ext = os.path.join(where, "%s-ext.cnf" % tag)
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n"
                "extendedKeyUsage=serverAuth\n" % name)
    _ssl("x509", "-req", "-in", p["csr"], "-CA", p["ca"], "-CAkey", p["cakey"],
         "-CAcreateserial", "-days", "2", "-out", p["cert"], "-extfile", ext)
    return {"ca": p["ca"], "cert": p["cert"], "key": p["key"]}
