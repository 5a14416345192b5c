#!/usr/bin/env python3
"""cdp.py: a tiny Chrome DevTools Protocol client, Python 3 standard library only.

It starts headless Chromium with --remote-debugging-pipe: Chromium reads
commands on its fd 3 and writes responses and events on its fd 4, each
message a JSON object ended by a NUL byte.  Every wait has a timeout.

    with Browser() as b:
        page = b.open("file:///tmp/page.html")     # a new target, attached (flatten)
        page.wait_for("document.body.dataset.ready === '1'")
        page.evaluate("1 + 1")                      # -> 2 (awaitPromise, returnByValue)
        page.click("#go-first")                     # real mouse events at the element's centre
        page.key("ArrowDown")                       # real key events
        png = page.screenshot()                     # PNG bytes
        distinct_colours(png)                       # how many colours: 1 for a blank page
        page.errors, page.requests                  # console errors / exceptions, network requests

The network requests are every URL the page asked for other than its own
file:// URL and data: URLs.

As a command:  cdp.py PAGE.html [--shot OUT.png] [--eval EXPR]  prints one JSON
object: errors, requests, distinct colours, the value of EXPR.
"""
import base64
import json
import os
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import zlib


class CDPError(Exception):
    pass


def find_browser():
    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process, talked to over the debugging pipe."""

    def __init__(self, binary=None, timeout=30.0, width=1280, height=800, extra_args=()):
        self.binary = binary or find_browser()
        if not self.binary:
            raise CDPError("no chromium-headless-shell or chromium in PATH")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="cdp-profile-")
        self.log = open(os.path.join(self.profile, "browser.log"), "wb")
        self.next_id = 0
        self.buffer = b""
        self.events = []      # (sessionId, method, params), in arrival order
        self.responses = {}
        self.pages = {}       # sessionId -> Page
        self.pid = None
        args = [self.binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--user-data-dir=" + self.profile,
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync", "--disable-component-update",
                "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                "--window-size=%d,%d" % (width, height)] + list(extra_args) + ["about:blank"]
        to_child_r, self.to_child = os.pipe()      # our commands -> the browser's fd 3
        self.from_child, from_child_w = os.pipe()  # the browser's fd 4 -> us
        pid = os.fork()
        if pid == 0:  # the child: put the pipe ends on fds 3 and 4 (inheritable), then exec
            try:
                r, w = os.dup(to_child_r), os.dup(from_child_w)
                os.dup2(r, 3)
                os.dup2(w, 4)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(self.log.fileno(), 1)
                os.dup2(self.log.fileno(), 2)
                os.closerange(5, 1024)
                os.setsid()
                os.execv(self.binary, args)
            finally:
                os._exit(127)
        self.pid = pid
        os.close(to_child_r)
        os.close(from_child_w)
        self.send("Browser.getVersion")

    # -- the wire --

    def _write(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.to_child, data)
            data = data[n:]

    def _read_one(self, deadline):
        """Reads messages until one is complete or the deadline passes; dispatches them."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for the browser")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise CDPError("the browser closed the pipe (see %s)" % self.log.name)
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        msg = json.loads(raw.decode("utf-8", "replace"))
        if "id" in msg:
            self.responses[msg["id"]] = msg
        else:
            self.events.append((msg.get("sessionId"), msg.get("method"), msg.get("params", {})))
            self.on_event(msg.get("sessionId"), msg.get("method"), msg.get("params", {}))

    def on_event(self, session, method, params):
        page = self.pages.get(session)
        if page:
            page.on_event(method, params)

    def pump(self, seconds):
        """Reads events for a while (to let the page settle)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._read_one(deadline)
        except CDPError as e:
            if "timed out" not in str(e):
                raise

    def send(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._write(msg)
        deadline = time.monotonic() + (timeout or self.timeout)
        while mid not in self.responses:
            self._read_one(deadline)
        resp = self.responses.pop(mid)
        if "error" in resp:
            raise CDPError("%s: %s" % (method, resp["error"].get("message", resp["error"])))
        return resp.get("result", {})

    # -- pages --

    def open(self, url, timeout=None):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self.pages[session] = page
        page.navigate(url, timeout)
        return page

    def close(self):
        if self.pid is None:
            return
        try:
            self.send("Browser.close", timeout=5)
        except (CDPError, OSError):
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.05)
        else:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        self.pid = None
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One attached target: console errors, network requests, evaluation, input."""

    def __init__(self, browser, target, session):
        self.browser, self.target, self.session = browser, target, session
        self.url = None
        self.errors = []      # text of console errors, exceptions and error log entries
        self.requests = []    # URLs requested other than the page itself and data:
        self.loaded = False
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")

    def send(self, method, params=None, timeout=None):
        return self.browser.send(method, params, self.session, timeout)

    def on_event(self, method, params):
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console.%s: %s" % (params["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", []))))
        elif method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            exc = d.get("exception", {})
            self.errors.append("exception: %s" % (exc.get("description") or d.get("text", "")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            e = params["entry"]
            self.errors.append("log: %s %s" % (e.get("text", ""), e.get("url", "")))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if url != self.url and not url.startswith("data:"):
                self.requests.append(url)
        elif method == "Page.loadEventFired":
            self.loaded = True

    def navigate(self, url, timeout=None):
        self.url = url
        self.loaded = False
        r = self.send("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise CDPError("cannot open %s: %s" % (url, r["errorText"]))
        deadline = time.monotonic() + (timeout or self.browser.timeout)
        while not self.loaded:
            self.browser._read_one(deadline)

    def evaluate(self, expr, timeout=None):
        r = self.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True,
                                           "returnByValue": True, "userGesture": True}, timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("evaluate %r: %s" % (expr[:80], d.get("exception", {}).get("description") or d.get("text")))
        return r.get("result", {}).get("value")

    def wait_for(self, expr, timeout=None, interval=0.05):
        """Evaluates expr until it is truthy; returns its value."""
        deadline = time.monotonic() + (timeout or self.browser.timeout)
        while True:
            v = self.evaluate(expr)
            if v:
                return v
            if time.monotonic() > deadline:
                raise CDPError("timed out waiting for %s" % expr)
            self.browser.pump(interval)

    # -- real input --

    def centre(self, selector):
        r = self.evaluate("(function(){var e=document.querySelector(%s); if(!e) return null;"
                          "e.scrollIntoView({block:'center'}); var b=e.getBoundingClientRect();"
                          "return [b.left+b.width/2, b.top+b.height/2];})()" % json.dumps(selector))
        if not r:
            raise CDPError("no element %s" % selector)
        return r

    def click(self, selector_or_xy, button="left"):
        x, y = self.centre(selector_or_xy) if isinstance(selector_or_xy, str) else selector_or_xy
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button, "clickCount": 1})

    KEYS = {"Enter": (13, "\r"), "ArrowUp": (38, ""), "ArrowDown": (40, ""), "ArrowLeft": (37, ""),
            "ArrowRight": (39, ""), "Escape": (27, ""), "Tab": (9, ""), "Home": (36, ""), "End": (35, ""),
            "PageUp": (33, ""), "PageDown": (34, ""), "Backspace": (8, "")}

    def key(self, key):
        """One key press: a named key (Enter, ArrowDown, ...) or one printable character."""
        if key in self.KEYS:
            code, text = self.KEYS[key]
            keycode = key
        else:
            code, text = ord(key.upper()) if key.isalnum() else ord(key), key
            keycode = ("Key" + key.upper()) if key.isalpha() else ("Digit" + key if key.isdigit() else "Slash" if key == "/" else "")
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": keycode,
                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if text:
            down["text"] = text
            down["unmodifiedText"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": keycode,
                                             "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def type_text(self, text):
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path=None):
        png = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])
        if path:
            with open(path, "wb") as f:
                f.write(png)
        return png


