"""httpbin (PyPI) on 127.0.0.1 for HTTPWire's interop tests, started by httpbin-loopback.sh.

    serve.py DIR    detaches, binds an OS-chosen port (no race for a free port), writes DIR/httpbin.pid and
                    then DIR/port, and serves until SIGTERM; its log goes to DIR/httpbin.log.

It detaches itself as a daemon would: a test runner starts it from a thread that blocks most signals (a
child inherits the mask, and could then never see SIGTERM), and Foundation's Process learns of its child's
exit only when every inherited descriptor is closed — so the mask is cleared, stdio goes to the log, every
other descriptor is closed and the server runs in a grandchild of its own session.
"""
import os
import signal
import sys

directory = sys.argv[1]
if os.fork() > 0:
    sys.exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for number in (signal.SIGPIPE, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD):
    signal.signal(number, signal.SIG_DFL)
log = os.open(os.path.join(directory, "httpbin.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.dup2(log, 1)
os.dup2(log, 2)
os.closerange(3, os.sysconf("SC_OPEN_MAX"))

from werkzeug.serving import make_server  # noqa: E402  (imported after detaching: the import takes ~0.5 s)
from httpbin import app  # noqa: E402

server = make_server("127.0.0.1", 0, app, threaded=True)
with open(os.path.join(directory, "httpbin.pid"), "w") as f:
    f.write(str(os.getpid()))
with open(os.path.join(directory, "port.tmp"), "w") as f:
    f.write(str(server.server_port))
os.rename(os.path.join(directory, "port.tmp"), os.path.join(directory, "port"))
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
server.serve_forever()
