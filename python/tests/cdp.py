"""A headless Chromium driven over the DevTools protocol, with the standard
library only (a minimal WebSocket client over a socket): what
test_view.py and tools/view_screenshots.py use to load the explorer page,
click, type, read the DOM, collect console errors and network requests,
and take screenshots.

    with Chromium() as browser:
        page = browser.open("file:///tmp/x.html")
        page.evaluate("document.title")
        page.errors      # console.error calls, uncaught exceptions, log errors
        page.requests    # every URL the page asked for
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request


def chromium_path():
    """The Chromium executable, or None (Debian's `chromium`)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _WebSocket:
    """Text frames over one TCP connection (RFC 6455, client side)."""

    def __init__(self, url, timeout=60):
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the DevTools socket closed during the handshake")
            head += chunk
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"WebSocket handshake refused: {head[:200]!r}")

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise ConnectionError("the DevTools socket closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += n.to_bytes(2, "big")
        else:
            header.append(0x80 | 127)
            header += n.to_bytes(8, "big")
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def _frame(self):
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(self._read(2), "big")
        elif n == 127:
            n = int.from_bytes(self._read(8), "big")
        mask = self._read(4) if b1 & 0x80 else None
        data = self._read(n)
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        return b0 & 0x80, b0 & 0x0F, data

    def recv(self):
        parts = []
        while True:
            fin, opcode, data = self._frame()
            if opcode == 0x8:
                raise ConnectionError("the DevTools socket was closed")
            if opcode == 0x9:  # ping: answer with a pong (masked, as a client must)
                mask = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + mask +
                                  bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
                continue
            if opcode == 0xA:
                continue
            parts.append(data)
            if fin:
                return b"".join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Page:
    """One tab: `call` sends a DevTools command and returns its result;
    events arrive in between and are recorded."""

    def __init__(self, ws_url):
        self.ws = _WebSocket(ws_url)
        self.next_id = 0
        self.errors = []
        self.requests = []
        self.loaded = False
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _event(self, message):
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                        for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(details.get("exception", {}).get("description")
                               or details.get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Page.loadEventFired":
            self.loaded = True

    def call(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def evaluate(self, expression):
        """The value of a JavaScript expression (promises awaited)."""
        result = self.call("Runtime.evaluate", expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description")
                               or details.get("text"))
        return result.get("result", {}).get("value")

    def navigate(self, url, ready="document.body && document.body.dataset.ready === '1'",
                 timeout=60):
        """Loads `url` and waits for its load event and for `ready`."""
        self.loaded = False
        self.call("Page.navigate", url=url)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.loaded and self.evaluate(f"!!({ready})"):
                return
            self.evaluate("new Promise(r => setTimeout(r, 50))")
        raise TimeoutError(f"{url} did not get ready in {timeout} s")

    def wait(self, ms):
        self.evaluate(f"new Promise(r => setTimeout(r, {int(ms)}))")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        self.ws.close()


class Chromium:
    """A headless Chromium with its own profile in a temporary folder; a
    context manager that kills it (and removes the folder) on exit."""

    def __init__(self, width=1400, height=900, executable=None):
        self.executable = executable or chromium_path()
        if self.executable is None:
            raise FileNotFoundError("chromium is not installed")
        self.profile = tempfile.mkdtemp(prefix="traced-chromium-")
        self.proc = subprocess.Popen(
            [self.executable, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.proc.returncode}")
            try:
                with open(port_file) as f:
                    first = f.readline().strip()
                if first:
                    self.port = int(first)
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        if self.port is None:
            self.close()
            raise TimeoutError("chromium did not open its DevTools port")
        self.pages = []

    def _targets(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10) as r:
            return json.loads(r.read())

    def open(self, url):
        """The browser's tab, connected, navigated to `url` and ready."""
        deadline = time.time() + 30
        while True:
            pages = [t for t in self._targets() if t.get("type") == "page"]
            if pages or time.time() > deadline:
                break
            time.sleep(0.05)
        if not pages:
            raise RuntimeError("chromium has no tab")
        page = Page(pages[0]["webSocketDebuggerUrl"])
        self.pages.append(page)
        page.navigate(url)
        return page

    def close(self):
        for page in getattr(self, "pages", []):
            page.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