# -- PNG decoding (enough for Chromium's screenshots: 8-bit RGB / RGBA, not interlaced) --

def png_pixels(png):
    """-> (width, height, channels, rows): rows a list of unfiltered bytearrays."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def distinct_colours(png, limit=10000):
    """How many distinct colours the picture has (stops counting at limit): 1 for a blank page."""
    _, _, bpp, rows = png_pixels(png)
    seen = set()
    for line in rows:
        for i in range(0, len(line), bpp):
            seen.add(bytes(line[i:i + bpp]))
        if len(seen) >= limit:
            break
    return len(seen)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="load a page in headless Chromium and report on it")
    ap.add_argument("page")
    ap.add_argument("--shot", help="save a screenshot (PNG) there")
    ap.add_argument("--eval", help="an expression to evaluate once the page is loaded")
    ap.add_argument("--wait", help="an expression to wait for first", default="document.readyState === 'complete'")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args(argv)
    url = a.page if "://" in a.page else "file://" + os.path.abspath(a.page)
    with Browser(timeout=a.timeout) as b:
        p = b.open(url)
        p.wait_for(a.wait)
        out = {"value": p.evaluate(a.eval) if a.eval else None}
        png = p.screenshot(a.shot)
        out.update(errors=p.errors, requests=p.requests, colours=distinct_colours(png))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
